/* SPDX-License-Identifier: MIT */
/*
 * zipcraft.c - a raw zip writer for hostile test fixtures (zipcraft.h).
 *
 * The archive is built in memory, in order: prepended bytes, each local
 * header with its data (and data descriptor), the central directory, an
 * optional zip64 end record and locator, the end record with its comment
 * (and, when asked, a second end record inside it), trailing bytes.
 * Every multi-byte field is little-endian, as the zip format wants.
 */
#include "common.h"

#include "support/zipcraft.h"

/* The private half of an entry: owned copies of its bytes, and what
 * zc_build() computes for it. */
struct zc_item {
	struct zc_entry e; /* its pointers lead to the copies below */
	unsigned char *name, *lname, *data, *extra, *lextra;
	/* computed */
	unsigned char *payload; /* owned unless it is `data` */
	size_t plen;
	uint32_t crc, usize, off;
};

struct zbuf {
	unsigned char *p;
	size_t len, cap;
};

/* Test code: running out of memory ends the test program. */
static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static unsigned char *dup_bytes(const void *p, size_t n)
{
	unsigned char *q = xrealloc(NULL, n + 1);

	if (n)
		memcpy(q, p, n);
	q[n] = 0;
	return q;
}

static void zb_put(struct zbuf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void zb_byte(struct zbuf *b, unsigned int v)
{
	unsigned char c = (unsigned char)v;

	zb_put(b, &c, 1);
}

static void zb_u16(struct zbuf *b, uint32_t v)
{
	zb_byte(b, v & 0xff);
	zb_byte(b, (v >> 8) & 0xff);
}

static void zb_u32(struct zbuf *b, uint32_t v)
{
	zb_u16(b, v & 0xffff);
	zb_u16(b, v >> 16);
}

static void zb_u64(struct zbuf *b, uint64_t v)
{
	zb_u32(b, (uint32_t)v);
	zb_u32(b, (uint32_t)(v >> 32));
}

static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)((v >> 8) & 0xff);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* ---- CRC-32 ---------------------------------------------------------- */

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void)
{
	uint32_t c;
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	crc_ready = 1;
}

