/* `secfilter run --trusted` as the listener of its kernel filter.
 *
 * The filter sends the policy's kill and log to run (SECCOMP_RET_USER_NOTIF)
 * instead of acting alone: run reads the call (number, arguments, call
 * site; strings from the process's memory, for display), decides it with
 * the same policy, writes the report the library would, and then kills
 * the process or lets the call run.  Every process of the tree inherits
 * the filter, so run hears of every kill in the tree, not only PROG's.
 * See listen.c for how a process dies, and what is left when run is gone. */
#ifndef SECFILTER_LISTEN_H
#define SECFILTER_LISTEN_H

#include <sys/types.h>

#include "treelog.h"

/* A process run has killed for the policy. */
struct listen_kill {
	pid_t pid;     /* its tgid */
	long nr;
	char comm[17];
	int pidfd;     /* while it is dying: -1 once gone */
	long long deadline_ms; /* SIGSYS given: SIGKILL if it lives past this */
};

struct listener {
	int fd;        /* our copy of the filter's listener, or -1 */
	int log;       /* log mode: report and let the call run */
	int proc_ok;   /* /proc is our PID namespace's: its files name the
			  notifying task (else only its pid is known) */
	const struct sf_policy *p;
	struct treelog *tl;
	struct listen_kill *kills;
	size_t nkills, cap;
};

/* Whether this kernel and policy allow run to listen: user notification
 * with "continue" (Linux 5.5), pidfd_getfd (5.6), and a policy under
 * which the injected close of the listener's fd in PROG cannot fail. */
int listen_possible(const struct sf_policy *p, int log);

/* Answers the notifications pending now; wait_ms > 0: waits that long
 * for the first.  Returns how many it handled. */
int listen_serve(struct listener *l, int wait_ms);

/* Kills the processes still dying past their deadline (or all of them
 * with force), and forgets the dead.  Returns how many are dying. */
size_t listen_reap(struct listener *l, int force);

#endif
