/* SPDX-License-Identifier: MIT */
/*
 * registry_cache.c - read, check and write a scan's index cache.
 *
 * The file is a length-prefixed binary in the byte order of the machine
 * that wrote it (a marker says which; another order is "another version").
 * A fixed 48-byte header, then the payload, which its checksum covers:
 *
 *   header   "SKITIDX1", u32 format version, u32 byte-order marker,
 *            u64 payload length, u64 checksum, u32 record count,
 *            u32 root count, u32 writer length, u32 zero
 *   payload  the writer (build_tag()), the roots (each a u32 length and the
 * bytes of its absolute path), then per record: thirteen numbers, each an
 * unsigned LEB128 varint (signed ones zigzag-coded): folder dev, folder ino,
 * SKILL.md dev, ino, size, mtime s, ctime s, mtime ns, ctime ns, flags, state,
 * warnings, root number; then seven strings, each a varint (0: absent, else the
 * length plus one), the bytes and a NUL: folder (absent: the same bytes as the
 * name), name, description, when_to_use, argument-hint, skipped reason, name as
 * written (only when an active skill's name is not spelled as its NFKC form)
 *
 * Varints and the folder left out when it is the name make a record
 * about 100 bytes smaller than fixed-width fields did: the file is read
 * whole and kept for the life of the index, so its size is memory.
 * The NUL after each string lets a scan use the strings where they lie
 * (the index keeps the buffer) instead of copying them.
 *
 * The checksum catches torn or flipped files cheaply; it is no defence
 * against a forged one, which the per-field checks below are for: a
 * planted file can at worst describe skills that are not there, and a
 * record is only used when the SKILL.md it names still has the recorded
 * device, inode, size and times. docs/registry.md has the policy.
 */
#define _GNU_SOURCE /* mkostemp: before any header */
#include "common.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __ELF__
# include <elf.h>
# include <link.h>
#endif

#include "lib/registry/registry_cache.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define MAGIC           "SKITIDX1"
#define FORMAT_VERSION  4u
#define BYTE_ORDER_MARK 0x01020304u
#define HEADER_SIZE     48
/* The fewest bytes a record takes: 13 one-byte numbers, 7 absent strings */
#define RECORD_MIN 20

/*
 * Who wrote a cache. Its records are the loader's verdicts, so a skit
 * with other loading rules must not read them: skit's version, and,
 * where the program that holds this code has one (gcc and clang on
 * Linux give every link a GNU build ID), its build ID, which differs for
 * any other code, such as a rebuilt tree under the same version number.
 * Without a build ID (or off ELF), the version alone. Two programs of
 * different builds on the same roots (the CLI and an embedder's
 * libskit.so) take turns rewriting the one file: slower, never wrong.
 */
static char build_tag[sizeof(SKIT_VERSION) + 2 + 2 * 64];
static pthread_once_t build_tag_once = PTHREAD_ONCE_INIT;

#ifdef __ELF__
/* The build ID in the notes of the object that holds this code. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t here = (uintptr_t)(void *)build_tag; /* in this object */
	char *out = data;
	bool mine = false;

	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && here >= start &&
		    here - start < ph->p_memsz)
			mine = true;
	}
	if (!mine)
		return 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p, *end;
		size_t align;

		if (ph->p_type != PT_NOTE)
			continue;
		/* notes are padded to 4 bytes, or 8 in a segment so aligned */
		align = ph->p_align == 8 ? 8 : 4;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh =
			        (const ElfW(Nhdr) *)(const void *)p;
			size_t name = ((size_t)nh->n_namesz + align - 1) &
			              ~(align - 1);
			size_t desc = ((size_t)nh->n_descsz + align - 1) &
			              ~(align - 1);
			const unsigned char *d = p + sizeof(*nh) + name;

			if (name > (size_t)(end - p) - sizeof(*nh) ||
			    desc > (size_t)(end - d))
				break;
			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) &&
			    nh->n_descsz && nh->n_descsz <= 64) {
				size_t len = strlen(out);

				out[len++] = '+';
				for (size_t k = 0; k < nh->n_descsz; k++)
					len += (size_t)snprintf(out + len, 3,
					                        "%02x", d[k]);
				return 1;
			}
			p = d + desc;
		}
	}
	return 1; /* this object, without a build ID */
}

