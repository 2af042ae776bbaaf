/* SPDX-License-Identifier: MIT */
/*
 * bench_session.c - what a long session costs on top of the model.
 *
 *	bench_session [MESSAGES] [TURNS] [RESUMES]
 *
 * Builds a conversation of MESSAGES messages (default 500: one user
 * message and one reply per send) with the replay provider and an audit
 * trail (so session.jsonl is written as it grows), then:
 *
 *  - times TURNS more sends (default 50) on that history: the agent's
 *    time per turn, and as the baseline measured in the same run, the
 *    replay provider alone answering a request of the same conversation
 *    (skit_model_complete() on the agent's messages); the difference is
 *    the agent's overhead per turn with that history;
 *  - times RESUMES agents (default 20) created from the session file
 *    (load, check, restore the conversation and the skill, write the new
 *    session file) against agents created without it: the difference is
 *    the time to load and resume the session.
 *
 * Prints medians in milliseconds. Targets (issue 32): both at most 5 ms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "skit/skit.h"

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A cassette of `n` answers, the first activating the skill. */
static int cassette(const char *path, int n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("{\"tool_calls\": [{\"id\": \"u1\", \"name\": \"use_skill\", "
	      "\"arguments\": {\"name\": \"alpha\"}}]}\n",
	      f);
	for (int i = 0; i < n; i++)
		fprintf(f,
		        "{\"text\": \"Answer %d: the figures of the quarter "
		        "are in the report; the totals match the sheet and the "
		        "next step is to check the outliers in column C.\"}\n",
		        i);
	return fclose(f);
}

struct fx {
	skit_registry *reg;
	skit_model *model;
	skit_agent *agent;
};

static int open_fx(struct fx *f, const char *root, const char *cass,
                   const char *runs, const char *resume)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[4200];
	skit_error err = { 0 };

	memset(f, 0, sizeof(*f));
	if (skit_registry_new(&f->reg, &err) ||
	    skit_registry_add_root(f->reg, "project", root, &err) ||
	    skit_registry_scan(f->reg, &err))
		goto fail;
	snprintf(spec, sizeof(spec), "replay:%s", cass);
	mo.spec = spec;
	if (skit_model_new(&f->model, &mo, &err))
		goto fail;
	ao.registry = f->reg;
	ao.model = f->model;
	ao.runs_dir = runs;
	ao.file_tools = false;
	ao.max_turns = 1000;
	ao.resume_session = resume;
	ao.project_instructions = false;
	if (skit_agent_new(&f->agent, &ao, &err))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "bench_session: %s\n", err.message);
	return -1;
}

static void close_fx(struct fx *f)
{
	skit_agent_free(f->agent);
	skit_model_free(f->model);
	skit_registry_free(f->reg);
}

