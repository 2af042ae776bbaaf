/* SPDX-License-Identifier: MIT */
/*
 * trust_int.h - folder trust inside the registry subsystem (trust.c,
 * registry_config.c). Included by registry files only; the rest of the
 * library asks through the public skit_trust_check().
 */
#ifndef SKIT_LIB_REGISTRY_TRUST_INT_H
#define SKIT_LIB_REGISTRY_TRUST_INT_H

#include "skit/common.h"

/* Why `dir` (absolute, clean) can never be a project, or NULL
 * (registry_config.c): such a folder cannot be trusted either. */
const char *skit__not_a_project(const char *dir);

#endif
