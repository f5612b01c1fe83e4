// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe backend: the fentry backend's programs as kprobes. For kernels
 * where gcc cloned seccomp_do_user_notification (.isra.0, .constprop.0):
 * pahole drops clones from BTF, so fentry cannot name it, but kallsyms can.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "facts.h"
#include "facts.skel.h"

#define BRACKET_FUNC "seccomp_do_user_notification"
#define KSYM_LEN 128

static char bracket_sym[KSYM_LEN];

/* The bracket's symbol in kallsyms: itself, or its clone. */
static int find_bracket(char *sym, size_t len)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[256], name[KSYM_LEN];
	size_t n = strlen(BRACKET_FUNC);
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %127s", name) != 1)
			continue;
		if (strncmp(name, BRACKET_FUNC, n) ||
		    (name[n] != '\0' && name[n] != '.'))
			continue;
		snprintf(sym, len, "%s", name);
		found = 0;
		if (name[n] == '\0')
			break; /* the function itself beats a clone */
	}
	fclose(f);
	return found;
}

static int kprobe_probe(struct btf *vmlinux, char *why, size_t len)
{
	(void)vmlinux;
	if (access("/sys/bus/event_source/devices/kprobe/type", R_OK)) {
		snprintf(why, len, "kprobes not available (no kprobe PMU)");
		return -EOPNOTSUPP;
	}
	if (find_bracket(bracket_sym, sizeof(bracket_sym))) {
		snprintf(why, len, "%s not in /proc/kallsyms", BRACKET_FUNC);
		return -ESRCH;
	}
	return 0;
}

static const char *const progs[] = {
	"kp_notify_enter",  "kp_notify_leave", "kp_wait_interruptible",
	"kp_wait_killable", "kp_notify_ioctl", "kp_notify_ioctl_ret",
	"kp_refrigerator",  "kp_enter_frozen", "tp_switch_watch", NULL,
};

static void kprobe_describe(char *what, size_t len)
{
	snprintf(
		what, len,
		"kprobe/kretprobe on %s, wait_for_completion_interruptible/killable, seccomp_notify_ioctl; facts joined in user space",
		bracket_sym);
}

static int attach_one(struct bpf_program *prog, struct bpf_link **link,
		      bool ret, const char *sym, char *why, size_t len)
{
	*link = bpf_program__attach_kprobe(prog, ret, sym);
	if (*link)
		return 0;
	snprintf(why, len, "%s on %s: %s", ret ? "kretprobe" : "kprobe", sym,
		 strerror(errno));
	return -errno;
}

static int kprobe_attach(struct facts_bpf *skel, char *why, size_t len)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
		bool ret;
		const char *sym;
	} probes[] = {
		{ skel->progs.kp_notify_enter, &skel->links.kp_notify_enter,
		  false, bracket_sym },
		{ skel->progs.kp_notify_leave, &skel->links.kp_notify_leave,
		  true, bracket_sym },
		{ skel->progs.kp_wait_interruptible,
		  &skel->links.kp_wait_interruptible, false,
		  "wait_for_completion_interruptible" },
		{ skel->progs.kp_wait_killable, &skel->links.kp_wait_killable,
		  false, "wait_for_completion_killable" },
		{ skel->progs.kp_notify_ioctl, &skel->links.kp_notify_ioctl,
		  false, "seccomp_notify_ioctl" },
		{ skel->progs.kp_notify_ioctl_ret,
		  &skel->links.kp_notify_ioctl_ret, true,
		  "seccomp_notify_ioctl" },
	};
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		err = attach_one(probes[i].prog, probes[i].link, probes[i].ret,
				 probes[i].sym, why, len);
		if (err)
			return err;
	}
	/* the freezer, for interrupt_cause: a kernel without it has none */
	skel->links.kp_refrigerator = bpf_program__attach_kprobe(
		skel->progs.kp_refrigerator, false, "__refrigerator");
	skel->links.kp_enter_frozen = bpf_program__attach_kprobe(
		skel->progs.kp_enter_frozen, false, "cgroup_enter_frozen");
	return 0;
}

const struct backend_variant backend_kprobe = {
	.name = "kprobe",
	.label = "kprobe",
	.progs = progs,
	.probe = kprobe_probe,
	.describe = kprobe_describe,
	.attach = kprobe_attach,
};
