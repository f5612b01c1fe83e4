// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "recording.h"

struct recording_reader {
	const unsigned char *data;
	size_t size, off;
	void *map; /* mmap'd file, or NULL */
	void *owned; /* read into memory (a FIFO, stdin), or NULL */
	struct nw_rec_header hdr;
	bool cut_short, done;
	char err[160];
	/* entries are copied here: the file holds them at any alignment */
	__u64 entry[NW_REC_MAX_ENTRY / sizeof(__u64)];
};

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static const char *check_header(const struct nw_rec_header *h, size_t size)
{
	static char why[96];

	if (!size)
		return "empty: nothing was recorded";
	if (size < sizeof(h->magic) ||
	    memcmp(h->magic, NW_REC_MAGIC, sizeof(h->magic)))
		return "not a notifwait recording (wrong magic)";
	if (size < 16)
		return "cut short within its header";
	if (h->format_version > NW_REC_FORMAT_VERSION) {
		snprintf(
			why, sizeof(why),
			"recording format version %u is newer than this notifwait reads (%u)",
			h->format_version, NW_REC_FORMAT_VERSION);
		return why;
	}
	if (h->format_version < 1)
		return "recording format version 0 is not one notifwait wrote";
	if (h->header_size < NW_REC_HEADER_SIZE ||
	    h->header_size > NW_REC_HEADER_MAX)
		return "its header size is corrupt";
	if (size < h->header_size || size < NW_REC_HEADER_SIZE)
		return "cut short within its header";
	/* each facts version only adds to the one before */
	if (h->facts_version < 1 || h->facts_version > NW_FACTS_VERSION) {
		snprintf(
			why, sizeof(why),
			"its facts are version %u, this notifwait reads versions 1 to %u",
			h->facts_version, NW_FACTS_VERSION);
		return why;
	}
	return NULL;
}

struct recording_reader *recording_open_mem(const void *data, size_t size,
					    char *errbuf, size_t errlen)
{
	struct recording_reader *r = calloc(1, sizeof(*r));
	const char *why;

	if (!r) {
		say(errbuf, errlen, "out of memory");
		return NULL;
	}
	memcpy(&r->hdr, data, size < sizeof(r->hdr) ? size : sizeof(r->hdr));
	why = check_header(&r->hdr, size);
	if (why) {
		say(errbuf, errlen, "%s", why);
		free(r);
		return NULL;
	}
	/* strings are used as C strings: end them whatever the file says */
	r->hdr.nw_version[sizeof(r->hdr.nw_version) - 1] = 0;
	r->hdr.kernel_release[sizeof(r->hdr.kernel_release) - 1] = 0;
	r->hdr.backend[sizeof(r->hdr.backend) - 1] = 0;
	r->hdr.backend_reason[sizeof(r->hdr.backend_reason) - 1] = 0;
	r->data = data;
	r->size = size;
	r->off = r->hdr.header_size;
	return r;
}

/* Not a regular file (a FIFO, a pipe): read it all into memory. */
static void *slurp(int fd, size_t *size)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap), *grown;
	ssize_t n;

	while (buf) {
		if (len == cap) {
			grown = realloc(buf, cap * 2);
			if (!grown)
				break;
			buf = grown;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			*size = len;
			return buf;
		}
		len += n;
	}
	free(buf);
	return NULL;
}

struct recording_reader *recording_open(const char *path, char *errbuf,
					size_t errlen)
{
	struct recording_reader *r;
	void *map = NULL, *owned = NULL;
	const void *data;
	struct stat st;
	size_t size = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		say(errbuf, errlen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		say(errbuf, errlen, "is a directory");
		close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		size = st.st_size;
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			map = NULL;
		else
			madvise(map, size, MADV_SEQUENTIAL);
	}
	if (!map && !(S_ISREG(st.st_mode) && st.st_size > 0))
		owned = slurp(fd, &size);
	close(fd);
	data = map ? map : owned;
	if (!data) {
		say(errbuf, errlen, "cannot read it: %s", strerror(errno));
		return NULL;
	}
	r = recording_open_mem(data, size, errbuf, errlen);
	if (!r) {
		if (map)
			munmap(map, size);
		free(owned);
		return NULL;
	}
	r->map = map;
	r->owned = owned;
	return r;
}

const struct nw_rec_header *recording_header(const struct recording_reader *r)
{
	return &r->hdr;
}

static enum recording_next fail(struct recording_reader *r, const char *what)
{
	snprintf(r->err, sizeof(r->err), "corrupt entry at byte offset %zu: %s",
		 r->off, what);
	r->done = true;
	return RECORDING_ERROR;
}

/* Whether @h is an entry this reader knows, of a size its kind has. */
static const char *entry_problem(const struct nw_fact_hdr *h)
{
	size_t want = recording_kind_size(h->kind);

	if (h->size < sizeof(*h))
		return "size shorter than an entry header";
	if (!want)
		return "unknown kind";
	if (h->kind < NW_FACT_KIND_MAX && h->size > NW_FACT_MAX_SIZE)
		return "a fact longer than 64 bytes";
	if (h->kind == NW_REC_COUNTERS)
		return h->size >= want && h->size <= NW_REC_MAX_ENTRY &&
				       (h->size - want) % sizeof(__u64) == 0 ?
			       NULL :
			       "counters of a wrong size";
	return h->size == want ? NULL : "size not its kind's";
}

enum recording_next recording_next(struct recording_reader *r,
				   struct recording_entry *e)
{
	size_t left = r->size - r->off;
	struct nw_fact_hdr h;
	const char *why;

	if (r->done)
		return r->err[0] ? RECORDING_ERROR : RECORDING_EOF;
	if (left < sizeof(h)) {
		r->done = true;
		r->cut_short = true; /* no END */
		return RECORDING_EOF;
	}
	memcpy(&h, r->data + r->off, sizeof(h));
	why = entry_problem(&h);
	if (why)
		return fail(r, why);
	if (left < h.size) {
		r->done = true;
		r->cut_short = true;
		return RECORDING_EOF;
	}
	if (h.kind == NW_REC_COUNTERS) {
		__u32 count;

		memcpy(&count, r->data + r->off + sizeof(h), sizeof(count));
		if (sizeof(struct nw_rec_counters) + count * sizeof(__u64) !=
		    h.size)
			return fail(r, "counters' count not their size");
	}
	memcpy(r->entry, r->data + r->off, h.size);
	e->kind = h.kind;
	e->data = r->entry;
	e->size = h.size;
	e->offset = r->off;
	r->off += h.size;
	if (h.kind == NW_REC_END) {
		r->done = true;
		if (r->off != r->size) {
			r->off = e->offset;
			return fail(r, "data after the end marker");
		}
	}
	return RECORDING_ENTRY;
}

void recording_rewind(struct recording_reader *r)
{
	r->off = r->hdr.header_size;
	r->cut_short = r->done = false;
	r->err[0] = 0;
}

bool recording_cut_short(const struct recording_reader *r)
{
	return r->cut_short;
}

const char *recording_error(const struct recording_reader *r)
{
	return r->err[0] ? r->err : NULL;
}

void recording_close_reader(struct recording_reader *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->size);
	free(r->owned);
	free(r);
}
