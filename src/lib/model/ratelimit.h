/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.h - the shared request and token buckets of a provider
 * (skit_ratelimit in skit/model.h), as model_http.c and model.c use them.
 */
#ifndef SKIT_LIB_RATELIMIT_H
#define SKIT_LIB_RATELIMIT_H

#include "skit/model.h"

/*
 * At monotonic time `now_ms`: 0 when a request of `tokens` estimated
 * tokens may go now (it is then charged), or how many milliseconds to
 * wait before asking again. The clock is a parameter so that tests can
 * drive it.
 */
long skit__ratelimit_reserve(skit_ratelimit *rl, uint64_t tokens, long now_ms);

/*
 * Wait for a request's turn, then charge it. 0, or SKIT_ECANCELED once
 * `*cancel` is non-zero (`cancel` may be NULL).
 */
int skit__ratelimit_acquire(skit_ratelimit *rl, uint64_t tokens,
                            const volatile int *cancel);

/* A 429 said to wait `ms` from `now_ms`: nobody sharing `rl` sends before
 * then. */
void skit__ratelimit_pause(skit_ratelimit *rl, long ms, long now_ms);

/* Until when (monotonic ms) requests are paused; 0: not paused yet. */
long skit__ratelimit_paused_until(skit_ratelimit *rl);

/* Correct the tokens charged by `delta` (the usage reported minus the
 * estimate), so that the next requests wait for the real cost. */
void skit__ratelimit_adjust(skit_ratelimit *rl, int64_t delta);

#endif
