// SPDX-License-Identifier: GPL-2.0
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "syscalls.h"

#define NAME_CACHE 1024

static char *names[NAME_CACHE];

const char *nw_syscall_name(int nr)
{
	static char other[32];
	char *name;

	if (nr >= 0 && nr < NAME_CACHE && names[nr])
		return names[nr];
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	if (!name) {
		snprintf(other, sizeof(other), "nr_%d", nr);
		return other;
	}
	if (nr >= 0 && nr < NAME_CACHE) {
		names[nr] = name;
		return name;
	}
	snprintf(other, sizeof(other), "%s", name);
	free(name);
	return other;
}

int nw_syscall_number(const char *name)
{
	char *end;
	long nr;
	int resolved;

	if (!name || !*name)
		return -1;
	nr = strtol(name, &end, 10);
	if (*end == '\0') {
		char *known;

		/* a number no syscall has can never match: refused too */
		if (nr < 0 || nr >= 4096)
			return -1;
		known = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		free(known);
		return known ? (int)nr : -1;
	}
	resolved = seccomp_syscall_resolve_name_arch(SCMP_ARCH_NATIVE, name);
	return resolved == __NR_SCMP_ERROR || resolved < 0 ? -1 : resolved;
}
