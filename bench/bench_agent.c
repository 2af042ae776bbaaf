/* SPDX-License-Identifier: MIT */
/*
 * bench_agent.c - the agent's own cost per turn, without a model.
 *
 *	bench_agent [SKILLS] [TASKS] [TURNS]
 *
 * Builds SKILLS synthetic skills (default 1000) in a temporary folder,
 * scans them, and runs TASKS tasks (default 200) of TURNS model turns each
 * (default 10) with the replay provider: turn 1 activates a skill, the
 * turns between update the plan, the last one answers. Each task gets a
 * fresh agent (its index of every skill is rendered at creation, outside
 * the timing) and a fresh replay model. The per-turn figure is the time
 * in skit_agent_send() divided by the turns, so it includes the replay
 * provider's own cost; as a baseline measured in the same run, the
 * program also times that replay provider alone on the same requests
 * shape (one skit_model_complete() per turn, same conversation size).
 * It prints the median and p95 over tasks, with and without an audit
 * trail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "skit/skit.h"

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int make_skills(const char *root, int n)
{
	char path[4096], text[4096];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/skill-%04d", root, i);
		if (mkdir(path, 0755) < 0)
			return -1;
		snprintf(path, sizeof(path), "%s/skill-%04d/SKILL.md", root, i);
		snprintf(text, sizeof(text),
		         "---\nname: skill-%04d\ndescription: Synthetic skill "
		         "number %d for the agent benchmark. Use it when the "
		         "task mentions widget %d or the report of batch %d.\n"
		         "---\n\n# Skill %d\n\nDo the thing in three steps: "
		         "read, think, answer.\n",
		         i, i, i, i % 97, i);
		if (write_file(path, text) < 0)
			return -1;
	}
	return 0;
}

static int make_cassette(const char *path, int turns)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs("{\"tool_calls\": [{\"name\": \"use_skill\", \"arguments\": "
	      "{\"name\": \"skill-0042\"}}]}\n",
	      f);
	for (int t = 1; t < turns - 1; t++)
		fprintf(f,
		        "{\"tool_calls\": [{\"name\": \"update_plan\", "
		        "\"arguments\": {\"steps\": [{\"step\": \"step %d\", "
		        "\"status\": \"in_progress\"}, {\"step\": \"next\", "
		        "\"status\": \"pending\"}]}}]}\n",
		        t);
	fputs("{\"text\": \"Done: the widget report is ready.\"}\n", f);
	return fclose(f);
}

struct figures {
	double median, p95;
};

static struct figures summarise(double *v, int n)
{
	struct figures f;

	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	f.median = v[n / 2];
	f.p95 = v[(n * 95) / 100 < n ? (n * 95) / 100 : n - 1];
	return f;
}

static int run_tasks(skit_registry *reg, const char *cassette, const char *runs,
                     int tasks, int turns, double *out)
{
	for (int i = 0; i < tasks; i++) {
		skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
		skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
		char spec[300], *answer = NULL;
		skit_error err = { 0 };
		skit_model *m = NULL;
		skit_agent *a = NULL;
		double t0;

		snprintf(spec, sizeof(spec), "replay:%s", cassette);
		mo.spec = spec;
		if (skit_model_new(&m, &mo, &err) < 0) {
			fprintf(stderr, "bench_agent: %s\n", err.message);
			return -1;
		}
		ao.registry = reg;
		ao.model = m;
		ao.runs_dir = runs;
		ao.max_turns = (unsigned int)turns + 1;
		if (skit_agent_new(&a, &ao, &err) < 0) {
			fprintf(stderr, "bench_agent: %s\n", err.message);
			skit_model_free(m);
			return -1;
		}
		t0 = bench_now_ms();
		if (skit_agent_send(a, "Prepare the widget report", &answer,
		                    &err) < 0) {
			fprintf(stderr, "bench_agent: %s\n", err.message);
			skit_agent_free(a);
			skit_model_free(m);
			return -1;
		}
		out[i] = (bench_now_ms() - t0) / turns;
		skit_free(answer);
		skit_agent_finish(a, "ok", 0, NULL);
		skit_model_free(m);
	}
	return 0;
}

/* The replay provider alone: the same number of calls per task, with a
 * request of the size the agent sends (system prompt of the index). */
