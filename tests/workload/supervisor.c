// SPDX-License-Identifier: GPL-2.0
/*
 * The supervisor: receives the listeners over SCM_RIGHTS, then for each
 * notification RECV, wait --handle-us (signalling or killing the target
 * on the way, if asked), and reply. With --pool, the supervisor thread
 * only RECVs and queues each notification for a worker thread, which
 * waits the handle time and replies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nw.h"

#ifndef SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE
#define SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE (1UL << 0)	/* seed series, RECV input */
#endif

struct listener {
	int fd; /* -1 once closed or hung up */
	int idx;
	int hup_fd; /* --pool: hung up, closed once the workers are done */
};

static pid_t self;
static int addfd_src = -1;
static int helper_pipe = -1;

static unsigned long long ull(uint64_t v)
{
	return v;
}

static struct nw_slot *find_slot(pid_t tid)
{
	int i;

	for (i = 0; i < nw_shared->nslots; i++)
		if (nw_shared->slots[i].tid == tid && nw_shared->slots[i].ready)
			return &nw_shared->slots[i];
	return NULL;
}

static void send_signal(struct nw_slot *s, const char *phase, const char *id)
{
	uint64_t t0, t1;
	int r, e;

	t0 = nw_now();
	r = syscall(__NR_tgkill, s->pid, s->tid, nw_opts.signal);
	e = r ? errno : 0;
	t1 = nw_now();
	truth_emit("signal", "\"sender_pid\":%d,\"target_pid\":%d,\"target_tid\":%d,"
		   "\"sig\":%d,\"phase\":\"%s\",\"id\":%s,\"t_before\":%llu,"
		   "\"t_after\":%llu,\"ret\":%d,\"errno\":%d",
		   self, s->pid, s->tid, nw_opts.signal, phase, id, ull(t0), ull(t1), r, e);
	NW_COUNT(signals);
}

static void kill_target(struct nw_slot *s, uint64_t id)
{
	uint64_t t0, t1;
	int r, e;

	t0 = nw_now();
	r = kill(s->pid, SIGKILL);
	e = r ? errno : 0;
	t1 = nw_now();
	truth_emit("kill", "\"sender_pid\":%d,\"victim\":\"target\",\"pid\":%d,\"tid\":%d,"
		   "\"id\":%llu,\"t_before\":%llu,\"t_after\":%llu,\"ret\":%d,\"errno\":%d",
		   self, s->pid, s->tid, ull(id), ull(t0), ull(t1), r, e);
	NW_COUNT(kills);
}

/* The stop signal is a "signal" record: the tracer sees it in the wait. */
static void stop_target(struct nw_slot *s, const char *id)
{
	uint64_t t0, t1;
	int r, e;

	t0 = nw_now();
	r = syscall(__NR_tgkill, s->pid, s->tid, SIGSTOP);
	e = r ? errno : 0;
	t1 = nw_now();
	truth_emit("signal", "\"sender_pid\":%d,\"target_pid\":%d,\"target_tid\":%d,"
		   "\"sig\":%d,\"phase\":\"stop\",\"id\":%s,\"t_before\":%llu,"
		   "\"t_after\":%llu,\"ret\":%d,\"errno\":%d",
		   self, s->pid, s->tid, SIGSTOP, id, ull(t0), ull(t1), r, e);
	NW_COUNT(signals);
}

/* The target's state letter from /proc (T: stopped), or '?'. */
static char task_state(const struct nw_slot *s)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", s->pid, s->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/*
 * Waits (until @deadline) to see the target stopped: it stops on its way
 * out of the syscall, so it had returned by the returned time. 0: never.
 */
static uint64_t wait_stopped(const struct nw_slot *s, uint64_t deadline)
{
	uint64_t t;

	do {
		char state = task_state(s);

		t = nw_now();
		if (state == 'T' || state == 't')
			return t;
		usleep(20);
	} while (t < deadline);
	return 0;
}

/* "cont": SIGCONT, with when the target was first seen stopped. */
static void continue_target(struct nw_slot *s, const char *id, uint64_t t_stopped)
{
	uint64_t t0, t1;
	char seen[24] = "null";
	int r, e;

	if (t_stopped)
		snprintf(seen, sizeof(seen), "%llu", ull(t_stopped));
	t0 = nw_now();
	r = kill(s->pid, SIGCONT);
	e = r ? errno : 0;
	t1 = nw_now();
	truth_emit("cont", "\"sender_pid\":%d,\"target_pid\":%d,\"target_tid\":%d,"
		   "\"id\":%s,\"stopped_seen\":%s,\"t_before\":%llu,"
		   "\"t_after\":%llu,\"ret\":%d,\"errno\":%d",
		   self, s->pid, s->tid, id, seen, ull(t0), ull(t1), r, e);
}

