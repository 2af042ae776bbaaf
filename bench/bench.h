/* SPDX-License-Identifier: MIT */
/*
 * bench.h - what the bench programs share: a monotonic clock in
 * milliseconds, and the median of a sample.
 */
#ifndef SKIT_BENCH_H
#define SKIT_BENCH_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* For qsort() of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0; sorts v. */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
