/* SPDX-License-Identifier: MIT */
/*
 * tools_int.h - what the tool handlers share (library-internal): tools.c
 * holds the skill tools' provider, scripts and shell; tools_fs.c the
 * project tools' provider (read_file, list_dir, grep, glob, write_file,
 * edit_file, multi_edit, and shell). Both see the run through struct
 * skit__tool_ctx (tool_provider.h); the permission gate is the agent's.
 */
#ifndef SKIT_LIB_TOOLS_INT_H
#define SKIT_LIB_TOOLS_INT_H

#include <jansson.h>

#include "lib/core/digest.h"
#include "skit/common.h"
#include "skit/model.h"
#include "util/buf.h"

struct skit__tool_ctx;

/* Longest path a tool accepts, in bytes. */
#define SKIT__TOOL_PATH_MAX 4096

/* Replace `out` with an error message for the model; sets *is_error.
 * Returns 0, or SKIT_ENOMEM. */
int skit__tool_error(struct skitx_buf *out, bool *is_error, const char *fmt,
                     ...) SKIT_PRINTF(3, 4);

/* The string argument `key`, or NULL when absent or not a string. */
const char *skit__str_arg(json_t *args, const char *key);

/* Append text for the model (file contents, script output, tool results)
 * with every hidden character (skitx_utf8_is_hidden(): controls, bidi,
 * zero-width, TAG...) and invalid UTF-8 replaced by U+FFFD (tab and
 * newline kept). 0 or SKIT_ENOMEM. */
int skit__put_clean(struct skitx_buf *out, const char *s, size_t len);

/* NULL when `p` is a relative path that stays inside its folder
 * (lexically), else why not. */
const char *skit__check_rel_path(const char *p);

/* Open `rel` under `dirfd` without leaving it or following a symbolic
 * link (openat2 RESOLVE_BENEATH, or one O_NOFOLLOW step per component).
 * A descriptor, or -1 with errno set. */
int skit__open_beneath(int dirfd, const char *rel, int flags);

/* The model-facing wording of an open failure. */
const char *skit__open_failure(int e);

/* List the folder open at `fd` (taken) into `out`. 0 or SKIT_ENOMEM. */
int skit__list_folder(int fd, struct skitx_buf *out, const char *rel);

/* What skit__tool_read() read, for the audit trail. */
struct skit__read_info {
	bool read; /* a file's content was read (not a folder, no error) */
	size_t first;
	bool truncated;
	long long file_bytes;
	bool hardlinked;
};

/*
 * Read the lines `args` asks for ("offset", "limit") of the file `path`
 * under `dirfd` into `out` (a folder is listed instead; a binary file is
 * described). Errors the model can act on become error results.
 */
int skit__tool_read(struct skit__tool_ctx *c, int dirfd, const char *path,
                    json_t *args, struct skitx_buf *out, bool *is_error,
                    struct skit__read_info *ri, skit_error *err);

/* The schema of the skill tool or script tool `name` (use_skill,
 * read_skill_resource, search_skills, update_plan, run_skill_script),
 * whether offered now or not; NULL for another name. Static storage. */
const skit_tool_schema *skit__tool_schema(const char *name);

/* The shell tool (tools.c, where the other programs run), offered by
 * the project tools' provider. A call already allowed; the contract of
 * struct skit__tool_provider_ops' call. */
int skit__tool_shell(struct skit__tool_ctx *c, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err);

/*
 * edit_file or multi_edit (`tool`) as the project tools' provider runs
 * it, with a file size cap of `cap` bytes (the tool's is write_file's
 * content cap; the benchmark raises it to time larger files). A call
 * already allowed; the contract of struct skit__tool_provider_ops' call.
 */
int skit__tool_edit(struct skit__tool_ctx *c, const char *tool, json_t *args,
                    size_t cap, struct skitx_buf *out, bool *is_error,
                    skit_error *err);

/* One replacement asked for. The strings are borrowed from the call's
 * arguments and may hold any byte (they need not be NUL-terminated). */
struct skit__edit {
	const char *old_s, *new_s;
	size_t old_len, new_len;
	bool all; /* replace_all: every occurrence, not the only one */
};

/*
 * Apply edit `ed` to the `len` bytes at `text` (the exact-string
 * replacement of skit__tool_edit()), into `res`, cleared first. 0 when
 * done (*count replacements, the first at line *first_line) and `res`
 * holds the result, at most `cap` bytes; 1 when it cannot apply (an empty
 * old_string, not found, more than one place without `all`, a result over
 * `cap`), explained in `msg` for the model (appended; the file's text in
 * it cleaned by skit__put_clean()) and `res` left empty; SKIT_ENOMEM.
 * `text` must not lie in `res`.
 */
int skit__edit_apply(const struct skit__edit *ed, const char *text, size_t len,
                     size_t cap, struct skitx_buf *res, struct skitx_buf *msg,
                     size_t *count, size_t *first_line);

#endif
