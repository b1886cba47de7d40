/* The syscall and constants tables against the build machine's headers and
 * the running kernel, and the lookups over them. */

/* Every header here may define a name of constants.tbl; the generated
 * consts_check.h compares each one that is defined.  This set compiles
 * together: the glibc headers, plus the kernel uapi headers that do not
 * redefine glibc's structs (<linux/fcntl.h>, <linux/time.h> and
 * <linux/pidfd.h> do, so their names are checked through glibc only or
 * not at all). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <asm/prctl.h>
#include <asm/termbits.h> /* struct termios2, which TCGETS2 & co. size */
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/mman.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <linux/wait.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "systab.h"

/* The last syscall of Linux 6.18 on x86-64. */
#define LAST_NR 469
#define LAST_NAME "file_setattr"
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct sf_syscall *must_nr(long nr)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);

	if (!sc)
		fail_msg("no syscall %ld in the table", nr);
	return sc;
}

static const struct sf_syscall *lookup(const char *name)
{
	return sf_syscall_lookup(name, strlen(name));
}

/* Each NAME:NR of list (separated by spaces) names syscall NR; each NAME
 * without a number names none. */
static void expect_lookups(const char *list)
{
	while (*(list += strspn(list, " "))) {
		size_t len = strcspn(list, ": ");
		const struct sf_syscall *sc;
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)len, list);
		sc = lookup(name);
		list += len;
		if (*list == ':') {
			char *end;
			long nr = strtol(list + 1, &end, 10);

			if (sc != must_nr(nr))
				fail_msg("'%s' does not name syscall %ld", name, nr);
			list = end;
		} else if (sc) {
			fail_msg("'%s' names syscall %d", name, sc->nr);
		}
	}
}

static const struct sf_syscall *must(const char *name)
{
	const struct sf_syscall *sc = lookup(name);

	if (!sc)
		fail_msg("no syscall %s in the table", name);
	return sc;
}

static const struct sf_const *must_const(const char *name)
{
	const struct sf_const *c = sf_const_lookup(name, strlen(name));

	if (!c)
		fail_msg("no constant %s in the table", name);
	return c;
}

static int arg(const struct sf_syscall *sc, const char *name)
{
	return sf_syscall_arg(sc, name, strlen(name));
}

static const struct sf_const *const_lookup(const char *name)
{
	return sf_const_lookup(name, strlen(name));
}

static void test_table_shape(void **state)
{
	unsigned i, j;
	int k;

	(void)state;
	assert_true(sf_syscall_count > 0);
	assert_int_equal(sf_syscalls[0].nr, 0);
	assert_string_equal(sf_syscalls[0].name, "read");
	assert_int_equal(sf_syscalls[sf_syscall_count - 1].nr, LAST_NR);
	assert_string_equal(sf_syscalls[sf_syscall_count - 1].name, LAST_NAME);
	/* 0..336 and 424..469, nothing else. */
	assert_int_equal(sf_syscall_count, 337 + (LAST_NR - 424 + 1));

	for (i = 0; i < sf_syscall_count; i++) {
		const struct sf_syscall *sc = &sf_syscalls[i];
		int ni = strcmp(sc->entry, "sys_ni_syscall") == 0;

		if (i > 0)
			assert_true(sf_syscalls[i - 1].nr < sc->nr);
		assert_true(sc->nr >= 0 && sc->nr < SF_NR_COUNT);
		assert_true(sc->nargs <= SF_MAX_ARGS);
		assert_true(sc->name[0] != '\0');
		assert_memory_equal(sc->entry, "sys_", 4);
		if (ni)
			assert_int_equal(sc->nargs, 0);
		for (k = 0; k < sc->nargs; k++) {
			assert_true(sc->args[k].name[0] != '\0');
			assert_true(sc->args[k].type <= SF_T_PTR);
		}
		for (j = 0; j < i; j++) {
			const struct sf_syscall *o = &sf_syscalls[j];

			if (strcmp(o->name, sc->name) == 0)
				fail_msg("%s twice", sc->name);
			/* The aliases must name one syscall each. */
			if (!ni && strcmp(o->entry, sc->entry) == 0)
				fail_msg("%s is the entry of %s and %s", sc->entry, o->name, sc->name);
			if (strcmp(o->entry + 4, sc->name) == 0 || strcmp(sc->entry + 4, o->name) == 0)
				fail_msg("sys_ aliases of %s and %s collide", o->name, sc->name);
		}
	}
}