int main(int argc, char **argv)
{
	int messages = argc > 1 ? atoi(argv[1]) : 500;
	int turns = argc > 2 ? atoi(argv[2]) : 50;
	int resumes = argc > 3 ? atoi(argv[3]) : 20;
	char tmpl[] = "/tmp/skit-bench-session-XXXXXX", path[4200], cass[4200],
	     runs[4200], session[8400];
	double *agent_ms, *model_ms, *with_ms, *without_ms;
	skit_model_response resp;
	skit_message *msgs;
	skit_model_request req;
	skit_error err = { 0 };
	struct fx f;
	char *answer;
	int sends;

	if (messages < 4 || turns < 1 || resumes < 1)
		return 2;
	if (!mkdtemp(tmpl))
		return 1;
	snprintf(path, sizeof(path), "%s/skills/alpha", tmpl);
	snprintf(cass, sizeof(cass), "%s/skills", tmpl);
	if (mkdir(cass, 0755) || mkdir(path, 0755))
		return 1;
	snprintf(path, sizeof(path), "%s/skills/alpha/SKILL.md", tmpl);
	write_text(path, "---\nname: alpha\ndescription: Reports on "
	                 "quarterly figures.\n---\n# Alpha\n\nRead the "
	                 "sheet, total each column, name the outliers.\n");
	sends = messages / 2 - 1; /* and the skill's call and result */
	snprintf(cass, sizeof(cass), "%s/cassette.jsonl", tmpl);
	snprintf(runs, sizeof(runs), "%s/runs", tmpl);
	snprintf(path, sizeof(path), "%s/skills", tmpl);
	if (cassette(cass, sends + turns + 2 + 2 * turns))
		return 1;
	agent_ms = calloc((size_t)turns, sizeof(double));
	model_ms = calloc((size_t)turns, sizeof(double));
	with_ms = calloc((size_t)resumes, sizeof(double));
	without_ms = calloc((size_t)resumes, sizeof(double));
	if (!agent_ms || !model_ms || !with_ms || !without_ms)
		return 1;

	/* The history: `messages` messages, with a trail and a session. */
	if (open_fx(&f, path, cass, runs, NULL))
		return 1;
	for (int i = 0; i < sends; i++) {
		char text[128];

		snprintf(text, sizeof(text),
		         "Question %d about the quarterly figures in sheet %d",
		         i, i % 7);
		if (skit_agent_send(f.agent, text, &answer, &err)) {
			fprintf(stderr, "bench_session: %s\n", err.message);
			return 1;
		}
		skit_free(answer);
	}
	snprintf(session, sizeof(session), "%s/resume.jsonl", tmpl);
	if (skit_agent_session_save(f.agent, session, &err)) {
		fprintf(stderr, "bench_session: %s\n", err.message);
		return 1;
	}
	{
		skit_agent_context_info ci;

		skit_agent_context(f.agent, &ci);
		printf("history: %zu messages\n", ci.messages);
	}
	/* Turns on that history: the agent... */
	for (int i = 0; i < turns; i++) {
		double t0 = bench_now_ms();

		if (skit_agent_send(f.agent, "One more question", &answer,
		                    &err)) {
			fprintf(stderr, "bench_session: %s\n", err.message);
			return 1;
		}
		agent_ms[i] = bench_now_ms() - t0;
		skit_free(answer);
	}
	/* ... and the model alone on a conversation of the same size. */
	msgs = calloc((size_t)messages + 2, sizeof(*msgs));
	if (!msgs)
		return 1;
	for (int i = 0; i < messages + 1; i++) {
		msgs[i].role = i % 2 ? SKIT_ROLE_ASSISTANT : SKIT_ROLE_USER;
		msgs[i].text =
		        i % 2 ? "Answer: the figures of the quarter are "
		                "in the report; the totals match the "
		                "sheet and the next step is to check the "
		                "outliers in column C."
		              : "Question about the quarterly figures";
	}
	memset(&req, 0, sizeof(req));
	req.system = "system";
	req.messages = msgs;
	req.message_count = (size_t)messages + 1;
	for (int i = 0; i < turns; i++) {
		double t0 = bench_now_ms();

		memset(&resp, 0, sizeof(resp));
		if (skit_model_complete(f.model, &resp, &req, NULL, NULL,
		                        &err)) {
			fprintf(stderr, "bench_session: %s\n", err.message);
			return 1;
		}
		model_ms[i] = bench_now_ms() - t0;
		skit_model_response_release(&resp);
	}
	skit_agent_finish(f.agent, "ok", 0, NULL);
	f.agent = NULL;
	close_fx(&f);

	/* Resuming that session, against a fresh agent. */
	for (int i = 0; i < resumes; i++) {
		struct fx g;
		double t0 = bench_now_ms();

		if (open_fx(&g, path, cass, runs, session))
			return 1;
		with_ms[i] = bench_now_ms() - t0;
		close_fx(&g);
		t0 = bench_now_ms();
		if (open_fx(&g, path, cass, runs, NULL))
			return 1;
		without_ms[i] = bench_now_ms() - t0;
		close_fx(&g);
	}
	{
		double a = bench_median(agent_ms, (size_t)turns);
		double m = bench_median(model_ms, (size_t)turns);
		double w = bench_median(with_ms, (size_t)resumes);
		double wo = bench_median(without_ms, (size_t)resumes);

		printf("turn with %d messages: agent %.3f ms, replay model "
		       "alone %.3f ms: overhead %.3f ms (target <= 5)\n",
		       messages, a, m, a - m);
		printf("new agent: resuming %.3f ms, fresh %.3f ms: load and "
		       "resume %.3f ms (target <= 5)\n",
		       w, wo, w - wo);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", tmpl);
	if (system(path) != 0)
		return 1;
	free(msgs);
	free(agent_ms);
	free(model_ms);
	free(with_ms);
	free(without_ms);
	return 0;
}