uint32_t zc_crc32(uint32_t crc, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t c = crc ^ 0xffffffffu;

	if (!crc_ready)
		crc_init();
	while (len--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/*
 * Feeding zero bytes into the CRC register is linear, so n of them are
 * one 32x32 matrix over GF(2), raised to the n-th power by squaring (the
 * method of zlib's crc32_combine()).
 */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	while (vec) {
		if (vec & 1)
			sum ^= *mat;
		vec >>= 1;
		mat++;
	}
	return sum;
}

static void gf2_square(uint32_t *sq, const uint32_t *mat)
{
	for (int n = 0; n < 32; n++)
		sq[n] = gf2_times(mat, mat[n]);
}

uint32_t zc_crc32_zeros(uint32_t crc, uint64_t n)
{
	uint32_t even[32], odd[32], reg, row = 1;

	if (!n)
		return crc;
	/* odd: the operator for one zero bit */
	odd[0] = 0xedb88320u;
	for (int i = 1; i < 32; i++) {
		odd[i] = row;
		row <<= 1;
	}
	gf2_square(even, odd); /* two bits */
	gf2_square(odd, even); /* four bits */
	reg = crc ^ 0xffffffffu;
	do {
		gf2_square(even, odd); /* first pass: one byte */
		if (n & 1)
			reg = gf2_times(even, reg);
		n >>= 1;
		if (!n)
			break;
		gf2_square(odd, even);
		if (n & 1)
			reg = gf2_times(odd, reg);
		n >>= 1;
	} while (n);
	return reg ^ 0xffffffffu;
}

/* ---- deflate --------------------------------------------------------- */

/* Bits go out least significant first; Huffman codes most significant
 * first, hence bw_huff() reverses them. */
struct bitw {
	struct zbuf out;
	uint32_t acc;
	unsigned int n;
};

static void bw_bits(struct bitw *w, uint32_t v, unsigned int nbits)
{
	w->acc |= v << w->n;
	w->n += nbits;
	while (w->n >= 8) {
		zb_byte(&w->out, w->acc & 0xff);
		w->acc >>= 8;
		w->n -= 8;
	}
}

static void bw_huff(struct bitw *w, uint32_t code, unsigned int len)
{
	uint32_t r = 0;

	for (unsigned int i = 0; i < len; i++)
		r |= ((code >> i) & 1) << (len - 1 - i);
	bw_bits(w, r, len);
}

static unsigned char *bw_finish(struct bitw *w, size_t *out_len)
{
	if (w->n)
		zb_byte(&w->out, w->acc & 0xff);
	*out_len = w->out.len;
	return w->out.p ? w->out.p : xrealloc(NULL, 1);
}

/* The fixed literal/length code of RFC 1951 3.2.6. */
static void fixed_sym(struct bitw *w, unsigned int sym)
{
	if (sym < 144)
		bw_huff(w, 0x30 + sym, 8);
	else if (sym < 256)
		bw_huff(w, 0x190 + sym - 144, 9);
	else if (sym < 280)
		bw_huff(w, sym - 256, 7);
	else
		bw_huff(w, 0xc0 + sym - 280, 8);
}

static const uint16_t len_base[29] = { 3,   4,   5,   6,   7,  8,  9,  10,
	                               11,  13,  15,  17,  19, 23, 27, 31,
	                               35,  43,  51,  59,  67, 83, 99, 115,
	                               131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
	                               1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
	                               4, 4, 4, 4, 5, 5, 5, 5, 0 };

/* A match of `len` (3..258) bytes at distance 1, fixed code. */
static void fixed_match(struct bitw *w, unsigned int len)
{
	int i = 28;

	while (len_base[i] > len)
		i--;
	fixed_sym(w, 257 + (unsigned int)i);
	bw_bits(w, len - len_base[i], len_extra[i]);
	bw_huff(w, 0, 5); /* distance code 0: distance 1 */
}

unsigned char *zc_deflate(const void *data, size_t len, size_t *out_len)
{
	const unsigned char *d = data;
	struct bitw w = { { NULL, 0, 0 }, 0, 0 };
	size_t i = 1, r;

	bw_bits(&w, 1, 1); /* BFINAL */
	bw_bits(&w, 1, 2); /* BTYPE 01: fixed Huffman */
	if (len)
		fixed_sym(&w, d[0]);
	while (i < len) {
		r = 0;
		while (i + r < len && r < 258 && d[i + r] == d[i - 1])
			r++;
		if (r >= 3) {
			fixed_match(&w, (unsigned int)r);
			i += r;
		} else {
			fixed_sym(&w, d[i]);
			i++;
		}
	}
	fixed_sym(&w, 256);
	return bw_finish(&w, out_len);
}

/*
 * One dynamic block whose literal/length code holds only literal 0
 * ("10"), end of block ("11") and length 258 ("0"), and whose distance
 * code holds distances 1 ("0") and 2 ("1"): a literal zero, then 2 bits
 * per further 258 zeros, the rest as literals.
 */
unsigned char *zc_deflate_zeros(uint64_t n, size_t *out_len)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
		                           11, 4,  12, 3, 13, 2, 14, 1, 15 };
	uint8_t cl[19] = { 0 };
	struct bitw w = { { NULL, 0, 0 }, 0, 0 };
	uint64_t m, r;

	bw_bits(&w, 1, 1);  /* BFINAL */
	bw_bits(&w, 2, 2);  /* BTYPE 10: dynamic */
	bw_bits(&w, 29, 5); /* HLIT: 286 codes */
	bw_bits(&w, 1, 5);  /* HDIST: 2 codes */
	bw_bits(&w, 14, 4); /* HCLEN: 18 code length codes */
	/* The code length code: 1 -> "10", 2 -> "11", 18 -> "0". */
	cl[1] = 2;
	cl[2] = 2;
	cl[18] = 1;
	for (int i = 0; i < 18; i++)
		bw_bits(&w, cl[order[i]], 3);
	bw_huff(&w, 3, 2); /* literal 0: length 2 */
	bw_huff(&w, 0, 1); /* 1..138: 138 zeros */
	bw_bits(&w, 138 - 11, 7);
	bw_huff(&w, 0, 1); /* 139..255: 117 zeros */
	bw_bits(&w, 117 - 11, 7);
	bw_huff(&w, 3, 2); /* 256 (end of block): length 2 */
	bw_huff(&w, 0, 1); /* 257..284: 28 zeros */
	bw_bits(&w, 28 - 11, 7);
	bw_huff(&w, 2, 2); /* 285 (length 258): length 1 */
	bw_huff(&w, 2, 2); /* distance 1: length 1 */
	bw_huff(&w, 2, 2); /* distance 2: length 1 */
	if (n) {
		bw_huff(&w, 2, 2); /* literal 0 */
		m = (n - 1) / 258;
		r = (n - 1) % 258;
		while (m--)
			bw_bits(&w, 0, 2); /* length 258, distance 1 */
		while (r--)
			bw_huff(&w, 2, 2);
	}
	bw_huff(&w, 3, 2); /* end of block */
	return bw_finish(&w, out_len);
}

