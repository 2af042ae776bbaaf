/* SPDX-License-Identifier: MIT */
/*
 * test_pack_hostile.c - skit_install() and skit_uninstall() against the
 * hostile inputs of HOSTILE.md part A (archives, A1-A14) and the parts of
 * F (lifecycle) the public API can show: F1, F3, F4, F5, F6, F9, F10.
 *
 * Every fixture is made here: zips byte by byte with zipcraft (so every
 * lie the format allows can be told), folders with mkdir/write, a tar
 * with libarchive. Each test first installs a valid skill "keeper" into a
 * fresh root and takes a snapshot of the whole root (every path, type,
 * mode, size and CRC, so also the lock file); a refused install must
 * then return the expected code with a one-line message (naming the
 * entry where there is one, with no raw control bytes), leave the
 * snapshot exactly as it was (no skill folder, no .staging-*, the same
 * .skit-lock.json) and write nothing near the root: the root sits at
 * <T>/a/b/root, and <T>, <T>/a and <T>/a/b must hold nothing new, so a
 * "../" that escaped would show. Fixtures live in <T>/fx.
 *
 * Codes: SKIT_EUNSAFE for unsafe names, links, special files and name
 * collisions; SKIT_ETOOBIG for the size, ratio, count, length and depth
 * caps and bombs; SKIT_EINVALID for malformed or unsupported archives
 * (method, encryption, bad CRC, zip64, not a zip, no SKILL.md, ambiguous
 * layout); SKIT_EEXISTS for a skill already installed without
 * SKIT_INSTALL_FORCE. Where two codes are both a correct refusal (a bomb
 * found by its overlap or by its size) the test accepts either.
 *
 * Not here: A6 for tar (packs are zips only, so a tar is "not a zip"),
 * the warn-and-skip policy of A1 (the API has none: it always refuses),
 * A10 on a case-insensitive mount (needs root and a loop device), F2
 * (crash injection; see the transaction tests), F7, F8.
 */
/* The build defines these; a bare `cc -std=c11` check needs them too. */
#ifndef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
# define _DEFAULT_SOURCE 1
#endif
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>

#include "harness.h"
#include "support/zipcraft.h"
#include "lib/core/winnames.h"
#include "skit/pack.h"
#include "util/fs.h"

static char top[PATH_MAX / 4];  /* <T> */
static char root[PATH_MAX / 2]; /* <T>/a/b/root */
static char zip[PATH_MAX / 2];  /* <T>/fx/in.zip */
static char *snap;              /* tree_digest(root) after the baseline */
static skit_install_options opts;

static const char keeper_md[] = "---\nname: keeper\ndescription: Does a "
                                "thing. Use when testing.\n---\nBody.\n";

/* ---- helpers ----------------------------------------------------------- */

/* Rotating static buffers, so a helper's result can be passed on. */
static char *scratch(void)
{
	static char bufs[8][PATH_MAX];
	static int k;

	k = (k + 1) % 8;
	return bufs[k];
}

/* A valid SKILL.md for `name`. */
static const char *md(const char *name)
{
	char *b = scratch();

	snprintf(b, PATH_MAX,
	         "---\nname: %s\ndescription: Does a thing. Use when "
	         "testing.\n---\nBody.\n",
	         name);
	return b;
}

/* <T>/fx/<file> */
static const char *fx(const char *file)
{
	char *b = scratch();

	snprintf(b, PATH_MAX, "%s/fx/%s", top, file);
	return b;
}

/* <root>/<file> */
static const char *in_root(const char *file)
{
	char *b = scratch();

	snprintf(b, PATH_MAX, "%s/%s", root, file);
	return b;
}

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
	chmod(path, 0700); /* a 0000 folder must not stop the cleanup */
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

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

/* The whole of a small file, NUL-terminated (free() it); NULL if absent. */
static char *slurp(const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	if (skitx_fs_read_file(path, &b, 64u << 20) < 0) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

static bool file_is(const char *path, const char *text)
{
	char *s = slurp(path);
	bool same = s && !strcmp(s, text);

	skitx_free(s);
	return same;
}

static bool lexists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static mode_t lmode(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	return st.st_mode;
}

/* Append one line per path under `dir` (sorted, recursive, no link
 * followed): path, type and mode, size, CRC of the bytes or the link. */
static void digest_into(struct skitx_buf *out, const char *dir, const char *rel)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		char path[PATH_MAX], sub[PATH_MAX], line[PATH_MAX + 64];
		struct stat st;
		uint32_t crc = 0;

		if (!strcmp(name, ".") || !strcmp(name, "..") ||
		    !strcmp(name, ".skit.lock")) {
			free(list[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
		         name);
		free(list[i]);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			char *s = slurp(path);

			crc = s ? zc_crc32(0, s, (size_t)st.st_size) : 1;
			skitx_free(s);
		} else if (S_ISLNK(st.st_mode)) {
			char t[PATH_MAX];
			ssize_t k = readlink(path, t, sizeof(t));

			crc = k > 0 ? zc_crc32(0, t, (size_t)k) : 0;
		}
		snprintf(line, sizeof(line), "%s %o %lld %08x\n", sub,
		         (unsigned int)st.st_mode, (long long)st.st_size,
		         (unsigned int)crc);
		ASSERT_OK(skitx_buf_puts(out, line));
		if (S_ISDIR(st.st_mode))
			digest_into(out, path, sub);
	}
	free(list);
}

static char *tree_digest(const char *dir)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	digest_into(&b, dir, "");
	return skitx_buf_detach(&b, NULL);
}

/* The names in `dir`, sorted, space-separated (free() it). */
static char *listing(const char *dir)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") &&
		    strcmp(list[i]->d_name, "..")) {
			if (b.len)
				ASSERT_OK(skitx_buf_puts(&b, " "));
			ASSERT_OK(skitx_buf_puts(&b, list[i]->d_name));
		}
		free(list[i]);
	}
	free(list);
	return skitx_buf_detach(&b, NULL);
}

static void assert_listing(const char *label, const char *dir, const char *want)
{
	char *got = listing(dir);

	if (strcmp(got, want)) {
		fprintf(stderr, "%s: %s holds \"%s\", want \"%s\"\n", label,
		        dir, got, want);
		skitx_free(got);
		HARNESS_FAIL("%s: something was written near the root", label);
	}
	skitx_free(got);
}

/* Nothing landed next to the root or above it. */
static void assert_no_escape(const char *label)
{
	char p[PATH_MAX];

	assert_listing(label, top, "a fx");
	snprintf(p, sizeof(p), "%s/a", top);
	assert_listing(label, p, "b");
	snprintf(p, sizeof(p), "%s/a/b", top);
	assert_listing(label, p, "root");
}

/* The root is exactly as the snapshot: no new folder, no staging left,
 * the same lock file, keeper intact. */
static void assert_root_untouched(const char *label)
{
	char *now = tree_digest(root);

	if (strcmp(now, snap)) {
		fprintf(stderr, "%s: root before:\n%s--- after:\n%s", label,
		        snap, now);
		skitx_free(now);
		HARNESS_FAIL("%s: the root changed", label);
	}
	skitx_free(now);
}

/* Take the snapshot again (after a deliberate change to the root). */
static void resnap(void)
{
	skitx_free(snap);
	snap = tree_digest(root);
}

static void write_zip(struct zc *zc, const char *path)
{
	ASSERT_OK(zc_write(zc, path));
	zc_free(zc);
}

/*
 * A fresh <T> = $SKIT_TEST_DIR/pack_hostile/<name>, with <T>/fx for the
 * fixtures and <T>/a/b, and a root at <T>/a/b/root holding the skill
 * "keeper" installed from a valid zip; the snapshot is taken.
 */
static void fresh(const char *name)
{
	const char *base = getenv("SKIT_TEST_DIR");
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_error err;
	struct zc *zc;
	char p[PATH_MAX];
	int rc;

	umask(022);
	snprintf(top, sizeof(top), "%s/pack_hostile/%s",
	         base ? base : "/tmp/skit-test-pack-hostile", name);
	rm_rf(top);
	snprintf(p, sizeof(p), "%s/fx", top);
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	snprintf(p, sizeof(p), "%s/a/b", top);
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	snprintf(root, sizeof(root), "%s/a/b/root", top);
	snprintf(zip, sizeof(zip), "%s/fx/in.zip", top);

	zc = zc_new();
	zc_add_file(zc, "keeper/SKILL.md", keeper_md);
	zc_add_file(zc, "keeper/notes.txt", "keep me\n");
	write_zip(zc, fx("keeper.zip"));
	memset(&err, 0, sizeof(err));
	rc = skit_install(root, fx("keeper.zip"), &o, NULL, &err);
	if (rc)
		HARNESS_FAIL("baseline install: %d %s", rc, err.message);
	ASSERT(lexists(in_root(".skit-lock.json")));
	ASSERT(file_is(in_root("keeper/SKILL.md"), keeper_md));
	resnap();
	memset(&opts, 0, sizeof(opts));
	opts = o;
}

/* The message is one printable line. */
static void check_message(const char *label, const skit_error *err)
{
	const unsigned char *p = (const unsigned char *)err->message;

	if (!*p)
		HARNESS_FAIL("%s: empty message", label);
	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			HARNESS_FAIL("%s: control byte 0x%02x in \"%s\"", label,
			             *p, err->message);
		/* U+0080..U+009F (C1) in UTF-8 */
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			HARNESS_FAIL("%s: C1 control in \"%s\"", label,
			             err->message);
	}
}

/*
 * Install `src` into the root: it must fail with `code` (or `alt`, when
 * nonzero), with a one-line message containing `needle` (when not NULL),
 * and leave the root and its surroundings untouched.
 */
static void expect2(const char *label, const char *src, int code, int alt,
                    const char *needle)
{
	skit_install_result *res = NULL;
	skit_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = skit_install(root, src, &opts, &res, &err);
	if (res)
		skit_install_result_free(res);
	if (rc != code && (!alt || rc != alt))
		HARNESS_FAIL("%s: got %d (%s) \"%s\", want %d (%s)", label, rc,
		             skit_strerror(rc), err.message, code,
		             skit_strerror(code));
	if (err.code != rc)
		HARNESS_FAIL("%s: err.code %d, returned %d", label, err.code,
		             rc);
	check_message(label, &err);
	if (needle && !strstr(err.message, needle))
		HARNESS_FAIL("%s: \"%s\" does not name \"%s\"", label,
		             err.message, needle);
	assert_root_untouched(label);
	assert_no_escape(label);
}

static void expect(const char *label, const char *src, int code,
                   const char *needle)
{
	expect2(label, src, code, 0, needle);
}

/* Install `src`, which must work; returns the result (free it). */
static skit_install_result *install_ok(const char *label, const char *src)
{
	skit_install_result *res = NULL;
	skit_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = skit_install(root, src, &opts, &res, &err);
	if (rc) {
		if (res)
			skit_install_result_free(res);
		HARNESS_FAIL("%s: install failed: %d (%s) %s", label, rc,
		             skit_strerror(rc), err.message);
	}
	ASSERT(res);
	return res;
}

/* A zip of the skill "s" plus the entry `e`, written to `zip`. */
static void zip_with(const struct zc_entry *e)
{
	struct zc *zc = zc_new();

	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add(zc, e);
	write_zip(zc, zip);
}

