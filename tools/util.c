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
void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		tool_err("out of memory");
		exit(EX_SF_FAIL);
	}
	return p;
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

/* A signal the terminal generated (si_code SI_KERNEL) already reached the
 * child, which shares our process group; passing it on would deliver it
 * twice.  Only signals some process sent to us alone are forwarded. */
static void forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (forward_pid > 0 && si->si_code <= 0)
		kill(forward_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

void forward_signals_reset(void)
{
	unsigned i;

	forward_pid = 0;
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		signal(forwarded[i], SIG_DFL);
}

void forward_signals_to(pid_t child)
{
	struct sigaction sa;
	unsigned i;

	forward_pid = child;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
}