/* Every number the build machine's <asm/unistd_64.h> defines is in the
 * table under the same name (the table may be newer than the headers). */
static void test_unistd_matches_headers(void **state)
{
	static const struct {
		const char *name;
		long nr;
	} hdr[] = {
#define SF_UNISTD(name, nr) { #name, nr },
#include "unistd_list.h"
#undef SF_UNISTD
	};
	size_t i;

	(void)state;
	/* Linux 4.0 already had 323; an empty list means the generator broke. */
	assert_true(sizeof(hdr) / sizeof(hdr[0]) >= 320);
	for (i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++) {
		const struct sf_syscall *sc = sf_syscall_by_nr(hdr[i].nr);

		if (!sc)
			fail_msg("__NR_%s (%ld) is missing from the table", hdr[i].name, hdr[i].nr);
		if (strcmp(sc->name, hdr[i].name) != 0)
			fail_msg("__NR_%s is %ld, but the table calls %ld %s", hdr[i].name,
				 hdr[i].nr, hdr[i].nr, sc->name);
		assert_ptr_equal(lookup(hdr[i].name), sc);
	}
}

static void test_lookup_names(void **state)
{
	static const char buf[] = "readv openatXYZ sys_readXX";

	(void)state;
	assert_int_equal(must_nr(0)->nr, 0);
	expect_lookups("read:0 sys_read:0 uname:63 sys_uname:63 "
		       /* Entry-point aliases. */
		       "sys_newuname:63 sys_newstat:4 sys_newfstat:5 sys_newlstat:6 sys_sendfile64:40 "
		       "sys_umount:166 umount2:166 sys_mmap:9 newfstatat:262 " LAST_NAME ":" STR(LAST_NR)
		       " uprobe:336 _sysctl:156 "
		       /* Unknown names. */
		       "sys_ nosuchcall sys_nosuchcall READ rea reads sys_sys_read "
		       "newuname " /* the alias needs its sys_ */
		       "listns " /* 6.19 */
		       /* Shared by every unimplemented number: no alias. */
		       "sys_ni_syscall ni_syscall");
	assert_null(lookup(""));

	/* The name need not be NUL-terminated. */
	assert_ptr_equal(sf_syscall_lookup(buf, 4), lookup("read"));
	assert_ptr_equal(sf_syscall_lookup(buf, 5), lookup("readv"));
	assert_ptr_equal(sf_syscall_lookup(buf + 6, 6), lookup("openat"));
	assert_null(sf_syscall_lookup(buf + 6, 7));
	assert_ptr_equal(sf_syscall_lookup(buf + 16, 8), lookup("read"));
	assert_null(sf_syscall_lookup(buf, 0));
}

