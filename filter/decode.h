/* What a syscall's arguments mean, for people: the decoding hints of
 * syscalls/x86_64/args.tbl (which constants an argument takes, which
 * arguments are file names), the symbolic form of a value, and the rule
 * that would permit a set of observed calls -- the same code for `secfilter
 * learn`, for the "add:" line of a violation report and for the summaries
 * of log mode.
 *
 * Everything here is safe in the preload library: no libc, no allocation,
 * bounded output through struct sf_out (internal.h), fixed-size
 * observations.  Decoding is for display and suggestions only: no
 * decision of the policy ever reads a string or a hint. */
#ifndef SECFILTER_DECODE_H
#define SECFILTER_DECODE_H

#include <stdint.h>

#include "internal.h"
#include "systab.h"

/* ---- the hints (generated from args.tbl) ---- */

enum sf_argkind {
	SF_AK_NUM,      /* a number, shown by its type */
	SF_AK_FD,       /* a file descriptor */
	SF_AK_DIRFD,    /* a file descriptor or AT_FDCWD */
	SF_AK_PATH,     /* a pointer to a file name */
	SF_AK_STR,      /* a pointer to another string */
	SF_AK_SOCKADDR, /* a pointer to a socket address; aux: its length's argument */
	SF_AK_MODE,     /* permission bits, in octal */
	SF_AK_ENUM,     /* one value of set */
	SF_AK_FLAGS,    /* bits of set */
};

/* What --args=auto (and an "add:" line) does with an argument. */
enum sf_argauto {
	SF_AA_NO,     /* nothing (strict still filters) */
	SF_AA_YES,    /* by its kind, see args.tbl */
	SF_AA_VALUES, /* the values used, when few, else as SF_AA_YES */
};

#define SF_NO_ARG 0xff

struct sf_cset {
	char name[16];
	uint8_t flags;      /* 0: an enum; 1: a bit set */
	uint16_t first, count;             /* enum values, or the flags */
	uint16_t field_first, field_count; /* the values of the field */
	uint64_t field;     /* the bits that hold one value (O_ACCMODE), or 0 */
	uint64_t risky;     /* flags auto forbids when unused */
	uint64_t pair[2];   /* flags auto forbids together when never together */
};

struct sf_argdesc {
	uint16_t nr;
	uint8_t arg;    /* its index */
	uint8_t kind;   /* enum sf_argkind */
	uint8_t autof;  /* enum sf_argauto */
	uint8_t set;    /* ENUM, FLAGS: index in sf_csets */
	uint8_t aux;    /* SOCKADDR: the length's argument; ENUM, FLAGS: the
			   argument of the condition, or SF_NO_ARG */
	uint64_t cond;  /* the condition's value, normalized to that argument */
};

/* Indexes into sf_consts of the sets' members. */
extern const uint16_t sf_cset_items[];
extern const struct sf_cset sf_csets[];
extern const unsigned sf_cset_count;
/* Sorted by nr, then arg. */
extern const struct sf_argdesc sf_argdescs[];
extern const unsigned sf_argdesc_count;

/* The hint for argument arg of syscall nr, or NULL (a plain number).  An
 * argument whose constants depend on another's value has a row for each
 * such value, one after another (setsockopt's optname: SO_* at level
 * SOL_SOCKET, TCP_* at IPPROTO_TCP...): this is the first. */
const struct sf_argdesc *sf_argdesc(long nr, unsigned arg);

/* How a call reads argument arg: the hint whose condition holds for this
 * call's arguments, or a plain number when none does (setsockopt at a
 * level with no row).  *tmp is the storage. */
const struct sf_argdesc *sf_argdesc_call(long nr, unsigned arg, const uint64_t a[6],
					 struct sf_argdesc *tmp);

/* ---- values as text ----
 * Every form is one the parser reads back as the same value: a constant,
 * NAME|NAME|0x40 (bits no constant names in hex), a signed decimal, 0x...
 * for large unsigned values, 0644 for modes. */
void sf_decode_value(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t,
		     uint64_t v);
/* A mask of flag word d (what `&` and `in` test): its flags by name, the
 * bits of a field (O_ACCMODE's) named one by one (O_WRONLY|O_RDWR), a
 * field's value 0 never (`flags & O_RDONLY` would read as a test of
 * O_RDONLY), the bits left in hex, "0" for none.  d not a flag word:
 * sf_decode_value. */
void sf_decode_mask(struct sf_out *o, const struct sf_argdesc *d, enum sf_type t,
		    uint64_t v);

/* The argument as a report shows it: the symbolic form, then the number
 * in parentheses when they differ ("O_WRONLY|O_CREAT|O_TRUNC (0x241)",
 * "AT_FDCWD (-100)", "3"), or for a pointer its value in hex.  Strings
 * and socket addresses are the caller's (they need the process's
 * memory): sf_decode_string and sf_decode_sockaddr format what it read. */
void sf_decode_arg(struct sf_out *o, long nr, unsigned arg, const uint64_t a[6]);

