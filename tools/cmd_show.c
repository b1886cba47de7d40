/* secfilter show PID: the policy a process is filtered by, in canonical
 * form, as the library publishes it, and after it, as comments, how many
 * calls the policy answered with an errno.
 *
 * The library keeps the policy's text in its memory (its .bss, or an
 * anonymous mapping for a later or a longer one): a 32-byte
 * header (magic "secfilter-state", version, length, generation) and the
 * text: canonical in version 1, the policy's short form in version 2 (what
 * the library also hands exec'd images), which is parsed and printed
 * canonically here.  A new policy is a new mapping with a higher
 * generation.  The counts are in the library's .bss (preload/action.c): a 32-byte header (magic "secfilter-count", version
 * 1, the number of counters) and a 64-bit counter per syscall number, then
 * one for the numbers outside the table.  Where both are, the library
 * says in a record of its writable data (preload/api.c: magic
 * "secfilter-where", version 1, then the state's address and size and the
 * counts' address), which is found here among the process's file-backed
 * writable mappings (a library's data); a process with two copies of the
 * library (trusted mode's audit module and preloaded copy) has two
 * records, and the newest state wins.  All of it is read through
 * /proc/PID/mem, which the kernel opens only for the process's owner (if
 * the process is dumpable) or root: that is the access rule of SPEC §3.
 *
 * When the kernel refuses, the answer says which of its rules did, from
 * what /proc/PID/status shows of both sides: "not yours" (another user's
 * process, and no CAP_SYS_PTRACE), or yours but "not readable" (it holds
 * capabilities the reader lacks, or it is not dumpable), or refused to a
 * reader whom those rules let in (a security module's rule). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <pwd.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secfilter.h"

static const char usage[] =
	"Usage: secfilter show PID\n"
	"Print the current policy of process PID, which runs under the secfilter\n"
	"library, in canonical form (secfilter(7)), then as comments how many of\n"
	"its calls the policy answered with an error number (`return E').  Only\n"
	"the process's owner or root may read it.\n\n"
	"  -h, --help    show this help\n"
	"  -V, --version print the version\n\n"
	"Exit status: 0, 1 PID is not running under secfilter (or does not exist),\n"
	"2 usage, 125 the state cannot be read (permission denied, corrupt).\n";

#define WHERE_MAGIC "secfilter-where"
#define COUNTS_MAGIC "secfilter-count"
#define STATE_MAGIC "secfilter-state"
#define MAX_DATA (64 * 1024) /* of a mapping searched for the record */
#define STATE_CANONICAL 1 /* versions: the text as it is printed */
#define STATE_SHORT 2
#define MAX_STATES 8
#define READ_TRIES 3 /* the library may replace the mapping while we read */

struct state_hdr {
	char magic[16];
	uint32_t version;
	uint32_t length;
	uint64_t generation;
};

struct region {
	unsigned long start, end;
};

struct where {
	char magic[16];
	uint32_t version;
	uint32_t reserved;
	uint64_t state, state_size, counts;
};

/* The library's records in one writable mapping of a file (its data),
 * at 8-byte alignment, into states (n of max used) and *counts. */
static void search_data(int mem, const struct region *rg, struct region *states, int *n,
			int max, unsigned long *counts)
{
	static char buf[MAX_DATA];
	size_t len = rg->end - rg->start < MAX_DATA ? rg->end - rg->start : MAX_DATA;
	ssize_t got = pread(mem, buf, len, (off_t)rg->start);
	struct where w;
	size_t off;

	for (off = 0; got > 0 && off + sizeof w <= (size_t)got; off += 8) {
		if (memcmp(buf + off, WHERE_MAGIC, sizeof(WHERE_MAGIC)) != 0)
			continue;
		memcpy(&w, buf + off, sizeof w);
		if (w.version != 1)
			continue;
		if (w.state && w.state_size && *n < max) {
			states[*n].start = (unsigned long)w.state;
			states[*n].end = (unsigned long)(w.state + w.state_size);
			(*n)++;
		}
		if (w.counts && !*counts)
			*counts = (unsigned long)w.counts;
	}
}

