/* secfilter learn: run PROG with everything allowed and write the policy
 * it needed (learned.c says how it is written).
 *
 * PROG runs under ptrace (the library could not see static programs, nor
 * the dynamic loader's calls that trusted mode checks), and so do all its
 * threads and children, and the programs they exec.  Every syscall-entry
 * stop is recorded with its arguments and the program that made it (the
 * name the kernel gives it, as ps shows it: a child is its parent's
 * program until it execs); the exec that starts PROG is run's, not
 * PROG's, and is not recorded (run exempts it in both modes). */
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

#include "learned.h"
#include "learnuse.h"
#include "secfilter.h"
#include "trace.h"

extern char **environ;

static const char usage[] =
	"Usage: secfilter learn [-o FILE] [--merge FILE]... [--args=none|auto|strict] [-- PROG [ARG...]]\n"
	"Run PROG with everything allowed, following its threads, children and the\n"
	"programs they run, and write a policy that allows the calls they made:\n"
	"one rule per system call, filtering the arguments that matter where the\n"
	"run used only a few values, in sections by purpose, with the calls each\n"
	"program made.\n\n"
	"  -o, --output=FILE  write the policy to FILE ('-': standard output); by\n"
	"                     default to the --merge policy, else to ./PROG.conf\n"
	"                     (which must not exist yet)\n"
	"  -m, --merge=FILE   add what FILE allows: a policy (learned or not) or a log\n"
	"                     of violations (SECFILTER_LOG of a run in log mode);\n"
	"                     repeatable, and PROG is then optional\n"
	"  -a, --args=MODE    none: no argument filters; auto (default): the ones that\n"
	"                     matter, see secfilter(1); strict: every argument with\n"
	"                     few values\n"
	"  -h, --help         show this help\n"
	"  -V, --version      print the version\n\n"
	"Exit status: PROG's (128+N when killed by signal N; 0 without PROG), 1 a\n"
	"--merge FILE is neither a policy nor a log, 2 usage, 125 secfilter\n"
	"failed, 126 PROG cannot be executed, 127 PROG not found.\n";

#define X32_BIT 0x40000000u

struct learn {
	char **argv;         /* PROG [ARG...] as given, or NULL */
	char *path;          /* what is exec'd: PROG resolved, or /bin/sh */
	char *script;        /* PROG resolved, when /bin/sh runs it */
	char **exec_argv;    /* /bin/sh PROG [ARG...], or NULL */
	const char *output;  /* -o FILE */
	const char **merge;  /* --merge FILEs */
	unsigned nmerge;
	char *dest;          /* where the policy goes */
	int dest_default;    /* ./PROG.conf, chosen here */
	int in_place;        /* dest is a merged policy: replaced whole */
	int out_fd;          /* dest, opened before PROG runs, or -o -'s standard
				output; -1: in place */
	int out_created;     /* dest did not exist before */
	struct learned *model;
	struct learnuse *use; /* files and ports */
	unsigned char *seen; /* bitmap of followed task ids */
	uint16_t *prog_of;   /* per task id: its program's index + 1, 0 unknown */
	size_t seen_max;
	pid_t main;
	int main_status;
	int counting;        /* PROG's image is in place */
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

/* The program a task runs, by the name the kernel gives it (the file
 * exec'd, cut to 15 bytes; what ps shows). */
static unsigned prog_of(struct learn *l, pid_t pid)
{
	char path[64], comm[32] = "?";
	size_t i = (size_t)pid;
	ssize_t n;
	int fd;

	if (i < l->seen_max && l->prog_of[i])
		return l->prog_of[i] - 1u;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n > 0) {
			comm[n] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
		}
	}
	n = learned_prog(l->model, comm);
	if (i < l->seen_max)
		l->prog_of[i] = (uint16_t)(n + 1);
	return (unsigned)n;
}

/* glibc's own signals (SIGCANCEL, SIGSETXID), which it handles from the
 * first thread on: only the program's own calls (pthread_cancel, setuid)
 * raise them, and those calls are in the run. */
#define GLIBC_SIGNALS(sig) ((sig) == 32 || (sig) == 33)

