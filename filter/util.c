/* Small containers for the policy engine: growable arrays over sf_mem_alloc
 * and a bounded text writer that needs no libc I/O (the printers also run
 * inside the preload library's signal handler). */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "mem.h"
#include "systab.h"

void *sf_vec_push(struct sf_vec *v, size_t elem, uint32_t limit)
{
	if (v->n >= limit)
		return NULL;
	if (v->n == v->cap) {
		/* first 256 bytes' worth: a policy of a few rules then fits in
		 * the pages the preload library's start touches anyway (16 of
		 * them took a fifth page of its arena: a fault per process) */
		uint32_t cap = v->cap ? v->cap * 2 : elem < 256 ? (uint32_t)(256 / elem) : 1;
		void *data;

		if (cap > limit)
			cap = limit;
		data = sf_mem_alloc((size_t)cap * elem);
		if (!data)
			return NULL;
		if (v->n)
			memcpy(data, v->data, (size_t)v->n * elem);
		sf_vec_free(v, elem);
		v->data = data;
		v->cap = cap;
	}
	return (char *)v->data + (size_t)v->n++ * elem;
}

void sf_vec_free(struct sf_vec *v, size_t elem)
{
	if (v->data)
		sf_mem_free(v->data, (size_t)v->cap * elem);
	v->data = NULL;
	v->cap = 0;
}

const char *sf_file_error(int e)
{
	const char *text = e > 0 ? sf_errno_text((unsigned)e) : NULL;

	switch (e) {
	case EINVAL: return "not a regular file";
	case EAGAIN: return "it changed while being read";
	case ENOMEM: return "out of memory";
	default: return text ? text : "error";
	}
}

/* Byte loops, not memcpy and strlen: the preload library prints policies
 * in every exec'd image and must not call what the program may define. */
void sf_out_mem(struct sf_out *o, const char *s, size_t n)
{
	size_t i, room = o->len < o->cap ? o->cap - o->len : 0;

	for (i = 0; i < n && i < room; i++)
		o->buf[o->len + i] = s[i];
	o->len += n;
}

void sf_out_str(struct sf_out *o, const char *s)
{
	for (; *s; s++) {
		if (o->len < o->cap)
			o->buf[o->len] = *s;
		o->len++;
	}
}

int sf_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

unsigned sf_digits(char d[SF_DIGITS_MAX], uint64_t v, unsigned base)
{
	unsigned i = SF_DIGITS_MAX;

	do {
		d[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return i;
}

void sf_out_digits(struct sf_out *o, uint64_t v, unsigned base)
{
	char d[SF_DIGITS_MAX];
	unsigned i = sf_digits(d, v, base);

	sf_out_mem(o, d + i, sizeof d - i);
}

void sf_out_u64(struct sf_out *o, uint64_t v, unsigned base)
{
	if (base == 16)
		sf_out_str(o, "0x");
	sf_out_digits(o, v, base);
}

void sf_out_s64(struct sf_out *o, int64_t v)
{
	if (v < 0) {
		sf_out_str(o, "-");
		sf_out_u64(o, -(uint64_t)v, 10);
	} else {
		sf_out_u64(o, (uint64_t)v, 10);
	}
}

size_t sf_out_end(struct sf_out *o)
{
	if (o->cap)
		o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
	return o->len;
}
