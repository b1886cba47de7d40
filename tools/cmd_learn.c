/* secfilter learn [-o FILE] -- PROG [ARG...]: run PROG with everything
 * allowed and write the policy it needed.
 *
 * PROG runs under ptrace (the library could not see static programs, nor
 * the dynamic loader's calls that trusted mode checks), and so do all its
 * threads and children.  Every syscall-entry stop counts; the exec that
 * starts PROG is run's, not PROG's, and is not counted (run exempts it in
 * both modes). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "secfilter.h"
#include "trace.h"

extern char **environ;

static const char usage[] =
	"Usage: secfilter learn [-o FILE] -- PROG [ARG...]\n"
	"Run PROG with everything allowed, following its threads and children,\n"
	"and write a policy that allows the system calls it made, one\n"
	"'sys_NAME: 1' line per syscall with the number of calls.\n\n"
	"  -o, --output=FILE  write the policy to FILE (default: standard output,\n"
	"                     after PROG has finished)\n"
	"  -h, --help         show this help\n"
	"  -V, --version      print the version\n\n"
	"Exit status: PROG's (128+N when killed by signal N), 2 usage, 125\n"
	"secfilter failed, 126 PROG cannot be executed, 127 PROG not found.\n";

#define X32_BIT 0x40000000u

struct learn {
	char **argv;         /* PROG [ARG...] as given */
	char *path;          /* what is exec'd: PROG resolved, or /bin/sh */
	char *script;        /* PROG resolved, when /bin/sh runs it */
	char **exec_argv;    /* /bin/sh PROG [ARG...], or NULL */
	const char *output;
	int out_fd;          /* -o FILE, opened before PROG runs; -1: stdout */
	int out_created;     /* FILE did not exist before */
	uint64_t count[SF_NR_COUNT];
	uint64_t foreign;    /* calls through another ABI (i386, x32) */
	uint64_t tasks;      /* processes and threads followed */
	unsigned char *seen; /* bitmap of followed task ids */
	size_t seen_max;
	pid_t main;
	int main_status;
	int counting;        /* PROG's image is in place */
	int threads;         /* some task shared its memory with a new one */
};

static int seen_test_set(struct learn *l, pid_t pid, int set)
{
	size_t i = (size_t)pid;
	int was;

	if (i >= l->seen_max) /* pid_max raised under us: treat as new */
		return 0;
	was = (l->seen[i / 8] >> (i % 8)) & 1;
	if (set > 0)
		l->seen[i / 8] |= (unsigned char)(1u << (i % 8));
	else if (set < 0)
		l->seen[i / 8] &= (unsigned char)~(1u << (i % 8));
	return was;
}

static size_t pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? (size_t)v + 1 : (4u << 20) + 1; /* PID_MAX_LIMIT */
}

static void count_syscall(struct learn *l, pid_t pid)
{
	struct __ptrace_syscall_info info;

	if (!l->counting ||
	    ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) <= 0 ||
	    info.op != PTRACE_SYSCALL_INFO_ENTRY)
		return;
	if (info.arch != AUDIT_ARCH_X86_64 || (info.entry.nr & X32_BIT) ||
	    info.entry.nr >= SF_NR_COUNT)
		l->foreign++;
	else
		l->count[info.entry.nr]++;
}

/* One stop of one task; returns the signal to resume it with. */
static int on_stop(struct learn *l, pid_t pid, int st)
{
	int sig = WSTOPSIG(st), event = st >> 16;

	if (!seen_test_set(l, pid, 1)) {
		/* A new thread or child starts with a SIGSTOP of its own. */
		l->tasks++;
		if (sig == SIGSTOP && !event)
			return 0;
	}
	if (sig == (SIGTRAP | 0x80)) {
		count_syscall(l, pid);
		return 0;
	}
	if (event) {
		if (event == PTRACE_EVENT_EXEC && pid == l->main)
			l->counting = 1;
		if (event == PTRACE_EVENT_CLONE) /* a thread (not fork or vfork) */
			l->threads = 1;
		return 0;
	}
	return trace_stop_signal(pid, st);
}

/* Follows every task until the last one is gone.  Returns 0, or -1 when
 * ptrace fails. */
