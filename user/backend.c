// SPDX-License-Identifier: GPL-2.0
/*
 * Backend selection: probe, open the one BPF object with only the chosen
 * variant's programs, load, attach; in auto mode fall back to the next
 * variant and remember why.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "notifwait.skel.h"

/* The programs every variant needs: signals and the traced set. */
static const char *const common_progs[] = {
	"on_signal_generate", "on_signal_deliver", "on_process_fork",
	"on_process_exit",
};

void backend_enable(struct notifwait_bpf *skel, const char *prog)
{
	struct bpf_program *p =
		bpf_object__find_program_by_name(skel->obj, prog);

	if (p)
		bpf_program__set_autoload(p, true);
}

bool backend_has_func(struct btf *vmlinux, const char *func)
{
	return vmlinux &&
	       btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) > 0;
}

const char *backend_hint(int err)
{
	if ((err == EPERM || err == EACCES) && geteuid() == 0)
		return " (refused to root: kernel lockdown?)";
	if (err == EPERM || err == EACCES)
		return " (needs root, or CAP_BPF and CAP_PERFMON)";
	if (err == ENOENT || err == ESRCH)
		return " (a function or type is missing from the kernel's BTF)";
	return "";
}

/* The kernel's hash map entry around a key and a value (measured: ~74). */
#define HTAB_ELEM_OVERHEAD 74
#define MAPS_WARN_BYTES (1ULL << 30)

static unsigned long long round8(unsigned long long n)
{
	return (n + 7) & ~7ULL;
}

/*
 * Hash maps are preallocated: --max-notifs 4194304 takes ~4.6 GiB of kernel
 * memory (and ~30 s to set up). Said once, before it is allocated.
 */
static void warn_map_size(struct bpf_map *const *sized, unsigned int n,
			  unsigned int entries)
{
	static bool warned;
	unsigned long long per_entry = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		per_entry += round8(bpf_map__key_size(sized[i])) +
			     round8(bpf_map__value_size(sized[i])) +
			     HTAB_ELEM_OVERHEAD;
	if (warned || per_entry * entries < MAPS_WARN_BYTES)
		return;
	warned = true;
	fprintf(stderr,
		"notifwait: warning: --max-notifs %u preallocates about %.1f GiB of kernel memory for its maps (the default 10240: %.0f MiB)\n",
		entries, per_entry * entries / (double)(1ULL << 30),
		per_entry * 10240.0 / (1 << 20));
}

#define BACKEND_TRIAL_KNOTIFS 10240

static void configure(struct notifwait_bpf *skel,
		      const struct backend_config *cfg)
{
	struct bpf_map *const sized[] = {
		skel->maps.knotifs, skel->maps.waiting, skel->maps.waiting_tgid,
		skel->maps.sigpend, skel->maps.entered,
	};

	skel->rodata->targ_tgid = cfg->target_tgid;
	skel->rodata->targ_nr = cfg->syscall_nr;
	skel->rodata->filter_traced = cfg->trace_descendants;
	bpf_map__set_max_entries(skel->maps.knotifs, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.waiting, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.waiting_tgid, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.sigpend, cfg->max_knotifs);
	bpf_map__set_max_entries(skel->maps.entered, cfg->max_knotifs);
	warn_map_size(sized, sizeof(sized) / sizeof(sized[0]),
		      cfg->max_knotifs);
	if (cfg->ringbuf_bytes)
		bpf_map__set_max_entries(skel->maps.records, cfg->ringbuf_bytes);
}

/* Returns 0, or -errno with @why saying which step failed. */
static int try_variant(struct backend *b, const struct backend_variant *v,
		       const struct backend_config *cfg, struct btf *vmlinux,
		       char *why, size_t len)
{
	struct notifwait_bpf *skel;
	struct bpf_program *p;
	char what[200] = "";
	unsigned int i;
	int err;

	err = v->probe(vmlinux, why, len);
	if (err)
		return err;
	if (v->facts) {
		err = backend_facts_try(b, cfg, why, len);
		if (err)
			return err;
		b->name = v->name;
		v->select(NULL, vmlinux, b->reason, sizeof(b->reason));
		return 0;
	}
	skel = notifwait_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(why, len, "open: %s", strerror(-err));
		return err;
	}
	configure(skel, cfg);
	skel->rodata->bracket_traced = v->bracket;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	for (i = 0; i < sizeof(common_progs) / sizeof(common_progs[0]); i++)
		backend_enable(skel, common_progs[i]);
	v->select(skel, vmlinux, what, sizeof(what));

	err = notifwait_bpf__load(skel);
	if (err) {
		snprintf(why, len, "load: %s%s", strerror(-err), backend_hint(-err));
		goto fail;
	}
	err = notifwait_bpf__attach(skel);
	if (err) {
		snprintf(why, len, "attach: %s%s", strerror(-err), backend_hint(-err));
		goto fail;
	}
	if (v->attach) {
		err = v->attach(skel, why, len);
		if (err)
			goto fail;
	}
	b->skel = skel;
	b->name = v->name;
	snprintf(b->reason, sizeof(b->reason), "%s", what);
	return 0;