static int run_model_only(skit_registry *reg, const char *cassette, int tasks,
                          int turns, double *out)
{
	skit_prompt_options po = SKIT_PROMPT_OPTIONS_INIT;
	size_t n = skit_registry_count(reg);
	skit_prompt_item *items = calloc(n, sizeof(*items));
	skit_message msg = { SKIT_ROLE_USER, "Prepare the widget report",
		             NULL,           0,
		             NULL,           NULL,
		             false };
	skit_model_request req;
	char *system = NULL;

	if (!items)
		return -1;
	for (size_t i = 0; i < n; i++) {
		items[i].name = skit_registry_entry(reg, i)->name;
		items[i].description = skit_registry_entry(reg, i)->description;
		items[i].location = skit_registry_entry(reg, i)->file;
	}
	if (skit_prompt_render(&system, items, n, &po, NULL, NULL) < 0)
		return -1;
	free(items);
	memset(&req, 0, sizeof(req));
	req.system = system;
	req.messages = &msg;
	req.message_count = 1;
	for (int i = 0; i < tasks; i++) {
		skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
		char spec[300];
		skit_model *m = NULL;
		double t0;

		snprintf(spec, sizeof(spec), "replay:%s", cassette);
		mo.spec = spec;
		if (skit_model_new(&m, &mo, NULL) < 0)
			return -1;
		t0 = bench_now_ms();
		for (int t = 0; t < turns; t++) {
			skit_model_response r;

			if (skit_model_complete(m, &r, &req, NULL, NULL, NULL) <
			    0)
				return -1;
			skit_model_response_release(&r);
		}
		out[i] = (bench_now_ms() - t0) / turns;
		skit_model_free(m);
	}
	skit_free(system);
	return 0;
}

int main(int argc, char **argv)
{
	int skills = argc > 1 ? atoi(argv[1]) : 1000;
	int tasks = argc > 2 ? atoi(argv[2]) : 200;
	int turns = argc > 3 ? atoi(argv[3]) : 10;
	char tmpl[] = "/tmp/skit-bench-agent-XXXXXX", root[256], cas[256],
	     runs[256], cmd[400];
	double *plain, *audited, *model;
	struct figures fp, fa, fm;
	skit_registry *reg = NULL;
	skit_agent_stats st;
	int rc = 1;

	if (skills < 1 || tasks < 1 || turns < 2 || !mkdtemp(tmpl))
		return 2;
	snprintf(root, sizeof(root), "%s/skills", tmpl);
	snprintf(cas, sizeof(cas), "%s/cassette.jsonl", tmpl);
	snprintf(runs, sizeof(runs), "%s/runs", tmpl);
	plain = calloc((size_t)tasks, sizeof(double));
	audited = calloc((size_t)tasks, sizeof(double));
	model = calloc((size_t)tasks, sizeof(double));
	if (!plain || !audited || !model || mkdir(root, 0755) < 0 ||
	    make_skills(root, skills) < 0 || make_cassette(cas, turns) < 0 ||
	    skit_registry_new(&reg, NULL) < 0 ||
	    skit_registry_add_root(reg, "bench", root, NULL) < 0 ||
	    skit_registry_scan(reg, NULL) < 0)
		goto out;
	if (run_tasks(reg, cas, NULL, tasks, turns, plain) < 0 ||
	    run_tasks(reg, cas, runs, tasks, turns, audited) < 0 ||
	    run_model_only(reg, cas, tasks, turns, model) < 0)
		goto out;
	fp = summarise(plain, tasks);
	fa = summarise(audited, tasks);
	fm = summarise(model, tasks);
	(void)st;
	printf("skills=%d tasks=%d turns=%d\n", skills, tasks, turns);
	printf("per_turn_ms_median=%.4f per_turn_ms_p95=%.4f (no audit)\n",
	       fp.median, fp.p95);
	printf("per_turn_ms_median_audit=%.4f per_turn_ms_p95_audit=%.4f\n",
	       fa.median, fa.p95);
	printf("replay_only_ms_median=%.4f (baseline: the model alone)\n",
	       fm.median);
	printf("agent_overhead_ms_median=%.4f (no audit), %.4f (audit)\n",
	       fp.median - fm.median, fa.median - fm.median);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench_agent: set-up failed\n");
	skit_registry_free(reg);
	free(plain);
	free(audited);
	free(model);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
