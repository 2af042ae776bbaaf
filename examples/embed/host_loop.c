/* SPDX-License-Identifier: MIT */
/*
 * host_loop.c - a host agent's own loop with skit's skills layer
 * (skit/host.h): the host talks to its model itself, puts skit's index
 * in its system prompt, offers skit's tools, and hands every tool call
 * to skit, which runs it under skit's policy, approvals, sandbox and
 * audit trail (docs/embedding.md, "The skills layer in your own loop").
 *
 *   cc host_loop.c $(pkg-config --cflags --libs skit) -o host_loop
 *   ./host_loop      # from this folder: the skills are ../skills
 *
 * The host's model is a scripted stand-in (the cassette
 * host_loop.jsonl, through skit's replay provider); with
 * OPENAI_BASE_URL set it is that OpenAI-compatible endpoint
 * ($OPENAI_MODEL, default gpt-4.1-mini). Exits 0 when the model
 * answered after using the csv-report skill.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skit/skit.h>

#define MAX_MESSAGES 64
#define MAX_TOOLS    64
#define MAX_TURNS    8

static const char host_prompt[] =
        "You are a helpful assistant. Skills extend what you can do: use "
        "use_skill to load one when a task matches its description.\n";

int main(void)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_host_options ho = SKIT_HOST_OPTIONS_INIT;
	skit_message msgs[MAX_MESSAGES];
	skit_model_response resp[MAX_TURNS];
	skit_tool_schema tools[MAX_TOOLS];
	char *results[MAX_MESSAGES] = { NULL };
	char *index = NULL, spec[256], *system = NULL;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_host *host = NULL;
	skit_error err = { 0 };
	size_t nmsg = 0, nres = 0, ntools, turns = 0;
	int used_skill = 0, ok = 0;

	memset(msgs, 0, sizeof(msgs));
	memset(resp, 0, sizeof(resp));
	if (getenv("OPENAI_BASE_URL") && *getenv("OPENAI_BASE_URL"))
		snprintf(spec, sizeof(spec), "openai:%s",
		         getenv("OPENAI_MODEL") ? getenv("OPENAI_MODEL")
		                                : "gpt-4.1-mini");
	else
		snprintf(spec, sizeof(spec), "replay:host_loop.jsonl");
	mo.spec = spec;
	if (skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "examples", "../skills", &err) ||
	    skit_registry_scan(reg, &err) || skit_model_new(&model, &mo, &err))
		goto out;
	/* The skills layer: no trail here (runs_dir NULL); the project,
	 * where scripts would run, is this folder. */
	ho.registry = reg;
	ho.project_dir = ".";
	if (skit_host_new(&host, &ho, &err) ||
	    skit_host_index(host, NULL, &index, &err))
		goto out;
	system = malloc(strlen(host_prompt) + strlen(index) + 1);
	if (!system)
		goto out;
	strcpy(system, host_prompt);
	strcat(system, index);
	ntools = skit_host_tool_schemas(host, tools, MAX_TOOLS);
	msgs[nmsg].role = SKIT_ROLE_USER;
	msgs[nmsg++].text = "What statistics does a CSV report give for a "
	                    "numeric column, and how is the median taken?";
	for (turns = 0; turns < MAX_TURNS; turns++) {
		skit_model_request req = {
			system, msgs, nmsg, tools, ntools, 0
		};
		skit_model_response *r = &resp[turns];

		if (skit_model_complete(model, r, &req, NULL, NULL, &err))
			goto out;
		if (!r->tool_call_count) {
			printf("%s\n", r->text);
			ok = used_skill && *r->text;
			break;
		}
		msgs[nmsg].role = SKIT_ROLE_ASSISTANT;
		msgs[nmsg].text = r->text;
		msgs[nmsg].tool_calls = r->tool_calls;
		msgs[nmsg++].tool_call_count = r->tool_call_count;
		for (size_t i = 0; i < r->tool_call_count; i++) {
			const skit_tool_call *c = &r->tool_calls[i];
			bool is_error = false, changed = false;
			char *result = NULL;

			if (nmsg == MAX_MESSAGES ||
			    skit_host_call(host, c->name, c->arguments, &result,
			                   &is_error, &changed, &err))
				goto out;
			fprintf(stderr, "host_loop: %s -> %s\n", c->name,
			        is_error ? "error" : "ok");
			used_skill |=
			        !strcmp(c->name, "use_skill") && !is_error;
			results[nres++] = result;
			msgs[nmsg].role = SKIT_ROLE_TOOL;
			msgs[nmsg].text = result;
			msgs[nmsg].tool_call_id = c->id;
			msgs[nmsg].tool_name = c->name;
			msgs[nmsg++].is_error = is_error;
			/* A skill's allowed-tools may disclose more tools. */
			if (changed)
				ntools = skit_host_tool_schemas(host, tools,
				                                MAX_TOOLS);
		}
	}
out:
	if (err.message[0])
		fprintf(stderr, "host_loop: %s\n", err.message);
	for (size_t i = 0; i < nres; i++)
		skit_free(results[i]);
	for (size_t i = 0; i < MAX_TURNS; i++)
		skit_model_response_release(&resp[i]);
	free(system);
	skit_free(index);
	skit_host_free(host);
	skit_model_free(model);
	skit_registry_free(reg);
	return ok ? 0 : 1;
}
