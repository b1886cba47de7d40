/* secfilter compile: the policy as the kernel filter trusted mode installs
 * (SPEC §4), shown as a disassembly, as C, or as the raw program. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf.h"
#include "bpf_print.h"
#include "oci_out.h"
#include "secfilter.h"

static const char usage[] =
	"Usage: secfilter compile [-p FILE | -e TEXT] [--syntax=secfilter|minijail|oci] [--format=disasm|c|raw|oci] [--drop-landlock] [-o OUT]\n"
	"Compile a policy to the seccomp-BPF program trusted mode installs\n"
	"(kill action SECCOMP_RET_KILL_PROCESS; return E, trap and log are\n"
	"SECCOMP_RET_ERRNO, SECCOMP_RET_TRAP and SECCOMP_RET_LOG) and print it,\n"
	"or write it as an OCI seccomp profile for runc, Docker or Podman.\n\n"
	"  -p, --policy=FILE   the policy file ('-' is standard input)\n"
	"  -e, --expr=TEXT     the policy text itself\n"
	"      --syntax=SYNTAX secfilter, minijail or oci (see secfilter check)\n"
	"  -f, --format=FMT    disasm (default), c (a C array), raw (the\n"
	"                      struct sock_filter array, 8 bytes per instruction),\n"
	"                      or oci (a JSON profile that means exactly the policy)\n"
	"  -o, --output=OUT    write to OUT instead of standard output\n"
	"      --drop-landlock with --format=c or oci: leave out the policy's file\n"
	"                      and port rules (fs., net.), which neither can say\n"
	"  -h, --help          show this help\n"
	"  -V, --version       print the version\n\n"
	"Without -p or -e, SECFILTER_POLICY or SECFILTER_POLICY_FILE is used.\n"
	"Exit status: 0, 1 invalid policy (or over 4096 instructions, or a rule an\n"
	"OCI profile cannot say), 2 usage,\n"
	"125 the output cannot be written.\n";

enum format { FMT_DISASM, FMT_C, FMT_RAW, FMT_OCI };

static int parse_format(const char *s, enum format *f)
{
	if (strcmp(s, "disasm") == 0)
		*f = FMT_DISASM;
	else if (strcmp(s, "c") == 0)
		*f = FMT_C;
	else if (strcmp(s, "raw") == 0)
		*f = FMT_RAW;
	else if (strcmp(s, "oci") == 0)
		*f = FMT_OCI;
	else
		return -1;
	return 0;
}

/* Returns 0 and the program, or an exit status after saying why. */
static int compile(const struct policy_in *in, const struct sf_policy *p,
		   struct sock_filter *prog, unsigned *len)
{
	struct sf_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = sf_bpf_compile(p, SECCOMP_RET_KILL_PROCESS, prog, SF_BPF_MAX, len, &err);
	if (r == 0)
		return 0;
	if (err.text[0])
		tool_err("compile: %s: %s", in->source, err.text);
	else if (r == -E2BIG)
		tool_err("compile: %s: the policy compiles to more than %u BPF "
			 "instructions (the kernel limit)", in->source, SF_BPF_MAX);
	else {
		errno = -r;
		tool_perr("compile: %s", in->source);
	}
	return r == -E2BIG ? EX_SF_POLICY : EX_SF_FAIL;
}

/* The fs./net. rules are Landlock's, not the BPF program's: a format
 * that passes for the whole policy (an OCI profile, the C array a
 * program installs itself) refuses them unless told to drop them; the
 * others say they are not in it.  0 or an exit status. */
static int landlock_for_format(const struct policy_in *in, const struct sf_policy *p,
			       enum format f, int drop)
{
	const char *what = f == FMT_OCI ? "an OCI profile" : "the C array";

	if (!p->landlock)
		return 0;
	if (f == FMT_DISASM || f == FMT_RAW) {
		tool_err("compile: note: %s: the file and port rules (fs., net.) are not part of "
			 "the BPF program: Landlock enforces them (secfilter run does)", in->source);
		return 0;
	}
	if (!drop) {
		tool_err("compile: %s: the policy has file and port rules (fs., net.), which %s "
			 "cannot carry (Landlock enforces them, not seccomp); --drop-landlock "
			 "writes it without them", in->source, what);
		return EX_SF_POLICY;
	}
	tool_err("compile: warning: %s: the file and port rules (fs., net.) are dropped: %s "
		 "restricts no file and no port", in->source, what);
	return 0;
}

