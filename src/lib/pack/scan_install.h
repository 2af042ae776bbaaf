/* SPDX-License-Identifier: MIT */
/*
 * scan_install.h - the scan step of an install or update (scan_install.c),
 * inside the pack subsystem: it runs the scanner (lib/scan) on a staged
 * skill. Included by pack.c and scan_install.c only.
 */
#ifndef SKIT_LIB_PACK_SCAN_INSTALL_H
#define SKIT_LIB_PACK_SCAN_INSTALL_H

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
