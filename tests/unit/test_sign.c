/* SPDX-License-Identifier: MIT */
/*
 * test_sign.c - Ed25519 keys and pack signatures (src/lib/pack/sign.c): key
 * files and their modes, the key id, sign and verify, tampered messages
 * and signatures, the wrong key, keys of other types (RSA, EC, an
 * encrypted key), hostile key files and malformed base64.
 */
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "harness.h"
#include "skit/pack.h"
#include "lib/pack/sign_int.h"
#include "util/fs.h"

#define DIGEST \
 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char base[PATH_MAX / 2];

static void rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[PATH_MAX];
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rm_rf(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static void fresh(void)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(base, sizeof(base), "%s/sign",
	         top ? top : "/tmp/skit-test-sign");
	rm_rf(base);
	ASSERT_OK(skitx_fs_mkdir_p(base, 0755));
}

/* `base`/name, in one of four rotating buffers. */
static const char *at(const char *name)
{
	static char bufs[4][PATH_MAX];
	static int i;
	char *p = bufs[i++ & 3];

	snprintf(p, PATH_MAX, "%s/%s", base, name);
	return p;
}

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	ASSERT(f);
	ASSERT_EQ(fwrite(text, 1, len, f), len);
	ASSERT_OK(fclose(f));
}

static bool is_id(const char *s)
{
	if (strlen(s) != SKIT__KEY_ID_LEN)
		return false;
	for (; *s; s++)
		if (!strchr("0123456789abcdef", *s))
			return false;
	return true;
}

static int file_mode(const char *path)
{
	struct stat st;

	ASSERT_OK(lstat(path, &st));
	return (int)(st.st_mode & 07777);
}

/* A key pair at base/<name>.key and base/<name>.pub; its id in `id`. */
static void pair(const char *name, char id[SKIT__KEY_ID_LEN + 1])
{
	char priv[PATH_MAX], pub[PATH_MAX];
	skit_error err = { 0 };

	snprintf(priv, sizeof(priv), "%s/%s.key", base, name);
	snprintf(pub, sizeof(pub), "%s/%s.pub", base, name);
	if (skit__sign_keygen(priv, pub, id, &err))
		HARNESS_FAIL("keygen: %s", err.message);
}

/* Write `pkey` as PEM: the private key (optionally encrypted) and the
 * public key. */
static void write_pem(EVP_PKEY *pkey, const char *priv, const char *pub,
                      const char *pass)
{
	BIO *b;

	b = BIO_new_file(priv, "w");
	ASSERT(b);
	if (pass)
		ASSERT_EQ(PEM_write_bio_PrivateKey(b, pkey, EVP_aes_256_cbc(),
		                                   (unsigned char *)pass,
		                                   (int)strlen(pass), NULL,
		                                   NULL),
		          1);
	else
		ASSERT_EQ(PEM_write_bio_PrivateKey(b, pkey, NULL, NULL, 0, NULL,
		                                   NULL),
		          1);
	BIO_free(b);
	if (!pub)
		return;
	b = BIO_new_file(pub, "w");
	ASSERT(b);
	ASSERT_EQ(PEM_write_bio_PUBKEY(b, pkey), 1);
	BIO_free(b);
}

