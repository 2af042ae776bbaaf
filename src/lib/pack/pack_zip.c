/* SPDX-License-Identifier: MIT */
/*
 * pack_zip.c - zip packs in and out.
 *
 * Reading happens in two passes over the one file descriptor:
 *
 *  1. A structural pre-check of the zip's own records, which libarchive
 *     does not make: exactly one end record, ending the file; the central
 *     directory right before it; nothing before the first entry (no
 *     polyglots); every local header where the central directory says,
 *     with the same name, and no two entries' bytes overlapping (the
 *     overlap bombs of HOSTILE A8); no zip64, no encryption, no method
 *     but stored and deflate; an entry count checked against the file's
 *     size before anything is allocated from it. Every name passes the
 *     name rules and the collision set here, and the layout is picked.
 *  2. libarchive (seekable zip reader) inflates the entries in offset
 *     order; each must carry the name the central directory gave it. The
 *     bytes actually inflated are counted against the caps, hashed, and
 *     written into the staging folder; libarchive checks each CRC.
 *
 * Writing uses libarchive's zip writer with fixed times, owners and
 * modes, so that a pack is reproducible.
 */
#define _GNU_SOURCE /* sync_file_range */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "util/alloc.h"
#include "util/fs.h"

#define EOCD_SIG       0x06054b50u
#define CDH_SIG        0x02014b50u
#define LFH_SIG        0x04034b50u
#define EOCD64_LOC_SIG 0x07064b50u

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* One central-directory entry. */
struct cd_entry {
	char *name;         /* as stored; a folder's may end in '/' */
	size_t len, rawlen; /* len leaves that '/' out */
	bool dir;
	uint16_t method, flags;
	uint32_t crc;
	uint64_t csize, usize, lho, end;
};

struct zscan {
	struct cd_entry *e;
	size_t n;
	uint64_t cd_off;
};

static void zscan_release(struct zscan *z)
{
	for (size_t i = 0; i < z->n; i++)
		skitx_free(z->e[i].name);
	skitx_free(z->e);
	z->e = NULL;
	z->n = 0;
}

static int bad(skit_error *err, const char *what, const char *why)
{
	return skit__error_set(err, SKIT_EINVALID, 0, "%s: %s", what, why);
}

/* The extra fields of one header: well-formed, no zip64 record, and an
 * Info-ZIP Unicode Path (0x7075) only when it names the same bytes. */
static int check_extra(const unsigned char *x, size_t xlen, const char *name,
                       size_t nlen, const char *what, skit_error *err)
{
	char shown[160];

	while (xlen) {
		uint16_t id, sz;

		if (xlen < 4)
			return bad(err, what, "malformed extra field");
		id = le16(x);
		sz = le16(x + 2);
		if (sz > xlen - 4)
			return bad(err, what, "malformed extra field");
		if (id == 0x0001)
			return bad(err, what,
			           "zip64 archives are not supported");
		if (id == 0x7075 && (sz < 5 || (size_t)(sz - 5) != nlen ||
		                     memcmp(x + 9, name, nlen) != 0))
			return skit__error_set(
			        err, SKIT_EUNSAFE, 0,
			        "%s: entry \"%s\": its Unicode path field "
			        "names another file",
			        what,
			        skit__pack_name_show(name, nlen, shown,
			                             sizeof(shown)));
		x += 4 + sz;
		xlen -= 4 + (size_t)sz;
	}
	return 0;
}

static int cmp_lho(const void *a, const void *b)
{
	const struct cd_entry *x = a, *y = b;

	return x->lho < y->lho ? -1 : x->lho > y->lho;
}

/* Pass 1: the records, the names, the ranges. */
static int prescan(int fd, const char *what, const struct skit__limits *lim,
                   struct zscan *z, skit_error *err)
{
	unsigned char tail[65557], *cd = NULL, *p, lfh[30];
	struct skit__nameset *names = NULL;
	struct stat st;
	uint64_t size, eocd = 0, cd_size, cd_off;
	size_t tlen, count, found = 0;
	int rc = 0;

