/* SPDX-License-Identifier: MIT */
/*
 * model.c - the model handle: parse "PROVIDER:MODEL", resolve the API key
 * and base URL from the options or the environment, pick the transport,
 * and dispatch to a provider. Also the provider-neutral request form used
 * by the request log and by replay's checks.
 *
 * It does no HTTP itself (model_http.c) and knows no wire format.
 */
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

#include "skit/model.h"
#include "lib/core/error.h"
#include "lib/model/ratelimit.h"
#include "lib/model/model_int.h"

#define DEFAULT_CONNECT_MS 10000L
#define DEFAULT_TOTAL_MS   600000L
#define DEFAULT_RETRIES    4u
#define DEFAULT_RETRY_MS   500L
#define DEFAULT_RETRY_MAX  30000L

static const struct skit__provider *const providers[] = {
	&skit__provider_replay,
	&skit__provider_openai,
	&skit__provider_anthropic,
};

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int dup_opt(char **out, const char *s, skit_error *err)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = skitx_strdup(s);
	return *out ? 0 : skit__error_oom(err);
}

/* The key and URL: options first, then the provider's variables. */
static int resolve_endpoint(skit_model *m, const skit_model_options *opts,
                            skit_error *err)
{
	const char *key = opts->api_key, *url = opts->base_url;
	size_t len;
	int rc;

	if (m->provider == &skit__provider_openai) {
		if (!key)
			key = env_nonempty("OPENAI_API_KEY");
		if (!url)
			url = env_nonempty("OPENAI_BASE_URL");
	} else if (m->provider == &skit__provider_anthropic) {
		if (!key)
			key = env_nonempty("ANTHROPIC_API_KEY");
		if (!url)
			url = env_nonempty("ANTHROPIC_BASE_URL");
	}
	rc = dup_opt(&m->api_key, key, err);
	if (!rc)
		rc = dup_opt(&m->base_url, url, err);
	if (rc)
		return rc;
	/* "http://host/v1/" and "http://host/v1" mean the same. */
	if (m->base_url) {
		len = strlen(m->base_url);
		while (len > 0 && m->base_url[len - 1] == '/')
			m->base_url[--len] = '\0';
	}
	return 0;
}

int skit_model_new(skit_model **out, const skit_model_options *opts,
                   skit_error *err)
{
	const char *spec, *colon;
	skit_model *m;
	size_t plen;
	int rc;

	assert(out && opts);
	assert(opts->version == SKIT_MODEL_OPTIONS_VERSION);
	*out = NULL;
	spec = opts->spec;
	if (!spec || !*spec)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "no model given (PROVIDER:MODEL)");
	colon = strchr(spec, ':');
	plen = colon ? (size_t)(colon - spec) : strlen(spec);
	m = skitx_calloc(1, sizeof(*m));
	if (!m)
		return skit__error_oom(err);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(providers); i++) {
		if (strlen(providers[i]->name) == plen &&
		    !memcmp(providers[i]->name, spec, plen))
			m->provider = providers[i];
	}
	if (!m->provider) {
		skitx_free(m);
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "unknown model provider '%.*s' (use "
		                       "openai, anthropic or replay)",
		                       (int)(plen > 64 ? 64 : plen), spec);
	}
	m->connect_timeout_ms = opts->connect_timeout_ms > 0
	                                ? opts->connect_timeout_ms
	                                : DEFAULT_CONNECT_MS;
	m->total_timeout_ms = opts->total_timeout_ms > 0
	                              ? opts->total_timeout_ms
	                              : DEFAULT_TOTAL_MS;
	m->max_retries =
	        opts->max_retries ? opts->max_retries : DEFAULT_RETRIES;
	m->retry_base_ms = opts->retry_base_ms > 0 ? opts->retry_base_ms
	                                           : DEFAULT_RETRY_MS;
	m->retry_max_ms =
	        opts->retry_max_ms > 0 ? opts->retry_max_ms : DEFAULT_RETRY_MAX;
	m->no_stream = opts->no_stream;
	m->cancel = opts->cancel;
	m->on_retry = opts->on_retry;
	m->retry_payload = opts->retry_payload;
	m->transport = opts->transport;
	m->ratelimit = opts->ratelimit;
	rc = dup_opt(&m->name, colon ? colon + 1 : "", err);
	if (!rc)
		rc = dup_opt(&m->request_log, opts->request_log, err);
	if (!rc)
		rc = resolve_endpoint(m, opts, err);
	if (!rc)
		rc = m->provider->init(m, err);
	if (rc) {
		skit_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

const char *skit_model_provider(const skit_model *model)
{
	return model->provider->name;
}

const char *skit_model_name(const skit_model *model)
{
	return model->name;
}

static json_t *message_json(const skit_message *msg)
{
	static const char *const roles[] = { "user", "assistant", "tool" };
	json_t *o, *calls, *c;

	o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "role", json_string(roles[msg->role]));
	if (msg->text)
		json_object_set_new(o, "text", json_string(msg->text));
	if (msg->tool_call_count) {
		calls = json_array();
		json_object_set_new(o, "tool_calls", calls);
		for (size_t i = 0; calls && i < msg->tool_call_count; i++) {
			c = json_pack("{s:s, s:s, s:s?}", "id",
			              msg->tool_calls[i].id, "name",
			              msg->tool_calls[i].name, "arguments",
			              msg->tool_calls[i].arguments);
			json_array_append_new(calls, c);
		}
	}
	if (msg->tool_call_id)
		json_object_set_new(o, "tool_call_id",
		                    json_string(msg->tool_call_id));
	if (msg->tool_name)
		json_object_set_new(o, "tool_name",
		                    json_string(msg->tool_name));
	if (msg->is_error)
		json_object_set_new(o, "is_error", json_true());
	return o;
}

