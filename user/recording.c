// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "cli.h" /* NW_VERSION */
#include "recording.h"

#define WRITE_BUF (256 * 1024)
/* SIGKILL loses at most about this much of the run */
#define FLUSH_NS (500ULL * 1000 * 1000)

#ifndef AUDIT_ARCH_X86_64
#define AUDIT_ARCH_X86_64 0xc000003eU
#endif
#ifndef AUDIT_ARCH_AARCH64
#define AUDIT_ARCH_AARCH64 0xc00000b7U
#endif

size_t recording_kind_size(unsigned int kind)
{
	switch (kind) {
	case NW_REC_TICK:
		return sizeof(struct nw_rec_tick);
	case NW_REC_COUNTERS:
		return sizeof(struct nw_rec_counters);
	case NW_REC_END:
		return sizeof(struct nw_fact_hdr);
	}
	return nw_fact_size(kind);
}

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void recording_info_host(struct recording_info *info)
{
	static struct utsname uts;
	__u64 mono = clock_ns(CLOCK_MONOTONIC);

	memset(info, 0, sizeof(*info));
	info->nw_version = NW_VERSION;
	if (!uname(&uts))
		info->kernel_release = uts.release;
#if defined(__x86_64__)
	info->arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	info->arch = AUDIT_ARCH_AARCH64;
#endif
	info->realtime_offset_ns = (__s64)(clock_ns(CLOCK_REALTIME) - mono);
	info->mono_start_ns = mono;
}

/* ---- writer ---- */

struct recording_writer {
	char *path;
	int fd;
	char *buf;
	size_t len;
	unsigned long long buffered; /* entries in buf */
	unsigned long long lost;
	unsigned long long skipped; /* malformed facts, not written */
	bool failed;
	__u64 last_flush_ns;
};

