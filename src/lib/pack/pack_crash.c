/* SPDX-License-Identifier: MIT */
/*
 * pack_crash.c - the crash points of the durability tests: a process
 * killed at the Nth point of an install or uninstall (pack_int.h,
 * skit__pack_crash_at) shows that every step leaves the root whole. At
 * the bottom of the pack files: the tree and the transaction both call
 * it.
 */
#include <signal.h>

#include "lib/pack/pack_int.h"

long skit__pack_crash_at;

void skit__pack_crash_point(void)
{
	if (skit__pack_crash_at > 0 && --skit__pack_crash_at == 0)
		raise(SIGKILL);
}
