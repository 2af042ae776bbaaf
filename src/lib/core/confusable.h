/* SPDX-License-Identifier: MIT */
/*
 * confusable.h - names that look alike (Unicode UTS #39, through ICU's
 * spoof checker): a name's confusables *skeleton*, and whether a name
 * mixes scripts. Two names are confusable when their skeletons are equal
 * (`рdf` in Cyrillic letters and `pdf`; `modern` and `rnodern`). The
 * registry reports such pairs, validate lints mixed-script names, and
 * install refuses a name confusable with an installed skill's.
 *
 * It decides nothing about case or NFKC forms: callers fold names first
 * (the registry's fold key), so `Foo` and `foo` are a name collision,
 * not a confusable pair.
 */
#ifndef SKIT_LIB_CONFUSABLE_H
#define SKIT_LIB_CONFUSABLE_H

#include <stdbool.h>

#include "util/buf.h"

/*
 * A checker. Open one per thread (ICU's checker is not shared here);
 * the ASCII table is filled on first use.
 */
struct skit__confusable {
	void *checker; /* USpoofChecker */
	void *result;  /* USpoofCheckResult */
	bool ascii_ready;
	char ascii[128][8]; /* skeleton of each ASCII character */
};

/* 0, or SKIT_ENOMEM (also when ICU's data cannot be loaded). */
int skit__confusable_open(struct skit__confusable *c);
void skit__confusable_close(struct skit__confusable *c);

/*
 * The UTS #39 skeleton of `name` (UTF-8) into `out` (cleared first).
 * 0; SKIT_EENCODING for invalid UTF-8 or a name over 1 KiB; SKIT_ENOMEM.
 */
int skit__confusable_skeleton(struct skit__confusable *c, const char *name,
                              struct skitx_buf *out);

/*
 * True when `name` mixes scripts (UTS #39: its resolved script set is
 * empty, so it is not even single-script restrictive). Digits, `-` and
 * other Common characters belong to every script; Han with Hiragana or
 * Katakana is one writing system (Japanese), as are Han and Hangul.
 */
bool skit__confusable_mixed_script(struct skit__confusable *c,
                                   const char *name);

/*
 * The scripts of a mixed-script name, for a message: "Cyrillic, Latin".
 * Written into `out` (cleared first). 0 or SKIT_ENOMEM.
 */
int skit__confusable_scripts(const char *name, struct skitx_buf *out);

/*
 * The name of a skill folder in the open skills root `rootfd` that looks
 * like `name` but is not it (equal skeletons of the NFKC + case-folded
 * names), for install: a new skill may not pose as an installed one.
 * Dot-entries and non-folders are not skills and are ignored.
 *
 * @param[out] other  the first such folder name in byte order, owned by
 *                    the caller (skitx_free()); NULL when there is none
 * @return 0 (also when the root cannot be read: nothing to compare);
 *         SKIT_ENOMEM.
 */
int skit__confusable_installed(char **other, int rootfd, const char *name);

#endif