	if (fstat(fd, &st) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s: %s", what,
		                       strerror(errno));
	size = (uint64_t)st.st_size;
	if (size < 22)
		return bad(err, what, "not a zip archive (too short)");
	tlen = size < sizeof(tail) ? (size_t)size : sizeof(tail);
	if (read_at(fd, tail, tlen, size - tlen) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s: cannot read",
		                       what);
	/* The end record is the last one whose comment ends the file. */
	for (size_t i = tlen - 22 + 1; i-- > 0;) {
		if (le32(tail + i) != EOCD_SIG)
			continue;
		if (i + 22 + le16(tail + i + 20) == tlen) {
			eocd = size - tlen + i;
			found = 1;
			break;
		}
	}
	if (!found) {
		for (size_t i = 0; i + 4 <= tlen; i++)
			if (le32(tail + i) == EOCD_SIG)
				return bad(err, what,
				           "bytes after the end of the zip "
				           "archive");
		return bad(err, what, "not a zip archive (no end record)");
	}
	p = tail + (eocd - (size - tlen));
	for (size_t i = 22; i + 4 <= 22 + (size_t)le16(p + 20); i++)
		if (le32(p + i) == EOCD_SIG)
			return bad(err, what, "more than one zip end record");
	if (le16(p + 4) || le16(p + 6) || le16(p + 8) != le16(p + 10))
		return bad(err, what,
		           "split or spanned zip archives are not "
		           "supported");
	count = le16(p + 10);
	cd_size = le32(p + 12);
	cd_off = le32(p + 16);
	if (count == 0xffff || cd_size == 0xffffffffu ||
	    cd_off == 0xffffffffu ||
	    (eocd >= 20 && read_at(fd, lfh, 4, eocd - 20) == 0 &&
	     le32(lfh) == EOCD64_LOC_SIG))
		return bad(err, what, "zip64 archives are not supported");
	if (count > lim->entries)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "%s: %zu entries; the limit is %u", what,
		                       count, (unsigned)lim->entries);
	if (cd_off + cd_size != eocd || count * 46 > cd_size)
		return bad(err, what,
		           "the central directory is not where "
		           "the end record says");
	if (!count)
		return bad(err, what, "the archive is empty");
	z->cd_off = cd_off;
	cd = skitx_malloc(cd_size ? (size_t)cd_size : 1);
	z->e = skitx_calloc(count, sizeof(*z->e));
	if (!cd || !z->e || skit__nameset_new(&names) < 0) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (read_at(fd, cd, (size_t)cd_size, cd_off) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: cannot read", what);
		goto out;
	}
	p = cd;
	for (size_t i = 0; i < count; i++) {
		struct cd_entry *e = &z->e[i];
		size_t left = (size_t)(cd + cd_size - p), nlen, xlen, clen;
		uint32_t attr;
		unsigned int host;

		if (left < 46 || le32(p) != CDH_SIG) {
			rc = bad(err, what, "malformed central directory");
			goto out;
		}
		nlen = le16(p + 28);
		xlen = le16(p + 30);
		clen = le16(p + 32);
		if (46 + nlen + xlen + clen > left) {
			rc = bad(err, what, "malformed central directory");
			goto out;
		}
		host = p[5];
		e->flags = le16(p + 8);
		e->method = le16(p + 10);
		e->crc = le32(p + 16);
		e->csize = le32(p + 20);
		e->usize = le32(p + 24);
		e->lho = le32(p + 42);
		attr = le32(p + 38);
		e->len = nlen;
		e->name = skitx_strndup((const char *)p + 46, nlen);
		z->n = i + 1;
		if (!e->name) {
			rc = skit__error_oom(err);
			goto out;
		}
		if (nlen && e->name[nlen - 1] == '/') {
			e->dir = true;
			e->len--;
		}
		e->rawlen = nlen;
		rc = skit__pack_name_check(e->name, e->len, what, err);
		if (rc < 0)
			goto out;
		if (e->flags & 0x41) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: entry \"%s\" is encrypted",
			                     what, e->name);
			goto out;
		}
		if (e->method != 0 && e->method != 8) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: entry \"%s\": compression "
			                     "method %u is not supported (only "
			                     "stored and deflate)",
			                     what, e->name, e->method);
			goto out;
		}
		if (e->csize == 0xffffffffu || e->usize == 0xffffffffu ||
		    e->lho == 0xffffffffu) {
			rc = bad(err, what, "zip64 archives are not supported");
			goto out;
		}
		if (host == 3) {
			unsigned int type = (attr >> 16) & S_IFMT;

			if (type && type != S_IFREG && type != S_IFDIR) {
				rc = skit__error_set(
				        err, SKIT_EUNSAFE, 0,
				        "%s: entry \"%s\" is %s; only regular "
				        "files and folders are installed",
				        what, e->name,
				        type == S_IFLNK ? "a symbolic link"
				                        : "a special file");
				goto out;
			}
			if (type == S_IFDIR)
				e->dir = true;
		}
		if (e->dir && e->usize) {
			rc = bad(err, what, "a folder entry with data");
			goto out;
		}
		rc = check_extra(p + 46 + nlen, xlen, e->name, nlen, what, err);
		if (rc < 0)
			goto out;
		rc = skit__nameset_add(names, e->name, e->len, e->dir, err);
		if (rc < 0)
			goto out;
		p += 46 + nlen + xlen + clen;
	}
	if (p != cd + cd_size) {
		rc = bad(err, what, "malformed central directory");
		goto out;
	}
	/* The local headers: where they are said to be, alike, apart. */
	qsort(z->e, z->n, sizeof(*z->e), cmp_lho);
	skitx_free(cd);
	cd = skitx_malloc(2 * 65535 + 2);
	if (!cd) {
		rc = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < z->n; i++) {
		struct cd_entry *e = &z->e[i];
		unsigned char *x = cd;
		size_t nlen, xlen;

		if ((i == 0 && e->lho != 0) ||
		    (i && e->lho < z->e[i - 1].end)) {
			rc = bad(err, what,
			         i ? "entries overlap (a zip bomb?)"
			           : "bytes before the first entry");
			goto out;
		}
		if (e->lho + 30 > cd_off || read_at(fd, lfh, 30, e->lho) < 0 ||
		    le32(lfh) != LFH_SIG) {
			rc = bad(err, what, "a local header is missing");
			goto out;
		}
		nlen = le16(lfh + 26);
		xlen = le16(lfh + 28);
		if (e->lho + 30 + nlen + xlen > cd_off ||
		    read_at(fd, x, nlen + xlen, e->lho + 30) < 0) {
			rc = bad(err, what, "a local header is cut short");
			goto out;
		}
		if (nlen != e->rawlen || memcmp(x, e->name, nlen) ||
		    le16(lfh + 8) != e->method ||
		    ((le16(lfh + 6) ^ e->flags) & 0x41)) {
			rc = skit__error_set(
			        err, SKIT_EUNSAFE, 0,
			        "%s: entry \"%s\": the local header does not "
			        "match the central directory",
			        what, e->name);
			goto out;
		}
		rc = check_extra(x + nlen, xlen, e->name, nlen, what, err);
		if (rc < 0)
			goto out;
		e->end = e->lho + 30 + nlen + xlen + e->csize;
		if (e->flags & 0x08) {
			/* The data descriptor must agree with the central
			 * directory (its signature is optional). */
			unsigned char dd[16];
			size_t o;

			if (e->end + 12 > cd_off ||
			    read_at(fd, dd, e->end + 16 <= cd_off ? 16 : 12,
			            e->end) < 0) {
				rc = bad(err, what,
				         "a data descriptor is cut "
				         "short");
				goto out;
			}
			o = le32(dd) == 0x08074b50u && e->end + 16 <= cd_off
			            ? 4
			            : 0;
			if (le32(dd + o) != e->crc ||
			    le32(dd + o + 4) != e->csize ||
			    le32(dd + o + 8) != e->usize) {
				rc = skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: entry \"%s\": its data descriptor "
				        "does not match the central directory",
				        what, e->name);
				goto out;
			}
			e->end += 12 + o;
		}
		if (e->end > cd_off) {
			rc = bad(err, what,
			         "an entry runs past the central "
			         "directory");
			goto out;
		}
	}
