// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pid_check.h"

#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */

bool nw_is_kernel_thread(pid_t pid)
{
	char path[64], line[1024], *p;
	unsigned long flags;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* after "pid (comm) ": state, ppid, pgrp, session, tty, tpgid, flags */
	p = p ? strrchr(line, ')') : NULL;
	if (!p)
		return false;
	for (i = 0; i < 7 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return false;
	flags = strtoul(p + 1, NULL, 10);
	return flags & PF_KTHREAD;
}