/* The skill "s" plus a stored file named by `len` bytes of `name`. */
static void zip_with_name(const char *name, size_t len)
{
	struct zc_entry e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.name_len = len ? len : strlen(name);
	e.data = "x\n";
	e.len = 2;
	e.mode = ZC_S_IFREG | 0644;
	zip_with(&e);
}

static struct zc_entry entry(const char *name, const char *data)
{
	struct zc_entry e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.data = data;
	e.len = strlen(data);
	e.mode = ZC_S_IFREG | 0644;
	return e;
}

static bool lock_has(const char *r, const char *name)
{
	skit_lock *lock = NULL;
	skit_error err;
	bool found = false;

	memset(&err, 0, sizeof(err));
	ASSERT_OK(skit_lock_read(&lock, r, &err));
	for (size_t i = 0; i < skit_lock_count(lock); i++)
		if (!strcmp(skit_lock_at(lock, i)->name, name))
			found = true;
	skit_lock_free(lock);
	return found;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* ---- A1-A3: names that leave the folder ------------------------------- */

static void test_pack_hostile__a1_traversal(void)
{
	static const struct {
		const char *name, *needle;
	} cases[] = {
		{ "../../.bashrc", ".bashrc" },
		{ "s/../../escape-a1", "escape-a1" },
		{ "./../escape-dot", "escape-dot" },
		{ "..", ".." },
		{ "s/..", ".." },
		{ "s/sub/../../../../escape-deep", "escape-deep" },
		{ "s/./x.md", "x.md" },
	};

	fresh("a1");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		zip_with_name(cases[i].name, 0);
		expect(cases[i].name, zip, SKIT_EUNSAFE, cases[i].needle);
	}
	/* The skill folder itself climbing out. */
	{
		struct zc *zc = zc_new();

		zc_add_file(zc, "../evil/SKILL.md", md("evil"));
		write_zip(zc, zip);
		expect("../evil/SKILL.md", zip, SKIT_EUNSAFE, "evil");
	}
}

static void test_pack_hostile__a2_absolute(void)
{
	char abs1[PATH_MAX], abs2[PATH_MAX], abs3[PATH_MAX];

	fresh("a2");
	/* Absolute paths aimed at <T> itself, so an escape is seen. */
	snprintf(abs1, sizeof(abs1), "%s/abs-one", top);
	snprintf(abs2, sizeof(abs2), "/%s/abs-two", top);
	snprintf(abs3, sizeof(abs3), "//%s/abs-three", top);
	zip_with_name(abs1, 0);
	expect("absolute", zip, SKIT_EUNSAFE, "abs-one");
	zip_with_name(abs2, 0);
	expect("//", zip, SKIT_EUNSAFE, "abs-two");
	zip_with_name(abs3, 0);
	expect("///", zip, SKIT_EUNSAFE, "abs-three");
	zip_with_name("/etc/cron.d/skit-hostile-a2", 0);
	expect("/etc/cron.d", zip, SKIT_EUNSAFE, "skit-hostile-a2");
	ASSERT(!lexists("/etc/cron.d/skit-hostile-a2"));
	zip_with_name("\\\\server\\share\\x", 0);
	expect("UNC", zip, SKIT_EUNSAFE, "server");
	/* The skill's own folder absolute. */
	{
		struct zc *zc = zc_new();
		char name[PATH_MAX];

		snprintf(name, sizeof(name), "%s/absskill/SKILL.md", top);
		zc_add_file(zc, name, md("absskill"));
		write_zip(zc, zip);
		expect("absolute skill", zip, SKIT_EUNSAFE, "absskill");
	}
}

static void test_pack_hostile__a3_windows(void)
{
	/* NULL needle: the name holds a backslash, which a message may
	 * escape; the code is checked. */
	static const struct {
		const char *name, *needle;
	} cases[] = {
		{ "C:\\x", NULL },
		{ "C:/x", "C:" },
		{ "s/C:/x", "C:" },
		{ "C:..\\x", NULL },
		{ "..\\..\\x", NULL },
		{ "s\\..\\..\\x", NULL },
		{ "s/a\\b.md", NULL },
		{ "\\\\?\\C:\\x", NULL },
		{ "\\\\.\\PhysicalDrive0", NULL },
		{ "s/GIT~1/config", "GIT~1" },
		{ "s/SKILL~1.MD", "SKILL~1.MD" },
		{ "s/SKILL.md::$DATA", "$DATA" },
		{ "s/.git::$INDEX_ALLOCATION/x", "INDEX_ALLOCATION" },
		{ "s/CON", "CON" },
		{ "s/NUL", "NUL" },
		{ "s/AUX", "AUX" },
		{ "s/PRN", "PRN" },
		{ "s/COM1", "COM1" },
		{ "s/COM9", "COM9" },
		{ "s/LPT1", "LPT1" },
		{ "s/LPT9", "LPT9" },
		{ "s/nul.md", "nul.md" },
		{ "s/con.txt", "con.txt" },
		{ "s/COM0", "COM0" },
		{ "s/lpt0.md", "lpt0.md" },
		{ "s/cOm3.Txt", "cOm3.Txt" },
		{ "s/Aux .tar.gz", "Aux .tar.gz" },
		{ "s/COM\xc2\xb9", NULL },
		{ "s/lpt\xc2\xb3.txt", NULL },
		{ "s/Lpt\xc2\xb2/x.md", NULL },
		{ "com\xc2\xb9/SKILL.md", NULL },
		{ "s/scripts/aux.sh", "aux.sh" },
		{ "s/evil.", "evil." },
		{ "s/evil ", "evil" },
		{ "s/dir./x", "dir." },
		{ "s/dir /x", "dir" },
	};

	fresh("a3");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		zip_with_name(cases[i].name, 0);
		expect(cases[i].name, zip, SKIT_EUNSAFE, cases[i].needle);
	}
}

/* The one rule (winnames.h) that entry names, pack and install skill
 * names and the validate lint share: what it holds and what it lets by. */
static void test_pack_hostile__a3_reserved_rule(void)
{
	static const char *const yes[] = {
		"con",        "CON",         "Prn",         "aux",
		"nul",        "NUL.md",      "com0",        "COM9",
		"lpt0",       "LpT9.tar.gz", "con .txt",    "conin$",
		"CONOUT$.md", "com\xc2\xb9", "COM\xc2\xb2", "lpt\xc2\xb3.txt",
	};
	static const char *const no[] = {
		"cons",
		"com10",
		"lpt",
		"com",
		"xcon",
		"con-x",
		"nul_",
		"aux1",
		"com\xc2\xb9\xc2\xb9",
		"com\xe2\x81\xb4",
		"lpt\xc2\xb0",
		"conin",
		".con",
		"",
	};

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(yes); i++)
		if (!skit__windows_reserved(yes[i], strlen(yes[i])))
			HARNESS_FAIL("\"%s\" is reserved", yes[i]);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(no); i++)
		if (skit__windows_reserved(no[i], strlen(no[i])))
			HARNESS_FAIL("\"%s\" is not reserved", no[i]);
}

/* ---- A4: name bytes and name sources ----------------------------------- */

static void test_pack_hostile__a4_name_bytes(void)
{
	static const struct {
		const char *label, *name;
		size_t len;
		const char *needle;
	} cases[] = {
		{ "NUL", "s/a.md\0../../x", 14, "a.md" },
		{ "newline", "s/line\nbreak.md", 0, NULL },
		{ "ESC", "s/esc\x1b[31mred.md", 0, NULL },
		{ "CR", "s/cr\r.md", 0, NULL },
		{ "tab", "s/tab\t.md", 0, NULL },
		{ "DEL", "s/del\x7f.md", 0, NULL },
		{ "C1 NEL", "s/c1\xc2\x85.md", 0, NULL },
		{ "C1 CSI", "s/c1\xc2\x9b.md", 0, NULL },
		{ "overlong dot", "s/\xc0\xae\xc0\xae/x", 0, NULL },
		{ "overlong slash",
		  "s/a\xc0\xaf"
		  "b",
		  0, NULL },
		{ "invalid byte", "s/bad\xff.md", 0, NULL },
		{ "truncated", "s/cut\xe2\x82.md", 0, NULL },
		{ "surrogate", "s/\xed\xa0\x80.md", 0, NULL },
		{ "above U+10FFFF", "s/\xf4\x90\x80\x80.md", 0, NULL },
	};
	struct zc_entry e;

	fresh("a4");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		zip_with_name(cases[i].name, cases[i].len);
		expect(cases[i].label, zip, SKIT_EUNSAFE, cases[i].needle);
	}
	/* Bit 11 (UTF-8) set over Latin-1 bytes; clear over CP437 bytes. */
	e = entry("s/caf\xe9.md", "x");
	e.flags = ZC_FLAG_UTF8;
	zip_with(&e);
	expect("bit 11 + latin-1", zip, SKIT_EUNSAFE, NULL);
	e = entry("s/caf\x82.md", "x");
	zip_with(&e);
	expect("bit 11 clear + CP437", zip, SKIT_EUNSAFE, NULL);
	/* A control byte in the skill folder's own name. */
	{
		struct zc *zc = zc_new();

		zc_add_file(zc, "s\x1b/SKILL.md", md("s"));
		write_zip(zc, zip);
		expect("ESC in skill folder", zip, SKIT_EUNSAFE, NULL);
	}
}

/* Valid UTF-8 with bit 11 set is an ordinary name. */
static void test_pack_hostile__a4_utf8_name_ok(void)
{
	skit_install_result *res;
	struct zc_entry e = entry("s/caf\xc3\xa9-\xe6\x97\xa5.md", "utf8\n");

	fresh("a4ok");
	e.flags = ZC_FLAG_UTF8;
	zip_with(&e);
	res = install_ok("utf-8 name", zip);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("s/caf\xc3\xa9-\xe6\x97\xa5.md"), "utf8\n"));
}

/* One canonical name source: a second name that disagrees is refused. */
static void test_pack_hostile__a4_name_disagreement(void)
{
	unsigned char ex[512];
	struct zc_entry e;

	fresh("a4dis");
	/* Local header and central directory disagree. */
	e = entry("s/central.md", "x");
	e.local_name = "s/local.md";
	zip_with(&e);
	expect2("local != central", zip, SKIT_EINVALID, SKIT_EUNSAFE,
	        "central.md");
	e = entry("s/fine.md", "x");
	e.local_name = "../../lh-escape";
	zip_with(&e);
	expect2("local name escapes", zip, SKIT_EINVALID, SKIT_EUNSAFE, NULL);
	e = entry("s/fine.md", "x");
	e.local_name = "s/Fine.md"; /* case only */
	zip_with(&e);
	expect2("local differs by case", zip, SKIT_EINVALID, SKIT_EUNSAFE,
	        NULL);

	/* An Info-ZIP Unicode Path field (0x7075) naming something else:
	 * libarchive would use it instead of the header name. */
	e = entry("s/plain.md", "x");
	e.extra = ex;
	e.extra_len = zc_extra_unicode_path(ex, sizeof(ex), "s/plain.md", 10,
	                                    "s/other.md");
	ASSERT(e.extra_len);
	zip_with(&e);
	expect2("unicode path differs", zip, SKIT_EINVALID, SKIT_EUNSAFE, NULL);
	e.extra_len = zc_extra_unicode_path(ex, sizeof(ex), "s/plain.md", 10,
	                                    "../../u7075-escape");
	zip_with(&e);
	expect2("unicode path escapes", zip, SKIT_EINVALID, SKIT_EUNSAFE, NULL);
	/* The same field in the local header only. */
	e = entry("s/plain.md", "x");
	e.local_extra = ex;
	e.local_extra_len = zc_extra_unicode_path(ex, sizeof(ex), "s/plain.md",
	                                          10, "../../u7075-local");
	zip_with(&e);
	expect2("local unicode path escapes", zip, SKIT_EINVALID, SKIT_EUNSAFE,
	        NULL);
}