out:
	skit__nameset_free(names);
	skitx_free(cd);
	return rc;
}

/* ---- pass 2 ---- */

/*
 * libarchive converts names between UTF-8 and the locale's charset; in
 * the C locale a non-ASCII name cannot be converted. These switch the
 * calling thread (only) to C.UTF-8 while an archive is open, so names
 * pass through as the UTF-8 bytes they are.
 */
struct utf8_scope {
	locale_t loc, prev;
};

static void utf8_enter(struct utf8_scope *u)
{
	u->loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	u->prev = u->loc ? uselocale(u->loc) : (locale_t)0;
}

static void utf8_leave(struct utf8_scope *u)
{
	if (!u->loc)
		return;
	uselocale(u->prev);
	freelocale(u->loc);
	u->loc = (locale_t)0;
}

static int arc_error(struct archive *a, const char *what, const char *name,
                     skit_error *err)
{
	const char *msg = archive_error_string(a);

	return skit__error_set(err, SKIT_EINVALID, 0, "%s: entry \"%s\": %s",
	                       what, name, msg ? msg : "cannot read");
}

struct sink {
	int fd;                 /* -1: hash and count only */
	const char *shown;      /* the file `fd` writes, for errors */
	struct skitx_buf *keep; /* or keep the bytes (manifest) */
	size_t keep_cap;
	EVP_MD_CTX *md;
	uint64_t n;
};

