/* The kernel's audit record of a seccomp action (type=1326, AUDIT_SECCOMP),
 * read from /dev/kmsg: how `run` learns which syscall a kernel filter
 * killed its child for, since the child cannot tell anyone. */
#ifndef SECFILTER_KMSG_H
#define SECFILTER_KMSG_H

#include <sys/types.h>

struct seccomp_record {
	pid_t pid;
	char comm[64];
	long syscall;
	unsigned long ip;
	unsigned long arch; /* AUDIT_ARCH_* */
	int sig;            /* 31 for a kill, 0 for SECCOMP_RET_LOG */
};

/* Opens the kernel log positioned at its end, so only records written
 * from now on are seen.  An fd, or -errno (reading it needs CAP_SYSLOG when
 * kernel.dmesg_restrict is 1). */
int kmsg_open(void);

/* Waits up to timeout_ms for a seccomp record with signal sig of pid
 * or, when pid is 0, of a process named comm (kauditd writes it
 * asynchronously, a few ms after the death).  0 and *rec, or
 * -ETIMEDOUT / -errno. */
int kmsg_find_seccomp(int fd, pid_t pid, const char *comm, int sig, int timeout_ms,
		      struct seccomp_record *rec);

/* Whether this process is in the initial PID namespace, the one whose
 * pids audit records give. */
int kmsg_pids_match(void);

/* Parses one /dev/kmsg record ("6,123,456,-;audit: type=1326 ...").
 * 0 when it is a seccomp record, -1 otherwise. */
int kmsg_parse_seccomp(const char *line, struct seccomp_record *rec);

#endif
