/* secfilter run: start PROG under a policy and exit with its status.
 *
 * Both modes start PROG the same way: a child stopped under our ptrace,
 * exec'd, then taken to a chosen instruction before any of PROG's own
 * code runs, checked, and let go (PTRACE_DETACH):
 *
 * - interposition: PROG runs with LD_PRELOAD=libsecfilter.so.  glibc skips
 *   a preload it cannot load without failing, so run stops PROG at its
 *   entry point (AT_ENTRY, after every library constructor) and requires
 *   the library's handshake ("ok PID\n" on the SECFILTER_HANDSHAKE fd,
 *   written once the policy is armed).  No handshake from PROG itself:
 *   PROG is killed, never run.
 *
 * - trusted: run stops PROG at the first instruction of its new image and
 *   makes it call seccomp(SECCOMP_SET_MODE_FILTER) there.  Installing the
 *   filter in the child before execve would subject that execve -- run's
 *   act, not PROG's -- to the policy, forcing every policy to allow
 *   execve; installing it after means the policy covers exactly PROG
 *   (dynamic loader included), which is what on_next_syscall meant in the
 *   proposal.  PR_SET_NO_NEW_PRIVS is set before the exec, as seccomp
 *   requires of an unprivileged process.
 *
 * When PROG dies of SIGSYS (a kernel filter, ours or one the library
 * installed for an exec'd static binary) run prints the diagnostic line of
 * SPEC §3 from the kernel's audit record.
 *
 * run supervises the whole tree, but wait() shows it only PROG: a shell
 * that reaps the `ls` the policy killed hides that kill from its own
 * parent.  So in interposition mode the library tells run itself, right
 * before it kills a process: run binds an abstract unix datagram socket
 * (a random name, passed in SECFILTER_SUPERVISOR, which the library passes
 * on across exec like its other settings) and the kernel stamps each
 * datagram with the sender's pid (SO_PASSCRED).  Every kill sent before
 * PROG's exit is queued by the time run sees PROG gone; run drains the
 * socket while it waits, names the killed processes at the end, and exits
 * with EX_SF_TREE_KILLED when PROG itself exited 0.  A kernel filter's kill
 * (trusted mode, static programs) tells nobody but the process's parent
 * and a rate-limited audit log without a tree to match it to: run knows of
 * PROG's own only. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf.h"
#include "kmsg.h"
#include "listen.h"
#include "llaudit.h"
#include "secfilter.h"
#include "sflandlock.h"
#include "trace.h"

extern char **environ;

static const char usage[] =
	"Usage: secfilter run [-p FILE | -e TEXT] [--syntax=secfilter|minijail|oci] [--trusted | --interpose] [--log[=full]] -- PROG [ARG...]\n"
	"Run PROG under a policy and exit with its status.\n\n"
	"  -p, --policy=FILE  the policy file ('-' is standard input)\n"
	"  -e, --expr=TEXT    the policy text itself\n"
	"      --syntax=SYNTAX  secfilter, minijail or oci (see secfilter check)\n"
	"  -t, --trusted      kernel seccomp filter (the default for static PROG)\n"
	"  -i, --interpose    the preload library (the default for dynamic PROG)\n"
	"  -l, --log[=full]   let violations proceed: a line for each kind, and a\n"
	"                     summary at the end; =full: each in a full report\n"
	"  -h, --help         show this help\n"
	"  -V, --version      print the version\n\n"
	"Without -p or -e, SECFILTER_POLICY or SECFILTER_POLICY_FILE is used.\n"
	"SECFILTER_MODE=trusted and SECFILTER_ACTION=log (log-full) give the\n"
	"defaults of --trusted and --log (--log=full); SECFILTER_LIBRARY names the\n"
	"library.  SECFILTER_LOG is where reports go: stderr, syslog or a file,\n"
	"which must be open for appending (else status 125).\n"
	"Exit status: PROG's (128+N when killed by signal N: 137 for a violation in\n"
	"interposition mode, 159 in trusted mode), or 1 invalid policy, 2 usage,\n"
	"123 PROG exited 0 but the policy killed another process of its tree,\n"
	"125 secfilter failed or could not make the policy hold, 126 PROG cannot\n"
	"be executed, 127 PROG not found.\n";

enum mode { MODE_AUTO, MODE_TRUSTED, MODE_INTERPOSE };

/* A process of the tree the policy killed. */
struct kill {
	pid_t pid;
	long nr;       /* the syscall, or -1 when unknown */
	char comm[17];
};

struct run {
	struct policy_args pol;
	enum mode mode;
	int mode_explicit;
	int log;           /* LOG_LINES or LOG_FULL: log mode; 0: kill */
	char **argv;       /* PROG [ARG...], or /bin/sh PROG [ARG...] (see prepare) */
	const char *name;  /* PROG as given, for messages */
	char *path;        /* PROG resolved (or /bin/sh) */
	char *script;      /* PROG resolved, when /bin/sh runs it */
	char **sh_argv;
	const char *why;   /* why PROG's kind is unknown, or NULL */
	struct policy_in in;
	struct sf_policy *policy;
	struct sock_filter *prog; /* trusted mode: the compiled policy */
	unsigned prog_len;
	char *library;     /* interposition */
	int hs[2];         /* interposition: handshake pipe */
	int kmsg;          /* /dev/kmsg, or -errno */
	int sup;           /* interposition: the supervisor socket, or -1 */
	char sup_name[64];
	struct kill *kills;
	size_t nkills, kills_cap;
	pid_t pid;
	struct treelog tl;      /* reports written by run, and log mode's summary */
	struct listener lis;    /* trusted mode: run listens to its filter */
	int listen;             /* it will */
	struct sf_ll_fds ll;    /* the fs./net. rules' rulesets, entered before exec */
	struct llaudit lla;     /* trusted mode: Landlock's denials, from audit records */
};