/* Read the current entry's data into `s`, with the caps. */
static int drain(struct archive *a, const struct cd_entry *e,
                 const struct skit__limits *lim, uint64_t *total,
                 struct sink *s, const char *what, skit_error *err)
{
	char buf[65536];

	for (;;) {
		la_ssize_t n = archive_read_data(a, buf, sizeof(buf));

		if (n < 0)
			return arc_error(a, what, e->name, err);
		if (!n)
			break;
		s->n += (uint64_t)n;
		*total += (uint64_t)n;
		if (s->n > lim->file)
			return skit__error_set(
			        err, SKIT_ETOOBIG, 0,
			        "%s: entry \"%s\" inflates past %llu bytes",
			        what, e->name, (unsigned long long)lim->file);
		if (*total > lim->total)
			return skit__error_set(err, SKIT_ETOOBIG, 0,
			                       "%s: more than %llu bytes "
			                       "inflated in all",
			                       what,
			                       (unsigned long long)lim->total);
		if (s->n > SKIT__PACK_RATIO_FLOOR &&
		    s->n / SKIT__PACK_RATIO > (e->csize ? e->csize : 1))
			return skit__error_set(
			        err, SKIT_ETOOBIG, 0,
			        "%s: entry \"%s\" inflates more than %u:1 "
			        "(a zip bomb?)",
			        what, e->name, SKIT__PACK_RATIO);
		if (s->n > e->usize)
			return bad(err, what,
			           "an entry inflates past its "
			           "recorded size");
		if (s->md)
			EVP_DigestUpdate(s->md, buf, (size_t)n);
		if (s->keep) {
			if (s->n > s->keep_cap)
				return skit__error_set(err, SKIT_ETOOBIG, 0,
				                       "%s: %s is too large",
				                       what, e->name);
			if (skitx_buf_add(s->keep, buf, (size_t)n) < 0)
				return skit__error_oom(err);
		}
		if (s->fd >= 0 &&
		    (skit__pack_fault() ||
		     skitx_fs_write_all(s->fd, buf, (size_t)n) < 0))
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                       s->shown, strerror(errno));
	}
	if (s->n != e->usize)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: entry \"%s\" inflates to %llu "
		                       "bytes, not the %llu recorded",
		                       what, e->name, (unsigned long long)s->n,
		                       (unsigned long long)e->usize);
	return 0;
}

void skit__staged_release(struct skit__staged *st)
{
	for (size_t i = 0; i < st->n; i++)
		skit__pskill_release(&st->skills[i]);
	skitx_free(st->skills);
	skitx_buf_release(&st->manifest);
	skitx_buf_release(&st->sig);
	memset(st, 0, sizeof(*st));
}

int skit__staged_add(struct skit__staged *st, const char *name,
                     struct skit__pskill **out)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->skills[i].name, name)) {
			*out = &st->skills[i];
			return 0;
		}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 8;
		struct skit__pskill *v =
		        skitx_realloc(st->skills, cap * sizeof(*v));

		if (!v)
			return SKIT_ENOMEM;
		st->skills = v;
		st->cap = cap;
	}
	memset(&st->skills[st->n], 0, sizeof(*st->skills));
	if (!(st->skills[st->n].name = skitx_strdup(name)))
		return SKIT_ENOMEM;
	*out = &st->skills[st->n++];
	return 0;
}

/* Stage one file: create "<skill>/<rel>" under `stagefd`, fill it, and
 * record it in the staged skill. */
struct stage_file {
	int fd;
	EVP_MD_CTX *md;
	struct skit__pskill *skill;
	const char *rel;
	bool exec;
	/* The file's path for errors: the staging folder's when known, so
	 * that "No space left on device" says which file and where. */
	char shown[SKIT__PACK_MAX_PATH * 2 + 4200];
};

