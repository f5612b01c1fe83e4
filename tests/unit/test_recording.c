// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "recording.h"
#include "unit.h"

static char *tmp_dir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/nw-rec-XXXXXX");
	return mkdtemp(dir);
}

static const struct recording_info info = {
	.nw_version = "test",
	.kernel_release = "6.1.0-test",
	.backend = "tracepoint",
	.backend_reason = "sched_switch; fentry: not attachable",
	.arch = 0xc000003e,
	.realtime_offset_ns = 1700000000000000000LL,
	.mono_start_ns = 1000,
};

/* One of every entry kind, in the order written. */
static void write_all_kinds(struct recording_writer *w)
{
	struct nw_fact_wait wait = { .h = { .kind = NW_FACT_WAIT,
					    .size = sizeof(wait),
					    .tid = 7,
					    .t_ns = 2000 },
				     .id = 42,
				     .nr = 39 };
	struct nw_fact_task task = {
		.h = { .kind = NW_FACT_TASK, .size = sizeof(task), .tid = 7 },
		.comm = "target"
	};
	struct nw_fact_return ret = {
		.h = { .kind = NW_FACT_RETURN, .size = sizeof(ret) }, .ret = -4
	};
	struct nw_fact_recv recv = { .h = { .kind = NW_FACT_RECV,
					    .size = sizeof(recv) } };
	struct nw_fact_reply rep = { .h = { .kind = NW_FACT_REPLY,
					    .size = sizeof(rep) } };
	struct nw_fact_reply_done done = { .h = { .kind = NW_FACT_REPLY_DONE,
						  .size = sizeof(done) } };
	struct nw_fact_signal sig = {
		.h = { .kind = NW_FACT_SIGNAL, .size = sizeof(sig) }, .sig = 10
	};
	struct nw_fact_deliver del = {
		.h = { .kind = NW_FACT_DELIVER, .size = sizeof(del) }, .sig = 10
	};
	__u64 counters[5] = { 1, 2, 3, 4, 5 };

	recording_fact(w, &task, sizeof(task));
	recording_fact(w, &wait, sizeof(wait));
	recording_fact(w, &recv, sizeof(recv));
	recording_fact(w, &sig, sizeof(sig));
	recording_fact(w, &del, sizeof(del));
	recording_fact(w, &rep, sizeof(rep));
	recording_fact(w, &done, sizeof(done));
	recording_fact(w, &ret, sizeof(ret));
	recording_tick(w, 5000);
	recording_counters(w, counters, 5);
}

static const unsigned int kinds[] = {
	NW_FACT_TASK,	 NW_FACT_WAIT,	  NW_FACT_RECV,	      NW_FACT_SIGNAL,
	NW_FACT_DELIVER, NW_FACT_REPLY,	  NW_FACT_REPLY_DONE, NW_FACT_RETURN,
	NW_REC_TICK,	 NW_REC_COUNTERS, NW_REC_END,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 16);

	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

/* Returns the entries read; *cut, *err as the reader said. */
static int read_back(const void *data, size_t len, bool *cut, bool *err)
{
	struct recording_reader *r;
	struct recording_entry e;
	enum recording_next n;
	int count = 0;

	*err = false;
	*cut = false;
	r = recording_open_mem(data, len, NULL, 0);
	if (!r) {
		*err = true;
		return -1;
	}
	while ((n = recording_next(r, &e)) == RECORDING_ENTRY)
		count++;
	*err = n == RECORDING_ERROR;
	*cut = recording_cut_short(r);
	recording_close_reader(r);
	return count;
}

static char *make_recording(size_t *len)
{
	char *dir = tmp_dir(), path[128], *buf;
	struct recording_writer *w;

	snprintf(path, sizeof(path), "%s/rec", dir);
	w = recording_create(path, &info);
	if (!w)
		return NULL;
	write_all_kinds(w);
	if (recording_close(w))
		return NULL;
	buf = read_file(path, len);
	unlink(path);
	rmdir(dir);
	return buf;
}