/* ---- building -------------------------------------------------------- */

struct zc *zc_new(void)
{
	struct zc *zc = xrealloc(NULL, sizeof(*zc));

	memset(zc, 0, sizeof(*zc));
	return zc;
}

void zc_free(struct zc *zc)
{
	if (!zc)
		return;
	for (size_t i = 0; i < zc->n; i++) {
		struct zc_item *it = &zc->items[i];

		free(it->name);
		free(it->lname);
		free(it->data);
		free(it->extra);
		free(it->lextra);
		if (it->payload != it->data)
			free(it->payload);
	}
	free(zc->items);
	free(zc);
}

void zc_add(struct zc *zc, const struct zc_entry *e)
{
	struct zc_item *it;

	assert(e->name);
	if (zc->n == zc->cap) {
		zc->cap = zc->cap ? zc->cap * 2 : 16;
		zc->items = xrealloc(zc->items, zc->cap * sizeof(*zc->items));
	}
	it = &zc->items[zc->n++];
	memset(it, 0, sizeof(*it));
	it->e = *e;
	if (!it->e.name_len)
		it->e.name_len = strlen(e->name);
	it->name = dup_bytes(e->name, it->e.name_len);
	it->e.name = (const char *)it->name;
	if (e->local_name) {
		if (!it->e.local_name_len)
			it->e.local_name_len = strlen(e->local_name);
		it->lname = dup_bytes(e->local_name, it->e.local_name_len);
		it->e.local_name = (const char *)it->lname;
	}
	it->data = dup_bytes(e->data ? e->data : "", e->data ? e->len : 0);
	it->e.data = it->data;
	if (!e->data)
		it->e.len = 0;
	it->extra = dup_bytes(e->extra ? e->extra : "", e->extra_len);
	it->e.extra = it->extra;
	it->lextra = dup_bytes(e->local_extra ? e->local_extra : "",
	                       e->local_extra ? e->local_extra_len : 0);
	it->e.local_extra = it->lextra;
}

void zc_add_bytes(struct zc *zc, const char *name, const void *data, size_t len,
                  uint32_t mode)
{
	struct zc_entry e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.data = data;
	e.len = len;
	e.mode = (mode & 0170000u) ? mode : (ZC_S_IFREG | mode);
	zc_add(zc, &e);
}

void zc_add_file(struct zc *zc, const char *name, const char *text)
{
	zc_add_bytes(zc, name, text, strlen(text), 0644);
}

void zc_add_deflated(struct zc *zc, const char *name, const void *data,
                     size_t len)
{
	struct zc_entry e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.data = data;
	e.len = len;
	e.method = ZC_DEFLATE;
	e.mode = ZC_S_IFREG | 0644;
	zc_add(zc, &e);
}

void zc_add_dir(struct zc *zc, const char *name)
{
	struct zc_entry e;
	size_t n = strlen(name);
	char *full = xrealloc(NULL, n + 2);

	memcpy(full, name, n + 1);
	if (!n || full[n - 1] != '/') {
		full[n] = '/';
		full[n + 1] = 0;
	}
	memset(&e, 0, sizeof(e));
	e.name = full;
	e.mode = ZC_S_IFDIR | 0755;
	e.dos_attr = 0x10;
	zc_add(zc, &e);
	free(full);
}

