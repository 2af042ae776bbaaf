/* SPDX-License-Identifier: MIT */
/*
 * test_zipcraft.c - the hostile-zip builder (tests/support/zipcraft.c)
 * checked against two independent readers: libarchive (the seekable zip
 * reader, which goes by the central directory) and Info-ZIP unzip when
 * /usr/bin/unzip exists (its checks are skipped with a note otherwise).
 *
 * Valid archives must list and test clean with both and read back byte
 * for byte; the deflate encoder's streams must inflate to the input; the
 * zero bomb must inflate to its declared size at a ratio over 1000:1;
 * every lie must land in the bytes where the format puts the field.
 */
#include "common.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "harness.h"
#include "support/zipcraft.h"
#include "util/fs.h"

static char dir[PATH_MAX / 2];

static void fresh(const char *name)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(dir, sizeof(dir), "%s/zipcraft-%s",
	         top ? top : "/tmp/skit-test-zipcraft", name);
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
}

static void path_in(char *out, size_t cap, const char *file)
{
	snprintf(out, cap, "%s/%s", dir, file);
}

static bool have_unzip(void)
{
	static int said;

	if (access("/usr/bin/unzip", X_OK) == 0)
		return true;
	if (!said++)
		printf("note: /usr/bin/unzip missing, its checks skipped\n");
	return false;
}

