/* SPDX-License-Identifier: MIT */
/*
 * cmd_run.c - `skit run TASK`: one task through the agent loop. The
 * answer streams to stdout; the trace (skills activated, tools called)
 * goes to stderr on a terminal (or with --trace); the run is recorded in
 * the audit trail.
 */
#include "common.h"

#include <getopt.h>
#include <unistd.h>

#include "cli/agent_opts.h"
#include "cli/cmd.h"
#include "cli/error.h"
#include "util/buf.h"
#include "util/fs.h"

#define TASK_MAX (1024u * 1024)

static void help(void)
{
	printf("usage: skit run [options] TASK...\n\n"
	       "Run one task with the agent: the model sees the skills index, "
	       "activates\nskills as it needs them, reads their references "
	       "and runs their scripts.\nThe words of several arguments are "
	       "joined; TASK '-' reads it from stdin.\nStart the task with "
	       "/NAME to activate a skill yourself, or mention $NAME.\n\n"
	       "Options:\n"
	       "  --json              print a JSON summary (answer, status, "
	       "usage, run folder)\n"
	       "                      instead of streaming the answer\n");
	/* the options shared with chat: a literal of their own */
	fputs(CLI_AGENT_HELP, stdout);
	printf("  -h, --help          show this help\n\n"
	       "Exit status: 0 answered, 1 failed or a budget ran out, 2 "
	       "usage error,\n130 interrupted.\n");
}

static void put_json_summary(struct cli_agent *ca, int rc, const char *answer,
                             const char *run_dir, const skit_error *err)
{
	static const char *const states[] = { "pending", "in_progress",
		                              "completed" };
	skit_agent_stats st;
	size_t n;

	skit_agent_get_stats(ca->agent, &st);
	fputs("{\n", stdout);
	cli_put_json_kv(stdout, "  ", "status", skit_agent_status(rc), true);
	cli_put_json_kv(stdout, "  ", "answer", rc ? NULL : answer, true);
	cli_put_json_kv(stdout, "  ", "error", rc ? err->message : NULL, true);
	cli_put_json_kv(stdout, "  ", "model", skit_model_name(ca->mod), true);
	cli_put_json_kv(stdout, "  ", "provider", skit_model_provider(ca->mod),
	                true);
	cli_put_json_kv(stdout, "  ", "run_dir", run_dir, true);
	printf("  \"turns\": %u,\n  \"tool_calls\": %u,\n"
	       "  \"script_runs\": %u,\n"
	       "  \"usage\": {\"input_tokens\": %llu, \"output_tokens\": "
	       "%llu},\n"
	       "  \"index\": {\"skills\": %zu, \"omitted\": %zu, \"chars\": "
	       "%zu},\n",
	       st.turns, st.tool_calls, st.script_runs,
	       (unsigned long long)st.usage.input_tokens,
	       (unsigned long long)st.usage.output_tokens, st.index_skills,
	       st.index_omitted, st.index_chars);
	fputs("  \"skills\": [", stdout);
	n = skit_agent_active_count(ca->agent);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", stdout);
		cli_put_json_str(stdout, skit_agent_active_skill(ca->agent, i));
	}
	fputs("],\n  \"plan\": [", stdout);
	n = skit_agent_plan_count(ca->agent);
	for (size_t i = 0; i < n; i++) {
		skit_step_status s;
		const char *text = skit_agent_plan_step(ca->agent, i, &s);

		fputs(i ? ",\n    {\"step\": " : "\n    {\"step\": ", stdout);
		cli_put_json_str(stdout, text);
		printf(", \"status\": \"%s\"}", states[s]);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", stdout);
}

static int read_task(struct skitx_buf *task, int argc, char **argv)
{
	if (argc == 1 && !strcmp(argv[0], "-"))
		return skitx_fs_read_fd(STDIN_FILENO, task, TASK_MAX);
	for (int i = 0; i < argc; i++)
		if (skitx_buf_printf(task, "%s%s", i ? " " : "", argv[i]))
			return SKIT_ENOMEM;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_AGENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_agent ca;
	struct skitx_buf task;
	skit_error err = { 0 };
	char *answer = NULL, *run_dir = NULL;
	bool json = false;
	int c, status, rc;

	memset(&ca, 0, sizeof(ca));
	ca.argc = argc;
	ca.argv = argv;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		status = cli_agent_option(&ca, c, optarg, argv[0]);
		if (status == 1)
			continue;
		if (status)
			return status;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing TASK");
	skitx_buf_init(&task, TASK_MAX);
	rc = read_task(&task, argc - optind, argv + optind);
	if (rc || !skitx_buf_len(&task)) {
		cli_error(argv[0], rc == SKIT_ETOOBIG ? "the task is too large"
		                   : rc               ? "cannot read the task"
		                                      : "the task is empty");
		skitx_buf_release(&task);
		return rc ? CLI_FAIL : CLI_USAGE;
	}
	status = cli_agent_open(&ca, !json, argv[0]);
	if (status != CLI_OK) {
		skitx_buf_release(&task);
		cli_agent_close(&ca, SKIT_ERROR, argv[0]);
		return status;
	}
	cli_agent_catch_sigint(true);
	rc = skit_agent_send(ca.agent, skitx_buf_cstr(&task), &answer, &err);
	cli_agent_catch_sigint(false);
	if (!json)
		cli_agent_end_stream(&ca);
	if (rc)
		cli_error(argv[0], "%s", err.message);
	if (rc == SKIT_ENOTFOUND && skitx_buf_cstr(&task)[0] == '/')
		cli_slash_hint(ca.reg, skitx_buf_cstr(&task), false);
	cli_agent_warn_planted(&ca, argv[0]);
	if (json) {
		if (skit_agent_run_dir(ca.agent))
			run_dir = skitx_strdup(skit_agent_run_dir(ca.agent));
		put_json_summary(&ca, rc, answer, run_dir, &err);
	}
	status = cli_agent_close(&ca, rc, argv[0]);
	skit_free(answer);
	skitx_free(run_dir);
	skitx_buf_release(&task);
	return status;
}