static void test_by_nr(void **state)
{
	(void)state;
	assert_string_equal(must_nr(0)->name, "read");
	assert_string_equal(must_nr(1)->name, "write");
	assert_string_equal(must_nr(231)->name, "exit_group");
	assert_string_equal(must_nr(334)->name, "rseq");
	assert_string_equal(must_nr(335)->name, "uretprobe");
	assert_string_equal(must_nr(336)->name, "uprobe");
	assert_string_equal(must_nr(424)->name, "pidfd_send_signal");
	assert_string_equal(must_nr(462)->name, "mseal");
	assert_string_equal(must_nr(463)->name, "setxattrat");
	assert_string_equal(must_nr(464)->name, "getxattrat");
	assert_string_equal(must_nr(465)->name, "listxattrat");
	assert_string_equal(must_nr(466)->name, "removexattrat");
	assert_string_equal(must_nr(467)->name, "open_tree_attr");
	assert_string_equal(must_nr(468)->name, "file_getattr");
	assert_string_equal(must_nr(469)->name, "file_setattr");
	/* Numbers without an entry point keep their row. */
	assert_string_equal(must_nr(134)->name, "uselib");
	assert_string_equal(must_nr(134)->entry, "sys_ni_syscall");
	assert_string_equal(must_nr(174)->name, "create_module");
	assert_string_equal(must_nr(185)->name, "security");
	assert_string_equal(must_nr(212)->name, "lookup_dcookie");
	assert_string_equal(must_nr(236)->name, "vserver");

	/* Gaps, negatives, beyond the table and the x32 range. */
	assert_null(sf_syscall_by_nr(337));
	assert_null(sf_syscall_by_nr(400));
	assert_null(sf_syscall_by_nr(423));
	assert_null(sf_syscall_by_nr(LAST_NR + 1));
	assert_null(sf_syscall_by_nr(511));
	assert_null(sf_syscall_by_nr(512));
	assert_null(sf_syscall_by_nr(547));
	assert_null(sf_syscall_by_nr(-1));
	assert_null(sf_syscall_by_nr(LONG_MIN));
	assert_null(sf_syscall_by_nr(LONG_MAX));
	assert_null(sf_syscall_by_nr(0x40000000L)); /* __X32_SYSCALL_BIT */
	assert_null(sf_syscall_by_nr(0x100000000L));
}

/* Each NAME:INDEX of list (separated by spaces) names argument INDEX of
 * sc; -1: none of its. */
static void expect_arg_indexes(const struct sf_syscall *sc, const char *list)
{
	while (*(list += strspn(list, " "))) {
		size_t len = strcspn(list, ":");
		char name[64], *end;
		long want;

		snprintf(name, sizeof(name), "%.*s", (int)len, list);
		want = strtol(list + len + 1, &end, 10);
		if (list[len] != ':' || end == list + len + 1)
			fail_msg("expected NAME:INDEX at '%s'", list);
		if (arg(sc, name) != want)
			fail_msg("sys_%s: '%s' is argument %d, not %ld", sc->name, name, arg(sc, name),
				 want);
		list = end;
	}
}

static void test_arg_names(void **state)
{
	const struct sf_syscall *rd = must("read");
	const struct sf_syscall *prctl = must("prctl");
	static const char buf[] = "fd,count";

	(void)state;
	assert_int_equal(rd->nargs, 3);
	expect_arg_indexes(rd, "fd:0 buf:1 count:2 arg0:0 arg1:1 arg2:2 arg3:-1 arg5:-1 arg6:-1 "
			       "arg:-1 argx:-1 arg00:-1 fdd:-1 f:-1 FD:-1");
	assert_int_equal(arg(rd, ""), -1);
	assert_int_equal(sf_syscall_arg(rd, buf, 2), 0);
	assert_int_equal(sf_syscall_arg(rd, buf + 3, 5), 2);
	assert_int_equal(sf_syscall_arg(rd, buf, 1), -1);

	assert_int_equal(arg(must("getpid"), "arg0"), -1);
	assert_int_equal(arg(must("rt_sigreturn"), "arg0"), -1);
	assert_int_equal(arg(must("mmap"), "arg5"), 5);
	assert_int_equal(arg(must("mmap"), "off"), 5);
	assert_int_equal(arg(must("mmap"), "arg6"), -1);
	assert_int_equal(arg(must("openat"), "mode"), 3);

	/* prctl's kernel names are option, arg2..arg5: they win over the
	 * positional argN, so every argument keeps a name. */
	assert_int_equal(prctl->nargs, 5);
	expect_arg_indexes(prctl, "option:0 arg0:0 arg1:1 arg2:1 arg3:2 arg5:4");
}

static void expect_args(const char *name, int nargs, const char *const *names,
			const enum sf_type *types)
{
	const struct sf_syscall *sc = must(name);
	int i;

	assert_int_equal(sc->nargs, nargs);
	for (i = 0; i < nargs; i++) {
		if (strcmp(sc->args[i].name, names[i]) != 0 || sc->args[i].type != types[i])
			fail_msg("%s arg%d is %s:%s, expected %s:%s", name, i,
				 sf_type_name((enum sf_type)sc->args[i].type), sc->args[i].name,
				 sf_type_name(types[i]), names[i]);
	}
}

