/* pthread_cancel of a thread blocked in a cancellation point: the wrapped
 * ones (read, nanosleep, openat of a FIFO, F_SETLKW) and ones only the
 * catch-all sees (sem_wait's futex, pause, select).  Prints what the
 * cancelled thread's cleanup handler and pthread_join saw.
 * Usage: lib_cancel MODE */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int p[4]; /* the pipe the thread reads; in lock mode [1] is the file, [2..3] a pipe */
static sem_t sem;
static const char *mode;

static void cleanup(void *a)
{
	(void)a;
	printf("%s: cleanup ran\n", mode);
}

static void block(void)
{
	char c;
	struct timespec ts = { 100, 0 };
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (!strcmp(mode, "read"))
		(void)!read(p[0], &c, 1);
	else if (!strcmp(mode, "nanosleep"))
		nanosleep(&ts, NULL);
	else if (!strcmp(mode, "fifo"))
		open("fifo", O_RDONLY); /* no writer: blocks */
	else if (!strcmp(mode, "lock"))
		fcntl(p[1], F_SETLKW, &lk); /* the parent holds the lock */
	else if (!strcmp(mode, "sem"))
		sem_wait(&sem);
	else if (!strcmp(mode, "pause"))
		pause();
	else if (!strcmp(mode, "select"))
		select(0, NULL, NULL, NULL, NULL);
}

static void *thread(void *a)
{
	(void)a;
	pthread_cleanup_push(cleanup, NULL);
	block();
	pthread_cleanup_pop(0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *res;
	char held;
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	mode = argc > 1 ? argv[1] : "read";
	if (pipe(p) < 0 || sem_init(&sem, 0, 0) < 0)
		return 1;
	if (!strcmp(mode, "fifo") && mkfifo("fifo", 0600) < 0)
		return 1;
	if (!strcmp(mode, "lock")) {
		/* a lock held by another process, on a file */
		p[1] = open("lockfile", O_RDWR | O_CREAT, 0600);
		if (p[1] < 0 || pipe(p + 2) < 0)
			return 1;
		if (fork() == 0) {
			fcntl(p[1], F_SETLK, &lk);
			(void)!write(p[3], "l", 1); /* held: the thread will block */
			sleep(1);
			_exit(0);
		}
		if (read(p[2], &held, 1) != 1)
			return 1;
	}
	pthread_create(&th, NULL, thread, NULL);
	usleep(200000);
	pthread_cancel(th);
	pthread_join(th, &res);
	printf("%s: joined, cancelled %s\n", mode, res == PTHREAD_CANCELED ? "yes" : "no");
	return 0;
}
