// SPDX-License-Identifier: GPL-2.0
/*
 * Backend selection: probe, open bpf/facts.bpf.c with only the chosen
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

/* Returns 0, or -errno with @why saying which step failed. */
static int try_variant(struct backend *b, const struct backend_variant *v,
		       const struct backend_config *cfg, struct btf *vmlinux,
		       char *why, size_t len)
{
	int err = v->probe(vmlinux, why, len);

	if (err)
		return err;
	err = backend_facts_try(b, v, cfg, vmlinux, why, len);
	if (err)
		return err;
	b->name = v->name;
	v->describe(b->reason, sizeof(b->reason));
	return 0;
}

int backend_start(struct backend *b, const struct backend_config *cfg,
		  const char *requested)
{
	/* Most precise first. */
	static const struct backend_variant *const order[] = {
		&backend_fentry,
		&backend_kprobe,
		&backend_fentry_caller,
		&backend_tracepoint,
	};
	char why[200], skipped[480] = "";
	bool any = !strcmp(requested, "auto");
	struct btf *vmlinux;
	unsigned int i;
	int err = -ENOENT;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"notifwait: this kernel has no BTF (/sys/kernel/btf/vmlinux): CONFIG_DEBUG_INFO_BTF is needed\n");
		return -ENOENT;
	}
	vmlinux = btf__load_vmlinux_btf();
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct backend_variant *v = order[i];
		size_t used = strlen(skipped);

		if (!any && strcmp(requested, v->name))
			continue;
		why[0] = '\0';
		err = try_variant(b, v, cfg, vmlinux, why, sizeof(why));
		if (!err)
			break;
		snprintf(skipped + used, sizeof(skipped) - used, "%s%s: %s",
			 used ? "; " : "", v->label, why);
	}
	btf__free(vmlinux);
	if (err) {
		if (any)
			fprintf(stderr,
				"notifwait: no backend could start (%s)\n",
				skipped);
		else
			fprintf(stderr,
				"notifwait: backend %s unavailable: %s\n",
				requested, skipped);
		return err;
	}
	if (skipped[0] && any) {
		size_t used = strlen(b->reason);

		snprintf(b->reason + used, sizeof(b->reason) - used, "; not %s",
			 skipped);
	}
	return 0;
}

int backend_records_fd(struct backend *b)
{
	return backend_facts_records_fd(b);
}

int backend_trace_tgid(struct backend *b, pid_t tgid)
{
	return backend_facts_trace_tgid(b, tgid);
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
	backend_facts_counters(b, out);
}

void backend_stop(struct backend *b)
{
	if (b->facts)
		backend_facts_stop(b);
}