/* SECFILTER_ACTION's log values: LOG_LINES, LOG_FULL, or -1. */
static int log_level(const char *action)
{
	return strcmp(action, "log") == 0 ? LOG_LINES : strcmp(action, "log-full") == 0 ? LOG_FULL : -1;
}

static int parse_env_defaults(struct run *r)
{
	const char *m = getenv("SECFILTER_MODE"), *a = getenv("SECFILTER_ACTION");

	if (m && *m && strcmp(m, "trusted") != 0 && strcmp(m, "interpose") != 0)
		return tool_usage_err("run", "run: SECFILTER_MODE must be 'trusted' or "
				      "'interpose', not '%s'", m);
	if (a && *a && strcmp(a, "kill") != 0 && log_level(a) < 0)
		return tool_usage_err("run", "run: SECFILTER_ACTION must be 'kill', 'log' or "
				      "'log-full', not '%s'", a);
	if (m && strcmp(m, "trusted") == 0)
		r->mode = MODE_TRUSTED;
	r->log = a && *a && strcmp(a, "kill") != 0 ? log_level(a) : 0;
	return 0;
}

static int take_option(void *ctx, int o, const char *arg)
{
	struct run *r = ctx;

	switch (o) {
	case 't':
	case 'i':
		if (r->mode_explicit)
			return tool_usage_err("run", "run: --trusted and --interpose "
					      "exclude each other");
		r->mode = o == 't' ? MODE_TRUSTED : MODE_INTERPOSE;
		r->mode_explicit = 1;
		return 0;
	default: /* 'l' */
		if (arg && strcmp(arg, "full") != 0)
			return tool_usage_err("run", "run: --log takes no value or 'full', "
					      "not '%s'", arg);
		r->log = arg ? LOG_FULL : LOG_LINES;
		return 0;
	}
}

