// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "errnames.h"

const char *nw_errno_name(long err)
{
	static char other[32];
	const char *name;

	if (err < 0)
		err = -err;
	/* Codes that only the kernel's syscall exit sees (linux/errno.h). */
	switch (err) {
	case 512:
		return "ERESTARTSYS";
	case 513:
		return "ERESTARTNOINTR";
	case 514:
		return "ERESTARTNOHAND";
	case 516:
		return "ERESTART_RESTARTBLOCK";
	}
	name = err < 4096 ? strerrorname_np((int)err) : NULL;
	if (name)
		return name;
	snprintf(other, sizeof(other), "E%ld", err);
	return other;
}
