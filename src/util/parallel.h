/* SPDX-License-Identifier: MIT */
/*
 * parallel.h - run a loop over [0, n) on a few threads.
 *
 * skitx_parallel_for() splits [0, n) into batches, hands them out in
 * increasing order through an atomic counter, and runs them on the calling
 * thread plus up to `nthreads - 1` POSIX threads started for the call and
 * joined before it returns. It never fails: a thread that cannot be
 * started is not used, and the calling thread alone then runs every batch
 * (so a caller need not keep a sequential path just for that case).
 *
 * It does not order the work: batches run concurrently and finish in any
 * order. Callers write each index's result to its own slot and merge the
 * slots afterwards, in index order, on one thread; that keeps their output
 * independent of scheduling. The loop body must be safe to run on several
 * threads at once, allocate only through skitx_ (with the C library's
 * allocator: see skitx_alloc_is_default()) and never stop the process.
 */
#ifndef SKITX_PARALLEL_H
#define SKITX_PARALLEL_H

#include <stddef.h>

/* Most threads a loop uses, the calling one included. */
#define SKITX_PARALLEL_MAX 8

/*
 * Run indexes [begin, end) as worker `worker` (0 is the calling thread; at
 * most nthreads - 1). One worker never runs two batches at once, so
 * per-worker state indexed by `worker` needs no locking.
 */
typedef void (*skitx_parallel_fn)(void *payload, size_t worker, size_t begin,
                                  size_t end);

/* The threads worth using: online CPUs, capped at SKITX_PARALLEL_MAX. */
size_t skitx_parallel_threads(void);

/*
 * Run `fn` over [0, n) in batches of `batch` indexes on up to `nthreads`
 * threads (0 or 1: the calling thread only). Returns the number of workers
 * that took part, at least 1.
 */
size_t skitx_parallel_for(size_t n, size_t batch, size_t nthreads,
                          skitx_parallel_fn fn, void *payload);

#endif