static int parse_args(struct run *r, int argc, char **argv)
{
	static const struct option own[] = {
		{ "trusted", no_argument, NULL, 't' },
		{ "interpose", no_argument, NULL, 'i' },
		{ "log", optional_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	const struct policy_cmd cmd = { "run", usage, own, "+til", take_option, r };
	struct policy_args pol = POLICY_ARGS_INIT;
	int rc;

	r->pol = pol;
	if ((rc = parse_env_defaults(r)))
		return rc;
	if ((rc = policy_getopt(&cmd, argc, argv, &r->pol)))
		return rc;
	if (optind >= argc)
		return tool_usage_err("run", "run: no PROG given");
	r->argv = argv + optind;
	r->name = r->argv[0];
	return 0;
}

/* Trusted for static programs (nothing else can filter them), the
 * library otherwise. */
static int choose_mode(struct run *r)
{
	int st = prog_is_static(r->path, &r->why);

	if (st == 1 && r->mode == MODE_INTERPOSE)
		return tool_usage_err("run", "run: %s is statically linked: LD_PRELOAD cannot "
				      "reach it; trusted mode (the default for static "
				      "programs) can", r->name);
	if (r->mode == MODE_AUTO)
		r->mode = st == 1 ? MODE_TRUSTED : MODE_INTERPOSE;
	if (r->mode == MODE_TRUSTED && r->policy->pending) {
		tool_err("run: %s: on_next_syscall: 1 cannot be deferred by a kernel filter "
			 "(trusted mode filters PROG from its first instruction); drop it, "
			 "or use --interpose", r->in.source);
		return EX_SF_POLICY;
	}
	return 0;
}

/* $SECFILTER_LIBRARY, else next to this binary (the build tree), else
 * ../lib relative to it (the installed layout). */
static char *find_library(void)
{
	static const char *const rel[] = { "/libsecfilter.so", "/../lib/libsecfilter.so" };
	const char *env = getenv("SECFILTER_LIBRARY");
	char exe[PATH_MAX], *slash, cand[PATH_MAX + 32];
	ssize_t n;
	unsigned i;

	if (env && *env) {
		char cwd[PATH_MAX];
		if (env[0] == '/')
			return xstrdup(env);
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		snprintf(cand, sizeof(cand), "%s/%s", cwd, env);
		return xstrdup(cand);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *dir;
		snprintf(cand, sizeof(cand), "%s%s", exe, rel[i]);
		if (access(cand, R_OK) != 0)
			continue;
		/* The directory canonical, the name kept: libsecfilter.so, the
		 * link to the SONAME's file, is what users see and preload. */
		*strrchr(cand, '/') = '\0';
		dir = realpath(cand, NULL);
		if (!dir)
			return NULL;
		snprintf(cand, sizeof(cand), "%s/libsecfilter.so", dir);
		free(dir);
		return xstrdup(cand);
	}
	return NULL;
}

/* The socket the library reports the tree's kills to: an abstract name no
 * one can guess before it is bound (run's pid and 64 random bits), which
 * nothing in the file system has to clean up.  Without one, run goes on:
 * it only cannot tell kills that PROG's status does not show. */
static void listen_for_kills(struct run *r)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned long long nonce;
	int one = 1, size = 1 << 20;
	size_t n;

	if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce)) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		nonce = (unsigned long long)t.tv_nsec * 2654435761u ^ (unsigned long long)t.tv_sec;
	}
	snprintf(r->sup_name, sizeof(r->sup_name), "secfilter-run-%d-%016llx", (int)getpid(),
		 nonce);
	n = strlen(r->sup_name);
	memcpy(sa.sun_path + 1, r->sup_name, n);
	r->sup = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->sup < 0 || setsockopt(r->sup, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(r->sup, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0) {
		tool_perr("run: warning: cannot listen for the processes the policy kills "
			  "(only %s's own status will show them)", r->name);
		if (r->sup >= 0)
			close(r->sup);
		r->sup = -1;
		r->sup_name[0] = '\0';
		return;
	}
	/* Room for many kills while run is not scheduled. */
	setsockopt(r->sup, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

/* The kernel's limit on one environment string (MAX_ARG_STRLEN). */
#define ENV_STRING_MAX (32 * 4096)

static int prepare_library(struct run *r)
{
	/* A policy that is not a regular file the library can read again
	 * travels in SECFILTER_POLICY, which execve refuses past this. */
	if (!r->in.path && sizeof("SECFILTER_POLICY=") + r->in.len > ENV_STRING_MAX) {
		tool_err("run: %s: the policy is too long to pass to %s in the environment "
			 "(%zu bytes; at most %zu): give it as a file with -p FILE",
			 r->in.source, r->name, r->in.len,
			 (size_t)ENV_STRING_MAX - sizeof("SECFILTER_POLICY="));
		return EX_SF_FAIL;
	}

	r->library = find_library();
	if (!r->library) {
		tool_err("run: cannot find libsecfilter.so next to secfilter or in ../lib; "
			 "set SECFILTER_LIBRARY");
		return EX_SF_FAIL;
	}
	/* LD_PRELOAD splits on both. */
	if (strpbrk(r->library, " :")) {
		tool_err("run: the library path '%s' has a space or colon, which "
			 "LD_PRELOAD cannot express", r->library);
		return EX_SF_FAIL;
	}
	if (pipe2(r->hs, O_CLOEXEC) < 0 || fcntl(r->hs[0], F_SETFL, O_NONBLOCK) < 0) {
		tool_perr("run: pipe");
		return EX_SF_FAIL;
	}
	listen_for_kills(r);
	return 0;
}

static int env_name_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

static char *env_entry(const char *name, const char *a, const char *sep, const char *b)
{
	size_t len = strlen(name) + 1 + strlen(a) + strlen(sep) + strlen(b) + 1;
	char *e = xmalloc(len);

	snprintf(e, len, "%s=%s%s%s", name, a, sep, b);
	return e;
}

/* Where the text's filters and Landlock rules were written (its source,
 * <command-line> for -e, rather than the SECFILTER_POLICY it travels
 * in), and, when the library is handed p's canonical text, their lines
 * and the filters' texts as written. */
static char *origins_entry(const struct sf_policy *p)
{
	size_t len = sf_policy_print_origins(p, NULL, 0);
	char *map = xmalloc(len + 1), *e;

	sf_policy_print_origins(p, map, len + 1);
	e = env_entry("SECFILTER_ORIGINS", map, "", "");
	free(map);
	return e;
}

/* PROG's environment in interposition mode: ours, with run's settings in
 * place of any inherited ones.  *own is the index of the first entry
 * allocated here (free_env frees from there). */
static char **interpose_env(const struct run *r, size_t *own)
{
	static const char *const drop[] = {
		"LD_PRELOAD", "SECFILTER_POLICY", "SECFILTER_POLICY_FILE",
		"SECFILTER_ACTION", "SECFILTER_MODE", "SECFILTER_HANDSHAKE",
		"SECFILTER_SUPERVISOR", "SECFILTER_ORIGINS", SF_LL_FACT_VAR,
	};
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0, k = 0, i;
	char **env, fd[16];

	while (environ[n])
		n++;
	env = xmalloc((n + 9) * sizeof(*env));
	for (i = 0; i < n; i++) {
		size_t d;
		for (d = 0; d < sizeof(drop) / sizeof(drop[0]); d++)
			if (env_name_is(environ[i], drop[d]))
				break;
		if (d == sizeof(drop) / sizeof(drop[0]))
			env[k++] = environ[i];
	}
	*own = k;
	env[k++] = env_entry("LD_PRELOAD", r->library, old && *old ? ":" : "",
			     old ? old : "");
	if (r->in.path)
		env[k++] = env_entry("SECFILTER_POLICY_FILE", r->in.path, "", "");
	else
		env[k++] = env_entry("SECFILTER_POLICY", r->in.text, "", "");
	if (!r->in.path && (r->policy->nfilters || r->policy->landlock) &&
	    sizeof("SECFILTER_ORIGINS=") + sf_policy_print_origins(r->policy, NULL, 0) <=
		    ENV_STRING_MAX)
		env[k++] = origins_entry(r->policy); /* or the text's own origins */
	if (r->log)
		env[k++] = env_entry("SECFILTER_ACTION", r->log == LOG_FULL ? "log-full" : "log", "", "");
	snprintf(fd, sizeof(fd), "%d", r->hs[1]);
	env[k++] = env_entry("SECFILTER_HANDSHAKE", fd, "", "");
	if (r->sup_name[0])
		env[k++] = env_entry("SECFILTER_SUPERVISOR", r->sup_name, "", "");
	/* the child enters every layer before its exec: the library in PROG
	 * must not stack them a second time */
	if (r->ll.n)
		env[k++] = landlock_fact(r->policy);
	env[k] = NULL;
	return env;
}

static void free_env(char **env, size_t own)
{
	size_t i;

	if (!env)
		return;
	for (i = own; env[i]; i++)
		free(env[i]);
	free(env);
}

/* Whether /proc/PID names our own children: not when secfilter runs in
 * a PID namespace under a /proc mounted for another one. */
static int proc_is_ours(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10) == (long)getpid();
}

/* The name of the dead (not yet reaped) process: PROG may have exec'd
 * another program since.  Falls back to the name the kernel gives the
 * file exec'd (its basename, cut to 15 bytes). */
static void dead_comm(const struct run *r, pid_t pid, char *comm, size_t cap)
{
	const char *base = strrchr(r->path, '/');
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = proc_is_ours() ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, comm, cap - 1);
		close(fd);
	}
	if (n > 0) {
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		return;
	}
	snprintf(comm, cap < 16 ? cap : 16, "%s", base ? base + 1 : r->path);
}