static int follow(struct learn *l)
{
	int st;

	if (ptrace(PTRACE_SYSCALL, l->main, 0, 0) < 0)
		return -1;
	for (;;) {
		pid_t pid = wait_retry(-1, &st, 0);

		if (pid < 0)
			return errno == ECHILD ? 0 : -1;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			/* Descendants may go on: a signal for learn now ends
			 * learn, and PTRACE_O_EXITKILL them. */
			if (pid == l->main) {
				l->main_status = st;
				forward_signals_reset();
			}
			seen_test_set(l, pid, -1);
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		/* ESRCH: it was killed (SIGKILL) while stopped; its exit
		 * comes next. */
		if (ptrace(PTRACE_SYSCALL, pid, 0, on_stop(l, pid, st)) < 0 && errno != ESRCH)
			return -1;
	}
}

static void write_header(FILE *out, const struct learn *l, uint64_t total, unsigned kinds)
{
	char date[64];
	time_t now = time(NULL);
	char **a;

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
	fputs("# Learned by secfilter learn from one run of:\n#  ", out);
	for (a = l->argv; *a; a++)
		fprintf(out, " %s", *a);
	fprintf(out, "\n# on %s: %llu system calls of %u kinds by %llu task%s.\n", date,
		(unsigned long long)total, kinds, (unsigned long long)l->tasks,
		l->tasks == 1 ? "" : "s");
	fputs("# It allows what that run did, the dynamic loader's calls included\n"
	      "# (trusted mode checks them); review it before relying on it.\n", out);
}

/* The policy, as text: header, then one line per syscall in number
 * order. */
static char *policy_of(const struct learn *l, size_t *len)
{
	uint64_t total = 0;
	unsigned kinds = 0, nr;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		return NULL;
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (l->count[nr]) {
			total += l->count[nr];
			kinds++;
		}
	write_header(out, l, total, kinds);
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_syscall *sc = sf_syscall_by_nr(nr);
		unsigned long long n = l->count[nr];
		char rule[64];

		if (!n && nr == SYS_futex && l->threads) {
			/* Whether a thread has to wait for another (a join, a
			 * contended lock) is timing's call, and ptrace slows
			 * the run learn watches: the next run of the same
			 * command may wait where this one did not. */
			fprintf(out, "%-28s # 0 calls, but threads wait through it when timing has them\n",
				"sys_futex: 1");
			continue;
		}
		if (!n)
			continue;
		if (!sc) { /* the parser refuses numbers the table lacks */
			fprintf(out, "# %u: %llu call%s -- not in secfilter's syscall table\n",
				nr, n, n == 1 ? "" : "s");
			continue;
		}
		snprintf(rule, sizeof(rule), "sys_%s: 1", sc->name);
		fprintf(out, "%-28s # %llu call%s\n", rule, n, n == 1 ? "" : "s");
	}
	if (l->foreign)
		fprintf(out, "# %llu calls through another ABI (i386 or x32) cannot be allowed\n",
			(unsigned long long)l->foreign);
	if (fclose(out) != 0)
		return NULL;
	return buf;
}

static void warn_gaps(const struct learn *l)
{
	unsigned nr;

	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (l->count[nr] && !sf_syscall_by_nr(nr))
			tool_err("learn: warning: %s made syscall %u, which secfilter's table "
				 "lacks; the policy cannot allow it", l->argv[0], nr);
	if (l->foreign)
		tool_err("learn: warning: %s made %llu calls through the i386 or x32 ABI, "
			 "which every policy denies", l->argv[0],
			 (unsigned long long)l->foreign);
}

/* The learned text must itself be a valid policy. */
static int validate(const char *text, size_t len)
{
	struct sf_policy *p;
	struct sf_error err;

	memset(&err, 0, sizeof(err));
	if (sf_policy_apply(NULL, "<learned>", text, len, &p, &err) < 0) {
		tool_err("learn: internal error: the learned policy does not parse:\n%s",
			 err.text);
		return -1;
	}
	sf_policy_free(p);
	return 0;
}

/* -o FILE is opened before PROG runs: a run can take long (the user
 * exercising the program), and a typo in FILE should not cost it.  FILE
 * is truncated only when the policy is ready.  Returns 0 or an exit
 * status. */
