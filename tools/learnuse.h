/* What a traced run does to files and TCP ports, into learn's model
 * (learned.h: its fs uses and ports): called by learn's tracer at each
 * syscall's entry and exit and at each exec (learnuse.c says how). */
#ifndef SECFILTER_LEARNUSE_H
#define SECFILTER_LEARNUSE_H

#include <stdint.h>
#include <sys/types.h>

#include "learned.h"

struct learnuse;

struct learnuse *learnuse_new(struct learned *l);
void learnuse_free(struct learnuse *w);

/* A task stopped at a syscall's entry, its arguments in a. */
void learnuse_entry(struct learnuse *w, pid_t pid, long nr, const uint64_t a[6]);
/* The same task at the syscall's exit, with its result. */
void learnuse_exit(struct learnuse *w, pid_t pid, long ret);
/* pid has executed a new image (former: the task that called execve, as
 * PTRACE_GETEVENTMSG says). */
void learnuse_exec(struct learnuse *w, pid_t pid, pid_t former);

#endif
