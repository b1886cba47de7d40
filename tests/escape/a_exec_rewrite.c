// escape: rewrite the exec'd file between probe and exec
// expect: interpose=stop trusted=stop run=stop
/* A descriptor pins the file, not its content.  Here a memfd holds a copy
 * of h_interp_user, whose PT_INTERP a writer flips without pause between
 * the real loader and the static h_interp (the same length, padded),
 * while children fexecve a read-only descriptor of it: the library must
 * not decide on one content and execute the other.  Up to 300 tries or
 * 3 s. */
#include "escape.h"

static char *args[] = { "user", NULL, NULL };
static int ro;

static void exec_ro(void)
{
	char *env[] = { NULL };

	fexecve(ro, args, env);
	_exit(127);
}

int main(int argc, char **argv)
{
	char user[4096], interp[4096], ld[4096], path[64];
	static char image[1 << 20];
	long off = -1;
	ssize_t n, i;
	int in, mfd;
	pid_t writer;

	(void)argc;
	args[1] = argv[1];
	escape_path(user, sizeof user, "h_interp_user");
	escape_path(interp, sizeof interp, "h_interp");
	memset(ld, 0, sizeof ld);
	strcpy(ld, "/lib64/ld-linux-x86-64.so.2");
	in = open(user, O_RDONLY);
	n = read(in, image, sizeof image);
	for (i = 0; n > 0 && i + (ssize_t)strlen(interp) < n; i++)
		if (!memcmp(image + i, interp, strlen(interp) + 1)) {
			off = i;
			break;
		}
	mfd = memfd_create("user", 0);
	if (off < 0 || mfd < 0 || write(mfd, image, (size_t)n) != n)
		return 2;
	snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
	ro = open(path, O_RDONLY);
	writer = fork();
	if (writer == 0)
		for (;;) {
			pwrite(mfd, ld, strlen(interp) + 1, off);
			pwrite(mfd, interp, strlen(interp) + 1, off);
		}
	close(mfd); /* exec needs no writer of ours but the one above */
	exec_race(argv[1], writer, exec_ro);
	return 0;
}