static void add_kill(struct run *r, pid_t pid, long nr, const char *comm)
{
	size_t i;

	for (i = 0; i < r->nkills; i++)
		if (r->kills[i].pid == pid) /* two threads reported at once */
			return;
	r->kills = xgrow(r->kills, &r->kills_cap, r->nkills, sizeof(*r->kills), 16);
	r->kills[r->nkills].pid = pid;
	r->kills[r->nkills].nr = nr;
	snprintf(r->kills[r->nkills].comm, sizeof(r->kills[0].comm), "%s", comm);
	r->nkills++;
}

/* Reads what the library sent, the sender's pid from the kernel:
 * "kill NR COMM\n" right before the policy kills it (followed by its
 * report when it could not write it), and in log mode,
 * when it exits or executes another program, "log NR DECISION COMM\n"
 * and the observation of those calls (sf_obs_format), and "landlock NR
 * CALLS COMM\n" and the add: rule of a kind of Landlock denial. */
static void drain_kills(struct run *r)
{
	char buf[16384], ctl[CMSG_SPACE(sizeof(struct ucred))], comm[17];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;
	pid_t pid;
	long nr;
	unsigned long long calls;
	int d, used;

	while (r->sup >= 0) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		n = recvmsg(r->sup, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		buf[n] = '\0';
		pid = 0;
		used = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
				struct ucred uc;
				memcpy(&uc, CMSG_DATA(cm), sizeof(uc));
				pid = uc.pid;
			}
		/* pid 0: a sender outside our PID namespace. */
		if (pid > 0 && sscanf(buf, "kill %ld %16[^\n]\n%n", &nr, comm, &used) == 2) {
			add_kill(r, pid, nr, comm);
			/* the report the process could not write */
			if (used > 0 && used < n)
				treelog_write(&r->tl, buf + used, (size_t)(n - used));
		} else if (pid > 0 && sscanf(buf, "log %ld %d %16[^\n]\n%n", &nr, &d, comm, &used) == 3) {
			struct sf_obs o;
			if (sf_obs_parse(&o, buf + used, (size_t)(n - used)) == 0)
				treelog_counted(&r->tl, nr, d, comm, &o);
		} else if (pid > 0 && sscanf(buf, "landlock %ld %llu %16[^\n]\n%n", &nr, &calls, comm,
					    &used) == 3 && used > 0 && used < n) {
			/* log mode: a kind of Landlock denial, reported by the
			 * library already: its rule for the summary */
			treelog_landlock(&r->tl, buf + used, comm, calls);
		}
	}
}

/* "secfilter: 2 processes killed by the policy: ls[1234] sys_openat, ..."
 * when another process than PROG was killed: PROG's own death is in its
 * status and in its report line already. */
static void report_kills(const struct run *r)
{
	enum { SHOWN = 10 };
	size_t i;

	if (!r->nkills || (r->nkills == 1 && r->kills[0].pid == r->pid))
		return;
	fprintf(stderr, "secfilter: %zu process%s killed by the policy: ", r->nkills,
		r->nkills == 1 ? "" : "es");
	for (i = 0; i < r->nkills && i < SHOWN; i++) {
		const struct kill *k = &r->kills[i];
		const struct sf_syscall *sc = k->nr >= 0 ? sf_syscall_by_nr(k->nr) : NULL;

		fprintf(stderr, "%s%s[%d] %s", i ? ", " : "", k->comm, (int)k->pid,
			sc ? sc->entry : k->nr >= 0 ? "sys_ni_syscall" : "(system call unknown)");
	}
	if (r->nkills > SHOWN)
		fprintf(stderr, ", and %zu more", r->nkills - SHOWN);
	fputc('\n', stderr);
}

