/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the monotonic clock in milliseconds, for deadlines and
 * durations.
 */
#ifndef SKIT_UTIL_CLOCK_H
#define SKIT_UTIL_CLOCK_H

#include <time.h>

static inline long skitx_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

#endif