static int stage_open(struct skit__staged *st, int stagefd, const char *skill,
                      const char *rel, bool exec, struct stage_file *sf,
                      skit_error *err)
{
	char path[SKIT__PACK_MAX_PATH * 2 + 2];

	memset(sf, 0, sizeof(*sf));
	sf->fd = -1;
	if (skit__staged_add(st, skill, &sf->skill) < 0)
		return skit__error_oom(err);
	snprintf(path, sizeof(path), "%s/%s", skill, rel);
	snprintf(sf->shown, sizeof(sf->shown), "%s%s%s",
	         st->where ? st->where : "", st->where ? "/" : "", path);
	sf->fd = skit__tree_create(stagefd, path, exec, err);
	if (sf->fd < 0)
		return sf->fd;
	sf->md = EVP_MD_CTX_new();
	if (!sf->md || !EVP_DigestInit_ex(sf->md, EVP_sha256(), NULL))
		return skit__error_oom(err);
	sf->rel = rel;
	sf->exec = exec;
	return 0;
}

static int stage_close(struct stage_file *sf, uint64_t size, int rc,
                       skit_error *err)
{
	char hex[65];

	if (!rc && sf->md) {
		skit__sha256_final(sf->md, hex);
		if (skit__pskill_add(sf->skill, sf->rel, size, sf->exec, hex) <
		    0)
			rc = skit__error_oom(err);
	}
	/* Start the write-back now, without waiting: the commit's fsync of
	 * each staged file then finds its bytes on their way. */
	if (!rc && sf->fd >= 0)
		(void)sync_file_range(sf->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	if (sf->fd >= 0 && close(sf->fd) < 0 && !rc)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", sf->shown,
		                     strerror(errno));
	EVP_MD_CTX_free(sf->md);
	sf->fd = -1;
	sf->md = NULL;
	if (!rc)
		skit__pack_crash_point();
	return rc;
}

static bool top_meta(const struct skit__layout *lay, const char *name,
                     size_t len, const char *file)
{
	return lay->manifest && len == strlen(file) && !memcmp(name, file, len);
}

int skit__zip_extract(int fd, const char *what, int stagefd,
                      const struct skit__limits *lim, struct skit__staged *st,
                      skit_error *err)
{
	struct zscan z = { 0 };
	struct utf8_scope u = { (locale_t)0, (locale_t)0 };
	struct skit__layout lay;
	struct archive *a = NULL;
	struct archive_entry *ae;
	const char **files = NULL;
	size_t *lens = NULL, nfiles = 0;
	uint64_t total = 0;
	int rc;

	memset(&lay, 0, sizeof(lay));
	rc = prescan(fd, what, lim, &z, err);
	if (rc < 0)
		goto out;
	files = skitx_calloc(z.n, sizeof(*files));
	lens = skitx_calloc(z.n, sizeof(*lens));
	if (!files || !lens) {
		rc = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < z.n; i++)
		if (!z.e[i].dir) {
			files[nfiles] = z.e[i].name;
			lens[nfiles++] = z.e[i].len;
		}
	rc = skit__layout_pick(&lay, files, lens, nfiles, what, err);
	if (rc < 0)
		goto out;
	st->single = lay.single;

	utf8_enter(&u);
	a = archive_read_new();
	if (!a) {
		rc = skit__error_oom(err);
		goto out;
	}
	archive_read_support_format_zip_seekable(a);
	(void)archive_read_set_format_option(a, "zip", "hdrcharset", "UTF-8");
	if (lseek(fd, 0, SEEK_SET) < 0 ||
	    archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		rc = skit__error_set(err, SKIT_EINVALID, 0, "%s: %s", what,
		                     archive_error_string(a)
		                             ? archive_error_string(a)
		                             : "cannot open");
		goto out;
	}
	for (size_t i = 0;; i++) {
		const struct cd_entry *e;
		const char *pname;
		char skill[SKIT__PACK_MAX_COMPONENT + 1];
		const char *rel;
		struct sink s = { -1, NULL, NULL, 0, NULL, 0 };
		struct stage_file sf;
		int r = archive_read_next_header(a, &ae);

		if (r == ARCHIVE_EOF) {
			if (i != z.n)
				rc = bad(err, what,
				         "fewer entries than the "
				         "central directory lists");
			break;
		}
		if (r < ARCHIVE_OK || i >= z.n) {
			rc = arc_error(a, what, i < z.n ? z.e[i].name : "?",
			               err);
			break;
		}
		e = &z.e[i];
		pname = archive_entry_pathname_utf8(ae);
		if (!pname || strncmp(pname, e->name, e->len) ||
		    (pname[e->len] && strcmp(pname + e->len, "/"))) {
			rc = skit__error_set(err, SKIT_EUNSAFE, 0,
			                     "%s: entry \"%s\": the name read "
			                     "does not match the central "
			                     "directory",
			                     what, e->name);
			break;
		}
		if (archive_entry_hardlink(ae) || archive_entry_symlink(ae) ||
		    (archive_entry_filetype(ae) != AE_IFREG &&
		     archive_entry_filetype(ae) != AE_IFDIR)) {
			rc = skit__error_set(err, SKIT_EUNSAFE, 0,
			                     "%s: entry \"%s\" is a link or a "
			                     "special file",
			                     what, e->name);
			break;
		}
		if (e->dir)
			continue;
		if (top_meta(&lay, e->name, e->len, "manifest.json") ||
		    top_meta(&lay, e->name, e->len, "manifest.sig")) {
			bool sig = e->name[9] == 's';

			s.keep = sig ? &st->sig : &st->manifest;
			s.keep_cap = sig ? SKIT__PACK_SIG_MAX
			                 : SKIT__PACK_MANIFEST_MAX;
			*(sig ? &st->has_sig : &st->has_manifest) = true;
			rc = drain(a, e, lim, &total, &s, what, err);
		} else if (skit__layout_map(&lay, e->name, e->len, skill,
		                            sizeof(skill), &rel)) {
			rc = stage_open(st, stagefd, skill, rel,
			                (archive_entry_perm(ae) & 0100) != 0,
			                &sf, err);
			if (!rc) {
				s.fd = sf.fd;
				s.shown = sf.shown;
				s.md = sf.md;
				rc = drain(a, e, lim, &total, &s, what, err);
			}
			rc = stage_close(&sf, s.n, rc, err);
		} else {
			/* Left out, but inflated: caps and CRC apply. */
			rc = drain(a, e, lim, &total, &s, what, err);
		}
		if (rc < 0)
			break;
	}
out:
	if (a)
		archive_read_free(a);
	utf8_leave(&u);
	skitx_free(files);
	skitx_free(lens);
	skit__layout_release(&lay);
	zscan_release(&z);
	for (size_t i = 0; !rc && i < st->n; i++)
		skit__pskill_sort(&st->skills[i]);
	return rc;
}