#define EXPECT(name, ...)                                                        \
	do {                                                                     \
		static const struct {                                            \
			const char *n;                                           \
			enum sf_type t;                                          \
		} a_[] = { __VA_ARGS__ };                                        \
		const char *n_[SF_MAX_ARGS];                                     \
		enum sf_type t_[SF_MAX_ARGS];                                    \
		size_t i_;                                                       \
		for (i_ = 0; i_ < sizeof(a_) / sizeof(a_[0]); i_++) {            \
			n_[i_] = a_[i_].n;                                       \
			t_[i_] = a_[i_].t;                                       \
		}                                                                \
		expect_args(name, (int)(sizeof(a_) / sizeof(a_[0])), n_, t_);    \
	} while (0)

/* The argument types the SPEC's examples and the type rules rest on. */
static void test_arg_types(void **state)
{
	(void)state;
	EXPECT("read", { "fd", SF_T_U32 }, { "buf", SF_T_PTR }, { "count", SF_T_U64 });
	EXPECT("write", { "fd", SF_T_U32 }, { "buf", SF_T_PTR }, { "count", SF_T_U64 });
	EXPECT("open", { "filename", SF_T_PTR }, { "flags", SF_T_S32 }, { "mode", SF_T_U16 });
	EXPECT("openat", { "dfd", SF_T_S32 }, { "filename", SF_T_PTR }, { "flags", SF_T_S32 },
	       { "mode", SF_T_U16 });
	EXPECT("close", { "fd", SF_T_U32 });
	EXPECT("lseek", { "fd", SF_T_U32 }, { "offset", SF_T_S64 }, { "whence", SF_T_U32 });
	EXPECT("mmap", { "addr", SF_T_U64 }, { "len", SF_T_U64 }, { "prot", SF_T_U64 },
	       { "flags", SF_T_U64 }, { "fd", SF_T_U64 }, { "off", SF_T_U64 });
	EXPECT("mprotect", { "start", SF_T_U64 }, { "len", SF_T_U64 }, { "prot", SF_T_U64 });
	EXPECT("ioctl", { "fd", SF_T_U32 }, { "cmd", SF_T_U32 }, { "arg", SF_T_U64 });
	EXPECT("fcntl", { "fd", SF_T_U32 }, { "cmd", SF_T_U32 }, { "arg", SF_T_U64 });
	EXPECT("clone", { "clone_flags", SF_T_U64 }, { "newsp", SF_T_U64 },
	       { "parent_tidptr", SF_T_PTR }, { "child_tidptr", SF_T_PTR }, { "tls", SF_T_U64 });
	EXPECT("kill", { "pid", SF_T_S32 }, { "sig", SF_T_S32 });
	EXPECT("socket", { "family", SF_T_S32 }, { "type", SF_T_S32 }, { "protocol", SF_T_S32 });
	EXPECT("prctl", { "option", SF_T_S32 }, { "arg2", SF_T_U64 }, { "arg3", SF_T_U64 },
	       { "arg4", SF_T_U64 }, { "arg5", SF_T_U64 });
	EXPECT("arch_prctl", { "option", SF_T_S32 }, { "arg2", SF_T_U64 });
	EXPECT("exit_group", { "error_code", SF_T_S32 });
	EXPECT("ftruncate", { "fd", SF_T_U32 }, { "length", SF_T_S64 });
	EXPECT("pread64", { "fd", SF_T_U32 }, { "buf", SF_T_PTR }, { "count", SF_T_U64 },
	       { "pos", SF_T_S64 });
	EXPECT("setuid", { "uid", SF_T_U32 });
	EXPECT("mkdirat", { "dfd", SF_T_S32 }, { "pathname", SF_T_PTR }, { "mode", SF_T_U16 });
	EXPECT("ptrace", { "request", SF_T_S64 }, { "pid", SF_T_S64 }, { "addr", SF_T_U64 },
	       { "data", SF_T_U64 });
	EXPECT("futex", { "uaddr", SF_T_PTR }, { "op", SF_T_S32 }, { "val", SF_T_U32 },
	       { "utime", SF_T_PTR }, { "uaddr2", SF_T_PTR }, { "val3", SF_T_U32 });
	EXPECT("file_setattr", { "dfd", SF_T_S32 }, { "filename", SF_T_PTR },
	       { "ufattr", SF_T_PTR }, { "usize", SF_T_U64 }, { "at_flags", SF_T_U32 });
	assert_int_equal(must("rt_sigreturn")->nargs, 0);
	assert_int_equal(must("getpid")->nargs, 0);

	assert_string_equal(sf_type_name(SF_T_S32), "s32");
	assert_string_equal(sf_type_name(SF_T_U32), "u32");
	assert_string_equal(sf_type_name(SF_T_U16), "u16");
	assert_string_equal(sf_type_name(SF_T_S64), "s64");
	assert_string_equal(sf_type_name(SF_T_U64), "u64");
	assert_string_equal(sf_type_name(SF_T_PTR), "ptr");
	assert_string_equal(sf_type_name((enum sf_type)42), "?");
}

