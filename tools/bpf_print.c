/* See bpf_print.h.  Both text forms annotate each instruction with what
 * the accumulator holds there (a forward dataflow pass: seccomp programs
 * only jump forward, so one pass in order sees every predecessor first). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "bpf_print.h"
#include "systab.h"

/* What A holds before an instruction: a word of seccomp_data (its offset),
 * possibly transformed by ALU instructions, or something unknown. */
#define A_UNKNOWN 0xffffffffu
#define A_ALU 0x10000u /* flag: the word went through ALU instructions */

struct flow {
	uint32_t *a;      /* A before each instruction */
	uint8_t *reached; /* 0: unreachable, 1: reached, 2: a jump target */
};

static void flow_to(struct flow *f, unsigned n, unsigned to, uint32_t a, int jump)
{
	if (to >= n)
		return;
	if (!f->reached[to])
		f->a[to] = a;
	else if (f->a[to] != a)
		f->a[to] = A_UNKNOWN;
	if (jump || !f->reached[to])
		f->reached[to] = jump ? 2 : 1;
}

/* NULL arrays (out of memory): the printers then go without comments. */
static void flow_run(struct flow *f, const struct sock_filter *p, unsigned n)
{
	unsigned i;

	f->a = calloc(n ? n : 1, sizeof(*f->a));
	f->reached = calloc(n ? n : 1, 1);
	if (!f->a || !f->reached) {
		free(f->a), free(f->reached);
		f->a = NULL, f->reached = NULL;
		return;
	}
	if (n)
		flow_to(f, n, 0, A_UNKNOWN, 0);
	for (i = 0; i < n; i++) {
		uint32_t a = f->a[i];
		uint16_t code = p[i].code;

		if (!f->reached[i])
			continue;
		switch (BPF_CLASS(code)) {
		case BPF_RET:
			continue;
		case BPF_JMP:
			if (BPF_OP(code) == BPF_JA) {
				flow_to(f, n, i + 1 + p[i].k, a, 1);
			} else {
				flow_to(f, n, i + 1 + p[i].jt, a, 1);
				flow_to(f, n, i + 1 + p[i].jf, a, 1);
			}
			continue;
		case BPF_LD:
			a = code == (BPF_LD | BPF_W | BPF_ABS) && p[i].k < sizeof(struct seccomp_data)
				? p[i].k : A_UNKNOWN;
			break;
		case BPF_ALU:
			a = a == A_UNKNOWN ? a : a | A_ALU;
			break;
		case BPF_MISC:
			a = BPF_MISCOP(code) == BPF_TXA ? A_UNKNOWN : a;
			break;
		default:
			break;
		}
		flow_to(f, n, i + 1, a, 0);
	}
}

static void flow_free(struct flow *f)
{
	free(f->a);
	free(f->reached);
}

/* ---- Names ----------------------------------------------------------- */

static void field_name(char *buf, size_t cap, uint32_t off)
{
	if (off == offsetof(struct seccomp_data, nr))
		snprintf(buf, cap, "nr");
	else if (off == offsetof(struct seccomp_data, arch))
		snprintf(buf, cap, "arch");
	else if (off == offsetof(struct seccomp_data, instruction_pointer))
		snprintf(buf, cap, "ip.lo");
	else if (off == offsetof(struct seccomp_data, instruction_pointer) + 4)
		snprintf(buf, cap, "ip.hi");
	else if (off >= offsetof(struct seccomp_data, args) && off < sizeof(struct seccomp_data))
		snprintf(buf, cap, "args[%u].%s", (off - 16) / 8, off % 8 ? "hi" : "lo");
	else
		snprintf(buf, cap, "%u", off);
}

static const char *arch_name(uint32_t k)
{
	switch (k) {
	case AUDIT_ARCH_X86_64: return "AUDIT_ARCH_X86_64";
	case AUDIT_ARCH_I386: return "AUDIT_ARCH_I386";
	case AUDIT_ARCH_AARCH64: return "AUDIT_ARCH_AARCH64";
	case AUDIT_ARCH_ARM: return "AUDIT_ARCH_ARM";
	default: return NULL;
	}
}

