/* Concurrency stress for secfilter_apply: 8 threads make syscalls while
 * the main thread narrows the policy through the API, round after round,
 * until at least CALLS calls have been made.  Run under libsecfilter.so
 * with a policy that allows everything (`*: 1`), in kill mode.
 *
 * Each round is a forked child.  Its workers loop over: getppid through
 * libc's wrapper, getpriority (an argument the policy filters), a raw
 * `syscall` instruction (which only the catch-all sees), and a probe: an
 * 8-byte record written to PROBE_FD, through write() or a raw syscall.
 * The main thread narrows four times harmlessly (syscalls or arguments
 * the workers never use, one of them on write itself) while the calls
 * run, then once with `write: fd != PROBE_FD`, and only when that
 * secfilter_apply has returned sets the epoch.  A record says which
 * epoch its worker had seen just before the call: a record of epoch 1
 * in the file is a call the new policy forbids, made after apply
 * returned, that completed.  The round must die of the narrowing
 * (SIGKILL, or SIGSYS from a kernel filter), possibly before the final
 * apply returns (a kernel filter is in force on every thread before it
 * does), within ROUND_SECS: still alive means either a deadlock or
 * forbidden calls going through.
 *
 * Usage: lib_stress FILE [CALLS] [--early]
 *   FILE     the probe records (created; read back at the end)
 *   --early  the negative control: the epoch is set before the final
 *            apply, so completed epoch-1 records must be found; the
 *            program then exits 3 ("violations found", as expected)
 * Prints a summary; exit 0 when every round held, 1 when not, 2 on a
 * setup error. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../escape/escape.h"

#define WORKERS 8
#define PROBE_FD 77
#define ROUND_SECS 20
#define ROUNDS_MAX 64

struct record {
	uint16_t round;
	uint8_t worker;
	uint8_t epoch; /* what the worker had seen before the call */
	uint32_t seq;
};

/* Shared between the driver and a round's process (MAP_SHARED). */
struct shared {
	struct {
		unsigned long calls; /* completed calls */
		char pad[56];
	} w[WORKERS];
	int epoch;         /* 1 once the final apply has returned */
	int applied;       /* applies that returned 0 */
	int apply_failed;  /* errno of one that did not */
	int survived;      /* the round's main thread outlived ROUND_SECS */
};

