/* Where the library's reports go (SECFILTER_LOG): standard error, syslog
 * through /dev/log, or a file appended to, each report in one write.  A
 * file that cannot be opened is an error at the start (sf_log_check), as
 * in `secfilter run`; a report a destination refuses later is said on
 * standard error, and written there.  Each call the library makes
 * here is one the policy lets it make (sf_may): under a kernel filter a
 * denied call of the reporter's own would kill the process on the spot. */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "report.h"

static int to_fd(int fd, const char *s, size_t n)
{
	return sf_may(SYS_write, fd) ? sf_write_all(fd, s, n) : -EPERM;
}

/* The file opened for appending: O_APPEND makes each report's one write
 * land whole after whatever else was appended (another process's
 * report, a server's own log lines).  The fd, or -errno. */
static long open_log(const char *path)
{
	if (!sf_may(SYS_openat, AT_FDCWD) || !sf_may(SYS_close, 0))
		return -EPERM;
	return sf_sys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		      0644, 0, 0);
}

static int to_file(const char *path, const char *s, size_t n)
{
	long fd = open_log(path);
	int r;

	if (fd < 0)
		return (int)fd;
	r = to_fd((int)fd, s, n);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return r;
}

/* One datagram per line to /dev/log, as syslog(3) would send them. */
static int to_syslog(const char *s, size_t n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	char line[1024];
	long fd, r;

	if (!sf_may(SYS_socket, AF_UNIX) || !sf_may(SYS_connect, 0) || !sf_may(SYS_sendto, 0))
		return -EPERM;
	if ((fd = sf_sys(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0)) < 0)
		return (int)fd;
	r = sf_sys(SYS_connect, fd, (long)&sa, sizeof sa, 0, 0, 0);
	while (r >= 0 && n) {
		struct sf_buf b = { line, 0, sizeof line };
		size_t k = 0;
		while (k < n && s[k] != '\n')
			k++;
		sf_puts(&b, "<12>secfilter: ");
		sf_putn(&b, s, k);
		r = sf_sys(SYS_sendto, fd, (long)b.p, (long)b.len, 0, 0, 0);
		s += k + (k < n);
		n -= k + (k < n);
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return r < 0 ? (int)r : 0;
}

/* A report the destination refused is said on standard error, in one
 * line, and goes there instead: never dropped without a word (when
 * standard error is the destination that failed, there is nowhere left
 * to say it). */
static int say_lost(const char *dest, int err, const char *s, size_t n)
{
	char msg[4200];
	struct sf_buf b = { msg, 0, sizeof msg };

	sf_put_list(&b, (const char *const[]){ "secfilter: a report could not be written to "
					       "SECFILTER_LOG=", dest, ": ", sf_strerror(-err),
					       "\n", NULL });
	to_fd(2, b.p, b.len);
	return to_fd(2, s, n);
}

int sf_log_emit(const char *s, size_t n)
{
	int r;

	switch (sf_cfg.log) {
	case SF_LOG_FILE:
		r = to_file(sf_cfg.log_path, s, n);
		break;
	case SF_LOG_SYSLOG:
		r = to_syslog(s, n);
		break;
	default:
		return to_fd(2, s, n) < 0 ? -1 : 0;
	}
	if (r < 0)
		r = say_lost(sf_cfg.log == SF_LOG_FILE ? sf_cfg.log_path : "syslog", r, s, n);
	return r < 0 ? -1 : 0;
}

void sf_log_check(void)
{
	char msg[4200];
	struct sf_buf b = { msg, 0, sizeof msg };
	long fd;

	/* an image under a filter it inherited: the first image checked */
	if (sf_cfg.log != SF_LOG_FILE || !sf_may(SYS_openat, AT_FDCWD) || !sf_may(SYS_close, 0))
		return;
	fd = open_log(sf_cfg.log_path);
	if (fd >= 0) {
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
		return;
	}
	sf_put_list(&b, (const char *const[]){ "secfilter: SECFILTER_LOG: cannot open '",
					       sf_cfg.log_path, "' to append reports: ",
					       sf_strerror((int)-fd), NULL });
	sf_fatal(msg);
}
