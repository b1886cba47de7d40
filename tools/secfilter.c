/* secfilter: the command-line tool (SPEC §5).  main() only picks the
 * subcommand; each lives in its own cmd_*.c. */
#include <getopt.h>
#include <string.h>

#include "internal.h"
#include "secfilter.h"

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *synopsis;
} commands[] = {
	{ "check", cmd_check, "check [-q] [-e TEXT | FILE]...    validate; print the canonical policy" },
	{ "run", cmd_run, "run [-p FILE | -e TEXT] [--trusted | --interpose] [--log] -- PROG [ARG...]" },
	{ "show", cmd_show, "show PID                          current policy of a filtered process" },
	{ "compile", cmd_compile, "compile [-p FILE | -e TEXT] [--format=disasm|c|raw|oci] [-o OUT]" },
	{ "learn", cmd_learn, "learn [-o FILE] -- PROG [ARG...]  write a policy that allows what PROG used" },
	{ "syscalls", cmd_syscalls, "syscalls [NAME...]                the syscall table: number, name, arguments" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void help(FILE *out)
{
	unsigned i;

	fputs("Usage: secfilter COMMAND [OPTION...] [ARG...]\n"
	      "Put a program under a text syscall policy (see secfilter(7)).\n\n"
	      "Commands:\n", out);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  secfilter %s\n", commands[i].synopsis);
	fputs("\n'secfilter COMMAND --help' describes a command; secfilter(1) has it all.\n"
	      "Exit status: 0 success, 1 invalid policy, 2 usage, 125 secfilter failed,\n"
	      "126 cannot execute, 127 not found; run and learn exit with PROG's status,\n"
	      "run with 123 when PROG exited 0 but the policy killed a process of its tree.\n",
	      out);
}

static const struct command *find_command(const char *name)
{
	unsigned i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static const char *command_name_at(const void *ctx, unsigned i)
{
	(void)ctx;
	return i < NCOMMANDS ? commands[i].name : NULL;
}

/* "unknown command 'chekc' (did you mean 'check'?)" */
static int unknown_command(const char *name)
{
	const char *near = sf_closest(name, strlen(name), command_name_at, NULL);

	if (near)
		return tool_usage_err(NULL, "unknown command '%s' (did you mean '%s'?)", name, near);
	return tool_usage_err(NULL, "unknown command '%s'", name);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *c;
	int o;

	opterr = 0; /* every subcommand reports bad options itself */
	while ((o = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			help(stdout);
			return EX_SF_OK;
		case 'V':
			return tool_version();
		default:
			return tool_bad_option(NULL, o, argv);
		}
	}
	if (optind >= argc) {
		help(stderr);
		return EX_SF_USAGE;
	}
	if (strcmp(argv[optind], "help") == 0) {
		if (optind + 1 >= argc) {
			help(stdout);
			return EX_SF_OK;
		}
		optind++;
		c = find_command(argv[optind]);
		if (!c)
			return unknown_command(argv[optind]);
		{
			char *hargv[] = { argv[optind], "--help", NULL };
			optind = 0;
			return c->fn(2, hargv);
		}
	}
	c = find_command(argv[optind]);
	if (!c)
		return unknown_command(argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0; /* glibc: start over, rereading the optstring's '+' */
	return c->fn(argc, argv);
}
