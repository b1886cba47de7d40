/* Seccomp audit records from /dev/kmsg (see kmsg.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kmsg.h"
#include "llrecords.h"

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int kmsg_parse_seccomp(const char *line, struct seccomp_record *rec)
{
	const char *msg = strchr(line, ';'), *v;

	if (!msg || !strstr(msg, "type=1326 "))
		return -1;
	memset(rec, 0, sizeof(*rec));
	if (!(v = sf_rec_field(msg, "pid")))
		return -1;
	rec->pid = (pid_t)strtol(v, NULL, 10);
	if (!(v = sf_rec_field(msg, "syscall")))
		return -1;
	rec->syscall = strtol(v, NULL, 10);
	if ((v = sf_rec_field(msg, "ip")))
		rec->ip = strtoul(v, NULL, 16);
	if ((v = sf_rec_field(msg, "arch")))
		rec->arch = strtoul(v, NULL, 16);
	if ((v = sf_rec_field(msg, "sig")))
		rec->sig = (int)strtol(v, NULL, 10);
	if ((v = sf_rec_field(msg, "comm")))
		sf_rec_untrusted(v, rec->comm, sizeof(rec->comm));
	return 0;
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The initial PID namespace's inode (PROC_PID_INIT_INO). */
#define PID_NS_INIT_INO 0xeffffffcu

int kmsg_pids_match(void)
{
	struct stat st;

	/* No /proc to tell: assume the common case. */
	return stat("/proc/self/ns/pid", &st) < 0 || st.st_ino == PID_NS_INIT_INO;
}

int kmsg_find_seccomp(int fd, pid_t pid, const char *comm, int sig, int timeout_ms,
		      struct seccomp_record *rec)
{
	long deadline = now_ms() + timeout_ms;
	char buf[8192];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		struct pollfd pfd = { fd, POLLIN, 0 };
		long left;

		if (n > 0) {
			buf[n] = '\0';
			if (kmsg_parse_seccomp(buf, rec) == 0 && rec->sig == sig &&
			    (pid ? rec->pid == pid : strcmp(rec->comm, comm) == 0))
				return 0;
			continue;
		}
		/* EPIPE: records were overwritten before we read them; the
		 * next read resumes at the oldest one left. */
		if (n < 0 && errno == EPIPE)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		poll(&pfd, 1, (int)left);
	}
}