void zc_add_symlink(struct zc *zc, const char *name, const char *target)
{
	zc_add_bytes(zc, name, target, strlen(target), ZC_S_IFLNK | 0777);
}

/* Compute an item's payload, CRC and uncompressed size. */
static int prepare(struct zc_item *it)
{
	const struct zc_entry *e = &it->e;

	if (e->method == ZC_DEFLATE && !e->raw) {
		if (e->zeros) {
			if (e->zeros > UINT32_MAX)
				return -1;
			it->payload = zc_deflate_zeros(e->zeros, &it->plen);
			it->usize = (uint32_t)e->zeros;
			it->crc = zc_crc32_zeros(0, e->zeros);
		} else {
			it->payload = zc_deflate(it->data, e->len, &it->plen);
			it->usize = (uint32_t)e->len;
			it->crc = zc_crc32(0, it->data, e->len);
		}
	} else {
		it->payload = it->data;
		it->plen = e->len;
		it->usize = (uint32_t)e->len;
		it->crc = zc_crc32(0, it->data, e->len);
	}
	if (e->len > UINT32_MAX || it->plen > UINT32_MAX)
		return -1;
	return 0;
}

static void dos_stamp(const struct zc_entry *e, uint32_t *t, uint32_t *d)
{
	*t = e->dos_time;
	*d = e->dos_date;
	if (!*t && !*d)
		*d = (0u << 9) | (1u << 5) | 1u; /* 1980-01-01 */
}

static void write_local(struct zbuf *b, const struct zc_item *it)
{
	const struct zc_entry *e = &it->e;
	const char *lname = e->local_name ? e->local_name : e->name;
	size_t llen = e->local_name ? e->local_name_len : e->name_len;
	uint32_t t, d, crc = it->crc, cs = (uint32_t)it->plen, us = it->usize;

	dos_stamp(e, &t, &d);
	if (e->flags & ZC_FLAG_DESCRIPTOR)
		crc = cs = us = 0;
	if (e->set_local_sizes) {
		cs = e->local_csize;
		us = e->local_usize;
	}
	zb_u32(b, 0x04034b50u);
	zb_u16(b, 20); /* version needed: 2.0 */
	zb_u16(b, e->flags);
	zb_u16(b, e->method);
	zb_u16(b, t);
	zb_u16(b, d);
	zb_u32(b, crc);
	zb_u32(b, cs);
	zb_u32(b, us);
	zb_u16(b, (uint32_t)llen);
	zb_u16(b, (uint32_t)(e->extra_len + e->local_extra_len));
	zb_put(b, lname, llen);
	zb_put(b, e->extra, e->extra_len);
	zb_put(b, e->local_extra, e->local_extra_len);
	zb_put(b, it->payload, it->plen);
	if (e->flags & ZC_FLAG_DESCRIPTOR) {
		zb_u32(b, 0x08074b50u);
		zb_u32(b, it->crc);
		zb_u32(b, e->set_dd_sizes ? e->dd_csize : (uint32_t)it->plen);
		zb_u32(b, e->set_dd_sizes ? e->dd_usize : it->usize);
	}
}

static void write_central(struct zbuf *b, const struct zc_item *it)
{
	const struct zc_entry *e = &it->e;
	uint32_t t, d, ext = e->dos_attr;

	dos_stamp(e, &t, &d);
	if (e->mode) {
		ext |= e->mode << 16;
		if ((e->mode & 0170000u) == ZC_S_IFDIR)
			ext |= 0x10;
	}
	zb_u32(b, 0x02014b50u);
	zb_u16(b, e->mode ? (3u << 8) | 30 : 20); /* made by: Unix 3.0 */
	zb_u16(b, 20);
	zb_u16(b, e->flags);
	zb_u16(b, e->method);
	zb_u16(b, t);
	zb_u16(b, d);
	zb_u32(b, it->crc);
	zb_u32(b, e->set_cd_sizes ? e->cd_csize : (uint32_t)it->plen);
	zb_u32(b, e->set_cd_sizes ? e->cd_usize : it->usize);
	zb_u16(b, (uint32_t)e->name_len);
	zb_u16(b, (uint32_t)e->extra_len);
	zb_u16(b, 0); /* comment */
	zb_u16(b, 0); /* disk */
	zb_u16(b, 0); /* internal attributes */
	zb_u32(b, ext);
	zb_u32(b, e->set_offset ? e->offset : it->off);
	zb_put(b, e->name, e->name_len);
	zb_put(b, e->extra, e->extra_len);
}

