/* The site rewriter's instruction decoder (preload/rewrite/x86dec.c) against
 * objdump: every instruction of whole libraries and programs, decoded
 * forward from each symbol objdump starts at, as the rewriter decodes a
 * function from its start.  A length that differs from objdump's is a
 * failure; an instruction the decoder refuses ends that run of code (the
 * rewriter would then leave the site to the trap), and refusals must stay
 * rare in compiled code.  Plus hand-made encodings with known lengths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../preload/rewrite/x86dec.c"

struct tally {
	unsigned long insns, refused, mismatched, blocks;
};

/* One block of consecutive instructions as objdump printed them. */
#define MAXB (1u << 20)
static uint8_t bytes[MAXB];
static unsigned starts[262144];

static void check_block(const char *file, unsigned nbytes, unsigned nins, struct tally *t)
{
	unsigned k, at = 0;

	if (nins == 0)
		return;
	t->blocks++;
	for (k = 0; k < nins; k++) {
		struct sf_insn in;
		unsigned want = (k + 1 < nins ? starts[k + 1] : nbytes) - starts[k];
		unsigned got;

		if (at != starts[k])
			break;
		got = sf_x86_decode(bytes + at, nbytes - at, &in);
		if (got == 0) {
			t->refused++;
			return;
		}
		t->insns++;
		if (got != want) {
			if (t->mismatched++ < 20) {
				fprintf(stderr, "%s: length %u, objdump says %u:", file, got, want);
				for (unsigned j = 0; j < want && j < 15; j++)
					fprintf(stderr, " %02x", bytes[at + j]);
				fputc('\n', stderr);
			}
			return;
		}
		at += got;
	}
}

static void against_objdump(const char *file, struct tally *t)
{
	char cmd[512], line[4096];
	unsigned nbytes = 0, nins = 0;
	int bad = 0;
	FILE *f;

	snprintf(cmd, sizeof cmd, "objdump -d -w -j .text '%s' 2>/dev/null", file);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char *p = line, *tab1, *tab2;
		unsigned v;

		/* "  addr:\tbytes\tmnemonic": an instruction; anything else
		 * (a symbol header, a blank line) ends the block. */
		tab1 = strchr(p, '\t');
		if (!tab1 || tab1 == p || tab1[-1] != ':') {
			if (!bad)
				check_block(file, nbytes, nins, t);
			nbytes = nins = 0;
			bad = 0;
			continue;
		}
		if (bad)
			continue;
		/* What objdump could not decode (data, padding) ends the
		 * block: the code before it is checked. */
		tab2 = strchr(tab1 + 1, '\t');
		if (!tab2 || strstr(tab2, "(bad)") || strstr(tab2, ".byte") ||
		    nins + 2 >= sizeof starts / sizeof starts[0] || nbytes + 16 > MAXB) {
			check_block(file, nbytes, nins, t);
			nbytes = nins = 0;
			bad = 1;
			continue;
		}
		starts[nins++] = nbytes;
		for (p = tab1 + 1; p < tab2; ) {
			if (sscanf(p, "%2x", &v) != 1)
				break;
			/* objdump shows fwait and the x87 instruction after it
			 * as one (fstcw is `wait; fnstcw`): two instructions. */
			if (nbytes == starts[nins - 1] && v == 0x9b && p + 2 < tab2 && p[2] == ' ' &&
			    strncmp(tab2 + 1, "fwait", 5) != 0)
				starts[nins++] = nbytes + 1;
			bytes[nbytes++] = (uint8_t)v;
			p += 2;
			while (*p == ' ')
				p++;
		}
	}
	if (!bad)
		check_block(file, nbytes, nins, t);
	pclose(f);
}

