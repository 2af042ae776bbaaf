/* SPDX-License-Identifier: MIT */
/*
 * model_clone.c - a second handle on the same model, for a subagent that
 * runs on another thread (src/lib/agent/subagent.c).
 *
 * A skit_model is used by one thread at a time: its transport (a libcurl
 * easy handle) and the provider's state are not shared. A clone has the
 * same provider, model name, key, endpoint, timeouts, retries, request
 * log, cancel flag and rate limits (which are thread-safe), and its own
 * transport. Two kinds cannot be cloned: the replay provider, whose
 * cassette is one sequence of answers (two threads would take them in
 * an order nobody can predict), and a model using a transport the
 * program gave (skit_model_options.transport), which skit cannot know to
 * be thread-safe. The caller then keeps one handle and takes turns.
 */
#include "common.h"

#include "lib/core/error.h"
#include "lib/model/model_int.h"
#include "util/buf.h"

bool skit__model_answers(const skit_model *m)
{
	return m->provider == &skit__provider_replay ||
	       m->provider == &skit__provider_openai ||
	       m->provider == &skit__provider_anthropic;
}

bool skit__model_clonable(const skit_model *m)
{
	return m->provider != &skit__provider_replay && !m->transport;
}

int skit__model_clone(skit_model **out, const skit_model *m, skit_error *err)
{
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	struct skitx_buf spec;
	int rc;

	assert(out && m);
	*out = NULL;
	if (!skit__model_clonable(m))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "a %s model cannot be duplicated",
		                       m->provider->name);
	skitx_buf_init(&spec, 0);
	if (skitx_buf_printf(&spec, "%s:%s", m->provider->name, m->name)) {
		skitx_buf_release(&spec);
		return skit__error_oom(err);
	}
	o.spec = skitx_buf_cstr(&spec);
	o.api_key = m->api_key;
	o.base_url = m->base_url;
	o.connect_timeout_ms = m->connect_timeout_ms;
	o.total_timeout_ms = m->total_timeout_ms;
	o.max_retries = m->max_retries;
	o.retry_base_ms = m->retry_base_ms;
	o.retry_max_ms = m->retry_max_ms;
	o.no_stream = m->no_stream;
	o.request_log = m->request_log;
	o.cancel = m->cancel;
	o.ratelimit = m->ratelimit;
	/* on_retry is the program's, and may not expect another thread:
	 * a clone retries silently. */
	rc = skit_model_new(out, &o, err);
	skitx_buf_release(&spec);
	return rc;
}