static void test_sign__keygen_files(void)
{
	char *id = NULL, *id2 = NULL, text[4096];
	skit_error err = { 0 };
	FILE *f;
	size_t n;

	fresh();
	ASSERT_OK(skit_keygen(at("k.key"), at("k.pub"), &id, &err));
	ASSERT(id && is_id(id));
	ASSERT_EQ(file_mode(at("k.key")), 0600);
	ASSERT_EQ(file_mode(at("k.pub")), 0644);

	f = fopen(at("k.key"), "r");
	ASSERT(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	ASSERT_CONTAINS(text, "-----BEGIN PRIVATE KEY-----");
	f = fopen(at("k.pub"), "r");
	ASSERT(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	ASSERT_CONTAINS(text, "-----BEGIN PUBLIC KEY-----");

	/* A second pair gets another id; a NULL key_id is allowed. */
	ASSERT_OK(skit_keygen(at("k2.key"), at("k2.pub"), &id2, NULL));
	ASSERT(is_id(id2) && strcmp(id, id2));
	ASSERT_OK(skit_keygen(at("k3.key"), at("k3.pub"), NULL, NULL));
	skit_free(id);
	skit_free(id2);
}

static void test_sign__keygen_refuses_existing(void)
{
	skit_error err = { 0 };
	char *id = (char *)"x";

	fresh();
	put(at("k.key"), "mine\n", 5);
	ASSERT_EQ(skit_keygen(at("k.key"), at("k.pub"), &id, &err),
	          SKIT_EEXISTS);
	ASSERT(!id);
	ASSERT_CONTAINS(err.message, "already exists");
	/* Untouched, and no public key written. */
	{
		char text[16] = { 0 };
		FILE *f = fopen(at("k.key"), "r");

		ASSERT(f);
		ASSERT_EQ(fread(text, 1, sizeof(text) - 1, f), 5);
		fclose(f);
		ASSERT_STR(text, "mine\n");
	}
	ASSERT(access(at("k.pub"), F_OK) < 0);
	/* A symbolic link in the private key's place is refused too. */
	ASSERT_OK(symlink("elsewhere", at("l.key")));
	ASSERT_EQ(skit_keygen(at("l.key"), at("l.pub"), NULL, &err),
	          SKIT_EEXISTS);
	ASSERT(access(at("elsewhere"), F_OK) < 0);
	/* The same path twice is a usage error. */
	ASSERT_EQ(skit_keygen(at("s.key"), at("s.key"), NULL, &err),
	          SKIT_EUSAGE);
}

static void test_sign__message(void)
{
	char msg[80];

	skit__sign_message(DIGEST, msg);
	ASSERT_STR(msg, "skit-pack-v1 " DIGEST);
	ASSERT_EQ(strlen(msg), 13 + 64);
}

static void test_sign__round_trip(void)
{
	char id[SKIT__KEY_ID_LEN + 1], sid[SKIT__KEY_ID_LEN + 1];
	char vid[SKIT__KEY_ID_LEN + 1], msg[80], *sig = NULL, *again = NULL;
	const char *keys[1];
	skit_error err = { 0 };

	fresh();
	pair("a", id);
	skit__sign_message(DIGEST, msg);
	ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &sig, sid, &err));
	ASSERT_STR(sid, id);
	ASSERT_EQ(strlen(sig), 88);
	ASSERT_STR(sig + 86, "==");
	/* Ed25519 is deterministic: the same message, the same bytes. */
	ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &again, sid, &err));
	ASSERT_STR(again, sig);

	keys[0] = at("a.pub");
	ASSERT_OK(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err));
	ASSERT_STR(vid, id);
	/* The claimed id is only a hint. */
	ASSERT_OK(skit__sign_verify(keys, 1, msg, strlen(msg), sig, NULL, vid,
	                            &err));
	ASSERT_STR(vid, id);
	skit_free(sig);
	skit_free(again);
}

static void test_sign__tampered(void)
{
	char id[SKIT__KEY_ID_LEN + 1], vid[SKIT__KEY_ID_LEN + 1], msg[80];
	char *sig = NULL, bad[89];
	const char *keys[1];
	skit_error err = { 0 };

	fresh();
	pair("a", id);
	skit__sign_message(DIGEST, msg);
	ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &sig, vid, &err));
	keys[0] = at("a.pub");

	/* One bit of the message. */
	msg[20] ^= 1;
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err),
	          SKIT_EDENIED);
	ASSERT_CONTAINS(err.message, id);
	ASSERT_CONTAINS(err.message, "does not verify");
	ASSERT_STR(vid, "");
	msg[20] ^= 1;

	/* One bit of the signature (a base64 digit one step off). */
	memcpy(bad, sig, sizeof(bad));
	bad[10] = bad[10] == 'A' ? 'B' : 'A';
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), bad, id, vid,
	                            &err),
	          SKIT_EDENIED);
	/* A shorter message with the same prefix. */
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg) - 1, sig, id, vid,
	                            &err),
	          SKIT_EDENIED);
	skit_free(sig);
}

static void test_sign__wrong_key(void)
{
	char ida[SKIT__KEY_ID_LEN + 1], idb[SKIT__KEY_ID_LEN + 1];
	char vid[SKIT__KEY_ID_LEN + 1], msg[80], *sig = NULL;
	const char *keys[2];
	skit_error err = { 0 };

	fresh();
	pair("a", ida);
	pair("b", idb);
	skit__sign_message(DIGEST, msg);
	ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &sig, vid, &err));

	keys[0] = at("b.pub");
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, ida, vid,
	                            &err),
	          SKIT_EDENIED);
	ASSERT_CONTAINS(err.message, ida);
	/* No keys at all. */
	ASSERT_EQ(skit__sign_verify(NULL, 0, msg, strlen(msg), sig, ida, vid,
	                            &err),
	          SKIT_EDENIED);
	/* Every key is tried, whatever the claimed id. */
	keys[1] = at("a.pub");
	ASSERT_OK(skit__sign_verify(keys, 2, msg, strlen(msg), sig, idb, vid,
	                            &err));
	ASSERT_STR(vid, ida);
	/* A claimed id that is not an id is not quoted. */
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig,
	                            "\x1b[31mevil", vid, &err),
	          SKIT_EDENIED);
	ASSERT(!strstr(err.message, "evil"));
	skit_free(sig);
}