static unsigned checked, mismatched;

static void check_const(const char *name, uint64_t header, uint64_t table)
{
	checked++;
	if (header != table) {
		mismatched++;
		print_error("%s: the headers say %#llx, constants.tbl %#llx\n", name,
			    (unsigned long long)header, (unsigned long long)table);
	}
}

/* glibc defines these differently from the kernel on purpose; they are
 * checked against the kernel's own view below instead. */
#undef O_LARGEFILE /* 0 in glibc on x86-64: the kernel forces it there */
#undef SIGRTMIN	   /* glibc's first free real-time signal, not the kernel's */
#undef SIGRTMAX

static void test_consts_match_headers(void **state)
{
	const struct sf_const *c;
	int fd, fl;

	(void)state;
	checked = mismatched = 0;
#define SF_CONST_CHECK(name, value) check_const(#name, (uint64_t)(name), (value));
#include "consts_check.h"
#undef SF_CONST_CHECK
	print_message("%u constants checked against the headers\n", checked);
	assert_int_equal(mismatched, 0);
	/* Linux 6.1 headers cover 730 of them. */
	assert_true(checked >= 650);

	c = const_lookup("SIGRTMIN");
	assert_non_null(c);
	assert_int_equal(c->value, __SIGRTMIN);
	c = const_lookup("SIGRTMAX");
	assert_non_null(c);
	assert_int_equal(c->value, __SIGRTMAX);

	/* The kernel reports the O_LARGEFILE it forces on 64-bit opens. */
	c = const_lookup("O_LARGEFILE");
	assert_non_null(c);
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	fl = fcntl(fd, F_GETFL);
	close(fd);
	assert_true(fl >= 0);
	assert_int_equal((uint64_t)fl & c->value, c->value);
}