/* What is written: a program, or a profile's text. */
struct output {
	const struct sock_filter *prog;
	unsigned len;
	const char *text;
	size_t textlen;
};

static int emit(FILE *out, enum format f, const struct output *o)
{
	const struct sock_filter *prog = o->prog;
	unsigned len = o->len;

	switch (f) {
	case FMT_OCI:
		fwrite(o->text, 1, o->textlen, out);
		break;
	case FMT_DISASM:
		sf_bpf_print_disasm(out, prog, len);
		break;
	case FMT_C:
		sf_bpf_print_c(out, prog, len);
		break;
	case FMT_RAW:
		if (sf_bpf_write_raw(out, prog, len) < 0)
			return -1;
		break;
	}
	return ferror(out) ? -1 : 0;
}

/* After a failed write, OUT goes only if it is a regular file and still
 * the one written to: never a device, a FIFO or a symlink named by -o
 * (-o /dev/full must not delete /dev/full), nor a file renamed in
 * between. */
static void remove_output(const char *path, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && S_ISREG(b.st_mode) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlink(path);
}

static int write_output(const char *path, enum format f, const struct output *o)
{
	FILE *out = stdout;
	int fd = -1, ok;

	if (path && strcmp(path, "-") != 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			tool_perr("compile: %s", path);
			if (fd >= 0)
				close(fd);
			return EX_SF_FAIL;
		}
	}
	ok = emit(out, f, o) == 0 && fflush(out) == 0;
	if (!ok)
		tool_perr("compile: %s", out == stdout ? "standard output" : path);
	if (out == stdout)
		return ok ? EX_SF_OK : EX_SF_FAIL;
	if (!ok)
		remove_output(path, fd);
	if (fclose(out) != 0 && ok) {
		tool_perr("compile: %s", path);
		ok = 0;
	}
	return ok ? EX_SF_OK : EX_SF_FAIL;
}

/* compile's own options. */
struct compile_args {
	const char *output;
	int drop_landlock;
	enum format fmt;
};

static int take_option(void *ctx, int o, const char *arg)
{
	struct compile_args *a = ctx;

	switch (o) {
	case 'f':
		if (parse_format(arg, &a->fmt) < 0)
			return tool_usage_err("compile", "compile: unknown format '%s' "
					      "(disasm, c, raw or oci)", arg);
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	default: /* 'L' */
		a->drop_landlock = 1;
		return 0;
	}
}

int cmd_compile(int argc, char **argv)
{
	static const struct option own[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "drop-landlock", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct compile_args a = { NULL, 0, FMT_DISASM };
	const struct policy_cmd cmd = { "compile", usage, own, "f:o:", take_option, &a };
	struct policy_args pol = POLICY_ARGS_INIT;
	struct sock_filter *prog;
	struct policy_in in;
	struct sf_policy *p;
	unsigned len = 0;
	int r;

	if ((r = policy_getopt(&cmd, argc, argv, &pol)))
		return r;
	if (optind < argc)
		return tool_usage_err("compile", "compile: unexpected argument '%s'", argv[optind]);
	r = policy_in_load(&in, "compile", pol.file, pol.expr, pol.syntax);
	if (r)
		return r;
	r = policy_in_parse(&in, &p);
	if (!r && (r = landlock_for_format(&in, p, a.fmt, a.drop_landlock)))
		sf_policy_free(p);
	if (r) {
		policy_in_free(&in);
		return r;
	}
	prog = xmalloc(SF_BPF_MAX * sizeof(*prog));
	if (a.fmt == FMT_OCI) {
		char why[1024];
		struct output o = { NULL, 0, NULL, 0 };
		char *text = NULL;

		r = oci_profile(p, &text, &o.textlen, why, sizeof(why));
		if (r) {
			tool_err("compile: %s: cannot be written as an OCI profile: %s", in.source, why);
			r = EX_SF_POLICY;
		} else {
			o.text = text;
			r = write_output(a.output, a.fmt, &o);
		}
		free(text);
	} else {
		r = compile(&in, p, prog, &len);
		if (r == 0) {
			struct output o = { prog, len, NULL, 0 };
			r = write_output(a.output, a.fmt, &o);
		}
	}
	free(prog);
	sf_policy_free(p);
	policy_in_free(&in);
	return r;
}