TEST(recording_round_trip)
{
	char err[160], *dir = tmp_dir(), path[128];
	struct recording_reader *r;
	struct recording_writer *w;
	struct recording_entry e;
	const struct nw_rec_header *h;
	unsigned int i = 0;

	snprintf(path, sizeof(path), "%s/rec", dir);
	w = recording_create(path, &info);
	ASSERT_TRUE(w);
	write_all_kinds(w);
	EXPECT_EQ(recording_close(w), 0);
	r = recording_open(path, err, sizeof(err));
	ASSERT_TRUE(r);
	h = recording_header(r);
	EXPECT_STREQ(h->backend, "tracepoint");
	EXPECT_STREQ(h->kernel_release, "6.1.0-test");
	EXPECT_STREQ(h->backend_reason, info.backend_reason);
	EXPECT_EQ(h->arch, 0xc000003e);
	EXPECT_EQ(h->realtime_offset_ns, info.realtime_offset_ns);
	EXPECT_EQ(h->mono_start_ns, 1000);
	while (recording_next(r, &e) == RECORDING_ENTRY) {
		ASSERT_TRUE(i < NKINDS);
		EXPECT_EQ(e.kind, kinds[i]);
		EXPECT_EQ(e.size, e.kind == NW_REC_COUNTERS ?
					  32 + 5 * 8 :
					  recording_kind_size(e.kind));
		if (e.kind == NW_FACT_WAIT) {
			const struct nw_fact_wait *f = e.data;

			EXPECT_EQ(f->id, 42);
			EXPECT_EQ(f->h.tid, 7);
			EXPECT_EQ(f->h.t_ns, 2000);
		}
		if (e.kind == NW_FACT_TASK)
			EXPECT_STREQ(
				((const struct nw_fact_task *)e.data)->comm,
				"target");
		if (e.kind == NW_REC_TICK)
			EXPECT_EQ(((const struct nw_rec_tick *)e.data)->now_ns,
				  5000);
		if (e.kind == NW_REC_COUNTERS) {
			const struct nw_rec_counters *c = e.data;
			const __u64 *v = (const __u64 *)(c + 1);

			EXPECT_EQ(c->count, 5);
			EXPECT_EQ(v[0], 1);
			EXPECT_EQ(v[4], 5);
		}
		i++;
	}
	EXPECT_EQ(i, NKINDS);
	EXPECT_TRUE(!recording_cut_short(r));
	EXPECT_TRUE(!recording_error(r));
	recording_close_reader(r);
	unlink(path);
	rmdir(dir);
}

TEST(recording_cut_at_every_offset)
{
	size_t len, cut, off;
	char *buf = make_recording(&len);
	bool is_cut, is_err;
	int n, whole;

	ASSERT_TRUE(buf);
	for (cut = NW_REC_HEADER_SIZE; cut < len; cut++) {
		/* the whole entries before @cut */
		whole = 0;
		off = NW_REC_HEADER_SIZE;
		while (off + 24 <= cut) {
			struct nw_fact_hdr h;

			memcpy(&h, buf + off, sizeof(h));
			if (off + h.size > cut)
				break;
			off += h.size;
			whole++;
		}
		n = read_back(buf, cut, &is_cut, &is_err);
		EXPECT_EQ(n, whole);
		EXPECT_TRUE(is_cut);
		EXPECT_TRUE(!is_err);
	}
	/* within the header: refused, never read */
	for (cut = 0; cut < NW_REC_HEADER_SIZE; cut++)
		EXPECT_EQ(read_back(buf, cut, &is_cut, &is_err), -1);
	n = read_back(buf, len, &is_cut, &is_err);
	EXPECT_EQ(n, NKINDS);
	EXPECT_TRUE(!is_cut && !is_err);
	free(buf);
}

TEST(recording_flipped_bytes_never_crash)
{
	size_t len, i;
	char *buf = make_recording(&len);
	bool is_cut, is_err;
	int bit;

	ASSERT_TRUE(buf);
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit += 3) {
			buf[i] ^= 1 << bit;
			read_back(buf, len, &is_cut, &is_err);
			buf[i] ^= 1 << bit;
		}
	free(buf);
}

