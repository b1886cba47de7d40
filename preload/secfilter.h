/* secfilter runtime API: restrict the calling process with a policy.
 *
 * Link with -lsecfilter, or find the functions with dlsym() when the
 * library was preloaded.  See secfilter_apply(3) and secfilter(7). */
#ifndef SECFILTER_H
#define SECFILTER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Applies a policy (the language of secfilter(7)) to the whole process,
 * whole or not at all, like the 2011 proposal's
 * prctl(PR_SET_SECCOMP, 2, policy).  Once the process is filtering, a
 * policy may only reduce access.
 * Returns 0, or -1 with errno set to:
 *   EINVAL  the policy is invalid (secfilter_error() says where and why)
 *   EPERM   it would widen what the running policy allows
 *   E2BIG   it is larger than a limit (1 MiB of text, nesting depth 64,
 *           4096 BPF instructions in trusted mode)
 *   ENOMEM  out of memory
 *   ENOSYS  the kernel cannot enforce it (no Syscall User Dispatch) */
int secfilter_apply(const char *policy);

/* The message of the last failed secfilter_apply() in this thread, "" if
 * none.  Valid until the thread's next secfilter_apply(). */
const char *secfilter_error(void);

/* 0 when the current program is not filtered (including while a policy
 * waits for the next exec), 2 when it is: like PR_GET_SECCOMP. */
int secfilter_mode(void);

#ifdef __cplusplus
}
#endif

#endif
