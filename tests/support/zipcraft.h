/* SPDX-License-Identifier: MIT */
/*
 * zipcraft.h - a raw zip writer for hostile test fixtures.
 *
 * It writes the bytes of a zip archive by hand (local headers, central
 * directory, end record) so that a test can make every lie an attacker
 * can tell: names with any bytes, a local name that differs from the
 * central one, any flags and method number, Unix modes for links, FIFOs
 * and devices, wrong CRCs and sizes, extra fields, zip64 markers, central
 * records sharing or overlapping a local header, bytes before the first
 * header or after the end record, a second end record in the comment.
 *
 * Deflate (method 8) is produced by its own small encoder, so no zlib is
 * needed: ordinary data is coded with the fixed Huffman code (literals,
 * plus distance-1 matches for runs of one byte), and a run of zeros (a
 * bomb) with a dynamic block in which a 258-byte match costs 2 bits,
 * about 1030:1.
 *
 * What it does not do: zip64 sizes for real (only markers), encryption,
 * any other compression method (the bytes given are written as they are),
 * archives over 4 GiB. Test code: on out-of-memory it aborts.
 */
#ifndef SKIT_TEST_ZIPCRAFT_H
#define SKIT_TEST_ZIPCRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* General-purpose flag bits. */
#define ZC_FLAG_ENCRYPTED  0x0001u
#define ZC_FLAG_DESCRIPTOR 0x0008u /* sizes in a data descriptor */
#define ZC_FLAG_UTF8       0x0800u

#define ZC_STORED  0
#define ZC_DEFLATE 8

/* Unix file types for zc_entry.mode (as in st_mode). */
#define ZC_S_IFREG  0100000u
#define ZC_S_IFDIR  0040000u
#define ZC_S_IFLNK  0120000u
#define ZC_S_IFIFO  0010000u
#define ZC_S_IFCHR  0020000u
#define ZC_S_IFBLK  0060000u
#define ZC_S_IFSOCK 0140000u

/*
 * One entry. Zero-initialise and set what matters: the zeros give a
 * well-formed stored entry with no Unix mode. zc_add() copies every byte
 * it points to, so the caller's buffers may go right after.
 */
struct zc_entry {
	/* The central-directory name; `name_len` 0 means strlen(name), so a
	 * name holding NUL bytes needs its length. */
	const char *name;
	size_t name_len;
	/* The local-header name when it should differ (NULL: the same). */
	const char *local_name;
	size_t local_name_len;

	/* The uncompressed bytes (the link target for a symlink). */
	const void *data;
	size_t len;
	/* With method 8 and nonzero: the data is this many zero bytes,
	 * coded as a bomb (`data` is ignored). */
	uint64_t zeros;

	uint16_t method; /* 0 stored, 8 deflate; any other number is written
	                  * as given, with `data` as the compressed bytes */
	bool raw;        /* write `data` verbatim even for method 0 or 8 */
	uint16_t flags;  /* ZC_FLAG_* */

	/* A Unix st_mode (type and permission bits): written in the upper
	 * half of the external attributes with "made by" Unix. 0: an MS-DOS
	 * entry, with `dos_attr` only. */
	uint32_t mode;
	uint8_t dos_attr;
	/* MS-DOS time and date; both 0 means 1980-01-01 00:00. */
	uint16_t dos_time, dos_date;

	/* Lies. Unset, each value is the true one. */
	bool set_crc;
	uint32_t crc; /* everywhere: local header, descriptor, central */
	bool set_local_sizes;
	uint32_t local_csize, local_usize;
	bool set_cd_sizes;
	uint32_t cd_csize, cd_usize;
	bool set_dd_sizes;
	uint32_t dd_csize, dd_usize;

	/* Extra fields, already encoded (id, length, data ...): `extra` goes
	 * into both headers, `local_extra` into the local one only. */
	const void *extra;
	size_t extra_len;
	const void *local_extra;
	size_t local_extra_len;

	/* Central record pointing at the local header of the earlier entry
	 * number `share_local - 1` (1-based; 0: off). No local header of its
	 * own is written; the CRC and sizes default to that entry's. */
	unsigned int share_local;
	/* Override the central record's local-header offset. */
	bool set_offset;
	uint32_t offset;
	bool no_central; /* a local header the central directory omits */
};

struct zc_item; /* private */

/*
 * An archive being built. The fields before `items` are options, read by
 * zc_write()/zc_build(); set them directly.
 */