/* The state mappings of pid that the library's records name, and the
 * counts' address (0 when none).  Returns how many states, or -errno for
 * the maps file. */
static int find_mappings(pid_t pid, int mem, struct region *out, int max,
			 unsigned long *counts)
{
	char path[64], perms[8], *line = NULL;
	size_t cap = 0;
	unsigned long inode;
	struct region rg;
	int n = 0;
	FILE *f;

	*counts = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* start-end perms offset dev inode path: a file's private writable
	 * data, as ld.so maps a library's */
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "%lx-%lx %7s %*x %*x:%*x %lu", &rg.start, &rg.end, perms,
			   &inode) == 4 && inode != 0 && strcmp(perms, "rw-p") == 0)
			search_data(mem, &rg, out, &n, max, counts);
	/* A process we may not inspect shows an empty maps file rather
	 * than failing the open on some kernels; /proc/PID/mem will say. */
	free(line);
	fclose(f);
	return n;
}

/* Reads one mapping's header; 0 when it is a valid state. */
static int read_hdr(int mem, const struct region *rg, struct state_hdr *h)
{
	if (pread(mem, h, sizeof(*h), (off_t)rg->start) != (ssize_t)sizeof(*h))
		return -1;
	if (memcmp(h->magic, STATE_MAGIC, sizeof(STATE_MAGIC)) != 0 ||
	    (h->version != STATE_CANONICAL && h->version != STATE_SHORT) ||
	    h->length > rg->end - rg->start - sizeof(*h))
		return -1;
	return 0;
}

/* The text of the newest valid state, canonical.  0, 1 when no state was
 * valid, or -errno. */
static int read_newest(int mem, const struct region *rg, int n, char **text, size_t *len)
{
	struct state_hdr h, best;
	int i, bi = -1;

	for (i = 0; i < n; i++)
		if (read_hdr(mem, &rg[i], &h) == 0 && (bi < 0 || h.generation > best.generation)) {
			best = h;
			bi = i;
		}
	if (bi < 0)
		return 1;
	*text = xmalloc(best.length + 1);
	if (pread(mem, *text, best.length, (off_t)(rg[bi].start + sizeof(best))) !=
	    (ssize_t)best.length) {
		int e = errno ? errno : EIO;
		free(*text);
		return -e;
	}
	(*text)[best.length] = '\0';
	*len = best.length;
	if (best.version == STATE_SHORT) {
		struct sf_policy *p;
		struct sf_error err;
		if (sf_policy_apply_src(NULL, "state", SF_SRC_NO_INCLUDE, *text, *len, &p, &err) != 0) {
			free(*text);
			return 1;
		}
		free(*text);
		*text = policy_text(p, len);
		sf_policy_free(p);
	}
	return 0;
}

static int has_kernel_filter(pid_t pid)
{
	char path[64], line[256];
	int mode = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode == 2;
}

static int not_filtered(pid_t pid)
{
	if (has_kernel_filter(pid))
		tool_err("show: process %d is not running under the secfilter library; it has "
			 "a kernel seccomp filter (secfilter run's trusted mode, or another "
			 "program's), whose policy cannot be read back", (int)pid);
	else
		tool_err("show: process %d is not running under secfilter", (int)pid);
	return EX_SF_POLICY;
}

/* The credentials of a process as /proc/PID/status gives them (ids in
 * our user namespace). */
struct creds {
	long uid[4], gid[4]; /* real, effective, saved, filesystem */
	uint64_t cap_prm, cap_eff;
};

static int read_creds(const char *pid, struct creds *c)
{
	char path[64], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		got += sscanf(line, "Uid: %ld %ld %ld %ld", &c->uid[0], &c->uid[1], &c->uid[2],
			      &c->uid[3]) == 4;
		got += sscanf(line, "Gid: %ld %ld %ld %ld", &c->gid[0], &c->gid[1], &c->gid[2],
			      &c->gid[3]) == 4;
		got += sscanf(line, "CapPrm: %" SCNx64, &c->cap_prm) == 1;
		got += sscanf(line, "CapEff: %" SCNx64, &c->cap_eff) == 1;
	}
	fclose(f);
	return got == 4 ? 0 : -1;
}

