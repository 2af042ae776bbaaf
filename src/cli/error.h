/* SPDX-License-Identifier: MIT */
/*
 * error.h - the CLI's exit statuses: 0 ok, 1 a finding or failure,
 * 2 usage or missing input.
 */
#ifndef SKIT_CLI_ERROR_H
#define SKIT_CLI_ERROR_H

#define CLI_OK    0
#define CLI_FAIL  1
#define CLI_USAGE 2

#endif
