/* cli_prog.c linked -static: trusted mode's test subject. */
#include "cli_prog.c"
