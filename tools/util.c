/* Small helpers every subcommand uses: messages, memory, whole-file I/O,
 * exit statuses and signal forwarding. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "secfilter.h"

static void vmsg(const char *fmt, va_list ap, int with_errno)
{
	int e = errno;

	fputs("secfilter: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (with_errno)
		fprintf(stderr, ": %s", strerror(e));
	fputc('\n', stderr);
}

void tool_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void tool_perr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 1);
	va_end(ap);
}

int tool_usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try 'secfilter %s%s--help' for more information.\n",
		cmd ? cmd : "", cmd ? " " : "");
	return EX_SF_USAGE;
}

/* getopt_long runs with opterr = 0 (main sets it): its own message
 * ("run: invalid option -- 'x'") would come on top of ours, name the
 * subcommand without the program, and could not tell a missing argument
 * from an unknown option.  o is what getopt_long returned: '?' or ':'
 * (the optstrings start with ':'). */
int tool_bad_option(const char *cmd, int o, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;
	const char *pre = cmd ? cmd : "", *sep = cmd ? ": " : "";
	char name[64];

	/* A long option is named as given, up to any "=value"; a short one
	 * by its letter, which may sit inside a cluster like -qx. */
	if (arg && strncmp(arg, "--", 2) == 0)
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else if (optopt > 0 && optopt < 256)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%s", arg ? arg : "?");
	if (o == ':')
		return tool_usage_err(cmd, "%s%soption '%s' needs an argument", pre, sep, name);
	return tool_usage_err(cmd, "%s%sunknown option '%s'", pre, sep, name);
}

int tool_version(void)
{
	printf("secfilter %s\n", SECFILTER_VERSION);
	if (fflush(stdout) != 0) {
		tool_perr("standard output");
		return EX_SF_FAIL;
	}
	return EX_SF_OK;
}

int tool_common_option(const char *cmd, int o, char **argv, const char *usage)
{
	if (o == 'V')
		exit(tool_version());
	if (o != 'h')
		return tool_bad_option(cmd, o, argv);
	fputs(usage, stdout);
	if (fflush(stdout) != 0) {
		tool_perr("standard output");
		exit(EX_SF_FAIL);
	}
	exit(EX_SF_OK);
}

/* Running out of memory in a short-lived command is not worth unwinding
 * from: say so and stop with the "secfilter failed" status. */
void tool_oom(void)
{
	tool_err("out of memory");
	exit(EX_SF_FAIL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		tool_oom();
	return p;
}

void *xgrow(void *a, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t want = *cap ? 2 * *cap : first;

	if (n < *cap)
		return a;
	a = realloc(a, want * elem);
	if (!a)
		tool_oom();
	*cap = want;
	return a;
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *out = xmalloc(n + strlen(name) + 2);

	sprintf(out, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
	return out;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

int read_fd(int fd, size_t max, char **bufp, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap + 1);

	while (len < max) {
		ssize_t n;

		if (len == cap) {
			char *nb;
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, (cap - len < max - len ? cap - len : max - len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int read_path(const char *path, size_t max, char **buf, size_t *len)
{
	int fd, r;

	if (strcmp(path, "-") == 0)
		return read_fd(STDIN_FILENO, max, buf, len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_fd(fd, max, buf, len);
	close(fd);
	return r;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int status_to_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EX_SF_FAIL;
}

static volatile pid_t forward_pid;

/* The signals a user can send, all but SIGKILL and SIGSTOP: 1..31 and the
 * real-time ones glibc leaves to programs. */
#define SIG_LAST 64
static struct sigaction saved[SIG_LAST + 1];
static unsigned char caught[SIG_LAST + 1];

static int is_stop(int sig)
{
	return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGTRAP || sig == SIGSYS;
}

/* Stops this process with sig's own default action (so that a shell sees
 * the job stopped by SIGTSTP), until a SIGCONT. */
static void stop_self(int sig)
{
	struct sigaction dfl, mine;
	sigset_t set;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, &mine);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL); /* the handler's mask is restored on return */
	raise(sig);
	sigaction(sig, &mine, NULL);
}

/* A signal some other process sent us (si_code <= 0) is passed on, with
 * its value when it was queued.  The others are ours alone: the terminal's
 * (SI_KERNEL) already reached the child, which shares our process group;
 * a SIGCHLD, SIGIO or timer is about us; our own SIGPIPE (a write to a
 * closed stderr) is dropped, the write fails instead.  A stop signal also
 * stops us, as a shell's job control expects, and a fault of our own is
 * let kill us (the child has a death signal: it goes too). */
static void forward(int sig, siginfo_t *si, void *ctx)
{
	int e = errno;
	pid_t to = forward_pid;

	(void)ctx;
	if (to > 0 && si->si_code <= 0 && si->si_pid != getpid()) {
		if (si->si_code == SI_QUEUE)
			sigqueue(to, sig, si->si_value);
		else
			kill(to, sig);
	}
	if (is_stop(sig))
		stop_self(sig);
	else if (is_fault(sig) && si->si_code > 0)
		sigaction(sig, &saved[sig], NULL); /* the instruction faults again */
	errno = e;
}

void forward_signals_reset(void)
{
	int sig;

	forward_pid = 0;
	for (sig = 1; sig <= SIG_LAST; sig++)
		if (caught[sig]) {
			sigaction(sig, &saved[sig], NULL);
			caught[sig] = 0;
		}
}

void forward_signals_to(pid_t child)
{
	struct sigaction sa;
	int sig;

	forward_pid = child;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig <= SIG_LAST; sig++) {
		if (caught[sig] || sig == SIGKILL || sig == SIGSTOP ||
		    (sig > 31 && sig < SIGRTMIN))
			continue;
		/* Caught even when we inherited it ignored (a shell's
		 * background job, nohup): the child inherited that too, was
		 * started before this, and decides for itself what a signal
		 * passed on does -- as if it had been sent to it directly. */
		if (sigaction(sig, NULL, &saved[sig]) < 0)
			continue;
		if (sigaction(sig, &sa, NULL) == 0)
			caught[sig] = 1;
	}
}
