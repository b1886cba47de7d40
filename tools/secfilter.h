/* The secfilter command: what the subcommands share.
 *
 * One file per subcommand (cmd_*.c); this header declares their entry
 * points and the small helpers they have in common.  Exit statuses follow
 * SPEC §5 and secfilter(1). */
#ifndef SECFILTER_TOOL_H
#define SECFILTER_TOOL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy.h"

#ifndef SECFILTER_VERSION
#define SECFILTER_VERSION "0.1.0"
#endif

enum {
	EX_SF_OK = 0,
	EX_SF_POLICY = 1,   /* invalid or unreadable policy; show: not filtered */
	EX_SF_USAGE = 2,
	EX_SF_TREE_KILLED = 123, /* run: PROG exited 0, another process of its
				  * tree was killed by the policy */
	EX_SF_FAIL = 125,   /* secfilter itself failed */
	EX_SF_NOEXEC = 126, /* PROG cannot be executed */
	EX_SF_NOTFOUND = 127,
};

/* Subcommands: argv[0] is the subcommand's name; each returns an exit
 * status. */
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_learn(int argc, char **argv);
int cmd_syscalls(int argc, char **argv);

/* "secfilter: " + message + newline on stderr. */
void tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with ": strerror(errno)" appended. */
void tool_perr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the message, then a pointer to --help.  Returns
 * EX_SF_USAGE. */
int tool_usage_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A usage error for what getopt_long returned ('?' unknown option, ':'
 * missing argument); cmd NULL for the command itself.  Returns
 * EX_SF_USAGE. */
int tool_bad_option(const char *cmd, int o, char **argv);
/* Prints "secfilter VERSION" on stdout; returns the exit status. */
int tool_version(void);
/* The options every subcommand has, last in its getopt_long table. */
#define TOOL_COMMON_LONGOPTS                            \
	{ "help", no_argument, NULL, 'h' },             \
	{ "version", no_argument, NULL, 'V' },          \
	{ NULL, 0, NULL, 0 }
/* For what a subcommand's getopt_long loop does not handle itself: -h
 * prints usage and -V the version, and both end the command (exit);
 * anything else is a bad option, whose status is returned. */
int tool_common_option(const char *cmd, int o, char **argv, const char *usage);

/* Says "out of memory" and ends the command (status 125). */
void tool_oom(void) __attribute__((noreturn));
void *xmalloc(size_t n);
char *xstrdup(const char *s);
/* "DIR/NAME" (malloc'd), with one slash between them. */
char *path_join(const char *dir, const char *name);
/* The array a of *cap elements of elem bytes, with room for element n:
 * when n has reached *cap, moved to twice as many (first to begin
 * with).  Out of memory ends the command, as for xmalloc. */
void *xgrow(void *a, size_t *cap, size_t n, size_t elem, size_t first);

/* Reads at most max bytes of fd (a policy larger than the parser's limit
 * need only be read far enough to be refused).  Returns 0 and a NUL-
 * terminated malloc'd buffer, or -errno. */
int read_fd(int fd, size_t max, char **buf, size_t *len);
/* The same for a path; "-" is stdin. */
int read_path(const char *path, size_t max, char **buf, size_t *len);
/* Writes all of buf; -errno on failure. */
int write_all(int fd, const void *buf, size_t len);

/* The policy given on a command line (-p FILE, -e TEXT) or, lacking both,
 * in the environment (SECFILTER_POLICY, SECFILTER_POLICY_FILE). */
struct policy_in {
	const char *source; /* the name messages use: the path, "<command line>" */
	char *text;
	size_t len;
	char *path;         /* absolute path of a -p FILE that is a regular file, or NULL */
	const char *cite;   /* the name the parsed rules cite, if not source */
	int is_file;        /* source names a regular file: @include is relative to it */
	int from_env;       /* came from SECFILTER_POLICY */
	enum sf_syntax syntax; /* --syntax, or what the file's name says */
};

/* --syntax=NAME: secfilter, minijail or oci; -1 if none of them. */
int syntax_by_name(const char *name);
#define SYNTAX_BY_NAME (-1) /* policy_in_load: the file's extension says */

/* The options of a command that takes one policy: -p FILE or -e TEXT, and
 * --syntax NAME.  Start with POLICY_ARGS_INIT. */
