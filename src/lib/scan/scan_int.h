/* SPDX-License-Identifier: MIT */
/*
 * scan_int.h - the scan step of an install or update (scan_install.c).
 */
#ifndef SKIT_LIB_SCAN_INT_H
#define SKIT_LIB_SCAN_INT_H

#include "skit/pack.h"
#include "lib/pack/pack_int.h"

/*
 * Scan the staged skill `sk` (<root>/<stage_name>/new/<name>) with
 * opts->scanner, hand the findings to opts->on_scan, and record the
 * verdict and the rules version in `sk` for the lock. Returns 0, or
 * SKIT_EDENIED naming the high and critical findings (unless
 * SKIT_INSTALL_ALLOW_RISKY), SKIT_ENOMEM, SKIT_EIO.
 */
int skit__install_scan(const skit_install_options *opts, const char *root,
                       const char *stage_name, struct skit__pskill *sk,
                       skit_error *err);

#endif