fail:
	notifwait_bpf__destroy(skel);
	return err;
}

int backend_start(struct backend *b, const struct backend_config *cfg,
		  const char *requested)
{
	/* Most precise first. */
	static const struct backend_variant *const order[] = {
		&backend_fentry, &backend_kprobe, &backend_fentry_caller,
		&backend_tracepoint,
	};
	char why[200], skipped[480] = "";
	bool any = !strcmp(requested, "auto");
	/*
	 * Auto mode tries the variants with maps of the default size: a large
	 * --max-notifs is then allocated once, by the variant that works.
	 */
	struct backend_config trial = *cfg;
	struct btf *vmlinux;
	unsigned int i;
	int err = -ENOENT;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"notifwait: this kernel has no BTF (/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF is needed\n");
		return -ENOENT;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (any && trial.max_knotifs > BACKEND_TRIAL_KNOTIFS)
		trial.max_knotifs = BACKEND_TRIAL_KNOTIFS;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct backend_variant *v = order[i];
		size_t used = strlen(skipped);

		if (!any && strcmp(requested, v->name))
			continue;
		why[0] = '\0';
		if (cfg->facts_only && !v->facts) {
			err = -EOPNOTSUPP;
			snprintf(why, sizeof(why),
				 "--record needs facts, it makes records");
			goto skip;
		}
		err = try_variant(b, v, &trial, vmlinux, why, sizeof(why));
		if (!err && trial.max_knotifs != cfg->max_knotifs) {
			backend_stop(b);
			err = try_variant(b, v, cfg, vmlinux, why, sizeof(why));
		}
		if (!err)
			break;
skip:
		snprintf(skipped + used, sizeof(skipped) - used, "%s%s: %s",
			 used ? "; " : "", v->label, why);
	}
	btf__free(vmlinux);
	if (err) {
		if (any)
			fprintf(stderr, "notifwait: no backend could start (%s)\n",
				skipped);
		else
			fprintf(stderr, "notifwait: backend %s unavailable: %s\n",
				requested, skipped);
		return err;
	}
	if (skipped[0] && any) {
		size_t used = strlen(b->reason);

		snprintf(b->reason + used, sizeof(b->reason) - used,
			 "; not %s", skipped);
	}
	return 0;
}

int backend_records_fd(struct backend *b)
{
	if (b->facts)
		return backend_facts_records_fd(b);
	return bpf_map__fd(b->skel->maps.records);
}

int backend_trace_tgid(struct backend *b, pid_t tgid)
{
	__u32 key = tgid;
	__u8 one = 1;

	if (b->facts)
		return backend_facts_trace_tgid(b, tgid);
	return bpf_map__update_elem(b->skel->maps.traced, &key, sizeof(key),
				    &one, sizeof(one), BPF_ANY);
}

__u64 backend_prog_misses(const struct bpf_program *p)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(p);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

void backend_counters(struct backend *b, struct nw_counters *out)
{
	struct bpf_program *p;

	if (b->facts) {
		backend_facts_counters(b, out);
		return;
	}
	*out = b->skel->bss->counters;
	out->missed_runs = 0;
	bpf_object__for_each_program(p, b->skel->obj)
		if (bpf_program__autoload(p))
			out->missed_runs += backend_prog_misses(p);
}

void backend_for_each_pending(struct backend *b, pending_fn fn, void *ctx)
{
	int fd = bpf_map__fd(b->skel->maps.knotifs);
	struct nw_knotif_key key, next, *prev = NULL;
	struct nw_knotif_event e;

	if (!b->skel)
		return;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &e))
			fn(&e, ctx);
		key = next;
		prev = &key;
	}
}

void backend_stop(struct backend *b)
{
	if (b->facts)
		backend_facts_stop(b);
	notifwait_bpf__destroy(b->skel);
	b->skel = NULL;
}
