/* SPDX-License-Identifier: MIT */
/*
 * sign_int.h - Ed25519 keys and signatures for packs (OpenSSL libcrypto).
 *
 * Keys are PEM files: the private key PKCS#8 ("BEGIN PRIVATE KEY"), the
 * public key SPKI ("BEGIN PUBLIC KEY"); both must be Ed25519 keys, any
 * other type is refused. A key's id is 16 lowercase hex digits: the first
 * 8 bytes of the SHA-256 of the raw 32-byte public key.
 *
 * A pack signature signs the ASCII message "skit-pack-v1 <digest-hex>"
 * (skit__sign_message() builds it); the signature travels as standard
 * base64 (88 characters for 64 bytes).
 *
 * Key files are untrusted input: read with a size cap (16 KiB).
 */
#ifndef SKIT_LIB_SIGN_INT_H
#define SKIT_LIB_SIGN_INT_H

#include <stddef.h>

#include "skit/common.h"

#define SKIT__KEY_ID_LEN 16

/* Write a new key pair: `priv_path` created with O_EXCL|O_NOFOLLOW and
 * mode 0600 (SKIT_EEXISTS if anything is there), `pub_path` with mode
 * 0644 (replaced atomically if it exists; if it cannot be written the
 * new private key is removed again). The same path twice is SKIT_EUSAGE.
 * `id` receives the key id (17 bytes with the NUL). */
int skit__sign_keygen(const char *priv_path, const char *pub_path,
                      char id[SKIT__KEY_ID_LEN + 1], skit_error *err);

/* The message a pack signature signs: "skit-pack-v1 " + digest_hex.
 * `out` must hold 13 + 64 + 1 bytes. */
void skit__sign_message(const char *digest_hex, char out[80]);

/* Sign `msg` with the private key in `priv_path`. `*sig_b64` (free with
 * skit_free) receives the base64 signature and `id` the key id.
 * Key file errors (here and in skit__sign_verify) name the file:
 * SKIT_ENOTFOUND (missing), SKIT_ETOOBIG (over 16 KiB), SKIT_EUNSAFE (a
 * symbolic link, folder or special file), SKIT_EINVALID (not a PEM key
 * of the expected kind, encrypted, or not Ed25519: "a RSA key, not
 * Ed25519"). */
int skit__sign(const char *priv_path, const char *msg, size_t len,
               char **sig_b64, char id[SKIT__KEY_ID_LEN + 1], skit_error *err);

/* Check `sig_b64` over `msg` against the public keys `pub_paths[0..n)`.
 * Returns 0 and copies the id of the key that verifies into `id`, or
 * SKIT_EDENIED ("signature by key X does not verify with any trusted
 * key"), or another error when a key file cannot be read. `claimed_id`
 * (may be NULL) is the id the signature names; it only improves the
 * message (quoted only when it has the form of an id): every key is
 * tried. `sig_b64` must be the canonical 88-character standard base64 of
 * 64 bytes, optionally followed by whitespace (a file's final newline);
 * anything else is SKIT_EDENIED as well. */
int skit__sign_verify(const char *const *pub_paths, size_t n, const char *msg,
                      size_t len, const char *sig_b64, const char *claimed_id,
                      char id[SKIT__KEY_ID_LEN + 1], skit_error *err);

#endif