struct zc {
	/* Bytes before the first local header (a polyglot). Offsets count
	 * them, as `zip -A` would, unless `prepend_unadjusted`. */
	const void *prepend;
	size_t prepend_len;
	bool prepend_unadjusted;
	/* Bytes after the end record. */
	const void *trailing;
	size_t trailing_len;
	/* The archive comment. */
	const void *comment;
	size_t comment_len;
	/* End the comment with a second, complete end record (comment
	 * length 0, so it too ends the file) that lists every central
	 * record but the last. */
	bool dup_eocd;
	/* End-record lies. */
	bool set_count;
	uint16_t count; /* both entry counts */
	bool set_cd_size;
	uint32_t cd_size;
	bool set_cd_offset;
	uint32_t cd_offset;
	uint16_t disk; /* "number of this disk" and the CD's disk (split) */
	/* Write a zip64 end record and locator, and 0xFFFF/0xFFFFFFFF in
	 * the classic end record. */
	bool zip64;
	uint64_t zip64_count; /* entries it claims; 0: the real count */

	/* private */
	struct zc_item *items;
	size_t n, cap;
};

struct zc *zc_new(void);
void zc_free(struct zc *zc);

/* Append a copy of `e`. */
void zc_add(struct zc *zc, const struct zc_entry *e);

/* A stored regular file, mode 0644, correct CRC. */
void zc_add_file(struct zc *zc, const char *name, const char *text);
/* The same with `len` bytes and a Unix mode (type bits optional). */
void zc_add_bytes(struct zc *zc, const char *name, const void *data, size_t len,
                  uint32_t mode);
/* A deflated regular file, mode 0644. */
void zc_add_deflated(struct zc *zc, const char *name, const void *data,
                     size_t len);
/* A folder entry ("name/", mode 040755); the '/' is added if missing. */
void zc_add_dir(struct zc *zc, const char *name);
/* A symbolic link entry (mode 0120777) pointing at `target`. */
void zc_add_symlink(struct zc *zc, const char *name, const char *target);

/*
 * The archive bytes into `*out` (free() them), its length in `*len`.
 * Returns 0, or -1 with errno EINVAL when a field does not fit (a name
 * over 65535 bytes, an archive over 4 GiB, share_local out of range).
 */
int zc_build(struct zc *zc, unsigned char **out, size_t *len);
/* zc_build() into the file `path` (replaced). 0, or -1 with errno. */
int zc_write(struct zc *zc, const char *path);

/* ---- pieces ---- */

/* CRC-32 (zip, IEEE) of `len` bytes, continuing from `crc` (0 to start). */
uint32_t zc_crc32(uint32_t crc, const void *data, size_t len);
/* CRC-32 continued over `n` zero bytes, in O(log n). */
uint32_t zc_crc32_zeros(uint32_t crc, uint64_t n);

/* Raw deflate streams (malloc'd; free() them). */
unsigned char *zc_deflate(const void *data, size_t len, size_t *out_len);
unsigned char *zc_deflate_zeros(uint64_t n, size_t *out_len);

/*
 * Encoded extra fields, written into `out` (which holds `cap` bytes);
 * each returns its length, or 0 when it does not fit.
 * Info-ZIP Unicode Path (0x7075): `uname` (UTF-8) for a header whose
 * name is `hdr_name` (`hdr_len` bytes; its CRC is part of the field).
 */
size_t zc_extra_unicode_path(unsigned char *out, size_t cap,
                             const char *hdr_name, size_t hdr_len,
                             const char *uname);
/* Zip64 (0x0001) holding the uncompressed then the compressed size. */
size_t zc_extra_zip64(unsigned char *out, size_t cap, uint64_t usize,
                      uint64_t csize);
/* Extended timestamp (0x5455) with a modification time (signed). */
size_t zc_extra_xtime(unsigned char *out, size_t cap, int32_t mtime);
/* NTFS (0x000a) with the three 64-bit FILETIME values set to `ft`. */
size_t zc_extra_ntfs(unsigned char *out, size_t cap, uint64_t ft);

/*
 * Write to `path` a non-recursive overlap bomb after David Fifield's
 * "zbsm": `files` entries named `prefix` + "0", "1", ..., whose deflate
 * streams overlap. Each entry's stream quotes (in stored blocks) the
 * local headers of the entries after it and ends in one shared kernel
 * that inflates to `kernel_zeros` zero bytes; entry i inflates to the
 * later headers plus the kernel, with a correct CRC. The entries of
 * `head` (may be NULL; its archive options are ignored) come first, as
 * ordinary entries, e.g. a SKILL.md. 0, or -1 with errno.
 */
int zc_write_overlap_bomb(const char *path, unsigned int files,
                          uint64_t kernel_zeros, const char *prefix,
                          struct zc *head);

#endif
