/* `secfilter compile --format=disasm|c|raw`: a seccomp-BPF program shown
 * to people, to C compilers, or as the bytes the kernel takes. */
#ifndef SECFILTER_BPF_PRINT_H
#define SECFILTER_BPF_PRINT_H

#include <stdio.h>

#include <linux/filter.h>

/* One instruction a line, jump targets labelled, with what is compared
 * (nr and its syscall name, the architecture, an argument's half) and the
 * actions named in comments. */
void sf_bpf_print_disasm(FILE *out, const struct sock_filter *insns, unsigned n);

/* A C definition: `static struct sock_filter secfilter_filter[]` with
 * BPF_STMT/BPF_JUMP initializers, and a `struct sock_fprog` for it. */
void sf_bpf_print_c(FILE *out, const struct sock_filter *insns, unsigned n);

/* The struct sock_filter array as is (8 bytes an instruction, host byte
 * order).  0, or -1 with errno set. */
int sf_bpf_write_raw(FILE *out, const struct sock_filter *insns, unsigned n);

#endif