static void write_eocd(struct zbuf *b, uint16_t disk, uint32_t count,
                       uint32_t cd_size, uint32_t cd_off, size_t comment_len)
{
	zb_u32(b, 0x06054b50u);
	zb_u16(b, disk);
	zb_u16(b, disk);
	zb_u16(b, count);
	zb_u16(b, count);
	zb_u32(b, cd_size);
	zb_u32(b, cd_off);
	zb_u16(b, (uint32_t)comment_len);
}

static int fits(const struct zc *zc)
{
	size_t extra = zc->dup_eocd ? 22 : 0;

	if (zc->comment_len + extra > 0xffff)
		return 0;
	for (size_t i = 0; i < zc->n; i++) {
		const struct zc_entry *e = &zc->items[i].e;

		if (e->name_len > 0xffff || e->local_name_len > 0xffff ||
		    e->extra_len + e->local_extra_len > 0xffff)
			return 0;
		if (e->share_local && e->share_local > i)
			return 0;
	}
	return 1;
}

int zc_build(struct zc *zc, unsigned char **out, size_t *len)
{
	struct zbuf b = { NULL, 0, 0 };
	size_t adjust, cd_start, cd_last = 0, cd_end, z64 = 0, count = 0;
	uint32_t cd_off, cd_size, n16;

	if (!fits(zc))
		goto inval;
	zb_put(&b, zc->prepend, zc->prepend ? zc->prepend_len : 0);
	adjust = zc->prepend_unadjusted ? b.len : 0;
	for (size_t i = 0; i < zc->n; i++) {
		struct zc_item *it = &zc->items[i];

		if (it->payload && it->payload != it->data)
			free(it->payload);
		it->payload = NULL;
		if (it->e.share_local) {
			const struct zc_item *k =
			        &zc->items[it->e.share_local - 1];

			it->payload = it->data; /* not written */
			it->plen = k->plen;
			it->usize = k->usize;
			it->crc = k->crc;
			it->off = k->off;
		} else {
			if (prepare(it) < 0)
				goto inval;
		}
		if (it->e.set_crc)
			it->crc = it->e.crc;
		if (!it->e.share_local) {
			it->off = (uint32_t)(b.len - adjust);
			write_local(&b, it);
		}
	}
	cd_start = b.len;
	for (size_t i = 0; i < zc->n; i++) {
		if (zc->items[i].e.no_central)
			continue;
		cd_last = b.len;
		write_central(&b, &zc->items[i]);
		count++;
	}
	cd_end = b.len;
	if (b.len > UINT32_MAX)
		goto inval;
	cd_off = zc->set_cd_offset ? zc->cd_offset
	                           : (uint32_t)(cd_start - adjust);
	cd_size = zc->set_cd_size ? zc->cd_size : (uint32_t)(cd_end - cd_start);
	n16 = zc->set_count ? zc->count : (uint32_t)(count & 0xffff);
	if (zc->zip64) {
		z64 = b.len - adjust;
		zb_u32(&b, 0x06064b50u);
		zb_u64(&b, 44);
		zb_u16(&b, (3u << 8) | 45);
		zb_u16(&b, 45);
		zb_u32(&b, zc->disk);
		zb_u32(&b, zc->disk);
		zb_u64(&b, zc->zip64_count ? zc->zip64_count : count);
		zb_u64(&b, zc->zip64_count ? zc->zip64_count : count);
		zb_u64(&b, cd_size);
		zb_u64(&b, cd_off);
		zb_u32(&b, 0x07064b50u);
		zb_u32(&b, zc->disk);
		zb_u64(&b, z64);
		zb_u32(&b, 1);
		n16 = 0xffff;
		cd_size = 0xffffffffu;
		cd_off = 0xffffffffu;
	}
	write_eocd(&b, zc->disk, n16, cd_size, cd_off,
	           (zc->comment ? zc->comment_len : 0) +
	                   (zc->dup_eocd ? 22 : 0));
	zb_put(&b, zc->comment, zc->comment ? zc->comment_len : 0);
	if (zc->dup_eocd)
		write_eocd(&b, zc->disk, count ? (uint32_t)count - 1 : 0,
		           (uint32_t)(cd_last - cd_start),
		           (uint32_t)(cd_start - adjust), 0);
	zb_put(&b, zc->trailing, zc->trailing ? zc->trailing_len : 0);
	*out = b.p ? b.p : xrealloc(NULL, 1);
	*len = b.len;
	return 0;
inval:
	free(b.p);
	errno = EINVAL;
	return -1;
}

