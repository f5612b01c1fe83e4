// SPDX-License-Identifier: GPL-2.0
/*
 * fentry_check - check that kernel functions accept fentry/fexit programs.
 *
 * usage: fentry_check FUNC...
 *
 * For each FUNC, opens a fresh skeleton, points its generic fentry and
 * fexit programs at FUNC, loads and attaches them, and prints one line:
 *
 *   fentry_check: FUNC: attached (fentry, fexit)
 *   fentry_check: FUNC: fexit: load: No such process
 *
 * Exits 0 if every FUNC attached, 1 otherwise, 2 on usage errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "fentry_check.skel.h"

static int quiet_print(enum libbpf_print_level level, const char *fmt,
		       va_list args)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int check_one(const char *func, char *why, size_t why_len)
{
	struct bpf_program *progs[2];
	struct fentry_check_bpf *skel;
	const char *stage;
	int err, i;

	skel = fentry_check_bpf__open();
	if (!skel) {
		snprintf(why, why_len, "open: %s", strerror(errno));
		return -1;
	}
	progs[0] = skel->progs.fentry_probe;
	progs[1] = skel->progs.fexit_probe;

	for (i = 0; i < 2; i++) {
		err = bpf_program__set_attach_target(progs[i], 0, func);
		if (err) {
			stage = "set_attach_target";
			goto fail;
		}
	}

	err = fentry_check_bpf__load(skel);
	if (err) {
		stage = "load";
		goto fail;
	}

	for (i = 0; i < 2; i++) {
		struct bpf_link *link = bpf_program__attach(progs[i]);

		if (!link) {
			err = -errno;
			stage = i ? "fexit: attach" : "fentry: attach";
			goto fail;
		}
		bpf_link__destroy(link);
	}

	fentry_check_bpf__destroy(skel);
	return 0;

fail:
	snprintf(why, why_len, "%s: %s", stage, strerror(-err));
	fentry_check_bpf__destroy(skel);
	return -1;
}

int main(int argc, char **argv)
{
	char why[256];
	int failed = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FUNC...\n", argv[0]);
		return 2;
	}

	libbpf_set_print(quiet_print);

	for (i = 1; i < argc; i++) {
		if (check_one(argv[i], why, sizeof(why))) {
			printf("fentry_check: %s: %s\n", argv[i], why);
			failed++;
		} else {
			printf("fentry_check: %s: attached (fentry, fexit)\n",
			       argv[i]);
		}
	}
	printf("fentry_check: %d attached, %d failed\n", argc - 1 - failed,
	       failed);
	return failed ? 1 : 0;
}