static void test_sign__other_key_types(void)
{
	char vid[SKIT__KEY_ID_LEN + 1], *sig = NULL;
	const char *keys[1];
	skit_error err = { 0 };
	EVP_PKEY *rsa, *ec, *ed;

	fresh();
	rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED448");
	ASSERT(rsa && ec && ed);
	write_pem(rsa, at("rsa.key"), at("rsa.pub"), NULL);
	write_pem(ec, at("ec.key"), at("ec.pub"), NULL);
	write_pem(ed, at("ed448.key"), at("ed448.pub"), NULL);
	EVP_PKEY_free(rsa);
	EVP_PKEY_free(ec);
	EVP_PKEY_free(ed);

	ASSERT_EQ(skit__sign(at("rsa.key"), "m", 1, &sig, vid, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "RSA");
	ASSERT_CONTAINS(err.message, "not Ed25519");
	ASSERT(!sig);
	ASSERT_EQ(skit__sign(at("ec.key"), "m", 1, &sig, vid, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "not Ed25519");
	ASSERT_EQ(skit__sign(at("ed448.key"), "m", 1, &sig, vid, &err),
	          SKIT_EINVALID);

	/* A well-formed signature, checked against an RSA public key. */
	{
		char id[SKIT__KEY_ID_LEN + 1], msg[80];

		pair("a", id);
		skit__sign_message(DIGEST, msg);
		ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &sig, vid,
		                     &err));
		keys[0] = at("rsa.pub");
		ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id,
		                            vid, &err),
		          SKIT_EINVALID);
		ASSERT_CONTAINS(err.message, "rsa.pub");
		ASSERT_CONTAINS(err.message, "not Ed25519");
		keys[0] = at("ec.pub");
		ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id,
		                            vid, &err),
		          SKIT_EINVALID);
		/* A private key where a public one is expected. */
		keys[0] = at("a.key");
		ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id,
		                            vid, &err),
		          SKIT_EINVALID);
		skit_free(sig);
	}
}

static void test_sign__encrypted_key_refused(void)
{
	char vid[SKIT__KEY_ID_LEN + 1], *sig = NULL;
	skit_error err = { 0 };
	EVP_PKEY *ed;

	fresh();
	ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	ASSERT(ed);
	write_pem(ed, at("enc.key"), NULL, "secret");
	EVP_PKEY_free(ed);
	/* No prompt (stdin is not read): refused. */
	ASSERT_EQ(skit__sign(at("enc.key"), "m", 1, &sig, vid, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "unencrypted");
	ASSERT(!sig);
}

static void test_sign__hostile_key_files(void)
{
	char vid[SKIT__KEY_ID_LEN + 1], *sig = NULL, *big;
	const char *keys[1];
	skit_error err = { 0 };
	char id[SKIT__KEY_ID_LEN + 1], msg[80];

	fresh();
	pair("a", id);
	skit__sign_message(DIGEST, msg);
	ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &sig, vid, &err));

	put(at("garbage.pub"), "-----BEGIN PUBLIC KEY-----\nnot base64!\n", 39);
	keys[0] = at("garbage.pub");
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "garbage.pub");

	/* Over the 16 KiB cap, even though it starts like a key. */
	big = malloc(20000);
	ASSERT(big);
	memset(big, 'A', 20000);
	memcpy(big, "-----BEGIN PUBLIC KEY-----\n", 27);
	put(at("big.pub"), big, 20000);
	free(big);
	keys[0] = at("big.pub");
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err),
	          SKIT_ETOOBIG);

	keys[0] = at("missing.pub");
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err),
	          SKIT_ENOTFOUND);

	/* A link to a good key is still a link: refused. */
	ASSERT_OK(symlink("a.pub", at("link.pub")));
	keys[0] = at("link.pub");
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err),
	          SKIT_EUNSAFE);
	keys[0] = base; /* a folder */
	ASSERT_EQ(skit__sign_verify(keys, 1, msg, strlen(msg), sig, id, vid,
	                            &err),
	          SKIT_EUNSAFE);

	skit_free(sig);
	sig = NULL;
	put(at("empty.key"), "", 0);
	ASSERT_EQ(skit__sign(at("empty.key"), msg, 1, &sig, vid, &err),
	          SKIT_EINVALID);
	skit_free(sig);
}