static int write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int bad;

	if (!f)
		return -1;
	bad = fwrite(p, 1, n, f) != n;
	if (fclose(f) != 0)
		bad = 1;
	return bad ? -1 : 0;
}

int zc_write(struct zc *zc, const char *path)
{
	unsigned char *p;
	size_t n;
	int rc;

	if (zc_build(zc, &p, &n) < 0)
		return -1;
	rc = write_file(path, p, n);
	free(p);
	return rc;
}

/* ---- extra fields ---------------------------------------------------- */

size_t zc_extra_unicode_path(unsigned char *out, size_t cap,
                             const char *hdr_name, size_t hdr_len,
                             const char *uname)
{
	size_t ulen = strlen(uname), n = 4 + 1 + 4 + ulen;

	if (n > cap || n - 4 > 0xffff)
		return 0;
	put16(out, 0x7075);
	put16(out + 2, (uint32_t)(n - 4));
	out[4] = 1; /* version */
	put32(out + 5, zc_crc32(0, hdr_name, hdr_len));
	memcpy(out + 9, uname, ulen);
	return n;
}

size_t zc_extra_zip64(unsigned char *out, size_t cap, uint64_t usize,
                      uint64_t csize)
{
	if (cap < 20)
		return 0;
	put16(out, 0x0001);
	put16(out + 2, 16);
	put64(out + 4, usize);
	put64(out + 12, csize);
	return 20;
}

size_t zc_extra_xtime(unsigned char *out, size_t cap, int32_t mtime)
{
	if (cap < 9)
		return 0;
	put16(out, 0x5455);
	put16(out + 2, 5);
	out[4] = 1; /* modification time present */
	put32(out + 5, (uint32_t)mtime);
	return 9;
}

size_t zc_extra_ntfs(unsigned char *out, size_t cap, uint64_t ft)
{
	if (cap < 36)
		return 0;
	put16(out, 0x000a);
	put16(out + 2, 32);
	put32(out + 4, 0); /* reserved */
	put16(out + 8, 1); /* tag 1: times */
	put16(out + 10, 24);
	put64(out + 12, ft);
	put64(out + 20, ft);
	put64(out + 28, ft);
	return 36;
}

/* ---- the overlap bomb ------------------------------------------------ */

static void local_header(struct zbuf *b, const char *name, uint32_t crc,
                         uint32_t csize, uint32_t usize)
{
	zb_u32(b, 0x04034b50u);
	zb_u16(b, 20);
	zb_u16(b, 0);
	zb_u16(b, ZC_DEFLATE);
	zb_u16(b, 0);
	zb_u16(b, 0x21);
	zb_u32(b, crc);
	zb_u32(b, csize);
	zb_u32(b, usize);
	zb_u16(b, (uint32_t)strlen(name));
	zb_u16(b, 0);
	zb_put(b, name, strlen(name));
}

