/* Files and ports (language v3, secfilter(7) "Files and ports"): the
 * fs. and net. rules of a policy, and their enforcement by Landlock.
 *
 * A policy's rules of this kind are kept apart from its syscall rules,
 * in a block of their own (struct sf_landlock, p->landlock), as a list
 * of layers.  A layer is one Landlock ruleset: what it does not grant,
 * among the rights it handles, is denied, and layers stack as the
 * kernel's domains do -- an access must be granted by every layer.  The
 * rules of one policy text accumulate into one layer; a text applied on
 * top of an enforcing policy (secfilter_apply) starts a new layer, so it
 * can only narrow, by construction.  The canonical text separates layers
 * with `landlock.layer: 1`, which a text may also say itself.
 *
 * The enforcer makes its system calls through a function the caller
 * gives (the tool: syscall(2); the preload library: its own raw calls)
 * and calls nothing else of libc, so that both can use it. */
#ifndef SECFILTER_LANDLOCK_H
#define SECFILTER_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

struct sf_error;
struct sf_out;

#define SF_LL_MAX_LAYERS 16 /* the kernel's limit on stacked domains */
#define SF_LL_MAX_RULES 65536

/* Access rights: the kernel's bits (uapi linux/landlock.h), named here so
 * that an older header does not matter. */
#define SF_FS_EXECUTE     (1ull << 0)
#define SF_FS_WRITE_FILE  (1ull << 1)
#define SF_FS_READ_FILE   (1ull << 2)
#define SF_FS_READ_DIR    (1ull << 3)
#define SF_FS_REMOVE_DIR  (1ull << 4)
#define SF_FS_REMOVE_FILE (1ull << 5)
#define SF_FS_MAKE_CHAR   (1ull << 6)
#define SF_FS_MAKE_DIR    (1ull << 7)
#define SF_FS_MAKE_REG    (1ull << 8)
#define SF_FS_MAKE_SOCK   (1ull << 9)
#define SF_FS_MAKE_FIFO   (1ull << 10)
#define SF_FS_MAKE_BLOCK  (1ull << 11)
#define SF_FS_MAKE_SYM    (1ull << 12)
#define SF_FS_REFER       (1ull << 13) /* ABI 2 */
#define SF_FS_TRUNCATE    (1ull << 14) /* ABI 3 */
#define SF_FS_IOCTL_DEV   (1ull << 15) /* ABI 5 */
#define SF_FS_ALL         ((1ull << 16) - 1)
/* What Landlock lets a rule grant on a file that is not a directory. */
#define SF_FS_ON_FILE (SF_FS_EXECUTE | SF_FS_WRITE_FILE | SF_FS_READ_FILE | SF_FS_TRUNCATE | \
		       SF_FS_IOCTL_DEV)
/* What an exec needs of the file it runs and of every interpreter the
 * kernel opens for it (open_exec: FMODE_EXEC and FMODE_READ). */
#define SF_FS_EXEC_NEED (SF_FS_EXECUTE | SF_FS_READ_FILE)
#define SF_NET_BIND       (1ull << 0) /* ABI 4 */
#define SF_NET_CONNECT    (1ull << 1) /* ABI 4 */

/* What a layer's rules name: any fs. rule, any net. rule. */
#define SF_LL_FS  1
#define SF_LL_NET 2

/* One rule of a layer: a path and the rights granted beneath it, or a
 * TCP port and the rights granted on it. */
struct sf_ll_rule {
	uint64_t access;
	uint32_t path;   /* offset in strings: an fs. rule's path */
	uint32_t source; /* offset in strings: where the rule was written */
	uint32_t line;
	uint16_t port;   /* a net. rule's port */
	uint8_t layer;
	uint8_t net;     /* 1: a port rule */
};

/* The fs./net. part of a policy, NULL when it has none.  Rules are in
 * layer order, then the paths (bytewise), then the ports; no two name
 * the same path or port in one layer (their rights are merged). */
struct sf_landlock {
	size_t size; /* bytes in this block (for sf_mem_free) */
	uint32_t nrules;
	uint8_t nlayers;
	uint8_t handles[SF_LL_MAX_LAYERS]; /* SF_LL_FS | SF_LL_NET, per layer */
	const struct sf_ll_rule *rules;
	const char *strings;
};

/* A right's name as the language writes it ("fs.read", "net.connect")
 * and what it grants. */
struct sf_ll_right {
	const char *name;
	uint64_t access;
	uint8_t net;
};
extern const struct sf_ll_right sf_ll_rights[];
extern const unsigned sf_ll_right_count;

/* ---- Enforcement ---- */

