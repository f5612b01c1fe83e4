// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output.h"

#define MAX_OUTPUTS 8

struct nw_output {
	char *name; /* for messages */
	int fd;
	bool own_fd;
	bool regular; /* a regular file opened by path: truncated, rolled back */
	off_t pos; /* regular: where the next write goes (no lseek per chunk) */
	bool created; /* did not exist: removed if start-up fails */
	bool begun;
	FILE *file; /* what sinks print to: into buf */
	char *buf;
	size_t len, cap;
	unsigned long long lines_lost;
	bool warned;
};

static struct nw_output *outputs[MAX_OUTPUTS];
static unsigned int noutputs;

static unsigned long long count_lines(const char *p, size_t n)
{
	unsigned long long lines = 0;
	size_t i;

	for (i = 0; i < n; i++)
		lines += p[i] == '\n';
	return lines ? lines : 1;
}

static void lost(struct nw_output *o, const char *p, size_t n, int err)
{
	o->lines_lost += count_lines(p, n);
	if (o->warned)
		return;
	o->warned = true;
	fprintf(stderr,
		"notifwait: cannot write %s: %s (counting the lines lost)\n",
		o->name, strerror(err));
}

static ssize_t cookie_write(void *cookie, const char *p, size_t n)
{
	struct nw_output *o = cookie;

	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 8192;
		char *grown;

		while (cap < o->len + n)
			cap *= 2;
		grown = realloc(o->buf, cap);
		if (!grown) {
			lost(o, p, n, ENOMEM);
			return n;
		}
		o->buf = grown;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return n;
}

static struct nw_output *output_new(int fd, const char *name)
{
	static const cookie_io_functions_t io = { .write = cookie_write };
	struct nw_output *o;

	if (noutputs == MAX_OUTPUTS)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->name = strdup(name);
	o->fd = fd;
	o->file = o->name ? fopencookie(o, "w", io) : NULL;
	if (!o->file) {
		free(o->name);
		free(o);
		return NULL;
	}
	/*
	 * Only the main thread writes outputs: no lock per fputc (an atomic
	 * each, measured at half of the reporter's CPU at 15k records/s).
	 */
	__fsetlocking(o->file, FSETLOCKING_BYCALLER);
	outputs[noutputs++] = o;
	return o;
}

struct nw_output *output_open_fd(int fd, const char *name)
{
	struct nw_output *o = output_new(fd, name);

	if (!o)
		fprintf(stderr, "notifwait: out of memory\n");
	return o;
}

static bool same_file(const struct stat *st, int fd)
{
	struct stat fst;

	return !fstat(fd, &fst) && fst.st_dev == st->st_dev &&
	       fst.st_ino == st->st_ino;
}

/* -o /dev/stdout, -o /dev/stderr: our own fd, its offset and no truncation. */
static int reuse_std_fd(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st))
		return -1;
	for (fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (same_file(&st, fd))
			return fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return -1;
}

struct nw_output *output_open_path(const char *path)
{
	const int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
	bool created = false;
	struct nw_output *o;
	struct stat st;
	int fd, err;

	fd = reuse_std_fd(path);
	if (fd < 0) {
		/* Not O_TRUNC: a previous file survives a failed start. */
		fd = open(path, flags | O_CREAT | O_EXCL, 0666);
		created = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = open(path, flags);
	}
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		fprintf(stderr, "notifwait: cannot write %s: %s\n", path,
			strerror(err));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	o = output_new(fd, path);
	if (!o) {
		fprintf(stderr, "notifwait: out of memory\n");
		close(fd);
		if (created)
			unlink(path);
		return NULL;
	}
	o->own_fd = true;
	o->created = created;
	/* FIFOs, ttys, /dev/null: written as they are, never truncated */
	o->regular = S_ISREG(st.st_mode) && !same_file(&st, STDOUT_FILENO) &&
		     !same_file(&st, STDERR_FILENO);
	return o;
}

FILE *output_file(struct nw_output *o)
{
	return o->file;
}

int output_begin_all(void)
{
	unsigned int i;

	for (i = 0; i < noutputs; i++) {
		struct nw_output *o = outputs[i];

		o->begun = true;
		if (o->regular && ftruncate(o->fd, 0)) {
			fprintf(stderr, "notifwait: cannot truncate %s: %s\n",
				o->name, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/*
 * The end of the next chunk of whole lines at @p, at most @max bytes (one
 * longer line alone): PIPE_BUF keeps a pipe's lines whole beside other
 * writers; a regular file takes more at once (fewer syscalls: it is cut
 * back to its last whole line when a write fails).
 */
#define REGULAR_CHUNK (64 * 1024)
static size_t chunk_len(const char *p, size_t n, size_t max)
{
	/* backwards from the chunk's end: about one line scanned per chunk */
	const char *nl = memrchr(p, '\n', n < max ? n : max);

	if (!nl && n > max)
		nl = memchr(p + max, '\n', n - max); /* one longer line */
	return nl ? (size_t)(nl - p) + 1 : 0;
}

/* One chunk; on a regular file a failed one is cut back off, no half line. */
static int write_chunk(struct nw_output *o, const char *p, size_t n)
{
	off_t start = o->regular ? o->pos : -1;
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = write(o->fd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : EIO;

			o->pos += done;
			if (start >= 0 && done && !ftruncate(o->fd, start) &&
			    lseek(o->fd, start, SEEK_SET) == start)
				o->pos = start;
			lost(o, p, n, err);
			return -err;
		}
		done += w;
	}
	o->pos += n;
	return 0;
}

static int write_lines(struct nw_output *o, bool all)
{
	size_t off = 0, n;
	int err = 0, e;

	while (off < o->len) {
		n = chunk_len(o->buf + off, o->len - off,
			      o->regular ? REGULAR_CHUNK : PIPE_BUF);
		if (!n) {
			if (!all)
				break; /* a line still being printed */
			n = o->len - off;
		}
		e = write_chunk(o, o->buf + off, n);
		if (e && !err)
			err = e;
		off += n;
	}
	memmove(o->buf, o->buf + off, o->len - off);
	o->len -= off;
	return err;
}

int output_flush(struct nw_output *o)
{
	if (fflush(o->file))
		return -EIO;
	return write_lines(o, false);
}

void output_flush_all(void)
{
	unsigned int i;

	for (i = 0; i < noutputs; i++)
		output_flush(outputs[i]);
}

unsigned long long output_lines_lost(void)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < noutputs; i++)
		n += outputs[i]->lines_lost;
	return n;
}

unsigned long long output_close_all(void)
{
	unsigned long long lines_lost = 0;
	unsigned int i;

	for (i = 0; i < noutputs; i++) {
		struct nw_output *o = outputs[i];

		fflush(o->file);
		if (o->begun)
			write_lines(o, true);
		fclose(o->file);
		if (o->own_fd && close(o->fd) && !o->warned)
			lost(o, "", 0, errno);
		if (o->created && !o->begun)
			unlink(o->name); /* start-up failed: leave no trace */
	}
	for (i = 0; i < noutputs; i++) {
		struct nw_output *o = outputs[i];

		lines_lost += o->lines_lost;
		free(o->buf);
		free(o->name);
		free(o);
	}
	noutputs = 0;
	return lines_lost;
}
