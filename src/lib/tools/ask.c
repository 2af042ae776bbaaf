/* SPDX-License-Identifier: MIT */
/*
 * ask.c - ask_user: a question for the user, answered by whoever the
 * host put behind it (a terminal prompt in `skit run` and `skit chat`, a
 * program's hook in the library), or an error result that tells the
 * model to go on by its own judgment when no one can answer (ask.h).
 */
#include "common.h"

#include "lib/core/error.h"
#include "lib/tools/ask.h"
#include "lib/tools/tools_int.h"
#include "util/utf8.h"

#define QUESTION_MAX 2000 /* bytes of a question */
#define OPTIONS_MAX  10
#define OPTION_MAX   200 /* bytes of an option */

/* clang-format off */
const skit_tool_schema skit__tool_ask_schema = {
	"ask_user",
	"Ask the user a question and wait for the answer: to choose between "
	"options, or to get something only the user knows. Ask only what "
	"you cannot find out or decide yourself.",
	"{\"type\":\"object\",\"properties\":{"
	"\"question\":{\"type\":\"string\"},"
	"\"options\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
	"\"maxItems\":10,\"description\":\"choices to offer; the user may "
	"also answer in their own words\"},"
	"\"multi\":{\"type\":\"boolean\",\"description\":\"several options "
	"may be chosen\"}},"
	"\"required\":[\"question\"],\"additionalProperties\":false}"
};
/* clang-format on */

static const char no_one[] =
        "No one can answer a question now (no terminal, or the program "
        "running you asks none). Go on by your own judgment and say which "
        "assumption you made, or stop and say what you need from the "
        "user.";

int skit__tool_ask(struct skit__tool_ctx *c, json_t *args,
                   struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *question = skit__str_arg(args, "question");
	const char *options[OPTIONS_MAX];
	json_t *opts = json_object_get(args, "options"), *v;
	skit_question q;
	struct skitx_buf answer = SKITX_BUF_INIT;
	size_t i, n = 0;
	int rc;

	if (!question || !*question || strlen(question) > QUESTION_MAX ||
	    skitx_utf8_check(question, strlen(question), NULL))
		return skit__tool_error(out, is_error,
		                        "\"question\" must be text of 1 to %u "
		                        "bytes",
		                        QUESTION_MAX);
	if (opts &&
	    (!json_is_array(opts) || json_array_size(opts) > OPTIONS_MAX))
		return skit__tool_error(
		        out, is_error, "\"options\" must be at most %u strings",
		        OPTIONS_MAX);
	json_array_foreach(opts, i, v)
	{
		const char *o = json_string_value(v);

		if (!o || !*o || strlen(o) > OPTION_MAX ||
		    skitx_utf8_check(o, strlen(o), NULL))
			return skit__tool_error(out, is_error,
			                        "each option must be text of 1 "
			                        "to %u bytes",
			                        OPTION_MAX);
		options[n++] = o;
	}
	q.question = question;
	q.options = n ? options : NULL;
	q.option_count = n;
	q.multi = json_is_true(json_object_get(args, "multi"));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "ask_user: %.120s", question);
	rc = c->host->ask ? c->host->ask(c->host_self, &q, &answer, err)
	                  : SKIT_ENOTFOUND;
	skit__tool_audit(c, "user_question",
	                 json_pack("{s:s, s:I, s:b, s:b}", "question", question,
	                           "options", (json_int_t)n, "multi", q.multi,
	                           "answered", rc == 0));
	if (rc == SKIT_ENOTFOUND) {
		skitx_buf_release(&answer);
		return skit__tool_error(out, is_error, "%s", no_one);
	}
	if (rc) {
		skitx_buf_release(&answer);
		return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
	}
	rc = skitx_buf_puts(out, "The user answered: ");
	if (!rc)
		rc = skit__put_clean(out, skitx_buf_cstr(&answer),
		                     skitx_buf_len(&answer));
	skitx_buf_release(&answer);
	return rc ? skit__error_oom(err) : 0;
}