/* ---- A5: symbolic links ------------------------------------------------ */

static void test_pack_hostile__a5_symlinks(void)
{
	static const struct {
		const char *name, *target;
	} links[] = {
		{ "s/sshkey", "/home/u/.ssh/id_rsa" },
		{ "s/climb", "../../../.." },
		{ "s/environ", "/proc/self/environ" },
		{ "s/inside", "SKILL.md" },
		{ "s/dot", "." },
		{ "s/empty-target", "" },
	};
	struct zc *zc;
	char target[PATH_MAX];

	fresh("a5");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(links); i++) {
		zc = zc_new();
		zc_add_file(zc, "s/SKILL.md", md("s"));
		zc_add_symlink(zc, links[i].name, links[i].target);
		write_zip(zc, zip);
		expect(links[i].name, zip, SKIT_EUNSAFE, links[i].name + 2);
	}
	/* Write-through: a link to a folder, then an entry under it. */
	ASSERT_OK(mkdir(fx("wt"), 0755));
	snprintf(target, sizeof(target), "%s", fx("wt"));
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_symlink(zc, "s/through", target);
	zc_add_file(zc, "s/through/payload", "pwned\n");
	write_zip(zc, zip);
	expect("write-through", zip, SKIT_EUNSAFE, "through");
	assert_listing("write-through", fx("wt"), "");
	/* The same, relative, climbing to <T>. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_symlink(zc, "s/up", "../../../..");
	zc_add_file(zc, "s/up/payload-up", "pwned\n");
	write_zip(zc, zip);
	expect("write-through relative", zip, SKIT_EUNSAFE, "up");
	/* A chain: a -> b, b -> /. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_symlink(zc, "s/chain-a", "chain-b");
	zc_add_symlink(zc, "s/chain-b", "/");
	write_zip(zc, zip);
	expect("chain", zip, SKIT_EUNSAFE, "chain-");
	/* A link as the skill folder itself. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_symlink(zc, "t", target);
	zc_add_file(zc, "t/SKILL.md", md("t"));
	write_zip(zc, zip);
	expect("skill folder link", zip, SKIT_EUNSAFE, NULL);
	assert_listing("skill folder link", fx("wt"), "");
	/* A symlink flagged only by MS-DOS attributes cannot exist; but a
	 * Unix link with an S_IFLNK mode and deflated target is the same. */
	{
		struct zc_entry e = entry("s/deflated-link", "/etc/passwd");

		e.method = ZC_DEFLATE;
		e.mode = ZC_S_IFLNK | 0777;
		zip_with(&e);
		expect("deflated link", zip, SKIT_EUNSAFE, "deflated-link");
	}
}

/* ---- A6: hard links (tar) and A12: not a zip --------------------------- */

static void write_tar(const char *path, bool gzip)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	const char *text = md("s");

	ASSERT(a && e);
	ASSERT_OK(archive_write_set_format_pax_restricted(a));
	if (gzip)
		ASSERT_OK(archive_write_add_filter_gzip(a));
	ASSERT_OK(archive_write_open_filename(a, path));
	archive_entry_set_pathname(e, "s/SKILL.md");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)strlen(text));
	ASSERT_OK(archive_write_header(a, e));
	ASSERT_EQ(archive_write_data(a, text, strlen(text)),
	          (la_ssize_t)strlen(text));
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "s/shadow");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_hardlink(e, "/etc/shadow");
	archive_entry_set_size(e, 0);
	ASSERT_OK(archive_write_header(a, e));
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "s/victim");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_hardlink(e, "../../victim");
	archive_entry_set_size(e, 0);
	ASSERT_OK(archive_write_header(a, e));
	archive_entry_free(e);
	ASSERT_OK(archive_write_close(a));
	archive_write_free(a);
}

static void test_pack_hostile__a6_tar_hardlinks(void)
{
	fresh("a6");
	write_tar(fx("hard.tar"), false);
	expect("tar with hard links", fx("hard.tar"), SKIT_EINVALID, NULL);
	write_tar(fx("hard.skill"), true);
	expect("tar.gz renamed .skill", fx("hard.skill"), SKIT_EINVALID, NULL);
	write_tar(fx("hard.zip"), true);
	expect("tar.gz renamed .zip", fx("hard.zip"), SKIT_EINVALID, NULL);
}

/* ---- A7: duplicates, collisions, structure ----------------------------- */

static void test_pack_hostile__a7_duplicates(void)
{
	struct zc *zc;

	fresh("a7dup");
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/dup.md", "first\n");
	zc_add_file(zc, "s/dup.md", "second\n");
	write_zip(zc, zip);
	expect("same name twice", zip, SKIT_EUNSAFE, "dup.md");

	/* Master Key: two SKILL.md, one each for the verifier and the
	 * installer. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/SKILL.md", md("s"));
	write_zip(zc, zip);
	expect("SKILL.md twice", zip, SKIT_EUNSAFE, "SKILL.md");

	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/skill.md", "lower\n");
	write_zip(zc, zip);
	expect("SKILL.md + skill.md", zip, SKIT_EUNSAFE, NULL);

	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/Foo/a.md", "a\n");
	zc_add_file(zc, "s/foo/b.md", "b\n");
	write_zip(zc, zip);
	expect("Foo/ + foo/", zip, SKIT_EUNSAFE, "oo");

	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/x1", "file\n");
	zc_add_file(zc, "s/x1/y", "under\n");
	write_zip(zc, zip);
	expect("file then folder", zip, SKIT_EUNSAFE, "x1");

	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_dir(zc, "s/x2");
	zc_add_file(zc, "s/x2", "file\n");
	write_zip(zc, zip);
	expect("folder then file", zip, SKIT_EUNSAFE, "x2");

	/* Two skill folders differing by case. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "S/SKILL.md", md("s"));
	write_zip(zc, zip);
	expect2("s/ + S/", zip, SKIT_EUNSAFE, SKIT_EINVALID, NULL);
}

static void test_pack_hostile__a7_structure(void)
{
	static const char sh[] = "#!/bin/sh\necho polyglot\nexit 0\n";
	struct zc_entry e;
	struct zc *zc;

	fresh("a7st");
	/* A second end record inside the comment. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/extra.md", "extra\n");
	zc->dup_eocd = true;
	write_zip(zc, zip);
	expect("two end records", zip, SKIT_EINVALID, NULL);

	/* A prepended shell script (offsets adjusted, as zip -A does), and
	 * the same with offsets left relative to the zip part. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc->prepend = sh;
	zc->prepend_len = strlen(sh);
	write_zip(zc, zip);
	expect("polyglot", zip, SKIT_EINVALID, NULL);
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc->prepend = sh;
	zc->prepend_len = strlen(sh);
	zc->prepend_unadjusted = true;
	write_zip(zc, zip);
	expect("polyglot, unadjusted", zip, SKIT_EINVALID, NULL);

	/* Two central records sharing one local header. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/one.md", "shared\n");
	e = entry("s/two.md", "");
	e.share_local = 2;
	zc_add(zc, &e);
	write_zip(zc, zip);
	expect("shared local header", zip, SKIT_EINVALID, NULL);

	/* Overlapping entries (Fifield's quoting), tiny: no cap is near. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	ASSERT_OK(zc_write_overlap_bomb(zip, 3, 1000, "s/o", zc));
	zc_free(zc);
	expect("overlapping entries", zip, SKIT_EINVALID, NULL);

	/* A central record pointing past the end, and one pointing into
	 * the middle of the first local header. */
	e = entry("s/far.md", "x");
	e.set_offset = true;
	e.offset = 0x7fffffffu;
	zip_with(&e);
	expect("offset out of range", zip, SKIT_EINVALID, NULL);
	e = entry("s/mid.md", "x");
	e.set_offset = true;
	e.offset = 10;
	zip_with(&e);
	expect("offset inside a header", zip, SKIT_EINVALID, NULL);

	/* A local entry the central directory does not list: either the
	 * archive is refused, or that entry is not installed. */
	{
		skit_install_result *res = NULL;
		skit_error err;
		int rc;

		e = entry("s/hidden.sh", "#!/bin/sh\nrm -rf ~\n");
		e.no_central = true;
		e.mode = ZC_S_IFREG | 0755;
		zip_with(&e);
		memset(&err, 0, sizeof(err));
		rc = skit_install(root, zip, &opts, &res, &err);
		if (res)
			skit_install_result_free(res);
		if (rc == 0) {
			ASSERT(lexists(in_root("s/SKILL.md")));
			ASSERT(!lexists(in_root("s/hidden.sh")));
		} else {
			ASSERT_EQ(rc, SKIT_EINVALID);
			assert_root_untouched("hidden local entry");
		}
		assert_no_escape("hidden local entry");
	}
}

/* ---- A8: bombs and caps ------------------------------------------------ */

static void zeros_entry(struct zc_entry *e, const char *name, uint64_t n)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->method = ZC_DEFLATE;
	e->zeros = n;
	e->mode = ZC_S_IFREG | 0644;
}

