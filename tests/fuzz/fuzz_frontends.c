/* libFuzzer target for the front ends of other syntaxes (minijail policy
 * files, OCI profiles and their JSON): any input must give a policy or a
 * clean error, never a crash, a hang or a leak; an accepted one must
 * print to text that our own parser reads back to the same canonical
 * text, and the BPF compiler must take it or say why.  The first byte
 * picks the syntax.  @include and @frequency are refused here
 * (SF_SRC_NO_INCLUDE): the fuzzer is not to read the machine's files.
 * Run with `make fuzz`. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/seccomp.h>

#include "bpf.h"
#include "eval.h"
#include "internal.h"
#include "fuzz_print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sock_filter prog[SF_BPF_MAX];
	struct sf_policy *p = NULL;
	struct sf_error err;
	struct sf_ast ast;
	uint32_t src;
	unsigned len;
	size_t text_len;
	int rc;

	if (size < 1)
		return 0;
	sf_ast_init(&ast);
	if (sf_ast_src(&ast, "<fuzz>", (const char *)data + 1, size - 1, &src) != 0)
		abort();
	rc = data[0] & 1 ? sf_oci_parse(&ast, src, "6.18.44-fuzz", &err)
			 : sf_minijail_parse(&ast, src, SF_SRC_NO_INCLUDE, &err);
	if (!rc)
		rc = sf_policy_apply_ast(NULL, &ast, &p, &err);
	sf_ast_free(&ast);
	if (rc) {
		if (rc != err.code || !err.text[0])
			abort(); /* an error without its message */
		return 0;
	}
	free(printed_canonical(p, &text_len));
	rc = sf_bpf_compile(p, SECCOMP_RET_KILL_PROCESS, prog, SF_BPF_MAX, &len, &err);
	if (rc && rc != -E2BIG)
		abort();
	sf_policy_free(p);
	return 0;
}
