/* SPDX-License-Identifier: MIT */
/*
 * digest.c - SHA-256 in lower-case hex (see digest.h).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/core/digest.h"
#include "skit/errors.h"

void skit__sha256_hex(const char *data, size_t len, char hex[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) ||
	    mdlen != 32) {
		hex[0] = '\0';
		return;
	}
	for (unsigned int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

void skit__sha256_final(EVP_MD_CTX *ctx, char hex[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;

	hex[0] = '\0';
	if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32)
		return;
	for (unsigned int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

int skit__sha256_fd(int fd, char hex[65], uint64_t *size)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char buf[65536];
	uint64_t total = 0;
	int rc = 0;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return SKIT_ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = SKIT_EIO;
			break;
		}
		if (!n)
			break;
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		total += (uint64_t)n;
	}
	if (!rc)
		skit__sha256_final(ctx, hex);
	EVP_MD_CTX_free(ctx);
	if (size)
		*size = total;
	return rc;
}
