// escape: widening the policy through secfilter_apply
// expect: interpose=stop trusted=stop run=stop
#include <dlfcn.h>

#include "escape.h"

int main(int argc, char **argv)
{
	int (*apply)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "secfilter_apply");

	(void)argc;
	if (apply) {
		apply("*: 1");
		apply("openat: 1; open: 1; creat: 1");
	}
	make_marker(argv[1]);
	return 0;
}
