/* SPDX-License-Identifier: MIT */
/*
 * netaddr.h - which network addresses skit never dials on behalf of a
 * program or a model: the one rule the scripts' web proxy
 * (sandbox/netproxy.c) and the web_fetch tool (tools/tools_web.c) share,
 * so that an allowed host name cannot lead either of them to this
 * host's own services or its neighbours'.
 */
#ifndef SKIT_LIB_NETADDR_H
#define SKIT_LIB_NETADDR_H

#include <stdbool.h>

#include <sys/socket.h>

/*
 * Whether `sa` (AF_INET or AF_INET6; any other family counts as blocked)
 * is an address skit refuses to dial: loopback, the private and shared
 * (100.64/10) ranges, link-local (with the cloud metadata service),
 * IPv6 site-local and unique-local, unspecified, multicast and the
 * reserved 240/4. An IPv4-mapped or -compatible IPv6 address is judged
 * as its IPv4 address.
 */
bool skit__addr_blocked(const struct sockaddr *sa);

#endif