/* "allow", "kill_process", "errno 13"; the C form spells the macros. */
static void action_name(char *buf, size_t cap, uint32_t k, int c)
{
	static const struct { uint32_t action; const char *name, *macro; } acts[] = {
		{ SECCOMP_RET_KILL_PROCESS, "kill_process", "SECCOMP_RET_KILL_PROCESS" },
		{ SECCOMP_RET_KILL_THREAD, "kill_thread", "SECCOMP_RET_KILL_THREAD" },
		{ SECCOMP_RET_TRAP, "trap", "SECCOMP_RET_TRAP" },
		{ SECCOMP_RET_ERRNO, "errno", "SECCOMP_RET_ERRNO" },
		{ SECCOMP_RET_USER_NOTIF, "user_notif", "SECCOMP_RET_USER_NOTIF" },
		{ SECCOMP_RET_TRACE, "trace", "SECCOMP_RET_TRACE" },
		{ SECCOMP_RET_LOG, "log", "SECCOMP_RET_LOG" },
		{ SECCOMP_RET_ALLOW, "allow", "SECCOMP_RET_ALLOW" },
	};
	uint32_t data = k & SECCOMP_RET_DATA;
	unsigned i;

	for (i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		if ((k & SECCOMP_RET_ACTION_FULL) != acts[i].action)
			continue;
		if (!data)
			snprintf(buf, cap, "%s", c ? acts[i].macro : acts[i].name);
		else if (c)
			snprintf(buf, cap, "%s | %u", acts[i].macro, data);
		else
			snprintf(buf, cap, "%s %u", acts[i].name, data);
		return;
	}
	snprintf(buf, cap, c ? "0x%08x" : "action 0x%08x", k);
}

static const char *jump_op(uint16_t code)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ: return "==";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JSET: return "&";
	default: return "?";
	}
}

/* What a conditional jump on K tests, in words; empty if A is unknown. */
static void jump_comment(char *buf, size_t cap, const struct sock_filter *in, uint32_t a)
{
	char field[32];
	const struct sf_syscall *sc;
	uint32_t k = in->k;

	buf[0] = '\0';
	if (a == A_UNKNOWN || BPF_SRC(in->code) != BPF_K)
		return;
	if (a == offsetof(struct seccomp_data, arch) && arch_name(k)) {
		snprintf(buf, cap, "arch %s %s", jump_op(in->code), arch_name(k));
		return;
	}
	if (a == offsetof(struct seccomp_data, nr) && BPF_OP(in->code) != BPF_JSET) {
		/* JGT k is "nr >= k+1": name the first number of the range. */
		uint32_t first = BPF_OP(in->code) == BPF_JGT ? k + 1 : k;
		sc = first < SF_NR_COUNT ? sf_syscall_by_nr((long)first) : NULL;
		snprintf(buf, cap, "nr %s %u%s%s%s", jump_op(in->code), k, sc ? " (" : "",
			 sc ? sc->name : first >= SF_NR_COUNT ? " (no syscall from here up)" : "",
			 sc ? ")" : "");
		return;
	}
	field_name(field, sizeof(field), a & ~A_ALU);
	snprintf(buf, cap, "%s%s %s 0x%x", field, a & A_ALU ? "'" : "", jump_op(in->code), k);
}

/* ---- Disassembly ----------------------------------------------------- */

static const char *const alu_names[16] = {
	[BPF_ADD >> 4] = "add", [BPF_SUB >> 4] = "sub", [BPF_MUL >> 4] = "mul",
	[BPF_DIV >> 4] = "div", [BPF_OR >> 4] = "or",   [BPF_AND >> 4] = "and",
	[BPF_LSH >> 4] = "lsh", [BPF_RSH >> 4] = "rsh", [BPF_NEG >> 4] = "neg",
	[BPF_MOD >> 4] = "mod", [BPF_XOR >> 4] = "xor",
};

static const char *const jmp_names[16] = {
	[BPF_JA >> 4] = "ja",   [BPF_JEQ >> 4] = "jeq", [BPF_JGT >> 4] = "jgt",
	[BPF_JGE >> 4] = "jge", [BPF_JSET >> 4] = "jset",
};

