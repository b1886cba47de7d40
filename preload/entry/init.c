/* Starting enforcement.  Interposition: the constructor reads the settings
 * and the policy, applies it and arms dispatch before main.  Trusted mode:
 * the same, from la_version when rtld loads the library as an audit module
 * (audit.c), before any code of the program; the constructor of a copy
 * preloaded without that refuses.  With no policy in the environment the
 * library stays inert.  Any error is printed and the process exits with
 * 125 before the program runs: a program asked to be filtered never runs
 * unfiltered. */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "mem.h"
#include "entry.h"
#include "notify.h"

struct env_in {
	const char *policy, *policy_file, *action, *log, *mode, *handshake, *supervisor, *comm,
		*origins;
	const char *landlock; /* the layers entered already (landlock.c) */
	const char *audit; /* LD_AUDIT's value, if set */
	const char *rewrite; /* for the rewriter's settings (rewrite.c) */
	const char *sigmask; /* SF_SIGMASK_VAR: set by the exec that started us */
};

/* The value of the variable NAME into slot, when entry sets it (the
 * name's length known here: a scan of every entry of every start). */
#define take(entry, name, slot) \
	(sf_startswith(entry, name "=") ? ((slot) = (entry) + sizeof name, 1) : 0)

static void read_env(struct env_in *e, char **env)
{
	char **ep;

	sf_memset(e, 0, sizeof *e);
	for (ep = env; ep && *ep; ep++) {
		const char *s = *ep;
		if (s[0] == 'L' && sf_startswith(s, "LD_AUDIT="))
			e->audit = s + 9;
		if (s[0] != 'S' || !sf_startswith(s, "SECFILTER_"))
			continue;
		s += sizeof "SECFILTER_" - 1; /* an exec'd image has six of them */
		(void)(take(s, "POLICY", e->policy) || take(s, "POLICY_FILE", e->policy_file) ||
		       take(s, "ACTION", e->action) || take(s, "LOG", e->log) ||
		       take(s, "MODE", e->mode) || take(s, "HANDSHAKE", e->handshake) ||
		       take(s, "COMM", e->comm) || take(s, "SUPERVISOR", e->supervisor) ||
		       take(s, "ORIGINS", e->origins) || take(s, "REWRITE", e->rewrite) ||
		       take(s, "LANDLOCK", e->landlock) || /* SF_LL_FACT_VAR */
		       take(s, "SIGMASK", e->sigmask)); /* SF_SIGMASK_VAR */
	}
}

static char settings_msg[512] SF_COLD_BSS; /* only for a bad setting */

static int setting_error(const char *var, const char *expected, const char *got)
{
	struct sf_buf b = { settings_msg, 0, sizeof settings_msg };

	sf_put_list(&b, (const char *const[]){ "secfilter: ", var, ": expected ", expected,
					       ", got '", got, "'", NULL });
	return -1;
}

/* "NAME=value" into dst (cap bytes); -1 when it does not fit. */
static int put_env(char *dst, size_t cap, const char *name, const char *value)
{
	struct sf_buf b = { dst, 0, cap };

	sf_puts(&b, name);
	sf_puts(&b, value);
	return sf_strlen(name) + sf_strlen(value) < cap ? 0 : -1;
}

/* a, b and c, allocated; the process cannot start without it. */
static const char *dup_str(const char *a, const char *b, const char *c)
{
	size_t na = sf_strlen(a), nb = sf_strlen(b), nc = sf_strlen(c);
	char *s = sf_mem_alloc(na + nb + nc + 1);

	if (!s)
		sf_fatal("secfilter: out of memory");
	sf_memcpy(s, a, na);
	sf_memcpy(s + na, b, nb);
	sf_memcpy(s + na + nb, c, nc + 1);
	return s;
}

#define SF_PREFIX_LOG "SECFILTER_LOG="
#define SF_PREFIX_SUPERVISOR "SECFILTER_SUPERVISOR="
#define SF_PREFIX_AUDIT "LD_AUDIT="