struct policy_args {
	const char *file, *expr;
	int syntax; /* or SYNTAX_BY_NAME */
};
#define POLICY_ARGS_INIT { NULL, NULL, SYNTAX_BY_NAME }
/* The options of a command that takes one policy, beyond the policy
 * ones and the common ones (--help, --version). */
struct option;
struct policy_cmd {
	const char *name, *usage;
	const struct option *own; /* its getopt_long rows, ended by a zero row */
	const char *shortopts;    /* its letters; a leading '+' stops at PROG */
	/* Takes its own option o (argument arg): 0, or an exit status. */
	int (*take)(void *ctx, int o, const char *arg);
	void *ctx;
};
/* Parses argv's options into pol and c->take, from optind; --help and
 * --version end the command (exit).  Returns 0 with optind at the first
 * operand, or the exit status of the first bad option. */
int policy_getopt(const struct policy_cmd *c, int argc, char **argv, struct policy_args *pol);

/* Fills in from -p/-e (at most one of file, expr set) or the environment,
 * in the syntax given, or SYNTAX_BY_NAME.  Returns 0, or an exit status
 * after printing why. */
int policy_in_load(struct policy_in *in, const char *cmd, const char *file,
		   const char *expr, int syntax);
/* Parses it; prints every error of the policy (the first
 * POLICY_MAX_ERRORS, then how many more) and its warnings exactly as
 * sf_error.text gives them.  Returns 0 or EX_SF_POLICY / EX_SF_FAIL. */
#define POLICY_MAX_ERRORS 20
int policy_in_parse(const struct policy_in *in, struct sf_policy **out);
void policy_in_free(struct policy_in *in);
/* Makes what run hands the library (SECFILTER_POLICY_FILE=in->path, or
 * SECFILTER_POLICY=in->text) mean p: a file the library would read in
 * another syntax than in->syntax (it goes by the name), or any file when
 * p has fs./net. rules (they may forbid reading it), is replaced by p's
 * canonical text. */
void policy_in_for_library(struct policy_in *in, const struct sf_policy *p);

/* The canonical text of p (malloc'd, NUL-terminated). */
char *policy_text(const struct sf_policy *p, size_t *len);

/* The syscall table's entry for a name as the language accepts it (read,
 * sys_read, sys_newuname) or a number; NULL when unknown. */
const struct sf_syscall *syscall_by_word(const char *word);
/* The table name closest to word (edit distance), for "did you mean". */
const char *syscall_suggest(const char *word);
/* The group name ("@file-system") closest to word, or NULL. */
const char *group_suggest(const char *word);

/* A file's pathname, resolved like execvp(3) does: through PATH unless it
 * contains a slash.  Returns 0 with *path malloc'd, or EX_SF_NOTFOUND /
 * EX_SF_NOEXEC with errno set. */
int resolve_prog(const char *name, char **path);

/* Whether an executable needs no dynamic loader (no PT_INTERP).  Follows a
 * "#!" line to its interpreter.  1 static, 0 dynamic, -1 with *why set when
 * it is neither an x86-64 ELF nor a script (it may still be executable). */
int prog_is_static(const char *path, const char **why);

/* The files the kernel opens to run path, in its order: path, each "#!"
 * interpreter, the last one's ELF loader (as their names are written),
 * malloc'd into files[], at most max; returns how many. */
int prog_exec_chain(const char *path, char **files, int max);

/* An executable that is neither ELF nor "#!": execve fails with ENOEXEC,
 * and execvp(3) -- which run and learn follow -- then runs it with
 * /bin/sh. */
int prog_needs_shell(const char *path);
/* { "/bin/sh", path, argv[1], ... NULL } (malloc'd; the strings are
 * argv's), glibc's execvp fallback. */
char **shell_argv(const char *path, char *const *argv);

/* Exit status of a program as a shell reports it: its code, or 128+N when
 * killed by signal N. */
int status_to_exit(int status);

/* Makes run and learn pass on to their child every signal another process
 * sends them (all but SIGKILL and SIGSTOP) while they wait; child 0: to no one, once the child is reaped and its
 * pid may be another's.  See util.c for the signals that are not passed. */
void forward_signals_to(pid_t child);
/* The dispositions they had before. */
void forward_signals_reset(void);

#endif
