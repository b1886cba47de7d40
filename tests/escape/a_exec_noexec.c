// escape: exec after a noexec mount over our library's dir
// expect: interpose=stop trusted=stop run=stop
/* The library stays readable, so access(2) finds it, but the new image's
 * loader cannot map it executable and goes on without it ("failed to map
 * segment from shared object: ignored").  In a mount namespace of the
 * attempt's own, the build directory (the library's, and $ESCAPE_DIR's
 * parent) is bound onto itself noexec; the image is touch, which makes
 * the marker.  Needs root (a mount namespace). */
#include "escape.h"

#include <libgen.h>
#include <sched.h>
#include <sys/mount.h>

int main(int argc, char **argv)
{
	char dir[4096], *build;
	char *args[] = { "/usr/bin/touch", argv[1], NULL };
	extern char **environ;

	(void)argc;
	snprintf(dir, sizeof dir, "%s", getenv("ESCAPE_DIR"));
	build = dirname(dir);
	if (unshare(CLONE_NEWNS) < 0) {
		printf("unshare(CLONE_NEWNS): %s (needs root)\n", strerror(errno));
		return 77;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(build, build, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, build, NULL, MS_REMOUNT | MS_BIND | MS_NOEXEC, NULL) < 0) {
		perror("mount");
		return 2;
	}
	exec_child(args, environ);
	return 0;
}
