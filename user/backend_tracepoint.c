// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint backend: tp_btf programs only, so it runs on kernels that
 * forbid fentry and kprobes (lockdown), given BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "notifwait.skel.h"

static const char *hint(int err)
{
	if (err == EPERM || err == EACCES)
		return " (needs root, or CAP_BPF and CAP_PERFMON)";
	if (err == ENOENT || err == ESRCH)
		return " (needs a kernel with BTF: /sys/kernel/btf/vmlinux)";
	return "";
}

static int fail(struct notifwait_bpf *skel, const char *what, int err)
{
	err = err < 0 ? -err : err;
	fprintf(stderr, "notifwait: failed to %s BPF programs: %s%s\n", what,
		strerror(err), hint(err));
	notifwait_bpf__destroy(skel);
	return -err;
}

int backend_tracepoint_start(struct backend *b,
			     const struct backend_config *cfg)
{
	struct notifwait_bpf *skel;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"notifwait: this kernel has no BTF (/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF is needed\n");
		return -ENOENT;
	}
	skel = notifwait_bpf__open();
	if (!skel)
		return fail(NULL, "open", errno);
	skel->rodata->targ_tgid = cfg->target_tgid;
	skel->rodata->targ_nr = cfg->syscall_nr;
	skel->rodata->filter_traced = cfg->trace_descendants;
	bpf_map__set_max_entries(skel->maps.knotifs, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.waiting, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.waiting_tgid, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.sigpend, cfg->max_knotifs);

	err = notifwait_bpf__load(skel);
	if (err)
		return fail(skel, "load", err);
	err = notifwait_bpf__attach(skel);
	if (err)
		return fail(skel, "attach", err);
	b->name = "tracepoint";
	snprintf(b->reason, sizeof(b->reason),
		 "tp_btf on sched_waking, sched_switch, sys_enter/exit, signal_generate/deliver");
	b->impl = skel;
	return 0;
}

int backend_records_fd(struct backend *b)
{
	struct notifwait_bpf *skel = b->impl;

	return bpf_map__fd(skel->maps.records);
}

int backend_trace_tgid(struct backend *b, pid_t tgid)
{
	struct notifwait_bpf *skel = b->impl;
	__u32 key = tgid;
	__u8 one = 1;

	return bpf_map__update_elem(skel->maps.traced, &key, sizeof(key), &one,
				    sizeof(one), BPF_ANY);
}

void backend_counters(struct backend *b, struct nw_counters *out)
{
	struct notifwait_bpf *skel = b->impl;

	*out = skel->bss->counters;
}

void backend_for_each_pending(struct backend *b, pending_fn fn, void *ctx)
{
	struct notifwait_bpf *skel = b->impl;
	int fd = bpf_map__fd(skel->maps.knotifs);
	struct nw_knotif_key key, next, *prev = NULL;
	struct nw_knotif_event e;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &e))
			fn(&e, ctx);
		key = next;
		prev = &key;
	}
}

void backend_stop(struct backend *b)
{
	notifwait_bpf__destroy(b->impl);
	b->impl = NULL;
}