/* ---- the layout rules ---- */

void skit__layout_release(struct skit__layout *lay)
{
	skitx_strmap_release(&lay->skills);
	for (size_t i = 0; i < lay->nnames; i++)
		skitx_free(lay->names[i]);
	skitx_free(lay->names);
	lay->names = NULL;
	lay->nnames = 0;
}

static bool is_skill_md(const char *s, size_t len)
{
	return len == 8 &&
	       (!memcmp(s, "SKILL.md", 8) || !memcmp(s, "skill.md", 8));
}

/* Does some file sit at `prefix` + "SKILL.md"? */
static bool has_skill_md(const char *const *files, const size_t *lens, size_t n,
                         const char *prefix, size_t plen)
{
	for (size_t i = 0; i < n; i++)
		if (lens[i] == plen + 8 && !memcmp(files[i], prefix, plen) &&
		    is_skill_md(files[i] + plen, 8))
			return true;
	return false;
}

/* Record every folder C with `prefix`C/SKILL.md; the count found. */
static int find_skills(struct skit__layout *lay, const char *const *files,
                       const size_t *lens, size_t n)
{
	size_t plen = lay->prefix_len;
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		const char *rest = files[i] + plen, *slash;
		size_t rlen = lens[i] - plen;
		char *name;
		int rc;

		if (lens[i] <= plen || memcmp(files[i], lay->prefix, plen))
			continue;
		slash = memchr(rest, '/', rlen);
		if (!slash ||
		    !is_skill_md(slash + 1, rlen - (size_t)(slash + 1 - rest)))
			continue;
		name = skitx_strndup(rest, (size_t)(slash - rest));
		if (!name)
			return SKIT_ENOMEM;
		rc = skitx_strmap_put(&lay->skills, name, strlen(name), 1,
		                      NULL);
		if (rc != 1) {
			skitx_free(name);
			if (rc < 0)
				return rc;
			continue;
		}
		{
			char **v = skitx_realloc(
			        lay->names, (lay->nnames + 1) * sizeof(*v));
			if (!v) {
				skitx_free(name);
				return SKIT_ENOMEM;
			}
			lay->names = v;
			v[lay->nnames++] = name;
		}
		found++;
	}
	return found;
}

