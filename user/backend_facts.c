// SPDX-License-Identifier: GPL-2.0
/*
 * The facts object (bpf/facts.bpf.c): its programs emit facts to one ring
 * buffer and keep no join state, so the only sizes to set are the ring
 * buffer's and the filters.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "facts.h"
#include "facts.skel.h"

/* The programs every variant needs: signals and the traced set. */
static const char *const common_progs[] = {
	"on_signal_generate",
	"on_signal_deliver",
	"on_process_fork",
	"on_process_exit",
	NULL,
};

static void enable(struct facts_bpf *skel, const char *const *names)
{
	struct bpf_program *p;

	for (; names && *names; names++) {
		p = bpf_object__find_program_by_name(skel->obj, *names);
		if (p)
			bpf_program__set_autoload(p, true);
	}
}

/* "fentry/FUNC" programs whose FUNC this kernel's BTF has. */
static void enable_optional(struct facts_bpf *skel, const char *const *names,
			    struct btf *vmlinux)
{
	struct bpf_program *p;
	const char *func;

	for (; names && *names; names++) {
		p = bpf_object__find_program_by_name(skel->obj, *names);
		if (!p)
			continue;
		func = strchr(bpf_program__section_name(p), '/');
		if (func && backend_has_func(vmlinux, func + 1))
			bpf_program__set_autoload(p, true);
	}
}

int backend_facts_try(struct backend *b, const struct backend_variant *v,
		      const struct backend_config *cfg, struct btf *vmlinux,
		      char *why, size_t len)
{
	struct facts_bpf *skel;
	struct bpf_program *p;
	int err;

	skel = facts_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(why, len, "open: %s", strerror(-err));
		return err;
	}
	skel->rodata->targ_tgid = cfg->target_tgid;
	skel->rodata->targ_nr = cfg->syscall_nr;
	skel->rodata->filter_traced = cfg->trace_descendants;
	skel->rodata->want_stacks = cfg->want_stacks;
	if (cfg->want_stacks)
		bpf_map__set_max_entries(skel->maps.stacks, NW_STACK_ENTRIES);
	if (cfg->ringbuf_bytes)
		bpf_map__set_max_entries(skel->maps.facts, cfg->ringbuf_bytes);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	enable(skel, common_progs);
	enable(skel, v->progs);
	enable_optional(skel, v->optional_progs, vmlinux);
	err = facts_bpf__load(skel);
	if (err) {
		snprintf(why, len, "load: %s%s", strerror(-err),
			 backend_hint(-err));
		goto fail;
	}
	err = facts_bpf__attach(skel);
	if (err) {
		snprintf(why, len, "attach: %s%s", strerror(-err),
			 backend_hint(-err));
		goto fail;
	}
	if (v->attach) {
		err = v->attach(skel, why, len);
		if (err)
			goto fail;
	}
	b->facts = skel;
	return 0;
fail:
	facts_bpf__destroy(skel);
	return err;
}

int backend_facts_records_fd(struct backend *b)
{
	return bpf_map__fd(b->facts->maps.facts);
}

int backend_facts_trace_tgid(struct backend *b, pid_t tgid)
{
	__u32 key = tgid;
	__u8 one = 1;

	return bpf_map__update_elem(b->facts->maps.traced, &key, sizeof(key),
				    &one, sizeof(one), BPF_ANY);
}

int backend_stack_lookup(struct backend *b, __s32 id, __u64 *ips, size_t size)
{
	return bpf_map__lookup_elem(b->facts->maps.stacks, &id, sizeof(id), ips,
				    size, 0) ?
		       -1 :
		       0;
}

/* The joiner's counters are the reporter's: main.c adds them. */
void backend_facts_counters(struct backend *b, struct nw_counters *out)
{
	struct bpf_program *p;

	memset(out, 0, sizeof(*out));
	out->lost_records = b->facts->bss->counters.lost_facts;
	out->lost_stacks = b->facts->bss->counters.lost_stacks;
	bpf_object__for_each_program(p, b->facts->obj)
		out->missed_runs += backend_prog_misses(p);
}

void backend_facts_stop(struct backend *b)
{
	facts_bpf__destroy(b->facts);
	b->facts = NULL;
}
