/* Lookups over the generated tables (build/gen/systab_data.c,
 * consts_data.c, errno_data.c, groups_data.c). */
#include <string.h>

#include "systab.h"

static int name_is(const char *s, const char *name, size_t len)
{
	return strncmp(s, name, len) == 0 && s[len] == '\0';
}

const struct sf_syscall *sf_syscall_by_nr(long nr)
{
	unsigned lo = 0, hi = sf_syscall_count;

	if (nr < 0 || nr >= SF_NR_COUNT)
		return NULL;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (sf_syscalls[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sf_syscall_count && sf_syscalls[lo].nr == nr ? &sf_syscalls[lo] : NULL;
}

/* Policies are parsed rarely and the table is small: a scan is enough. */
const struct sf_syscall *sf_syscall_lookup(const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < sf_syscall_count; i++)
		if (name_is(sf_syscalls[i].name, name, len))
			return &sf_syscalls[i];
	if (len > 4 && strncmp(name, "sys_", 4) == 0) {
		for (i = 0; i < sf_syscall_count; i++)
			if (name_is(sf_syscalls[i].name, name + 4, len - 4))
				return &sf_syscalls[i];
		/* sys_ni_syscall is the entry of every unimplemented number,
		 * so it names no syscall in particular. */
		if (name_is("sys_ni_syscall", name, len))
			return NULL;
		for (i = 0; i < sf_syscall_count; i++)
			if (name_is(sf_syscalls[i].entry, name, len))
				return &sf_syscalls[i];
	}
	return NULL;
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
	if (len == 4 && strncmp(name, "arg", 3) == 0 && name[3] >= '0' &&
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
		int c = strncmp(sf_consts[mid].name, name, len);
		if (c == 0 && sf_consts[mid].name[len] != '\0')
			c = 1; /* a longer name sorts after its prefix */
		if (c == 0)
			return &sf_consts[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

extern const char *const sf_errno_names[];
extern const unsigned sf_errno_top;

const struct sf_errno *sf_errno_lookup(const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < sf_errno_count; i++)
		if (name_is(sf_errnos[i].name, name, len))
			return &sf_errnos[i];
	return NULL;
}

const char *sf_errno_name(unsigned e)
{
	return e <= sf_errno_top ? sf_errno_names[e] : NULL;
}

const struct sf_group *sf_group_lookup(const char *name, size_t len)
{
	unsigned i;

	for (i = 0; i < sf_group_count; i++)
		if (name_is(sf_groups[i].name, name, len))
			return &sf_groups[i];
	return NULL;
}