/* A string read from the process for display: up to n bytes of s (n is
 * what could be read; trunc: the string went on past them), quoted, with
 * non-printable bytes escaped. */
void sf_decode_string(struct sf_out *o, const char *s, size_t n, int trunc);

/* A socket address read from the process: {AF_UNIX, "/run/x"},
 * {AF_INET, 127.0.0.1:80}, {AF_INET6, [::1]:443}, or the family and a
 * byte count. */
void sf_decode_sockaddr(struct sf_out *o, const unsigned char *sa, size_t n);

/* ---- observations and the rule that permits them ----
 * An observation is what a set of calls of one syscall had in each
 * argument: the distinct values (up to SF_OBS_VALUES), whether there were
 * more, the union of their bits, and for a pair of flags whether any
 * call had both.  learn keeps one per syscall; a report, one per call. */
#define SF_OBS_VALUES 8

struct sf_argobs {
	uint64_t vals[SF_OBS_VALUES];
	uint8_t nvals;
	uint8_t many;      /* more than SF_OBS_VALUES distinct values, or any */
	uint8_t pair_seen; /* a value had both bits of its set's pair */
	uint8_t keep;      /* read from a policy that filtered it: keep
			      filtering it, whatever the mode's default */
	uint64_t bits;     /* the union of the values */
};

struct sf_obs {
	uint64_t calls;
	struct sf_argobs a[SF_MAX_ARGS];
};

/* How much a suggested rule filters (learn's --args). */
enum sf_argmode { SF_ARGS_NONE, SF_ARGS_AUTO, SF_ARGS_STRICT };

void sf_obs_init(struct sf_obs *o);
/* Adds one call (registers as the syscall received them). */
void sf_obs_add(struct sf_obs *o, long nr, const uint64_t a[6]);
/* Adds everything from into to (the union). */
void sf_obs_merge(struct sf_obs *into, const struct sf_obs *from);
/* An argument that may take any value: the union with "anything". */
void sf_argobs_any(struct sf_argobs *a);

/* The expression that permits every call of o and, by the mode, as few
 * others as it reasonably can ("family == AF_UNIX && type ==
 * SOCK_STREAM|SOCK_CLOEXEC"), or "1" when no argument is filtered.
 * Returns 0 for "1", else the number of arguments filtered. */
int sf_suggest(struct sf_out *out, long nr, const struct sf_obs *o, enum sf_argmode mode);

/* The reverse of sf_suggest, for merging: the observation a policy's
 * filters on nr stand for.  1 when they are a conjunction of the shapes
 * sf_suggest writes (arguments it does not mention may be anything); 0
 * otherwise (o is then unusable). */
int sf_obs_of_filters(struct sf_obs *o, const struct sf_policy *p, long nr);

/* ---- pairs: an argument whose constants depend on another's value ----
 * setsockopt's optname is an SO_* at level SOL_SOCKET, a TCP_* at
 * IPPROTO_TCP: learn keeps the (level, optname) pairs the runs made and
 * filters them together, "level == SOL_SOCKET && optname == SO_REUSEADDR
 * || level == IPPROTO_TCP && optname == TCP_NODELAY", not each argument
 * alone (that would allow SO_DEBUG, TCP_NODELAY's number, at SOL_SOCKET).
 * Values are normalized, the other argument's first. */
#define SF_PAIRS 16

struct sf_pairs {
	uint8_t n;
	uint8_t many; /* more than SF_PAIRS, or not known together */
	uint64_t v[SF_PAIRS][2];
};

/* nr's argument whose hint depends on another's value (*arg), and that
 * other (*by); 0 when it has none. */
int sf_pairs_args(long nr, unsigned *arg, unsigned *by);
/* Adds a call's pair (nothing for a syscall without one). */
void sf_pairs_add(struct sf_pairs *p, long nr, const uint64_t a[6]);
void sf_pairs_merge(struct sf_pairs *into, const struct sf_pairs *from);
/* sf_suggest, with nr's two arguments filtered together as the pairs of
 * p when the mode filters both by their values and p is known. */
int sf_suggest_pairs(struct sf_out *out, long nr, const struct sf_obs *o,
		     const struct sf_pairs *p, enum sf_argmode mode);
/* The reverse, for a policy's rule on nr that sf_obs_of_filters read
 * into o: the pairs its disjunction of pairs allows, or every pair of
 * the values it allows each argument; many when either may be any. */
void sf_pairs_of_filters(struct sf_pairs *pp, const struct sf_policy *p, long nr,
			 const struct sf_obs *o);

/* An observation as one line of text, "N a0/a1/..." per argument
 * "n:v,v,v:bits:flags" in hex, and back: how processes hand theirs to
 * `secfilter run`.  sf_obs_parse returns 0, or -1 on malformed text. */
void sf_obs_format(struct sf_out *out, const struct sf_obs *o);
int sf_obs_parse(struct sf_obs *o, const char *s, size_t n);

#endif
