// SPDX-License-Identifier: MIT
/*
 * Whether `pagecliff run`'s shim can act on a program, from its file alone
 * (run-exe.h): a static, 32-bit, setuid, setgid or file-capable program, a
 * Go program, one linked with liburing or libaio, or a script whose
 * interpreter is one of them.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "run-exe.h"

/* Where execvp() would find @cmd, or NULL. */
static const char *find_exe(const char *cmd, char *buf, size_t size)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/'))
		return cmd;
	for (p = path && *path ? path : "/bin:/usr/bin"; ; p = end + 1) {
		end = strchrnul(p, ':');
		snprintf(buf, size, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", cmd);
		if (!access(buf, X_OK))
			return buf;
		if (!*end)
			return NULL;
	}
}

/* Section @i's header of the ELF file @fd; 0 or -1. */
static int elf_shdr(int fd, const Elf64_Ehdr *eh, int i, Elf64_Shdr *sh)
{
	return pread(fd, sh, sizeof(*sh), eh->e_shoff + (uint64_t)i * eh->e_shentsize) ==
	       sizeof(*sh) ? 0 : -1;
}

/* Does the section @sh of @fd hold @needle?  (Small sections only.) */
static int section_holds(int fd, const Elf64_Shdr *sh, const char *needle)
{
	char *buf;
	int found = 0;

	if (sh->sh_size == 0 || sh->sh_size > (4u << 20))
		return 0;
	buf = malloc(sh->sh_size + 1);
	if (buf && pread(fd, buf, sh->sh_size, sh->sh_offset) == (ssize_t)sh->sh_size)
		found = memmem(buf, sh->sh_size, needle, strlen(needle)) != NULL;
	free(buf);
	return found;
}

/*
 * Why the shim cannot see the reads and writes of the dynamic ELF program
 * @fd although it loads: a Go program makes its own system calls; a program
 * linked with liburing or libaio reads through rings the shim does not follow.
 */
static const char *elf_sections_refusal(int fd, const Elf64_Ehdr *eh)
{
	Elf64_Shdr names, sh;
	char name[32];

	if (!eh->e_shoff || eh->e_shstrndx >= eh->e_shnum || elf_shdr(fd, eh, eh->e_shstrndx, &names))
		return NULL;
	for (int i = 0; i < eh->e_shnum; i++) {
		ssize_t n;

		if (elf_shdr(fd, eh, i, &sh))
			return NULL;
		n = pread(fd, name, sizeof(name) - 1, names.sh_offset + sh.sh_name);
		if (n <= 0)
			continue;
		name[n] = 0;
		if (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".note.go.buildid"))
			return "is a Go program (it makes its own system calls)";
		if (!strcmp(name, ".dynstr") && (section_holds(fd, &sh, "liburing.so") ||
						  section_holds(fd, &sh, "libaio.so")))
			return "reads through io_uring or AIO (liburing or libaio)";
	}
	return NULL;
}

/* Why the shim will not act in the ELF file @fd; NULL: it will. */
static const char *elf_refusal(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	const char *why;
	int dynamic = 0;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return NULL;	/* not ELF: the kernel decides, nothing to say */
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return "is a 32-bit program (the shim is built for 64-bit only)";
	for (int i = 0; i < eh.e_phnum && !dynamic; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			return NULL;
		dynamic = ph.p_type == PT_INTERP;
	}
	why = elf_sections_refusal(fd, &eh);
	if (!why && !dynamic)
		why = "is statically linked (no dynamic loader to preload with)";
	return why;
}

/* Why LD_PRELOAD will be ignored for @exe (secure-execution mode), or NULL. */
static const char *secure_refusal(const char *exe, const struct stat *st)
{
	if ((st->st_mode & S_ISUID) && st->st_uid != geteuid())
		return "is setuid (the loader ignores LD_PRELOAD for it)";
	if ((st->st_mode & S_ISGID) && st->st_gid != getegid())
		return "is setgid (the loader ignores LD_PRELOAD for it)";
	if (geteuid() && getxattr(exe, "security.capability", NULL, 0) > 0)
		return "has file capabilities (the loader ignores LD_PRELOAD for it)";
	return NULL;
}

/* A script runs its interpreter: the one to look at.  Returns @exe or @buf. */
static const char *script_interpreter(int fd, const char *exe, char *buf, size_t size)
{
	char line[256], *end;
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);

	if (n < 3 || line[0] != '#' || line[1] != '!')
		return exe;
	line[n] = 0;
	end = line + 2 + strspn(line + 2, " \t");
	end[strcspn(end, " \t\n")] = 0;
	if (*end != '/')
		return exe;
	snprintf(buf, size, "%s", end);
	return buf;
}

const char *run_exe_refusal(const char *cmd, char *exe_buf, size_t size)
{
	char found[PATH_MAX], interp[PATH_MAX];
	const char *exe = find_exe(cmd, found, sizeof(found)), *why = NULL;
	struct stat st;
	int fd;

	for (int depth = 0; exe && depth < 2 && !why; depth++) {
		const char *next;

		fd = open(exe, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			if (fd >= 0)
				close(fd);
			return NULL;		/* execvp() will say what is wrong */
		}
		why = secure_refusal(exe, &st);
		if (!why)
			why = elf_refusal(fd);
		next = why ? exe : script_interpreter(fd, exe, interp, sizeof(interp));
		close(fd);
		if (why || next == exe)
			break;
		exe = next;
	}
	if (why)
		snprintf(exe_buf, size, "%s", exe);
	return why;
}