/* A raw system call: the result, or -errno. */
typedef long (*sf_ll_sys_fn)(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

/* A rule secfilter adds to every fs. layer for its own needs (the
 * library's file, the report's destination); skipped when the path does
 * not exist. */
struct sf_ll_extra {
	const char *path;
	uint64_t access;
};

struct sf_ll_env {
	sf_ll_sys_fn sys;
	const struct sf_ll_extra *extra;
	unsigned nextra;
	/* a path of the policy that cannot be opened is skipped (it grants
	 * nothing, which only narrows) and said here; may be NULL */
	void (*warn)(void *ctx, const char *msg);
	void *ctx;
	/* what the kernel's audit is to record of the denials (Landlock ABI
	 * 7; nothing below): SF_LL_LOG_* of landlock_restrict_self */
	uint32_t log;
};

/* landlock_restrict_self's flags: no record of denials by the image that
 * entered the layer (the library reports those itself); records of
 * denials by images exec'd later (trusted mode, where the records are the
 * report). */
#define SF_LL_LOG_SAME_EXEC_OFF 1u
#define SF_LL_LOG_NEW_EXEC_ON   2u

/* The rulesets of layers first.. (one fd each, close-on-exec). */
struct sf_ll_fds {
	int fd[SF_LL_MAX_LAYERS];
	unsigned n;
	uint32_t flags; /* for landlock_restrict_self: env->log where the ABI has it */
};

/* The Landlock ABI of the running kernel: 1.., or 0 when it has none
 * (not built, or disabled at boot). */
int sf_ll_abi(sf_ll_sys_fn sys);

/* Makes the rulesets of layers first.. of ll: opens every path (O_PATH),
 * restricts a file's rights to those Landlock allows on a file, adds the
 * rules.  A right the policy restricts that the kernel's ABI cannot, or
 * any net. rule below ABI 4, is an error that names it: -EOPNOTSUPP with
 * err filled in (SPEC: status 125).  A right is restricted in a layer of
 * fs. rules unless it is granted on "/".  0 or -errno, err filled in;
 * nothing is left open on failure. */
int sf_ll_build(const struct sf_landlock *ll, unsigned first, const struct sf_ll_env *env,
		struct sf_ll_fds *out, struct sf_error *err);

/* Sets no_new_privs and puts the calling thread in each ruleset's
 * domain, in order.  0 or -errno. */
int sf_ll_restrict(const struct sf_ll_fds *f, sf_ll_sys_fn sys);

void sf_ll_close(struct sf_ll_fds *f, sf_ll_sys_fn sys);

/* sf_ll_build, sf_ll_restrict, sf_ll_close: layers first.. of ll in force
 * in the calling thread (and whatever it forks or executes next). */
int sf_landlock_enforce(const struct sf_landlock *ll, unsigned first,
			const struct sf_ll_env *env, struct sf_error *err);

/* The fact an exec'd image is handed: "SECFILTER_LANDLOCK=<n>:<hash>",
 * layers 0..n-1 of ll entered already (n as one letter, 'a' + n; the hash
 * over those layers' rules).  Written by whoever entered them (the
 * library at exec, `run`), so that the next image does not stack the
 * same layers again (at most 16).  snprintf-like. */
#define SF_LL_FACT_VAR "SECFILTER_LANDLOCK"
size_t sf_ll_fact(const struct sf_landlock *ll, unsigned n, char *buf, size_t cap);

/* The layers a fact's value (after '=') says are entered, when it
 * describes ll's first layers; 0 otherwise.  Whether to believe it is the
 * caller's call (doc/security.md). */
unsigned sf_ll_fact_entered(const struct sf_landlock *ll, const char *value);

/* The fs./net. lines of the canonical form (landlock.layer between
 * layers), snprintf-like; "" for NULL. */
size_t sf_landlock_print(const struct sf_landlock *ll, char *buf, size_t cap);

/* The rights of mask, as "fs.truncate"; "" when none. */
const char *sf_ll_right_name(uint64_t mask, int net);

/* ---- Reports of denials (llreport.c) ----
 *
 *   cp[1234]: openat denied by Landlock: "/tmp/b/x" needs fs.make_reg
 *       rule: fs.write (p.conf:4) does not grant it here
 *       add: fs.write: /tmp/b
 *
 * The same text from whoever saw the denial: the library sees the call,
 * its arguments and its result (the path as given, quoted, with its
 * absolute form when relative); the kernel's audit record names the
 * object it checked (unquoted: the file, or the directory where a file
 * was to be made or removed) and, only when audit keeps a syscall context
 * for the task, the process and the call ("?[?]: a call" otherwise). */
struct sf_ll_denial {
	const char *comm;  /* NULL: not known */
	long pid;          /* 0: not known */
	long nr;           /* the syscall, -1: not known */
	const char *given; /* the path as the program gave it; NULL: not known */
	const char *path;  /* absolute, NUL-terminated; NULL for a port */
	size_t at_len;     /* the right is needed on path's first at_len bytes */
	uint64_t right;    /* one right (SF_FS_* or SF_NET_*) */
	int port;          /* a port's denial: the TCP port */
	const char *exec;  /* path is the interpreter of this file, exec'd; NULL */
	const char *more;  /* other paths the add: line grants the right too
			    * (space-separated: an exec's later interpreters); NULL */
};

/* The first layer of ll that denies right on path's first n bytes (path
 * NULL: on TCP port), or -1; *rule the first rule of that layer that
 * grants the right anywhere (the line to show), else its first rule. */
int sf_ll_denier(const struct sf_landlock *ll, uint64_t right, const char *path, size_t n,
		 int port, const struct sf_ll_rule **rule);
/* The report of d when a layer of ll denies it: 1, and the text (ending
 * in a newline) in o; 0 and nothing otherwise. */
int sf_ll_report(struct sf_out *o, const struct sf_landlock *ll, const struct sf_ll_denial *d);
/* The add: line's rule alone ("fs.write: /tmp/b"), as sf_ll_report. */
int sf_ll_fix(struct sf_out *o, const struct sf_landlock *ll, const struct sf_ll_denial *d);
/* The right the kernel's audit record names ("fs.make_reg",
 * "net.connect_tcp": one of its blockers=), *net set; 0 if unknown. */
uint64_t sf_ll_right_of(const char *name, size_t n, int *net);

#endif
