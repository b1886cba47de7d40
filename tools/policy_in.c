/* Where a subcommand's policy comes from (-p FILE, -e TEXT, or the
 * environment the library itself reads) and how it is parsed. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secfilter.h"

/* The source name of -e TEXT in messages, in the style of gcc's -D. */
#define CMDLINE_SOURCE "<command-line>"

static int load_text(struct policy_in *in, const char *source, const char *text)
{
	in->source = source;
	in->len = strlen(text);
	in->text = xstrdup(text);
	return 0;
}

static char *absolute(const char *file)
{
	char *cwd, *path;

	if (file[0] == '/')
		return xstrdup(file);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	path = path_join(cwd, file);
	free(cwd);
	return path;
}

static int load_file(struct policy_in *in, const char *cmd, const char *file)
{
	struct stat st;
	/* One byte past the limit is enough for the parser to refuse it. */
	int r = read_path(file, SF_MAX_TEXT + 1, &in->text, &in->len);

	if (r < 0) {
		errno = -r;
		tool_perr("%s: %s", cmd, file);
		return EX_SF_POLICY;
	}
	if (strcmp(file, "-") == 0) {
		in->source = "<stdin>";
		return 0;
	}
	in->source = file;
	/* Only a regular file can be read again by the library: a pipe
	 * (-p <(...), /dev/stdin) is empty by then.  Its text goes in the
	 * environment instead, and its @includes are relative to the
	 * working directory, as for -e. */
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	in->is_file = 1;
	/* Absolute, for the library in another working directory, but with
	 * its symbolic links kept: @include is relative to the directory of
	 * the path as given, here and in the library alike. */
	in->path = absolute(file);
	return 0;
}

int syntax_by_name(const char *name)
{
	if (strcmp(name, "secfilter") == 0)
		return SF_SYNTAX_SECFILTER;
	if (strcmp(name, "minijail") == 0)
		return SF_SYNTAX_MINIJAIL;
	if (strcmp(name, "oci") == 0)
		return SF_SYNTAX_OCI;
	return -1;
}

/* Takes option o of cmd (its argument arg) into a when it is a policy
 * option: returns 0, or the usage error's status; -1 when it is another. */
static int policy_option(const char *cmd, int o, const char *arg, struct policy_args *a)
{
	switch (o) {
	case 'p':
	case 'e':
		if (a->file || a->expr)
			return tool_usage_err(cmd, "%s: give one policy: -p or -e", cmd);
		*(o == 'p' ? &a->file : &a->expr) = arg;
		return 0;
	case 'S':
		a->syntax = syntax_by_name(arg);
		if (a->syntax < 0)
			return tool_usage_err(cmd, "%s: unknown syntax '%s' (secfilter, minijail or "
					      "oci)", cmd, arg);
		return 0;
	default:
		return -1;
	}
}

static const struct option policy_longopts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "expr", required_argument, NULL, 'e' },
	{ "syntax", required_argument, NULL, 'S' },
};
static const struct option common_longopts[] = { TOOL_COMMON_LONGOPTS };
#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

/* The command's getopt_long table: the policy rows, its own, the common
 * ones (which end it); malloc'd. */
static struct option *policy_cmd_table(const struct policy_cmd *c)
{
	size_t nown = 0;
	struct option *t;

	while (c->own[nown].name)
		nown++;
	t = xmalloc((NROWS(policy_longopts) + nown + NROWS(common_longopts)) * sizeof(*t));
	memcpy(t, policy_longopts, sizeof(policy_longopts));
	memcpy(t + NROWS(policy_longopts), c->own, nown * sizeof(*t));
	memcpy(t + NROWS(policy_longopts) + nown, common_longopts, sizeof(common_longopts));
	return t;
}

