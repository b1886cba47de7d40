/* The body of the library's violation report: the header, the arguments
 * decoded, the rule as written and the add: line -- filter/vreport.h,
 * the same text `secfilter run` writes for a kernel-filtered process --
 * with what only the library can deny (its own decisions) in between.
 *
 * Strings the call points to are read for display only, with
 * process_vm_readv on the process itself: a bad pointer is EFAULT, never
 * a fault inside the reporter, and the read is one the policy lets the
 * library make (under a kernel filter a denied call of its own would
 * kill the process on the spot; then no string is shown). */
#include <linux/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "report.h"
#include "vreport.h"

static long vm_readv(long pid, const struct iovec *local, const struct iovec *remote)
{
	return sf_sys(SYS_process_vm_readv, pid, (long)local, 1, (long)remote, 1, 0);
}

size_t sf_vm_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	long pid = *(long *)ctx;

	if (!pid || !sf_may(SYS_process_vm_readv, pid))
		return 0;
	return sf_vm_read_paged(pid, addr, buf, n, vm_readv);
}

void sf_report_body(struct sf_buf *b, const struct sf_call *c, int d,
		    const struct sf_policy *p, enum sf_report_form form)
{
	char comm[17] = "?";
	long pid = sf_may_sys(SYS_getpid, 0, 0, 0, 0);
	struct sf_vcall v;
	/* straight into b's room: the reporter may run on a small stack */
	struct sf_out o = { b->p + b->len, b->cap > b->len ? b->cap - b->len : 0, 0 };

	sf_may_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0);
	v.nr = c->nr;
	sf_memcpy(v.a, c->a, sizeof v.a);
	v.ip = c->ip;
	v.comm = comm;
	if (pid < 0) /* not ours to ask */
		pid = 0;
	v.pid = pid;
	v.p = p;
	v.decision = d;
	v.read = sf_vm_read;
	v.ctx = &pid;
	sf_report_vbody(&o, &v, form);
	b->len += sf_out_end(&o) < o.cap ? o.len : o.cap ? o.cap - 1 : 0;
}

void sf_report_vbody(struct sf_out *o, const struct sf_vcall *v, enum sf_report_form form)
{
	struct sf_vcall said = *v;
	const char *why = "not in the allowed set";

	if (v->decision == SF_DENY_DISPATCH)
		why = v->nr == SYS_ptrace ? "ptrace(PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG) would "
					    "switch a tracee's filter off"
					  : "prctl(PR_SET_SYSCALL_USER_DISPATCH) would switch the "
					    "filter off";
	else if (v->decision == SF_DENY_UNFOLLOWABLE)
		why = "a CLONE_VM child without its own stack cannot be followed";
	else if (v->decision == SF_ALLOW)
		/* a kernel filter this image inherited, from a policy other
		 * than the one its environment names */
		why = "denied by a filter installed before this image";
	said.logged = form != SF_FORM_KILLED;
	if (form == SF_FORM_LINE)
		sf_vreport_line(o, &said, why);
	else
		sf_vreport(o, &said, why);
}