static void test_pack_hostile__a8_bombs(void)
{
	struct zc_entry e;
	struct zc *zc;
	long t0 = now_ms();

	fresh("a8");
	/* 64 MiB of zeros in ~64 KB: over the per-file cap and the ratio. */
	zeros_entry(&e, "s/zeros.bin", 64u << 20);
	zip_with(&e);
	expect("ratio bomb 64 MiB", zip, SKIT_ETOOBIG, "zeros.bin");
	/* 4 MiB: under the per-file cap, over 1 MiB at ~1000:1. */
	zeros_entry(&e, "s/ratio.bin", 4u << 20);
	zip_with(&e);
	expect("ratio 1000:1", zip, SKIT_ETOOBIG, "ratio.bin");
	/* Headers that lie: 1 KiB declared, 64 MiB inflated. */
	zeros_entry(&e, "s/liar.bin", 64u << 20);
	e.set_local_sizes = e.set_cd_sizes = true;
	e.local_usize = e.cd_usize = 1024;
	zip_with(&e);
	expect2("declared 1 KiB", zip, SKIT_ETOOBIG, SKIT_EINVALID, NULL);
	/* The same stream under a data descriptor (sizes 0 up front), the
	 * compressed size true, the inflated one a lie. */
	{
		size_t clen;

		free(zc_deflate_zeros(64u << 20, &clen));
		zeros_entry(&e, "s/dd.bin", 64u << 20);
		e.flags = ZC_FLAG_DESCRIPTOR;
		e.set_dd_sizes = e.set_cd_sizes = true;
		e.dd_csize = e.cd_csize = (uint32_t)clen;
		e.dd_usize = e.cd_usize = 1024;
		zip_with(&e);
	}
	expect2("descriptor lies", zip, SKIT_ETOOBIG, SKIT_EINVALID, NULL);

	/* Fifield's overlap bomb: 100 x 1 MiB from ~100 KB... */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	ASSERT_OK(zc_write_overlap_bomb(zip, 100, 1u << 20, "s/bomb", zc));
	zc_free(zc);
	expect2("overlap bomb", zip, SKIT_ETOOBIG, SKIT_EINVALID, NULL);
	/* ...and 60 central records on one 1 MiB - 1 local entry (under
	 * the ratio floor each, 60 MiB together). */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zeros_entry(&e, "s/same0", (1u << 20) - 1);
	zc_add(zc, &e);
	for (int i = 1; i < 60; i++) {
		char name[32];

		snprintf(name, sizeof(name), "s/same%d", i);
		memset(&e, 0, sizeof(e));
		e.name = name;
		e.method = ZC_DEFLATE;
		e.share_local = 2;
		zc_add(zc, &e);
	}
	write_zip(zc, zip);
	expect2("shared-header bomb", zip, SKIT_ETOOBIG, SKIT_EINVALID, NULL);

	/* Lowered caps: per file and total, counting inflated bytes. */
	{
		static char big[40000];

		memset(big, 'b', sizeof(big));
		big[sizeof(big) - 1] = 0;
		opts.max_file_bytes = 16 * 1024;
		zc = zc_new();
		zc_add_file(zc, "s/SKILL.md", md("s"));
		zc_add_bytes(zc, "s/big.bin", big, 20 * 1024, 0644);
		write_zip(zc, zip);
		expect("per-file cap", zip, SKIT_ETOOBIG, "big.bin");
		/* Deflated, so only inflating shows the size. */
		zc = zc_new();
		zc_add_file(zc, "s/SKILL.md", md("s"));
		zc_add_deflated(zc, "s/big-deflated.bin", big, 20 * 1024);
		write_zip(zc, zip);
		expect("per-file cap, deflated", zip, SKIT_ETOOBIG,
		       "big-deflated.bin");
		opts.max_file_bytes = 0;
		opts.max_total_bytes = 64 * 1024;
		zc = zc_new();
		zc_add_file(zc, "s/SKILL.md", md("s"));
		zc_add_bytes(zc, "s/t1.bin", big, 30 * 1024, 0644);
		zc_add_bytes(zc, "s/t2.bin", big, 30 * 1024, 0644);
		zc_add_bytes(zc, "s/t3.bin", big, 30 * 1024, 0644);
		write_zip(zc, zip);
		expect("total cap", zip, SKIT_ETOOBIG, NULL);
		/* The total spans skills. */
		zc = zc_new();
		zc_add_file(zc, "s/SKILL.md", md("s"));
		zc_add_file(zc, "t/SKILL.md", md("t"));
		zc_add_bytes(zc, "s/t1.bin", big, 35 * 1024, 0644);
		zc_add_bytes(zc, "t/t2.bin", big, 35 * 1024, 0644);
		write_zip(zc, zip);
		expect("total cap over two skills", zip, SKIT_ETOOBIG, NULL);
		opts.max_total_bytes = 0;
	}
	/* Bombs are cut off early, not inflated to the end. */
	if (now_ms() - t0 > 20000)
		HARNESS_FAIL("bombs took %ld ms", now_ms() - t0);
}

/* A zip inside is a file like any other: never extracted. */
static void test_pack_hostile__a8_nested_archive(void)
{
	skit_install_result *res;
	unsigned char *inner;
	size_t inner_len;
	struct zc *zc = zc_new();
	char *got;

	fresh("a8nest");
	zc_add_file(zc, "inner/SKILL.md", md("inner"));
	ASSERT_OK(zc_build(zc, &inner, &inner_len));
	zc_free(zc);
	/* Stored, its end record lies in the outer archive's data: that
	 * is no second end record of the outer one, but a reader that
	 * scans for signatures may refuse it (cleanly). */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_bytes(zc, "s/inner.zip", inner, inner_len, 0644);
	write_zip(zc, zip);
	{
		skit_error err;

		memset(&err, 0, sizeof(err));
		res = NULL;
		if (skit_install(root, zip, &opts, &res, &err) == 0) {
			ASSERT(!lexists(in_root("inner")));
			ASSERT(!lexists(in_root("s/inner")));
			memset(&err, 0, sizeof(err));
			ASSERT_OK(skit_uninstall(root, "s", &err));
		} else {
			printf("note: a stored nested zip is refused: %s\n",
			       err.message);
			ASSERT_EQ(err.code, SKIT_EINVALID);
			assert_root_untouched("stored nested zip");
		}
		if (res)
			skit_install_result_free(res);
	}
	/* Deflated: an ordinary file. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_deflated(zc, "s/inner.zip", inner, inner_len);
	write_zip(zc, zip);
	res = install_ok("nested zip", zip);
	ASSERT_EQ(skit_install_result_count(res), 1);
	skit_install_result_free(res);
	got = listing(in_root("s"));
	ASSERT_STR(got, "SKILL.md inner.zip");
	skitx_free(got);
	ASSERT(!lexists(in_root("inner")));
	{
		struct stat st;

		ASSERT_OK(stat(in_root("s/inner.zip"), &st));
		ASSERT_EQ(st.st_size, (long long)inner_len);
	}
	free(inner);
}

/* ---- A9: counts and long or deep names --------------------------------- */

static void many_entries_zip(const char *path, int files)
{
	struct zc *zc = zc_new();
	char name[32];

	zc_add_file(zc, "s/SKILL.md", md("s"));
	for (int i = 0; i < files; i++) {
		snprintf(name, sizeof(name), "s/f%05d", i);
		zc_add_file(zc, name, "");
	}
	write_zip(zc, path);
}

static void test_pack_hostile__a9_entry_count(void)
{
	long t0;

	fresh("a9count");
	opts.max_entries = 100;
	many_entries_zip(zip, 100); /* 101 entries with SKILL.md */
	expect("101 entries, cap 100", zip, SKIT_ETOOBIG, NULL);
	opts.max_entries = 0;
	many_entries_zip(zip, 10000); /* 10,001 */
	t0 = now_ms();
	expect("10,001 entries", zip, SKIT_ETOOBIG, NULL);
	if (now_ms() - t0 > 2000)
		printf("note: the 10,001-entry refusal took %ld ms\n",
		       now_ms() - t0);
}

static void test_pack_hostile__a9_claimed_counts(void)
{
	struct zc *zc;

	fresh("a9claim");
	/* The end record claims 65535 entries in a 2-entry file. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/a.md", "a\n");
	zc->set_count = true;
	zc->count = 0xffff;
	write_zip(zc, zip);
	expect2("claims 65535", zip, SKIT_EINVALID, SKIT_ETOOBIG, NULL);
	/* ... 5000: under the cap, over what the file can hold. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/a.md", "a\n");
	zc->set_count = true;
	zc->count = 5000;
	write_zip(zc, zip);
	expect("claims 5000", zip, SKIT_EINVALID, NULL);
	/* ... 1 of 2. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, "s/a.md", "a\n");
	zc->set_count = true;
	zc->count = 1;
	write_zip(zc, zip);
	expect("claims 1 of 2", zip, SKIT_EINVALID, NULL);
	/* A central directory size past the end. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc->set_cd_size = true;
	zc->cd_size = 0x7fffffffu;
	write_zip(zc, zip);
	expect("central directory size", zip, SKIT_EINVALID, NULL);
	/* Zip64 end record claiming 2^40 entries. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc->zip64 = true;
	zc->zip64_count = (uint64_t)1 << 40;
	write_zip(zc, zip);
	expect2("zip64 claims 2^40", zip, SKIT_EINVALID, SKIT_ETOOBIG, NULL);
}

static void test_pack_hostile__a9_long_names(void)
{
	char *name = malloc(70000);
	char c200[201];
	size_t n;

	ASSERT(name);
	fresh("a9names");
	/* 65535 bytes, the most a zip name holds. */
	memcpy(name, "s/", 2);
	memset(name + 2, 'n', 65533);
	zip_with_name(name, 65535);
	expect("64 KiB name", zip, SKIT_ETOOBIG, NULL);
	/* Over 1024 bytes in components of 200, depth 8. */
	memset(c200, 'c', 200);
	c200[200] = 0;
	snprintf(name, 70000, "s/%s/%s/%s/%s/%s/%s/f", c200, c200, c200, c200,
	         c200, c200);
	ASSERT(strlen(name) > 1024);
	zip_with_name(name, 0);
	expect("path over 1024", zip, SKIT_ETOOBIG, NULL);
	/* One component of 256 bytes. */
	memcpy(name, "s/", 2);
	memset(name + 2, 'k', 256);
	name[258] = 0;
	zip_with_name(name, 0);
	expect("component of 256", zip, SKIT_ETOOBIG, NULL);
	/* 20 folders deep, short. */
	n = (size_t)snprintf(name, 70000, "s/");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(name + n, 70000 - n, "d%d/", i);
	snprintf(name + n, 70000 - n, "deep.md");
	zip_with_name(name, 0);
	expect("depth 20", zip, SKIT_ETOOBIG, NULL);
	/* 10,000 deep: a/a/a/... */
	memcpy(name, "s/", 2);
	for (n = 2; n < 2 + 2 * 10000; n += 2)
		memcpy(name + n, "a/", 2);
	name[n] = 'f';
	zip_with_name(name, n + 1);
	expect("10,000 deep", zip, SKIT_ETOOBIG, NULL);
	/* As folder entries only, no file at the bottom. */
	{
		struct zc_entry e;

		name[n] = 0;
		memset(&e, 0, sizeof(e));
		e.name = name;
		e.mode = ZC_S_IFDIR | 0755;
		zip_with(&e);
		expect("10,000 deep folder", zip, SKIT_ETOOBIG, NULL);
	}
	free(name);
}

/* ---- A10: normalisation and case --------------------------------------- */

static void collide(const char *label, const char *a, const char *b)
{
	struct zc *zc = zc_new();

	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc_add_file(zc, a, "first\n");
	zc_add_file(zc, b, "second\n");
	write_zip(zc, zip);
	expect(label, zip, SKIT_EUNSAFE, NULL);
}

static void test_pack_hostile__a10_collisions(void)
{
	fresh("a10");
	collide("NFC vs NFD", "s/caf\xc3\xa9.md", "s/cafe\xcc\x81.md");
	collide("NFD folder vs NFC file", "s/\x65\xcc\x81/x.md",
	        "s/\xc3\xa9/x.md");
	collide("ZWNJ ignorable", "s/refs.md", "s/ref\xe2\x80\x8cs.md");
	collide("ZWJ in a folder", "s/docs/a.md",
	        "s/do\xe2\x80\x8d"
	        "cs/b.md");
	collide("case", "s/Readme.md", "s/README.md");
	collide("case of a folder", "s/Scripts/a.sh", "s/scripts/b.sh");
	collide("case of a non-ASCII letter", "s/\xc3\x89t\xc3\xa9.md",
	        "s/\xc3\xa9t\xc3\xa9.md");
}

/* ---- A11: modes and special files -------------------------------------- */

static void test_pack_hostile__a11_special_files(void)
{
	static const struct {
		const char *name;
		uint32_t mode;
	} cases[] = {
		{ "s/fifo-a11", ZC_S_IFIFO | 0644 },
		{ "s/chr-a11", ZC_S_IFCHR | 0644 },
		{ "s/blk-a11", ZC_S_IFBLK | 0644 },
		{ "s/sock-a11", ZC_S_IFSOCK | 0755 },
		{ "s/type-f-a11", 0170000u | 0644 }, /* no such type */
	};

	fresh("a11sp");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		struct zc_entry e = entry(cases[i].name, "");

		e.mode = cases[i].mode;
		zip_with(&e);
		expect(cases[i].name, zip, SKIT_EUNSAFE, cases[i].name + 2);
	}
	/* SKILL.md itself a FIFO. */
	{
		struct zc *zc = zc_new();

		zc_add_bytes(zc, "s/SKILL.md", md("s"), strlen(md("s")),
		             ZC_S_IFIFO | 0644);
		write_zip(zc, zip);
		expect("SKILL.md FIFO", zip, SKIT_EUNSAFE, NULL);
	}
}

