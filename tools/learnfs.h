/* What `secfilter learn` proposes for files (fs. rules, filter/landlock.h):
 * the paths a run used, each with the Landlock rights its calls needed
 * there, made into the rules that grant them (learnfs.c says how).
 * Pure: no system calls, so that the unit tests can drive it with rows. */
#ifndef SECFILTER_LEARNFS_H
#define SECFILTER_LEARNFS_H

#include <stddef.h>
#include <stdint.h>

/* How a use came about. */
enum {
	FSU_MADE = 1, /* the run made this path: the next run may not find it */
	FSU_RULE = 2, /* a merged policy's rule: kept where it is, as written */
};

/* One path and the rights (SF_FS_*) needed or granted there. */
struct fs_use {
	char *path; /* absolute, without "." and ".." and symbolic links */
	uint64_t access;
	unsigned flags;
};

/* A set of uses, one entry per path and flags. */
struct fs_uses {
	struct fs_use *v;
	size_t n, cap;
	size_t *index; /* open addressing over v, by path and flags */
	size_t slots;
};

/* Adds access at path (merged with an entry of the same path and flags).
 * 0, or -1 when out of memory. */
int fs_uses_add(struct fs_uses *u, const char *path, uint64_t access, unsigned flags);
/* The rights of path's entry with flags, 0 when none. */
uint64_t fs_uses_get(const struct fs_uses *u, const char *path, unsigned flags);
void fs_uses_free(struct fs_uses *u);

/* The rules that grant what uses needed, into out (empty before), sorted
 * by path, every entry with flags 0:
 * - a path the run made, or one beneath it, goes to the nearest directory
 *   above it that the run did not make (a rule names what exists when the
 *   policy is enforced);
 * - reads (fs.read_file, fs.read_dir) beneath a read-only root
 *   (fs_read_roots) become a read of that root; anything beneath
 *   /proc/<pid> is /proc's (a pid is another one in every run), and
 *   beneath /dev/pts, /dev/pts's;
 * - where the runs read, or wrote, FS_SEVERAL or more entries of one
 *   directory, that directory gets those rights instead;
 * - a path that the policy language cannot spell goes to the nearest
 *   directory above it that it can;
 * - rights an entry above grants already are dropped.
 * Merged rules (FSU_RULE) stay as they are, but for the last step.
 * 0, or -1 when out of memory. */
#define FS_SEVERAL 3
int fs_rules_of(const struct fs_uses *uses, struct fs_uses *out);

/* The roots that reads beneath are collapsed to, NULL-terminated. */
extern const char *const fs_read_roots[];

/* out's rules as policy lines, one right per line ("fs.read_file: /x\n"),
 * for the parser to make canonical; malloc'd, NULL when out of memory. */
char *fs_rules_text(const struct fs_uses *rules);

#endif
