// escape: exec with LD_LIBRARY_PATH to a fake libunwind.so.8
// expect: interpose=stop trusted=stop run=stop
// control: none
/* The library opened libunwind.so.8 by name in its constructor, before it
 * armed anything: LD_LIBRARY_PATH, which the program sets for the image it
 * execs, decided which file that was.  The library's own unwinder
 * (preload/unw.c) opens nothing.  (No control: only the library loaded
 * it.) */
#include "escape.h"

int main(void)
{
	return exec_with_evil_library("libunwind.so.8");
}
