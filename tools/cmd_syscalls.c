/* secfilter syscalls [NAME...]: the syscall table the policy language
 * knows, one syscall per line:
 *   0 read (fd: u32, buf: ptr, count: u64)
 *   63 uname sys_newuname (name: ptr)
 * The kernel entry point is shown only when it is not "sys_" + the name. */
#include <getopt.h>
#include <string.h>

#include "secfilter.h"

static const char usage[] =
	"Usage: secfilter syscalls [NAME...]\n"
	"Print the syscall table: number, name, the kernel entry point when it\n"
	"differs from sys_NAME, and the arguments with their type classes\n"
	"(s32 u32 u16 s64 u64 ptr; see secfilter(7)).  NAME may be a name\n"
	"(read), sys_NAME, an entry point (sys_newuname) or a number.\n\n"
	"  -h, --help    show this help\n"
	"  -V, --version print the version\n\n"
	"Exit status: 0, or 1 when a NAME is unknown.\n";

static int entry_differs(const struct sf_syscall *sc)
{
	return strncmp(sc->entry, "sys_", 4) != 0 || strcmp(sc->entry + 4, sc->name) != 0;
}

static void print_syscall(const struct sf_syscall *sc)
{
	unsigned i;

	printf("%d %s", sc->nr, sc->name);
	if (entry_differs(sc))
		printf(" %s", sc->entry);
	fputs(" (", stdout);
	for (i = 0; i < sc->nargs; i++)
		printf("%s%s: %s", i ? ", " : "", sc->args[i].name,
		       sf_type_name((enum sf_type)sc->args[i].type));
	fputs(")\n", stdout);
}

int cmd_syscalls(int argc, char **argv)
{
	static const struct option opts[] = {
		TOOL_COMMON_LONGOPTS,
	};
	int o, i, status = EX_SF_OK;
	unsigned k;

	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		return tool_common_option("syscalls", o, argv, usage);
	}
	if (optind == argc)
		for (k = 0; k < sf_syscall_count; k++)
			print_syscall(&sf_syscalls[k]);
	for (i = optind; i < argc; i++) {
		const struct sf_syscall *sc = syscall_by_word(argv[i]);
		const char *near;

		if (sc) {
			print_syscall(sc);
			continue;
		}
		near = syscall_suggest(argv[i]);
		fflush(stdout);
		if (near)
			tool_err("syscalls: unknown system call '%s' (did you mean '%s'?)",
				 argv[i], near);
		else
			tool_err("syscalls: unknown system call '%s'", argv[i]);
		status = EX_SF_POLICY;
	}
	if (fflush(stdout) != 0) {
		tool_perr("syscalls: standard output");
		return EX_SF_FAIL;
	}
	return status;
}
