// SPDX-License-Identifier: GPL-2.0
/*
 * Pids as the host sees them and as the target's own pid namespace sees
 * them, from the NSpid line of /proc/thread-self/status (the proc mount
 * is the host's). The openat passes the filter via NW_ESCAPE_MODE.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ids.h"
#include "nw.h"

static int read_nspid(const char *path, pid_t *host, pid_t *ns)
{
	char buf[2048], *p, *end;
	long fd, n;

	fd = syscall(__NR_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, NW_ESCAPE_MODE);
	if (fd < 0)
		return -1;
	n = syscall(__NR_read, fd, buf, sizeof(buf) - 1);
	syscall(__NR_close, fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nNSpid:");
	if (!p)
		return -1;
	p += strlen("\nNSpid:");
	*host = strtol(p, &end, 10);
	*ns = *host;
	while (end != p && *end != '\n') {
		p = end;
		*ns = strtol(p, &end, 10);
	}
	return 0;
}

int nw_thread_ids(struct nw_ids *ids)
{
	if (read_nspid("/proc/self/status", &ids->pid, &ids->ns_pid) ||
	    read_nspid("/proc/thread-self/status", &ids->tid, &ids->ns_tid)) {
		fprintf(stderr, "nw-workload: cannot read NSpid from /proc\n");
		return -1;
	}
	return 0;
}
