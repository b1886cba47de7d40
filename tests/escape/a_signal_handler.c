// escape: the call from a signal handler
// expect: interpose=stop trusted=stop run=stop
#include <signal.h>

#include "escape.h"

static const char *marker;

static void handler(int sig)
{
	(void)sig;
	make_marker(marker);
}

int main(int argc, char **argv)
{
	(void)argc;
	marker = argv[1];
	signal(SIGUSR1, handler);
	raise(SIGUSR1);
	return 0;
}
