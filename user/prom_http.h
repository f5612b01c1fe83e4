/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --prom-listen: serves /metrics over HTTP (libmicrohttpd, its own thread).
 * The exposition is rendered by the owner's callback, which must lock
 * whatever the tracer's thread updates meanwhile.
 */
#ifndef NW_PROM_HTTP_H
#define NW_PROM_HTTP_H

#include <stddef.h>
#include <sys/socket.h>
#include "metrics.h"

struct prom_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char text[64]; /* as given, for messages */
};

/*
 * ADDR:PORT with ADDR an IPv4 address, [IPv6], localhost or empty
 * (127.0.0.1: exposing a tracer's data is a choice, 0.0.0.0 binds all).
 * Returns 0 or -EINVAL.
 */
int prom_listen_parse(const char *s, struct prom_addr *a);

/* Returns a malloc'd exposition and its length, or NULL. */
typedef char *(*prom_render_fn)(void *ctx, enum metrics_format fmt,
				size_t *len);

struct prom_http;

/* Binds; NULL with one line on stderr on failure. */
struct prom_http *prom_http_start(const struct prom_addr *a,
				  prom_render_fn render, void *ctx);
/*
 * Starts serving what prom_http_start bound, in a thread of its own
 * (none bound: nothing to do). Call it after dropping privileges.
 * 0, or -EIO with one line on stderr.
 */
int prom_http_serve(void);
void prom_http_stop(struct prom_http *h);

#endif /* NW_PROM_HTTP_H */
