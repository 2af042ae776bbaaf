/* SPDX-License-Identifier: MIT */
/*
 * sign.c - Ed25519 key pairs, pack signatures and their checks, on
 * OpenSSL 3's libcrypto.
 *
 * Everything here is one-shot: a key is read from its PEM file, used and
 * freed within the call, so nothing is cached and nothing is shared
 * between threads. Key files are untrusted input (a trusted-keys folder
 * may hold anything): they are read through skitx_fs_read_file() with a
 * 16 KiB cap, never through a path OpenSSL opens itself, and a key of any
 * other type than Ed25519 is refused by name, so that an RSA or EC key
 * can never stand in for one. Encrypted private keys are refused too: the
 * library never prompts, so OpenSSL gets a passphrase callback that has
 * none to give.
 *
 * What is not here: which keys are trusted (the caller passes the files),
 * the manifest and its digest (pack.c), and any printing.
 *
 * OpenSSL keeps failures on a per-thread error queue; every path that
 * leaves an entry there clears it, so a later unrelated call to OpenSSL in
 * the embedding program does not find our leftovers.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "lib/core/error.h"
#include "lib/pack/sign_int.h"
#include "skit/pack.h"
#include "util/buf.h"
#include "util/fs.h"

#define KEY_FILE_CAP  (16 * 1024)
#define RAW_KEY_LEN   32
#define SIG_LEN       64
#define SIG_B64_LEN   88 /* 4 * ceil(64 / 3) */
#define MESSAGE_MAGIC "skit-pack-v1 "

static const char b64_alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*
 * OpenSSL's passphrase callback. Returning -1 makes the read fail instead
 * of falling back to OpenSSL's default, which prompts on the terminal.
 */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

/* The id of `pkey`: 16 hex digits of SHA-256(raw public key). */
static int key_id_of(EVP_PKEY *pkey, char id[SKIT__KEY_ID_LEN + 1],
                     skit_error *err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[RAW_KEY_LEN], md[EVP_MAX_MD_SIZE];
	size_t raw_len = sizeof(raw);
	unsigned int md_len = 0;

	if (EVP_PKEY_get_raw_public_key(pkey, raw, &raw_len) != 1 ||
	    raw_len != RAW_KEY_LEN ||
	    EVP_Digest(raw, raw_len, md, &md_len, EVP_sha256(), NULL) != 1 ||
	    md_len < SKIT__KEY_ID_LEN / 2) {
		ERR_clear_error();
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot compute the key id");
	}
	for (size_t i = 0; i < SKIT__KEY_ID_LEN / 2; i++) {
		id[2 * i] = hex[md[i] >> 4];
		id[2 * i + 1] = hex[md[i] & 15];
	}
	id[SKIT__KEY_ID_LEN] = '\0';
	return 0;
}

/*
 * Read the key file `path` (public or private, per `private_key`) into
 * `*out`. Errors name the file: missing (SKIT_ENOTFOUND), too big
 * (SKIT_ETOOBIG), a link or special file (SKIT_EUNSAFE), not a PEM key of
 * that kind or not Ed25519 (SKIT_EINVALID).
 */
static int load_key(EVP_PKEY **out, const char *path, bool private_key,
                    skit_error *err)
{
	const char *kind = private_key ? "private" : "public";
	struct skitx_buf text = SKITX_BUF_INIT;
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	int error;

	*out = NULL;
	error = skitx_fs_read_file(path, &text, KEY_FILE_CAP);
	switch (error) {
	case 0:
		break;
	case SKIT_ENOMEM:
		error = skit__error_oom(err);
		goto out;
	case SKIT_ENOTFOUND:
		error = skit__error_set(err, error, 0, "%s key %s: not found",
		                        kind, path);
		goto out;
	case SKIT_ETOOBIG:
		error = skit__error_set(err, error, 0,
		                        "%s key %s: larger than %d KiB", kind,
		                        path, KEY_FILE_CAP / 1024);
		goto out;
	case SKIT_EUNSAFE:
		error = skit__error_set(err, error, 0,
		                        "%s key %s: not a regular file", kind,
		                        path);
		goto out;
	default:
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "%s key %s: cannot be read", kind,
		                        path);
		goto out;
	}
	if (text.len > INT_MAX) {
		error = skit__error_set(err, SKIT_ETOOBIG, 0,
		                        "%s key %s: too big", kind, path);
		goto out;
	}
	bio = BIO_new_mem_buf(text.ptr, (int)text.len);
	if (!bio) {
		error = skit__error_oom(err);
		goto out;
	}
	if (private_key)
		pkey = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
	else
		pkey = PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL);
	if (!pkey) {
		error = skit__error_set(
		        err, SKIT_EINVALID, 0,
		        private_key
		                ? "private key %s: not an unencrypted PEM private key"
		                : "public key %s: not a PEM public key",
		        path);
		goto out;
	}
	if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		const char *type = EVP_PKEY_get0_type_name(pkey);

		error = skit__error_set(err, SKIT_EINVALID, 0,
		                        "%s key %s: a %s key, not Ed25519",
		                        kind, path,
		                        type ? type : "non-Ed25519");
		goto out;
	}
	*out = pkey;
	pkey = NULL;
	error = 0;