static void test_const_lookup(void **state)
{
	static const char buf[] = "O_RDWR|O_CREAT";
	const struct sf_const *c;
	unsigned i;

	(void)state;
	assert_true(sf_const_count >= 700);
	for (i = 1; i < sf_const_count; i++)
		if (strcmp(sf_consts[i - 1].name, sf_consts[i].name) >= 0)
			fail_msg("constants not sorted: %s, %s", sf_consts[i - 1].name,
				 sf_consts[i].name);
	for (i = 0; i < sf_const_count; i++)
		assert_ptr_equal(const_lookup(sf_consts[i].name), &sf_consts[i]);

	assert_int_equal(must_const("O_RDONLY")->value, 0);
	assert_int_equal(must_const("O_WRONLY")->value, 1);
	assert_int_equal(must_const("O_CREAT")->value, 0x40);
	assert_int_equal(must_const("O_CLOEXEC")->value, 0x80000);
	assert_int_equal(must_const("AT_FDCWD")->value, (uint64_t)-100);
	assert_int_equal(must_const("RUSAGE_CHILDREN")->value, UINT64_MAX);
	assert_int_equal(must_const("CLONE_INTO_CGROUP")->value, 0x200000000ULL);
	assert_int_equal(must_const("SIGKILL")->value, 9);
	assert_int_equal(must_const("TIOCGPTN")->value, 0x80045430);

	/* Names that are prefixes of others, and the reverse. */
	assert_int_equal(must_const("O_DSYNC")->value, 0x1000);
	assert_null(const_lookup("O_DSYNCX"));
	assert_null(const_lookup("O_DSYN"));
	assert_int_equal(must_const("O_SYNC")->value, 0x101000);
	assert_int_equal(must_const("AF_INET")->value, 2);
	assert_int_equal(must_const("AF_INET6")->value, 10);
	assert_int_equal(must_const("TCGETS")->value, 0x5401);
	assert_int_equal(must_const("TCGETS2")->value, 0x802c542a);
	assert_int_equal(must_const("SIG_IGN")->value, 1);
	assert_int_equal(must_const("SIGIO")->value, 29);
	assert_null(const_lookup("SIG"));
	assert_null(const_lookup("O_"));
	assert_null(const_lookup(""));
	assert_null(const_lookup("o_wronly"));
	assert_null(const_lookup("ZZZ_NOT_A_CONSTANT"));
	assert_null(const_lookup("AAA"));

	/* The name need not be NUL-terminated. */
	c = sf_const_lookup(buf, 6);
	assert_non_null(c);
	assert_string_equal(c->name, "O_RDWR");
	c = sf_const_lookup(buf + 7, 7);
	assert_non_null(c);
	assert_string_equal(c->name, "O_CREAT");
	assert_null(sf_const_lookup(buf, 7));
	assert_null(sf_const_lookup(buf, 5));
}

/* Every row of errno.tbl as <errno.h> defines it (the table would be
 * wrong where they differ), and every errno.h name in the table. */
static void test_errnos_match_headers(void **state)
{
	unsigned i, named = 0;

	(void)state;
	checked = mismatched = 0;
#define SF_CONST_CHECK(name, value) check_const(#name, (uint64_t)(name), (value));
#include "errno_check.h"
#undef SF_CONST_CHECK
	assert_int_equal(mismatched, 0);
	assert_int_equal(checked, sf_errno_count);
	for (i = 1; i <= SF_ERRNO_MAX; i++) {
		const char *name = sf_errno_name(i), *msg = strerror((int)i);
		if (!name)
			continue;
		named++;
		assert_int_equal(sf_errno_lookup(name, strlen(name))->value, i);
		assert_string_equal(sf_errno_text(i), msg);
		if (strncmp(msg, "Unknown error", 13) == 0)
			fail_msg("%s (%u) is not an error libc knows", name, i);
	}
	assert_int_equal(named, 133 - 2); /* 41 and 58 are unused */
	assert_string_equal(sf_errno_name(11), "EAGAIN");
	assert_string_equal(sf_errno_name(35), "EDEADLK");
	assert_string_equal(sf_errno_name(95), "EOPNOTSUPP");
	assert_int_equal(sf_errno_lookup("EWOULDBLOCK", 11)->value, 11);
	assert_int_equal(sf_errno_lookup("ENOTSUP", 7)->value, 95);
	assert_int_equal(sf_errno_lookup("EPERMX", 5)->value, 1); /* a prefix of the text */
	assert_null(sf_errno_lookup("EPERMX", 6));
	assert_null(sf_errno_lookup("eperm", 5));
	assert_null(sf_errno_name(0));
	assert_null(sf_errno_name(41));
	assert_null(sf_errno_name(4095));
	assert_null(sf_errno_text(0));
	assert_null(sf_errno_text(41));
	assert_null(sf_errno_text(4095));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_shape),
		cmocka_unit_test(test_unistd_matches_headers),
		cmocka_unit_test(test_lookup_names),
		cmocka_unit_test(test_by_nr),
		cmocka_unit_test(test_arg_names),
		cmocka_unit_test(test_arg_types),
		cmocka_unit_test(test_consts_match_headers),
		cmocka_unit_test(test_const_lookup),
		cmocka_unit_test(test_errnos_match_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