static const char *user_name(long uid, char *buf, size_t cap)
{
	struct passwd *pw = getpwuid((uid_t)uid);

	if (pw)
		snprintf(buf, cap, "%s (uid %ld)", pw->pw_name, uid);
	else
		snprintf(buf, cap, "uid %ld", uid);
	return buf;
}

/* The security modules in force, when securityfs says: ", here: a,b". */
static void lsm_list(char *buf, size_t cap)
{
	char *text = NULL;
	size_t len = 0;

	buf[0] = '\0';
	if (read_path("/sys/kernel/security/lsm", 256, &text, &len) == 0 && len > 0) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(buf, cap, "; in force here: %s", text);
	}
	free(text);
}

/* The kernel refused us the process (the ptrace access mode check of
 * /proc/PID/mem).  Its rules in order: the reader must be the owner --
 * every uid and gid of the process equal to the reader's filesystem ids
 * -- or hold CAP_SYS_PTRACE; a process that is not dumpable, or whose
 * capabilities are not all in the reader's, again needs CAP_SYS_PTRACE;
 * then the security modules have their say. */
static int denied(pid_t pid, const char *what)
{
	struct creds me, them;
	char pidtext[16], who[128], me_name[128], lsms[300];
	int owner, ptrace_cap, i;

	snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
	if (read_creds("self", &me) < 0 || read_creds(pidtext, &them) < 0) {
		tool_err("show: cannot read %s of process %d: permission denied", what, (int)pid);
		return EX_SF_FAIL;
	}
	owner = 1;
	for (i = 0; i < 3; i++)
		owner &= them.uid[i] == me.uid[3] && them.gid[i] == me.gid[3];
	ptrace_cap = (me.cap_eff >> CAP_SYS_PTRACE) & 1;
	if (!owner && !ptrace_cap && them.uid[0] == me.uid[3] && them.uid[1] == me.uid[3] &&
	    them.uid[2] == me.uid[3]) {
		tool_err("show: process %d is not yours: it runs with group ids %ld/%ld/%ld "
			 "(real/effective/saved), you with group %ld; only its owner or root "
			 "may read its policy", (int)pid, them.gid[0], them.gid[1], them.gid[2],
			 me.gid[3]);
		return EX_SF_FAIL;
	}
	if (!owner && !ptrace_cap) {
		tool_err("show: process %d is not yours: it runs as %s, you as %s; only its "
			 "owner or root may read its policy", (int)pid,
			 user_name(them.uid[1], who, sizeof(who)),
			 user_name(me.uid[3], me_name, sizeof(me_name)));
		return EX_SF_FAIL;
	}
	if (!ptrace_cap && (them.cap_prm & ~me.cap_eff)) {
		tool_err("show: process %d is yours but not readable: it holds capabilities you "
			 "lack (CapPrm %" PRIx64 ", yours %" PRIx64 "); only a reader with "
			 "CAP_SYS_PTRACE (root) may read it", (int)pid, them.cap_prm,
			 me.cap_eff);
		return EX_SF_FAIL;
	}
	if (!ptrace_cap) {
		tool_err("show: process %d is yours but not readable: it is not dumpable (it "
			 "changed its user or group ids, executed a set-ID or file-capability "
			 "program, or called prctl(PR_SET_DUMPABLE, 0)); only a reader with "
			 "CAP_SYS_PTRACE (root) may read it", (int)pid);
		return EX_SF_FAIL;
	}
	lsm_list(lsms, sizeof(lsms));
	tool_err("show: process %d is not readable: the kernel refuses it although you may "
		 "read any process (you have CAP_SYS_PTRACE): a rule beyond ownership and "
		 "capabilities protects it, such as a security module's (a Landlock "
		 "sandbox may only inspect processes inside it)%s", (int)pid, lsms);
	return EX_SF_FAIL;
}