int zc_write_overlap_bomb(const char *path, unsigned int files,
                          uint64_t kernel_zeros, const char *prefix,
                          struct zc *head)
{
	struct zbuf *hdr, out = { NULL, 0, 0 };
	char(*names)[64];
	uint32_t *crc, *cs, *us, *off;
	unsigned char *kernel;
	size_t klen, cd_start;
	uint64_t u, c;
	int rc = -1;

	if (!files || kernel_zeros > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	kernel = zc_deflate_zeros(kernel_zeros, &klen);
	hdr = xrealloc(NULL, files * sizeof(*hdr));
	names = xrealloc(NULL, files * sizeof(*names));
	crc = xrealloc(NULL, files * sizeof(*crc));
	cs = xrealloc(NULL, files * sizeof(*cs));
	us = xrealloc(NULL, files * sizeof(*us));
	off = xrealloc(NULL, files * sizeof(*off));
	memset(hdr, 0, files * sizeof(*hdr));
	/*
	 * Last to first: entry i's stream is a stored block quoting each
	 * later local header, then the kernel; its output is those headers
	 * then the kernel's zeros, so its header needs the later ones.
	 */
	for (unsigned int i = files; i-- > 0;) {
		uint32_t k = 0;

		snprintf(names[i], sizeof(names[i]), "%s%u", prefix, i);
		u = kernel_zeros;
		c = klen;
		for (unsigned int j = i + 1; j < files; j++) {
			k = zc_crc32(k, hdr[j].p, hdr[j].len);
			u += hdr[j].len;
			c += 5 + hdr[j].len;
		}
		if (u > UINT32_MAX || c > UINT32_MAX) {
			errno = EINVAL;
			goto out;
		}
		crc[i] = zc_crc32_zeros(k, kernel_zeros);
		cs[i] = (uint32_t)c;
		us[i] = (uint32_t)u;
		local_header(&hdr[i], names[i], crc[i], cs[i], us[i]);
	}
	/* The head's entries first, as ordinary ones. */
	for (size_t i = 0; head && i < head->n; i++) {
		struct zc_item *it = &head->items[i];

		if (it->payload && it->payload != it->data)
			free(it->payload);
		it->payload = NULL;
		if (prepare(it) < 0) {
			errno = EINVAL;
			goto out;
		}
		it->off = (uint32_t)out.len;
		write_local(&out, it);
	}
	for (unsigned int i = 0; i < files; i++) {
		off[i] = (uint32_t)out.len;
		zb_put(&out, hdr[i].p, hdr[i].len);
		if (i + 1 < files) {
			/* A non-final stored block holding the next header. */
			zb_byte(&out, 0);
			zb_u16(&out, (uint32_t)hdr[i + 1].len);
			zb_u16(&out, (uint32_t)~hdr[i + 1].len & 0xffff);
		}
	}
	zb_put(&out, kernel, klen);
	cd_start = out.len;
	for (size_t i = 0; head && i < head->n; i++)
		write_central(&out, &head->items[i]);
	for (unsigned int i = 0; i < files; i++) {
		zb_u32(&out, 0x02014b50u);
		zb_u16(&out, 20);
		zb_u16(&out, 20);
		zb_u16(&out, 0);
		zb_u16(&out, ZC_DEFLATE);
		zb_u16(&out, 0);
		zb_u16(&out, 0x21);
		zb_u32(&out, crc[i]);
		zb_u32(&out, cs[i]);
		zb_u32(&out, us[i]);
		zb_u16(&out, (uint32_t)strlen(names[i]));
		zb_u16(&out, 0);
		zb_u16(&out, 0);
		zb_u16(&out, 0);
		zb_u16(&out, 0);
		zb_u32(&out, 0);
		zb_u32(&out, off[i]);
		zb_put(&out, names[i], strlen(names[i]));
	}
	write_eocd(&out, 0, files + (uint32_t)(head ? head->n : 0),
	           (uint32_t)(out.len - cd_start), (uint32_t)cd_start, 0);
	rc = write_file(path, out.p, out.len);
out:
	for (unsigned int i = 0; i < files; i++)
		free(hdr[i].p);
	free(hdr);
	free(names);
	free(crc);
	free(cs);
	free(us);
	free(off);
	free(kernel);
	free(out.p);
	return rc;
}
