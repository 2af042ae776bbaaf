/* SPDX-License-Identifier: MIT */
/*
 * registry_cache.c - read, check and write a root's index cache.
 *
 * The file is a length-prefixed binary in the byte order of the machine
 * that wrote it (a marker says which; another order is "another version").
 * A fixed 48-byte header, then the payload, which its checksum covers:
 *
 *   header   "SKITIDX1", u32 format version, u32 byte-order marker,
 *            u64 payload length, u64 checksum, u32 record count,
 *            u32 root path length, u32 skit version length, u32 zero
 *   payload  root path, skit version, then per record:
 *            u64 folder dev, folder ino, SKILL.md dev, ino;
 *            i64 size, mtime s, ctime s; u32 mtime ns, ctime ns;
 *            u32 flags, state, warnings, zero;
 *            seven strings, each a u32 length (0xFFFFFFFF: absent) and
 *            bytes: folder, name, description, when_to_use,
 *            argument-hint, skipped reason, name as written (only when
 *            an active skill's name is not spelled as its NFKC form)
 *
 * The checksum catches torn or flipped files cheaply; it is no defence
 * against a forged one, which the per-field checks below are for: a
 * planted file can at worst describe skills that are not there, and a
 * record is only used when the SKILL.md it names still has the recorded
 * device, inode, size and times. docs/registry.md has the policy.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/registry_cache.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define MAGIC           "SKITIDX1"
#define FORMAT_VERSION  3u
#define BYTE_ORDER_MARK 0x01020304u
#define HEADER_SIZE     48
#define RECORD_FIXED    80
#define NO_STRING       UINT32_MAX

/* The largest cache file read or written (64 MiB: ~100k skills). */
#define CACHE_MAX (64u * 1024 * 1024)

/* The longest string a record may hold. */
#define STRING_MAX (64u * 1024)

/* Entry flags a record may carry (never LOWERCASE_FILE: not cached). */
#define FLAGS_OK                                      \
 ((unsigned int)SKIT_SKILL_DISABLE_MODEL_INVOCATION | \
  (unsigned int)SKIT_SKILL_NOT_USER_INVOCABLE)

