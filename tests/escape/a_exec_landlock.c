// escape: exec under its own Landlock layer hiding our library
// expect: interpose=stop trusted=stop run=stop
/* Landlock checks opens, not access(2): a layer that lets the program read
 * only the system's directories and its own leaves the library's own
 * directory (the build tree) unreadable to the next image's loader, which
 * then goes on without it ("cannot be preloaded: ignored").  The image
 * is this program again, which makes the marker. */
#include "escape.h"

#include <linux/landlock.h>
#include <sys/prctl.h>

#define ACCESS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE)

static void allow(int rs, const char *path)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = ACCESS };

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return; /* /lib64 on a system without it */
	syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
}

int main(int argc, char **argv)
{
	static const char *const sys[] = { "/usr", "/lib", "/lib64", "/etc" };
	struct landlock_ruleset_attr ra = { .handled_access_fs = ACCESS };
	char self[4096];
	char *args[] = { escape_path(self, sizeof self, "a_exec_landlock"), argv[1], "image", NULL };
	extern char **environ;
	unsigned i;
	int rs;

	if (argc > 2) { /* the new image */
		make_marker(argv[1]);
		return 0;
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rs < 0) {
		printf("no Landlock: %s\n", strerror(errno));
		return 77;
	}
	for (i = 0; i < sizeof sys / sizeof sys[0]; i++)
		allow(rs, sys[i]);
	allow(rs, getenv("ESCAPE_DIR"));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, rs, 0)) {
		perror("landlock_restrict_self");
		return 2;
	}
	exec_child(args, environ);
	return 0;
}
