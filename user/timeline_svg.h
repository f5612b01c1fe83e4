/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timeline picture: one lane per target thread and per supervisor,
 * each notification's queue / handle (interruptible, killable) / wake as
 * bars, signals as markers from sent to delivered, addfd as ticks, a time
 * axis and a legend. SVG with inline CSS, or an HTML page around it: no
 * scripts, no external fonts. Elements carry classes and data-* attributes
 * (class="notif" data-id=..., class="signal deferred") for tools and tests.
 */
#ifndef NW_TIMELINE_SVG_H
#define NW_TIMELINE_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "knotif.h"

#define NW_TIMELINE_CAP 2000 /* notifications drawn when no N is given */

struct timeline_options {
	unsigned int slowest; /* the N slowest by total time; 0: the cap */
	bool have_window;
	double window_start_s, window_end_s; /* seconds since tracing began */
};

struct timeline_view {
	__u64 start_ns; /* tracing began: the axis counts from here */
	__u64 from_ns, to_ns; /* the axis span; 0, 0: fit the notifications */
	bool html; /* a page around the SVG */
	unsigned long long seen; /* notifications finished (for the title) */
	bool slowest; /* the shown ones are the slowest of those seen */
};

/* First and last timestamp of a notification (0 when none). */
__u64 timeline_first_ns(const struct knotif *k);
__u64 timeline_last_ns(const struct knotif *k);
/* What --timeline-slowest ranks by: return - notify, else first..last. */
__u64 timeline_rank_ns(const struct knotif *k);

/* Writes the picture of @n notifications. Returns 0 or -errno. */
int timeline_render(FILE *out, const struct knotif *const *ks, size_t n,
		    const struct timeline_view *v);

#endif /* NW_TIMELINE_SVG_H */
