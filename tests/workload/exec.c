// SPDX-License-Identifier: GPL-2.0
/*
 * Exec mode (-- PROGRAM ARGS): the target has installed the filter and
 * handed the listener to the supervisor; it now becomes PROGRAM. The
 * filter and its listener survive execve, so the supervisor serves the
 * program's intercepted syscalls as it serves the built-in loop's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "nw.h"

#define EXIT_CANNOT_EXEC 127 /* as the shells report it */

/* The path as a JSON string body: quote, backslash and controls escaped. */
static void json_escape(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && n + 7 < size; in++) {
		unsigned char c = *in;

		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = c;
		} else if (c < 0x20) {
			n += snprintf(out + n, size - n, "\\u%04x", c);
		} else {
			out[n++] = c;
		}
	}
	out[n] = '\0';
}

int nw_exec_program(int target_idx)
{
	char path[512];

	if (nw_apply_rlimit_nofile())
		return NW_EXIT_FAIL;
	json_escape(nw_opts.exec_argv[0], path, sizeof(path));
	truth_emit("exec",
		   "\"pid\":%d,\"target\":%d,\"path\":\"%s\",\"t\":%llu",
		   getpid(), target_idx, path, (unsigned long long)nw_now());
	fflush(NULL);
	execvp(nw_opts.exec_argv[0], nw_opts.exec_argv);
	fprintf(stderr, "nw-workload: cannot exec '%s': %s\n",
		nw_opts.exec_argv[0], strerror(errno));
	return EXIT_CANNOT_EXEC;
}