/* rt_sigaction(sig, act, ...) that installs a handler (not SIG_DFL or
 * SIG_IGN) brings calls that only a signal makes (learned.c). */
static void note_handler(struct learn *l, pid_t pid, const uint64_t a[6])
{
	long handler;

	if (!a[1] || GLIBC_SIGNALS(a[0]))
		return;
	errno = 0;
	handler = ptrace(PTRACE_PEEKDATA, pid, (void *)a[1], 0); /* sa_handler */
	if (errno || handler == (long)SIG_DFL || handler == (long)SIG_IGN)
		return;
	l->model->triggers |= LT_HANDLER;
	if (a[0] == SIGALRM)
		l->model->triggers |= LT_ALARM;
}

static void record_syscall(struct learn *l, pid_t pid)
{
	struct __ptrace_syscall_info info;
	uint64_t a[6];
	unsigned i;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) <= 0)
		return;
	if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
		learnuse_exit(l->use, pid, (long)info.exit.rval);
		return;
	}
	if (info.op != PTRACE_SYSCALL_INFO_ENTRY)
		return;
	if (info.arch != AUDIT_ARCH_X86_64 || (info.entry.nr & X32_BIT) ||
	    info.entry.nr >= SF_NR_COUNT) {
		if (l->counting)
			l->model->foreign++;
		return;
	}
	for (i = 0; i < 6; i++)
		a[i] = info.entry.args[i];
	/* files and ports from the start: the exec of PROG is checked too
	 * where run enters Landlock before it */
	learnuse_entry(l->use, pid, (long)info.entry.nr, a);
	if (!l->counting)
		return;
	if (!sf_syscall_by_nr((long)info.entry.nr)) {
		l->model->unknown[info.entry.nr]++;
		return;
	}
	if (info.entry.nr == SYS_rt_sigaction)
		note_handler(l, pid, a);
	learned_call(l->model, (long)info.entry.nr, a, prog_of(l, pid));
}

/* One stop of one task; returns the signal to resume it with. */
static int on_stop(struct learn *l, pid_t pid, int st)
{
	int sig = WSTOPSIG(st), event = st >> 16;

	if (!seen_test_set(l, pid, 1)) {
		/* A new thread or child starts with a SIGSTOP of its own. */
		l->model->tasks++;
		if (sig == SIGSTOP && !event)
			return 0;
	}
	if (sig == (SIGTRAP | 0x80)) {
		record_syscall(l, pid);
		return 0;
	}
	if (event) {
		unsigned long child;
		if (event == PTRACE_EVENT_EXEC) {
			if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &child) < 0)
				child = (unsigned long)pid;
			learnuse_exec(l->use, pid, (pid_t)child);
			if (pid == l->main)
				l->counting = 1;
			if ((size_t)pid < l->seen_max)
				l->prog_of[pid] = 0; /* a new program: named again */
		}
		if (event == PTRACE_EVENT_CLONE) /* a thread (not fork or vfork) */
			l->model->triggers |= LT_THREADS;
		/* the child runs what its creator ran, until it execs */
		if ((event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
		     event == PTRACE_EVENT_VFORK) && l->counting &&
		    ptrace(PTRACE_GETEVENTMSG, pid, 0, &child) == 0 && child < l->seen_max &&
		    !l->prog_of[child])
			l->prog_of[child] = (uint16_t)(prog_of(l, pid) + 1);
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
			if ((size_t)pid < l->seen_max)
				l->prog_of[pid] = 0;
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

static void warn_gaps(const struct learn *l)
{
	unsigned nr;

	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (l->model->unknown[nr])
			tool_err("learn: warning: %s made syscall %u, which secfilter's table "
				 "lacks; the policy cannot allow it", l->argv[0], nr);
	if (l->model->foreign)
		tool_err("learn: warning: %s made %llu calls through the i386 or x32 ABI, "
			 "which every policy denies", l->argv[0],
			 (unsigned long long)l->model->foreign);
}

/* -o -: standard output is the policy's alone.  learn keeps it, and PROG
 * (which would write its own output into the policy) gets standard
 * error as its standard output instead.  Returns 0 or an exit status. */