static void print_blocked(const struct seccomp_record *rec, pid_t pid)
{
	const struct sf_syscall *sc = NULL;
	const char *what = NULL;

	if (rec->arch != AUDIT_ARCH_X86_64)
		what = "not the x86-64 ABI";
	else if (rec->syscall & 0x40000000)
		what = "x32 ABI";
	else if (!(sc = sf_syscall_by_nr(rec->syscall)))
		what = "unknown";
	if (sc)
		fprintf(stderr, "%s[%d]: system call %ld (sys_%s) blocked at ip:%lx\n",
			rec->comm, (int)pid, rec->syscall, sc->name, rec->ip);
	else
		fprintf(stderr, "%s[%d]: system call %ld (%s) blocked at ip:%lx\n",
			rec->comm, (int)pid, rec->syscall, what, rec->ip);
}

/* PROG died of SIGSYS: name the syscall from the kernel's audit record, or
 * say why that is not possible. */
static void report_sigsys(struct run *r, pid_t pid, const char *comm)
{
	struct seccomp_record rec;
	int e = r->kmsg;

	/* The policy's own SIGSYS, which the kernel does not log (nor does
	 * the library, beyond its report): no record to wait for. */
	if (r->policy && r->policy->dflt == SF_ACTION_TRAP) {
		fprintf(stderr, "%s[%d]: killed by signal %d (SIGSYS): sent by the policy's "
			"`default: trap`, which the program did not handle\n", comm, (int)pid,
			SIGSYS);
		return;
	}
	if (r->kmsg >= 0) {
		/* In a PID namespace the record has a pid we never saw: the
		 * name has to do (the log was opened when PROG started). */
		e = kmsg_find_seccomp(r->kmsg, kmsg_pids_match() ? pid : 0, comm, SIGSYS,
				      1000, &rec);
		if (e == 0) {
			print_blocked(&rec, pid);
			add_kill(r, pid, rec.arch == AUDIT_ARCH_X86_64 ? rec.syscall : -1,
				 rec.comm);
			return;
		}
	}
	add_kill(r, pid, -1, comm);
	if (e == -ETIMEDOUT)
		fprintf(stderr, "%s[%d]: killed by signal %d (SIGSYS): a kernel filter blocked a "
			"system call; the kernel log has no audit record of which "
			"(kernel messages are rate-limited)\n", comm, (int)pid, SIGSYS);
	else
		fprintf(stderr, "%s[%d]: killed by signal %d (SIGSYS): a kernel filter blocked a "
			"system call; which one is in the kernel's audit log, unreadable "
			"here (/dev/kmsg: %s)\n", comm, (int)pid, SIGSYS, strerror(-e));
}

/* Trusted mode: the policy as a kernel filter, compiled before anything
 * starts.  run listens to it where it can (listen.h): the filter then
 * sends kills and logs to run.  0 or an exit status. */
static int compile_policy(struct run *r)
{
	uint32_t action = r->log ? SECCOMP_RET_LOG : SECCOMP_RET_KILL_PROCESS;
	struct sf_error err;
	int rc;

	if (r->listen)
		action = r->log ? SF_BPF_NOTIFY_LOG : SECCOMP_RET_USER_NOTIF;
	memset(&err, 0, sizeof(err));
	if (!r->prog)
		r->prog = xmalloc(SF_BPF_MAX * sizeof(*r->prog));
	rc = sf_bpf_compile(r->policy, action, r->prog, SF_BPF_MAX, &r->prog_len, &err);
	if (rc == 0)
		return 0;
	tool_err("run: %s: %s", r->in.source, err.text[0] ? err.text : strerror(-rc));
	return rc == -E2BIG ? EX_SF_POLICY : EX_SF_FAIL;
}

/* The listener's fd is PROG's, made by its seccomp call: run takes a
 * copy, and PROG's is closed before any of PROG's code runs -- a program
 * holding it could answer "continue" to its own denied calls.  0, or an
 * exit status (PROG is then killed by the caller). */
static int take_listener(struct run *r, int child_fd, int *pending_sig)
{
	int pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	long c;

	r->lis.fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	if (pidfd >= 0)
		close(pidfd);
	if (r->lis.fd < 0) {
		tool_perr("run: cannot take the kernel filter's listener from %s", r->name);
		return EX_SF_FAIL;
	}
	fcntl(r->lis.fd, F_SETFD, FD_CLOEXEC);
	c = trace_inject_close(r->pid, child_fd, r->lis.fd, pending_sig);
	if (c != 0) {
		errno = c < 0 ? (int)-c : EIO;
		tool_perr("run: cannot close the kernel filter's listener in %s", r->name);
		return EX_SF_FAIL;
	}
	return 0;
}

/* What arm_trusted and verify_interposed return when PROG ended before
 * they were done (*status says how). */
#define PROG_ENDED (-1)

/* From PROG's exec stop, runs it on to addr (where says what that is),
 * read from what: 0 when it could not be (errno says why).  0 once
 * there, PROG_ENDED, or an exit status. */
static int stop_at(struct run *r, unsigned long addr, const char *what, const char *where,
		   int *status)
{
	int rc;

	if (!addr) {
		tool_perr("run: cannot read %s of %s", what, r->name);
		return EX_SF_FAIL;
	}
	rc = trace_run_to(r->pid, addr, status);
	if (rc == 1)
		return PROG_ENDED;
	if (rc != 0) {
		tool_perr("run: cannot stop %s at %s", r->name, where);
		return EX_SF_FAIL;
	}
	return 0;
}