int skit__layout_pick(struct skit__layout *lay, const char *const *files,
                      const size_t *lens, size_t n, const char *what,
                      skit_error *err)
{
	const char *first = NULL;
	size_t flen = 0;
	bool one_top = n > 0;
	int found;

	memset(lay, 0, sizeof(*lay));
	for (size_t i = 0; i < n; i++) {
		const char *slash = memchr(files[i], '/', lens[i]);
		const char *c = files[i];

		if (lens[i] == 13 && !memcmp(files[i], "manifest.json", 13))
			lay->manifest = true;
		/* A folder named SKILL.md hides the skill it should be. */
		for (size_t k = 0; k + 9 <= lens[i]; k++)
			if ((k == 0 || c[k - 1] == '/') &&
			    is_skill_md(c + k, 8) && c[k + 8] == '/' &&
			    k + 8 < lens[i])
				return skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: \"%.*s\" is a folder", what,
				        (int)(k + 8), c);
		if (!slash) {
			one_top = false;
			continue;
		}
		if (!first) {
			first = files[i];
			flen = (size_t)(slash - files[i]);
		} else if ((size_t)(slash - files[i]) != flen ||
		           memcmp(files[i], first, flen)) {
			one_top = false;
		}
	}
	/* A lone wrapper folder that is not itself a skill: unwrap it. */
	if (one_top && !lay->manifest) {
		memcpy(lay->prefix, first, flen);
		lay->prefix[flen] = '/';
		lay->prefix_len = flen + 1;
		if (has_skill_md(files, lens, n, lay->prefix, lay->prefix_len))
			lay->prefix_len = 0;
	}
	lay->prefix[lay->prefix_len] = '\0';
	if (has_skill_md(files, lens, n, lay->prefix, lay->prefix_len)) {
		lay->single = true;
		return 0;
	}
	found = find_skills(lay, files, lens, n);
	if (found == 0 && lay->prefix_len + 7 < sizeof(lay->prefix)) {
		memcpy(lay->prefix + lay->prefix_len, "skills/", 8);
		lay->prefix_len += 7;
		found = find_skills(lay, files, lens, n);
	}
	if (found < 0)
		return skit__error_oom(err);
	if (!found)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: no SKILL.md found (looked at the "
		                       "top, in each top-level folder and "
		                       "under skills/)",
		                       what);
	return 0;
}

bool skit__layout_map(const struct skit__layout *lay, const char *name,
                      size_t len, char *skill, size_t skill_cap,
                      const char **rel)
{
	const char *rest, *slash;
	size_t rlen, slen;

	if (len <= lay->prefix_len ||
	    memcmp(name, lay->prefix, lay->prefix_len))
		return false;
	rest = name + lay->prefix_len;
	rlen = len - lay->prefix_len;
	if (lay->single) {
		if (lay->manifest && !lay->prefix_len &&
		    ((rlen == 13 && !memcmp(rest, "manifest.json", 13)) ||
		     (rlen == 12 && !memcmp(rest, "manifest.sig", 12))))
			return false;
		snprintf(skill, skill_cap, ".single");
		*rel = rest;
		return true;
	}
	slash = memchr(rest, '/', rlen);
	if (!slash)
		return false;
	slen = (size_t)(slash - rest);
	if (slen >= skill_cap || !skitx_strmap_get(&lay->skills, rest, slen))
		return false;
	memcpy(skill, rest, slen);
	skill[slen] = '\0';
	*rel = slash + 1;
	return true;
}

/* ---- folders as sources ---- */

struct collect {
	char **names;
	size_t *lens;
	size_t n, cap;
};

static int collect_cb(void *ud, const char *rel, int fd, const struct stat *st,
                      skit_error *err)
{
	struct collect *c = ud;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		char **v = skitx_realloc(c->names, cap * sizeof(*v));
		size_t *l;

		if (!v)
			return skit__error_oom(err);
		c->names = v;
		l = skitx_realloc(c->lens, cap * sizeof(*l));
		if (!l)
			return skit__error_oom(err);
		c->lens = l;
		c->cap = cap;
	}
	if (!(c->names[c->n] = skitx_strdup(rel)))
		return skit__error_oom(err);
	c->lens[c->n++] = strlen(rel);
	return 0;
}

