/* A signal frame's vector state (the kernel's xsave or fxsave image). */
#include "trap.h"

/* The software-reserved bytes of a frame's fxsave image (glibc's struct
 * _fpstate does not name them): what the kernel saved after it, if any. */
struct fpx_sw {
	uint32_t magic1, extended_size;
	uint64_t xfeatures;
};

static const struct fpx_sw *fpx_sw(const void *fp)
{
	return (const void *)((const char *)fp + 464);
}

/* A size of xsave area as the frame says, or the legacy 512 bytes. */
size_t sf_fpstate_size(const void *fp)
{
	const struct fpx_sw *sw = fpx_sw(fp);

	return sw->magic1 == FP_XSTATE_MAGIC1 ? sw->extended_size : 512;
}

/* The components the kernel saved there (xrstor's mask), or 0 for an
 * fxsave image alone. */
uint64_t sf_fpstate_xfeatures(const void *fp)
{
	const struct fpx_sw *sw = fpx_sw(fp);

	return sw->magic1 == FP_XSTATE_MAGIC1 ? sw->xfeatures : 0;
}
