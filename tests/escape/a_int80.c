// escape: a 32-bit openat through int $0x80
// expect: interpose=stop trusted=stop run=stop
// control: plain
/* i386's openat is 295, x86-64's preadv: a call decided against the
 * x86-64 table and re-issued with `syscall` would be another call.  Where
 * the kernel has no IA32 emulation, int $0x80 faults before any syscall:
 * the attempt says so and exits with 77 ("n/a here"); tests/e2e/t_lib_i386
 * checks the library's decision with a forged SIGSYS instead.  The control
 * run has no library: under the library a 32-bit call is a violation
 * whatever the policy says, `*: 1` included (SPEC), so only an unfiltered
 * run shows that the attempt creates its marker. */
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

#include "escape.h"

static void no_ia32(int sig)
{
	static const char msg[] = "int $0x80 faulted: no IA32 emulation here\n";

	(void)sig;
	write(2, msg, sizeof msg - 1);
	_exit(77);
}

int main(int argc, char **argv)
{
	/* i386 calls take 32-bit pointers */
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long ret;

	(void)argc;
	if (low == MAP_FAILED || strlen(argv[1]) >= 4096)
		return 2;
	strcpy(low, argv[1]);
	signal(SIGSEGV, no_ia32);
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "0"(295L), "b"(-100L), "c"((long)low), "d"(0101L), "S"(0600L)
			 : "memory");
	printf("int $0x80 returned %ld\n", ret);
	return 0;
}
