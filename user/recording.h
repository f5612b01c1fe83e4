/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recordings (--record FILE, --replay FILE): the facts as they came from
 * the ring buffer and the reporter's clock ticks, in the order the joiner
 * was fed them, so a replay gives the same records. The layout, byte by
 * byte, is in docs/recording.md. Little-endian hosts only (x86_64, arm64).
 */
#ifndef NW_RECORDING_H
#define NW_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "facts.h"

#define NW_REC_MAGIC "NWFACTS\n" /* 8 bytes, no NUL */
#define NW_REC_FORMAT_VERSION 1
#define NW_REC_HEADER_SIZE 824 /* version 1; later versions may add fields */
#define NW_REC_HEADER_MAX 65536 /* a bigger header_size is corrupt */

/* Reporter entries: a struct nw_fact_hdr with a kind of its own. */
enum nw_rec_kind {
	NW_REC_TICK = 0xF0, /* struct nw_rec_tick: joiner_tick(now_ns) */
	NW_REC_COUNTERS = 0xF1, /* struct nw_rec_counters + count u64s */
	NW_REC_END = 0xF2, /* the header alone: the run ended cleanly */
};

#define NW_REC_MAX_COUNTERS 32
#define NW_REC_MAX_ENTRY \
	(sizeof(struct nw_rec_counters) + NW_REC_MAX_COUNTERS * sizeof(__u64))

struct nw_rec_header {
	char magic[8];
	__u32 format_version;
	__u32 header_size; /* where the first entry starts */
	__u32 facts_version; /* NW_FACTS_VERSION */
	__u32 arch; /* AUDIT_ARCH_* of the traced syscalls */
	__s64 realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	__u64 mono_start_ns; /* CLOCK_MONOTONIC when tracing started */
	char nw_version[32]; /* NUL-terminated strings, NUL-padded */
	char kernel_release[80];
	char backend[32];
	char backend_reason[640];
};

struct nw_rec_tick {
	struct nw_fact_hdr h;
	__u64 now_ns;
};

/* struct nw_counters (bpf/notifwait.h) as a list: field i is values[i]. */
struct nw_rec_counters {
	struct nw_fact_hdr h;
	__u32 count;
	__u32 pad;
	/* followed by count __u64 */
};

_Static_assert(sizeof(struct nw_fact_hdr) == 24, "nw_fact_hdr layout");
_Static_assert(sizeof(struct nw_rec_header) == NW_REC_HEADER_SIZE,
	       "nw_rec_header layout");
_Static_assert(sizeof(struct nw_rec_tick) == 32, "nw_rec_tick layout");
_Static_assert(sizeof(struct nw_rec_counters) == 32, "nw_rec_counters layout");

/* What the header says about the run; strings may be NULL (empty). */
struct recording_info {
	const char *nw_version;
	const char *kernel_release;
	const char *backend;
	const char *backend_reason;
	__u32 arch;
	__s64 realtime_offset_ns;
	__u64 mono_start_ns;
};

/* The host's side of the header: version, uname -r, arch, clocks. */
void recording_info_host(struct recording_info *info);

/* ---- writer ---- */
struct recording_writer;

/*
 * --record PATH: a regular file is truncated, a FIFO written, a missing
 * file created; anything else is refused. NULL: one line said why.
 */
struct recording_writer *recording_create(const char *path,
					  const struct recording_info *info);
/*
 * As it came from the ring buffer. A fact the reader would refuse (@size
 * not its hdr.size or its kind's) is skipped and counted, not written.
 */
void recording_fact(struct recording_writer *w, const void *fact, size_t size);
unsigned long long recording_skipped(const struct recording_writer *w);
/* joiner_tick(@now_ns); writes out what is buffered about twice a second. */
void recording_tick(struct recording_writer *w, __u64 now_ns);
void recording_counters(struct recording_writer *w, const __u64 *values,
			unsigned int count);
/* Buffered entries to the file now; 0 or -errno. */
int recording_flush(struct recording_writer *w);
bool recording_failed(const struct recording_writer *w);
/* Entries not written (after a write error, all later ones too). */
unsigned long long recording_lost(const struct recording_writer *w);
/* Writes END, flushes, closes; returns the entries not written. */
unsigned long long recording_close(struct recording_writer *w);

/* ---- reader ---- */
struct recording_reader;

struct recording_entry {
	unsigned int kind; /* enum nw_fact_kind or enum nw_rec_kind */
	const void *data; /* a copy, aligned; valid until the next call */
	size_t size;
	size_t offset; /* in the file */
};

enum recording_next {
	RECORDING_ENTRY,
	RECORDING_EOF, /* after END, or cut short (recording_cut_short) */
	RECORDING_ERROR, /* recording_error() says what, and where */
};

/*
 * NULL, with a one-line message in @errbuf, when the file
 * cannot be read or its header is refused.
 */
struct recording_reader *recording_open(const char *path, char *errbuf,
					size_t errlen);
/* Over @data, which must outlive the reader (not copied). */
struct recording_reader *recording_open_mem(const void *data, size_t size,
					    char *errbuf, size_t errlen);
const struct nw_rec_header *recording_header(const struct recording_reader *r);
enum recording_next recording_next(struct recording_reader *r,
				   struct recording_entry *e);
/* Back to the first entry: a second pass over the same input. */
void recording_rewind(struct recording_reader *r);
/* The file ended without END: the tracer was killed or its disk filled. */
bool recording_cut_short(const struct recording_reader *r);
const char *recording_error(const struct recording_reader *r);
void recording_close_reader(struct recording_reader *r);

/* The struct size a fact or reporter entry of @kind has; 0: unknown kind. */
size_t recording_kind_size(unsigned int kind);

#endif /* NW_RECORDING_H */