/* Trusted mode, at PROG's exec stop: the filter goes in at the first
 * instruction of the new image.  0, PROG_ENDED, or an exit status. */
static int arm_trusted(struct run *r, int *status, int *pending_sig)
{
	long ret;
	int rc = stop_at(r, trace_rip(r->pid), "the registers", "its first instruction", status);

	if (rc)
		return rc;
	ret = trace_inject_seccomp(r->pid, r->prog, r->prog_len,
				   r->listen ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, pending_sig);
	if (r->listen && ret == -EBUSY) {
		/* a filter above ours has a listener already (one run inside
		 * another): the kernel alone, then */
		r->listen = 0;
		if ((rc = compile_policy(r)))
			return rc;
		ret = trace_inject_seccomp(r->pid, r->prog, r->prog_len, 0, pending_sig);
	}
	if (ret < 0) {
		errno = (int)-ret;
		tool_perr("run: cannot install the kernel filter in %s", r->name);
		return EX_SF_FAIL;
	}
	if (r->listen)
		return take_listener(r, (int)ret, pending_sig);
	return 0;
}

/* The handshake pipe holds one "ok PID\n" from each process that ran the
 * library's constructor with SECFILTER_HANDSHAKE set: PROG, and any
 * process forked by a library constructor that ran before ours.  1 if
 * PROG (pid) answered, 0 if not, -1 if anything else is there. */
static int handshakes(int fd, pid_t pid)
{
	char buf[1024], *p, *end, *nl;
	ssize_t n;
	size_t len = 0;
	int mine = 0;
	long v;

	while (len < sizeof(buf) - 1 &&
	       ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	buf[len] = '\0';
	for (p = buf; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!nl || strncmp(p, "ok ", 3) != 0 || p[3] < '1' || p[3] > '9')
			return -1;
		errno = 0;
		v = strtol(p + 3, &end, 10);
		if (errno || end != nl)
			return -1;
		if (v == pid)
			mine = 1;
	}
	return mine;
}

/* Interposition mode, at PROG's exec stop: PROG may reach its entry point
 * only with the library enforcing.  0, PROG_ENDED, or an exit status. */
static int verify_interposed(struct run *r, int *status)
{
	int rc = stop_at(r, trace_auxv(r->pid, AT_ENTRY), "the entry point", "its entry point",
			 status);

	if (rc)
		return rc;
	rc = handshakes(r->hs[0], r->pid);
	if (rc == 1)
		return 0;
	if (rc < 0) {
		tool_err("run: unexpected data on the handshake pipe of %s; not running it",
			 r->name);
		return EX_SF_FAIL;
	}
	tool_err("run: the library %s was not loaded into %s; not running it unfiltered%s%s%s",
		 r->library, r->name, r->why ? " (" : "", r->why ? r->why : "",
		 r->why ? ")" : "");
	return EX_SF_FAIL;
}

/* PROG's exec failed with EACCES.  When the policy's fs. rules do not
 * grant a file the kernel opens to run it (PROG, its #! interpreters, its
 * loader) execute and read, that is why: reported as the library reports
 * an exec it sees denied, by the process that made it (run's child), the
 * first such file named, the add: line granting the later ones denied the
 * same right as well. */
static void exec_denied_by_landlock(struct run *r)
{
	const struct sf_landlock *ll = r->policy->landlock;
	char *files[8], real[PATH_MAX], first[PATH_MAX], more[4 * PATH_MAX];
	char text[3 * PATH_MAX + 512], fix[5 * PATH_MAX + 64];
	struct sf_ll_denial d = { "secfilter", r->pid, SYS_execve, NULL, first, 0, 0, 0, NULL, NULL };
	const struct sf_ll_rule *rule;
	uint64_t right;
	size_t used = 0;
	int n, i;

	if (!ll)
		return;
	n = prog_exec_chain(r->path, files, 8);
	for (i = 0; i < n; i++) {
		if (!realpath(files[i], real))
			continue;
		/* the first right of the exec's the layers deny here */
		for (right = 1; right <= SF_FS_EXEC_NEED; right <<= 1)
			if ((right & SF_FS_EXEC_NEED) &&
			    sf_ll_denier(ll, right, real, strlen(real), 0, &rule) >= 0)
				break;
		if (right > SF_FS_EXEC_NEED)
			continue;
		if (!d.right) {
			snprintf(first, sizeof first, "%s", real);
			d.given = files[i];
			d.at_len = strlen(first);
			d.right = right;
			d.exec = i ? r->path : NULL;
		} else if (right == d.right && used + strlen(real) + 2 < sizeof more) {
			used += (size_t)snprintf(more + used, sizeof more - used, "%s%s",
						 used ? " " : "", real);
		}
	}
	d.more = used ? more : NULL;
	if (d.right) {
		struct sf_out o = { text, sizeof text, 0 }, fo = { fix, sizeof fix, 0 };

		if (sf_ll_report(&o, ll, &d) && sf_out_end(&o) < sizeof text &&
		    sf_ll_fix(&fo, ll, &d) && sf_out_end(&fo) < sizeof fix &&
		    treelog_landlock(&r->tl, fix, d.comm, 1))
			treelog_write(&r->tl, text, o.len);
	}
	for (i = 0; i < n; i++)
		free(files[i]);
}