static int send_resp(int fd, uint64_t id, const char *kind, long val, int error, unsigned int flags)
{
	struct seccomp_notif_resp resp = {
		.id = id, .val = val, .error = error, .flags = flags,
	};
	uint64_t t0, t1;
	int r, e;

	t0 = nw_now();
	r = ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	e = r ? errno : 0;
	t1 = nw_now();
	truth_emit("send", "\"sup_pid\":%d,\"id\":%llu,\"kind\":\"%s\",\"val\":%ld,"
		   "\"error\":%d,\"flags\":%u,\"t_before\":%llu,\"t_after\":%llu,"
		   "\"ret\":%d,\"errno\":%d",
		   self, ull(id), kind, val, error, flags, ull(t0), ull(t1), r, e);
	NW_COUNT(sends);
	if (!r)
		NW_COUNT(sends_ok);
	if (e == ENOENT)
		NW_COUNT(sends_enoent);
	return r;
}

static int add_fd(int fd, uint64_t id, unsigned int flags, int *err)
{
	struct seccomp_notif_addfd a = {
		.id = id, .flags = flags, .srcfd = addfd_src,
	};
	/* --addfd-size: a larger struct, zero-padded, as a newer ABI sends */
	unsigned char buf[NW_ADDFD_SIZE_MAX] = { 0 };
	unsigned long cmd = _IOC(_IOC_WRITE, SECCOMP_IOC_MAGIC, 3,
				 nw_opts.addfd_size);
	uint64_t t0, t1;
	int r, e;

	memcpy(buf, &a, sizeof(a));
	t0 = nw_now();
	r = ioctl(fd, cmd, buf);
	e = r < 0 ? errno : 0;
	t1 = nw_now();
	truth_emit("addfd", "\"sup_pid\":%d,\"id\":%llu,\"flags\":%u,\"srcfd\":%d,"
		   "\"t_before\":%llu,\"t_after\":%llu,\"ret\":%d,\"errno\":%d",
		   self, ull(id), flags, addfd_src, ull(t0), ull(t1), r, e);
	NW_COUNT(addfds);
	if (r >= 0)
		NW_COUNT(addfds_ok);
	else if (e == ENOENT)
		NW_COUNT(addfds_enoent);
	else
		NW_COUNT(addfds_failed);
	*err = e;
	return r;
}

