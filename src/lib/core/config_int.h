/* SPDX-License-Identifier: MIT */
/*
 * config_int.h - reading one skit config file (JSON), shared by the
 * modules that take settings from it (policy, sandbox). What each key
 * means stays with its module.
 */
#ifndef SKIT_LIB_CONFIG_INT_H
#define SKIT_LIB_CONFIG_INT_H

#include <stdbool.h>

#include <jansson.h>

#include "skit/errors.h"

/* A config file is at most this big. */
#define SKIT__CONFIG_MAX (1024 * 1024)

/*
 * Read and parse the config file `path` (at most 1 MiB, a regular file,
 * duplicate keys refused) into `*out` (a new reference: json_decref it).
 * With `follow` (the user's own files) a symbolic link is read where it
 * leads; without it (a project's files) a link is refused, SKIT_EUNSAFE.
 * Errors name the file: SKIT_ENOTFOUND, SKIT_ETOOBIG, SKIT_EUNSAFE,
 * SKIT_EIO, SKIT_EINVALID (with line:column), SKIT_ENOMEM.
 */
int skit__config_read(json_t **out, const char *path, bool follow,
                      skit_error *err);

#endif
