/* SPDX-License-Identifier: MIT */
/*
 * parallel.c - a fork-join loop over a few POSIX threads (parallel.h).
 */
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "util/parallel.h"

struct loop {
	atomic_size_t next; /* first index not handed out yet */
	size_t n, batch;
	skitx_parallel_fn fn;
	void *payload;
};

struct worker {
	struct loop *loop;
	size_t id;
	pthread_t thread;
};

/* Take batches until none is left. */
static void run(struct loop *l, size_t id)
{
	for (;;) {
		size_t begin = atomic_fetch_add(&l->next, l->batch);

		if (begin >= l->n)
			break;
		l->fn(l->payload, id, begin,
		      l->n - begin < l->batch ? l->n : begin + l->batch);
	}
}

static void *thread_main(void *arg)
{
	struct worker *w = arg;

	run(w->loop, w->id);
	return NULL;
}

size_t skitx_parallel_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > SKITX_PARALLEL_MAX ? SKITX_PARALLEL_MAX : (size_t)n;
}

size_t skitx_parallel_for(size_t n, size_t batch, size_t nthreads,
                          skitx_parallel_fn fn, void *payload)
{
	struct worker workers[SKITX_PARALLEL_MAX];
	struct loop l;
	size_t started = 0, batches;

	if (!batch)
		batch = 1;
	if (batch > n && n)
		batch = n;
	/* each worker may push the counter past n once, by one batch */
	assert(n <= SIZE_MAX / (SKITX_PARALLEL_MAX + 1));
	atomic_init(&l.next, 0);
	l.n = n;
	l.batch = batch;
	l.fn = fn;
	l.payload = payload;

	batches = n / batch + (n % batch != 0);
	if (nthreads > SKITX_PARALLEL_MAX)
		nthreads = SKITX_PARALLEL_MAX;
	if (nthreads > batches)
		nthreads = batches;
	/* Workers 1..; a failed start leaves its share to the others. */
	for (size_t i = 1; i < nthreads; i++) {
		workers[started].loop = &l;
		workers[started].id = started + 1;
		if (pthread_create(&workers[started].thread, NULL, thread_main,
		                   &workers[started]))
			break;
		started++;
	}
	run(&l, 0);
	for (size_t i = 0; i < started; i++)
		pthread_join(workers[i].thread, NULL);
	return started + 1;
}
