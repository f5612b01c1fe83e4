// SPDX-License-Identifier: GPL-2.0
/*
 * Ground-truth writer: one JSON object per line, each line one write(2)
 * on an O_APPEND descriptor shared by every process, so lines stay whole
 * when a process is SIGKILLed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "nw.h"

static int truth_fd = -1;

int truth_open(const char *path)
{
	if (!path)
		return 0;
	truth_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (truth_fd < 0) {
		fprintf(stderr, "nw-workload: cannot open truth file '%s': %m\n", path);
		return -1;
	}
	return 0;
}

void truth_emit(const char *ev, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n, m;

	if (truth_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "{\"ev\":\"%s\",\"run\":\"%s\",", ev, nw_opts.run);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - n - 2, fmt, ap);
	va_end(ap);
	if (m < 0 || n + m >= (int)sizeof(line) - 2)
		return;
	n += m;
	line[n++] = '}';
	line[n++] = '\n';
	if (write(truth_fd, line, n) != n)
		perror("nw-workload: truth write");
}
