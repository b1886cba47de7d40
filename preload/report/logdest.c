/* Where the library's reports go (SECFILTER_LOG): standard error, syslog
 * through /dev/log, or a file appended to.  Each call the library makes
 * here is one the policy lets it make (sf_may): under a kernel filter a
 * denied call of the reporter's own would kill the process on the spot. */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "report.h"

static int to_fd(int fd, const char *s, size_t n)
{
	return sf_may(SYS_write, fd) ? sf_write_all(fd, s, n) : -1;
}

static int to_file(const char *path, const char *s, size_t n)
{
	long fd;
	int r;

	if (!sf_may(SYS_openat, AT_FDCWD) || !sf_may(SYS_close, 0))
		return to_fd(2, s, n);
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)path,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644, 0, 0);
	if (fd < 0)
		return to_fd(2, s, n);
	r = to_fd((int)fd, s, n);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return r;
}

/* One datagram per line to /dev/log, as syslog(3) would send them. */
static int to_syslog(const char *s, size_t n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	char line[1024];
	long fd;

	if (!sf_may(SYS_socket, AF_UNIX) || !sf_may(SYS_connect, 0) || !sf_may(SYS_sendto, 0) ||
	    (fd = sf_sys(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0, 0)) < 0)
		return to_fd(2, s, n);
	if (sf_sys(SYS_connect, fd, (long)&sa, sizeof sa, 0, 0, 0) < 0) {
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
		return to_fd(2, s, n);
	}
	while (n) {
		struct sf_buf b = { line, 0, sizeof line };
		size_t k = 0;
		while (k < n && s[k] != '\n')
			k++;
		sf_puts(&b, "<12>secfilter: ");
		sf_putn(&b, s, k);
		sf_sys(SYS_sendto, fd, (long)b.p, (long)b.len, 0, 0, 0);
		s += k + (k < n);
		n -= k + (k < n);
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return 0;
}

int sf_log_emit(const char *s, size_t n)
{
	switch (sf_cfg.log) {
	case SF_LOG_FILE: return to_file(sf_cfg.log_path, s, n);
	case SF_LOG_SYSLOG: return to_syslog(s, n);
	default: return to_fd(2, s, n);
	}
}