static int open_output(struct learn *l)
{
	l->out_fd = -1;
	if (!l->output || strcmp(l->output, "-") == 0)
		return 0;
	l->out_fd = open(l->output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (l->out_fd >= 0) {
		l->out_created = 1;
		return 0;
	}
	if (errno == EEXIST)
		l->out_fd = open(l->output, O_WRONLY | O_CLOEXEC);
	if (l->out_fd < 0) {
		tool_perr("learn: %s", l->output);
		return EX_SF_FAIL;
	}
	return 0;
}

/* PROG never ran: no policy, so no file that was not there before. */
static void drop_output(struct learn *l)
{
	struct stat a, b;

	if (l->out_fd < 0)
		return;
	if (l->out_created && fstat(l->out_fd, &a) == 0 && lstat(l->output, &b) == 0 &&
	    S_ISREG(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(l->output);
	close(l->out_fd);
	l->out_fd = -1;
}

static int write_policy(struct learn *l)
{
	size_t len;
	char *text = policy_of(l, &len);
	const char *name = l->out_fd >= 0 ? l->output : "standard output";
	struct stat st;
	int fd = l->out_fd >= 0 ? l->out_fd : STDOUT_FILENO, r;

	if (!text || validate(text, len) < 0) {
		free(text);
		if (!text)
			tool_perr("learn: cannot format the policy");
		return EX_SF_FAIL;
	}
	fflush(stdout);
	r = 0;
	/* Only a regular file has old contents to cut (a FIFO or a
	 * terminal cannot be truncated). */
	if (l->out_fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    ftruncate(fd, 0) < 0)
		r = -errno;
	if (r == 0)
		r = write_all(fd, text, len);
	if (l->out_fd >= 0) {
		if (close(fd) < 0 && r == 0)
			r = -errno;
		l->out_fd = -1;
	}
	free(text);
	if (r < 0) {
		errno = -r;
		tool_perr("learn: %s", name);
		return EX_SF_FAIL;
	}
	return 0;
}

static int parse_args(struct learn *l, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		TOOL_COMMON_LONGOPTS,
	};
	int o;

	while ((o = getopt_long(argc, argv, "+:o:hV", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			l->output = optarg;
			break;
		default:
			return tool_common_option("learn", o, argv, usage);
		}
	}
	if (optind >= argc)
		return tool_usage_err("learn", "learn: no PROG given");
	l->argv = argv + optind;
	return 0;
}

static int learn(struct learn *l)
{
	struct spawn sp = { l->path, l->exec_argv ? l->exec_argv : l->argv, environ, 0, -1,
			    PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
			    PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE };
	struct spawn_fail f;
	int errfd, rc;

	l->seen_max = pid_max();
	l->seen = calloc(l->seen_max / 8 + 1, 1);
	if (!l->seen) {
		tool_err("out of memory");
		drop_output(l);
		return EX_SF_FAIL;
	}
	l->main = trace_spawn(&sp, &errfd);
	if (l->main < 0) {
		tool_perr("learn: cannot start %s", l->argv[0]);
		drop_output(l);
		return EX_SF_FAIL;
	}
	seen_test_set(l, l->main, 1);
	l->tasks = 1;
	forward_signals_to(l->main);
	if (follow(l) < 0) {
		tool_perr("learn: tracing %s", l->argv[0]);
		kill(l->main, SIGKILL);
		close(errfd);
		drop_output(l);
		return EX_SF_FAIL;
	}
	if (!l->counting) { /* it never became PROG */
		trace_spawn_failure(errfd, &f);
		close(errfd);
		drop_output(l);
		errno = f.err;
		if (f.stage == SPAWN_EXEC) {
			tool_perr("learn: %s", l->argv[0]);
			return f.err == ENOENT ? EX_SF_NOTFOUND : EX_SF_NOEXEC;
		}
		if (f.stage == SPAWN_SETUP)
			tool_perr("learn: cannot prepare %s", l->argv[0]);
		return f.stage == SPAWN_SETUP ? EX_SF_FAIL : status_to_exit(l->main_status);
	}
	close(errfd);
	warn_gaps(l);
	rc = write_policy(l);
	return rc ? rc : status_to_exit(l->main_status);
}

int cmd_learn(int argc, char **argv)
{
	static struct learn l; /* the counts are 4 KiB */
	int rc;

	if ((rc = parse_args(&l, argc, argv)))
		return rc;
	rc = resolve_prog(l.argv[0], &l.path);
	if (rc) {
		tool_perr("learn: %s", l.argv[0]);
		return rc;
	}
	if (prog_needs_shell(l.path)) { /* as execvp does, and run */
		l.script = l.path;
		l.path = xstrdup("/bin/sh");
		l.exec_argv = shell_argv(l.script, l.argv);
	}
	if ((rc = open_output(&l)))
		return rc;
	rc = learn(&l);
	free(l.path);
	free(l.script);
	free(l.exec_argv);
	free(l.seen);
	return rc;
}
