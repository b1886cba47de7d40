/* What an exec runs besides the file it names, read as the kernel reads
 * it: a script's #! line (fs/binfmt_script.c) and an ELF image's
 * interpreter (fs/binfmt_elf.c).  The exec path decides by them what the
 * new image will be (trap/exec.c); a report of what Landlock denied at an
 * exec names the one it could not open (report/llreport.c). */
#include <elf.h>
#include <errno.h>

#include "obj.h"

static int spacetab(char c)
{
	return c == ' ' || c == '\t';
}

long sf_script_line(const unsigned char *head, long n, char *line, const char **name,
		    const char **arg)
{
	long end, i, k;

	for (end = 2; end < n && head[end] != '\n'; end++)
		;
	if (end == n) {
		/* No newline in what the kernel reads: the name must end
		 * within it, or the kernel takes it for truncated. */
		for (i = 2; i < n && spacetab((char)head[i]); i++)
			;
		if (i == n)
			return -ENOEXEC;
		for (; i < n && head[i] && !spacetab((char)head[i]); i++)
			;
		if (i == n && n == SF_SCRIPT_HEAD)
			return -ENOEXEC;
	}
	for (k = 0; k < end - 2; k++)
		line[k] = (char)head[k + 2];
	line[k] = '\0';
	while (k > 0 && spacetab(line[k - 1]))
		line[--k] = '\0';
	for (i = 0; line[i] && spacetab(line[i]); i++)
		;
	if (!line[i])
		return -ENOEXEC;
	*name = line + i;
	for (; line[i] && !spacetab(line[i]); i++)
		;
	*arg = NULL;
	if (line[i]) {
		line[i++] = '\0';
		for (; line[i] && spacetab(line[i]); i++)
			;
		if (line[i])
			*arg = line + i;
	}
	return 0;
}

/* Bytes of fd at off: from head when the first read has them (the
 * program headers and the interpreter's name usually follow the ELF
 * header), else read.  0, or -1. */
static int bytes_at(long fd, const unsigned char *head, long n, uint64_t off, void *out,
		    uint64_t len)
{
	if (off <= (uint64_t)n && len <= (uint64_t)n - off) {
		sf_memcpy(out, head + off, len);
		return 0;
	}
	return sf_sys(SYS_pread64, fd, (long)out, (long)len, (long)off, 0, 0) == (long)len ? 0 : -1;
}

int sf_elf_interp(long fd, const unsigned char *head, long n, char *interp, size_t cap)
{
	const Elf64_Ehdr *eh = (const void *)head;
	Elf64_Phdr ph;
	unsigned i;

	if (n < (long)sizeof *eh || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof ph)
		return -1;
	for (i = 0; i < eh->e_phnum && i < 256; i++) {
		if (bytes_at(fd, head, n, eh->e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph) < 0)
			return -1;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > cap ||
		    bytes_at(fd, head, n, ph.p_offset, interp, ph.p_filesz) < 0 ||
		    interp[ph.p_filesz - 1] != '\0')
			return -1;
		return 1;
	}
	return 0;
}