static const char *refused_type(mode_t mode)
{
	if (S_ISREG(mode) || S_ISFIFO(mode))
		return NULL;
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* Never follows a symlink, never truncates what is not a regular file. */
static int open_record_path(const char *path)
{
	const int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
	const char *why;
	struct stat st;
	int fd;

	fd = open(path, flags | O_CREAT | O_EXCL, 0666);
	if (fd < 0 && errno == EEXIST) {
		if (lstat(path, &st) == 0 && (why = refused_type(st.st_mode))) {
			fprintf(stderr,
				"notifwait: --record %s: is %s, not replacing it\n",
				path, why);
			return -1;
		}
		/* a FIFO: blocks until its reader opens it, like a shell's > */
		fd = open(path, flags);
	}
	if (fd < 0) {
		fprintf(stderr, "notifwait: --record %s: %s\n", path,
			errno == ELOOP ?
				"is a symbolic link, not replacing it" :
				strerror(errno));
		return -1;
	}
	/* the path may have changed between lstat and open */
	if (fstat(fd, &st) || (why = refused_type(st.st_mode))) {
		fprintf(stderr,
			"notifwait: --record %s: is %s, not replacing it\n",
			path, why ? why : "unreadable");
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		fprintf(stderr, "notifwait: --record %s: %s\n", path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t done = write(fd, p, n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			return -errno;
		if (done == 0)
			return -EIO;
		p += done;
		n -= done;
	}
	return 0;
}

int recording_flush(struct recording_writer *w)
{
	int err;

	if (w->failed || !w->len)
		return w->failed ? -EIO : 0;
	err = write_all(w->fd, w->buf, w->len);
	if (err) {
		w->failed = true;
		w->lost += w->buffered;
		fprintf(stderr,
			"notifwait: cannot write the recording %s: %s (no more is written)\n",
			w->path, strerror(-err));
	}
	w->len = 0;
	w->buffered = 0;
	return err;
}

static void put(struct recording_writer *w, const void *a, size_t na,
		const void *b, size_t nb)
{
	if (w->failed) {
		w->lost++;
		return;
	}
	if (w->len + na + nb > WRITE_BUF)
		recording_flush(w);
	if (w->failed) {
		w->lost++;
		return;
	}
	memcpy(w->buf + w->len, a, na);
	if (nb)
		memcpy(w->buf + w->len + na, b, nb);
	w->len += na + nb;
	w->buffered++;
}

static void copy_str(char *dst, size_t n, const char *src)
{
	if (src)
		strncpy(dst, src, n - 1);
}

struct recording_writer *recording_create(const char *path,
					  const struct recording_info *info)
{
	struct recording_writer *w = calloc(1, sizeof(*w));
	struct nw_rec_header h;

	if (w) {
		w->buf = malloc(WRITE_BUF);
		w->path = strdup(path);
	}
	if (!w || !w->buf || !w->path) {
		fprintf(stderr, "notifwait: out of memory\n");
		goto fail;
	}
	w->fd = open_record_path(path);
	if (w->fd < 0)
		goto fail;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, NW_REC_MAGIC, sizeof(h.magic));
	h.format_version = NW_REC_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.facts_version = NW_FACTS_VERSION;
	h.arch = info->arch;
	h.realtime_offset_ns = info->realtime_offset_ns;
	h.mono_start_ns = info->mono_start_ns;
	copy_str(h.nw_version, sizeof(h.nw_version), info->nw_version);
	copy_str(h.kernel_release, sizeof(h.kernel_release),
		 info->kernel_release);
	copy_str(h.backend, sizeof(h.backend), info->backend);
	copy_str(h.backend_reason, sizeof(h.backend_reason),
		 info->backend_reason);
	put(w, &h, sizeof(h), NULL, 0);
	w->buffered = 0; /* the header is not an entry */
	/* at once: a reader of a FIFO learns what it reads */
	recording_flush(w);
	w->last_flush_ns = info->mono_start_ns;
	return w;
fail:
	if (w) {
		free(w->buf);
		free(w->path);
	}
	free(w);
	return NULL;
}

void recording_fact(struct recording_writer *w, const void *fact, size_t size)
{
	const struct nw_fact_hdr *h = fact;

	/* what a reader would refuse is not written: it would end the replay */
	if (size < sizeof(*h) || h->size != size ||
	    h->kind >= NW_FACT_KIND_MAX ||
	    recording_kind_size(h->kind) != size) {
		w->skipped++;
		return;
	}
	put(w, fact, size, NULL, 0);
}

unsigned long long recording_skipped(const struct recording_writer *w)
{
	return w->skipped;
}

static struct nw_fact_hdr rec_hdr(unsigned int kind, size_t size, __u64 t_ns)
{
	return (struct nw_fact_hdr){ .kind = kind, .size = size, .t_ns = t_ns };
}

void recording_tick(struct recording_writer *w, __u64 now_ns)
{
	struct nw_rec_tick t = { .h = rec_hdr(NW_REC_TICK, sizeof(t), now_ns),
				 .now_ns = now_ns };

	put(w, &t, sizeof(t), NULL, 0);
	if (now_ns - w->last_flush_ns >= FLUSH_NS) {
		recording_flush(w);
		w->last_flush_ns = now_ns;
	}
}

void recording_counters(struct recording_writer *w, const __u64 *values,
			unsigned int count)
{
	struct nw_rec_counters c = { 0 };

	if (count > NW_REC_MAX_COUNTERS)
		count = NW_REC_MAX_COUNTERS;
	c.h = rec_hdr(NW_REC_COUNTERS, sizeof(c) + count * sizeof(__u64),
		      clock_ns(CLOCK_MONOTONIC));
	c.count = count;
	put(w, &c, sizeof(c), values, count * sizeof(__u64));
}

bool recording_failed(const struct recording_writer *w)
{
	return w->failed;
}

unsigned long long recording_lost(const struct recording_writer *w)
{
	return w->lost + (w->failed ? w->buffered : 0);
}

unsigned long long recording_close(struct recording_writer *w)
{
	struct nw_fact_hdr end;
	unsigned long long lost;

	if (!w)
		return 0;
	end = rec_hdr(NW_REC_END, sizeof(end), clock_ns(CLOCK_MONOTONIC));
	put(w, &end, sizeof(end), NULL, 0);
	recording_flush(w);
	if (close(w->fd) && !w->failed) {
		w->failed = true;
		w->lost++; /* the END, at least, is not known to be there */
		fprintf(stderr,
			"notifwait: cannot write the recording %s: %s\n",
			w->path, strerror(errno));
	}
	lost = recording_lost(w);
	free(w->buf);
	free(w->path);
	free(w);
	return lost;
}
