/* SPDX-License-Identifier: MIT */
/*
 * userconfig.h - the user config file (`${XDG_CONFIG_HOME:-~/.config}/
 * skit/config.json`): where it is, reading it, and changing it in place
 * (library-internal; part of core, usable by every subsystem).
 *
 * The user config is the user's own file: it is read with a 1 MiB cap,
 * changed in place (every other key kept in its order) and written back
 * atomically under an flock() of its folder, so that two skit processes
 * saving at once (folder trust, saved script approvals, MCP approvals)
 * do not lose each other's change. A config that is not valid JSON is
 * never overwritten: the change is refused with the parse error. A
 * linked config (dotfiles) is read and written where it lives.
 */
#ifndef SKIT_LIB_CORE_USERCONFIG_H
#define SKIT_LIB_CORE_USERCONFIG_H

#include <jansson.h>

#include "skit/common.h"

/* The user config path, ${XDG_CONFIG_HOME:-$HOME/.config}/skit/config.json;
 * NULL in `*out` when neither variable gives one. 0 or SKIT_ENOMEM. */
int skit__user_config_path(char **out);

/*
 * Read the config at `path` into `*out`: an empty object when the file
 * does not exist. SKIT_EINVALID (with the reason) when it is not a JSON
 * object or cannot be read; SKIT_ENOMEM.
 */
int skit__userconfig_read(json_t **out, const char *path, skit_error *err);

/* The user's own config, for reading only; NULL when missing or
 * unreadable. */
json_t *skit__userconfig_read_quiet(void);

/* A change: begin (lock, read), edit `json`, commit, end. */
struct skit__userconfig_edit {
	char *path; /* the file written (a link is written through) */
	int lockfd;
	json_t *json;
};

/* Lock the folder of `path` (NULL: the user's own config; with `create`
 * the folder is made, 0700, else a missing folder reads as an empty
 * config, unlocked) and read the file into e->json. End with
 * skit__userconfig_end() whatever this returns. */
int skit__userconfig_begin(struct skit__userconfig_edit *e, const char *path,
                           bool create, skit_error *err);

/* Write e->json back atomically (the file's mode kept, 0600 when new). */
int skit__userconfig_commit(struct skit__userconfig_edit *e, skit_error *err);

/* Release the lock and the JSON. */
void skit__userconfig_end(struct skit__userconfig_edit *e);

/* skit__userconfig_begin() of the user's own config (made when
 * missing), then its list `key` into `*list` (made when missing and
 * `make`, else NULL when absent). A `key` that is not a list is
 * SKIT_EINVALID, named in `err`. End with skit__userconfig_end()
 * whatever this returns. */
int skit__userconfig_begin_list(struct skit__userconfig_edit *e,
                                const char *key, bool make, json_t **list,
                                skit_error *err);

/* The array `key` of `cfg`, made when missing and `make`; NULL when the
 * key holds something else (named in err, with `path`) or out of memory. */
json_t *skit__userconfig_array(json_t *cfg, const char *path, const char *key,
                               bool make, skit_error *err);

#endif
