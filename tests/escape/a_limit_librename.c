// escape: rename the library away while children exec (race)
// expect: interpose=limit trusted=stop run=stop
// lib: private
/* The next image loads the library by the path in LD_PRELOAD, when its
 * loader runs, and a loader that cannot open it goes on without it
 * ("cannot be preloaded: ignored").  The library's exec checks that the
 * path is there, then execs; nothing holds the file at the path until
 * the new image's loader opens it.  So a thread renames the library away
 * and back, as fast as it can, while children exec h_nolibc (a dynamic
 * program): an image whose loader finds no file runs without the library
 * and makes the marker.  Needs write access to the library's directory
 * (the runner gives the attempt a copy of its own: "lib: private"); a
 * program with that can as well put another file there.  In trusted mode
 * the image inherits the kernel filter whatever its loader loads;
 * `secfilter run --trusted` loads no library (LD_PRELOAD is unset: the
 * attempt has nothing to rename). */
#include "escape.h"

#include <pthread.h>

static char lib[4096], away[4096 + 8];
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		rename(lib, away);
		rename(away, lib);
	}
	return NULL;
}

static void exec_prog(int i, void *args)
{
	extern char **environ;

	(void)i;
	execve(((char **)args)[0], args, environ);
}

int main(int argc, char **argv)
{
	char prog[4096];
	char *args[] = { escape_path(prog, sizeof prog, "h_nolibc"), argv[1], NULL };
	const char *pre = getenv("LD_PRELOAD");
	pthread_t th;
	int flipping = 0;

	(void)argc;
	/* the library's own copy, by its absolute path */
	if (pre && pre[0] == '/' && !strchr(pre, ':') && !strchr(pre, ' ') &&
	    strlen(pre) < sizeof lib) {
		snprintf(lib, sizeof lib, "%s", pre);
		snprintf(away, sizeof away, "%s.away", lib);
		flipping = pthread_create(&th, NULL, flip, NULL) == 0;
	}
	race_children(argv[1], 400, 4, exec_prog, args);
	if (flipping) {
		stop = 1;
		pthread_join(th, NULL);
		rename(away, lib); /* where the last rename left it */
	}
	return 0;
}
