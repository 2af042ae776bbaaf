/* SPDX-License-Identifier: MIT */
/*
 * fuzz_actions.c - the JSON action protocol (models without native tool
 * calling answer with {"action": "<tool>", ...}, bare or in a fenced
 * block), through the agent: the reply is read from a cassette, parsed,
 * and the action run under the default policy (reads run, anything else
 * is refused without a terminal) in a scratch project with one skill.
 *
 * Input: the model's first reply; its second is a fixed answer. Checks:
 * no crash, no leak, and a failed send gives a one-line error.
 */
#include "common.h"

#include <jansson.h>

#include "skit/skit.h"
#include "fuzz.h"

static void one_line(const char *s)
{
	for (const char *p = s; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f,
		           "control byte in \"%s\"", s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char skill[] =
	        "---\nname: fz\ndescription: A skill for fuzzing. Use when "
	        "asked.\n---\nRead notes.txt, then answer.\n";

	(void)argc;
	(void)argv;
	fuzz_write(fuzz_path("skills/fz/SKILL.md"), skill, sizeof(skill) - 1);
	fuzz_write(fuzz_path("skills/fz/references/r.md"), "ref\n", 4);
	fuzz_write(fuzz_path("project/notes.txt"), "alpha\nbeta\n", 11);
	/* A line on which a back-reference pattern goes exponential. */
	{
		char line[161];

		memset(line, 'a', 158);
		memcpy(line + 158, "xb", 2);
		line[160] = '\n';
		fuzz_write(fuzz_path("project/long.txt"), line, sizeof(line));
	}
	fuzz_write(fuzz_path("work/.keep"), "", 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	json_t *line;
	char *text, *dumped = NULL, *answer = NULL;
	char spec[4200];
	FILE *f;

	if (size > 16384)
		return 0;
	text = fuzz_str(data, size);
	line = json_pack("{s:s%, s:s}", "text", text, size, "stop_reason",
	                 "end_turn");
	free(text);
	if (!line)
		return 0; /* not UTF-8: a cassette cannot hold it */
	dumped = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	if (!dumped)
		return 0;
	f = fopen(fuzz_path("c.jsonl"), "w");
	if (!f)
		abort();
	fprintf(f, "%s\n{\"text\": \"done\", \"stop_reason\": \"end_turn\"}\n",
	        dumped);
	fclose(f);
	free(dumped);

	snprintf(spec, sizeof(spec), "replay:%s", fuzz_path("c.jsonl"));
	mo.spec = spec;
	if (skit_model_new(&model, &mo, &err) ||
	    skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "project", fuzz_path("skills"), &err) ||
	    skit_registry_scan(reg, &err))
		goto out;
	ao.registry = reg;
	ao.model = model;
	ao.json_actions = true;
	ao.project_dir = fuzz_path("project");
	ao.workdir = fuzz_path("work");
	ao.max_turns = 3;
	ao.script_timeout_ms = 2000;
	if (skit_agent_new(&agent, &ao, &err))
		goto out;
	if (skit_agent_send(agent, "help", &answer, &err))
		one_line(err.message);
	skit_free(answer);
out:
	skit_agent_free(agent);
	skit_model_free(model);
	skit_registry_free(reg);
	return 0;
}
