/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.c - request and token limits shared by every model (and
 * thread) given the same skit_ratelimit: two token buckets and a pause.
 *
 * Each bucket refills continuously at its per-minute rate and holds one
 * second's worth, so a limit paces requests instead of letting a whole
 * minute's worth go at once (which is what makes providers answer 429).
 * A request waits until it may take one request from the request bucket
 * and the token bucket is not in debt; it is then charged its estimated
 * tokens, and the estimate is corrected once the provider reports the
 * usage. A 429's retry-after pauses everybody: the other workers would
 * only collect 429s of their own otherwise.
 *
 * The waits are computed under a mutex and slept outside it, in slices,
 * so that cancellation is seen and other threads are never blocked on
 * the lock.
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "lib/core/error.h"
#include "lib/model/ratelimit.h"
#include "util/alloc.h"
#include "util/clock.h"

#define SLICE_MS 50 /* longest sleep between looks at the cancel flag */

struct bucket {
	double rate;  /* per millisecond; 0: no limit */
	double cap;   /* one second's worth, at least 1 */
	double level; /* may go below 0 (tokens: debt) */
};

struct skit_ratelimit {
	pthread_mutex_t mu;
	struct bucket req, tok;
	long last_ms; /* of the last refill; -1: never */
	long pause_until_ms;
};

static void bucket_init(struct bucket *b, unsigned int per_minute)
{
	b->rate = per_minute / 60000.0;
	b->cap = per_minute / 60.0 < 1.0 ? 1.0 : per_minute / 60.0;
	b->level = b->cap;
}

int skit_ratelimit_new(skit_ratelimit **out, unsigned int rpm, unsigned int tpm,
                       skit_error *err)
{
	skit_ratelimit *rl;

	assert(out);
	*out = NULL;
	rl = skitx_calloc(1, sizeof(*rl));
	if (!rl)
		return skit__error_oom(err);
	if (pthread_mutex_init(&rl->mu, NULL)) {
		skitx_free(rl);
		return skit__error_oom(err);
	}
	bucket_init(&rl->req, rpm);
	bucket_init(&rl->tok, tpm);
	rl->last_ms = -1;
	*out = rl;
	return 0;
}

void skit_ratelimit_free(skit_ratelimit *rl)
{
	if (!rl)
		return;
	pthread_mutex_destroy(&rl->mu);
	skitx_free(rl);
}

static void refill(struct bucket *b, long elapsed)
{
	b->level += (double)elapsed * b->rate;
	if (b->level > b->cap)
		b->level = b->cap;
}

/* Milliseconds until the bucket holds `need`, rounded up. */
static long wait_for(const struct bucket *b, double need)
{
	double ms = (need - b->level) / b->rate;

	return ms < 1.0 ? 1 : (long)ms + 1;
}

long skit__ratelimit_reserve(skit_ratelimit *rl, uint64_t tokens, long now_ms)
{
	long wait = 0;

	pthread_mutex_lock(&rl->mu);
	if (rl->last_ms >= 0 && now_ms > rl->last_ms) {
		refill(&rl->req, now_ms - rl->last_ms);
		refill(&rl->tok, now_ms - rl->last_ms);
	}
	if (rl->last_ms < now_ms)
		rl->last_ms = now_ms;
	if (now_ms < rl->pause_until_ms)
		wait = rl->pause_until_ms - now_ms;
	else if (rl->req.rate > 0 && rl->req.level < 1.0)
		wait = wait_for(&rl->req, 1.0);
	else if (rl->tok.rate > 0 && rl->tok.level < 0.0)
		wait = wait_for(&rl->tok, 0.0);
	if (!wait) {
		if (rl->req.rate > 0)
			rl->req.level -= 1.0;
		if (rl->tok.rate > 0)
			rl->tok.level -= (double)tokens;
	}
	pthread_mutex_unlock(&rl->mu);
	return wait;
}

int skit__ratelimit_acquire(skit_ratelimit *rl, uint64_t tokens,
                            const volatile int *cancel)
{
	struct timespec ts;
	long wait;

	for (;;) {
		if (cancel && *cancel)
			return SKIT_ECANCELED;
		wait = skit__ratelimit_reserve(rl, tokens, skitx_clock_ms());
		if (!wait)
			return 0;
		if (wait > SLICE_MS)
			wait = SLICE_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = wait * 1000000L;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

void skit__ratelimit_pause(skit_ratelimit *rl, long ms, long now_ms)
{
	pthread_mutex_lock(&rl->mu);
	if (ms > 0 && now_ms + ms > rl->pause_until_ms)
		rl->pause_until_ms = now_ms + ms;
	pthread_mutex_unlock(&rl->mu);
}

long skit__ratelimit_paused_until(skit_ratelimit *rl)
{
	long until;

	pthread_mutex_lock(&rl->mu);
	until = rl->pause_until_ms;
	pthread_mutex_unlock(&rl->mu);
	return until;
}

void skit__ratelimit_adjust(skit_ratelimit *rl, int64_t delta)
{
	pthread_mutex_lock(&rl->mu);
	if (rl->tok.rate > 0) {
		rl->tok.level -= (double)delta;
		if (rl->tok.level > rl->tok.cap)
			rl->tok.level = rl->tok.cap;
	}
	pthread_mutex_unlock(&rl->mu);
}
