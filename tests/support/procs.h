/* SPDX-License-Identifier: MIT */
/*
 * procs.h - finding processes a test started, by what they run: programs
 * run in their own PID namespace report pids that mean nothing outside.
 */
#ifndef SKIT_TEST_PROCS_H
#define SKIT_TEST_PROCS_H

#include <stdbool.h>

/*
 * Whether no live process (zombies do not count) has `marker` in its
 * command line. Looks `tries` times (at least once), 20 ms apart, until
 * none is left; prints the ones still there on the last look.
 */
bool skit_test_none_running(const char *marker, int tries);

#endif