/* PROG did not get to run: say why in execvp's terms. */
static int spawn_failed(struct run *r, int errfd, int status)
{
	struct spawn_fail f;

	trace_spawn_failure(errfd, &f);
	errno = f.err;
	if (f.stage == SPAWN_EXEC) {
		/* PROG was there a moment ago: what is missing is the program
		 * loader or the #! interpreter it names. */
		if (f.err == EACCES) {
			exec_denied_by_landlock(r);
			errno = f.err;
		}
		if (f.err == ENOENT && access(r->path, F_OK) == 0)
			tool_err("run: %s: its interpreter (ELF loader or #! line) was not found",
				 r->name);
		else
			tool_perr("run: %s", r->name);
		return f.err == ENOENT ? EX_SF_NOTFOUND : EX_SF_NOEXEC;
	}
	if (f.stage == SPAWN_SETUP) {
		tool_perr("run: cannot prepare %s", r->name);
		return EX_SF_FAIL;
	}
	return status_to_exit(status); /* a forwarded signal killed it */
}

/* Until PROG has exited, reads the kills the library reports as they
 * come (the socket's queue is not endless) and answers the kernel
 * filter's notifications.  Without a pidfd (before Linux 5.3) the queue is
 * read once PROG is gone. */
static void await_exit(struct run *r)
{
	struct pollfd p[4];
	int pidfd;

	if (r->sup < 0 && r->lis.fd < 0 && r->lla.fd < 0)
		return;
	pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	if (pidfd < 0)
		return;
	p[0].fd = pidfd;
	p[1].fd = r->sup;
	p[2].fd = r->lis.fd;
	p[3].fd = r->lla.fd;
	p[0].events = p[1].events = p[2].events = p[3].events = POLLIN;
	for (;;) {
		/* a process given SIGSYS is looked at again until it is gone */
		int n = poll(p, 4, listen_reap(&r->lis, 0) ? 100 : -1);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (p[1].revents & POLLIN))
			drain_kills(r);
		if (n > 0 && (p[2].revents & POLLIN))
			listen_serve(&r->lis, 0);
		if (n > 0 && (p[3].revents & POLLIN))
			llaudit_read(&r->lla);
		if (n > 0 && p[0].revents)
			break;
	}
	close(pidfd);
}

/* PROG is gone: what its tree asked meanwhile is answered, and the
 * processes given SIGSYS get their time to die. */
static void finish_listening(struct run *r)
{
	long long waited = 0;
	size_t i;

	if (r->lis.fd < 0)
		return;
	listen_serve(&r->lis, 0);
	while (listen_reap(&r->lis, waited >= 2000) && waited < 4000) {
		listen_serve(&r->lis, 50);
		waited += 50;
	}
	for (i = 0; i < r->lis.nkills; i++)
		add_kill(r, r->lis.kills[i].pid, r->lis.kills[i].nr, r->lis.kills[i].comm);
}

static int killed_by_listener(const struct run *r, pid_t pid)
{
	size_t i;

	for (i = 0; i < r->lis.nkills; i++)
		if (r->lis.kills[i].pid == pid)
			return 1;
	return 0;
}

static int wait_prog(struct run *r)
{
	char comm[64] = "";
	siginfo_t si;
	int st;

	await_exit(r);
	/* Waited for without reaping first, so that a SIGSYS death can be
	 * reported under the name of the program that died. */
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			tool_perr("run: waitid");
			return EX_SF_FAIL;
		}
	/* Once reaped, the pid may be another process's: no more
	 * forwarding to it. */
	forward_signals_to(0);
	if (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)
		if (si.si_status == SIGSYS)
			dead_comm(r, r->pid, comm, sizeof(comm));
	if (wait_retry(r->pid, &st, 0) < 0) {
		tool_perr("run: waitpid");
		return EX_SF_FAIL;
	}
	/* the listener's kill was reported in full already */
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS && !killed_by_listener(r, r->pid))
		report_sigsys(r, r->pid, comm);
	/* Whatever a process of the tree sent before PROG's exit is queued
	 * by now. */
	drain_kills(r);
	finish_listening(r);
	llaudit_finish(&r->lla);
	report_kills(r);
	treelog_summary(&r->tl);
	if (status_to_exit(st) != 0)
		llaudit_say_unseen(&r->lla);
	/* PROG exited 0, so whoever was killed was another process. */
	if (status_to_exit(st) == 0 && r->nkills)
		return EX_SF_TREE_KILLED;
	return status_to_exit(st);
}

static void kill_prog(struct run *r)
{
	int st;

	kill(r->pid, SIGKILL);
	wait_retry(r->pid, &st, 0);
}