/* Modes come from "executable or not" only; suid never survives. */
static void test_pack_hostile__a11_modes_normalised(void)
{
	static const struct {
		const char *name;
		uint32_t mode;
		mode_t want;
	} cases[] = {
		{ "s/suid.sh", 04755, 0755 },  { "s/sgid.sh", 02755, 0755 },
		{ "s/sticky", 01644, 0644 },   { "s/world.sh", 0777, 0755 },
		{ "s/groupw", 0664, 0644 },    { "s/zero", 0000, 0644 },
		{ "s/owner-x", 0700, 0755 },   { "s/owner-x2", 0744, 0755 },
		{ "s/all-suid", 07777, 0755 }, { "s/ro", 0444, 0644 },
	};
	skit_install_result *res;
	struct zc *zc = zc_new();
	struct zc_entry e;
	skit_error err;

	fresh("a11modes");
	zc_add_file(zc, "s/SKILL.md", md("s"));
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++)
		zc_add_bytes(zc, cases[i].name, "m\n", 2, cases[i].mode);
	/* A 0000 folder, a sticky world-writable one. */
	memset(&e, 0, sizeof(e));
	e.name = "s/d0/";
	e.mode = ZC_S_IFDIR;
	zc_add(zc, &e);
	zc_add_file(zc, "s/d0/f.md", "in d0\n");
	e.name = "s/d1777/";
	e.mode = ZC_S_IFDIR | 01777;
	zc_add(zc, &e);
	zc_add_file(zc, "s/d1777/f.md", "in d1777\n");
	/* MS-DOS attributes only: read-only, hidden, system. */
	e = entry("s/dos.txt", "dos\n");
	e.mode = 0;
	e.dos_attr = 0x07;
	zc_add(zc, &e);
	write_zip(zc, zip);
	res = install_ok("modes", zip);
	skit_install_result_free(res);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		mode_t m = lmode(in_root(cases[i].name));

		if (!S_ISREG(m) || (m & 07777) != cases[i].want)
			HARNESS_FAIL("%s: mode %o, want %o", cases[i].name,
			             (unsigned int)m,
			             (unsigned int)cases[i].want);
	}
	ASSERT_EQ(lmode(in_root("s/d0")), S_IFDIR | 0755);
	ASSERT_EQ(lmode(in_root("s/d1777")), S_IFDIR | 0755);
	ASSERT_EQ(lmode(in_root("s/dos.txt")), S_IFREG | 0644);
	ASSERT(file_is(in_root("s/d0/f.md"), "in d0\n"));
	/* And the folder can always be removed. */
	memset(&err, 0, sizeof(err));
	ASSERT_OK(skit_uninstall(root, "s", &err));
	ASSERT(!lexists(in_root("s")));
	ASSERT(!lock_has(root, "s"));
	ASSERT(lock_has(root, "keeper"));
}

/* ---- A12: unsupported or broken zip ------------------------------------ */

static void test_pack_hostile__a12_unsupported(void)
{
	static const uint16_t methods[] = {
		1, 6, 9, 12, 14, 19, 93, 95, 98, 99
	};
	unsigned char ex[64];
	struct zc_entry e;
	struct zc *zc;

	fresh("a12");
	e = entry("s/secret.md", "xxxxxxxxxxxxsecret");
	e.flags = ZC_FLAG_ENCRYPTED;
	zip_with(&e);
	expect("encrypted", zip, SKIT_EINVALID, "secret.md");
	/* SKILL.md itself encrypted (ZipCrypto over deflate). */
	zc = zc_new();
	e = entry("s/SKILL.md", md("s"));
	e.flags = ZC_FLAG_ENCRYPTED;
	e.method = ZC_DEFLATE;
	e.raw = true;
	zc_add(zc, &e);
	write_zip(zc, zip);
	expect("encrypted SKILL.md", zip, SKIT_EINVALID, NULL);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(methods); i++) {
		char label[32];

		snprintf(label, sizeof(label), "method %u",
		         (unsigned int)methods[i]);
		e = entry("s/packed.bin", "not really compressed");
		e.method = methods[i];
		zip_with(&e);
		expect(label, zip, SKIT_EINVALID, "packed.bin");
	}
	/* A bad CRC, stored and deflated; a wrong CRC in SKILL.md. */
	e = entry("s/crc.md", "some bytes\n");
	e.set_crc = true;
	e.crc = 0x12345678u;
	zip_with(&e);
	expect("bad CRC stored", zip, SKIT_EINVALID, "crc.md");
	e.method = ZC_DEFLATE;
	zip_with(&e);
	expect("bad CRC deflated", zip, SKIT_EINVALID, "crc.md");
	zc = zc_new();
	e = entry("s/SKILL.md", md("s"));
	e.set_crc = true;
	e.crc = 1;
	zc_add(zc, &e);
	write_zip(zc, zip);
	expect("bad CRC SKILL.md", zip, SKIT_EINVALID, NULL);
	/* A corrupt deflate stream. */
	e = entry("s/corrupt.md", "\xff\xff\xff\xff\xff\xff\xff\xff");
	e.method = ZC_DEFLATE;
	e.raw = true;
	zip_with(&e);
	expect("corrupt deflate", zip, SKIT_EINVALID, "corrupt.md");
	/* Sizes that disagree with the data (small, no cap involved). */
	e = entry("s/sizes.md", "ten bytes!");
	e.set_cd_sizes = true;
	e.cd_csize = 10;
	e.cd_usize = 5;
	zip_with(&e);
	expect("central size lies", zip, SKIT_EINVALID, NULL);
	e = entry("s/sizes.md", "ten bytes!");
	e.method = ZC_DEFLATE;
	e.set_local_sizes = true;
	e.local_csize = 3;
	e.local_usize = 999;
	zip_with(&e);
	expect("local size lies", zip, SKIT_EINVALID, NULL);
	/* A data descriptor with wrong sizes. */
	e = entry("s/dd.md", "descriptor data\n");
	e.method = ZC_DEFLATE;
	e.flags = ZC_FLAG_DESCRIPTOR;
	e.set_dd_sizes = true;
	e.dd_csize = 1;
	e.dd_usize = 2;
	zip_with(&e);
	expect("descriptor sizes", zip, SKIT_EINVALID, NULL);
	/* Zip64 markers on an entry. */
	e = entry("s/z64.md", "z64\n");
	e.set_cd_sizes = true;
	e.cd_csize = e.cd_usize = 0xffffffffu;
	e.extra = ex;
	e.extra_len = zc_extra_zip64(ex, sizeof(ex), (uint64_t)1 << 62, 4);
	zip_with(&e);
	expect2("zip64 entry", zip, SKIT_EINVALID, SKIT_ETOOBIG, NULL);
	/* A split archive (disk 1). */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc->disk = 1;
	write_zip(zc, zip);
	expect("split archive", zip, SKIT_EINVALID, NULL);
	/* Trailing garbage after the end record. */
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	zc->trailing = "TRAILING GARBAGE";
	zc->trailing_len = 16;
	write_zip(zc, zip);
	expect("trailing garbage", zip, SKIT_EINVALID, NULL);
	/* Not a zip: empty, text, a lone end record, truncated. */
	put(fx("empty.zip"), "");
	expect("zero-length", fx("empty.zip"), SKIT_EINVALID, NULL);
	put(fx("text.skill"), "just some text, not an archive\n");
	expect("text", fx("text.skill"), SKIT_EINVALID, NULL);
	zc = zc_new();
	write_zip(zc, fx("nothing.zip"));
	expect("no entries", fx("nothing.zip"), SKIT_EINVALID, NULL);
	{
		unsigned char *p;
		size_t n;
		FILE *f;

		zc = zc_new();
		zc_add_file(zc, "s/SKILL.md", md("s"));
		ASSERT_OK(zc_build(zc, &p, &n));
		zc_free(zc);
		f = fopen(fx("cut.zip"), "wb");
		ASSERT(f);
		ASSERT_EQ(fwrite(p, 1, n - 30, f), n - 30);
		ASSERT_OK(fclose(f));
		free(p);
		expect("truncated", fx("cut.zip"), SKIT_EINVALID, NULL);
	}
}

/* A data descriptor with the right values is ordinary (git archive). */
static void test_pack_hostile__a12_descriptor_ok(void)
{
	skit_install_result *res;
	struct zc *zc = zc_new();
	struct zc_entry e = entry("s/SKILL.md", md("s"));

	fresh("a12dd");
	e.method = ZC_DEFLATE;
	e.flags = ZC_FLAG_DESCRIPTOR;
	zc_add(zc, &e);
	e = entry("s/more.md", "more\n");
	e.method = ZC_DEFLATE;
	e.flags = ZC_FLAG_DESCRIPTOR;
	zc_add(zc, &e);
	write_zip(zc, zip);
	res = install_ok("descriptor", zip);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("s/SKILL.md"), md("s")));
	ASSERT(file_is(in_root("s/more.md"), "more\n"));
}

/* ---- A13: layout ------------------------------------------------------- */

