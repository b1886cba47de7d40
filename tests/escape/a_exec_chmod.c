// escape: toggle the exec'd file's set-group-ID bit (race)
// expect: interpose=stop trusted=stop run=stop
// policy: *: 1; io_uring_setup: 0; openat: !(flags & O_CREAT) || (flags & O_TRUNC); open: !(flags & O_CREAT); creat: 0
/* The kernel starts a set-group-ID image in secure mode (AT_SECURE) when
 * the file's group is not the real gid, and the loader then ignores
 * LD_PRELOAD.  The library's exec looks at the file's mode, then execs:
 * a read lease keeps its content still in between, nothing keeps its
 * mode.  So a thread turns the set-group-ID bit on and off, as fast as it
 * can, on a copy of h_nolibc (a dynamic program, group 65534), while
 * children exec it; an image started in secure mode runs without the
 * library and makes the marker (h_nolibc's open has no O_TRUNC, which
 * the policy lets the attempt use for its copy).  Needs root (the file's
 * group). */
#include "escape.h"

#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *target;
static volatile int stop;

static void *toggle(void *arg)
{
	(void)arg;
	while (!stop) {
		chmod(target, 02755);
		chmod(target, 0755);
	}
	return NULL;
}

static int copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

static void exec_copy(int i, void *args)
{
	extern char **environ;

	(void)i;
	execve(((char **)args)[0], args, environ);
}

int main(int argc, char **argv)
{
	char prog[4096], copied[4096 + 16];
	char *args[] = { copied, argv[1], NULL };
	pthread_t th;

	(void)argc;
	escape_path(prog, sizeof prog, "h_nolibc");
	snprintf(copied, sizeof copied, "%s.setgid", argv[1]);
	if (getuid() != 0) {
		printf("not root: cannot give the file another group\n");
		return 77;
	}
	if (copy(prog, copied) < 0 || chown(copied, (uid_t)-1, 65534) < 0) {
		printf("cannot make the copy: %s\n", strerror(errno));
		return 2;
	}
	target = copied;
	if (pthread_create(&th, NULL, toggle, NULL) != 0)
		return 2;
	race_children(argv[1], 400, 4, exec_copy, args);
	stop = 1;
	pthread_join(th, NULL);
	unlink(copied);
	return 0;
}
