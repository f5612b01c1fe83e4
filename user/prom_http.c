// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <microhttpd.h>
#include "prom_http.h"

#define PROM_HTTP_MAX_CONNECTIONS 4096U
#define PROM_HTTP_FD_RESERVE 256U
/* a connection silent this long is closed (Prometheus reconnects) */
#define PROM_HTTP_IDLE_TIMEOUT_S 10U

struct prom_http {
	struct MHD_Daemon *daemon;
	int fd; /* bound and listening; served once the daemon starts */
	struct prom_addr addr;
	prom_render_fn render;
	void *ctx;
};

static int parse_port(const char *s, in_port_t *port)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -EINVAL;
	*port = htons((in_port_t)v);
	return 0;
}

int prom_listen_parse(const char *s, struct prom_addr *a)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;
	const char *colon;
	char host[64];
	size_t hlen;

	memset(a, 0, sizeof(*a));
	if (!s || strlen(s) >= sizeof(a->text))
		return -EINVAL;
	snprintf(a->text, sizeof(a->text), "%s", s);
	if (s[0] == '[') {
		colon = strstr(s, "]:");
		if (!colon || colon - s - 1 >= (long)sizeof(host))
			return -EINVAL;
		hlen = colon - s - 1;
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		in6->sin6_family = AF_INET6;
		a->len = sizeof(*in6);
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		return parse_port(colon + 2, &in6->sin6_port);
	}
	colon = strrchr(s, ':');
	if (!colon || colon - s >= (long)sizeof(host))
		return -EINVAL;
	hlen = colon - s;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	in4->sin_family = AF_INET;
	a->len = sizeof(*in4);
	if (!hlen || !strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return -EINVAL;
	return parse_port(colon + 1, &in4->sin_port);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (mode == MHD_RESPMEM_MUST_FREE) /* an exposition: negotiated */
		MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_static(struct MHD_Connection *conn,
				    unsigned int status, const char *text)
{
	return reply(conn, status, "text/plain; charset=utf-8", (char *)text,
		     strlen(text), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct prom_http *h = cls;
	enum metrics_format fmt;
	size_t len = 0;
	char *body;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_static(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "only GET and HEAD\n");
	if (!strcmp(url, "/"))
		return reply_static(conn, MHD_HTTP_OK,
				    "notifwait: metrics at /metrics\n");
	if (strcmp(url, "/metrics"))
		return reply_static(conn, MHD_HTTP_NOT_FOUND,
				    "not found: metrics at /metrics\n");
	fmt = metrics_negotiate(MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	body = h->render(h->ctx, fmt, &len);
	if (!body)
		return reply_static(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				    "out of memory\n");
	return reply(conn, MHD_HTTP_OK, metrics_content_type(fmt), body, len,
		     MHD_RESPMEM_MUST_FREE);
}

/* Our own socket: bind errors get their errno, and it is close-on-exec. */
static int listen_socket(const struct prom_addr *a)
{
	int fd, one = 1, err;

	int zero = 0;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::]:PORT serves IPv4 too, whatever net.ipv6.bindv6only says */
	if (a->ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) {
		err = -errno;
		close(fd);
		return err;
	}
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len) ||
	    listen(fd, SOMAXCONN)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Connections served at once: one thread polls them all (epoll), so idle
 * or slow clients cost an fd each, not a thread or a turn. Bounded by the
 * fd limit, less what the tracer itself holds (BPF maps, programs, files).
 */
static unsigned int connection_limit(void)
{
	struct rlimit rl;
	rlim_t n = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		n = rl.rlim_cur;
	n = n > PROM_HTTP_FD_RESERVE + 64 ? n - PROM_HTTP_FD_RESERVE : 64;
	return n < PROM_HTTP_MAX_CONNECTIONS ? n : PROM_HTTP_MAX_CONNECTIONS;
}

/* Bound, not yet served (one --prom-listen): prom_http_serve() starts it. */
static struct prom_http *unserved;

struct prom_http *prom_http_start(const struct prom_addr *a,
				  prom_render_fn render, void *ctx)
{
	struct prom_http *h;
	int fd;

	h = calloc(1, sizeof(*h));
	if (!h) {
		fprintf(stderr, "notifwait: out of memory\n");
		return NULL;
	}
	h->render = render;
	h->ctx = ctx;
	fd = listen_socket(a);
	if (fd < 0) {
		fprintf(stderr, "notifwait: cannot listen on %s: %s\n", a->text,
			strerror(-fd));
		free(h);
		return NULL;
	}
	h->fd = fd;
	h->addr = *a;
	unserved = h;
	return h;
}

/*
 * The daemon's thread starts here, after notifwait dropped its privileges:
 * a thread has capabilities of its own, and inherits its creator's.
 */
int prom_http_serve(void)
{
	unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD;
	struct prom_http *h = unserved;
	sigset_t all, old;

	if (!h)
		return 0;
	unserved = NULL;
	if (h->addr.ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* Signals (Ctrl-C, the command's SIGCHLD) stay the main thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				     MHD_OPTION_LISTEN_SOCKET, h->fd,
				     MHD_OPTION_CONNECTION_TIMEOUT,
				     PROM_HTTP_IDLE_TIMEOUT_S,
				     MHD_OPTION_CONNECTION_LIMIT,
				     connection_limit(), MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		fprintf(stderr, "notifwait: cannot serve HTTP on %s\n",
			h->addr.text);
		return -EIO;
	}
	return 0;
}

void prom_http_stop(struct prom_http *h)
{
	if (!h)
		return;
	if (unserved == h)
		unserved = NULL;
	if (h->daemon)
		MHD_stop_daemon(h->daemon); /* closes the listen socket too */
	else
		close(h->fd);
	free(h);
}
