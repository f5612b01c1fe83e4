// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint backend: tp_btf programs only, so it runs on kernels that
 * forbid fentry and kprobes (lockdown). It infers the notification's start
 * from the target's wake-up of the supervisor or its first sleep.
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

static void tracepoint_select(struct notifwait_bpf *skel, struct btf *vmlinux,
			      char *what, size_t len)
{
	(void)vmlinux;
	backend_enable(skel, "tp_sched_waking");
	backend_enable(skel, "tp_sched_switch");
	backend_enable(skel, "tp_sys_enter");
	backend_enable(skel, "tp_sys_exit");
	snprintf(what, len,
		 "tp_btf on sched_waking, sched_switch, sys_enter/exit, signal_generate/deliver");
}

const struct backend_variant backend_tracepoint = {
	.name = "tracepoint",
	.label = "tracepoint",
	.probe = tracepoint_probe,
	.select = tracepoint_select,
};
