// SPDX-License-Identifier: GPL-2.0
/* The cBPF filter returning SECCOMP_RET_USER_NOTIF, and listener passing. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nw.h"

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (i) * sizeof(__u64))

/* Returns the listener fd, or -1 with a message printed. */
int nw_install_filter(void)
{
	/* openat with mode NW_ESCAPE_MODE is allowed: the target reads /proc. */
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nw_opts.nr, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 nw_opts.nr == __NR_openat ? NW_ESCAPE_MODE : 0xffffffffU, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};
	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	int fd;

	if (nw_opts.killable)
		flags |= SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("nw-workload: PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (fd < 0) {
		fprintf(stderr, "nw-workload: seccomp(SECCOMP_SET_MODE_FILTER, %#lx): %m\n", flags);
		return -1;
	}
	return fd;
}

int nw_send_fd(int sock, int fd, int idx)
{
	char buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &idx, .iov_len = sizeof(idx) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg;

	memset(buf, 0, sizeof(buf));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) < 0) {
		perror("nw-workload: sendmsg(SCM_RIGHTS)");
		return -1;
	}
	return 0;
}

int nw_recv_fd(int sock, int *idx)
{
	char buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = idx, .iov_len = sizeof(*idx) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg;
	ssize_t n;
	int fd;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}