json_t *skit__model_request_json(const skit_model_request *req)
{
	json_t *o, *arr, *t;

	o = json_object();
	if (!o)
		return NULL;
	if (req->system)
		json_object_set_new(o, "system", json_string(req->system));
	arr = json_array();
	json_object_set_new(o, "messages", arr);
	for (size_t i = 0; arr && i < req->message_count; i++)
		json_array_append_new(arr, message_json(&req->messages[i]));
	arr = json_array();
	json_object_set_new(o, "tools", arr);
	for (size_t i = 0; arr && i < req->tool_count; i++) {
		t = json_pack("{s:s, s:s?, s:s?}", "name", req->tools[i].name,
		              "description", req->tools[i].description,
		              "parameters", req->tools[i].parameters);
		json_array_append_new(arr, t);
	}
	if (req->max_tokens)
		json_object_set_new(o, "max_tokens",
		                    json_integer(req->max_tokens));
	/* A failed allocation anywhere above leaves a member out: check. */
	if (json_object_size(o) < 2u + (req->system ? 1u : 0u) ||
	    json_array_size(json_object_get(o, "messages")) !=
	            req->message_count ||
	    json_array_size(json_object_get(o, "tools")) != req->tool_count) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int log_request(skit_model *m, const skit_model_request *req,
                       skit_error *err)
{
	json_t *j = skit__model_request_json(req);
	char *text, *line;
	size_t len;
	int fd, rc = 0;

	if (!j)
		return skit__error_oom(err);
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!text)
		return skit__error_oom(err);
	/* One write(2) of the whole line on an O_APPEND descriptor, so that
	 * the models of subagents on other threads sharing the log never
	 * interleave their lines. */
	len = strlen(text);
	line = skitx_malloc(len + 2);
	fd = open(m->request_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	          0666);
	if (!line) {
		rc = skit__error_oom(err);
	} else if (fd < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", m->request_log,
		                     strerror(errno));
	} else {
		memcpy(line, text, len);
		line[len] = '\n';
		if (write(fd, line, len + 1) != (ssize_t)(len + 1))
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "%s: write error", m->request_log);
	}
	if (fd >= 0)
		close(fd);
	skitx_free(line);
	free(text); /* jansson's allocation */
	return rc;
}

static bool id_taken(const skit_model_response *out, size_t upto,
                     const skit_model_request *req, const char *id)
{
	for (size_t i = 0; i < upto; i++)
		if (!strcmp(out->tool_calls[i].id, id))
			return true;
	for (size_t i = 0; i < req->message_count; i++) {
		const skit_message *msg = &req->messages[i];

		for (size_t k = 0; k < msg->tool_call_count; k++)
			if (msg->tool_calls[k].id &&
			    !strcmp(msg->tool_calls[k].id, id))
				return true;
		if (msg->tool_call_id && !strcmp(msg->tool_call_id, id))
			return true;
	}
	return false;
}

/*
 * Some OpenAI-compatible servers send tool calls without ids, or reuse
 * the same id ("call_0") in every answer. Replayed as is, the next
 * request would pair results with the wrong calls (and the public APIs
 * refuse duplicate ids), so an empty id, or one already in this answer
 * or in the conversation, is replaced by a fresh "call_<turn>_<n>".
 */