/* One instruction as "op  operands" and its comment. */
static void disasm_one(const struct sock_filter *p, unsigned i, uint32_t a,
		       char *ins, size_t icap, char *com, size_t ccap)
{
	const struct sock_filter *in = &p[i];
	const char *name;
	char field[32];

	com[0] = '\0';
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
	case BPF_LDX:
		name = BPF_CLASS(in->code) == BPF_LD ? "ld" : "ldx";
		if (BPF_MODE(in->code) == BPF_ABS && BPF_SIZE(in->code) == BPF_W) {
			field_name(field, sizeof(field), in->k);
			snprintf(ins, icap, "%-5s [%s]", name, field);
		} else if (BPF_MODE(in->code) == BPF_IMM) {
			snprintf(ins, icap, "%-5s #0x%x", name, in->k);
		} else if (BPF_MODE(in->code) == BPF_MEM) {
			snprintf(ins, icap, "%-5s M[%u]", name, in->k);
		} else if (BPF_MODE(in->code) == BPF_LEN) {
			snprintf(ins, icap, "%-5s len", name);
		} else {
			break;
		}
		return;
	case BPF_ST:
	case BPF_STX:
		snprintf(ins, icap, "%-5s M[%u]", BPF_CLASS(in->code) == BPF_ST ? "st" : "stx", in->k);
		return;
	case BPF_ALU:
		if (!(name = alu_names[BPF_OP(in->code) >> 4]))
			break;
		if (BPF_OP(in->code) == BPF_NEG)
			snprintf(ins, icap, "neg");
		else if (BPF_SRC(in->code) == BPF_X)
			snprintf(ins, icap, "%-5s x", name);
		else
			snprintf(ins, icap, "%-5s #0x%x", name, in->k);
		return;
	case BPF_JMP:
		if (!(name = jmp_names[BPF_OP(in->code) >> 4]))
			break;
		if (BPF_OP(in->code) == BPF_JA) {
			snprintf(ins, icap, "%-5s L%04u", name, i + 1 + in->k);
			return;
		}
		if (BPF_SRC(in->code) == BPF_X)
			snprintf(ins, icap, "%-5s x, L%04u, L%04u", name, i + 1 + in->jt, i + 1 + in->jf);
		else
			snprintf(ins, icap, "%-5s #0x%x, L%04u, L%04u", name, in->k, i + 1 + in->jt,
				 i + 1 + in->jf);
		jump_comment(com, ccap, in, a);
		return;
	case BPF_RET:
		if (BPF_RVAL(in->code) == BPF_K) {
			snprintf(ins, icap, "%-5s #0x%08x", "ret", in->k);
			action_name(com, ccap, in->k, 0);
		} else {
			snprintf(ins, icap, "%-5s %s", "ret", BPF_RVAL(in->code) == BPF_A ? "a" : "x");
		}
		return;
	default: /* BPF_MISC */
		snprintf(ins, icap, "%s", BPF_MISCOP(in->code) == BPF_TAX ? "tax" : "txa");
		return;
	}
	/* what no opcode name covers: the raw code, as an assembler takes it */
	snprintf(ins, icap, ".code 0x%04x, 0x%x", in->code, in->k);
}

void sf_bpf_print_disasm(FILE *out, const struct sock_filter *insns, unsigned n)
{
	struct flow f;
	char ins[64], com[96], label[16];
	unsigned i;

	flow_run(&f, insns, n);
	fprintf(out, "; seccomp-BPF program, %u instructions.  A field' went through ALU\n"
		     "; instructions; args[i].lo/hi are the halves of a 64-bit register.\n", n);
	for (i = 0; i < n; i++) {
		uint32_t a = f.a ? f.a[i] : A_UNKNOWN;
		int reached = f.reached ? f.reached[i] : 1;

		disasm_one(insns, i, a, ins, sizeof(ins), com, sizeof(com));
		if (!reached)
			snprintf(com, sizeof(com), "unreachable");
		snprintf(label, sizeof(label), "L%04u:", i);
		if (com[0])
			fprintf(out, "%04u %-7s %-34s; %s\n", i, reached == 2 ? label : "", ins, com);
		else
			fprintf(out, "%04u %-7s %s\n", i, reached == 2 ? label : "", ins);
	}
	flow_free(&f);
}

/* ---- C --------------------------------------------------------------- */