static int stdout_for_policy(struct learn *l)
{
	l->out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (l->out_fd < 0 || (l->argv && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)) {
		tool_perr("learn: standard output");
		return EX_SF_FAIL;
	}
	return 0;
}

/* Where the policy goes: -o FILE; else the policy merged into, replaced
 * whole once the new one is ready; else ./PROG.conf (not .policy: that
 * names a minijail file), which must not
 * exist (a run can take long, and should not end in a refusal or
 * overwrite another policy).  FILE is opened before PROG runs, so that a
 * typo does not cost the run; it is truncated only when the policy is
 * ready.  Returns 0 or an exit status. */
static int open_output(struct learn *l, const char *first_policy)
{
	l->out_fd = -1;
	if (l->output && strcmp(l->output, "-") == 0)
		return stdout_for_policy(l);
	if (l->output) {
		l->dest = xstrdup(l->output);
	} else if (first_policy) {
		l->dest = xstrdup(first_policy);
		l->in_place = 1;
		return 0;
	} else if (l->argv) {
		const char *base = strrchr(l->argv[0], '/');
		base = base ? base + 1 : l->argv[0];
		l->dest = xmalloc(strlen(base) + sizeof(".conf"));
		sprintf(l->dest, "%s.conf", base);
		l->dest_default = 1;
	} else {
		return tool_usage_err("learn", "learn: where to? give -o FILE (no --merge "
				      "file is a policy in secfilter's syntax)");
	}
	l->out_fd = open(l->dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (l->out_fd >= 0) {
		l->out_created = 1;
		return 0;
	}
	if (errno == EEXIST && l->dest_default) {
		tool_err("learn: %s exists: give -o FILE to write elsewhere, or --merge %s "
			 "to add this run to it", l->dest, l->dest);
		return EX_SF_USAGE;
	}
	if (errno == EEXIST)
		l->out_fd = open(l->dest, O_WRONLY | O_CLOEXEC);
	if (l->out_fd < 0) {
		tool_perr("learn: %s", l->dest);
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
	if (l->out_created && fstat(l->out_fd, &a) == 0 && lstat(l->dest, &b) == 0 &&
	    S_ISREG(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(l->dest);
	close(l->out_fd);
	l->out_fd = -1;
}

/* The merged policy is replaced by a rename: never half written. */
static int replace_file(const char *path, const char *text, size_t len)
{
	char *tmp = xmalloc(strlen(path) + 16);
	struct stat st;
	int fd, r = 0;

	sprintf(tmp, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	if (stat(path, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	r = write_all(fd, text, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

static int write_policy(struct learn *l)
{
	size_t len;
	char *text = learned_policy(l->model, &len);
	const char *name = l->dest ? l->dest : "standard output";
	struct stat st;
	int fd = l->out_fd, r;

	if (!text) {
		if (errno != EINVAL)
			tool_perr("learn: cannot format the policy");
		return EX_SF_FAIL;
	}
	r = 0;
	if (l->in_place) {
		r = replace_file(l->dest, text, len);
	} else {
		fflush(stdout);
		/* Only a regular file has old contents to cut (a FIFO or a
		 * terminal cannot be truncated); standard output is the
		 * caller's to truncate, or append to. */
		if (l->dest && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    ftruncate(fd, 0) < 0)
			r = -errno;
		if (r == 0)
			r = write_all(fd, text, len);
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
	if (l->dest_default)
		tool_err("learn: the policy is in %s", l->dest);
	return 0;
}

static int parse_mode(const char *s, enum sf_argmode *m)
{
	if (strcmp(s, "none") == 0)
		*m = SF_ARGS_NONE;
	else if (strcmp(s, "auto") == 0)
		*m = SF_ARGS_AUTO;
	else if (strcmp(s, "strict") == 0)
		*m = SF_ARGS_STRICT;
	else
		return -1;
	return 0;
}

static int parse_args(struct learn *l, int argc, char **argv, enum sf_argmode *mode)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "merge", required_argument, NULL, 'm' },
		{ "args", required_argument, NULL, 'a' },
		TOOL_COMMON_LONGOPTS,
	};
	int o;

	*mode = SF_ARGS_AUTO;
	l->merge = xmalloc((size_t)argc * sizeof(*l->merge));
	while ((o = getopt_long(argc, argv, "+:o:m:a:hV", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			l->output = optarg;
			break;
		case 'm':
			l->merge[l->nmerge++] = optarg;
			break;
		case 'a':
			if (parse_mode(optarg, mode) < 0)
				return tool_usage_err("learn", "learn: --args takes none, auto or "
						      "strict, not '%s'", optarg);
			break;
		default:
			return tool_common_option("learn", o, argv, usage);
		}
	}
	if (optind < argc)
		l->argv = argv + optind;
	else if (!l->nmerge)
		return tool_usage_err("learn", "learn: no PROG given");
	return 0;
}

static int learn(struct learn *l)
{
	struct spawn sp = { l->path, l->exec_argv ? l->exec_argv : l->argv, environ, 0, -1,
			    PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
			    PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE, NULL, NULL };
	struct spawn_fail f;
	int errfd, rc;

	l->seen_max = pid_max();
	l->seen = calloc(l->seen_max / 8 + 1, 1);
	l->prog_of = calloc(l->seen_max, sizeof(*l->prog_of));
	if (!l->seen || !l->prog_of) {
		tool_err("out of memory");
		drop_output(l);
		return EX_SF_FAIL;
	}
	learned_command(l->model, l->argv);
	l->model->fs_said++;
	l->use = learnuse_new(l->model);
	l->main = trace_spawn(&sp, &errfd);
	if (l->main < 0) {
		tool_perr("learn: cannot start %s", l->argv[0]);
		drop_output(l);
		return EX_SF_FAIL;
	}
	seen_test_set(l, l->main, 1);
	l->model->tasks = 1;
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
	if (!rc)
		learned_timing_note(l->model);
	return rc ? rc : status_to_exit(l->main_status);
}

/* The first --merge file that is a policy in secfilter's syntax (not a
 * log; a minijail or OCI file is not rewritten in another syntax). */
static const char *first_policy(const struct learn *l)
{
	unsigned i;

	for (i = 0; i < l->nmerge; i++) {
		char *text;
		size_t len;
		struct sf_policy *p = NULL;
		struct sf_error err;
		int ok;

		if (sf_syntax_of(l->merge[i]) != SF_SYNTAX_SECFILTER ||
		    read_path(l->merge[i], SF_MAX_TEXT, &text, &len) < 0)
			continue;
		memset(&err, 0, sizeof err);
		ok = sf_policy_apply_src(NULL, l->merge[i], SF_SRC_FILE, text, len, &p, &err) == 0;
		if (p)
			sf_policy_free(p);
		free(text);
		if (ok)
			return l->merge[i];
	}
	return NULL;
}

int cmd_learn(int argc, char **argv)
{
	static struct learn l;
	enum sf_argmode mode;
	unsigned i;
	int rc;

	if ((rc = parse_args(&l, argc, argv, &mode)))
		goto out;
	l.model = xmalloc(sizeof(*l.model)); /* 2 MiB of observations */
	learned_init(l.model, mode);
	/* The merged files are read first: a bad one is said before a
	 * long run, not after. */
	for (i = 0; i < l.nmerge; i++)
		if ((rc = learned_merge_file(l.model, l.merge[i])))
			goto out;
	if (l.argv) {
		rc = resolve_prog(l.argv[0], &l.path);
		if (rc) {
			tool_perr("learn: %s", l.argv[0]);
			goto out;
		}
		if (prog_needs_shell(l.path)) { /* as execvp does, and run */
			l.script = l.path;
			l.path = xstrdup("/bin/sh");
			l.exec_argv = shell_argv(l.script, l.argv);
		}
	}
	if ((rc = open_output(&l, first_policy(&l))))
		goto out;
	rc = l.argv ? learn(&l) : write_policy(&l);
out:
	if (l.model)
		learned_free(l.model);
	free(l.model);
	free(l.merge);
	free(l.dest);
	free(l.path);
	free(l.script);
	free(l.exec_argv);
	free(l.seen);
	free(l.prog_of);
	learnuse_free(l.use);
	return rc;
}