static int fix_call_ids(skit_model_response *out, const skit_model_request *req,
                        skit_error *err)
{
	char fresh[64];
	char *copy;

	for (size_t i = 0; i < out->tool_call_count; i++) {
		skit_tool_call *c = &out->tool_calls[i];
		unsigned int n = 0;

		if (*c->id && !id_taken(out, i, req, c->id))
			continue;
		snprintf(fresh, sizeof(fresh), "call_%zu_%zu",
		         req->message_count, i + 1);
		while (id_taken(out, i, req, fresh) && n < 1000)
			snprintf(fresh, sizeof(fresh), "call_%zu_%zu_%u",
			         req->message_count, i + 1, ++n);
		copy = skitx_strdup(fresh);
		if (!copy)
			return skit__error_oom(err);
		skitx_free((char *)c->id);
		c->id = copy;
	}
	return 0;
}

int skit_model_complete(skit_model *model, skit_model_response *out,
                        const skit_model_request *req,
                        skit_model_delta_cb on_delta, void *payload,
                        skit_error *err)
{
	int rc;

	assert(model && out && req);
	memset(out, 0, sizeof(*out));
	if (model->request_log) {
		rc = log_request(model, req, err);
		if (rc)
			return rc;
	}
	model->rl_charged = 0;
	rc = model->provider->complete(model, out, req,
	                               model->no_stream ? NULL : on_delta,
	                               payload, err);
	/* The limits charged an estimate per request: now the real cost. */
	if (model->ratelimit && !rc)
		skit__ratelimit_adjust(model->ratelimit,
		                       (int64_t)(out->usage.input_tokens +
		                                 out->usage.output_tokens) -
		                               (int64_t)model->rl_charged);
	if (rc) {
		skit_model_response_release(out);
		return rc;
	}
	if (!out->text)
		out->text = skitx_strdup("");
	if (!out->stop_reason)
		out->stop_reason = skitx_strdup(
		        out->tool_call_count ? "tool_use" : "end_turn");
	if (!out->text || !out->stop_reason) {
		skit_model_response_release(out);
		return skit__error_oom(err);
	}
	rc = fix_call_ids(out, req, err);
	if (rc) {
		skit_model_response_release(out);
		return rc;
	}
	/* Not streamed: the callback still gets the text, all at once, so
	 * a caller that shows text as it arrives shows this one too. */
	if (model->no_stream && on_delta && *out->text &&
	    on_delta(out->text, strlen(out->text), payload)) {
		skit_model_response_release(out);
		return skit__error_set(err, SKIT_ECANCELED, 0, "%s: canceled",
		                       model->provider->name);
	}
	return 0;
}

bool skit__text_is_blank(const char *text)
{
	return !text || !text[strspn(text, " \t\r\n\v\f")];
}

int skit__response_add_call(skit_model_response *out, const char *id,
                            const char *name, const char *arguments,
                            skit_error *err)
{
	skit_tool_call *calls, *c;
	size_t n = out->tool_call_count;

	calls = skitx_realloc(out->tool_calls, (n + 1) * sizeof(*calls));
	if (!calls)
		return skit__error_oom(err);
	out->tool_calls = calls;
	c = &calls[n];
	c->id = skitx_strdup(id);
	c->name = skitx_strdup(name);
	c->arguments = skitx_strdup(arguments && *arguments ? arguments : "{}");
	if (!c->id || !c->name || !c->arguments) {
		skitx_free((char *)c->id);
		skitx_free((char *)c->name);
		skitx_free((char *)c->arguments);
		return skit__error_oom(err);
	}
	out->tool_call_count = n + 1;
	return 0;
}

void skit_model_response_release(skit_model_response *resp)
{
	if (!resp)
		return;
	for (size_t i = 0; i < resp->tool_call_count; i++) {
		skitx_free((char *)resp->tool_calls[i].id);
		skitx_free((char *)resp->tool_calls[i].name);
		skitx_free((char *)resp->tool_calls[i].arguments);
	}
	skitx_free(resp->tool_calls);
	skitx_free(resp->text);
	skitx_free(resp->stop_reason);
	memset(resp, 0, sizeof(*resp));
}

void skit_model_free(skit_model *model)
{
	if (!model)
		return;
	if (model->provider && model->provider->release)
		model->provider->release(model);
	if (model->own_transport)
		model->own_transport->free(model->own_transport);
	skitx_free(model->name);
	skitx_free(model->api_key);
	skitx_free(model->base_url);
	skitx_free(model->request_log);
	skitx_free(model);
}
