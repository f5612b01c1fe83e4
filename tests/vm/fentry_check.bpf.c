// SPDX-License-Identifier: GPL-2.0
/*
 * fentry_check.bpf.c - generic fentry/fexit programs for tests/vm.
 *
 * The attach target is not known at compile time: the loader
 * (fentry_check.c) sets it with bpf_program__set_attach_target() before
 * load, once per kernel function it is asked to check. The programs read
 * no arguments, so they fit any function.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 fentry_hits;
__u64 fexit_hits;

SEC("fentry")
int BPF_PROG(fentry_probe)
{
	__sync_fetch_and_add(&fentry_hits, 1);
	return 0;
}

SEC("fexit")
int BPF_PROG(fexit_probe)
{
	__sync_fetch_and_add(&fexit_hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
