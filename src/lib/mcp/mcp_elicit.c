/* SPDX-License-Identifier: MIT */
/*
 * mcp_elicit.c - ask_user over `skit mcp`: the question goes to the MCP
 * client as an `elicitation/create` request, and its user's answer comes
 * back as the tool's result (docs/mcp.md, "Asking the user").
 *
 * Only a client that declared the `elicitation` capability in its
 * `initialize` request is asked, and only over stdio, where the server
 * can send a request in the middle of a tools/call and read the answer
 * from the same stream. Everywhere else the agent is told that no one can
 * answer (SKIT_ENOTFOUND), as in `skit run` without a terminal.
 *
 * While it waits, the server keeps reading: the answer is taken out of
 * the input wherever it is, and every other message the client sent in
 * the meantime stays in the input, in order, to be handled once the tool
 * call is answered. The wait ends with the answer, the end of the input,
 * the server's stop flag, a malformed flood (more than four times the
 * largest message) or ASK_TIMEOUT_MS.
 */
#include "common.h"

#include <poll.h>
#include <unistd.h>

#include "lib/core/error.h"
#include "lib/mcp/mcp_int.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"

/* How long a user may take to answer (a form in the client). */
#define ASK_TIMEOUT_MS (30L * 60 * 1000)
/* Most text kept of one field of the answer. */
#define FIELD_MAX (16u * 1024)

/* The elicitation request for `q`, as one line of JSON text. */
static char *request_line(const skit_question *q, const char *id)
{
	struct skitx_buf msg = SKITX_BUF_INIT;
	json_t *props, *choice = NULL, *req = NULL;
	bool pick = q->option_count && !q->multi;
	char *line = NULL;
	int rc;

	rc = skitx_buf_puts(&msg, q->question);
	for (size_t i = 0; !rc && i < q->option_count; i++)
		rc = skitx_buf_printf(&msg, "%s%zu. %s", i ? "\n" : "\n\n",
		                      i + 1, q->options[i]);
	if (!rc && q->multi && q->option_count)
		rc = skitx_buf_puts(&msg, "\n\n(Several may be chosen: write "
		                          "them in the answer.)");
	props = json_object();
	if (!rc && props && pick) {
		json_t *e = json_array();

		for (size_t i = 0; e && i < q->option_count; i++)
			json_array_append_new(e, json_string(q->options[i]));
		choice = json_pack("{s:s, s:s, s:o?}", "type", "string",
		                   "title", "Choice", "enum", e);
		if (choice)
			json_object_set_new(props, "choice", choice);
	}
	if (!rc && props)
		json_object_set_new(
		        props, pick ? "other" : "answer",
		        json_pack("{s:s, s:s}", "type", "string", "title",
		                  pick ? "Or an answer in your own words"
		                       : "Answer"));
	if (!rc && props)
		req = json_pack("{s:s, s:s, s:s, s:{s:s, s:{s:s, s:O}}}",
		                "jsonrpc", "2.0", "id", id, "method",
		                "elicitation/create", "params", "message",
		                skitx_buf_cstr(&msg), "requestedSchema", "type",
		                "object", "properties", props);
	if (req)
		line = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	json_decref(props);
	skitx_buf_release(&msg);
	return line;
}

/*
 * The complete line of `in` from `from` on that answers request `id`:
 * cut out of `in` and returned parsed (NULL when none is there yet).
 * Other lines stay where they are.
 */
static json_t *take_answer(struct skitx_buf *in, size_t from, const char *id)
{
	size_t pos = from;
	const char *nl;

	while ((nl = memchr(skitx_buf_cstr(in) + pos, '\n',
	                    skitx_buf_len(in) - pos))) {
		const char *line = skitx_buf_cstr(in) + pos;
		size_t len = (size_t)(nl - line);
		json_t *j = json_loadb(line, len, 0, NULL);
		const char *jid = json_string_value(json_object_get(j, "id"));

		if (jid && !strcmp(jid, id) && !json_object_get(j, "method")) {
			size_t rest = skitx_buf_len(in) - (pos + len + 1);

			memmove((char *)skitx_buf_cstr(in) + pos, nl + 1, rest);
			skitx_buf_truncate(in, pos + rest);
			return j;
		}
		json_decref(j);
		pos += len + 1;
	}
	return NULL;
}

/* One field of the accepted content, capped, into `answer`. */
static int put_field(skit_tool_output *answer, json_t *content, const char *key,
                     const char *label, bool *any)
{
	const char *v = json_string_value(json_object_get(content, key));
	size_t n;
	int rc = 0;

	if (!v || !*v)
		return 0;
	n = strlen(v) > FIELD_MAX ? FIELD_MAX : strlen(v);
	if (*any)
		rc = skit_tool_output_puts(answer, "\n");
	if (!rc && label)
		rc = skit_tool_output_puts(answer, label);
	if (!rc)
		rc = skit_tool_output_append(answer, v, n);
	*any = true;
	return rc == SKIT_ETOOBIG ? 0 : rc;
}

int skit__mcp_ask(const skit_question *q, skit_tool_output *answer,
                  void *payload)
{
	struct skit__mcp_session *s = payload;
	struct skit__mcp_io *io = s->io;
	json_t *resp = NULL, *result, *content;
	const char *action;
	char id[48], chunk[16384];
	long deadline;
	char *line;
	bool any = false;
	int rc;

	if (!s->elicit || !io)
		return SKIT_ENOTFOUND;
	snprintf(id, sizeof(id), "skit-elicit-%lu", ++io->next_id);
	line = request_line(q, id);
	if (!line)
		return SKIT_ENOMEM;
	rc = skitx_fs_write_all(io->out_fd, line, strlen(line));
	if (!rc)
		rc = skitx_fs_write_all(io->out_fd, "\n", 1);
	free(line); /* jansson's allocation */
	if (rc)
		return SKIT_ENOTFOUND;
	deadline = skitx_clock_ms() + ASK_TIMEOUT_MS;
	while (!(resp = take_answer(io->in, *io->used, id))) {
		struct pollfd pf = { io->in_fd, POLLIN, 0 };
		ssize_t n;

		if ((io->stop && *io->stop) || skitx_clock_ms() > deadline ||
		    skitx_buf_len(io->in) > 4 * io->max_message)
			return SKIT_ENOTFOUND;
		if (poll(&pf, 1, 200) <= 0)
			continue;
		n = read(io->in_fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return SKIT_ENOTFOUND; /* the client went away */
		if (skitx_buf_add(io->in, chunk, (size_t)n))
			return SKIT_ENOMEM;
	}
	result = json_object_get(resp, "result");
	action = json_string_value(json_object_get(result, "action"));
	content = json_object_get(result, "content");
	rc = 0;
	if (!action) {
		rc = SKIT_ENOTFOUND; /* an error response: no answer */
	} else if (strcmp(action, "accept")) {
		rc = skit_tool_output_puts(answer,
		                           strcmp(action, "decline")
		                                   ? "The user dismissed the "
		                                     "question without "
		                                     "answering."
		                                   : "The user declined to "
		                                     "answer.");
	} else {
		rc = put_field(answer, content, "choice", NULL, &any);
		if (!rc)
			rc = put_field(answer, content, "other", NULL, &any);
		if (!rc)
			rc = put_field(answer, content, "answer", NULL, &any);
		if (!rc && !any)
			rc = skit_tool_output_puts(answer,
			                           "The user gave an empty "
			                           "answer.");
	}
	json_decref(resp);
	return rc == SKIT_ETOOBIG ? 0 : rc;
}
