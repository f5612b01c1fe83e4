/* SPDX-License-Identifier: GPL-2.0 */
/* Building notifications by hand for the unit tests. */
#ifndef NW_KNOTIF_FIXTURE_H
#define NW_KNOTIF_FIXTURE_H

#include "knotif.h"

/* Appends a signal sent at @sent (0: not delivered, else at @delivered). */
static inline void fixture_add_signal(struct knotif *k, int sig, __u64 sent,
				      int result, __u64 delivered)
{
	struct nw_signal *s = &k->ev.signals[k->ev.nsignals];

	s->sig = sig;
	s->t_sent_ns = sent;
	s->result = result;
	s->after_recv = k->ev.t_recv_ns && sent >= k->ev.t_recv_ns;
	k->t_delivered_ns[k->ev.nsignals++] = delivered;
}

#endif /* NW_KNOTIF_FIXTURE_H */