out:
	ERR_clear_error();
	EVP_PKEY_free(pkey);
	BIO_free(bio);
	/* A private key's bytes should not linger in freed memory. */
	if (text.len)
		OPENSSL_cleanse(text.ptr, text.len);
	skitx_buf_release(&text);
	return error;
}

/* The bytes a memory BIO holds; false when it cannot tell. */
static bool bio_bytes(BIO *bio, const char **data, size_t *len)
{
	char *p = NULL;
	long n = BIO_get_mem_data(bio, &p);

	if (n <= 0 || !p)
		return false;
	*data = p;
	*len = (size_t)n;
	return true;
}

/*
 * Create `path` with O_EXCL and mode 0600 and write `data` to it. An
 * existing file (or link) is SKIT_EEXISTS: a key is never overwritten.
 */
static int write_private(const char *path, const char *data, size_t len,
                         skit_error *err)
{
	int fd, saved;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	          0600);
	if (fd < 0) {
		if (errno == EEXIST)
			return skit__error_set(err, SKIT_EEXISTS, 0,
			                       "private key %s: already exists",
			                       path);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "private key %s: cannot be created: %s",
		                       path, strerror(errno));
	}
	/* The umask can only have narrowed 0600; make it exact anyway. */
	if (fchmod(fd, 0600) < 0 || skitx_fs_write_all(fd, data, len) < 0 ||
	    fsync(fd) < 0) {
		saved = errno;
		close(fd);
		unlink(path);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "private key %s: cannot be written: %s",
		                       path, strerror(saved));
	}
	if (close(fd) < 0) {
		saved = errno;
		unlink(path);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "private key %s: cannot be written: %s",
		                       path, strerror(saved));
	}
	return 0;
}

/*
 * Strict standard base64 of exactly 64 bytes: 86 alphabet characters and
 * "==", the last data character carrying no stray low bits (so each
 * signature has one encoding). Trailing ASCII whitespace is allowed (a
 * signature file usually ends with a newline). Returns false otherwise.
 */
static bool decode_sig(const char *b64, unsigned char sig[SIG_LEN])
{
	unsigned char tmp[SIG_B64_LEN / 4 * 3];
	size_t len = strlen(b64);
	const char *last;

	while (len > SIG_B64_LEN &&
	       (b64[len - 1] == '\n' || b64[len - 1] == '\r' ||
	        b64[len - 1] == ' ' || b64[len - 1] == '\t'))
		len--;
	if (len != SIG_B64_LEN || b64[86] != '=' || b64[87] != '=')
		return false;
	for (size_t i = 0; i < 86; i++)
		if (!b64[i] || !strchr(b64_alphabet, b64[i]))
			return false;
	/* 64 = 21 * 3 + 1: the last group's second character holds 4 bits
	 * of padding, which must be zero. */
	last = strchr(b64_alphabet, b64[85]);
	if ((last - b64_alphabet) & 15)
		return false;
	/* EVP_DecodeBlock counts the padding as data: 66 bytes out. */
	if (EVP_DecodeBlock(tmp, (const unsigned char *)b64, SIG_B64_LEN) !=
	    (int)sizeof(tmp))
		return false;
	memcpy(sig, tmp, SIG_LEN);
	return true;
}

/* Whether `s` is a well-formed key id (16 lowercase hex digits). */
static bool is_key_id(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i >= SKIT__KEY_ID_LEN || !((s[i] >= '0' && s[i] <= '9') ||
		                               (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == SKIT__KEY_ID_LEN;
}

int skit__sign_keygen(const char *priv_path, const char *pub_path,
                      char id[SKIT__KEY_ID_LEN + 1], skit_error *err)
{
	EVP_PKEY *pkey = NULL;
	BIO *priv = NULL, *pub = NULL;
	const char *data;
	size_t len;
	int error;

	assert(priv_path && pub_path && id);
	id[0] = '\0';
	if (!strcmp(priv_path, pub_path))
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "the private and public key paths are the same");
	pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!pkey) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot generate an Ed25519 key");
		goto out;
	}
	/* The private key's PEM lives in secure memory where OpenSSL has
	 * it, and is wiped when freed. */
	priv = BIO_new(BIO_s_secmem());
	pub = BIO_new(BIO_s_mem());
	if (!priv || !pub) {
		error = skit__error_oom(err);
		goto out;
	}
	/* PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"). */
	if (PEM_write_bio_PrivateKey(priv, pkey, NULL, NULL, 0, NULL, NULL) !=
	            1 ||
	    PEM_write_bio_PUBKEY(pub, pkey) != 1) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot encode the key as PEM");
		goto out;
	}
	error = key_id_of(pkey, id, err);
	if (error < 0)
		goto out;
	if (!bio_bytes(priv, &data, &len)) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot encode the key as PEM");
		goto out;
	}
	/* The private key first: O_EXCL refuses an existing one before
	 * anything else is touched. */
	error = write_private(priv_path, data, len, err);
	if (error < 0)
		goto out;
	if (!bio_bytes(pub, &data, &len)) {
		unlink(priv_path);
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot encode the key as PEM");
		goto out;
	}
	error = skitx_fs_write_atomic(pub_path, data, len, 0644);
	if (error < 0) {
		/* No half pair: a private key without its public key would
		 * make packs nobody can check. */
		unlink(priv_path);
		if (error == SKIT_ENOMEM)
			error = skit__error_oom(err);
		else
			error = skit__error_set(
			        err, SKIT_EIO, 0,
			        "public key %s: cannot be written", pub_path);
		goto out;
	}
