// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "decoder.h"

static struct knotif *held(struct decoder *d, const struct nw_knotif_key *key)
{
	struct knotif *k = knotif_table_get(d->table, key);

	if (!k)
		d->no_memory++;
	return k;
}

static void on_knotif(struct decoder *d, const struct nw_knotif_event *e)
{
	struct knotif *k = held(d, &e->key);

	if (!k)
		return;
	knotif_take_record(k, e);
	knotif_add_prior_guess(k);
}

static void on_signal_late(struct decoder *d,
			   const struct nw_signal_late_event *s)
{
	struct knotif *k = held(d, &s->key);

	if (k)
		knotif_add_late_signal(k, &s->signal);
}

static void on_delivered(struct decoder *d,
			 const struct nw_signal_delivered_event *s)
{
	struct knotif *k = knotif_table_find(d->table, &s->key);

	if (k)
		knotif_set_delivered(k, s->sig, s->t_sent_ns, s->t_delivered_ns,
				     s->sender_tgid);
}

static void on_addfd(struct decoder *d, const struct nw_addfd_event *a)
{
	struct knotif *k = held(d, &a->key);

	if (k)
		knotif_add_addfd(k, a);
}

static void on_reply_failed(struct decoder *d,
			    const struct nw_reply_failed_event *r)
{
	struct knotif *k = knotif_table_find(d->table, &r->key);

	if (k) {
		k->reply_failed = true;
		k->failure.t_ns = r->t_ns;
		k->failure.ret = r->ret;
		k->failure.op = r->op;
		k->failure.supervisor_tgid = r->supervisor_tgid;
	}
	if (d->reply_failed)
		d->reply_failed(r, d->ctx);
}

static void on_recv_late(struct decoder *d, const struct nw_recv_late_event *r)
{
	struct knotif *k = knotif_table_find(d->table, &r->key);

	if (!k || k->ev.t_recv_ns)
		return;
	k->ev.t_recv_ns = r->t_recv_ns;
	k->ev.supervisor_tgid = r->supervisor_tgid;
	k->ev.supervisor_seen_pid = r->supervisor_seen_pid;
	k->ev.recv_flag = r->recv_flag;
	memcpy(k->ev.supervisor_comm, r->supervisor_comm, NW_COMM_LEN);
}

int decoder_feed(struct decoder *d, const void *data, size_t size)
{
	__u32 kind;

	if (size < sizeof(kind))
		goto bad;
	memcpy(&kind, data, sizeof(kind));
	switch (kind) {
	case NW_REC_KNOTIF:
		if (size != sizeof(struct nw_knotif_event))
			goto bad;
		on_knotif(d, data);
		return 0;
	case NW_REC_SIGNAL_DELIVERED:
		if (size != sizeof(struct nw_signal_delivered_event))
			goto bad;
		on_delivered(d, data);
		return 0;
	case NW_REC_ADDFD:
		if (size != sizeof(struct nw_addfd_event))
			goto bad;
		on_addfd(d, data);
		return 0;
	case NW_REC_RECV_LATE:
		if (size != sizeof(struct nw_recv_late_event))
			goto bad;
		on_recv_late(d, data);
		return 0;
	case NW_REC_SIGNAL_LATE:
		if (size != sizeof(struct nw_signal_late_event))
			goto bad;
		on_signal_late(d, data);
		return 0;
	case NW_REC_REPLY_FAILED:
		if (size != sizeof(struct nw_reply_failed_event))
			goto bad;
		on_reply_failed(d, data);
		return 0;
	}
bad:
	d->malformed++;
	return -EINVAL;
}

void decoder_feed_pending(struct decoder *d, const struct nw_knotif_event *e)
{
	struct knotif *k = held(d, &e->key);

	if (!k)
		return;
	knotif_take_record(k, e);
	k->pending = true;
	knotif_add_prior_guess(k);
}