static int open_failed(pid_t pid, const char *what)
{
	if (errno == ENOENT || errno == ESRCH) {
		tool_err("show: no process %d", (int)pid);
		return EX_SF_POLICY;
	}
	if (errno == EACCES || errno == EPERM)
		return denied(pid, what);
	tool_perr("show: cannot read %s of process %d", what, (int)pid);
	return EX_SF_FAIL;
}

struct counts_hdr {
	char magic[16];
	uint32_t version;
	uint32_t n;
	uint64_t reserved;
};

/* The errno returns, as comments (parsing the output still gives the
 * policy).  Nothing when there are none, or no counts to read: a library
 * without them, or a process that forked before its first policy. */
static void show_counts(int mem, unsigned long at)
{
	struct counts_hdr h;
	uint64_t c[SF_NR_COUNT + 1];
	unsigned nr, shown = 0;

	if (!at || pread(mem, &h, sizeof(h), (off_t)at) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, COUNTS_MAGIC, sizeof(COUNTS_MAGIC)) != 0 || h.version != 1 ||
	    h.n != SF_NR_COUNT + 1 ||
	    pread(mem, c, sizeof(c), (off_t)(at + sizeof(h))) != (ssize_t)sizeof(c))
		return;
	for (nr = 0; nr <= SF_NR_COUNT; nr++) {
		const struct sf_syscall *sc = sf_syscall_by_nr(nr);
		if (!c[nr])
			continue;
		if (!shown++)
			printf("# calls answered with an error number (return E), since the "
			       "program started:\n");
		if (nr == SF_NR_COUNT)
			printf("#   numbers outside the table: %llu\n", (unsigned long long)c[nr]);
		else if (sc)
			printf("#   sys_%s: %llu\n", sc->name, (unsigned long long)c[nr]);
		else
			printf("#   %u: %llu\n", nr, (unsigned long long)c[nr]);
	}
}

static int show(pid_t pid)
{
	struct region rg[MAX_STATES];
	char path[64], *text = NULL;
	unsigned long counts = 0;
	size_t len = 0;
	int mem = -1, n, r = 1, tries;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	for (tries = 0; tries < READ_TRIES; tries++) {
		/* Opened anew each try: the file stays bound to the image it
		 * was opened on, and an exec in between leaves it reading
		 * nothing while the maps show the new image. */
		mem = open(path, O_RDONLY | O_CLOEXEC);
		if (mem < 0)
			return open_failed(pid, "the memory");
		n = find_mappings(pid, mem, rg, MAX_STATES, &counts);
		if (n < 0) {
			errno = -n;
			close(mem);
			return open_failed(pid, "the mappings");
		}
		/* none may also be an exec between the open and the maps */
		if (n == 0 && tries + 1 == READ_TRIES) {
			close(mem);
			return not_filtered(pid);
		}
		r = n ? read_newest(mem, rg, n, &text, &len) : 1;
		if (r <= 0 && r != -EIO)
			break;
		close(mem);
		mem = -1;
	}
	if (mem >= 0 && r != 0)
		close(mem);
	if (r < 0) {
		errno = -r;
		tool_perr("show: cannot read the policy of process %d", (int)pid);
		return EX_SF_FAIL;
	}
	if (r > 0) {
		tool_err("show: process %d has a secfilter state mapping secfilter cannot "
			 "read (another version of the library?)", (int)pid);
		return EX_SF_FAIL;
	}
	fwrite(text, 1, len, stdout);
	if (len && text[len - 1] != '\n')
		putchar('\n');
	free(text);
	show_counts(mem, counts);
	close(mem);
	if (fflush(stdout) != 0) {
		tool_perr("show: standard output");
		return EX_SF_FAIL;
	}
	return EX_SF_OK;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		TOOL_COMMON_LONGOPTS,
	};
	char *end;
	long pid;
	int o;

	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		return tool_common_option("show", o, argv, usage);
	}
	if (argc - optind != 1)
		return tool_usage_err("show", "show: give one PID");
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || *end || end == argv[optind] || pid <= 0 || pid > INT32_MAX)
		return tool_usage_err("show", "show: '%s' is not a process id", argv[optind]);
	return show((pid_t)pid);
}
