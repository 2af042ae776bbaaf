/* SPDX-License-Identifier: MIT */
/*
 * netaddr.c - the addresses skit never dials for a program or a model
 * (see netaddr.h).
 */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "lib/core/netaddr.h"

/*
 * Addresses an allowed name must not lead to: this host and its
 * neighbours (loopback, private and shared ranges, link-local with the
 * cloud metadata service), and addresses that are no single host.
 */
bool skit__addr_blocked(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		uint32_t a = ntohl(
		        ((const struct sockaddr_in *)sa)->sin_addr.s_addr);

		return (a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 ||
		       (a >> 16) == 0xa9fe || (a >> 20) == 0xac1 ||
		       (a >> 16) == 0xc0a8 || (a >> 22) == (100u << 2 | 1) ||
		       (a >> 28) >= 0xe;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
		        &((const struct sockaddr_in6 *)sa)->sin6_addr;
		struct sockaddr_in v4;

		if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a)) {
			memset(&v4, 0, sizeof(v4));
			v4.sin_family = AF_INET;
			memcpy(&v4.sin_addr, a->s6_addr + 12, 4);
			return skit__addr_blocked((const struct sockaddr *)&v4);
		}
		return IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LOOPBACK(a) ||
		       IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_SITELOCAL(a) ||
		       IN6_IS_ADDR_MULTICAST(a) ||
		       (a->s6_addr[0] & 0xfe) == 0xfc;
	}
	return true;
}
