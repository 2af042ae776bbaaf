/* SPDX-License-Identifier: MIT */
/*
 * netproxy.h - the filtering HTTP proxy that gives sandboxed programs
 * HTTP and HTTPS to a list of hosts, and nothing else (library-internal).
 *
 * The sandbox (sandbox.c) runs a program whose network is limited to
 * `WebFetch(domain:...)` grants in a network namespace that has only a
 * loopback; the program's side creates the listening socket there and
 * hands it to skit, which serves it with this proxy from the host's
 * namespace. Two request forms are understood:
 *
 *   CONNECT host:port HTTP/1.1   a tunnel (HTTPS): "200" then raw bytes
 *   GET http://host[:port]/path HTTP/1.1   plain HTTP, forwarded in
 *                                origin form with "Connection: close"
 *
 * A request for a host the list does not cover gets a 403, a malformed
 * one a 400, an unreachable host a 502. Only ports 80 and 443 are
 * dialled, and never an address in the loopback, link-local (cloud
 * metadata), private, unspecified or multicast ranges: an allowed name
 * must not become a way into the host's own services.
 *
 * What is not here: TLS (a CONNECT tunnel carries the program's own TLS;
 * the proxy sees the host name only), authentication, caching.
 */
#ifndef SKIT_LIB_NETPROXY_H
#define SKIT_LIB_NETPROXY_H

#include "skit/common.h"

struct skit__netproxy;

struct skit__netproxy_opts {
	/*
	 * NULL-ended; copied. "HOST" covers HOST and its subdomains, "*"
	 * any host, "!HOST" refuses HOST and its subdomains (checked
	 * first). Matching ignores case and one trailing dot.
	 */
	const char *const *domains;
	/*
	 * For tests: NULL-ended "HOST=ADDRESS" pairs (a numeric IPv4 or
	 * IPv6 address) used instead of the resolver. A mapped address is
	 * dialled whatever its range, and on any port.
	 */
	const char *const *resolve;
};

/*
 * Serve the listening socket `lfd` (taken over: closed by stop, or here
 * on failure) from a thread of this process until
 * skit__netproxy_stop(). At most 32 connections are served at once;
 * more wait in the listen backlog.
 * Returns 0, SKIT_ENOMEM or SKIT_EIO (a thread could not start).
 */
int skit__netproxy_start(struct skit__netproxy **out, int lfd,
                         const struct skit__netproxy_opts *o, skit_error *err);

/* What the proxy did for the run: requests forwarded (a tunnel opened
 * or a request sent on) and refused (any 4xx or 5xx answer). */
struct skit__netproxy_counts {
	unsigned long forwarded, refused;
};

/*
 * Close every connection, wait for the threads, then fill `counts` (may
 * be NULL) and free. NULL `px` is allowed (counts are zeroed).
 */
void skit__netproxy_stop(struct skit__netproxy *px,
                         struct skit__netproxy_counts *counts);

/* Whether `host` is allowed by `domains` (as in skit__netproxy_opts). */
bool skit__netproxy_host_allowed(const char *const *domains, const char *host);

#endif