static int start(struct run *r)
{
	struct spawn sp = { r->path, r->argv, environ, 1, -1, 0, NULL, NULL };
	char **env = NULL;
	size_t own = 0;
	int errfd, rc, st = 0, sig = 0;

	if (r->mode == MODE_INTERPOSE) {
		sp.envp = env = interpose_env(r, &own);
		sp.keep_fd = r->hs[1];
	}
	if (r->ll.n) {
		sp.before_exec = landlock_enter;
		sp.before_exec_ctx = &r->ll;
	}
	r->pid = trace_spawn(&sp, &errfd);
	r->lla.rec.creator = r->pid; /* who enters our layers: their domains are ours */
	landlock_release(&r->ll);
	free_env(env, own);
	if (r->mode == MODE_INTERPOSE)
		close(r->hs[1]);
	if (r->pid < 0) {
		tool_perr("run: cannot start %s", r->name);
		return EX_SF_FAIL;
	}
	forward_signals_to(r->pid);
	rc = trace_until_exec(r->pid, &st);
	if (rc == 1) {
		rc = spawn_failed(r, errfd, st);
		close(errfd);
		return rc;
	}
	close(errfd);
	if (rc < 0) {
		tool_perr("run: tracing %s", r->name);
		kill_prog(r);
		return EX_SF_FAIL;
	}
	/* Both modes work on x86-64 registers, auxv and syscalls; no
	 * policy can let a 32-bit program make a single call anyway. */
	if ((rc = trace_is_x86_64(r->pid)) <= 0) {
		if (rc < 0)
			tool_perr("run: cannot read the registers of %s", r->name);
		else
			tool_err("run: %s is not an x86-64 program; secfilter filters the x86-64 "
				 "system call ABI only", r->name);
		kill_prog(r);
		return rc < 0 ? EX_SF_FAIL : EX_SF_NOEXEC;
	}
	rc = r->mode == MODE_TRUSTED ? arm_trusted(r, &st, &sig) : verify_interposed(r, &st);
	if (rc == PROG_ENDED) /* before its own code ran (the library refused?) */
		return status_to_exit(st);
	if (rc != 0 || ptrace(PTRACE_DETACH, r->pid, 0, sig) < 0) {
		if (rc == 0)
			tool_perr("run: cannot let %s go", r->name);
		kill_prog(r);
		return rc ? rc : EX_SF_FAIL;
	}
	return wait_prog(r);
}

/* Everything before PROG starts: options, policy, PROG, mode.  0 or an
 * exit status. */
static int prepare(struct run *r, int argc, char **argv)
{
	int rc;

	if ((rc = parse_args(r, argc, argv)))
		return rc;
	if ((rc = policy_in_load(&r->in, "run", r->pol.file, r->pol.expr, r->pol.syntax)))
		return rc;
	/* A file's rules cite it by its absolute path, as the library in
	 * PROG's tree loads it: run's own reports (--trusted) cite it as the
	 * library's do, whatever the working directory. */
	r->in.cite = r->in.path;
	if ((rc = policy_in_parse(&r->in, &r->policy)))
		return rc;
	policy_in_for_library(&r->in, r->policy);
	rc = resolve_prog(r->name, &r->path);
	if (rc) {
		tool_perr("run: %s", r->name);
		return rc;
	}
	if (prog_needs_shell(r->path)) {
		r->script = r->path;
		r->path = xstrdup("/bin/sh");
		r->argv = r->sh_argv = shell_argv(r->script, r->argv);
	}
	if ((rc = choose_mode(r)))
		return rc;
	if (r->mode == MODE_INTERPOSE && (rc = prepare_library(r)))
		return rc;
	/* Landlock is in force before PROG's first instruction, in both
	 * modes: entered by the child before its exec (the exec itself is
	 * then checked: the policy must let PROG and its loader run). */
	if ((rc = landlock_prepare(r->policy, r->mode == MODE_INTERPOSE ? r->library : NULL,
				   &r->ll)))
		return rc;
	if (r->mode == MODE_TRUSTED) {
		r->listen = listen_possible(r->policy, r->log);
		if ((rc = compile_policy(r)))
			return rc;
	}
	if (treelog_init(&r->tl, r->policy, r->log) < 0)
		return EX_SF_FAIL;
	r->lis.fd = -1;
	r->lis.proc_ok = proc_is_ours();
	r->lis.log = r->log;
	r->lis.p = r->policy;
	r->lis.tl = &r->tl;
	if (r->mode == MODE_TRUSTED)
		llaudit_open(&r->lla, r->policy->landlock, &r->tl);
	return 0;
}

static void release(struct run *r)
{
	size_t i;

	landlock_release(&r->ll);
	llaudit_close(&r->lla);
	if (r->hs[0] >= 0)
		close(r->hs[0]);
	if (r->kmsg >= 0)
		close(r->kmsg);
	if (r->sup >= 0)
		close(r->sup);
	if (r->lis.fd >= 0)
		close(r->lis.fd);
	for (i = 0; i < r->lis.nkills; i++)
		if (r->lis.kills[i].pidfd >= 0)
			close(r->lis.kills[i].pidfd);
	free(r->lis.kills);
	treelog_free(&r->tl);
	free(r->kills);
	if (r->policy)
		sf_policy_free(r->policy);
	policy_in_free(&r->in);
	free(r->prog);
	free(r->path);
	free(r->script);
	free(r->sh_argv);
	free(r->library);
}

int cmd_run(int argc, char **argv)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.hs[0] = r.hs[1] = -1;
	r.kmsg = -1;
	r.sup = -1;
	r.lis.fd = -1;
	r.lla.fd = -1;
	rc = prepare(&r, argc, argv);
	if (rc == 0) {
		/* Opened before PROG starts, at the log's end: only records
		 * of this run are read. */
		r.kmsg = kmsg_open();
		rc = start(&r);
	}
	release(&r);
	return rc;
}
