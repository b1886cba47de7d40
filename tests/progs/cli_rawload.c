/* cli_rawload FILE PROG [ARG...]: installs the raw seccomp-BPF program in
 * FILE (what `secfilter compile --format=raw` writes) and execs PROG under
 * it.  Shows that the raw output is a program the kernel accepts and
 * enforces. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static struct sock_filter insns[4097];
	struct sock_fprog prog;
	size_t n;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: cli_rawload FILE PROG [ARG...]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	n = fread(insns, sizeof(insns[0]), 4097, f);
	fclose(f);
	if (n == 0 || n > 4096) {
		fprintf(stderr, "cli_rawload: %zu instructions\n", n);
		return 2;
	}
	prog.len = (unsigned short)n;
	prog.filter = insns;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		perror("cli_rawload: seccomp");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
