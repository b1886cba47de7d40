/* Lookups over the generated tables (build/gen/systab_data.c,
 * consts_data.c, errno_data.c, groups_data.c). */
#include "systab.h"

/* Byte order of name[0..len) against the NUL-terminated s: no libc, since
 * these also run in the preload library (a program may define its own
 * strncmp). */
static int cmp_name(const char *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char a = (unsigned char)s[i], b = (unsigned char)name[i];
		if (a != b)
			return a < b ? -1 : 1; /* s's NUL sorts first */
		if (a == '\0')
			return -1; /* a NUL inside name: s ended, name goes on */
	}
	return s[len] != '\0'; /* s is longer: after name */
}

static int name_is(const char *s, const char *name, size_t len)
{
	return cmp_name(s, name, len) == 0;
}

/* The first of count rows of size bytes each, starting with their name,
 * that is named name; NULL when none is.  For the short tables that are
 * not sorted by name. */
static const void *scan_names(const void *rows, unsigned count, size_t size, const char *name,
			      size_t len)
{
	const char *row = rows;
	unsigned i;

	for (i = 0; i < count; i++, row += size)
		if (name_is(row, name, len))
			return row;
	return NULL;
}

const struct sf_syscall *sf_syscall_by_nr(long nr)
{
	if (nr < 0 || nr >= SF_NR_COUNT || sf_syscall_row[nr] == SF_NO_ROW)
		return NULL;
	return &sf_syscalls[sf_syscall_row[nr]];
}

/* Bisects one of the sorted indexes, by name or by entry point. */
static const struct sf_syscall *bisect(const unsigned short *index, unsigned n, int entry,
				       const char *name, size_t len)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		const struct sf_syscall *sc = &sf_syscalls[index[mid]];
		int c = cmp_name(entry ? sc->entry : sc->name, name, len);
		if (c == 0)
			return sc;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Every exec'd image parses its policy again: a bisection, not a scan.
 * The canonical text spells every name sys_NAME, so that is tried first;
 * no syscall's own name starts with sys_. */
const struct sf_syscall *sf_syscall_lookup(const char *name, size_t len)
{
	const struct sf_syscall *sc;

	if (len > 4 && name[0] == 's' && name[1] == 'y' && name[2] == 's' && name[3] == '_') {
		if ((sc = bisect(sf_syscall_by_name, sf_syscall_count, 0, name + 4, len - 4)))
			return sc;
		/* sys_ni_syscall is the entry of every unimplemented number,
		 * so it names no syscall in particular (and is not in the
		 * index of entries). */
		return bisect(sf_syscall_by_entry, sf_syscall_entry_count, 1, name, len);
	}
	return bisect(sf_syscall_by_name, sf_syscall_count, 0, name, len);
}

/* Kernel names come first: prctl and keyctl call their arguments option,
 * arg2..arg5 (the manual's numbering), and a policy that writes "arg2" for
 * them means the kernel's arg2.  Every argument stays reachable by name. */
int sf_syscall_arg(const struct sf_syscall *sc, const char *name, size_t len)
{
	int i;

	for (i = 0; i < sc->nargs; i++)
		if (name_is(sc->args[i].name, name, len))
			return i;
	if (len == 4 && name[0] == 'a' && name[1] == 'r' && name[2] == 'g' && name[3] >= '0' &&
	    name[3] < '0' + sc->nargs)
		return name[3] - '0';
	return -1;
}

const char *sf_type_name(enum sf_type t)
{
	static const char *const names[] = {
		[SF_T_S32] = "s32", [SF_T_U32] = "u32", [SF_T_U16] = "u16",
		[SF_T_S64] = "s64", [SF_T_U64] = "u64", [SF_T_PTR] = "ptr",
	};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

const struct sf_const *sf_const_lookup(const char *name, size_t len)
{
	unsigned lo = 0, hi = sf_const_count;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int c = cmp_name(sf_consts[mid].name, name, len);
		if (c == 0)
			return &sf_consts[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

extern const unsigned short sf_errno_canon[];
extern const unsigned sf_errno_top;
extern const char sf_errno_texts[];
extern const unsigned short sf_errno_text_at[];

_Static_assert(offsetof(struct sf_errno, name) == 0, "scan_names: the name comes first");
_Static_assert(offsetof(struct sf_group, name) == 0, "scan_names: the name comes first");

const struct sf_errno *sf_errno_lookup(const char *name, size_t len)
{
	return scan_names(sf_errnos, sf_errno_count, sizeof(sf_errnos[0]), name, len);
}

const char *sf_errno_name(unsigned e)
{
	return e <= sf_errno_top && sf_errno_canon[e] != 0xffff ? sf_errnos[sf_errno_canon[e]].name
							       : NULL;
}

const char *sf_errno_text(unsigned e)
{
	return e <= sf_errno_top && sf_errno_text_at[e] != 0xffff ? sf_errno_texts + sf_errno_text_at[e]
								  : NULL;
}

const struct sf_group *sf_group_lookup(const char *name, size_t len)
{
	return scan_names(sf_groups, sf_group_count, sizeof(sf_groups[0]), name, len);
}
