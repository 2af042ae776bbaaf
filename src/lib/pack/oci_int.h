/* SPDX-License-Identifier: MIT */
/*
 * oci_int.h - skill packs as OCI artifacts: the pull side an install
 * uses (the push side is skit_oci_push() in skit/pack.h).
 */
#ifndef SKIT_LIB_OCI_INT_H
#define SKIT_LIB_OCI_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "skit/common.h"

/* The artifact type and the layer's media type of a skit pack. */
#define SKIT__OCI_ARTIFACT_TYPE "application/vnd.skit.pack.v1+zip"

/* "sha256:" + 64 hex + NUL */
#define SKIT__OCI_DIGEST_LEN 72

/*
 * Pull the pack named by `ref` ("oci://HOST[:PORT]/REPO:TAG" or
 * "...@sha256:HEX") into the open, empty file `fd`. `pin` (may be NULL)
 * is a manifest digest to fetch instead of the tag (the lock's record).
 * Every digest is checked: the manifest's bytes against the digest asked
 * for (and the registry's Docker-Content-Digest), the layer's bytes and
 * size against its descriptor; any mismatch is SKIT_EUNSAFE. More than
 * `max_bytes` is SKIT_ETOOBIG. `plain_http` is honoured for loopback
 * hosts only (SKIT_EUNSAFE otherwise). `manifest_digest` receives
 * "sha256:HEX" of the manifest.
 */
int skit__oci_pull(const char *ref, const char *pin, bool plain_http, int fd,
                   uint64_t max_bytes, long timeout_ms,
                   char manifest_digest[SKIT__OCI_DIGEST_LEN], skit_error *err);

/* Is `s` an oci:// reference (by its scheme only)? */
bool skit__oci_is_ref(const char *s);

#endif