static void test_pack_hostile__a13_layout_refused(void)
{
	struct zc *zc;
	struct zc_entry e;

	fresh("a13");
	zc = zc_new();
	zc_add_file(zc, "s/README.md", "no skill here\n");
	zc_add_file(zc, "other.md", "none\n");
	write_zip(zc, zip);
	expect("no SKILL.md", zip, SKIT_EINVALID, NULL);
	/* Only deeper than a wrapper and a skill folder. */
	zc = zc_new();
	zc_add_file(zc, "a/b/c/SKILL.md", md("c"));
	write_zip(zc, zip);
	expect("SKILL.md too deep", zip, SKIT_EINVALID, NULL);
	/* Two wrappers. */
	zc = zc_new();
	zc_add_file(zc, "w1/a/SKILL.md", md("a"));
	zc_add_file(zc, "w2/b/SKILL.md", md("b"));
	write_zip(zc, zip);
	expect("two wrappers", zip, SKIT_EINVALID, NULL);
	/* SKILL.md a folder. */
	zc = zc_new();
	zc_add_dir(zc, "s/SKILL.md");
	zc_add_file(zc, "s/SKILL.md/x", "x\n");
	write_zip(zc, zip);
	expect("SKILL.md folder", zip, SKIT_EINVALID, NULL);
	/* SKILL.md a symlink, to a file inside or outside. */
	zc = zc_new();
	zc_add_file(zc, "s/real.md", md("s"));
	zc_add_symlink(zc, "s/SKILL.md", "real.md");
	write_zip(zc, zip);
	expect("SKILL.md link inside", zip, SKIT_EUNSAFE, NULL);
	zc = zc_new();
	zc_add_symlink(zc, "s/SKILL.md", "/etc/passwd");
	write_zip(zc, zip);
	expect("SKILL.md link outside", zip, SKIT_EUNSAFE, NULL);
	/* Folder name and frontmatter name differ; a name that is not
	 * valid; frontmatter missing a field; no frontmatter. */
	zc = zc_new();
	zc_add_file(zc, "wrong/SKILL.md", md("right"));
	write_zip(zc, zip);
	/* (the loading rules accept these two: conformance refuses them) */
	opts.flags |= SKIT_INSTALL_STRICT;
	expect("folder != name", zip, SKIT_EINVALID, NULL);
	zc = zc_new();
	zc_add_file(zc, "Bad_Name/SKILL.md", md("Bad_Name"));
	write_zip(zc, zip);
	expect("invalid name", zip, SKIT_EINVALID, NULL);
	opts.flags &= ~(unsigned int)SKIT_INSTALL_STRICT;
	/* a folder that cannot be an installed skill's identity */
	zc = zc_new();
	zc_add_file(zc, "-rf/SKILL.md", md("rf"));
	write_zip(zc, zip);
	expect("dash folder", zip, SKIT_EINVALID, NULL);
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", "---\nname: s\n---\nBody.\n");
	write_zip(zc, zip);
	expect("no description", zip, SKIT_EINVALID, NULL);
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", "just text\n");
	write_zip(zc, zip);
	expect("no frontmatter", zip, SKIT_EINVALID, NULL);
	/* Two skills, one of them invalid: all or nothing. */
	zc = zc_new();
	zc_add_file(zc, "good/SKILL.md", md("good"));
	zc_add_file(zc, "bad/SKILL.md", "---\nname: bad\n---\n");
	write_zip(zc, zip);
	expect("one bad of two", zip, SKIT_EINVALID, NULL);
	/* A manifest that is not JSON. */
	zc = zc_new();
	zc_add_file(zc, "manifest.json", "{ not json");
	zc_add_file(zc, "s/SKILL.md", md("s"));
	write_zip(zc, zip);
	expect("garbage manifest", zip, SKIT_EINVALID, NULL);
	/* The lock file's own name as a skill is not a skill name. */
	zc = zc_new();
	e = entry(".skit-lock.json/SKILL.md", md(".skit-lock.json"));
	zc_add(zc, &e);
	write_zip(zc, zip);
	expect2("dot skill", zip, SKIT_EINVALID, SKIT_EUNSAFE, NULL);
}

static void test_pack_hostile__a13_layout_accepted(void)
{
	skit_install_result *res;
	struct zc *zc;
	char *got;

	fresh("a13ok");
	/* A GitHub codeload zip: one wrapper around skill folders. */
	zc = zc_new();
	zc_add_dir(zc, "repo-main");
	zc_add_file(zc, "repo-main/README.md", "the repo\n");
	zc_add_file(zc, "repo-main/alpha/SKILL.md", md("alpha"));
	zc_add_file(zc, "repo-main/beta/SKILL.md", md("beta"));
	zc_add_file(zc, "repo-main/beta/ref.md", "ref\n");
	write_zip(zc, zip);
	res = install_ok("codeload", zip);
	ASSERT_EQ(skit_install_result_count(res), 2);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("alpha/SKILL.md"), md("alpha")));
	ASSERT(file_is(in_root("beta/ref.md"), "ref\n"));
	ASSERT(!lexists(in_root("repo-main")));
	ASSERT(!lexists(in_root("README.md")));
	/* SKILL.md at the top: one skill named by its frontmatter. */
	zc = zc_new();
	zc_add_file(zc, "SKILL.md", md("solo"));
	zc_add_bytes(zc, "scripts/run.sh", "#!/bin/sh\necho hi\n", 18, 0755);
	write_zip(zc, zip);
	res = install_ok("single", zip);
	ASSERT_EQ(skit_install_result_count(res), 1);
	ASSERT_STR(skit_install_result_at(res, 0)->name, "solo");
	skit_install_result_free(res);
	ASSERT(file_is(in_root("solo/SKILL.md"), md("solo")));
	ASSERT_EQ(lmode(in_root("solo/scripts/run.sh")), S_IFREG | 0755);
	/* A folder source with skills/<name>/SKILL.md. */
	ASSERT_OK(skitx_fs_mkdir_p(fx("tree/skills/gamma"), 0755));
	put(fx("tree/skills/gamma/SKILL.md"), md("gamma"));
	put(fx("tree/README.md"), "tree\n");
	res = install_ok("skills/ folder", fx("tree"));
	ASSERT_EQ(skit_install_result_count(res), 1);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("gamma/SKILL.md"), md("gamma")));
	/* A folder that is one skill. */
	ASSERT_OK(skitx_fs_mkdir_p(fx("delta"), 0755));
	put(fx("delta/SKILL.md"), md("delta"));
	res = install_ok("skill folder", fx("delta"));
	skit_install_result_free(res);
	ASSERT(file_is(in_root("delta/SKILL.md"), md("delta")));
	got = listing(root);
	ASSERT_STR(got, ".skit-lock.json .skit.lock alpha beta delta gamma "
	                "keeper solo");
	skitx_free(got);
}

/*
 * SKILL.md at the top and a skill folder below it: either one skill "top"
 * holding a/SKILL.md as a file (the top-level rule), or refused as
 * ambiguous; never two skills, never a skill "a".
 */
static void test_pack_hostile__a13_top_and_folders(void)
{
	skit_install_result *res = NULL;
	struct zc *zc = zc_new();
	skit_error err;
	int rc;

	fresh("a13top");
	zc_add_file(zc, "SKILL.md", md("top"));
	zc_add_file(zc, "a/SKILL.md", md("a"));
	write_zip(zc, zip);
	memset(&err, 0, sizeof(err));
	rc = skit_install(root, zip, &opts, &res, &err);
	if (rc == 0) {
		ASSERT_EQ(skit_install_result_count(res), 1);
		ASSERT_STR(skit_install_result_at(res, 0)->name, "top");
		ASSERT(file_is(in_root("top/SKILL.md"), md("top")));
		ASSERT(file_is(in_root("top/a/SKILL.md"), md("a")));
		ASSERT(!lexists(in_root("a")));
	} else {
		ASSERT_EQ(rc, SKIT_EINVALID);
		check_message("top and folders", &err);
		assert_root_untouched("top and folders");
	}
	if (res)
		skit_install_result_free(res);
	assert_no_escape("top and folders");
}

/* ---- A14: timestamps --------------------------------------------------- */

static void test_pack_hostile__a14_timestamps(void)
{
	skit_install_result *res;
	unsigned char x1[16], x2[16], x3[64];
	struct zc *zc = zc_new();
	struct zc_entry e;

	fresh("a14");
	zc_add_file(zc, "s/SKILL.md", md("s"));
	e = entry("s/month13.md", "m\n");
	e.dos_date = (45u << 9) | (13u << 5) | 0u; /* month 13, day 0 */
	e.dos_time = (31u << 11) | (63u << 5) | 31u;
	zc_add(zc, &e);
	e = entry("s/ffff.md", "f\n");
	e.dos_date = 0xffff;
	e.dos_time = 0xffff;
	zc_add(zc, &e);
	e = entry("s/pre1970.md", "p\n");
	e.extra = x1;
	e.extra_len = zc_extra_xtime(x1, sizeof(x1), INT32_MIN);
	zc_add(zc, &e);
	e = entry("s/minus1.md", "n\n");
	e.extra = x2;
	e.extra_len = zc_extra_xtime(x2, sizeof(x2), -1);
	zc_add(zc, &e);
	e = entry("s/ntfs.md", "t\n");
	e.extra = x3;
	e.extra_len = zc_extra_ntfs(x3, sizeof(x3), UINT64_MAX);
	zc_add(zc, &e);
	write_zip(zc, zip);
	res = install_ok("timestamps", zip);
	ASSERT_EQ(skit_install_result_count(res), 1);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("s/month13.md"), "m\n"));
	ASSERT(file_is(in_root("s/ffff.md"), "f\n"));
	ASSERT(file_is(in_root("s/pre1970.md"), "p\n"));
	ASSERT(file_is(in_root("s/ntfs.md"), "t\n"));
	/* Timestamps never skip validation: a bad name beside them still
	 * fails. */
	zc = zc_new();
	zc_add_file(zc, "s2/SKILL.md", md("s2"));
	e = entry("s2/../../t-escape", "x\n");
	e.dos_date = 0xffff;
	zc_add(zc, &e);
	write_zip(zc, zip);
	resnap();
	expect("timestamp + traversal", zip, SKIT_EUNSAFE, "t-escape");
}

/* ---- install over an existing skill ------------------------------------ */

static void test_pack_hostile__exists_and_force(void)
{
	skit_install_result *res;
	const skit_install_item *it;
	struct zc *zc;

	fresh("exists");
	zc = zc_new();
	zc_add_file(zc, "keeper/SKILL.md", md("keeper"));
	zc_add_file(zc, "keeper/new.md", "v2\n");
	write_zip(zc, zip);
	expect("already installed", zip, SKIT_EEXISTS, "keeper");
	opts.flags = SKIT_INSTALL_FORCE;
	res = install_ok("force", zip);
	ASSERT_EQ(skit_install_result_count(res), 1);
	it = skit_install_result_at(res, 0);
	ASSERT_STR(it->name, "keeper");
	ASSERT_EQ(it->action, SKIT_INSTALL_REPLACED);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("keeper/new.md"), "v2\n"));
	ASSERT(!lexists(in_root("keeper/notes.txt")));
	ASSERT(file_is(in_root("keeper/SKILL.md"), md("keeper")));
	{
		char *got = listing(root);

		ASSERT_STR(got, ".skit-lock.json .skit.lock keeper");
		skitx_free(got);
	}
}

/* ---- F1: the source changes after staging ------------------------------ */

struct f1_state {
	int calls;
	size_t n;
	char first[64];
	const char *src_dir, *src_zip;
};

static int f1_on_plan(void *ud, const skit_install_item *items, size_t n)
{
	struct f1_state *st = ud;
	char p[PATH_MAX];

	st->calls++;
	st->n = n;
	if (n)
		snprintf(st->first, sizeof(st->first), "%s", items[0].name);
	if (st->src_dir) {
		snprintf(p, sizeof(p), "%s/data.txt", st->src_dir);
		put(p, "EVIL after staging\n");
		snprintf(p, sizeof(p), "%s/added.txt", st->src_dir);
		put(p, "added after staging\n");
		snprintf(p, sizeof(p), "%s/SKILL.md", st->src_dir);
		put(p, "---\nname: f1skill\ndescription: Swapped. Use when "
		       "attacking.\n---\nEvil body.\n");
	}
	if (st->src_zip) {
		struct zc *zc = zc_new();

		zc_add_file(zc, "f1zip/SKILL.md", md("f1zip"));
		zc_add_file(zc, "f1zip/data.txt", "EVIL zip\n");
		zc_add_file(zc, "f1zip/added.txt", "added\n");
		write_zip(zc, st->src_zip);
	}
	return 0;
}