/* The supervisor's socket name, as run makes them: up to
 * SF_SUPERVISOR_MAX letters, digits and '-'.  An empty value is unset. */
static int parse_supervisor(const char *name)
{
	const char *s;

	sf_cfg.env_supervisor = NULL;
	sf_cfg.supervisor = NULL;
	if (!name || !*name)
		return 0;
	for (s = name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-') || s - name >= SF_SUPERVISOR_MAX)
			return setting_error("SECFILTER_SUPERVISOR",
					     "a socket name (letters, digits, '-'; at most 100)",
					     name);
	sf_cfg.env_supervisor = dup_str(SF_PREFIX_SUPERVISOR, name, "");
	sf_cfg.supervisor = sf_cfg.env_supervisor + sizeof SF_PREFIX_SUPERVISOR - 1;
	return 0;
}

/* Which of two words value is: 0 or 1, -1 for neither. */
static int one_of(const char *value, const char *w0, const char *w1)
{
	return sf_streq(value, w0) ? 0 : sf_streq(value, w1) ? 1 : -1;
}

/* Fills sf_cfg; -1 with settings_msg on a bad value.  Nothing in sf_cfg
 * points into the environment, which the program owns. */
static int parse_settings(const struct env_in *e)
{
	const char *action = e->action ? e->action : "kill";
	const char *log = e->log ? e->log : "stderr";
	const char *mode = e->mode ? e->mode : "interpose";
	int k;

	sf_cfg.log_full = sf_streq(action, "log-full");
	if ((k = one_of(action, "kill", sf_cfg.log_full ? "log-full" : "log")) < 0)
		return setting_error("SECFILTER_ACTION", "kill, log or log-full", e->action);
	sf_cfg.action = (enum sf_action)k; /* SF_ACT_KILL, SF_ACT_LOG */

	if (sf_streq(log, "stderr")) {
		sf_cfg.log = SF_LOG_STDERR;
	} else if (sf_streq(log, "syslog")) {
		sf_cfg.log = SF_LOG_SYSLOG;
	} else if (log[0] == '/') {
		sf_cfg.log = SF_LOG_FILE;
	} else {
		return setting_error("SECFILTER_LOG", "stderr, syslog or an absolute path", e->log);
	}
	if (sf_strlen(log) > 4096) { /* as the 4 KiB buffer it was had it */
		struct sf_buf b = { settings_msg, 0, sizeof settings_msg };
		sf_puts(&b, "secfilter: SECFILTER_LOG: expected a path shorter than 4096 "
			    "bytes, got one of ");
		sf_putu(&b, sf_strlen(log));
		return -1;
	}
	sf_cfg.env_log = dup_str(SF_PREFIX_LOG, log, "");
	sf_cfg.log_path = sf_cfg.env_log + sizeof SF_PREFIX_LOG - 1;

	if ((k = one_of(mode, "interpose", "trusted")) < 0) /* SF_MODE_INTERPOSE, SF_MODE_TRUSTED */
		return setting_error("SECFILTER_MODE", "interpose or trusted", e->mode);
	sf_cfg.mode = (enum sf_mode)k;
	/* Both values were just checked against short literals. */
	put_env(sf_cfg.env_action, sizeof sf_cfg.env_action, "SECFILTER_ACTION=", action);
	put_env(sf_cfg.env_mode, sizeof sf_cfg.env_mode, "SECFILTER_MODE=", mode);
	return parse_supervisor(e->supervisor);
}

static void file_error(const char *path, const char *what, long err)
{
	char msg[4200];
	struct sf_buf b = { msg, 0, sizeof msg };

	sf_put_list(&b, (const char *const[]){ "secfilter: SECFILTER_POLICY_FILE: ", what, " '",
					       path, "': ", sf_strerror((int)-err), NULL });
	sf_fatal(msg);
}

/* Reads up to one byte more than the limit, so the parser reports a text
 * that is too long with its own message. */
static char *read_policy_file(const char *path, size_t *len, size_t *cap)
{
	long fd = sf_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	char *buf;
	size_t n = 0;

	if (fd < 0)
		file_error(path, "cannot open", fd);
	*cap = SF_MAX_TEXT + 1;
	buf = sf_pages(*cap);
	if (!buf)
		file_error(path, "cannot read", -ENOMEM);
	while (n < *cap) {
		long r = sf_sys(SYS_read, fd, (long)(buf + n), (long)(*cap - n), 0, 0, 0);
		if (r == -EINTR)
			continue;
		if (r < 0)
			file_error(path, "cannot read", r);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	*len = n;
	return buf;
}

/* LD_PRELOAD may name the library relatively; exec needs a path that
 * still works from another directory.  The name is the loader's (objs.c):
 * dladdr would be the program's, if it exports one, and so would be the
 * library an exec'd image preloads. */
/* The file mapped at addr, from /proc/self/maps (absolute, as the kernel
 * names it), into buf; NULL if not found. */
static const char *mapped_file(uintptr_t addr, char *buf, size_t cap)
{
	size_t size = 256 << 10, n = 0;
	char *maps = sf_pages(size);
	const char *line, *found = NULL;
	long fd, r;

	if (!maps)
		return NULL;
	fd = sf_sys(SYS_openat, AT_FDCWD, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	while (fd >= 0 && n + 1 < size &&
	       (r = sf_sys(SYS_read, fd, (long)(maps + n), (long)(size - 1 - n), 0, 0, 0)) > 0)
		n += (size_t)r;
	if (fd >= 0)
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	maps[n] = '\0';
	for (line = maps; *line && !found; ) {
		const char *s = line, *path;
		uint64_t lo = sf_getx(&s), hi = (*s == '-' ? s++, sf_getx(&s) : 0);
		size_t k = 0;
		for (path = s; *path && *path != '\n' && *path != '/'; path++)
			;
		if (addr >= lo && addr < hi && *path == '/') {
			while (path[k] && path[k] != '\n' && k + 1 < cap) {
				buf[k] = path[k];
				k++;
			}
			buf[k] = '\0';
			found = buf;
		}
		while (*line && *line != '\n')
			line++;
		if (*line)
			line++;
	}
	sf_unpages(maps, size);
	return found;
}

/* The copy rtld loaded for LD_AUDIT is the file LD_AUDIT names when it
 * names one file, by an absolute path, under our name: rtld loads the
 * modules LD_AUDIT lists and nothing else, before any code of the program
 * runs.  Anything else (a list, a relative name) is left to the kernel's
 * word, /proc/self/maps: six calls and a 256 KiB buffer at every start. */
static const char *audit_self(const char *v)
{
	const char *s, *base = v;

	if (!v || v[0] != '/')
		return NULL;
	for (s = v; *s; s++)
		if (*s == ':' || *s == ' ')
			return NULL;
		else if (*s == '/')
			base = s + 1;
	return sf_our_name(base) ? v : NULL; /* the file's name only: one pass */
}

/* The rare paths, with buffers of their own (4 KiB on the common path's
 * frame made every start fault in more pages of stack). */
__attribute__((noinline)) static const char *audit_from_maps(void)
{
	char buf[4096];
	const char *name = mapped_file((uintptr_t)audit_from_maps, buf, sizeof buf);

	return name ? dup_str(name, "", "") : NULL;
}

__attribute__((noinline)) static const char *from_cwd(const char *name)
{
	char cwd[4096];

	if (sf_sys(SYS_getcwd, (long)cwd, sizeof cwd - 1, 0, 0, 0, 0) < 0)
		sf_fatal("secfilter: cannot resolve the library's path");
	return dup_str(cwd, "/", name);
}

/* audit: LD_AUDIT's value when this is the audit copy, else NULL. */
static void resolve_lib_path(const char *audit)
{
	const char *name = NULL;

	/* The copy rtld loads for LD_AUDIT is not on the program's list: the
	 * kernel names its file (before the filter), absolute. */
	if (audit && !(name = audit_self(audit)))
		name = audit_from_maps();
	else if (!audit)
		name = sf_obj_self();
	if (!name || !name[0])
		sf_fatal("secfilter: cannot find the library's own path");
	if (sf_cfg.mode == SF_MODE_TRUSTED && name[0] == '/') {
		/* one copy: the path is the variable's value */
		sf_cfg.env_audit = dup_str(SF_PREFIX_AUDIT, name, "");
		sf_cfg.lib_path = sf_cfg.env_audit + sizeof SF_PREFIX_AUDIT - 1;
		return;
	}
	sf_cfg.lib_path = name[0] == '/' ? dup_str(name, "", "") : from_cwd(name);
	if (sf_cfg.mode == SF_MODE_TRUSTED)
		sf_cfg.env_audit = dup_str(SF_PREFIX_AUDIT, sf_cfg.lib_path, "");
}

void sf_apply_error(const struct sf_error *err)
{
	size_t n = sf_strlen(err->text);

	sf_write_all(2, err->text, n);
	if (n == 0 || err->text[n - 1] != '\n')
		sf_write_all(2, "\n", 1);
	sf_sys(SYS_exit_group, 125, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

/* A warning of the policy's parse (filter/'s sf_diag: `in` on an
 * argument that is no flag word, a program that cannot exit), where
 * reports go; the errors are apply_error's. */
static void warn_at_load(void *ctx, int warning, const struct sf_error *e)
{
	size_t n = sf_strlen(e->text);

	(void)ctx;
	if (!warning || !n)
		return;
	sf_log_emit(e->text, n);
	if (e->text[n - 1] != '\n')
		sf_log_emit("\n", 1);
}

/* The policy's warnings are the user's to read once, in the first image:
 * not in one a filtered image exec'd (its parent hands on
 * SECFILTER_ORIGINS with the short form, every time; trusted mode's
 * images, which read the user's policy again, have inherited the filter),
 * nor under run (the handshake's), which printed them as it parsed the
 * policy itself. */
static int warns_at_load(const struct env_in *e)
{
	return !e->origins && !e->handshake;
}

/* *handed: 1 when the text and its origin map are a short form a parent
 * handed on (they are then handed on as they are: sf_publish_handed);
 * run's text, with its handshake, is the user's. */
static const struct sf_policy *load_policy(const struct env_in *e, int warn, int *handed)
{
	struct sf_policy *p = NULL;
	struct sf_diag diag = { .emit = warn_at_load };
	struct sf_error err;
	const char *text = e->policy, *source = "SECFILTER_POLICY";
	size_t len, cap = 0;
	char *buf = NULL;
	int r;

	if (e->policy_file) {
		buf = read_policy_file(e->policy_file, &len, &cap);
		text = buf;
		source = e->policy_file;
	} else {
		len = sf_strlen(text);
	}
	sf_memset(&err, 0, sizeof err);
	/* A file's name says its syntax: a minijail .policy file, an OCI
	 * .json profile, or secfilter's language (secfilter(7)). */
	r = sf_policy_apply_diag(NULL, source, e->policy_file ? SF_SRC_FILE : SF_SRC_TEXT,
				 e->policy_file ? sf_syntax_of(e->policy_file) : SF_SYNTAX_SECFILTER,
				 text, len, &p, &err, warn ? &diag : NULL);
	if (buf)
		sf_unpages(buf, cap);
	if (r < 0)
		sf_apply_error(&err);
	/* The text a parent handed on (its short form, or run's canonical
	 * text): its filters' origins are where the user wrote them.  A map
	 * that does not fit leaves the text's own. */
	*handed = 0;
	if (e->origins && !e->policy_file)
		*handed = sf_policy_set_origins(&p, e->origins) == 0 && !e->handshake && !p->pending;
	return p;
}

static void unblock_sigsys(void)
{
	uint64_t set = SF_SIGSYS_BIT;

	sf_sys(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&set, 0, 8, 0, 0);
}

/* The program's signal mask, SIGSYS unblocked: an image the library's
 * exec started (every signal blocked, trap/exec.c) gets the one its exec
 * was made with; any other keeps its own. */
static void program_mask(const char *hex)
{
	const char *end = hex;
	uint64_t m = hex ? sf_getx(&end) & ~SF_SIGSYS_BIT : 0;

	if (!hex || end == hex || *end)
		unblock_sigsys();
	else
		sf_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&m, 0, 8, 0, 0);
}

static void arm_or_die(void)
{
	int r = sf_arm();

	if (r == -EINVAL)
		sf_fatal("secfilter: this kernel has no Syscall User Dispatch "
			 "(PR_SET_SYSCALL_USER_DISPATCH): cannot enforce the policy; "
			 "use SECFILTER_MODE=trusted");
	if (r < 0)
		sf_fatal("secfilter: cannot arm Syscall User Dispatch");
}

static void handshake(const char *fdtext);

/* The constructor's scan of the environment, which the audit copy's
 * la_version, called right after it, reads again otherwise. */
static struct env_in boot_env SF_HOT;
static int boot_env_read SF_HOT;

/* Variables meant for this constructor only: not passed on. */
static void strip_env(const char *prefix)
{
	char **ep, **out;

	for (ep = out = sf_env_start; ep && *ep; ep++)
		if (**ep != *prefix || !sf_startswith(*ep, prefix))
			*out++ = *ep;
	if (out)
		*out = NULL;
}

/* Under the kernel filter the constructor could no longer write to the
 * handshake fd unless the policy allows it: the answer goes out between
 * the compilation (which can fail on a policy) and the load (which does
 * not fail in practice; if it does, the exit status 125 still tells).
 * An image exec'd in trusted mode has the guard already, and adds its
 * copy of the policy's filter only where the inherited one lets it. */
/* A filter of this very policy in force (the mark, trusted.c): the same
 * build compiled the same text, which took it then.  No text, no id: then
 * the program's hash, after compiling. */
static void boot_id(struct sf_prog *prog)
{
	static const char prefix[] = "SECFILTER_POLICY=";
	const char *env = sf_env_policy; /* p's short form after the prefix (api.c) */
	const char *text = env ? env + sizeof prefix - 1 : "";

	sf_trusted_boot_id(text, sf_strlen(text), prog);
	if (!env)
		prog->id = 0;
}

/* The mark's answer for prog's id, asked once per id: the start asks
 * about the same id for its Landlock layers and for its filter. */
static int mark_in_force(const struct sf_prog *prog)
{
	static uint64_t asked;
	static int answer;

	if (!prog->id || prog->id != asked) {
		answer = sf_trusted_in_force(prog);
		asked = prog->id;
	}
	return answer;
}

static int same_filter_inherited(void)
{
	struct sf_prog prog;

	boot_id(&prog);
	return mark_in_force(&prog);
}

/* An image exec'd by a process under LD_AUDIT alone inherits the
 * environment the program passed: the user's own text, not a short form
 * (no code of ours saw the exec).  When the filter in force is marked
 * with that very text's id (the first image's mark answers for both:
 * trusted.c), the image hands on the text as it is rather than print its
 * short form, whose id the mark answers too.  The kernel's answer, not
 * the environment's: a text no filter of ours was compiled from is
 * printed and asked about as before. */
static int own_text_in_force(const char *text)
{
	struct sf_prog prog;

	sf_trusted_boot_id(text, sf_strlen(text), &prog);
	return mark_in_force(&prog);
}

/* An exec'd image under a filter of the very text it was handed (the
 * mark confirmed its id: own_text_in_force): the kernel enforces that
 * text's program already, and its ancestor entered the text's Landlock
 * layers before installing it.  So nothing here needs the tree, and the
 * text is parsed at its first use (state/policy.c, sf_policy_now): a
 * report, the API, a copy handed the state.  What the start still does
 * is what does not need it: the settings, the handler through the
 * guard's stub, the state `show` reads (the text), SIGSYS unblocked
 * where the policy lets it (the mark says), the handshake.  A text whose
 * id the mark does not confirm (forged, or a file) takes the full way. */
static int boot_deferred(const struct env_in *e, const struct sf_ksigaction *old, int mark)
{
	resolve_lib_path(e->audit ? e->audit : "");
	sf_cfg.active = 1;
	if (sf_install_sigsys(old) < 0)
		sf_fatal("secfilter: cannot install the SIGSYS handler through the guard's stub");
	sf_kernel_on = 1;
	/* before anything asks sf_may; copies: the environment is the program's */
	sf_policy_defer(dup_str(e->policy, "", ""), e->origins ? dup_str(e->origins, "", "") : NULL);
	if (sf_publish_deferred(e->policy) < 0)
		sf_fatal("secfilter: out of memory");
	if (mark & SF_MARK_MAY_UNBLOCK)
		unblock_sigsys();
	if (e->handshake)
		handshake(e->handshake);
	return 1;
}

/* The id of the text the start read, for the mark, when it is not the
 * short form (whose id the mark has anyway). */
static uint64_t raw_text_id(const char *raw)
{
	static const char prefix[] = "SECFILTER_POLICY=";
	struct sf_prog prog;

	if (!raw || !sf_env_policy || sf_streq(raw, sf_env_policy + sizeof prefix - 1))
		return 0;
	sf_trusted_boot_id(raw, sf_strlen(raw), &prog);
	return prog.id;
}

/* raw: the SECFILTER_POLICY text the start read, NULL for a file.  The
 * first image's (an exec'd one defers, boot_deferred): not in the hot
 * text (hot.txt). */
__attribute__((noinline)) static void enforce_trusted(const struct sf_policy *p, const char *hs, int inherited,
			    const char *raw)
{
	struct sf_error err;
	struct sf_prog prog;

	boot_id(&prog);
	/* Nothing to add either where the inherited filter denies the calls
	 * that add one; its tree then has no mark (trusted.c) to ask. */
	if (inherited && (mark_in_force(&prog) || !sf_may(SYS_prctl, PR_SET_NO_NEW_PRIVS) ||
			  !sf_may(SYS_seccomp, SECCOMP_SET_MODE_FILTER))) {
		if (hs)
			handshake(hs);
		return;
	}
	if (sf_trusted_compile_boot(p, &prog, &err) < 0)
		sf_apply_error(&err);
	if (prog.id)
		prog.text_id = raw_text_id(raw);
	if (hs)
		handshake(hs);
	if (!inherited && sf_guard_install() < 0)
		sf_fatal("secfilter: cannot install the guard filter");
	if (sf_notify_load(&prog, p, &err) < 0)
		sf_apply_error(&err);
	sf_kernel_on = 1;
}

/* The tool's handshake: "ok PID\n" once enforcement is in place, then the
 * variable disappears so that the program's children do not repeat it.
 * The pid lets run tell its own child's answer from that of a process
 * forked by an earlier library constructor, which runs ours too. */
static void handshake(const char *fdtext)
{
	long fd = 0;
	const char *s;
	char msg[32];
	struct sf_buf b = { msg, 0, sizeof msg };

	for (s = fdtext; *s >= '0' && *s <= '9'; s++)
		fd = fd * 10 + (*s - '0');
	if (*s || s == fdtext)
		sf_fatal("secfilter: SECFILTER_HANDSHAKE: expected a file descriptor");
	sf_puts(&b, "ok ");
	sf_putu(&b, (uint64_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0));
	sf_putc(&b, '\n');
	sf_write_all((int)fd, msg, b.len);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	strip_env("SECFILTER_HANDSHAKE=");
}

/* The name the kernel would have given the process (exec.c): executed
 * by descriptor, it is named after the file's directory entry. */
static void set_comm(const char *comm)
{
	sf_sys(SYS_prctl, PR_SET_NAME, (long)comm, 0, 0, 0, 0);
	strip_env("SECFILTER_COMM=");
}

/* For secfilter_apply in a process that started without a policy. */
int sf_settings_from_env(const char **msg)
{
	struct env_in e;

	read_env(&e, sf_libc_bound() ? environ : sf_env_start);
	*msg = settings_msg;
	if (parse_settings(&e) < 0)
		return -1;
	resolve_lib_path(NULL);
	return 0;
}

/* Threads already running: started by the constructor of a library
 * initialized before this one.  They must arm like the others (they are
 * asked by a signal, see api.c), or their calls would go unchecked. */
static void arm_others_or_die(void)
{
	int r = sf_arm_all_threads();

	if (r == -EDEADLK)
		sf_fatal("secfilter: a thread started before the library (by another "
			 "library's constructor) blocks SIGSYS: it cannot be filtered");
	if (r < 0)
		sf_fatal("secfilter: cannot arm the threads started before the library");
}

/* The copies of the library outside the program's namespace (the one rtld
 * loads for LD_AUDIT) leave the work to la_version: they are not on the
 * loader's list of the program's objects (objs.c).  When that list could
 * not be found, this copy takes itself for the program's: the constructor
 * then fails closed on its own path. */
static int objs_ok SF_HOT;

static int in_base_namespace(void)
{
	return !objs_ok || sf_obj_self() != NULL;
}

/* audit: LD_AUDIT is set, yet no copy of this build took over from it (it
 * names another file or build, or rtld could not load it). */
static void need_audit(int audit)
{
	char msg[4096 + 400];
	struct sf_buf b = { msg, 0, sizeof msg };

	sf_puts(&b, "secfilter: SECFILTER_MODE=trusted through LD_PRELOAD would install the "
		    "filter after code of the program has run (its preinit array, its "
		    "libraries' constructors): load the library as an audit module, "
		    "LD_AUDIT=");
	sf_puts(&b, sf_str(sf_cfg.lib_path));
	sf_puts(&b, " (LD_PRELOAD may stay), or use `secfilter run --trusted`");
	if (audit)
		sf_puts(&b, "; LD_AUDIT is set, but names no loadable copy of this build");
	sf_fatal(msg);
}

/* Trusted mode, from la_version (audit.c): nothing of the program but its
 * executable's mapping exists yet.  Everything that needs a call the
 * policy may deny is done before the filter: reading the policy, the
 * guard page and the handler, the state `secfilter show` reads, the
 * handshake.  1 when this copy is now the authority; 0 when there is
 * nothing to do here (no policy, interposition, a policy deferred to the
 * next exec: the copy in the program's namespace sees to those). */
int sf_boot_trusted(void)
{
	struct sf_ksigaction old;
	struct env_in e;
	struct sf_policy *p;
	int inherited = 0, handed, r, mark;

	if (boot_env_read) /* by this copy's constructor, just before */
		e = boot_env;
	else
		read_env(&e, sf_env_start);
	if (!e.policy && !e.policy_file)
		return 0;
	if (e.policy && e.policy_file)
		sf_fatal("secfilter: SECFILTER_POLICY and SECFILTER_POLICY_FILE are both set");
	if (parse_settings(&e) < 0)
		sf_fatal(settings_msg);
	if (sf_cfg.mode == SF_MODE_TRUSTED && e.comm)
		set_comm(e.comm);
	if (sf_cfg.mode != SF_MODE_TRUSTED) {
		if (!sf_preloaded())
			sf_fatal("secfilter: SECFILTER_MODE=interpose (the default) needs the "
				 "library in LD_PRELOAD; LD_AUDIT loads it for "
				 "SECFILTER_MODE=trusted");
		return 0;
	}
	/* An image exec'd under trusted mode starts under the filter it
	 * inherited: the library's own optional calls then ask the policy
	 * first (the state `show` reads, the second copy of the filter), and
	 * the handler goes in before anything the policy could deny. */
	if (sf_sys(SYS_rt_sigaction, SIGSYS, 0, (long)&old, 8, 0, 0) == 0)
		inherited = sf_guard_inherited(&old);
	else
		sf_fatal("secfilter: cannot read SIGSYS's action");
	if (inherited && e.policy && !e.policy_file && (mark = own_text_in_force(e.policy)))
		return boot_deferred(&e, &old, mark);
	p = (struct sf_policy *)load_policy(&e, warns_at_load(&e) && !inherited, &handed);
	if (p->pending) {
		sf_policy_free(p);
		return 0;
	}
	resolve_lib_path(e.audit ? e.audit : "");
	sf_cfg.active = 1;
	if (!inherited)
		sf_log_check();
	if (sf_install_sigsys(&old) < 0)
		sf_fatal("secfilter: cannot install the SIGSYS handler through the guard's stub");
	sf_cur = p;
	sf_kernel_on = inherited;
	if (handed)
		r = sf_publish_handed(p, e.policy, e.origins);
	else if (inherited && e.policy && own_text_in_force(e.policy))
		r = sf_publish_handed(p, e.policy, NULL);
	else
		r = sf_publish(p);
	if (r < 0)
		sf_fatal("secfilter: out of memory");
	if (!inherited || sf_may(SYS_rt_sigprocmask, SIG_UNBLOCK))
		unblock_sigsys();
	/* Before the kernel filter, which may deny Landlock's calls.  The
	 * mark of this very policy says its ancestor entered all of its
	 * layers (it does so before its filter), and cannot be forged: it is
	 * the kernel's answer. */
	/* The first image's kills to a listener, forked before the Landlock
	 * layers: it reads the /proc files of the tree's processes to report
	 * a kill, which the policy's fs. rules need not grant. */
	if (!inherited)
		sf_notify_start(p);
	sf_ll_boot(p, e.landlock, inherited && same_filter_inherited());
	enforce_trusted(p, e.handshake, inherited, e.policy_file ? NULL : e.policy);
	return 1;
}

/* glibc passes a constructor the process's arguments: what objs.c needs
 * to find the loader (the auxv after them on the initial stack). */
__attribute__((constructor(101))) static void sf_init(int argc, char **argv, char **envp)
{
	struct env_in e;
	const struct sf_policy *p;
	int others, handed;

	sf_env_start = envp;
	objs_ok = sf_objs_init(argc, argv) == 0;
	if (!in_base_namespace()) {
		read_env(&boot_env, envp);
		boot_env_read = 1;
		sf_rw_env_value = boot_env.rewrite;
		sf_rw_env_scanned = 1;
		if (boot_env.audit)
			return; /* the audit copy: la_version's, with this scan */
	}
	/* libc's symbols, for the wrappers: none in the audit copy (its
	 * namespace's libc is not the program's, which is not loaded yet) */
	sf_objs_libc();
	if (sf_authority)
		return; /* trusted mode: handed everything at load (audit.c) */
	if (boot_env_read)
		e = boot_env;
	else
		read_env(&e, envp);
	sf_rw_env_value = e.rewrite;
	sf_rw_env_scanned = 1;
	if (!e.policy && !e.policy_file)
		return;
	if (e.policy && e.policy_file)
		sf_fatal("secfilter: SECFILTER_POLICY and SECFILTER_POLICY_FILE are both set");
	if (parse_settings(&e) < 0)
		sf_fatal(settings_msg);
	sf_log_check();
	if (e.comm)
		set_comm(e.comm);
	p = load_policy(&e, warns_at_load(&e), &handed);
	resolve_lib_path(NULL);
	if (sf_cfg.mode == SF_MODE_TRUSTED && !p->pending)
		need_audit(e.audit != NULL);
	sf_cfg.active = 1;
	if (sf_install_sigsys(NULL) < 0)
		sf_fatal("secfilter: cannot install the SIGSYS handler");
	sf_cur = p;
	if ((handed ? sf_publish_handed(p, e.policy, e.origins) : sf_publish(p)) < 0)
		sf_fatal("secfilter: out of memory");
	program_mask(e.sigmask);
	if (e.sigmask)
		strip_env(SF_SIGMASK_VAR "=");
	sf_ll_boot(p, e.landlock, 0);
	others = sf_other_threads();
	arm_or_die();
	if (others)
		arm_others_or_die();
	if (e.handshake)
		handshake(e.handshake);
}