#endif

static void build_tag_init(void)
{
	snprintf(build_tag, sizeof(build_tag), "%s", SKIT_VERSION);
#ifdef __ELF__
	dl_iterate_phdr(find_build_id, build_tag);
#endif
}

const char *skit__cache_build_tag(void)
{
	if (pthread_once(&build_tag_once, build_tag_init))
		return SKIT_VERSION;
	return build_tag;
}

/* The largest cache file read or written (64 MiB: ~150k skills). */
#define CACHE_MAX (64u * 1024 * 1024)

/* The most roots one file describes (the scan's list of roots). */
#define ROOTS_MAX 65536u

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

/* An unsigned LEB128 number of at most 64 bits; c->bad when malformed. */
static uint64_t take_var(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		const unsigned char *p = take(c, 1);

		if (!p)
			return 0;
		/* the tenth byte holds bit 63 alone */
		if (shift == 63 && *p > 1) {
			c->bad = true;
			return 0;
		}
		v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/*
 * A fast check word over a byte stream, eight bytes at a time: a
 * multiply-xor mix, enough to catch truncation and flipped bits, not an
 * authenticator. Streamed, so a writer needs no copy of the whole file;
 * the length goes in last, when it is known.
 */
static void cksum_init(struct skit__cksum *k)
{
	k->h = 0x9E3779B97F4A7C15ull;
	k->n = 0;
	k->ntail = 0;
}

static void cksum_word(struct skit__cksum *k, const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	k->h ^= w;
	k->h *= 0xBF58476D1CE4E5B9ull;
	k->h ^= k->h >> 31;
}

static void cksum_add(struct skit__cksum *k, const void *data, size_t n)
{
	const unsigned char *p = data;

	k->n += n;
	if (k->ntail) {
		while (n && k->ntail < 8) {
			k->tail[k->ntail++] = *p++;
			n--;
		}
		if (k->ntail < 8)
			return;
		cksum_word(k, k->tail);
		k->ntail = 0;
	}
	for (; n >= 8; p += 8, n -= 8)
		cksum_word(k, p);
	memcpy(k->tail, p, n);
	k->ntail = n;
}

static uint64_t cksum_end(const struct skit__cksum *k)
{
	uint64_t h = k->h;

	for (size_t i = 0; i < k->ntail; i++) {
		h ^= k->tail[i];
		h *= 0x94D049BB133111EBull;
	}
	h ^= k->n;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return h;
}

uint64_t skit__cache_checksum(const void *data, size_t n)
{
	struct skit__cksum k;

	cksum_init(&k);
	cksum_add(&k, data, n);
	return cksum_end(&k);
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

/* A string: varint length + 1 (0: absent), bytes, NUL. */
static bool take_string(struct cursor *c, const char **s, uint32_t *len,
                        bool check)
{
	const unsigned char *p;
	uint64_t n = take_var(c);

	*s = NULL;
	*len = 0;
	if (c->bad)
		return false;
	if (!n)
		return true;
	n--;
	if (n > STRING_MAX)
		return false;
	p = take(c, (size_t)n + 1);
	if (!p || (check && (p[n] || !string_ok((const char *)p, n))))
		return false;
	*s = (const char *)p;
	*len = (uint32_t)n;
	return true;
}

/*
 * Read one record into `r`; with `check`, check every field, and false
 * means the whole file is ignored. Without, the record was checked when
 * the file was opened and is only decoded.
 */
static bool take_record(struct cursor *c, struct skit__cache_rec *r, bool check,
                        size_t nroots)
{
	struct skit__cache_key *k = &r->key;
	uint64_t v[13];

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(v); i++)
		v[i] = take_var(c);
	k->dir_dev = v[0];
	k->dir_ino = v[1];
	k->dev = v[2];
	k->ino = v[3];
	k->size = (int64_t)v[4];
	k->mtime_sec = unzigzag(v[5]);
	k->ctime_sec = unzigzag(v[6]);
	k->mtime_nsec = (uint32_t)v[7];
	k->ctime_nsec = (uint32_t)v[8];
	r->flags = (unsigned int)v[9];
	r->state = (skit_entry_state)v[10];
	r->warnings = (size_t)v[11];
	r->root = (uint32_t)v[12];
	if (check &&
	    (c->bad || v[4] > INT64_MAX || v[7] >= 1000000000u ||
	     v[8] >= 1000000000u || v[9] > UINT32_MAX || (v[9] & ~FLAGS_OK) ||
	     (v[10] != SKIT_ENTRY_ACTIVE && v[10] != SKIT_ENTRY_SKIPPED) ||
	     v[11] > UINT32_MAX || v[12] >= nroots))
		return false;
	for (size_t i = 0; i < SKIT__CACHE_NSTR; i++)
		if (!take_string(c, &r->str[i], &r->len[i], check))
			return false;
	/* no folder: it is spelled as the name */
	if (!r->str[SKIT__CACHE_FOLDER]) {
		r->str[SKIT__CACHE_FOLDER] = r->str[SKIT__CACHE_NAME];
		r->len[SKIT__CACHE_FOLDER] = r->len[SKIT__CACHE_NAME];
	}
	if (!check)
		return !c->bad;
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

/*
 * The lookup table: open addressing over (root, folder), 8 bytes a slot
 * (the record's number plus one, 0 when free, and 32 bits of its hash),
 * at most half full. A general string map took 24 bytes a slot and a
 * pointer per key: 6 MB at 100k records.
 */
static uint64_t slot_hash(size_t root, const char *folder, size_t len)
{
	uint64_t h = skitx_hash_bytes(folder, len) ^
	             ((uint64_t)root * 0x9E3779B97F4A7C15ull);

	h ^= h >> 29;
	return h ? h : 1;
}

/*
 * Record i's root number and folder (decoded no further than that: a
 * lookup compares them for each slot its hash bits match).
 */
static uint32_t rec_folder(const struct skit__cache *c, size_t i,
                           const char **folder, uint32_t *len)
{
	struct cursor cur;
	uint32_t root;

	cur.p = (const unsigned char *)c->bytes + c->offsets[i];
	cur.end = (const unsigned char *)c->bytes + c->nbytes;
	cur.bad = false;
	for (int k = 0; k < 12; k++)
		take_var(&cur);
	root = (uint32_t)take_var(&cur);
	take_string(&cur, folder, len, false);
	/* no folder: it is spelled as the name, the next string */
	if (!*folder)
		take_string(&cur, folder, len, false);
	return root;
}

/* The slot of (root, folder): its record, or the free slot to fill. */
static struct skit__cache_slot *slot_find(const struct skit__cache *c,
                                          size_t root, const char *folder,
                                          size_t len)
{
	uint64_t h = slot_hash(root, folder, len);
	size_t mask = c->nslots - 1, i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		struct skit__cache_slot *s = &c->slots[i];
		const char *f;
		uint32_t flen;

		if (!s->rec)
			return s;
		if (s->hash != (uint32_t)(h >> 32) ||
		    rec_folder(c, s->rec - 1, &f, &flen) != root)
			continue;
		if (flen == len && !memcmp(f, folder, len))
			return s;
	}
}

/* Check the bytes in c->bytes and index the records; false: unusable. */
static bool parse(struct skit__cache *c)
{
	struct skit__cache_rec r;
	struct cursor cur;
	const unsigned char *p;
	uint32_t nrecs, nroots, vlen;
	uint64_t len, sum;
	size_t n = c->nbytes;

	cur.p = (const unsigned char *)c->bytes;
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
	nroots = take_u32(&cur);
	vlen = take_u32(&cur);
	if (take_u32(&cur) != 0 || cur.bad)
		return false;
	if (len != (uint64_t)(n - HEADER_SIZE) ||
	    skit__cache_checksum(cur.p, (size_t)len) != sum)
		return false;
	/* the skit that wrote it, and the roots it describes */
	p = take(&cur, vlen);
	if (!p || vlen != strlen(skit__cache_build_tag()) ||
	    memcmp(p, skit__cache_build_tag(), vlen))
		return false;
	if (nroots != c->nroots)
		return false;
	for (size_t i = 0; i < nroots; i++) {
		uint32_t rlen = take_u32(&cur);

		p = take(&cur, rlen);
		if (!p || rlen != strlen(c->roots[i]) ||
		    memcmp(p, c->roots[i], rlen))
			return false;
	}
	/* each record takes at least RECORD_MIN bytes */
	if (nrecs > (size_t)(cur.end - cur.p) / RECORD_MIN)
		return false;
	if (!nrecs)
		return cur.p == cur.end;
	c->nslots = 4;
	while (c->nslots < 2 * (size_t)nrecs)
		c->nslots *= 2;
	c->offsets = skitx_calloc(nrecs, sizeof(*c->offsets));
	c->slots = skitx_calloc(c->nslots, sizeof(*c->slots));
	if (!c->offsets || !c->slots)
		return false;
	for (uint32_t i = 0; i < nrecs; i++) {
		struct skit__cache_slot *slot;

		c->offsets[i] =
		        (uint32_t)(cur.p - (const unsigned char *)c->bytes);
		if (!take_record(&cur, &r, true, nroots))
			return false;
		/* records 0..i-1 can be looked up while the table fills */
		c->nrecs = i;
		slot = slot_find(c, r.root, r.str[SKIT__CACHE_FOLDER],
		                 r.len[SKIT__CACHE_FOLDER]);
		/* a folder twice in a root is not something skit writes */
		if (slot->rec)
			return false;
		slot->rec = i + 1;
		slot->hash =
		        (uint32_t)(slot_hash(r.root, r.str[SKIT__CACHE_FOLDER],
		                             r.len[SKIT__CACHE_FOLDER]) >>
		                   32);
	}
	if (cur.p != cur.end)
		return false;
	c->nrecs = nrecs;
	return true;
}

/* Forget what was read (a bad file): the cache is empty, not gone. */
static void clear_records(struct skit__cache *c)
{
	skitx_free(c->slots);
	c->slots = NULL;
	c->nslots = 0;
	skitx_free(c->offsets);
	c->offsets = NULL;
	c->nrecs = 0;
	skitx_free(c->bytes);
	c->bytes = NULL;
	c->nbytes = 0;
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

/* The roots as absolute paths, and the file named by their hash. */
static bool name_file(struct skit__cache *c, const char *cache_home,
                      const char *const *roots, size_t n)
{
	struct skitx_buf name = SKITX_BUF_INIT;
	uint64_t h = 0;

	if (!n || n > ROOTS_MAX)
		return false;
	c->roots = skitx_calloc(n, sizeof(*c->roots));
	if (!c->roots)
		return false;
	c->nroots = n;
	/*
	 * The hash of the paths, each with its NUL: FNV-1a goes on where it
	 * stopped, so one root names the file it named when each root had
	 * its own.
	 */
	for (size_t i = 0; i < n; i++) {
		c->roots[i] = skitx_path_absolute(roots[i]);
		if (!c->roots[i] ||
		    skitx_buf_add(&name, c->roots[i],
		                  strlen(c->roots[i]) + (i + 1 < n)) < 0) {
			skitx_buf_release(&name);
			return false;
		}
	}
	h = skitx_hash_bytes(name.ptr, name.len);
	skitx_buf_release(&name);
	if (skitx_buf_printf(&name, "%s/index-%016llx.bin", cache_home,
	                     (unsigned long long)h) < 0) {
		skitx_buf_release(&name);
		return false;
	}
	c->file = skitx_buf_detach(&name, NULL);
	return c->file != NULL;
}

/* Read up to `n` bytes into `p`; how many were read (short: EOF or error). */
static size_t read_all(int fd, char *p, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

void skit__cache_open(struct skit__cache *c, const char *cache_home,
                      const char *const *roots, size_t n)
{
	enum skitx_fs_why why;
	struct stat st;
	int fd;

	if (!name_file(c, cache_home, roots, n)) {
		skitx_free(c->file);
		c->file = NULL;
		return;
	}
	fd = skitx_fs_open_regular(AT_FDCWD, c->file, &st, &why);
	if (fd < 0)
		return; /* missing (the first scan), a link, unreadable... */
	/* another user's file, or one others may write, is not trusted */
	if (st.st_uid != geteuid() || (st.st_mode & 022) ||
	    st.st_size < HEADER_SIZE || (uint64_t)st.st_size > CACHE_MAX) {
		close(fd);
		return;
	}
	/*
	 * Exactly its size (a growing buffer would round a 37 MB file up to
	 * 64 MB); a file that changed size meanwhile fails its length check.
	 */
	c->bytes = skitx_malloc((size_t)st.st_size);
	c->nbytes = c->bytes ? read_all(fd, c->bytes, (size_t)st.st_size) : 0;
	if (c->nbytes != (size_t)st.st_size || !parse(c))
		clear_records(c);
	close(fd);
}

long skit__cache_lookup(const struct skit__cache *c, size_t root,
                        const char *name)
{
	const struct skit__cache_slot *slot;

	if (!c->nrecs || root >= c->nroots)
		return -1;
	slot = slot_find(c, root, name, strlen(name));
	return slot->rec ? (long)slot->rec - 1 : -1;
}

void skit__cache_get(const struct skit__cache *c, size_t i,
                     struct skit__cache_rec *r)
{
	struct cursor cur;

	cur.p = (const unsigned char *)c->bytes + c->offsets[i];
	cur.end = (const unsigned char *)c->bytes + c->nbytes;
	cur.bad = false;
	take_record(&cur, r, false, c->nroots);
}

char *skit__cache_take_bytes(struct skit__cache *c)
{
	char *bytes = c->bytes;

	/* nothing can be looked up any more: drop the maps now */
	c->bytes = NULL;
	clear_records(c);
	return bytes;
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
	skit__cache_key_from_stat(k, &st, dir_dev, dir_ino);
	return true;
}

void skit__cache_key_from_stat(struct skit__cache_key *k, const struct stat *st,
                               uint64_t dir_dev, uint64_t dir_ino)
{
	k->dir_dev = dir_dev;
	k->dir_ino = dir_ino;
	k->dev = (uint64_t)st->st_dev;
	k->ino = (uint64_t)st->st_ino;
	k->size = (int64_t)st->st_size;
	k->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	k->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
	k->ctime_sec = (int64_t)st->st_ctim.tv_sec;
	k->ctime_nsec = (uint32_t)st->st_ctim.tv_nsec;
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

static int put_var(struct skitx_buf *b, uint64_t v)
{
	unsigned char p[10];
	size_t n = 0;

	do {
		p[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return skitx_buf_add(b, p, n);
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

int skit__cache_put(struct skitx_buf *out, size_t root,
                    const struct skit__cache_key *k, const skit_entry *e,
                    const char *folder, const char *name_raw)
{
	const char *str[SKIT__CACHE_NSTR];
	size_t start = out->len;
	uint64_t v[13];
	int error = 0;

	str[SKIT__CACHE_FOLDER] = folder;
	str[SKIT__CACHE_NAME] = e->name;
	str[SKIT__CACHE_DESCRIPTION] = e->description;
	str[SKIT__CACHE_WHEN_TO_USE] = e->when_to_use;
	str[SKIT__CACHE_ARGUMENT_HINT] = e->argument_hint;
	str[SKIT__CACHE_REASON] =
	        e->state == SKIT_ENTRY_SKIPPED ? e->reason : NULL;
	str[SKIT__CACHE_NAME_RAW] = raw_kept(e, name_raw);
	if (!skit__cache_fits(e, folder, name_raw) || root >= ROOTS_MAX)
		return 0;

	v[0] = k->dir_dev;
	v[1] = k->dir_ino;
	v[2] = k->dev;
	v[3] = k->ino;
	v[4] = (uint64_t)k->size;
	v[5] = zigzag(k->mtime_sec);
	v[6] = zigzag(k->ctime_sec);
	v[7] = k->mtime_nsec;
	v[8] = k->ctime_nsec;
	v[9] = e->flags;
	v[10] = (uint64_t)e->state;
	v[11] = (uint64_t)e->warnings;
	v[12] = (uint64_t)root;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(v); i++)
		error |= put_var(out, v[i]);
	/* a folder spelled as the name is left out */
	if (!strcmp(folder, e->name))
		str[SKIT__CACHE_FOLDER] = NULL;
	for (size_t i = 0; i < SKIT__CACHE_NSTR; i++) {
		size_t len = str[i] ? strlen(str[i]) : 0;

		error |= put_var(out, str[i] ? (uint64_t)len + 1 : 0);
		if (str[i])
			error |= skitx_buf_add(out, str[i], len + 1);
	}
	if (error) {
		skitx_buf_truncate(out, start);
		return SKIT_ENOMEM;
	}
	return 1;
}

/*
 * The temporary file beside `file`, in folder `dir` (created 0700 when
 * missing: one mkdir() when only the last level is missing, the whole
 * path only when that fails). A descriptor, or -1.
 */
static int create_temp(char *tmpl, const char *dir)
{
	size_t len = strlen(tmpl);
	int fd = mkostemp(tmpl, O_CLOEXEC);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST &&
	    skitx_fs_mkdir_p(dir, 0700) < 0)
		return -1;
	/* a failed mkostemp() may have left a name in place of the XXXXXX */
	memcpy(tmpl + len - 6, "XXXXXX", 6);
	return mkostemp(tmpl, O_CLOEXEC);
}

/* Bytes a writer gathers before each write(). */
#define WRITE_CHUNK (256u * 1024)

static int flush(struct skit__cache_writer *w)
{
	int error;

	if (!w->buf.len)
		return 0;
	cksum_add(&w->sum, w->buf.ptr, w->buf.len);
	error = skitx_fs_write_all(w->fd, w->buf.ptr, w->buf.len);
	skitx_buf_clear(&w->buf);
	return error;
}

int skit__cache_writer_open(struct skit__cache_writer *w,
                            const struct skit__cache *c)
{
	const char *tag = skit__cache_build_tag();
	size_t vlen = strlen(tag);
	char *dir = NULL;
	int error;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	skitx_buf_init(&w->buf, 0);
	skitx_buf_init(&w->tmp, 0);
	if (!c->file || !c->roots)
		return SKIT_EINVALID;
	error = skitx_buf_printf(&w->tmp, "%s.tmp-XXXXXX", c->file);
	dir = error < 0 ? NULL : skitx_path_dirname(c->file);
	if (!dir || skitx_buf_grow(&w->buf, WRITE_CHUNK + 4096) < 0) {
		error = SKIT_ENOMEM;
		goto fail;
	}
	w->fd = create_temp(w->tmp.ptr, dir);
	skitx_free(dir);
	dir = NULL;
	if (w->fd < 0) {
		skitx_buf_clear(&w->tmp); /* nothing to remove */
		error = SKIT_EIO;
		goto fail;
	}
	/* the header is written last, at offset 0, once its fields are known */
	if (lseek(w->fd, HEADER_SIZE, SEEK_SET) != HEADER_SIZE) {
		error = SKIT_EIO;
		goto fail;
	}
	cksum_init(&w->sum);
	error = skitx_buf_add(&w->buf, tag, vlen);
	for (size_t i = 0; !error && i < c->nroots; i++) {
		error = put_u32(&w->buf, (uint32_t)strlen(c->roots[i]));
		if (!error)
			error = skitx_buf_add(&w->buf, c->roots[i],
			                      strlen(c->roots[i]));
		if (!error && w->buf.len >= WRITE_CHUNK)
			error = flush(w);
	}
	if (error < 0)
		goto fail;
	w->nroots = c->nroots;
	w->vlen = vlen;
	return 0;
fail:
	skitx_free(dir);
	skit__cache_writer_close(w, c, false);
	return error;
}

int skit__cache_writer_put(struct skit__cache_writer *w, size_t root,
                           const struct skit__cache_key *k, const skit_entry *e,
                           const char *folder, const char *name_raw)
{
	int put;

	if (w->error < 0)
		return w->error;
	put = skit__cache_put(&w->buf, root, k, e, folder, name_raw);
	if (put < 0) {
		w->error = put;
		return put;
	}
	w->nrecs += (size_t)put;
	if (w->sum.n + w->buf.len > CACHE_MAX - HEADER_SIZE ||
	    w->nrecs > UINT32_MAX)
		w->error = SKIT_ETOOBIG;
	else if (w->buf.len >= WRITE_CHUNK)
		w->error = flush(w);
	return w->error < 0 ? w->error : put;
}

/*
 * The header goes in last; then the file replaces the old one by rename(),
 * so a reader sees the old file or the new one, never a part. No fsync():
 * after a crash the file may be torn or empty, and then its length or
 * checksum rejects it and the next scan rewrites it. A cache is worth less
 * than the flush, which made a first scan of many small roots several
 * times slower than a scan without the cache.
 */
int skit__cache_writer_close(struct skit__cache_writer *w,
                             const struct skit__cache *c, bool commit)
{
	struct skitx_buf h = SKITX_BUF_INIT;
	int error = commit ? w->error : SKIT_EINVALID;

	if (!error && w->fd >= 0)
		error = flush(w);
	if (!error && w->fd >= 0) {
		uint64_t sum = cksum_end(&w->sum);

		error = skitx_buf_add(&h, MAGIC, 8);
		error |= put_u32(&h, FORMAT_VERSION);
		error |= put_u32(&h, BYTE_ORDER_MARK);
		error |= put_u64(&h, w->sum.n);
		error |= put_u64(&h, sum);
		error |= put_u32(&h, (uint32_t)w->nrecs);
		error |= put_u32(&h, (uint32_t)w->nroots);
		error |= put_u32(&h, (uint32_t)w->vlen);
		error |= put_u32(&h, 0);
		if (error < 0 || h.len != HEADER_SIZE)
			error = SKIT_ENOMEM;
		else if (pwrite(w->fd, h.ptr, h.len, 0) != (ssize_t)h.len)
			error = SKIT_EIO;
	}
	if (w->fd >= 0) {
		if (close(w->fd) < 0 && !error)
			error = SKIT_EIO;
		w->fd = -1;
		if (!error && rename(w->tmp.ptr, c->file) < 0)
			error = SKIT_EIO;
		if (error < 0)
			unlink(w->tmp.ptr);
	}
	/* too big to keep: drop a stale copy rather than read it */
	if (commit && error == SKIT_ETOOBIG && c->file)
		unlink(c->file);
	skitx_buf_release(&h);
	skitx_buf_release(&w->buf);
	skitx_buf_release(&w->tmp);
	return error;
}

void skit__cache_release(struct skit__cache *c)
{
	clear_records(c);
	for (size_t i = 0; c->roots && i < c->nroots; i++)
		skitx_free(c->roots[i]);
	skitx_free(c->roots);
	skitx_free(c->file);
	memset(c, 0, sizeof(*c));
}