out:
	if (error < 0)
		id[0] = '\0';
	ERR_clear_error();
	BIO_free(pub);
	BIO_free(priv);
	EVP_PKEY_free(pkey);
	return error;
}

void skit__sign_message(const char *digest_hex, char out[80])
{
	assert(digest_hex && strlen(digest_hex) <= 64);
	snprintf(out, 80, MESSAGE_MAGIC "%s", digest_hex);
}

int skit__sign(const char *priv_path, const char *msg, size_t len,
               char **sig_b64, char id[SKIT__KEY_ID_LEN + 1], skit_error *err)
{
	unsigned char sig[SIG_LEN];
	size_t sig_len = sizeof(sig);
	EVP_PKEY *pkey = NULL;
	EVP_MD_CTX *ctx = NULL;
	char *b64 = NULL;
	int error;

	assert(priv_path && (msg || !len) && sig_b64 && id);
	*sig_b64 = NULL;
	id[0] = '\0';
	error = load_key(&pkey, priv_path, true, err);
	if (error < 0)
		return error;
	error = key_id_of(pkey, id, err);
	if (error < 0)
		goto out;
	ctx = EVP_MD_CTX_new();
	b64 = skitx_malloc(SIG_B64_LEN + 1);
	if (!ctx || !b64) {
		error = skit__error_oom(err);
		goto out;
	}
	/* Ed25519 hashes internally: no digest, one-shot DigestSign. */
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, pkey) != 1 ||
	    EVP_DigestSign(ctx, sig, &sig_len, (const unsigned char *)msg,
	                   len) != 1 ||
	    sig_len != SIG_LEN) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "private key %s: cannot sign",
		                        priv_path);
		goto out;
	}
	if (EVP_EncodeBlock((unsigned char *)b64, sig, SIG_LEN) !=
	    SIG_B64_LEN) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "cannot encode the signature");
		goto out;
	}
	*sig_b64 = b64;
	b64 = NULL;
	error = 0;
out:
	if (error < 0)
		id[0] = '\0';
	ERR_clear_error();
	skitx_free(b64);
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	return error;
}

int skit__sign_verify(const char *const *pub_paths, size_t n, const char *msg,
                      size_t len, const char *sig_b64, const char *claimed_id,
                      char id[SKIT__KEY_ID_LEN + 1], skit_error *err)
{
	unsigned char sig[SIG_LEN];
	const char *who;
	EVP_MD_CTX *ctx = NULL;
	EVP_PKEY *pkey = NULL;
	int error, ok;

	assert((pub_paths || !n) && (msg || !len) && sig_b64 && id);
	id[0] = '\0';
	/* The claimed id comes from the pack: quote it only when it has the
	 * shape of an id, so the message carries no stranger's bytes. */
	who = claimed_id && is_key_id(claimed_id) ? claimed_id : "(unknown)";
	if (!decode_sig(sig_b64, sig))
		return skit__error_set(
		        err, SKIT_EDENIED, 0,
		        "signature by key %s is not base64 of an Ed25519 signature",
		        who);
	for (size_t i = 0; i < n; i++) {
		error = load_key(&pkey, pub_paths[i], false, err);
		if (error < 0)
			goto out;
		ctx = EVP_MD_CTX_new();
		if (!ctx) {
			error = skit__error_oom(err);
			goto out;
		}
		ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pkey) == 1 &&
		     EVP_DigestVerify(ctx, sig, SIG_LEN,
		                      (const unsigned char *)msg, len) == 1;
		ERR_clear_error();
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
		if (ok) {
			error = key_id_of(pkey, id, err);
			goto out;
		}
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
	error = skit__error_set(
	        err, SKIT_EDENIED, 0,
	        "signature by key %s does not verify with any trusted key",
	        who);
out:
	ERR_clear_error();
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	return error;
}

int skit_keygen(const char *priv_path, const char *pub_path, char **key_id,
                skit_error *err)
{
	char id[SKIT__KEY_ID_LEN + 1], *copy = NULL;
	int error;

	if (key_id)
		*key_id = NULL;
	if (!priv_path || !pub_path)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "skit_keygen: a path is NULL");
	/* Allocate first: a key pair on disk whose id could not be returned
	 * would be a success reported as a failure. */
	if (key_id) {
		copy = skitx_malloc(sizeof(id));
		if (!copy)
			return skit__error_oom(err);
	}
	error = skit__sign_keygen(priv_path, pub_path, id, err);
	if (error < 0) {
		skitx_free(copy);
		return error;
	}
	if (key_id) {
		memcpy(copy, id, sizeof(id));
		*key_id = copy;
	}
	return 0;
}
