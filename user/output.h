/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the report goes (stdout, -o FILE, stderr, --timeline FILE): sinks
 * print into memory; output_flush() writes whole lines only, one write() per
 * batch of at most PIPE_BUF bytes (or per longer line), so a COMMAND writing
 * to the same pipe or file never tears a record. Every write is checked: a
 * failure is said once on stderr and its lines are counted.
 * Files are opened close-on-exec and, when regular, truncated only by
 * output_begin_all(), after start-up succeeded (docs/files-and-output.md).
 */
#ifndef NW_OUTPUT_H
#define NW_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct nw_output;

/* -o / --timeline PATH; NULL (one line said why) when it cannot be opened. */
struct nw_output *output_open_path(const char *path);
/* An fd notifwait was given (1, 2): never closed, never truncated. */
struct nw_output *output_open_fd(int fd, const char *name);
FILE *output_file(struct nw_output *o);
/* Start-up succeeded: truncate the regular files opened by path. */
int output_begin_all(void);
/* Writes every whole line printed so far; returns 0 or -errno. */
int output_flush(struct nw_output *o);
void output_flush_all(void);
/* Lines that could not be written, over every output. */
unsigned long long output_lines_lost(void);
/*
 * Flushes and closes every output; a file created by a failed start is
 * removed. Returns the lines that could not be written, over the whole run.
 */
unsigned long long output_close_all(void);

#endif /* NW_OUTPUT_H */
