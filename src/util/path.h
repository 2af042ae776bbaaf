/* SPDX-License-Identifier: MIT */
/* path.h - path strings: joining and naming. No file-system access. */
#ifndef SKITX_PATH_H
#define SKITX_PATH_H

#include <stddef.h>

/* "a" + "b" -> "a/b" (no doubled slash). skitx_malloc'd; NULL on OOM. */
char *skitx_path_join(const char *a, const char *b);

/*
 * The last component as Python's pathlib gives it: empty and "."
 * components are dropped, so "x/." and "x/" name "x" and "." names "".
 * Returns a pointer into `path` and its length in `*len`.
 */
const char *skitx_path_name(const char *path, size_t *len);

/* The parent folder of `path` ("." when none). skitx_malloc'd. */
char *skitx_path_dirname(const char *path);

/*
 * Absolute, with "." and ".." resolved lexically against the working
 * folder (no symbolic links resolved). skitx_malloc'd.
 */
char *skitx_path_absolute(const char *path);

/*
 * skitx_path_absolute(), then resolved (links and all) where it exists:
 * the spelling under which a folder is recorded and compared (a link to
 * a folder names the folder it leads to). skitx_malloc'd; NULL on OOM.
 */
char *skitx_path_real(const char *path);

/*
 * Python's pathlib spelling of `path`: repeated slashes folded, "."
 * components and trailing slashes dropped ("." when nothing is left). The
 * reference prints paths this way, and the registry and the skill module
 * must spell the same folder the same way. skitx_malloc'd; NULL on OOM.
 */
char *skitx_path_clean(const char *path);

#endif