struct copy {
	struct skit__staged *st;
	const struct skit__layout *lay;
	int stagefd;
	const struct skit__limits *lim;
	uint64_t total;
};

static int copy_cb(void *ud, const char *rel, int fd, const struct stat *sb,
                   skit_error *err)
{
	struct copy *c = ud;
	char skill[SKIT__PACK_MAX_COMPONENT + 1], buf[65536];
	const char *inner;
	struct stage_file sf;
	uint64_t n = 0;
	int rc;

	if (!skit__layout_map(c->lay, rel, strlen(rel), skill, sizeof(skill),
	                      &inner))
		return 0;
	rc = stage_open(c->st, c->stagefd, skill, inner,
	                (sb->st_mode & 0100) != 0, &sf, err);
	while (!rc) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
			                     strerror(errno));
			break;
		}
		if (!r)
			break;
		n += (uint64_t)r;
		c->total += (uint64_t)r;
		/* The file may have grown since it was measured. */
		if (n > c->lim->file || c->total > c->lim->total) {
			rc = skit__error_set(err, SKIT_ETOOBIG, 0,
			                     "%s: over the size limit", rel);
			break;
		}
		EVP_DigestUpdate(sf.md, buf, (size_t)r);
		if (skit__pack_fault() ||
		    skitx_fs_write_all(sf.fd, buf, (size_t)r) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                     sf.shown, strerror(errno));
	}
	return stage_close(&sf, n, rc, err);
}

int skit__tree_stage(int dirfd, const char *name, const char *what, int stagefd,
                     const struct skit__limits *lim, struct skit__staged *st,
                     skit_error *err)
{
	struct collect col = { 0 };
	struct skit__layout lay;
	struct copy cp = { 0 };
	int rc;

	memset(&lay, 0, sizeof(lay));
	rc = skit__tree_walk(dirfd, name, SKIT__WALK_SKIP_GIT, lim, collect_cb,
	                     &col, err);
	if (!rc)
		rc = skit__layout_pick(&lay, (const char *const *)col.names,
		                       col.lens, col.n, what, err);
	if (!rc) {
		/* A folder is never a signed pack: its manifest is a file. */
		lay.manifest = false;
		st->single = lay.single;
		cp.st = st;
		cp.lay = &lay;
		cp.stagefd = stagefd;
		cp.lim = lim;
		rc = skit__tree_walk(dirfd, name, SKIT__WALK_SKIP_GIT, lim,
		                     copy_cb, &cp, err);
	}
	for (size_t i = 0; i < col.n; i++)
		skitx_free(col.names[i]);
	skitx_free(col.names);
	skitx_free(col.lens);
	skit__layout_release(&lay);
	for (size_t i = 0; !rc && i < st->n; i++)
		skit__pskill_sort(&st->skills[i]);
	return rc;
}

/* ---- writing ---- */

int skit__zip_write(int fd, const struct skit__zfile *files, size_t n,
                    skit_error *err)
{
	struct utf8_scope u;
	struct archive *a;
	struct archive_entry *ae;
	int rc = 0;

	utf8_enter(&u);
	a = archive_write_new();
	ae = archive_entry_new();

	if (!a || !ae) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (archive_write_set_format_zip(a) != ARCHIVE_OK ||
	    archive_write_zip_set_compression_deflate(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const struct skit__zfile *f = &files[i];

		archive_entry_clear(ae);
		archive_entry_set_pathname_utf8(ae, f->path);
		archive_entry_set_filetype(ae, AE_IFREG);
		archive_entry_set_perm(ae, f->exec ? 0755 : 0644);
		archive_entry_set_size(ae, (la_int64_t)f->len);
		/* Time 0 lands before 1980, which every zone clamps to the
		 * same DOS date: the bytes do not depend on TZ. */
		archive_entry_set_mtime(ae, 0, 0);
		archive_entry_set_uid(ae, 0);
		archive_entry_set_gid(ae, 0);
		if (archive_write_header(a, ae) != ARCHIVE_OK)
			goto fail;
		if (f->len && archive_write_data(a, f->data, f->len) !=
		                      (la_ssize_t)f->len)
			goto fail;
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		goto fail;
	goto out;
fail:
	rc = skit__error_set(err, SKIT_EIO, 0, "writing the pack: %s",
	                     archive_error_string(a) ? archive_error_string(a)
	                                             : "failed");
out:
	archive_entry_free(ae);
	if (a)
		archive_write_free(a);
	utf8_leave(&u);
	return rc;
}