int policy_getopt(const struct policy_cmd *c, int argc, char **argv, struct policy_args *pol)
{
	int posix = c->shortopts[0] == '+', o, r = 0;
	struct option *opts = policy_cmd_table(c);
	char shortopts[64];

	/* ':' first (after any '+') so that getopt_long prints nothing and
	 * a missing argument comes back as ':'. */
	snprintf(shortopts, sizeof(shortopts), "%s:p:e:%shV", posix ? "+" : "",
		 c->shortopts + posix);
	while (!r && (o = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		r = policy_option(c->name, o, optarg, pol);
		if (r >= 0)
			continue;
		if (o == 'h' || o == 'V' || o == '?' || o == ':')
			r = tool_common_option(c->name, o, argv, c->usage);
		else
			r = c->take(c->ctx, o, optarg);
	}
	free(opts);
	return r;
}

static int load_in(struct policy_in *in, const char *cmd, const char *file,
		   const char *expr)
{
	const char *env_text, *env_file;

	if (expr)
		return load_text(in, CMDLINE_SOURCE, expr);
	if (file)
		return load_file(in, cmd, file);
	env_text = getenv("SECFILTER_POLICY");
	env_file = getenv("SECFILTER_POLICY_FILE");
	if (env_text && env_file) {
		tool_err("%s: SECFILTER_POLICY and SECFILTER_POLICY_FILE are both set; "
			 "use one", cmd);
		return EX_SF_USAGE;
	}
	if (env_text) {
		in->from_env = 1;
		return load_text(in, "SECFILTER_POLICY", env_text);
	}
	if (env_file)
		return load_file(in, cmd, env_file);
	return tool_usage_err(cmd, "%s: no policy: give -p FILE or -e TEXT", cmd);
}

int policy_in_load(struct policy_in *in, const char *cmd, const char *file,
		   const char *expr, int syntax)
{
	int r;

	memset(in, 0, sizeof(*in));
	r = load_in(in, cmd, file, expr);
	/* A file's name says its syntax, as it does for the library's
	 * SECFILTER_POLICY_FILE; text is secfilter's unless --syntax says. */
	if (syntax != SYNTAX_BY_NAME)
		in->syntax = (enum sf_syntax)syntax;
	else if (!r && !in->from_env && in->source != NULL && strcmp(in->source, CMDLINE_SOURCE) != 0)
		in->syntax = sf_syntax_of(in->source);
	return r;
}

/* A message of the parse on stderr, as the library formatted it. */
static void print_message(const struct sf_error *e)
{
	size_t n = strnlen(e->text, sizeof(e->text));

	if (n == 0)
		return;
	fwrite(e->text, 1, n, stderr);
	if (e->text[n - 1] != '\n')
		fputc('\n', stderr);
}

static void emit_message(void *ctx, int warning, const struct sf_error *e)
{
	(void)ctx;
	(void)warning;
	print_message(e);
}

int policy_in_parse(const struct policy_in *in, struct sf_policy **out)
{
	struct sf_diag diag = { .emit = emit_message, .max_errors = POLICY_MAX_ERRORS };
	const char *name = in->cite ? in->cite : in->source;
	struct sf_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = sf_policy_apply_diag(NULL, name, in->is_file ? SF_SRC_FILE : SF_SRC_TEXT,
				 in->syntax, in->text, in->len, out, &err, &diag);
	if (r == 0) {
		if (sf_policy_uring_warning(*out, in->syntax, err.text, sizeof(err.text)))
			tool_err("%s: warning: %s", in->source, err.text);
		return 0;
	}
	if (diag.nerrors > POLICY_MAX_ERRORS)
		fprintf(stderr, "%s: %u more error%s not shown\n", name,
			diag.nerrors - POLICY_MAX_ERRORS,
			diag.nerrors - POLICY_MAX_ERRORS > 1 ? "s" : "");
	if (!err.text[0]) {
		errno = -r;
		tool_perr("%s: cannot apply the policy", in->source);
	}
	return r == -ENOMEM ? EX_SF_FAIL : EX_SF_POLICY;
}

void policy_in_for_library(struct policy_in *in, const struct sf_policy *p)
{
	/* under fs. rules the library may not be able to read the file (or
	 * what it includes) again: it gets the text */
	if (in->path ? sf_syntax_of(in->path) == in->syntax && !p->landlock
		     : in->syntax == SF_SYNTAX_SECFILTER)
		return;
	free(in->path);
	in->path = NULL;
	free(in->text);
	in->text = policy_text(p, &in->len);
	in->syntax = SF_SYNTAX_SECFILTER;
}

void policy_in_free(struct policy_in *in)
{
	free(in->text);
	free(in->path);
	memset(in, 0, sizeof(*in));
}

char *policy_text(const struct sf_policy *p, size_t *lenp)
{
	char probe[1];
	size_t len = sf_policy_print(p, probe, sizeof(probe));
	char *buf = xmalloc(len + 1);

	sf_policy_print(p, buf, len + 1);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}