static void test_sign__base64(void)
{
	char id[SKIT__KEY_ID_LEN + 1], vid[SKIT__KEY_ID_LEN + 1], msg[80];
	char *sig = NULL, bad[128];
	const char *keys[1];
	skit_error err = { 0 };
	size_t len;

	fresh();
	pair("a", id);
	skit__sign_message(DIGEST, msg);
	ASSERT_OK(skit__sign(at("a.key"), msg, strlen(msg), &sig, vid, &err));
	keys[0] = at("a.pub");
	len = strlen(msg);

#define DENIED(s)                                                    \
 ASSERT_EQ(skit__sign_verify(keys, 1, msg, len, (s), id, vid, &err), \
	   SKIT_EDENIED)
	DENIED("");
	DENIED("!!!!");
	DENIED("AAAA");
	/* Right length, a character outside the alphabet. */
	snprintf(bad, sizeof(bad), "%s", sig);
	bad[5] = '*';
	DENIED(bad);
	ASSERT_CONTAINS(err.message, "base64");
	/* Padding missing, or in the wrong place. */
	snprintf(bad, sizeof(bad), "%.86s", sig);
	DENIED(bad);
	snprintf(bad, sizeof(bad), "%.86sA=", sig);
	DENIED(bad);
	/* Stray low bits in the last digit: the same bytes, another
	 * spelling; only the canonical one is accepted. */
	snprintf(bad, sizeof(bad), "%s", sig);
	bad[85] = (char)(bad[85] == 'A' ? 'B' : bad[85] + 1);
	DENIED(bad);
	/* Too long. */
	snprintf(bad, sizeof(bad), "%sAAAA", sig);
	DENIED(bad);
	/* Embedded whitespace. */
	snprintf(bad, sizeof(bad), "%.40s\n%s", sig, sig + 40);
	DENIED(bad);
#undef DENIED
	/* A trailing newline (as in a signature file) is fine. */
	snprintf(bad, sizeof(bad), "%s\r\n", sig);
	ASSERT_OK(skit__sign_verify(keys, 1, msg, len, bad, id, vid, &err));
	skit_free(sig);
}

/* Every allocation failure is SKIT_ENOMEM, never a crash, a leak or a
 * half-written key pair. */
static void test_sign__out_of_memory(void)
{
	char id[SKIT__KEY_ID_LEN + 1], vid[SKIT__KEY_ID_LEN + 1], msg[80];
	const char *keys[1];
	skit_error err = { 0 };
	bool done = false;
	char *sig = NULL;

	fresh();
	skit__sign_message(DIGEST, msg);
	for (long n = 1; n < 200 && !done; n++) {
		char *kid = NULL;
		int rc;

		unlink(at("o.key"));
		unlink(at("o.pub"));
		skitx_alloc_fail_at(n);
		rc = skit_keygen(at("o.key"), at("o.pub"), &kid, &err);
		skitx_alloc_fail_at(0);
		ASSERT(rc == 0 || rc == SKIT_ENOMEM);
		if (rc) {
			ASSERT(!kid);
			ASSERT_EQ(err.code, SKIT_ENOMEM);
			ASSERT(access(at("o.key"), F_OK) < 0);
		}
		done = rc == 0;
		skit_free(kid);
	}
	ASSERT(done);
	done = false;
	for (long n = 1; n < 200 && !done; n++) {
		int rc;

		skitx_alloc_fail_at(n);
		rc = skit__sign(at("o.key"), msg, strlen(msg), &sig, id, &err);
		if (!rc) {
			keys[0] = at("o.pub");
			rc = skit__sign_verify(keys, 1, msg, strlen(msg), sig,
			                       id, vid, &err);
		}
		skitx_alloc_fail_at(0);
		ASSERT(rc == 0 || rc == SKIT_ENOMEM);
		done = rc == 0;
		skit_free(sig);
		sig = NULL;
	}
	ASSERT(done);
}

TEST_MAIN(TEST(test_sign__keygen_files) TEST(test_sign__keygen_refuses_existing)
                  TEST(test_sign__message) TEST(test_sign__round_trip) TEST(
                          test_sign__tampered) TEST(test_sign__wrong_key)
                          TEST(test_sign__other_key_types)
                                  TEST(test_sign__encrypted_key_refused) TEST(
                                          test_sign__hostile_key_files)
                                          TEST(test_sign__base64) TEST(
                                                  test_sign__out_of_memory))
