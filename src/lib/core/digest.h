/* SPDX-License-Identifier: MIT */
/*
 * digest.h - SHA-256 in lower-case hex (OpenSSL libcrypto), the one home
 * of the helpers the tools, packs and downloads share.
 */
#ifndef SKIT_LIB_DIGEST_H
#define SKIT_LIB_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/* The SHA-256 of `data`; "" if OpenSSL fails. */
void skit__sha256_hex(const char *data, size_t len, char hex[65]);

/* Finish a SHA-256 context started with EVP_DigestInit_ex(); "" if
 * OpenSSL fails. */
void skit__sha256_final(EVP_MD_CTX *ctx, char hex[65]);

/* The SHA-256 of an open file's bytes, read to EOF; `size` (may be
 * NULL) receives the byte count. 0, SKIT_ENOMEM or SKIT_EIO. */
int skit__sha256_fd(int fd, char hex[65], uint64_t *size);

#endif