/* The opcode as the <linux/filter.h> macros spell it. */
static void code_name(char *buf, size_t cap, uint16_t code)
{
	static const char *const classes[8] = {
		"BPF_LD", "BPF_LDX", "BPF_ST", "BPF_STX", "BPF_ALU", "BPF_JMP", "BPF_RET", "BPF_MISC",
	};
	static const char *const sizes[4] = { "BPF_W", "BPF_H", "BPF_B", NULL };
	static const char *const modes[8] = {
		"BPF_IMM", "BPF_ABS", "BPF_IND", "BPF_MEM", "BPF_LEN", "BPF_MSH", NULL, NULL,
	};
	static const char *const alu_ops[16] = {
		"BPF_ADD", "BPF_SUB", "BPF_MUL", "BPF_DIV", "BPF_OR", "BPF_AND", "BPF_LSH",
		"BPF_RSH", "BPF_NEG", "BPF_MOD", "BPF_XOR",
	};
	static const char *const jmp_ops[16] = { "BPF_JA", "BPF_JEQ", "BPF_JGT", "BPF_JGE", "BPF_JSET" };
	const char *cls = classes[BPF_CLASS(code)], *a = NULL, *b = NULL;

	switch (BPF_CLASS(code)) {
	case BPF_LD:
	case BPF_LDX:
		a = sizes[BPF_SIZE(code) >> 3];
		b = modes[BPF_MODE(code) >> 5];
		break;
	case BPF_ALU:
		a = alu_ops[BPF_OP(code) >> 4];
		b = BPF_SRC(code) == BPF_X ? "BPF_X" : "BPF_K";
		break;
	case BPF_JMP:
		a = jmp_ops[BPF_OP(code) >> 4];
		b = BPF_OP(code) == BPF_JA ? "" : BPF_SRC(code) == BPF_X ? "BPF_X" : "BPF_K";
		break;
	case BPF_RET:
		a = BPF_RVAL(code) == BPF_A ? "BPF_A" : BPF_RVAL(code) == BPF_X ? "BPF_X" : "BPF_K";
		b = "";
		break;
	case BPF_MISC:
		a = BPF_MISCOP(code) == BPF_TAX ? "BPF_TAX" : "BPF_TXA";
		b = "";
		break;
	default: /* BPF_ST, BPF_STX */
		a = b = "";
		break;
	}
	if (!a || !b) { /* something the macros cannot spell */
		snprintf(buf, cap, "0x%04x", code);
		return;
	}
	snprintf(buf, cap, "%s%s%s%s%s", cls, *a ? " | " : "", a, *b ? " | " : "", b);
}

void sf_bpf_print_c(FILE *out, const struct sock_filter *insns, unsigned n)
{
	struct flow f;
	char code[64], ins[64], com[96], k[64];
	unsigned i;

	flow_run(&f, insns, n);
	fprintf(out,
		"/* seccomp-BPF program, %u instructions (secfilter compile).  Install with\n"
		" *   prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);\n"
		" *   syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &secfilter_fprog);\n"
		" */\n"
		"#include <linux/filter.h>\n"
		"#include <linux/seccomp.h>\n\n"
		"/* unused: a file that includes this may use either of the two */\n"
		"__attribute__((unused)) static struct sock_filter secfilter_filter[] = {\n", n);
	for (i = 0; i < n; i++) {
		const struct sock_filter *in = &insns[i];
		uint32_t a = f.a ? f.a[i] : A_UNKNOWN;

		code_name(code, sizeof(code), in->code);
		disasm_one(insns, i, a, ins, sizeof(ins), com, sizeof(com));
		if (in->code == (BPF_RET | BPF_K))
			action_name(k, sizeof(k), in->k, 1);
		else
			snprintf(k, sizeof(k), "0x%x", in->k);
		if (BPF_CLASS(in->code) == BPF_JMP && BPF_OP(in->code) != BPF_JA)
			fprintf(out, "\t/* %04u */ BPF_JUMP(%s, %s, %u, %u),", i, code, k, in->jt, in->jf);
		else
			fprintf(out, "\t/* %04u */ BPF_STMT(%s, %s),", i, code, k);
		fprintf(out, " /* %s%s%s */\n", ins, com[0] ? "; " : "", com);
	}
	fprintf(out, "};\n\n"
		     "__attribute__((unused)) static struct sock_fprog secfilter_fprog = {\n"
		     "\t.len = sizeof(secfilter_filter) / sizeof(secfilter_filter[0]),\n"
		     "\t.filter = secfilter_filter,\n"
		     "};\n");
	flow_free(&f);
}

int sf_bpf_write_raw(FILE *out, const struct sock_filter *insns, unsigned n)
{
	if (n && fwrite(insns, sizeof(*insns), n, out) != n) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