static struct shared *sh;
static int round_no, early;
static int (*apply)(const char *);

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	unsigned long *calls = &sh->w[id].calls;
	struct record rec = { (uint16_t)round_no, (uint8_t)id, 0, 0 };
	unsigned i;

	for (i = 0;; i++) {
		switch (i % 8) {
		case 0: case 4:
			/* The probe: the epoch is read right before the call. */
			rec.seq = i;
			rec.epoch = (uint8_t)__atomic_load_n(&sh->epoch, __ATOMIC_ACQUIRE);
			if (i % 16 == 0)
				raw_syscall(SYS_write, PROBE_FD, (long)&rec, sizeof(rec), 0, 0, 0);
			else if (write(PROBE_FD, &rec, sizeof(rec)) != sizeof(rec))
				_exit(4);
			break;
		case 1: case 5: case 7:
			getppid();
			break;
		case 2: case 6:
			errno = 0;
			if (getpriority(PRIO_PROCESS, 0) == -1 && errno)
				_exit(4);
			break;
		default:
			if (i % 64 == 3)
				raw_syscall(SYS_getuid, 0, 0, 0, 0, 0, 0); /* the catch-all: slower */
			else
				getppid();
		}
		__atomic_store_n(calls, *calls + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static unsigned long total_calls(void)
{
	unsigned long n = 0;
	unsigned i;

	for (i = 0; i < WORKERS; i++)
		n += __atomic_load_n(&sh->w[i].calls, __ATOMIC_RELAXED);
	return n;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void narrow(const char *policy)
{
	if (apply(policy) != 0) {
		sh->apply_failed = errno ? errno : -1;
		_exit(5);
	}
	__atomic_add_fetch(&sh->applied, 1, __ATOMIC_RELAXED);
}

/* The round's process: never returns. */
static void __attribute__((noreturn)) round_main(unsigned long target)
{
	static const char *const harmless[4] = {
		"ptrace: 0",
		"getpriority: which != PRIO_USER",
		"write: fd != 999",
		"getpgid: pid != 4242; kill: sig != 64",
	};
	char final[64];
	pthread_t t;
	unsigned i, step = 0;

	for (i = 0; i < WORKERS; i++)
		if (pthread_create(&t, NULL, worker, (void *)(uintptr_t)i) != 0)
			_exit(6);
	snprintf(final, sizeof(final), "write: fd != %d", PROBE_FD);
	/* The harmless narrowings at 1/5 .. 4/5 of the round's calls, the
	 * final one at the end. */
	while (step < 4) {
		if (total_calls() >= target * (step + 1) / 5)
			narrow(harmless[step++]);
		else
			sched_yield();
	}
	while (total_calls() < target)
		sched_yield();
	if (early) {
		__atomic_store_n(&sh->epoch, 1, __ATOMIC_RELEASE);
		nap_ms(50);
		narrow(final);
	} else {
		narrow(final);
		__atomic_store_n(&sh->epoch, 1, __ATOMIC_RELEASE);
	}
	nap_ms(ROUND_SECS * 1000);
	sh->survived = 1;
	_exit(7);
}

/* Waits for the round's process; 0 when it ended, -1 when it did not
 * within the deadline (then it is killed). */
static int wait_round(pid_t pid, int *status)
{
	int ms;

	for (ms = 0; ms < (ROUND_SECS + 5) * 1000; ms += 5) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		nap_ms(5);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long want = 1000000, per_round, calls = 0;
	unsigned long before = 0, after = 0;
	struct record rec;
	int fd, rounds = 0, bad = 0, status, early_kills = 0;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: lib_stress FILE [CALLS] [--early]\n");
		return 2;
	}
	if (argc > 2 && strcmp(argv[argc - 1], "--early") == 0) {
		early = 1;
		argc--;
	}
	if (argc > 2)
		want = strtoul(argv[2], NULL, 0);
	apply = (int (*)(const char *))dlsym(RTLD_DEFAULT, "secfilter_apply");
	if (!apply) {
		fprintf(stderr, "lib_stress: secfilter_apply not found (is the library preloaded?)\n");
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	if (sh == MAP_FAILED || fd < 0 || dup2(fd, PROBE_FD) != PROBE_FD) {
		perror("lib_stress: setup");
		return 2;
	}
	close(fd);
	per_round = want / 16 + 1;
	while (calls < want && rounds < ROUNDS_MAX) {
		unsigned long n;
		pid_t pid;

		memset(sh, 0, sizeof(*sh));
		round_no = ++rounds;
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			perror("lib_stress: fork");
			return 2;
		}
		if (pid == 0)
			round_main(per_round);
		if (wait_round(pid, &status) < 0) {
			printf("round %d: still running after %d s: deadlock (%lu calls, epoch %d)\n",
			       rounds, ROUND_SECS + 5, total_calls(), sh->epoch);
			bad = 1;
			break;
		}
		n = total_calls();
		calls += n;
		if (sh->survived || !WIFSIGNALED(status) ||
		    (WTERMSIG(status) != SIGKILL && WTERMSIG(status) != SIGSYS)) {
			printf("round %d: %s (status %#x, %d applies, apply errno %d, epoch %d)\n",
			       rounds,
			       sh->survived ? "forbidden calls went through for seconds"
					    : "did not die of the narrowing",
			       status, sh->applied, sh->apply_failed, sh->epoch);
			bad = 1;
			break;
		}
		/* The final narrowing may kill a worker before it returns:
		 * the policy is in force before apply says so. */
		if (sh->applied < 4) {
			printf("round %d: died before the final narrowing (%d applies, signal %d)\n",
			       rounds, sh->applied, WTERMSIG(status));
			bad = 1;
			break;
		}
		early_kills += !sh->epoch;
	}
	close(PROBE_FD);
	f = fopen(argv[1], "r");
	if (!f) {
		perror("lib_stress: reading the records");
		return 2;
	}
	while (fread(&rec, sizeof(rec), 1, f) == 1) {
		if (rec.epoch && !after++)
			printf("first: round %u, worker %u, its call %u\n", rec.round, rec.worker,
			       rec.seq);
		before += !rec.epoch;
	}
	fclose(f);
	printf("%d rounds (%d killed before the final apply returned), %lu calls by %d "
	       "threads, %d narrowings each; %lu probes completed before the final "
	       "narrowing returned, %lu after\n",
	       rounds, early_kills, calls, WORKERS, 5, before, after);
	if (after) {
		printf("violation: %lu calls the narrowed policy forbids completed after "
		       "secfilter_apply returned\n", after);
		return early ? 3 : 1;
	}
	if (early) {
		printf("negative control: no violation found where one was made\n");
		return 1;
	}
	if (!bad && calls < want) {
		printf("only %lu calls in %d rounds\n", calls, rounds);
		bad = 1;
	}
	return bad;
}
