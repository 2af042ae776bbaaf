/* SPDX-License-Identifier: MIT */
/*
 * fuzz_index_cache.c - the on-disk index cache of a skills root
 * (${XDG_CACHE_HOME}/skit/index-<hash>.bin), read at every scan.
 *
 * A root of three skills (valid, with a warning, skipped) is scanned
 * once without the cache: that listing is the truth. Each input then
 * becomes the cache file before a scan with the cache on. Byte 0 picks
 * how: even, the rest of the input is the whole file; odd, the rest
 * edits the real cache file (pairs of offset and XOR byte) and the
 * checksum is made right again, so the checks past it are reached.
 *
 * Property: a corrupted cache is ignored, never trusted. A file that
 * fails its checksum gives exactly the listing of a scan without cache;
 * one that passes (only an edit can) may not add or drop a folder, and
 * what it gives are valid one-line UTF-8 strings.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/registry/registry_cache.h"
#include "lib/registry/registry_int.h"
#include "skit/registry.h"
#include "util/buf.h"
#include "util/utf8.h"
#include "fuzz.h"

static char cache_file[4096];
static uint8_t *real;
static size_t real_len;
static char *truth;
static size_t truth_count;

static int listing(struct skitx_buf *out, size_t *count, bool cache)
{
	skit_registry *reg = NULL;
	int rc;

	if (skit_registry_new(&reg, NULL))
		return -1;
	skit__registry_set_no_cache(reg, !cache);
	skit__registry_set_threads(reg, 1);
	rc = skit_registry_add_root(reg, "user", fuzz_path("root"), NULL);
	if (!rc)
		rc = skit_registry_scan(reg, NULL);
	*count = rc ? 0 : skit_registry_all_count(reg);
	for (size_t i = 0; !rc && i < *count; i++) {
		const skit_entry *e = skit_registry_all_entry(reg, i);

		rc = skitx_buf_printf(out, "%s|%s|%s|%s|%s|%d|%u|%zu|%s\n",
		                      e->name, e->description,
		                      e->when_to_use ? e->when_to_use : "-",
		                      e->argument_hint ? e->argument_hint : "-",
		                      e->dir, (int)e->state, e->flags,
		                      e->warnings, e->reason ? e->reason : "-");
	}
	skit_registry_free(reg);
	return rc;
}

/* A skill written an hour ago: files changed in the last seconds are
 * "racy" and never cached. */
static void put_skill(const char *name, const char *text)
{
	struct timespec t[2];
	char rel[256];

	snprintf(rel, sizeof(rel), "root/%s/SKILL.md", name);
	fuzz_write(fuzz_path(rel), text, strlen(text));
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 3600;
	t[1] = t[0];
	if (utimensat(AT_FDCWD, fuzz_path(rel), t, 0))
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct skitx_buf b = SKITX_BUF_INIT, tmp = SKITX_BUF_INIT;
	struct dirent *de;
	size_t n;
	DIR *d;
	FILE *f;

	(void)argc;
	(void)argv;
	setenv("XDG_CACHE_HOME", fuzz_path("cache"), 1);
	unsetenv("SKIT_NO_CACHE");
	put_skill("alpha", "---\nname: alpha\ndescription: First skill. Use "
	                   "when testing.\nwhen_to_use: always\n---\nBody.\n");
	put_skill("beta", "---\nname: beta\ndescription: Second.\nfoo: "
	                  "bar\nargument-hint: \"[file]\"\n---\nBody.\n");
	put_skill("gamma", "---\nname: gamma\n---\nNo description.\n");
	if (listing(&b, &truth_count, false))
		abort();
	truth = skitx_buf_detach(&b, NULL);
	/* A scan with the cache on writes it. */
	if (listing(&tmp, &n, true))
		abort();
	skitx_buf_release(&tmp);
	d = opendir(fuzz_path("cache/skit"));
	if (!d)
		abort();
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "index-", 6))
			snprintf(cache_file, sizeof(cache_file), "%s/%s",
			         fuzz_path("cache/skit"), de->d_name);
	closedir(d);
	f = fopen(cache_file, "rb");
	if (!f)
		abort();
	real = malloc(1u << 20);
	real_len = fread(real, 1, 1u << 20, f);
	fclose(f);
	FUZZ_CHECK(real_len > SKIT__CACHE_HEADER_SIZE + 200,
	           "the cache holds %zu bytes", real_len);
	return 0;
}

static bool checksum_ok(const uint8_t *p, size_t n)
{
	uint64_t len, sum;

	if (n < SKIT__CACHE_HEADER_SIZE)
		return false;
	memcpy(&len, p + 16, 8);
	memcpy(&sum, p + SKIT__CACHE_CHECKSUM_AT, 8);
	return len == n - SKIT__CACHE_HEADER_SIZE &&
	       skit__cache_checksum(p + SKIT__CACHE_HEADER_SIZE, (size_t)len) ==
	               sum;
}

static void valid_text(const char *s)
{
	FUZZ_CHECK(!skitx_utf8_check(s, strlen(s), NULL), "bad UTF-8");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skitx_buf got = SKITX_BUF_INIT;
	uint8_t *file;
	size_t n, count = 0;

	if (size < 1 || size > 65536)
		return 0;
	if (data[0] & 1) {
		file = malloc(real_len);
		if (!file)
			abort();
		memcpy(file, real, real_len);
		n = real_len;
		for (size_t i = 1; i + 2 < size; i += 3) {
			size_t at = SKIT__CACHE_HEADER_SIZE +
			            (((size_t)data[i] << 8) | data[i + 1]);

			if (at < n)
				file[at] ^= data[i + 2];
		}
		if (n >= SKIT__CACHE_HEADER_SIZE) {
			uint64_t sum = skit__cache_checksum(
			        file + SKIT__CACHE_HEADER_SIZE,
			        n - SKIT__CACHE_HEADER_SIZE);

			memcpy(file + SKIT__CACHE_CHECKSUM_AT, &sum, 8);
		}
	} else {
		n = size - 1;
		file = malloc(n ? n : 1);
		if (!file)
			abort();
		memcpy(file, data + 1, n);
	}
	fuzz_write(cache_file, file, n);
	if (listing(&got, &count, true) == 0) {
		if (!checksum_ok(file, n)) {
			FUZZ_CHECK(!strcmp(skitx_buf_cstr(&got), truth),
			           "a corrupted cache was used:\n%s\nnot\n%s",
			           skitx_buf_cstr(&got), truth);
		} else {
			FUZZ_CHECK(count == truth_count,
			           "%zu entries from the cache, %zu on disk",
			           count, truth_count);
			valid_text(skitx_buf_cstr(&got));
		}
	}
	free(file);
	skitx_buf_release(&got);
	return 0;
}
