/* secfilter syscalls [NAME | @GROUP ...]: the syscall table the policy
 * language knows, one syscall per line:
 *   0 read (fd: u32, buf: ptr, count: u64)
 *   63 uname sys_newuname (name: ptr)
 * The kernel entry point is shown only when it is not "sys_" + the name.
 * @GROUP lists the syscalls of one of systemd's groups, in number order;
 * --groups lists the groups. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "secfilter.h"

static const char usage[] =
	"Usage: secfilter syscalls [NAME | @GROUP ...]\n"
	"       secfilter syscalls --groups\n"
	"Print the syscall table: number, name, the kernel entry point when it\n"
	"differs from sys_NAME, and the arguments with their type classes\n"
	"(s32 u32 u16 s64 u64 ptr; see secfilter(7)).  NAME may be a name\n"
	"(read), sys_NAME, an entry point (sys_newuname) or a number (0x and 0\n"
	"prefixes read as in C); @GROUP names one of systemd's groups\n"
	"(@file-system), whose syscalls are listed in number order.\n\n"
	"  -g, --groups  list the groups: name, how many syscalls, description\n"
	"  -h, --help    show this help\n"
	"  -V, --version print the version\n\n"
	"Exit status: 0, or 1 when a NAME or GROUP is unknown.\n";

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

/* Whether word is written as a number, in any base the language accepts,
 * with an optional sign: such a word is never a misspelt name. */
static int is_number(const char *word, long *nr)
{
	char *end;

	if (!isdigit((unsigned char)word[word[0] == '-' || word[0] == '+']))
		return 0;
	errno = 0;
	*nr = strtol(word, &end, 0);
	if (*end)
		return 0;
	if (errno == ERANGE)
		*nr = word[0] == '-' ? -1 : SF_NR_COUNT;
	return 1;
}

/* "0-336, 424-469": the numbers the table assigns, from the table. */
static void put_ranges(char *buf, size_t cap)
{
	size_t len = 0;
	unsigned k = 0;

	buf[0] = '\0';
	while (k < sf_syscall_count && len < cap) {
		unsigned j = k;
		while (j + 1 < sf_syscall_count && sf_syscalls[j + 1].nr == sf_syscalls[j].nr + 1)
			j++;
		len += (size_t)snprintf(buf + len, cap - len, "%s%d-%d", k ? ", " : "",
					sf_syscalls[k].nr, sf_syscalls[j].nr);
		k = j + 1;
	}
}

static void unknown(const char *word)
{
	const char *near;
	char ranges[128];
	long nr;

	fflush(stdout);
	if (is_number(word, &nr)) {
		put_ranges(ranges, sizeof(ranges));
		tool_err("syscalls: no x86-64 system call has number %s (the table has %s)",
			 word, ranges);
		return;
	}
	near = syscall_suggest(word);
	if (near)
		tool_err("syscalls: unknown system call '%s' (did you mean '%s'?)", word, near);
	else
		tool_err("syscalls: unknown system call '%s'", word);
}

static int print_group(const char *word)
{
	const struct sf_group *g = sf_group_lookup(word, strlen(word));
	const char *near;
	unsigned k;

	if (g) {
		for (k = 0; k < g->count; k++)
			print_syscall(sf_syscall_by_nr(g->nrs[k]));
		return EX_SF_OK;
	}
	near = group_suggest(word);
	fflush(stdout);
	if (near)
		tool_err("syscalls: unknown group '%s' (did you mean '%s'?)", word, near);
	else
		tool_err("syscalls: unknown group '%s' (see secfilter syscalls --groups)", word);
	return EX_SF_POLICY;
}

int cmd_syscalls(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "groups", no_argument, NULL, 'g' },
		TOOL_COMMON_LONGOPTS,
	};
	int o, i, status = EX_SF_OK, groups = 0;
	unsigned k;

	while ((o = getopt_long(argc, argv, ":ghV", opts, NULL)) != -1) {
		if (o == 'g') {
			groups = 1;
			continue;
		}
		return tool_common_option("syscalls", o, argv, usage);
	}
	if (groups) {
		if (optind != argc)
			return tool_usage_err("syscalls", "syscalls: --groups takes no NAME");
		printf("# %s\n", sf_groups_version);
		for (k = 0; k < sf_group_count; k++)
			printf("%s %u %s\n", sf_groups[k].name, sf_groups[k].count,
			       sf_groups[k].about);
	}
	if (optind == argc && !groups)
		for (k = 0; k < sf_syscall_count; k++)
			print_syscall(&sf_syscalls[k]);
	for (i = optind; i < argc; i++) {
		const struct sf_syscall *sc;
		long nr;

		if (argv[i][0] == '@') {
			int r = print_group(argv[i]);
			status = r > status ? r : status;
			continue;
		}
		sc = is_number(argv[i], &nr) ? sf_syscall_by_nr(nr) : syscall_by_word(argv[i]);
		if (sc) {
			print_syscall(sc);
			continue;
		}
		unknown(argv[i]);
		status = EX_SF_POLICY;
	}
	if (fflush(stdout) != 0) {
		tool_perr("syscalls: standard output");
		return EX_SF_FAIL;
	}
	return status;
}
