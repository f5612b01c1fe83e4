// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint backend: tp_btf programs only, so it runs on kernels that
 * forbid fentry and kprobes (lockdown). It emits facts (bpf/facts.bpf.c):
 * the target shows its wait when it wakes the supervisor right after
 * queueing or sleeps with its notification queued; the joiner does the rest.
 */
#include <stdio.h>
#include "backend.h"

static int tracepoint_probe(struct btf *vmlinux, char *why, size_t len)
{
	if (!vmlinux) {
		snprintf(why, len, "cannot read the kernel's BTF");
		return -2;
	}
	return 0;
}

static const char *const progs[] = {
	"tp_sched_waking",
	"tp_sched_switch",
	"tp_sys_enter",
	"tp_sys_exit",
	NULL,
};

static void tracepoint_describe(char *what, size_t len)
{
	snprintf(
		what, len,
		"tp_btf on sched_waking, sched_switch, sys_enter/exit, signal_generate/deliver; facts joined in user space");
}

const struct backend_variant backend_tracepoint = {
	.name = "tracepoint",
	.label = "tracepoint",
	.progs = progs,
	.probe = tracepoint_probe,
	.describe = tracepoint_describe,
};