/* Run `cmd` with sh, capture stdout+stderr into `out`; the exit code. */
static int run(const char *cmd, char *out, size_t cap)
{
	char full[PATH_MAX * 2];
	FILE *p;
	size_t n = 0, got;
	int st;

	snprintf(full, sizeof(full), "( %s ) 2>&1 </dev/null", cmd);
	p = popen(full, "r");
	ASSERT(p);
	while (n + 1 < cap && (got = fread(out + n, 1, cap - 1 - n, p)) > 0)
		n += got;
	out[n] = 0;
	{
		char sink[4096];

		while (fread(sink, 1, sizeof(sink), p) > 0)
			;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static uint32_t rd16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

/* ---- libarchive read-back ---------------------------------------------- */

struct got {
	char name[512];
	int64_t size; /* bytes read */
	uint32_t crc; /* of the bytes read */
	unsigned int type, perm;
	char link[256];
	int data_rc; /* ARCHIVE_OK or the read error */
	bool encrypted;
};

/*
 * Read every entry of `path` with libarchive's seekable zip reader into
 * `g[0..cap)`. Returns the entry count, or -1 when a header cannot be
 * read. Data errors are recorded per entry.
 */
static int ar_read(const char *path, struct got *g, int cap)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	static char buf[1 << 16];
	int n = 0, r;

	ASSERT(a);
	archive_read_support_format_zip_seekable(a);
	if (archive_read_open_filename(a, path, 16384) != ARCHIVE_OK) {
		archive_read_free(a);
		return -1;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		struct got *x = n < cap ? &g[n] : NULL;
		la_ssize_t k;

		if (x) {
			const char *lt = archive_entry_symlink(e);

			memset(x, 0, sizeof(*x));
			snprintf(x->name, sizeof(x->name), "%s",
			         archive_entry_pathname(e));
			x->type = archive_entry_filetype(e);
			x->perm = archive_entry_mode(e) & 07777;
			x->encrypted = archive_entry_is_encrypted(e);
			if (lt)
				snprintf(x->link, sizeof(x->link), "%s", lt);
		}
		while ((k = archive_read_data(a, buf, sizeof(buf))) > 0) {
			if (x) {
				x->crc = zc_crc32(x->crc, buf, (size_t)k);
				x->size += k;
			}
		}
		if (x && k < 0)
			x->data_rc = (int)k;
		n++;
	}
	archive_read_free(a);
	return r == ARCHIVE_EOF ? n : -1;
}

static const struct got *find(const struct got *g, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

/* ---- tests ------------------------------------------------------------- */

static void test_zipcraft__crc(void)
{
	static unsigned char zeros[100003];
	static const uint64_t ns[] = { 0, 1, 2, 7, 8, 255, 1000, 100003 };

	ASSERT_EQ(zc_crc32(0, "123456789", 9), 0xcbf43926u);
	ASSERT_EQ(zc_crc32(zc_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(ns); i++) {
		uint32_t seed = zc_crc32(0, "seed", 4);

		ASSERT_EQ(zc_crc32_zeros(seed, ns[i]),
		          zc_crc32(seed, zeros, (size_t)ns[i]));
		ASSERT_EQ(zc_crc32_zeros(0, ns[i]),
		          zc_crc32(0, zeros, (size_t)ns[i]));
	}
}

/* A valid archive of every plain kind reads back exactly. */
static void test_zipcraft__valid_roundtrip(void)
{
	static unsigned char bin[256 * 4 + 2000];
	char zip[PATH_MAX], out[8192];
	const char *md = "---\nname: a\ndescription: Does a thing. Use when "
	                 "testing.\n---\nBody.\n";
	struct got g[16];
	const struct got *x;
	struct zc *zc = zc_new();
	struct zc_entry e;
	int n;

	fresh("valid");
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = i < 1024 ? (unsigned char)i : (i < 1500 ? 'z' : 0);
	zc_add_dir(zc, "a");
	zc_add_file(zc, "a/SKILL.md", md);
	zc_add_deflated(zc, "a/bin.dat", bin, sizeof(bin));
	zc_add_deflated(zc, "a/empty.txt", "", 0);
	zc_add_deflated(zc, "a/text.md", md, strlen(md));
	zc_add_bytes(zc, "a/run.sh", "#!/bin/sh\n", 10, 0755);
	zc_add_symlink(zc, "a/link", "SKILL.md");
	memset(&e, 0, sizeof(e));
	e.name = "a/desc.txt";
	e.data = "described";
	e.len = 9;
	e.method = ZC_DEFLATE;
	e.flags = ZC_FLAG_DESCRIPTOR;
	e.mode = 0100644;
	zc_add(zc, &e);
	path_in(zip, sizeof(zip), "valid.zip");
	ASSERT_OK(zc_write(zc, zip));
	zc_free(zc);

	n = ar_read(zip, g, 16);
	ASSERT_EQ(n, 8);
	ASSERT((x = find(g, n, "a/")) && x->type == AE_IFDIR);
	ASSERT((x = find(g, n, "a/SKILL.md")) && x->type == AE_IFREG);
	ASSERT_EQ(x->size, (int64_t)strlen(md));
	ASSERT_EQ(x->crc, zc_crc32(0, md, strlen(md)));
	ASSERT_EQ(x->perm, 0644);
	ASSERT((x = find(g, n, "a/bin.dat")) && !x->data_rc);
	ASSERT_EQ(x->size, (int64_t)sizeof(bin));
	ASSERT_EQ(x->crc, zc_crc32(0, bin, sizeof(bin)));
	ASSERT((x = find(g, n, "a/empty.txt")) && !x->data_rc);
	ASSERT_EQ(x->size, 0);
	ASSERT((x = find(g, n, "a/text.md")) && !x->data_rc);
	ASSERT_EQ(x->crc, zc_crc32(0, md, strlen(md)));
	ASSERT((x = find(g, n, "a/run.sh")) && x->perm == 0755);
	ASSERT((x = find(g, n, "a/link")) && x->type == AE_IFLNK);
	ASSERT_STR(x->link, "SKILL.md");
	ASSERT((x = find(g, n, "a/desc.txt")) && !x->data_rc);
	ASSERT_EQ(x->size, 9);

	if (have_unzip()) {
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "unzip -t '%s'", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		ASSERT_CONTAINS(out, "No errors detected");
		snprintf(cmd, sizeof(cmd), "unzip -l '%s'", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		ASSERT_CONTAINS(out, "a/SKILL.md");
		ASSERT_CONTAINS(out, "a/desc.txt");
		ASSERT_CONTAINS(out, "8 files");
		snprintf(cmd, sizeof(cmd), "unzip -p '%s' a/text.md", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		ASSERT_STR(out, md);
	}
}

/* The zero bomb inflates to exactly its size, at more than 1000:1. */
static void test_zipcraft__deflate_bomb(void)
{
	const uint64_t size = 64u << 20;
	char zip[PATH_MAX], out[256];
	struct zc *zc = zc_new();
	struct zc_entry e;
	struct stat st;
	size_t clen;
	unsigned char *c = zc_deflate_zeros(size, &clen);

	fresh("bomb");
	ASSERT(c);
	ASSERT(clen * 1000 < size);
	free(c);
	memset(&e, 0, sizeof(e));
	e.name = "b/zeros.bin";
	e.method = ZC_DEFLATE;
	e.zeros = size;
	e.mode = 0100644;
	zc_add(zc, &e);
	/* Small cases of the same code: empty, 1, 258 + 1 and a remainder. */
	e.name = "b/z0";
	e.zeros = 0;
	e.raw = true; /* the dynamic block for 0 zeros, given as bytes */
	{
		size_t l;
		unsigned char *p = zc_deflate_zeros(0, &l);

		e.data = p;
		e.len = l;
		e.set_crc = true;
		e.crc = 0;
		e.set_local_sizes = e.set_cd_sizes = true;
		e.local_csize = e.cd_csize = (uint32_t)l;
		e.local_usize = e.cd_usize = 0;
		zc_add(zc, &e);
		free(p);
	}
	e.set_crc = e.set_local_sizes = e.set_cd_sizes = false;
	e.raw = false;
	e.data = NULL;
	e.len = 0;
	e.name = "b/z1";
	e.zeros = 1;
	zc_add(zc, &e);
	e.name = "b/z259";
	e.zeros = 259;
	zc_add(zc, &e);
	e.name = "b/z1000";
	e.zeros = 1000;
	zc_add(zc, &e);
	path_in(zip, sizeof(zip), "bomb.zip");
	ASSERT_OK(zc_write(zc, zip));
	zc_free(zc);
	ASSERT_OK(stat(zip, &st));
	ASSERT((uint64_t)st.st_size * 1000 < size);

	{
		struct got all[8];
		int n = ar_read(zip, all, 8);

		ASSERT_EQ(n, 5);
		ASSERT(find(all, n, "b/zeros.bin"));
		ASSERT_EQ(find(all, n, "b/zeros.bin")->data_rc, 0);
		ASSERT_EQ(find(all, n, "b/zeros.bin")->size, (int64_t)size);
		ASSERT_EQ(find(all, n, "b/z0")->size, 0);
		ASSERT_EQ(find(all, n, "b/z1")->size, 1);
		ASSERT_EQ(find(all, n, "b/z259")->size, 259);
		ASSERT_EQ(find(all, n, "b/z259")->data_rc, 0);
		ASSERT_EQ(find(all, n, "b/z1000")->size, 1000);
		ASSERT_EQ(find(all, n, "b/z1000")->data_rc, 0);
	}
	if (have_unzip()) {
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "unzip -p '%s' b/zeros.bin | wc -c",
		         zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		ASSERT_EQ(strtoll(out, NULL, 10), (long long)size);
		snprintf(cmd, sizeof(cmd), "unzip -t '%s'", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
	}
}

/* Each lie lands where the format keeps the field. */
static void test_zipcraft__lies_in_bytes(void)
{
	static const char pre[] = "#!/bin/sh\nexit 0\n";
	struct zc *zc = zc_new();
	struct zc_entry e;
	unsigned char *p, *eocd, *cd;
	size_t n;

	memset(&e, 0, sizeof(e));
	e.name = "cd/name";
	e.local_name = "local/name";
	e.data = "hello";
	e.len = 5;
	e.flags = ZC_FLAG_ENCRYPTED | ZC_FLAG_UTF8;
	e.method = 99;
	e.mode = ZC_S_IFIFO | 0644;
	e.dos_date = (45u << 9) | (13u << 5) | 31u; /* month 13 */
	e.set_crc = true;
	e.crc = 0xdeadbeefu;
	e.set_local_sizes = true;
	e.local_csize = 1;
	e.local_usize = 1024;
	e.set_cd_sizes = true;
	e.cd_csize = 0xffffffffu;
	e.cd_usize = 0xffffffffu;
	zc_add(zc, &e);
	memset(&e, 0, sizeof(e));
	e.name = "second";
	e.share_local = 1;
	zc_add(zc, &e);
	zc->prepend = pre;
	zc->prepend_len = strlen(pre);
	zc->trailing = "GARBAGE";
	zc->trailing_len = 7;
	zc->comment = "hi";
	zc->comment_len = 2;
	zc->dup_eocd = true;
	ASSERT_OK(zc_build(zc, &p, &n));

	ASSERT(!memcmp(p, pre, strlen(pre)));
	ASSERT_EQ(rd32(p + strlen(pre)), 0x04034b50u);
	{
		const unsigned char *lh = p + strlen(pre);

		ASSERT_EQ(rd16(lh + 6), ZC_FLAG_ENCRYPTED | ZC_FLAG_UTF8);
		ASSERT_EQ(rd16(lh + 8), 99);
		ASSERT_EQ(rd16(lh + 12), (45u << 9) | (13u << 5) | 31u);
		ASSERT_EQ(rd32(lh + 14), 0xdeadbeefu);
		ASSERT_EQ(rd32(lh + 18), 1);
		ASSERT_EQ(rd32(lh + 22), 1024);
		ASSERT_EQ(rd16(lh + 26), 10);
		ASSERT(!memcmp(lh + 30, "local/name", 10));
		ASSERT(!memcmp(lh + 40, "hello", 5));
		cd = (unsigned char *)lh + 45;
	}
	/* Two central records, the second pointing at the first header. */
	ASSERT_EQ(rd32(cd), 0x02014b50u);
	ASSERT_EQ(rd16(cd + 4) >> 8, 3);
	ASSERT_EQ(rd32(cd + 16), 0xdeadbeefu);
	ASSERT_EQ(rd32(cd + 20), 0xffffffffu);
	ASSERT_EQ(rd32(cd + 38) >> 16, ZC_S_IFIFO | 0644);
	ASSERT_EQ(rd32(cd + 42), strlen(pre)); /* adjusted offset */
	ASSERT(!memcmp(cd + 46, "cd/name", 7));
	cd += 46 + 7;
	ASSERT_EQ(rd32(cd), 0x02014b50u);
	ASSERT_EQ(rd32(cd + 42), strlen(pre));
	ASSERT_EQ(rd16(cd + 4), 20); /* no mode: MS-DOS */
	/* The end record, its comment holding a second end record that
	 * lists one entry, then the trailing bytes. */
	ASSERT(!memcmp(p + n - 7, "GARBAGE", 7));
	eocd = p + n - 7 - 22 - 2 - 22;
	ASSERT_EQ(rd32(eocd), 0x06054b50u);
	ASSERT_EQ(rd16(eocd + 10), 2);
	ASSERT_EQ(rd16(eocd + 20), 24);
	ASSERT(!memcmp(eocd + 22, "hi", 2));
	ASSERT_EQ(rd32(eocd + 24), 0x06054b50u);
	ASSERT_EQ(rd16(eocd + 24 + 10), 1);
	ASSERT_EQ(rd32(eocd + 24 + 12), 53);
	ASSERT_EQ(rd16(eocd + 24 + 20), 0);
	free(p);

	/* zip64 markers and a claimed count. */
	zc->prepend = NULL;
	zc->trailing = NULL;
	zc->comment = NULL;
	zc->dup_eocd = false;
	zc->zip64 = true;
	zc->zip64_count = (uint64_t)1 << 40;
	ASSERT_OK(zc_build(zc, &p, &n));
	eocd = p + n - 22;
	ASSERT_EQ(rd32(eocd), 0x06054b50u);
	ASSERT_EQ(rd16(eocd + 10), 0xffff);
	ASSERT_EQ(rd32(eocd + 16), 0xffffffffu);
	ASSERT_EQ(rd32(eocd - 20), 0x07064b50u);
	ASSERT_EQ(rd32(eocd - 20 - 56), 0x06064b50u);
	ASSERT_EQ(rd32(eocd - 20 - 56 + 32 + 4), 1 << 8); /* count high */
	free(p);
	zc->zip64 = false;
	zc->set_count = true;
	zc->count = 0xffff;
	zc->disk = 3;
	ASSERT_OK(zc_build(zc, &p, &n));
	ASSERT_EQ(rd16(p + n - 22 + 4), 3);
	ASSERT_EQ(rd16(p + n - 22 + 8), 0xffff);
	free(p);
	zc_free(zc);

	/* Names of any bytes, up to the 65535 the field holds. */
	zc = zc_new();
	{
		char *big = malloc(65536);

		ASSERT(big);
		memset(big, 'a', 65536);
		memset(&e, 0, sizeof(e));
		e.name = big;
		e.name_len = 65535;
		zc_add(zc, &e);
		ASSERT_OK(zc_build(zc, &p, &n));
		ASSERT_EQ(rd16(p + 26), 65535);
		free(p);
		e.name_len = 65536;
		zc_add(zc, &e);
		ASSERT_EQ(zc_build(zc, &p, &n), -1);
		ASSERT_EQ(errno, EINVAL);
		free(big);
	}
	zc_free(zc);
	zc = zc_new();
	memset(&e, 0, sizeof(e));
	e.name = "a.md\0../../x";
	e.name_len = 12;
	zc_add(zc, &e);
	ASSERT_OK(zc_build(zc, &p, &n));
	ASSERT_EQ(rd16(p + 26), 12);
	ASSERT(!memcmp(p + 30, "a.md\0../../x", 12));
	free(p);
	zc_free(zc);
}

/* libarchive sees the Unix types, the sharing and the bad CRC; unzip
 * reports the Unicode Path field and the bad CRC. */
static void test_zipcraft__readers_see_lies(void)
{
	char zip[PATH_MAX], out[8192], cmd[PATH_MAX + 64];
	unsigned char ex[256];
	struct got g[16];
	const struct got *x;
	struct zc *zc = zc_new();
	struct zc_entry e;
	int n;

	fresh("lies");
	zc_add_bytes(zc, "s/fifo", "", 0, ZC_S_IFIFO | 0644);
	zc_add_bytes(zc, "s/chr", "", 0, ZC_S_IFCHR | 0644);
	zc_add_bytes(zc, "s/suid", "x", 1, 04777);
	zc_add_file(zc, "s/shared-a", "same bytes");
	memset(&e, 0, sizeof(e));
	e.name = "s/shared-b";
	e.share_local = 4;
	e.mode = 0100644;
	zc_add(zc, &e);
	memset(&e, 0, sizeof(e));
	e.name = "s/badcrc";
	e.data = "payload";
	e.len = 7;
	e.mode = 0100644;
	e.set_crc = true;
	e.crc = 0x12345678u;
	zc_add(zc, &e);
	memset(&e, 0, sizeof(e));
	e.name = "s/plain.txt";
	e.data = "u";
	e.len = 1;
	e.mode = 0100644;
	e.extra = ex; /* bit 11 clear: unzip goes by the field then */
	e.extra_len = zc_extra_unicode_path(ex, sizeof(ex), "s/plain.txt", 11,
	                                    "s/unicode-other.txt");
	ASSERT(e.extra_len);
	zc_add(zc, &e);
	memset(&e, 0, sizeof(e));
	e.name = "s/secret";
	e.data = "xxxxxxxxxxxx";
	e.len = 12;
	e.flags = ZC_FLAG_ENCRYPTED;
	e.mode = 0100644;
	zc_add(zc, &e);
	path_in(zip, sizeof(zip), "lies.zip");
	ASSERT_OK(zc_write(zc, zip));
	zc_free(zc);

	/* libarchive drops a central record whose local header another one
	 * already used: it sees 7 entries. */
	n = ar_read(zip, g, 16);
	ASSERT_EQ(n, 7);
	/* libarchive turns a zip FIFO into a regular file (zipinfo below
	 * shows the bytes say FIFO): a reader must check the mode itself. */
	ASSERT((x = find(g, n, "s/fifo")) &&
	       (x->type == AE_IFIFO || x->type == AE_IFREG));
	ASSERT((x = find(g, n, "s/chr")) && x->type == AE_IFCHR);
	ASSERT((x = find(g, n, "s/suid")) && x->perm == 04777);
	ASSERT((x = find(g, n, "s/shared-a")) && !x->data_rc);
	ASSERT_EQ(x->crc, zc_crc32(0, "same bytes", 10));
	ASSERT(!find(g, n, "s/shared-b"));
	ASSERT((x = find(g, n, "s/badcrc")) && x->data_rc != 0);
	/* libarchive honours the Unicode Path field over the header name. */
	ASSERT(find(g, n, "s/unicode-other.txt"));
	ASSERT((x = find(g, n, "s/secret")) && x->encrypted);

	if (have_unzip()) {
		snprintf(cmd, sizeof(cmd), "zipinfo '%s'", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		ASSERT_CONTAINS(out, "prw-r--r--  3.0 unx        0 b- stor");
		ASSERT_CONTAINS(out, "crw-r--r--");
		ASSERT_CONTAINS(out, "-rwsrwxrwx");
		ASSERT_CONTAINS(out, " B- stor 80-Jan-01 00:00 s/secret");
		snprintf(cmd, sizeof(cmd), "unzip -l '%s'", zip);
		run(cmd, out, sizeof(out));
		ASSERT_CONTAINS(out, "s/unicode-other.txt");
		ASSERT_CONTAINS(out, "s/shared-b");
		ASSERT_CONTAINS(out, "8 files");
		/* unzip reads the shared header under the other name. */
		snprintf(cmd, sizeof(cmd), "unzip -p '%s' s/shared-b", zip);
		run(cmd, out, sizeof(out));
		ASSERT_CONTAINS(out, "same bytes");
		snprintf(cmd, sizeof(cmd), "unzip -P x -t '%s' s/badcrc", zip);
		ASSERT(run(cmd, out, sizeof(out)) != 0);
		ASSERT_CONTAINS(out, "bad CRC");
	}
}

/* Polyglot prefix (offsets adjusted), still a readable zip. */
static void test_zipcraft__prepend(void)
{
	static const char pre[] = "#!/bin/sh\necho polyglot\nexit 0\n";
	char zip[PATH_MAX], out[4096], cmd[PATH_MAX + 64];
	struct got g[4];
	struct zc *zc = zc_new();

	fresh("prepend");
	zc_add_file(zc, "p/SKILL.md", "text\n");
	zc->prepend = pre;
	zc->prepend_len = strlen(pre);
	path_in(zip, sizeof(zip), "poly.zip");
	ASSERT_OK(zc_write(zc, zip));
	zc_free(zc);
	ASSERT_EQ(ar_read(zip, g, 4), 1);
	ASSERT_STR(g[0].name, "p/SKILL.md");
	ASSERT_EQ(g[0].size, 5);
	if (have_unzip()) {
		snprintf(cmd, sizeof(cmd), "unzip -t '%s'", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		snprintf(cmd, sizeof(cmd), "sh '%s'", zip);
		ASSERT_EQ(run(cmd, out, sizeof(out)), 0);
		ASSERT_CONTAINS(out, "polyglot");
	}
}

/* The Fifield overlap: every entry inflates cleanly, to the later
 * headers plus the kernel, although the data of all of them overlaps. */
static void test_zipcraft__overlap_bomb(void)
{
	const unsigned int files = 20;
	const uint64_t kernel = 1u << 20;
	char zip[PATH_MAX], out[8192], cmd[PATH_MAX + 64];
	struct got g[32];
	struct stat st;
	int64_t total = 0;
	int n;

	fresh("overlap");
	path_in(zip, sizeof(zip), "zbsm.zip");
	ASSERT_OK(zc_write_overlap_bomb(zip, files, kernel, "o/", NULL));
	ASSERT_OK(stat(zip, &st));
	n = ar_read(zip, g, 32);
	ASSERT_EQ(n, (int)files);
	for (int i = 0; i < n; i++) {
		ASSERT_EQ(g[i].data_rc, 0);
		ASSERT(g[i].size >= (int64_t)kernel);
		total += g[i].size;
	}
	ASSERT_STR(g[0].name, "o/0");
	/* The first quotes the 19 later headers (30 + 3 or 4 bytes each). */
	ASSERT_EQ(g[0].size, (int64_t)kernel + 9 * 33 + 10 * 34);
	ASSERT_EQ(g[files - 1].size, (int64_t)kernel);
	ASSERT(total > (int64_t)st.st_size * 5000);
	/* With ordinary entries first. */
	{
		struct zc *head = zc_new();
		const struct got *x;

		zc_add_file(head, "s/SKILL.md", "head text\n");
		zc_add_deflated(head, "s/more.md", "more more more more", 19);
		path_in(zip, sizeof(zip), "zbsm-head.zip");
		ASSERT_OK(zc_write_overlap_bomb(zip, 3, 1000, "s/o", head));
		zc_free(head);
		n = ar_read(zip, g, 32);
		ASSERT_EQ(n, 5);
		ASSERT((x = find(g, n, "s/SKILL.md")) && !x->data_rc);
		ASSERT_EQ(x->crc, zc_crc32(0, "head text\n", 10));
		ASSERT((x = find(g, n, "s/more.md")) && !x->data_rc);
		ASSERT((x = find(g, n, "s/o2")) && !x->data_rc);
		ASSERT_EQ(x->size, 1000);
		ASSERT((x = find(g, n, "s/o0")) && !x->data_rc);
		ASSERT_EQ(x->size, 1000 + 2 * 34); /* 30 + strlen("s/oN") */
		path_in(zip, sizeof(zip), "zbsm.zip");
	}
	if (have_unzip()) {
		/* Patched Info-ZIP (CVE-2019-13232) refuses the overlap. */
		snprintf(cmd, sizeof(cmd), "unzip -t '%s'", zip);
		if (run(cmd, out, sizeof(out)) != 0)
			ASSERT_CONTAINS(out, "overlap");
		else
			printf("note: this unzip does not detect overlap\n");
	}
}

/* 10,001 tiny entries build fast and list fully. */
static void test_zipcraft__many_entries(void)
{
	char zip[PATH_MAX], name[64];
	struct zc *zc = zc_new();
	struct timespec a, b;
	struct got g[1];
	long ms;

	fresh("many");
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 10001; i++) {
		snprintf(name, sizeof(name), "m/f%05d", i);
		zc_add_file(zc, name, "");
	}
	path_in(zip, sizeof(zip), "many.zip");
	ASSERT_OK(zc_write(zc, zip));
	zc_free(zc);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (long)(b.tv_sec - a.tv_sec) * 1000 +
	     (b.tv_nsec - a.tv_nsec) / 1000000;
	ASSERT(ms < 2000);
	ASSERT_EQ(ar_read(zip, g, 1), 10001);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_zipcraft__crc)
	TEST(test_zipcraft__valid_roundtrip)
	TEST(test_zipcraft__deflate_bomb)
	TEST(test_zipcraft__lies_in_bytes)
	TEST(test_zipcraft__readers_see_lies)
	TEST(test_zipcraft__prepend)
	TEST(test_zipcraft__overlap_bomb)
	TEST(test_zipcraft__many_entries))
/* clang-format on */