static void test_pack_hostile__f1_source_changes_during_plan(void)
{
	skit_install_result *res;
	struct f1_state st;
	struct zc *zc;
	char src[PATH_MAX];

	fresh("f1");
	snprintf(src, sizeof(src), "%s", fx("f1skill"));
	ASSERT_OK(mkdir(src, 0755));
	put(fx("f1skill/SKILL.md"), md("f1skill"));
	put(fx("f1skill/data.txt"), "original\n");
	memset(&st, 0, sizeof(st));
	st.src_dir = src;
	opts.on_plan = f1_on_plan;
	opts.userdata = &st;
	res = install_ok("folder source", src);
	skit_install_result_free(res);
	ASSERT_EQ(st.calls, 1);
	ASSERT_EQ(st.n, 1);
	ASSERT_STR(st.first, "f1skill");
	ASSERT(file_is(in_root("f1skill/data.txt"), "original\n"));
	ASSERT(file_is(in_root("f1skill/SKILL.md"), md("f1skill")));
	ASSERT(!lexists(in_root("f1skill/added.txt")));

	/* The same with a zip rewritten during the plan. */
	zc = zc_new();
	zc_add_file(zc, "f1zip/SKILL.md", md("f1zip"));
	zc_add_file(zc, "f1zip/data.txt", "original zip\n");
	write_zip(zc, zip);
	memset(&st, 0, sizeof(st));
	st.src_zip = zip;
	res = install_ok("zip source", zip);
	skit_install_result_free(res);
	ASSERT_EQ(st.calls, 1);
	ASSERT(file_is(in_root("f1zip/data.txt"), "original zip\n"));
	ASSERT(!lexists(in_root("f1zip/added.txt")));
}

static int cancel_plan(void *ud, const skit_install_item *items, size_t n)
{
	(*(int *)ud)++;
	return 1;
}

/* A plan refused by the callback, and a dry run, change nothing. */
static void test_pack_hostile__plan_cancel_and_dry_run(void)
{
	skit_install_result *res;
	struct zc *zc;
	int calls = 0;

	fresh("cancel");
	zc = zc_new();
	zc_add_file(zc, "s/SKILL.md", md("s"));
	write_zip(zc, zip);
	opts.on_plan = cancel_plan;
	opts.userdata = &calls;
	expect("canceled", zip, SKIT_ECANCELED, NULL);
	ASSERT_EQ(calls, 1);
	opts.on_plan = NULL;
	opts.flags = SKIT_INSTALL_DRY_RUN;
	res = install_ok("dry run", zip);
	ASSERT_EQ(skit_install_result_count(res), 1);
	ASSERT_STR(skit_install_result_at(res, 0)->name, "s");
	ASSERT_EQ(skit_install_result_at(res, 0)->action, SKIT_INSTALL_NEW);
	skit_install_result_free(res);
	assert_root_untouched("dry run");
	assert_no_escape("dry run");
}

/* ---- F3: concurrent installs ------------------------------------------- */

static void test_pack_hostile__f3_concurrent(void)
{
	const char *zips[2];
	const char *names[2] = { "conc-one", "conc-two" };
	int gate[2];
	pid_t pids[2];
	json_t *doc;
	json_error_t jerr;
	char lock[PATH_MAX];

	fresh("f3");
	for (int i = 0; i < 2; i++) {
		char file[64], sk[64];
		struct zc *zc = zc_new();

		snprintf(file, sizeof(file), "%s.zip", names[i]);
		zips[i] = fx(file);
		snprintf(sk, sizeof(sk), "%s/SKILL.md", names[i]);
		zc_add_file(zc, sk, md(names[i]));
		snprintf(sk, sizeof(sk), "%s/data.md", names[i]);
		zc_add_file(zc, sk, names[i]);
		write_zip(zc, zips[i]);
	}
	ASSERT_OK(pipe(gate));
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		ASSERT(pids[i] >= 0);
		if (pids[i] == 0) {
			skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
			char c;
			int bad = 0;

			close(gate[1]);
			if (read(gate[0], &c, 1) < 0)
				_exit(99);
			/* Several rounds each, to make them overlap. */
			o.flags = SKIT_INSTALL_FORCE;
			for (int r = 0; r < 5; r++) {
				skit_error err;

				memset(&err, 0, sizeof(err));
				if (skit_install(root, zips[i], &o, NULL,
				                 &err) != 0) {
					fprintf(stderr, "child %d: %s\n", i,
					        err.message);
					bad = 1;
				}
			}
			_exit(bad);
		}
	}
	close(gate[0]);
	close(gate[1]); /* both start */
	for (int i = 0; i < 2; i++) {
		int status;

		ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		ASSERT(WIFEXITED(status));
		ASSERT_EQ(WEXITSTATUS(status), 0);
	}
	snprintf(lock, sizeof(lock), "%s/.skit-lock.json", root);
	doc = json_load_file(lock, 0, &jerr);
	if (!doc)
		HARNESS_FAIL("lock file: %s (line %d)", jerr.text, jerr.line);
	json_decref(doc);
	ASSERT(lock_has(root, "keeper"));
	ASSERT(lock_has(root, "conc-one"));
	ASSERT(lock_has(root, "conc-two"));
	ASSERT(file_is(in_root("conc-one/data.md"), "conc-one"));
	ASSERT(file_is(in_root("conc-two/data.md"), "conc-two"));
	{
		char *got = listing(root);

		ASSERT_STR(got, ".skit-lock.json .skit.lock conc-one conc-two "
		                "keeper");
		skitx_free(got);
	}
}

/* ---- F4: uninstall through links --------------------------------------- */

static void install_zip_of(const char *skill, const char *extra_path,
                           const char *extra_text)
{
	skit_install_result *res;
	struct zc *zc = zc_new();
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/SKILL.md", skill);
	zc_add_file(zc, p, md(skill));
	if (extra_path)
		zc_add_file(zc, extra_path, extra_text);
	write_zip(zc, zip);
	res = install_ok(skill, zip);
	skit_install_result_free(res);
}

static void test_pack_hostile__f4_uninstall_linked_skill(void)
{
	skit_error err;

	fresh("f4link");
	install_zip_of("linked", "linked/f.md", "f\n");
	ASSERT_OK(mkdir(fx("elsewhere"), 0755));
	ASSERT_OK(rename(in_root("linked"), fx("elsewhere/linked")));
	ASSERT_OK(symlink(fx("elsewhere/linked"), in_root("linked")));
	memset(&err, 0, sizeof(err));
	ASSERT_OK(skit_uninstall(root, "linked", &err));
	ASSERT(!lexists(in_root("linked")));
	ASSERT(file_is(fx("elsewhere/linked/SKILL.md"), md("linked")));
	ASSERT(file_is(fx("elsewhere/linked/f.md"), "f\n"));
	ASSERT(!lock_has(root, "linked"));
	ASSERT(lock_has(root, "keeper"));
}

static void test_pack_hostile__f4_uninstall_swapped_subdir(void)
{
	skit_error err;
	int rc;

	fresh("f4swap");
	install_zip_of("swapped", "swapped/sub/f.md", "f\n");
	ASSERT_OK(skitx_fs_mkdir_p(fx("precious/deeper"), 0755));
	put(fx("precious/keep.txt"), "keep\n");
	put(fx("precious/deeper/keep2.txt"), "keep2\n");
	rm_rf(in_root("swapped/sub"));
	ASSERT_OK(symlink(fx("precious"), in_root("swapped/sub")));
	memset(&err, 0, sizeof(err));
	rc = skit_uninstall(root, "swapped", &err);
	ASSERT(file_is(fx("precious/keep.txt"), "keep\n"));
	ASSERT(file_is(fx("precious/deeper/keep2.txt"), "keep2\n"));
	ASSERT_OK(rc);
	ASSERT(!lexists(in_root("swapped")));
	ASSERT(!lock_has(root, "swapped"));
	/* The whole skill folder swapped for a link to a folder of files:
	 * the link goes, the files stay. */
	install_zip_of("swapped2", NULL, NULL);
	rm_rf(in_root("swapped2"));
	ASSERT_OK(symlink(fx("precious"), in_root("swapped2")));
	memset(&err, 0, sizeof(err));
	ASSERT_OK(skit_uninstall(root, "swapped2", &err));
	ASSERT(!lexists(in_root("swapped2")));
	ASSERT(file_is(fx("precious/keep.txt"), "keep\n"));
}

/* ---- F5: a link planted by v1, written through by v2 ------------------- */

static void test_pack_hostile__f5_two_step_update(void)
{
	skit_install_result *res = NULL;
	skit_error err;
	struct zc *zc;
	int rc;

	fresh("f5");
	install_zip_of("tw", "tw/x/readme.md", "v1\n");
	/* Whatever planted it, x is now a link to an outside folder. */
	ASSERT_OK(mkdir(fx("ssh"), 0700));
	rm_rf(in_root("tw/x"));
	ASSERT_OK(symlink(fx("ssh"), in_root("tw/x")));
	zc = zc_new();
	zc_add_file(zc, "tw/SKILL.md", md("tw"));
	zc_add_file(zc, "tw/x/authorized_keys", "ssh-ed25519 AAAA attacker\n");
	write_zip(zc, zip);
	opts.flags = SKIT_INSTALL_FORCE;
	memset(&err, 0, sizeof(err));
	rc = skit_install(root, zip, &opts, &res, &err);
	if (res)
		skit_install_result_free(res);
	assert_listing("v2 through the link", fx("ssh"), "");
	if (rc == 0) {
		ASSERT(S_ISDIR(lmode(in_root("tw/x"))));
		ASSERT(file_is(in_root("tw/x/authorized_keys"),
		               "ssh-ed25519 AAAA attacker\n"));
	} else {
		ASSERT_EQ(rc, SKIT_EUNSAFE);
	}
	assert_no_escape("two-step");
}

/* ---- F6: folder sources with links ------------------------------------- */

