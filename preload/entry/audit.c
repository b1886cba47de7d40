/* The library as an rtld audit module: LD_AUDIT=/path/libsecfilter.so.
 *
 * glibc loads audit modules first, each in a link-map namespace of its
 * own with its own copy of libc, and calls their la_version before it
 * loads any library of the program, relocates anything or runs any
 * initializer.  A kernel filter installed there covers all of the
 * program's code: its preinit array, its libraries' IFUNC resolvers and
 * constructors, whatever its RPATH, RUNPATH or LD_LIBRARY_PATH finds.
 * sf_boot_trusted (init.c) does that work, in trusted mode only; in any
 * other case la_version returns 0 and rtld unloads this copy.
 *
 * Before la_version rtld has loaded this copy's own dependencies, and in
 * an audit namespace it looks for them on the program's DT_RPATH,
 * DT_RUNPATH and LD_LIBRARY_PATH, before any filter exists: so the
 * library's one dependency, libc, is named by its absolute path, fixed at
 * build time (Makefile), and the library loads nothing else before the
 * filter.
 *
 * la_objopen sees every object loaded into the program's namespace.  A
 * copy of this very library (the same build id) gets the authority's
 * table and state written into its .bss before its first instruction
 * runs, so that its wrappers, its API and its shadow of SIGSYS agree with
 * the authority from the start (state.h, struct sf_authority). */
#include <elf.h>
#include <link.h>

#include "entry.h"

static int is_authority SF_HOT;

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
extern ElfW(Dyn) _DYNAMIC[] __attribute__((visibility("hidden")));

/* Returns the audit interface version we speak (1: la_objopen is all we
 * use), or 0 when this copy has nothing to do. */
SF_EXPORT unsigned la_version(unsigned version)
{
	(void)version;
	is_authority = sf_boot_trusted();
	return is_authority ? 1 : 0;
}

/* The copy's instance of one of our variables: the same build lays it at
 * the same offset from the load address (both copies start at 0). */
#define IN_COPY(map, var) \
	((__typeof__(&(var)))((map)->l_addr + ((uintptr_t)&(var) - (uintptr_t)&__ehdr_start)))

/* Whether map may be a copy of this build: its dynamic section where
 * ours is, from its load address.  Read from the link map alone, so
 * every other object (libc, the program...) costs a subtraction; the
 * name and the build id, which read the object, decide the rest. */
static int may_be_copy(const struct link_map *map)
{
	return map->l_addr && map->l_addr != (uintptr_t)&__ehdr_start &&
	       (uintptr_t)map->l_ld - map->l_addr ==
		       (uintptr_t)_DYNAMIC - (uintptr_t)&__ehdr_start;
}

/* Only where a copy is loaded (LD_PRELOAD beside LD_AUDIT): not in the
 * start's hot text (hot.txt). */
__attribute__((noinline)) static void hand_off(struct link_map *map)
{
	if (!sf_our_name(map->l_name) ||
	    !sf_same_build((const ElfW(Ehdr) *)map->l_addr, map->l_addr))
		return;
	const struct sf_policy *p = sf_policy_now(); /* a deferred policy is parsed now */

	*IN_COPY(map, sf_cfg) = sf_cfg; /* its strings stay ours */
	*IN_COPY(map, sf_cur) = p;
	*IN_COPY(map, sf_enforce) = sf_enforcing();
	/* its wrappers report Landlock's denials: of layers entered here, or
	 * inherited with a deferred policy (landlock.c never ran for them) */
	*IN_COPY(map, sf_ll_watch) = sf_ll_watch || (p && p->landlock && !p->pending);
	*IN_COPY(map, sf_authority) = &sf_authority_iface;
	/* its own calls (a report's getcwd, a backtrace's pages) pass the
	 * kernel filter too: sf_may must ask it there as here */
	*IN_COPY(map, sf_kernel_on) = sf_kernel_on;
}

/* Interfaces we have no use for, defined all the same: rtld looks up
 * every la_* name of an audit module whose la_version kept it, and each
 * name it does not find costs a formatted "undefined symbol" exception
 * (about 900 instructions in rtld, 4 names: a tenth of what an exec'd
 * trusted image pays over an inert module).  Not la_symbind64,
 * la_pltenter nor la_pltexit: rtld routes the program's relocations and
 * PLT calls through the audit modules that define them. */
SF_EXPORT void la_activity(uintptr_t *cookie, unsigned flag)
{
	(void)cookie;
	(void)flag;
}

SF_EXPORT char *la_objsearch(const char *name, uintptr_t *cookie, unsigned flag)
{
	(void)cookie;
	(void)flag;
	return (char *)name;
}

SF_EXPORT void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
}

SF_EXPORT unsigned la_objclose(uintptr_t *cookie)
{
	(void)cookie;
	return 0;
}

SF_EXPORT unsigned la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid;
	(void)cookie;
	if (is_authority && may_be_copy(map))
		hand_off(map);
	return 0; /* no symbol binding callbacks */
}