/* A bounds-checked reader over the file's bytes. */
struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static const unsigned char *take(struct cursor *c, size_t n)
{
	const unsigned char *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t take_u32(struct cursor *c)
{
	const unsigned char *p = take(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static uint64_t take_u64(struct cursor *c)
{
	const unsigned char *p = take(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

/*
 * A fast check word over `n` bytes, eight at a time: a multiply-xor mix,
 * enough to catch truncation and flipped bits, not an authenticator.
 */
uint64_t skit__cache_checksum(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h ^= w;
		h *= 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	for (; n; p++, n--) {
		h ^= *p;
		h *= 0x94D049BB133111EBull;
	}
	h ^= h >> 29;
	return h;
}

/* A string fit for an entry: valid UTF-8 and no NUL byte. */
static bool string_ok(const char *s, size_t len)
{
	return len <= STRING_MAX && !memchr(s, '\0', len) &&
	       !skitx_utf8_check(s, len, NULL);
}

/* A folder name a scan can list: not empty, no '/', not a dot-folder. */
static bool folder_ok(const char *s, size_t len)
{
	return len && len <= 255 && s[0] != '.' && !memchr(s, '/', len);
}

static bool take_string(struct cursor *c, const char **s, uint32_t *len)
{
	const unsigned char *p;
	uint32_t n = take_u32(c);

	*s = NULL;
	*len = 0;
	if (c->bad)
		return false;
	if (n == NO_STRING)
		return true;
	p = take(c, n);
	if (!p || !string_ok((const char *)p, n))
		return false;
	*s = (const char *)p;
	*len = n;
	return true;
}

/* Read and check one record; false (and the whole file is ignored). */
static bool take_record(struct cursor *c, struct skit__cache_rec *r)
{
	struct skit__cache_key *k = &r->key;
	uint32_t state, warnings;

	k->dir_dev = take_u64(c);
	k->dir_ino = take_u64(c);
	k->dev = take_u64(c);
	k->ino = take_u64(c);
	k->size = (int64_t)take_u64(c);
	k->mtime_sec = (int64_t)take_u64(c);
	k->ctime_sec = (int64_t)take_u64(c);
	k->mtime_nsec = take_u32(c);
	k->ctime_nsec = take_u32(c);
	r->flags = take_u32(c);
	state = take_u32(c);
	warnings = take_u32(c);
	if (take_u32(c) != 0 || c->bad)
		return false;
	if (k->size < 0 || k->mtime_nsec >= 1000000000u ||
	    k->ctime_nsec >= 1000000000u || (r->flags & ~FLAGS_OK))
		return false;
	if (state != SKIT_ENTRY_ACTIVE && state != SKIT_ENTRY_SKIPPED)
		return false;
	r->state = (skit_entry_state)state;
	r->warnings = warnings;
	for (size_t i = 0; i < SKIT__CACHE_NSTR; i++)
		if (!take_string(c, &r->str[i], &r->len[i]))
			return false;
	if (!r->str[SKIT__CACHE_FOLDER] ||
	    !folder_ok(r->str[SKIT__CACHE_FOLDER], r->len[SKIT__CACHE_FOLDER]))
		return false;
	if (!r->str[SKIT__CACHE_NAME] || !r->len[SKIT__CACHE_NAME] ||
	    !r->str[SKIT__CACHE_DESCRIPTION])
		return false;
	/* a raw name differs from the NFKC one, and only active skills have it
	 */
	if (r->str[SKIT__CACHE_NAME_RAW] &&
	    (r->state != SKIT_ENTRY_ACTIVE || !r->len[SKIT__CACHE_NAME_RAW] ||
	     (r->len[SKIT__CACHE_NAME_RAW] == r->len[SKIT__CACHE_NAME] &&
	      !memcmp(r->str[SKIT__CACHE_NAME_RAW], r->str[SKIT__CACHE_NAME],
	              r->len[SKIT__CACHE_NAME]))))
		return false;
	/* a skipped entry says why; an active one has no reason */
	return (r->state == SKIT_ENTRY_SKIPPED) ==
	       (r->str[SKIT__CACHE_REASON] != NULL);
}

/* Check the bytes in c->data and index the records; false: unusable. */
static bool parse(struct skit__cache *c, const char *root)
{
	struct cursor cur;
	const unsigned char *p;
	uint32_t nrecs, rlen, vlen;
	uint64_t len, sum;
	size_t n = c->data.len;

	cur.p = (const unsigned char *)c->data.ptr;
	cur.end = cur.p + n;
	cur.bad = false;
	p = take(&cur, 8);
	if (!p || memcmp(p, MAGIC, 8))
		return false;
	if (take_u32(&cur) != FORMAT_VERSION ||
	    take_u32(&cur) != BYTE_ORDER_MARK)
		return false;
	len = take_u64(&cur);
	sum = take_u64(&cur);
	nrecs = take_u32(&cur);
	rlen = take_u32(&cur);
	vlen = take_u32(&cur);
	if (take_u32(&cur) != 0 || cur.bad)
		return false;
	if (len != (uint64_t)(n - HEADER_SIZE) ||
	    skit__cache_checksum(cur.p, (size_t)len) != sum)
		return false;
	/* the root it describes, and the skit that wrote it */
	p = take(&cur, rlen);
	if (!p || rlen != strlen(root) || memcmp(p, root, rlen))
		return false;
	p = take(&cur, vlen);
	if (!p || vlen != strlen(SKIT_VERSION) || memcmp(p, SKIT_VERSION, vlen))
		return false;
	/* each record takes at least its fixed part and its string lengths */
	if (nrecs >
	    (size_t)(cur.end - cur.p) / (RECORD_FIXED + 4 * SKIT__CACHE_NSTR))
		return false;
	if (nrecs) {
		c->recs = skitx_calloc(nrecs, sizeof(*c->recs));
		if (!c->recs)
			return false;
	}
	for (uint32_t i = 0; i < nrecs; i++) {
		struct skit__cache_rec *r = &c->recs[i];

		if (!take_record(&cur, r))
			return false;
		/* a folder twice is not something skit writes */
		if (skitx_strmap_put(&c->by_folder, r->str[SKIT__CACHE_FOLDER],
		                     r->len[SKIT__CACHE_FOLDER], i, NULL) != 1)
			return false;
	}
	if (cur.p != cur.end)
		return false;
	c->nrecs = nrecs;
	return true;
}

/* Forget what was read (a bad file): the cache is empty, not gone. */
static void clear_records(struct skit__cache *c)
{
	skitx_strmap_release(&c->by_folder);
	skitx_free(c->recs);
	c->recs = NULL;
	c->nrecs = 0;
	skitx_buf_release(&c->data);
}

char *skit__cache_home(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct skitx_buf b = SKITX_BUF_INIT;
	int error;

	/* XDG: a relative value is invalid and ignored */
	if (xdg && xdg[0] == '/')
		error = skitx_buf_printf(&b, "%s/skit", xdg);
	else if (home && home[0] == '/')
		error = skitx_buf_printf(&b, "%s/.cache/skit", home);
	else
		return NULL;
	if (error < 0) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

void skit__cache_open(struct skit__cache *c, const char *cache_home,
                      const char *root_path)
{
	struct skitx_buf name = SKITX_BUF_INIT;
	enum skitx_fs_why why;
	struct stat st;
	uint64_t h;
	int fd;

	c->root = skitx_path_absolute(root_path);
	if (!c->root)
		return;
	h = skitx_hash_bytes(c->root, strlen(c->root));
	if (skitx_buf_printf(&name, "%s/index-%016llx.bin", cache_home,
	                     (unsigned long long)h) < 0) {
		skitx_buf_release(&name);
		return;
	}
	c->file = skitx_buf_detach(&name, NULL);
	if (!c->file)
		return;

	fd = skitx_fs_open_regular(AT_FDCWD, c->file, &st, &why);
	if (fd < 0)
		return; /* missing (the first scan), a link, unreadable... */
	/* another user's file, or one others may write, is not trusted */
	if (st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size < HEADER_SIZE || (uint64_t)st.st_size > CACHE_MAX) {
		close(fd);
		return;
	}
	skitx_buf_init(&c->data, CACHE_MAX);
	/* one read() in the common case */
	if (skitx_buf_grow(&c->data, (size_t)st.st_size) < 0 ||
	    skitx_fs_read_fd(fd, &c->data, CACHE_MAX) < 0 || !parse(c, c->root))
		clear_records(c);
	close(fd);
}

const struct skit__cache_rec *skit__cache_find(const struct skit__cache *c,
                                               const char *name)
{
	const uint32_t *i;

	if (!c->nrecs)
		return NULL;
	i = skitx_strmap_get(&c->by_folder, name, strlen(name));
	return i ? &c->recs[*i] : NULL;
}

bool skit__cache_key_read(struct skit__cache_key *k, int rootfd,
                          const char *folder, uint64_t dir_dev,
                          uint64_t dir_ino)
{
	char rel[PATH_MAX];
	size_t len = strlen(folder);
	struct stat st;

	if (len + sizeof("/SKILL.md") > sizeof(rel))
		return false;
	memcpy(rel, folder, len);
	memcpy(rel + len, "/SKILL.md", sizeof("/SKILL.md"));
	if (fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	k->dir_dev = dir_dev;
	k->dir_ino = dir_ino;
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = (int64_t)st.st_size;
	k->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	k->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	k->ctime_sec = (int64_t)st.st_ctim.tv_sec;
	k->ctime_nsec = (uint32_t)st.st_ctim.tv_nsec;
	return true;
}

bool skit__cache_key_eq(const struct skit__cache_key *a,
                        const struct skit__cache_key *b)
{
	return a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
	       a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->ctime_sec == b->ctime_sec &&
	       a->mtime_nsec == b->mtime_nsec && a->ctime_nsec == b->ctime_nsec;
}

static int put_u32(struct skitx_buf *b, uint32_t v)
{
	return skitx_buf_add(b, &v, 4);
}

static int put_u64(struct skitx_buf *b, uint64_t v)
{
	return skitx_buf_add(b, &v, 8);
}

/* The raw name a record keeps: only an active one that differs. */
static const char *raw_kept(const skit_entry *e, const char *name_raw)
{
	if (e->state != SKIT_ENTRY_ACTIVE || !name_raw || !e->name ||
	    !strcmp(name_raw, e->name))
		return NULL;
	return name_raw;
}

bool skit__cache_fits(const skit_entry *e, const char *folder,
                      const char *name_raw)
{
	const char *str[] = { folder,
		              e->name,
		              e->description,
		              e->when_to_use,
		              e->argument_hint,
		              e->state == SKIT_ENTRY_SKIPPED ? e->reason : NULL,
		              raw_kept(e, name_raw) };

	/* only what a later read would accept */
	if (!folder_ok(folder, strlen(folder)) || (e->flags & ~FLAGS_OK) ||
	    (e->state != SKIT_ENTRY_ACTIVE && e->state != SKIT_ENTRY_SKIPPED) ||
	    !e->name || !*e->name || !e->description ||
	    (e->state == SKIT_ENTRY_SKIPPED && !e->reason) ||
	    e->warnings > UINT32_MAX)
		return false;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(str); i++)
		if (str[i] && !string_ok(str[i], strlen(str[i])))
			return false;
	return true;
}

int skit__cache_put(struct skitx_buf *out, const struct skit__cache_key *k,
                    const skit_entry *e, const char *folder,
                    const char *name_raw)
{
	const char *str[SKIT__CACHE_NSTR];
	size_t start = out->len;
	int error = 0;

	str[SKIT__CACHE_FOLDER] = folder;
	str[SKIT__CACHE_NAME] = e->name;
	str[SKIT__CACHE_DESCRIPTION] = e->description;
	str[SKIT__CACHE_WHEN_TO_USE] = e->when_to_use;
	str[SKIT__CACHE_ARGUMENT_HINT] = e->argument_hint;
	str[SKIT__CACHE_REASON] =
	        e->state == SKIT_ENTRY_SKIPPED ? e->reason : NULL;
	str[SKIT__CACHE_NAME_RAW] = raw_kept(e, name_raw);
	if (!skit__cache_fits(e, folder, name_raw))
		return 0;

	error |= put_u64(out, k->dir_dev);
	error |= put_u64(out, k->dir_ino);
	error |= put_u64(out, k->dev);
	error |= put_u64(out, k->ino);
	error |= put_u64(out, (uint64_t)k->size);
	error |= put_u64(out, (uint64_t)k->mtime_sec);
	error |= put_u64(out, (uint64_t)k->ctime_sec);
	error |= put_u32(out, k->mtime_nsec);
	error |= put_u32(out, k->ctime_nsec);
	error |= put_u32(out, e->flags);
	error |= put_u32(out, (uint32_t)e->state);
	error |= put_u32(out, (uint32_t)e->warnings);
	error |= put_u32(out, 0);
	for (size_t i = 0; i < SKIT__CACHE_NSTR; i++) {
		size_t len = str[i] ? strlen(str[i]) : 0;

		error |= put_u32(out, str[i] ? (uint32_t)len : NO_STRING);
		if (str[i])
			error |= skitx_buf_add(out, str[i], len);
	}
	if (error) {
		skitx_buf_truncate(out, start);
		return SKIT_ENOMEM;
	}
	return 1;
}

int skit__cache_write(const struct skit__cache *c, const struct skitx_buf *recs,
                      size_t n)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t rlen, vlen = strlen(SKIT_VERSION), payload;
	char *dir = NULL;
	uint64_t sum;
	int error = SKIT_ENOMEM;

	if (!c->file || !c->root)
		return SKIT_EINVALID;
	rlen = strlen(c->root);
	payload = rlen + vlen + recs->len;
	if (payload > CACHE_MAX - HEADER_SIZE || n > UINT32_MAX) {
		/* too big to keep: drop a stale copy rather than read it */
		unlink(c->file);
		return SKIT_ETOOBIG;
	}
	if (skitx_buf_grow(&b, HEADER_SIZE + payload) < 0)
		goto out;
	skitx_buf_add(&b, MAGIC, 8);
	put_u32(&b, FORMAT_VERSION);
	put_u32(&b, BYTE_ORDER_MARK);
	put_u64(&b, (uint64_t)payload);
	put_u64(&b, 0); /* the checksum, once the payload is in */
	put_u32(&b, (uint32_t)n);
	put_u32(&b, (uint32_t)rlen);
	put_u32(&b, (uint32_t)vlen);
	put_u32(&b, 0);
	skitx_buf_add(&b, c->root, rlen);
	skitx_buf_add(&b, SKIT_VERSION, vlen);
	skitx_buf_add(&b, recs->ptr, recs->len);
	if (b.len != HEADER_SIZE + payload)
		goto out;
	sum = skit__cache_checksum(b.ptr + HEADER_SIZE, payload);
	memcpy(b.ptr + SKIT__CACHE_CHECKSUM_AT, &sum, 8);

	dir = skitx_path_dirname(c->file);
	if (!dir)
		goto out;
	error = skitx_fs_mkdir_p(dir, 0700);
	if (error < 0)
		goto out;
	error = skitx_fs_write_atomic(c->file, b.ptr, b.len, 0600);
out:
	skitx_free(dir);
	skitx_buf_release(&b);
	return error;
}

void skit__cache_release(struct skit__cache *c)
{
	clear_records(c);
	skitx_free(c->file);
	skitx_free(c->root);
	c->file = NULL;
	c->root = NULL;
}