static void test_pack_hostile__f6_folder_source_links(void)
{
	fresh("f6");
	put(fx("secret.txt"), "TOPSECRET\n");

	ASSERT_OK(skitx_fs_mkdir_p(fx("in/l1"), 0755));
	put(fx("in/l1/SKILL.md"), md("l1"));
	ASSERT_OK(symlink("SKILL.md", fx("in/l1/link-in")));
	expect("link inside", fx("in/l1"), SKIT_EUNSAFE, "link-in");

	ASSERT_OK(skitx_fs_mkdir_p(fx("out/l2"), 0755));
	put(fx("out/l2/SKILL.md"), md("l2"));
	ASSERT_OK(symlink(fx("secret.txt"), fx("out/l2/link-out")));
	expect("link outside", fx("out/l2"), SKIT_EUNSAFE, "link-out");

	ASSERT_OK(skitx_fs_mkdir_p(fx("dirlink/l3"), 0755));
	put(fx("dirlink/l3/SKILL.md"), md("l3"));
	ASSERT_OK(symlink("/etc", fx("dirlink/l3/etc-link")));
	expect("folder link", fx("dirlink/l3"), SKIT_EUNSAFE, "etc-link");

	ASSERT_OK(skitx_fs_mkdir_p(fx("mdlink/l4"), 0755));
	ASSERT_OK(symlink(fx("secret.txt"), fx("mdlink/l4/SKILL.md")));
	expect("SKILL.md link", fx("mdlink/l4"), SKIT_EUNSAFE, NULL);

	/* In a multi-skill folder, one link in the second skill refuses
	 * all. */
	ASSERT_OK(skitx_fs_mkdir_p(fx("multi/m1"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(fx("multi/m2/sub"), 0755));
	put(fx("multi/m1/SKILL.md"), md("m1"));
	put(fx("multi/m2/SKILL.md"), md("m2"));
	ASSERT_OK(symlink(fx("secret.txt"), fx("multi/m2/sub/deep-link")));
	expect("link in second skill", fx("multi"), SKIT_EUNSAFE, "deep-link");

	/* A FIFO in a folder source (open() would block). */
	ASSERT_OK(skitx_fs_mkdir_p(fx("fifo/l5"), 0755));
	put(fx("fifo/l5/SKILL.md"), md("l5"));
	ASSERT_OK(mkfifo(fx("fifo/l5/pipe"), 0644));
	expect("FIFO", fx("fifo/l5"), SKIT_EUNSAFE, "pipe");
}

/* ---- F9: installed modes ----------------------------------------------- */

static void check_modes(const char *dir)
{
	struct dirent *de;
	struct stat st;
	char p[PATH_MAX];
	DIR *d = opendir(dir);

	ASSERT(d);
	while ((de = readdir(d))) {
		mode_t m;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		ASSERT_OK(lstat(p, &st));
		m = st.st_mode & 07777;
		if (st.st_uid != geteuid())
			HARNESS_FAIL("%s: owner %d", p, (int)st.st_uid);
		if (S_ISDIR(st.st_mode)) {
			if (m != 0755)
				HARNESS_FAIL("%s: folder mode %o", p,
				             (unsigned int)m);
			check_modes(p);
		} else if (S_ISREG(st.st_mode)) {
			if (m != 0644 && m != 0755)
				HARNESS_FAIL("%s: file mode %o", p,
				             (unsigned int)m);
		} else {
			HARNESS_FAIL("%s: not a file or folder", p);
		}
	}
	closedir(d);
}

static void test_pack_hostile__f9_installed_modes(void)
{
	skit_install_result *res;
	struct zc *zc;
	mode_t old;

	fresh("f9");
	old = umask(0); /* nothing may rely on the umask */
	/* From a folder with odd modes. */
	ASSERT_OK(skitx_fs_mkdir_p(fx("odd/sub"), 0755));
	put(fx("odd/SKILL.md"), md("odd"));
	put(fx("odd/run.sh"), "#!/bin/sh\n");
	put(fx("odd/ro.md"), "ro\n");
	put(fx("odd/sub/w.md"), "w\n");
	ASSERT_OK(chmod(fx("odd/run.sh"), 0775));
	ASSERT_OK(chmod(fx("odd/ro.md"), 0400));
	ASSERT_OK(chmod(fx("odd/sub/w.md"), 0666));
	ASSERT_OK(chmod(fx("odd/sub"), 0777));
	res = install_ok("odd modes folder", fx("odd"));
	skit_install_result_free(res);
	/* From a zip with suid and world-writable modes. */
	zc = zc_new();
	zc_add_file(zc, "zodd/SKILL.md", md("zodd"));
	zc_add_bytes(zc, "zodd/s.sh", "#!/bin/sh\n", 10, 06777);
	zc_add_bytes(zc, "zodd/w.md", "w\n", 2, 0666);
	zc_add_bytes(zc, "zodd/deep/d.md", "d\n", 2, 0600);
	write_zip(zc, zip);
	res = install_ok("odd modes zip", zip);
	skit_install_result_free(res);
	umask(old);
	check_modes(in_root("odd"));
	check_modes(in_root("zodd"));
	check_modes(in_root("keeper"));
	ASSERT_EQ(lmode(in_root("odd/run.sh")) & 07777, 0755);
	ASSERT_EQ(lmode(in_root("odd/ro.md")) & 07777, 0644);
	ASSERT_EQ(lmode(in_root("zodd/s.sh")) & 07777, 0755);
	ASSERT_EQ(lmode(in_root("zodd/w.md")) & 07777, 0644);
	ASSERT_EQ(lmode(in_root("zodd")) & 07777, 0755);
	/* The lock file is not writable by others either. */
	ASSERT_EQ(lmode(in_root(".skit-lock.json")) & 022, 0);
	/* And verify finds nothing to complain about. */
	{
		skit_verify_result *v = NULL;
		skit_error err;

		memset(&err, 0, sizeof(err));
		ASSERT_OK(skit_verify(&v, root, NULL, &err));
		ASSERT_EQ(skit_verify_count(v), 0);
		ASSERT_EQ(skit_verify_skills(v), 3);
		skit_verify_free(v);
	}
}

/* ---- F10: the root is a link ------------------------------------------- */

static void test_pack_hostile__f10_root_is_link(void)
{
	skit_install_result *res = NULL;
	skit_error err;
	struct zc *zc;
	char real[PATH_MAX / 2], link[PATH_MAX / 2];

	fresh("f10");
	snprintf(real, sizeof(real), "%s", fx("realroot"));
	snprintf(link, sizeof(link), "%s", fx("rootlink"));
	ASSERT_OK(mkdir(real, 0755));
	ASSERT_OK(symlink(real, link));
	zc = zc_new();
	zc_add_file(zc, "viaLink/SKILL.md", md("via-link"));
	write_zip(zc, zip);
	/* (a folder/name mismatch first: nothing may appear anywhere) */
	memset(&err, 0, sizeof(err));
	opts.flags |= SKIT_INSTALL_STRICT;
	ASSERT_EQ(skit_install(link, zip, &opts, &res, &err), SKIT_EINVALID);
	opts.flags &= ~(unsigned int)SKIT_INSTALL_STRICT;
	if (res)
		skit_install_result_free(res);
	res = NULL;
	ASSERT(S_ISLNK(lmode(link)));
	zc = zc_new();
	zc_add_file(zc, "via-link/SKILL.md", md("via-link"));
	write_zip(zc, zip);
	memset(&err, 0, sizeof(err));
	if (skit_install(link, zip, &opts, &res, &err))
		HARNESS_FAIL("install into a linked root: %s", err.message);
	ASSERT(res);
	ASSERT(skit_install_result_root(res));
	ASSERT_EQ(skit_install_result_root(res)[0], '/');
	skit_install_result_free(res);
	ASSERT(S_ISLNK(lmode(link)));
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/via-link/SKILL.md", real);
		ASSERT(file_is(p, md("via-link")));
		snprintf(p, sizeof(p), "%s/.skit-lock.json", real);
		ASSERT(lexists(p));
	}
	ASSERT(lock_has(link, "via-link"));
	ASSERT(lock_has(real, "via-link"));
	{
		char *got = listing(fx(""));

		ASSERT_STR(got, "in.zip keeper.zip realroot rootlink");
		skitx_free(got);
	}
	memset(&err, 0, sizeof(err));
	ASSERT_OK(skit_uninstall(link, "via-link", &err));
	ASSERT(S_ISLNK(lmode(link)));
	ASSERT(S_ISDIR(lmode(real)));
}

/* ---- the positive control ---------------------------------------------- */

static void test_pack_hostile__positive_two_skills(void)
{
	static const char notes[] =
	        "Notes notes notes notes notes notes.\n"
	        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n";
	skit_install_result *res;
	struct zc *zc = zc_new();
	bool seen_a = false, seen_b = false;
	char *got;

	fresh("positive");
	zc_add_dir(zc, "alpha");
	zc_add_file(zc, "alpha/SKILL.md", md("alpha"));
	zc_add_bytes(zc, "alpha/scripts/run.sh", "#!/bin/sh\necho ok\n", 18,
	             0755);
	zc_add_deflated(zc, "alpha/references/notes.md", notes, strlen(notes));
	zc_add_deflated(zc, "beta/SKILL.md", md("beta"), strlen(md("beta")));
	zc_add_file(zc, "beta/assets/data.json", "{\"ok\": true}\n");
	write_zip(zc, zip);
	res = install_ok("two skills", zip);
	ASSERT_EQ(skit_install_result_count(res), 2);
	for (size_t i = 0; i < 2; i++) {
		const skit_install_item *it = skit_install_result_at(res, i);

		ASSERT(it);
		ASSERT_EQ(it->action, SKIT_INSTALL_NEW);
		if (!strcmp(it->name, "alpha"))
			seen_a = true;
		if (!strcmp(it->name, "beta"))
			seen_b = true;
	}
	ASSERT(seen_a && seen_b);
	skit_install_result_free(res);
	ASSERT(file_is(in_root("alpha/SKILL.md"), md("alpha")));
	ASSERT(file_is(in_root("alpha/scripts/run.sh"),
	               "#!/bin/sh\necho ok\n"));
	ASSERT(file_is(in_root("alpha/references/notes.md"), notes));
	ASSERT(file_is(in_root("beta/SKILL.md"), md("beta")));
	ASSERT(file_is(in_root("beta/assets/data.json"), "{\"ok\": true}\n"));
	ASSERT_EQ(lmode(in_root("alpha/scripts/run.sh")), S_IFREG | 0755);
	ASSERT_EQ(lmode(in_root("alpha/SKILL.md")), S_IFREG | 0644);
	ASSERT_EQ(lmode(in_root("alpha/scripts")), S_IFDIR | 0755);
	got = listing(root);
	ASSERT_STR(got, ".skit-lock.json .skit.lock alpha beta keeper");
	skitx_free(got);
	ASSERT(lock_has(root, "alpha"));
	ASSERT(lock_has(root, "beta"));
	ASSERT(lock_has(root, "keeper"));
	assert_no_escape("two skills");
}

/* clang-format off */
TEST_MAIN(
	TEST(test_pack_hostile__positive_two_skills)
	TEST(test_pack_hostile__a1_traversal)
	TEST(test_pack_hostile__a2_absolute)
	TEST(test_pack_hostile__a3_windows)
	TEST(test_pack_hostile__a3_reserved_rule)
	TEST(test_pack_hostile__a4_name_bytes)
	TEST(test_pack_hostile__a4_utf8_name_ok)
	TEST(test_pack_hostile__a4_name_disagreement)
	TEST(test_pack_hostile__a5_symlinks)
	TEST(test_pack_hostile__a6_tar_hardlinks)
	TEST(test_pack_hostile__a7_duplicates)
	TEST(test_pack_hostile__a7_structure)
	TEST(test_pack_hostile__a8_bombs)
	TEST(test_pack_hostile__a8_nested_archive)
	TEST(test_pack_hostile__a9_entry_count)
	TEST(test_pack_hostile__a9_claimed_counts)
	TEST(test_pack_hostile__a9_long_names)
	TEST(test_pack_hostile__a10_collisions)
	TEST(test_pack_hostile__a11_special_files)
	TEST(test_pack_hostile__a11_modes_normalised)
	TEST(test_pack_hostile__a12_unsupported)
	TEST(test_pack_hostile__a12_descriptor_ok)
	TEST(test_pack_hostile__a13_layout_refused)
	TEST(test_pack_hostile__a13_layout_accepted)
	TEST(test_pack_hostile__a13_top_and_folders)
	TEST(test_pack_hostile__a14_timestamps)
	TEST(test_pack_hostile__exists_and_force)
	TEST(test_pack_hostile__f1_source_changes_during_plan)
	TEST(test_pack_hostile__plan_cancel_and_dry_run)
	TEST(test_pack_hostile__f3_concurrent)
	TEST(test_pack_hostile__f4_uninstall_linked_skill)
	TEST(test_pack_hostile__f4_uninstall_swapped_subdir)
	TEST(test_pack_hostile__f5_two_step_update)
	TEST(test_pack_hostile__f6_folder_source_links)
	TEST(test_pack_hostile__f9_installed_modes)
	TEST(test_pack_hostile__f10_root_is_link))
/* clang-format on */
