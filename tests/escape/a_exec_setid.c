// escape: exec with the effective gid apart from the real one
// expect: interpose=stop trusted=stop run=stop
/* The kernel starts in secure mode (AT_SECURE) any image whose effective
 * ids differ from the real ones, set-ID file or not, and the loader then
 * ignores LD_PRELOAD.  The image is this program again, which makes the
 * marker.  Needs root (setresgid to another gid). */
#include "escape.h"

int main(int argc, char **argv)
{
	char self[4096];
	char *args[] = { escape_path(self, sizeof self, "a_exec_setid"), argv[1], "image", NULL };
	extern char **environ;

	if (argc > 2) { /* the new image */
		make_marker(argv[1]);
		return 0;
	}
	if (setresgid(getgid(), 65534, getgid()) < 0) {
		printf("setresgid: %s (needs root)\n", strerror(errno));
		return 77;
	}
	exec_child(args, environ);
	return 0;
}