TEST(recording_corrupt_entry_names_offset)
{
	struct recording_reader *r;
	struct recording_entry e;
	size_t len;
	char *buf = make_recording(&len);

	ASSERT_TRUE(buf);
	buf[NW_REC_HEADER_SIZE + 48 + 2] = 60; /* the WAIT's size */
	r = recording_open_mem(buf, len, NULL, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(recording_next(r, &e), RECORDING_ENTRY);
	EXPECT_EQ(recording_next(r, &e), RECORDING_ERROR);
	EXPECT_STREQ(recording_error(r),
		     "corrupt entry at byte offset 872: size not its kind's");
	EXPECT_EQ(recording_next(r, &e), RECORDING_ERROR);
	recording_close_reader(r);
	free(buf);
}

TEST(recording_header_refusals)
{
	struct nw_rec_header *h;
	char err[160];
	size_t len;
	char *buf = make_recording(&len);

	ASSERT_TRUE(buf);
	h = (struct nw_rec_header *)buf;
	h->format_version = 2;
	EXPECT_TRUE(!recording_open_mem(buf, len, err, sizeof(err)));
	EXPECT_STREQ(
		err,
		"recording format version 2 is newer than this notifwait reads (1)");
	h->format_version = 1;
	h->facts_version = 9;
	EXPECT_TRUE(!recording_open_mem(buf, len, err, sizeof(err)));
	EXPECT_STREQ(
		err,
		"its facts are version 9, this notifwait reads versions 1 to 4");
	h->facts_version = NW_FACTS_VERSION;
	buf[0] = 'X';
	EXPECT_TRUE(!recording_open_mem(buf, len, err, sizeof(err)));
	EXPECT_STREQ(err, "not a notifwait recording (wrong magic)");
	free(buf);
}

/* A bigger header_size (a newer minor version's fields) is skipped. */
TEST(recording_longer_header_skipped)
{
	struct recording_reader *r;
	struct recording_entry e;
	size_t len;
	char *buf = make_recording(&len), *big;
	int n = 0;

	ASSERT_TRUE(buf);
	big = calloc(1, len + 16);
	memcpy(big, buf, NW_REC_HEADER_SIZE);
	memcpy(big + NW_REC_HEADER_SIZE + 16, buf + NW_REC_HEADER_SIZE,
	       len - NW_REC_HEADER_SIZE);
	((struct nw_rec_header *)big)->header_size = NW_REC_HEADER_SIZE + 16;
	r = recording_open_mem(big, len + 16, NULL, 0);
	ASSERT_TRUE(r);
	while (recording_next(r, &e) == RECORDING_ENTRY)
		n++;
	EXPECT_EQ(n, NKINDS);
	recording_close_reader(r);
	free(big);
	free(buf);
}

static bool refused_and_kept(const char *path, mode_t type)
{
	struct stat st;

	if (recording_create(path, &info))
		return false;
	return !lstat(path, &st) && (st.st_mode & S_IFMT) == type;
}

TEST(recording_refuses_non_regular)
{
	char *dir = tmp_dir(), p[160];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	ASSERT_TRUE(dir);
	snprintf(p, sizeof(p), "%s/link", dir);
	ASSERT_TRUE(!symlink("target", p));
	EXPECT_TRUE(refused_and_kept(p, S_IFLNK));
	unlink(p);
	snprintf(p, sizeof(p), "%s/dir", dir);
	ASSERT_TRUE(!mkdir(p, 0700));
	EXPECT_TRUE(refused_and_kept(p, S_IFDIR));
	rmdir(p);
	EXPECT_TRUE(refused_and_kept("/dev/null", S_IFCHR));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_TRUE(s >= 0 && !bind(s, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_TRUE(refused_and_kept(sa.sun_path, S_IFSOCK));
	close(s);
	unlink(sa.sun_path);
	rmdir(dir);
}

TEST(recording_truncates_regular_and_writes_fifo)
{
	char *dir = tmp_dir(), p[160], buf[4096];
	struct recording_writer *w;
	struct stat st;
	int fd, rfd;
	ssize_t n;

	ASSERT_TRUE(dir);
	snprintf(p, sizeof(p), "%s/old", dir);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	ASSERT_TRUE(fd >= 0);
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(write(fd, buf, sizeof(buf)), sizeof(buf));
	close(fd);
	w = recording_create(p, &info);
	ASSERT_TRUE(w);
	EXPECT_EQ(recording_close(w), 0);
	EXPECT_TRUE(!stat(p, &st) && st.st_size == NW_REC_HEADER_SIZE + 24);
	unlink(p);

	snprintf(p, sizeof(p), "%s/fifo", dir);
	ASSERT_TRUE(!mkfifo(p, 0600));
	rfd = open(p, O_RDONLY | O_NONBLOCK);
	ASSERT_TRUE(rfd >= 0);
	w = recording_create(p, &info);
	ASSERT_TRUE(w);
	EXPECT_EQ(recording_close(w), 0);
	n = read(rfd, buf, sizeof(buf));
	EXPECT_EQ(n, NW_REC_HEADER_SIZE + 24);
	close(rfd);
	unlink(p);
	rmdir(dir);
}

/* RLIMIT_FSIZE holds root too: EFBIG once the file reaches it. */
TEST(recording_write_error_reported)
{
	char *dir = tmp_dir(), p[160];
	int status;
	pid_t pid;

	ASSERT_TRUE(dir);
	snprintf(p, sizeof(p), "%s/small", dir);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 8192, 8192 };
		struct recording_writer *w;
		int i;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		w = recording_create(p, &info);
		if (!w)
			_exit(2);
		for (i = 0; i < 20000; i++)
			write_all_kinds(w);
		_exit(recording_failed(w) && recording_close(w) > 0 ? 0 : 1);
	}
	ASSERT_TRUE(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(p);
	rmdir(dir);
}

TEST(recording_skips_malformed_facts)
{
	char *dir = tmp_dir(), p[160];
	struct nw_fact_wait wait = { .h = { .kind = NW_FACT_WAIT,
					    .size = sizeof(wait) } };
	struct recording_writer *w;
	size_t len;
	char *buf;
	bool cut, err;

	ASSERT_TRUE(dir);
	snprintf(p, sizeof(p), "%s/rec", dir);
	w = recording_create(p, &info);
	ASSERT_TRUE(w);
	recording_fact(w, &wait, 32); /* not its hdr.size */
	wait.h.size = 32;
	recording_fact(w, &wait, 32); /* not its kind's */
	wait.h.kind = 0x7f;
	recording_fact(w, &wait, 32); /* unknown */
	wait.h.kind = NW_REC_TICK; /* a reporter kind from BPF */
	recording_fact(w, &wait, 32);
	EXPECT_EQ(recording_skipped(w), 4);
	EXPECT_EQ(recording_close(w), 0);
	buf = read_file(p, &len);
	EXPECT_EQ(read_back(buf, len, &cut, &err), 1); /* END */
	EXPECT_TRUE(!cut && !err);
	free(buf);
	unlink(p);
	rmdir(dir);
}

/* A struct nw_counters grown by a field reads back whole. */
TEST(recording_counters_any_count)
{
	struct recording_reader *r;
	struct recording_writer *w;
	struct recording_entry e;
	char *dir = tmp_dir(), p[160];
	__u64 v[NW_REC_MAX_COUNTERS + 1] = { 0 };
	unsigned int n;

	ASSERT_TRUE(dir);
	snprintf(p, sizeof(p), "%s/rec", dir);
	w = recording_create(p, &info);
	ASSERT_TRUE(w);
	for (n = 0; n <= NW_REC_MAX_COUNTERS + 1; n++)
		recording_counters(w, v, n);
	EXPECT_EQ(recording_close(w), 0);
	r = recording_open(p, NULL, 0);
	ASSERT_TRUE(r);
	n = 0;
	while (recording_next(r, &e) == RECORDING_ENTRY &&
	       e.kind != NW_REC_END) {
		const struct nw_rec_counters *c = e.data;
		unsigned int want =
			n > NW_REC_MAX_COUNTERS ? NW_REC_MAX_COUNTERS : n;

		EXPECT_EQ(c->count, want);
		EXPECT_EQ(e.size, 32 + 8 * want);
		n++;
	}
	EXPECT_EQ(n, NW_REC_MAX_COUNTERS + 2);
	EXPECT_TRUE(!recording_error(r));
	recording_close_reader(r);
	unlink(p);
	rmdir(dir);
}
