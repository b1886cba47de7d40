/* Landlock's denials from the kernel's audit records, as text: the part
 * `secfilter run --trusted` (tools/llaudit.c) and the library's trusted
 * mode listener (preload/trap/notify.c) share; each reads the records
 * from the audit netlink socket itself and hands them here one by one.
 *
 * A denial is an AUDIT_LANDLOCK_ACCESS record (the domain, the right that
 * was missing, the object the kernel checked: a path, or a port); where
 * audit keeps a syscall context for the task, the same event (the same
 * serial in "audit(TIME:SERIAL)") also holds SYSCALL (pid, comm, the call
 * and its first arguments), PATH (each name looked up, as the program gave
 * it, with its inode) and PROCTITLE (the command line), and ends with
 * EOE.  AUDIT_LANDLOCK_DOMAIN says which pid entered a domain, the first
 * time it shows, and when it is deallocated: the denials of the domains
 * that `creator` entered are ours, the others' are dropped.
 *
 * Like the rest of filter/: no libc I/O; memory from sf_mem_alloc, taken
 * once by sf_llrec_init. */
#ifndef SECFILTER_LLRECORDS_H
#define SECFILTER_LLRECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "landlock.h"

#define SF_LLREC_PATH 4096
#define SF_LLREC_ARGV 4096 /* of PROCTITLE: enough to find a name in */

/* The kernel's record types (linux/audit.h, not in every header set). */
#define SF_AUDIT_SYSCALL 1300
#define SF_AUDIT_PATH 1302
#define SF_AUDIT_EOE 1320
#define SF_AUDIT_PROCTITLE 1327
#define SF_AUDIT_EVENT_LISTENER 1335
#define SF_AUDIT_LANDLOCK_ACCESS 1423
#define SF_AUDIT_LANDLOCK_DOMAIN 1424

struct sf_llrec_event {
	uint64_t serial, domain, right, ino;
	int net, port, proc;
	int dir_given;       /* given names the directory the object is made or removed in */
	int leaf;            /* ... completed with the object's name */
	long pid, nr;
	uint64_t a[4];       /* the syscall's first arguments */
	size_t argv_len;
	char comm[64];
	char path[SF_LLREC_PATH];  /* the object the kernel checked */
	char given[SF_LLREC_PATH]; /* the object as the program gave it, or "" */
	char argv[SF_LLREC_ARGV];  /* PROCTITLE: the arguments, NUL-separated */
};

struct sf_llrec {
	long creator;                   /* its domains are ours */
	uint64_t ours[32], theirs[64];  /* domains known */
	unsigned nours, ntheirs, ndead; /* ndead: of ours, deallocated */
	struct sf_llrec_event *ev;      /* events held until their domain shows */
	size_t nev, cap;
	/* The barrier: the reader, of pid barrier, joined the records' group
	 * and left it (the kernel records both, after every record queued
	 * before); barrier_seen when the record of the leaving came. */
	long barrier;
	int barrier_seen;
	/* Up to n bytes at addr in process pid's memory: how many (0 when
	 * it cannot be read); NULL: never read. */
	size_t (*read_mem)(void *ctx, long pid, uint64_t addr, void *buf, size_t n);
	/* A denial of ours, complete. */
	void (*denied)(void *ctx, struct sf_llrec_event *e);
	void *ctx;
};

/* r's table of held events (cap of them); 0, or -1 without memory. */
int sf_llrec_init(struct sf_llrec *r, size_t cap);
void sf_llrec_free(struct sf_llrec *r);
/* One record: its type and its text ("audit(TIME:SERIAL): ..."),
 * NUL-terminated. */
void sf_llrec_record(struct sf_llrec *r, int type, const char *msg);
/* The records are over: the denials held whose domain is ours reported,
 * the rest dropped. */
void sf_llrec_flush(struct sf_llrec *r);
/* Whether the reader must read on at the end: until its barrier's record
 * where it set one, else while a domain of ours that showed is not yet
 * deallocated (its record comes after those of its denials). */
int sf_llrec_waiting(const struct sf_llrec *r);

/* e as the report's denial (sf_ll_report); full receives the object's
 * path when it is the directory's and the program's leaf. */
void sf_llrec_denial(struct sf_llrec_event *e, struct sf_ll_denial *d, char full[SF_LLREC_PATH]);

/* Asking whether audit is on (AUDIT_GET on a NETLINK_AUDIT socket, which
 * needs CAP_AUDIT_CONTROL): the request into msg (SF_AUDIT_GET_LEN bytes),
 * and what a message of n bytes received then says: 1 on, 0 off, -1 not
 * the answer (an error, or another message). */
#define SF_AUDIT_GET_LEN 16
void sf_audit_get_request(void *msg);
int sf_audit_get_reply(const void *msg, size_t n);

/* The value of key= in an audit or kernel log record, or NULL. */
const char *sf_rec_field(const char *msg, const char *key);
/* A value the kernel wrote as untrusted ("quoted", or hex when it holds
 * anything else) into out, NUL-terminated; how many bytes it decoded
 * (NULs within included). */
size_t sf_rec_untrusted(const char *v, char *out, size_t cap);
/* The number at v in base 10 or 16 (stops at the first other character). */
uint64_t sf_rec_num(const char *v, unsigned base);

#endif