static void reply(int fd, uint64_t id)
{
	int r, e;

	switch (nw_opts.reply) {
	case NW_REPLY_VALUE:
		send_resp(fd, id, "value", nw_opts.reply_value, 0, 0);
		break;
	case NW_REPLY_ERROR:
		send_resp(fd, id, "error", 0, -nw_opts.reply_error, 0);
		break;
	case NW_REPLY_CONTINUE:
		send_resp(fd, id, "continue", 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		break;
	case NW_REPLY_ADDFD:
	case NW_REPLY_ADDFD_SEND:
		r = add_fd(fd, id, nw_opts.reply == NW_REPLY_ADDFD_SEND ?
			   SECCOMP_ADDFD_FLAG_SEND : 0, &e);
		if (r >= 0 && nw_opts.reply == NW_REPLY_ADDFD) {
			/* the addfd woke the target: let it sleep again first */
			nw_sleep_until(nw_now() + nw_opts.addfd_gap_us * 1000ULL);
			send_resp(fd, id, "value", r, 0, 0);
		} else if (r < 0 && e != ENOENT) {
			send_resp(fd, id, "error", 0, -e, 0);
		}
		break;
	}
}

static void close_listener(struct listener *l, uint64_t id)
{
	uint64_t t0, t1;

	t0 = nw_now();
	close(l->fd);
	t1 = nw_now();
	truth_emit("close_listener", "\"sup_pid\":%d,\"listener\":%d,\"id\":%llu,"
		   "\"t_before\":%llu,\"t_after\":%llu",
		   self, l->idx, ull(id), ull(t0), ull(t1));
	NW_COUNT(listener_closes);
	l->fd = -1;
}

static bool slot_in_group(const struct nw_slot *s, const struct listener *l)
{
	return nw_opts.shared_listener || s->target == l->idx;
}

static void signal_before_recv(const struct listener *l)
{
	int i;

	for (i = 0; i < nw_shared->nslots; i++) {
		struct nw_slot *s = &nw_shared->slots[i];

		if (!s->ready || s->exited || !slot_in_group(s, l) ||
		    !__atomic_load_n(&s->in_syscall, __ATOMIC_SEQ_CST) ||
		    s->sig_iter == s->iter)
			continue;
		s->sig_iter = s->iter;
		send_signal(s, "before_recv", "null");
	}
}

/*
 * --hold-recv: before the first RECV, wait until every target thread is
 * asleep inside its intercepted syscall (its slot says so and /proc shows
 * it sleeping), so that they all wait on the listener at once. A thread
 * stays so until a reply or a signal: each is checked once, in order.
 */
static void hold_until_queued(void)
{
	uint64_t deadline = nw_now() + 120ULL * 1000000000ULL;
	int i = 0, n = nw_shared->nslots;

	while (i < n && nw_now() < deadline) {
		const struct nw_slot *s = &nw_shared->slots[i];

		if (__atomic_load_n(&s->ready, __ATOMIC_SEQ_CST) &&
		    __atomic_load_n(&s->in_syscall, __ATOMIC_SEQ_CST) &&
		    task_state(s) == 'S')
			i++;
		else
			usleep(1000);
	}
	truth_emit("hold", "\"sup_pid\":%d,\"queued\":%d,\"threads\":%d,\"t\":%llu",
		   self, i, n, ull(nw_now()));
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * --handle-pipe: a helper thread, created once per handling thread,
 * sleeps until the deadline it is armed with and writes one byte into
 * the pipe that thread then blocks reading.
 */
struct pipe_timer {
	int fds[2];
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t deadline;
	bool armed, stopping, started;
};

static void *pipe_timer_main(void *arg)
{
	struct pipe_timer *pt = arg;
	uint64_t deadline;
	char c = 0;

	for (;;) {
		pthread_mutex_lock(&pt->lock);
		while (!pt->armed && !pt->stopping)
			pthread_cond_wait(&pt->cond, &pt->lock);
		if (!pt->armed) {
			pthread_mutex_unlock(&pt->lock);
			return NULL;
		}
		deadline = pt->deadline;
		pt->armed = false;
		pthread_mutex_unlock(&pt->lock);
		nw_sleep_until(deadline);
		if (write(pt->fds[1], &c, 1) != 1)
			perror("nw-workload: handle pipe write");
	}
}

static int pipe_timer_start(struct pipe_timer *pt)
{
	int r;

	if (pipe2(pt->fds, O_CLOEXEC)) {
		perror("nw-workload: handle pipe");
		return -1;
	}
	pthread_mutex_init(&pt->lock, NULL);
	pthread_cond_init(&pt->cond, NULL);
	r = pthread_create(&pt->thread, NULL, pipe_timer_main, pt);
	if (r) {
		fprintf(stderr, "nw-workload: handle pipe thread: %s\n",
			strerror(r));
		close(pt->fds[0]);
		close(pt->fds[1]);
		return -1;
	}
	pt->started = true;
	return 0;
}

static void pipe_timer_stop(struct pipe_timer *pt)
{
	if (!pt->started)
		return;
	pthread_mutex_lock(&pt->lock);
	pt->stopping = true;
	pthread_cond_signal(&pt->cond);
	pthread_mutex_unlock(&pt->lock);
	pthread_join(pt->thread, NULL);
	close(pt->fds[0]);
	close(pt->fds[1]);
	pt->started = false;
}

/*
 * Not static, never inlined: a profiler's user stacks of the blocked
 * supervisor (frame pointers) show nw_supervisor_blocks_on_pipe, the
 * caller of the frame that sits in read(2).
 */
__attribute__((noinline)) int nw_wait_for_pipe_byte(int fd);
__attribute__((noinline)) void
nw_supervisor_blocks_on_pipe(struct pipe_timer *pt, uint64_t deadline);

/* Reads the one byte; 0, or -1 if the pipe failed. */
__attribute__((noinline)) int nw_wait_for_pipe_byte(int fd)
{
	ssize_t n;
	char c;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

/* Blocks until @deadline, in read(2) on @pt's pipe. */
__attribute__((noinline)) void
nw_supervisor_blocks_on_pipe(struct pipe_timer *pt, uint64_t deadline)
{
	pthread_mutex_lock(&pt->lock);
	pt->deadline = deadline;
	pt->armed = true;
	pthread_cond_signal(&pt->cond);
	pthread_mutex_unlock(&pt->lock);
	/* the check after the call keeps it from becoming a tail call */
	if (nw_wait_for_pipe_byte(pt->fds[0]))
		perror("nw-workload: handle pipe read");
}

/* A received notification, handed from RECV to its handling and reply. */
struct job {
	struct job *next;
	struct listener *l;
	int fd; /* the listener's fd at RECV */
	struct seccomp_notif req;
	struct nw_slot *s;
	uint64_t t1; /* RECV returned */
	uint64_t cpu0; /* the RECV thread's CPU clock then */
	uint64_t t_idle; /* --pool: its worker began to wait for it */
	uint64_t cpu_idle; /* ... and its CPU clock then */
	bool do_sig, do_kill;
	uint64_t t_sig, t_kill;
};

/* --pool: the RECV thread queues jobs, the workers take them in order. */
struct worker {
	pthread_t thread;
	struct pipe_timer pt;
	bool started;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job *head, *tail;
	bool stopping;
	struct worker *workers;
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* The RECV thread's --handle-pipe timer without --pool. */
static struct pipe_timer recv_pt;
static pid_t recv_tid;

/*
 * The handle time of @j, its reply and what goes with them, by the thread
 * that took it at @t_pickup (its CPU clock then @cpu0). -1: the listener
 * was closed instead.
 */
static int serve(struct job *j, struct pipe_timer *pt, uint64_t t_pickup,
		 uint64_t cpu0)
{
	struct nw_slot *s = j->s;
	bool done_sig = false, done_kill = false;
	uint64_t t_handled = j->t1 + nw_opts.handle_us * 1000ULL, t0, cpu1;
	char idbuf[24], idle[96] = "";

	snprintf(idbuf, sizeof(idbuf), "%llu", ull(j->req.id));
	while ((j->do_sig && !done_sig) || (j->do_kill && !done_kill)) {
		if (j->do_sig && !done_sig &&
		    (!j->do_kill || done_kill || j->t_sig <= j->t_kill)) {
			nw_sleep_until(j->t_sig);
			send_signal(s, "after_recv", idbuf);
			done_sig = true;
		} else {
			nw_sleep_until(j->t_kill);
			kill_target(s, j->req.id);
			done_kill = true;
		}
	}
	if (nw_opts.handle_spin)
		while (nw_now() < t_handled)
			;
	else if (nw_opts.handle_pipe)
		nw_supervisor_blocks_on_pipe(pt, t_handled);
	else
		nw_sleep_until(t_handled);
	if (nw_opts.close_listener_after_recv && !nw_shared->close_done) {
		nw_shared->close_done = 1;
		close_listener(j->l, j->req.id);
		return -1;
	}
	if (s && nw_opts.stop_target_us >= 0)
		stop_target(s, idbuf);
	/* its own clocks over the handling, up to the reply: handle_split's */
	cpu1 = thread_cpu_ns();
	t0 = nw_now();
	reply(j->fd, j->req.id);
	if (j->t_idle)
		snprintf(idle, sizeof(idle),
			 ",\"t_idle\":%llu,\"cpu_since_idle_ns\":%llu",
			 ull(j->t_idle), ull(cpu1 - j->cpu_idle));
	truth_emit(
		"handle",
		"\"sup_pid\":%d,\"tid\":%d,\"recv_tid\":%d,\"id\":%llu,"
		"\"t_start\":%llu,\"t_pickup\":%llu,\"t_end\":%llu,\"cpu_ns\":%llu%s%s",
		self, (int)syscall(SYS_gettid), recv_tid, ull(j->req.id),
		ull(j->t1), ull(t_pickup), ull(t0), ull(cpu1 - cpu0),
		nw_opts.handle_pipe ? ",\"blocked_in\":\"pipe\"" : "", idle);
	if (s && nw_opts.stop_target_us >= 0) {
		uint64_t until = t0 + nw_opts.stop_target_us * 1000ULL;
		uint64_t t_stopped = wait_stopped(s, until);

		nw_sleep_until(until);
		continue_target(s, idbuf, t_stopped);
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t t_pickup, cpu0, t_idle, cpu_idle;
	struct job *j;

	for (;;) {
		pthread_mutex_lock(&pool.lock);
		/* done with the one before: asleep on the queue from here */
		t_idle = nw_now();
		cpu_idle = thread_cpu_ns();
		while (!pool.head && !pool.stopping)
			pthread_cond_wait(&pool.cond, &pool.lock);
		j = pool.head;
		if (j) {
			pool.head = j->next;
			if (!pool.head)
				pool.tail = NULL;
		}
		pthread_mutex_unlock(&pool.lock);
		if (!j)
			return NULL; /* stopping, and the queue is drained */
		t_pickup = nw_now();
		cpu0 = thread_cpu_ns();
		j->t_idle = t_idle;
		j->cpu_idle = cpu_idle;
		serve(j, &w->pt, t_pickup, cpu0);
		free(j);
	}
}

static int dispatch(const struct job *j)
{
	struct job *copy = malloc(sizeof(*copy));

	if (!copy) {
		perror("nw-workload: pool job");
		return -1;
	}
	*copy = *j;
	copy->next = NULL;
	pthread_mutex_lock(&pool.lock);
	if (pool.tail)
		pool.tail->next = copy;
	else
		pool.head = copy;
	pool.tail = copy;
	pthread_cond_signal(&pool.cond);
	pthread_mutex_unlock(&pool.lock);
	return 0;
}

/* The workers (and their pipe timers) of --pool, or the RECV thread's timer. */
static int handlers_start(void)
{
	int i, r;

	if (!nw_opts.pool)
		return nw_opts.handle_pipe ? pipe_timer_start(&recv_pt) : 0;
	pool.workers = calloc(nw_opts.pool, sizeof(*pool.workers));
	if (!pool.workers)
		return -1;
	for (i = 0; i < nw_opts.pool; i++) {
		struct worker *w = &pool.workers[i];

		if (nw_opts.handle_pipe && pipe_timer_start(&w->pt))
			return -1;
		r = pthread_create(&w->thread, NULL, worker_main, w);
		if (r) {
			fprintf(stderr, "nw-workload: pool thread: %s\n",
				strerror(r));
			return -1;
		}
		w->started = true;
	}
	return 0;
}

/* Lets the workers drain the queue, then joins every thread started. */
static void handlers_stop(void)
{
	int i;

	pipe_timer_stop(&recv_pt);
	if (!pool.workers)
		return;
	pthread_mutex_lock(&pool.lock);
	pool.stopping = true;
	pthread_cond_broadcast(&pool.cond);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < nw_opts.pool; i++) {
		if (pool.workers[i].started)
			pthread_join(pool.workers[i].thread, NULL);
		pipe_timer_stop(&pool.workers[i].pt);
	}
	free(pool.workers);
	pool.workers = NULL;
}

/* Returns -1 when the listener is gone, NW_EXIT_UNSUPPORTED to stop. */
static int handle_one(struct listener *l)
{
	struct job j = { .l = l, .fd = l->fd };
	uint64_t t_ready = nw_now(), t0;
	struct nw_slot *s;
	int r, e;

	static bool held;

	if (nw_opts.hold_recv && !held) {
		hold_until_queued();
		held = true;
	}
	if (nw_opts.signal_before_recv)
		signal_before_recv(l);
	if (nw_opts.recv_delay_us)
		nw_sleep_until(t_ready + nw_opts.recv_delay_us * 1000ULL);

	if (nw_opts.recv_flag)
		j.req.flags = SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE;
	t0 = nw_now();
	r = ioctl(l->fd, SECCOMP_IOCTL_NOTIF_RECV, &j.req);
	e = r ? errno : 0;
	j.t1 = nw_now();
	j.cpu0 = thread_cpu_ns();
	truth_emit("recv",
		   "\"sup_pid\":%d,\"listener\":%d,\"flags_in\":%u,"
		   "\"t_before\":%llu,\"t_after\":%llu,\"ret\":%d,\"errno\":%d,"
		   "\"id\":%llu,\"pid\":%d,\"nr\":%d",
		   self, l->idx, nw_opts.recv_flag ? 1U : 0U, ull(t0),
		   ull(j.t1), r, e, ull(r ? 0 : j.req.id),
		   r ? 0 : (int)j.req.pid, r ? -1 : j.req.data.nr);
	NW_COUNT(recvs);
	if (r) {
		NW_COUNT(recvs_failed);
		if (nw_opts.recv_flag && e == EINVAL) {
			fprintf(stderr, "nw-workload: kernel refuses SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE on SECCOMP_IOCTL_NOTIF_RECV (EINVAL)\n");
			return NW_EXIT_UNSUPPORTED;
		}
		return 0;
	}
	NW_COUNT(recvs_ok);
	if (helper_pipe >= 0) {
		if (write(helper_pipe, &j.t1, sizeof(j.t1)) != sizeof(j.t1))
			perror("nw-workload: helper pipe");
		close(helper_pipe);
		helper_pipe = -1;
	}

	/* what to do to the target is decided here, in RECV order */
	s = j.s = find_slot(j.req.pid);
	if (s && nw_opts.signal && nw_opts.signal_after_recv_us >= 0 &&
	    s->sig_iter != s->iter) {
		s->sig_iter = s->iter;
		j.do_sig = true;
		j.t_sig = j.t1 + nw_opts.signal_after_recv_us * 1000ULL;
	}
	if (s && nw_opts.kill_target_after_recv_us >= 0 && !nw_shared->kill_target_done) {
		nw_shared->kill_target_done = 1;
		j.do_kill = true;
		j.t_kill = j.t1 + nw_opts.kill_target_after_recv_us * 1000ULL;
	}
	if (nw_opts.pool)
		return dispatch(&j) ? NW_EXIT_FAIL : 0;
	return serve(&j, &recv_pt, j.t1, j.cpu0);
}

int nw_supervisor_main(int sock, int nlisteners, int pipe_fd)
{
	struct listener *ls = calloc(nlisteners, sizeof(*ls));
	struct pollfd *pfd = calloc(nlisteners, sizeof(*pfd));
	int i, n, open_count = nlisteners, r, rc = NW_EXIT_OK;

	self = getpid();
	recv_tid = syscall(SYS_gettid);
	helper_pipe = pipe_fd;
	if (!ls || !pfd)
		return NW_EXIT_FAIL;
	truth_emit("supervisor", "\"pid\":%d,\"listeners\":%d,\"t\":%llu",
		   self, nlisteners, ull(nw_now()));
	addfd_src = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (i = 0; i < nlisteners; i++) {
		ls[i].hup_fd = -1;
		ls[i].fd = nw_recv_fd(sock, &ls[i].idx);
		if (ls[i].fd < 0) {
			/* A target failed before handing over its listener. */
			open_count = i;
			break;
		}
		truth_emit("listener", "\"sup_pid\":%d,\"listener\":%d,\"fd\":%d",
			   self, ls[i].idx, ls[i].fd);
	}
	close(sock);
	nlisteners = open_count;
	if (handlers_start()) {
		rc = NW_EXIT_FAIL;
		goto out;
	}

	while (open_count > 0) {
		for (i = 0; i < nlisteners; i++) {
			pfd[i].fd = ls[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		n = poll(pfd, nlisteners, 100);
		if (n < 0 && errno != EINTR) {
			rc = NW_EXIT_FAIL;
			goto out;
		}
		if (n <= 0) {
			if (__atomic_load_n(&nw_shared->targets_done, __ATOMIC_SEQ_CST))
				break;
			continue;
		}
		for (i = 0; i < nlisteners; i++) {
			if (ls[i].fd < 0 || !pfd[i].revents)
				continue;
			if (pfd[i].revents & POLLIN) {
				r = handle_one(&ls[i]);
				if (r == NW_EXIT_UNSUPPORTED ||
				    r == NW_EXIT_FAIL) {
					rc = r;
					goto out;
				}
				if (r < 0)
					open_count--;
			} else {
				truth_emit("listener_hup", "\"sup_pid\":%d,\"listener\":%d,\"t\":%llu",
					   self, ls[i].idx, ull(nw_now()));
				/* a worker may still reply on it: closed after them */
				if (nw_opts.pool)
					ls[i].hup_fd = ls[i].fd;
				else
					close(ls[i].fd);
				ls[i].fd = -1;
				open_count--;
			}
		}
	}
out:
	handlers_stop();
	for (i = 0; i < nlisteners; i++)
		if (ls[i].hup_fd >= 0)
			close(ls[i].hup_fd);
	return rc;
}
