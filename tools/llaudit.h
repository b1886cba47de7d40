/* Trusted mode's reports of what Landlock denied (`run --trusted`), from
 * the kernel's audit records.
 *
 * Landlock denies with an errno and nothing in PROG's tree is ours to
 * see the result, so run reads what the kernel's audit writes of each
 * denial (Landlock ABI 7): AUDIT_LANDLOCK_ACCESS (the domain, the right
 * that was missing, the object: a path, or an address and port) and
 * AUDIT_LANDLOCK_DOMAIN (the pid that entered the domain, the first time
 * the domain shows).  run enters its layers in PROG's process before the
 * exec, asking for records after exec (LOG_NEW_EXEC_ON), and takes as its
 * own the domains whose creator is PROG.  The records come through the
 * audit netlink socket's read-only multicast group (CAP_AUDIT_READ),
 * which has no rate limit and gets every record whether or not auditd
 * runs.  A process of the tree can neither write such records (AUDIT_USER
 * messages have other types) nor keep its denials from being recorded;
 * flooding them loses reports, never enforcement. */
#ifndef SECFILTER_LLAUDIT_H
#define SECFILTER_LLAUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "llrecords.h"
#include "treelog.h"

struct sf_landlock;

struct llaudit {
	int fd;                          /* the multicast socket, or -1 */
	const struct sf_landlock *ll;
	struct treelog *tl;
	struct sf_llrec rec;             /* rec.creator: PROG, its domains are ours */
	int lost;                        /* the socket overflowed */
	char why[256];                   /* why the records cannot be read */
};

/* Opens the records' socket when p has fs./net. rules (a->fd -1
 * otherwise); a->why says why when they cannot be read (no
 * CAP_AUDIT_READ, audit off, a PID namespace whose pids the records do
 * not give). */
void llaudit_open(struct llaudit *a, const struct sf_landlock *ll, struct treelog *tl);

/* Says once on standard error, when the records could not be read, that
 * denials were enforced but not reported, and why: for a run whose PROG
 * failed, where a denial may be the cause (a run that succeeded is not
 * told about what did not matter to it). */
void llaudit_say_unseen(const struct llaudit *a);

/* Reads the records queued now, reporting the denials of our domains. */
void llaudit_read(struct llaudit *a);

/* PROG's tree is gone: waits for the records still on their way (until
 * each domain of ours that showed is deallocated, or a quiet moment),
 * reports them, and closes the socket. */
void llaudit_finish(struct llaudit *a);

void llaudit_close(struct llaudit *a);

#endif