static void test_libraries(void **state)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/lib/x86_64-linux-gnu/libm.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/go-1.19/bin/go",
		"/usr/lib/go-1.19/pkg/tool/linux_amd64/compile",
	};
	struct tally all = { 0 };
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct tally t = { 0 };
		if (access(files[i], R_OK) != 0)
			continue;
		against_objdump(files[i], &t);
		printf("    %-50s %9lu insns %6lu blocks %5lu refused %lu wrong\n", files[i],
		       t.insns, t.blocks, t.refused, t.mismatched);
		all.insns += t.insns;
		all.blocks += t.blocks;
		all.refused += t.refused;
		all.mismatched += t.mismatched;
	}
	assert_true(all.insns > 500000); /* libc and ld.so alone */
	assert_int_equal(all.mismatched, 0);
	/* Refusals end a block: at most one per block, and few blocks. */
	assert_true(all.refused * 200 < all.blocks);
}

static unsigned dec(const char *hex, struct sf_insn *in)
{
	uint8_t b[32];
	unsigned n = 0, v;

	while (*hex && sscanf(hex, "%2x", &v) == 1) {
		b[n++] = (uint8_t)v;
		hex += 2;
		while (*hex == ' ')
			hex++;
	}
	return sf_x86_decode(b, n, in);
}

static void test_encodings(void **state)
{
	struct sf_insn in;

	(void)state;
	assert_int_equal(dec("b8 01 00 00 00 0f 05", &in), 5);          /* mov $1,%eax */
	assert_int_equal(in.imm_len, 4);
	assert_int_equal(dec("0f 05", &in), 2);                         /* syscall */
	assert_int_equal(in.map, SF_MAP_0F);
	assert_int_equal(in.op, 0x05);
	assert_int_equal(dec("48 89 df", &in), 3);                      /* mov %rbx,%rdi */
	assert_int_equal(dec("64 8b 04 25 18 00 00 00", &in), 8);       /* mov %fs:0x18,%eax */
	assert_true(in.pfx & SF_PFX_FS);
	assert_false(in.riprel);
	assert_int_equal(dec("48 8d 05 00 01 00 00", &in), 7);          /* lea 0x100(%rip),%rax */
	assert_true(in.riprel);
	assert_int_equal(dec("48 b8 01 02 03 04 05 06 07 08", &in), 10); /* movabs */
	assert_int_equal(dec("66 b8 01 02", &in), 4);                   /* mov $0x201,%ax */
	assert_int_equal(dec("f6 c4 01", &in), 3);                      /* test $1,%ah */
	assert_int_equal(dec("f7 c7 01 00 00 00", &in), 6);             /* test $1,%edi */
	assert_int_equal(dec("f7 d8", &in), 2);                         /* neg %eax */
	assert_int_equal(dec("75 10", &in), 2);                         /* jne */
	assert_int_equal(dec("0f 85 10 00 00 00", &in), 6);             /* jne rel32 */
	assert_int_equal(dec("c5 f8 77", &in), 3);                      /* vzeroupper */
	assert_int_equal(dec("c4 e3 79 16 c0 01", &in), 6);             /* vpextrd $1 */
	assert_int_equal(dec("62 f1 7d 48 6f 44 24 01", &in), 8);       /* vmovdqa32 disp8 */
	assert_int_equal(dec("c8 10 00 00", &in), 4);                   /* enter */
	assert_int_equal(dec("a1 00 00 00 00 00 00 00 00", &in), 9);    /* movabs moffs */
	assert_int_equal(dec("f3 0f 1e fa", &in), 4);                   /* endbr64 */
	assert_int_equal(dec("4c 8b 54 24 08", &in), 5);                /* mov 8(%rsp),%r10 */
	assert_true(in.has_sib);
	/* Refused: not known for sure. */
	assert_int_equal(dec("0f 20 c0", &in), 0);                      /* mov %cr0 */
	assert_int_equal(dec("8f e9 78 e1 c1", &in), 0);                /* XOP */
	assert_int_equal(dec("0f 0f c1 0c", &in), 0);                   /* 3DNow! */
	assert_int_equal(dec("66 e9 00 00", &in), 0);                   /* jmp rel16? */
	assert_int_equal(dec("06", &in), 0);                            /* push %es */
	assert_int_equal(dec("b8 01 00", &in), 0);                      /* cut short */
	assert_int_equal(dec("66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", &in), 15);
	assert_int_equal(dec("66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", &in), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_libraries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
