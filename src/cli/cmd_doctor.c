/* SPDX-License-Identifier: MIT */
/*
 * cmd_doctor.c - `skit doctor`: what the registry sees and what is wrong
 * with it.
 *
 * The report is a list of sections, each one function writing either a
 * block of text or one member of the JSON object. To add a check (the
 * sandbox layers, say), write a section function and add it to the
 * `sections` table; count what should fail the run in `d->findings`.
 */
#include "common.h"

#include <strings.h>

#include "cli/agent_opts.h"
#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "skit/sandbox.h"
#include "util/buf.h"
#include "util/path.h"

struct doctor {
	skit_registry *reg;
	bool json;
	struct cli_style st;
	FILE *f;
	bool explicit_roots;  /* --root: no project search */
	bool no_config;       /* --no-config */
	const char *config;   /* --config FILE */
	bool strict;          /* --strict: warnings fail too */
	size_t findings;      /* errors: exit 1 when any */
	size_t warnings;      /* exit 1 only with --strict */
	size_t infos;         /* normal layouts worth knowing; never fail */
	size_t warned;        /* skills' own warnings: problems with --strict */
	size_t warned_skills; /* the skills that carry them */
	size_t active, shadowed, skipped, hidden;
};

static void help(void)
{
	printf("usage: skit doctor [options]\n\n"
	       "Report the skill roots (which exist, how many skills each "
	       "holds), the\nshadowed copies, the skills that were skipped "
	       "and why, skills nested in\nother skills, what the scan "
	       "found (link loops, aliases, name collisions,\nlook-alike "
	       "and mixed-script names, roots and skill folders others "
	       "can\nwrite...), the size of the skills index against the "
	       "default prompt budget,\nand which sandbox layers this "
	       "system gives the scripts skills run. Skills\nthat loaded "
	       "with warnings are listed with each warning; they do not "
	       "change\nthe exit status unless --strict. A skill folder "
	       "that is a link to another\nroot's copy (the layout of "
	       "'npx skills': .claude/skills/x -> .agents/skills/x)\nis "
	       "listed once and reported as information.\n\n"
	       "Options:\n"
	       "  --json              print the report as one JSON "
	       "object\n"
	       "  --strict            warnings fail too (exit 1)\n" CLI_ROOTS_HELP
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 when nothing is wrong, 1 when a skill was "
	       "skipped or the scan\nreported an error (or, with --strict, a "
	       "warning), 2 on a usage error.\n");
}

static void text(struct doctor *d, const char *s)
{
	cli_put_text(d->f, s, true, 0);
}

/* ---- sections ---------------------------------------------------------- */

static void sec_project(struct doctor *d)
{
	const char *p = skit_registry_project_dir(d->reg);

	if (d->json) {
		if (p)
			cli_put_json_str(d->f, p);
		else
			fputs("null", d->f);
		return;
	}
	fprintf(d->f, "%sProject:%s ", d->st.bold, d->st.reset);
	if (p) {
		text(d, p);
		/* folder trust (docs/registry.md): not a problem, a state */
		if (!skit_registry_project_trusted(d->reg)) {
			const char *cfg = cli_untrusted_config(d->reg);

			fprintf(d->f,
			        " %s[untrusted]%s: the agent leaves out its "
			        "skills",
			        d->st.red, d->st.reset);
			if (cfg)
				fprintf(d->f, " and ignores its config (%s)",
				        cfg);
			else
				fputs(" and config", d->f);
			fputs("; to trust it: skit trust ", d->f);
			text(d, p);
		}
	} else if (d->explicit_roots)
		fputs("not searched (roots given with --root)", d->f);
	else
		fputs("none (no .agents/, .agent/ or .git above the working "
		      "folder)",
		      d->f);
	fputc('\n', d->f);
}

/* Shadowed and skipped entries of root `r`. */
static void root_counts(const skit_registry *reg, size_t r, size_t *shadowed,
                        size_t *skipped)
{
	*shadowed = *skipped = 0;
	for (size_t i = 0; i < skit_registry_all_count(reg); i++) {
		const skit_entry *e = skit_registry_all_entry(reg, i);

		if (e->root_index != r)
			continue;
		if (e->state == SKIT_ENTRY_SHADOWED)
			(*shadowed)++;
		else if (e->state == SKIT_ENTRY_SKIPPED)
			(*skipped)++;
	}
}

static void sec_roots(struct doctor *d)
{
	size_t n = skit_registry_root_count(d->reg), srcw = 0, pathw = 0;

	for (size_t i = 0; i < n; i++) {
		const char *source, *path;

		skit_registry_root(d->reg, i, &source, &path, NULL, NULL);
		if (cli_text_width(source) > srcw)
			srcw = cli_text_width(source);
		if (cli_text_width(path) > pathw && cli_text_width(path) < 60)
			pathw = cli_text_width(path);
	}
	if (d->json)
		fputs(n ? "[\n" : "[]", d->f);
	else
		fprintf(d->f, "%sRoots%s (highest precedence first):\n",
		        d->st.bold, d->st.reset);
	for (size_t i = 0; i < n; i++) {
		const char *source, *path;
		size_t skills, shadowed, skipped;
		bool exists, untrusted;

		skit_registry_root(d->reg, i, &source, &path, &exists, &skills);
		root_counts(d->reg, i, &shadowed, &skipped);
		untrusted = !skit_registry_project_trusted(d->reg) &&
		            skit_registry_source_matches(source, "project");
		if (d->json) {
			fputs("    {\n", d->f);
			cli_put_json_kv(d->f, "      ", "source", source, true);
			cli_put_json_kv(d->f, "      ", "path", path, true);
			fprintf(d->f, "      \"trusted\": %s,\n",
			        untrusted ? "false" : "true");
			fprintf(d->f,
			        "      \"exists\": %s,\n"
			        "      \"skills\": %zu,\n"
			        "      \"shadowed\": %zu,\n"
			        "      \"skipped\": %zu\n    }%s\n",
			        exists ? "true" : "false", skills, shadowed,
			        skipped, i + 1 < n ? "," : "");
			continue;
		}
		fprintf(d->f, "  %s", d->st.cyan);
		text(d, source);
		fputs(d->st.reset, d->f);
		for (size_t p = cli_text_width(source); p < srcw + 2; p++)
			fputc(' ', d->f);
		text(d, path);
		fputs("  ", d->f);
		for (size_t p = cli_text_width(path); p < pathw; p++)
			fputc(' ', d->f);
		if (!exists) {
			fprintf(d->f, "%smissing%s\n", d->st.dim, d->st.reset);
			continue;
		}
		fprintf(d->f, "%zu skill%s", skills, skills == 1 ? "" : "s");
		if (shadowed || skipped)
			fprintf(d->f, " (%zu shadowed, %zu skipped)", shadowed,
			        skipped);
		if (untrusted)
			fprintf(d->f, " %s[untrusted]%s", d->st.red,
			        d->st.reset);
		fputc('\n', d->f);
	}
	if (d->json && n)
		fputs("  ]", d->f);
}

static void sec_skills(struct doctor *d)
{
	if (d->json) {
		fprintf(d->f,
		        "{\n    \"active\": %zu,\n    \"shadowed\": %zu,\n"
		        "    \"skipped\": %zu,\n"
		        "    \"hidden_from_model\": %zu\n  }",
		        d->active, d->shadowed, d->skipped, d->hidden);
		return;
	}
	fprintf(d->f, "%sSkills:%s %zu active, %zu shadowed, %zu skipped",
	        d->st.bold, d->st.reset, d->active, d->shadowed, d->skipped);
	if (d->hidden)
		fprintf(d->f,
		        "; %zu hidden from the model "
		        "(disable-model-invocation)",
		        d->hidden);
	fputc('\n', d->f);
}

/* Entries in `state`, as a JSON array or a text block (none: nothing). */
static void list_state(struct doctor *d, skit_entry_state state,
                       const char *title)
{
	size_t n = skit_registry_all_count(d->reg), shown = 0;

	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_all_entry(d->reg, i);
		const skit_entry *win;

		if (e->state != state)
			continue;
		if (d->json) {
			fputs(shown ? ",\n    {\n" : "[\n    {\n", d->f);
			cli_put_json_kv(d->f, "      ", "name", e->name, true);
			cli_put_json_kv(d->f, "      ", "source", e->source,
			                true);
			cli_put_json_kv(d->f, "      ", "dir", e->dir, true);
			if (state == SKIT_ENTRY_SKIPPED) {
				cli_put_json_kv(d->f, "      ", "reason",
				                e->reason, false);
			} else {
				win = skit_registry_find(d->reg, e->name, NULL);
				cli_put_json_kv(d->f, "      ", "winner_source",
				                e->reason, true);
				cli_put_json_kv(d->f, "      ", "winner_dir",
				                win ? win->dir : NULL, false);
			}
			fputs("    }", d->f);
			shown++;
			continue;
		}
		if (!shown)
			fprintf(d->f, "%s%s%s\n", d->st.bold, title,
			        d->st.reset);
		fputs("  ", d->f);
		text(d, e->name);
		fprintf(d->f, " (%s%s%s) ", d->st.cyan, e->source, d->st.reset);
		text(d, e->dir);
		if (state == SKIT_ENTRY_SKIPPED) {
			fprintf(d->f, "\n    %s", d->st.red);
			text(d, e->reason ? e->reason : "");
			fputs(d->st.reset, d->f);
		} else {
			win = skit_registry_find(d->reg, e->name, NULL);
			fprintf(d->f, "\n    shadowed by %s", e->reason);
			if (win) {
				fputs(" ", d->f);
				text(d, win->dir);
			}
		}
		fputc('\n', d->f);
		shown++;
	}
	if (d->json)
		fputs(shown ? "\n  ]" : "[]", d->f);
}

/*
 * The last line counts what the report listed, so it never contradicts
 * it: the problems (errors, and warnings about roots and collisions),
 * then the skills that loaded with warnings, which are problems only
 * with --strict (and then counted among the warnings).
 */
static void verdict(const struct doctor *d)
{
	size_t problems = d->findings + d->warnings;

	if (problems)
		fprintf(d->f,
		        "%s%zu problem%s found: %zu error%s, %zu warning%s",
		        d->findings ? d->st.red : d->st.yellow, problems,
		        problems == 1 ? "" : "s", d->findings,
		        d->findings == 1 ? "" : "s", d->warnings,
		        d->warnings == 1 ? "" : "s");
	else
		fprintf(d->f, "%sNo problems found", d->st.green);
	if (d->warned_skills && !d->strict)
		fprintf(d->f,
		        "; %zu skill%s loaded with warnings (listed above; "
		        "--strict counts them)",
		        d->warned_skills, d->warned_skills == 1 ? "" : "s");
	else if (d->warned_skills)
		fprintf(d->f,
		        " (%zu of them in %zu skill%s loaded with "
		        "warnings)",
		        d->warned, d->warned_skills,
		        d->warned_skills == 1 ? "" : "s");
	fprintf(d->f, ".%s\n", d->st.reset);
}

static void sec_shadowed(struct doctor *d)
{
	list_state(d, SKIT_ENTRY_SHADOWED,
	           "Shadowed (the same name in a higher root wins):");
}

static void sec_skipped(struct doctor *d)
{
	list_state(d, SKIT_ENTRY_SKIPPED, "Skipped (not loaded):");
	d->findings += d->skipped;
}

/*
 * Skills that loaded with warnings (the loading rules' deviations: flow
 * YAML, a name that differs from its folder...), each with every
 * warning. The index keeps only their count, so each is loaded again.
 * Warnings are not problems: they do not change the exit status.
 */
static void sec_warned(struct doctor *d)
{
	size_t n = skit_registry_all_count(d->reg), shown = 0;

	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_all_entry(d->reg, i);
		const skit_diag *dg = NULL;
		skit_skill *s = NULL;
		size_t nd = 0, w = 0;

		if (e->state == SKIT_ENTRY_SKIPPED || !e->warnings)
			continue;
		if (skit_registry_load(&s, d->reg, e, NULL) == 0)
			dg = skit_skill_diags(s, &nd);
		if (d->json) {
			fputs(shown ? ",\n    {\n" : "[\n    {\n", d->f);
			cli_put_json_kv(d->f, "      ", "name", e->name, true);
			cli_put_json_kv(d->f, "      ", "source", e->source,
			                true);
			cli_put_json_kv(d->f, "      ", "dir", e->dir, true);
			fputs("      \"warnings\": [", d->f);
		} else {
			if (!shown)
				fprintf(d->f, "%sLoaded with warnings:%s\n",
				        d->st.bold, d->st.reset);
			fputs("  ", d->f);
			text(d, e->name);
			fprintf(d->f, " (%s%s%s) ", d->st.cyan, e->source,
			        d->st.reset);
			text(d, e->dir);
			fputc('\n', d->f);
		}
		for (size_t k = 0; k < nd; k++) {
			if (dg[k].severity != SKIT_SEVERITY_WARNING)
				continue;
			if (d->json) {
				fputs(w ? ",\n        {" : "\n        {", d->f);
				cli_put_json_kv(d->f, "", "code", dg[k].code,
				                true);
				cli_put_json_kv(d->f, " ", "message",
				                dg[k].message, false);
				fputs("}", d->f);
			} else {
				fprintf(d->f, "    %s", d->st.yellow);
				text(d, dg[k].message);
				fprintf(d->f, "%s %s[%s]%s\n", d->st.reset,
				        d->st.dim, dg[k].code, d->st.reset);
			}
			w++;
		}
		if (d->json)
			fputs(w ? "\n      ]\n    }" : "]\n    }", d->f);
		d->warned += w;
		skit_skill_free(s);
		shown++;
	}
	d->warned_skills = shown;
	if (d->json)
		fputs(shown ? "\n  ]" : "[]", d->f);
}

/*
 * An alias (a skill folder that is a link to a copy another root already
 * lists, as `npx skills` lays out .claude/skills/x -> .agents/skills/x) is
 * listed once and harms nothing: information, not a warning.
 */
static bool is_info(const skit_diag *dg)
{
	return dg->severity != SKIT_SEVERITY_ERROR &&
	       !strcmp(dg->code, "alias");
}

static const char *severity(const skit_diag *dg)
{
	return is_info(dg)                           ? "info"
	       : dg->severity == SKIT_SEVERITY_ERROR ? "error"
	                                             : "warning";
}

/* A walk of one skill folder for SKILL.md files below its top. */
struct nested {
	struct doctor *d;
	const skit_entry *e;
	size_t *shown;
};

static int nested_cb(const char *relpath, bool is_dir, void *payload)
{
	struct nested *n = payload;
	struct doctor *d = n->d;
	const char *base = strrchr(relpath, '/');

	if (is_dir || !base || strcasecmp(base + 1, "SKILL.md"))
		return 0;
	if (d->json) {
		fputs(*n->shown ? ",\n    {" : "[\n    {", d->f);
		cli_put_json_kv(d->f, "", "name", n->e->name, true);
		cli_put_json_kv(d->f, "      ", "source", n->e->source, true);
		cli_put_json_kv(d->f, "      ", "dir", n->e->dir, true);
		cli_put_json_kv(d->f, "      ", "file", relpath, false);
		fputs("    }", d->f);
	} else {
		if (!*n->shown)
			fprintf(d->f,
			        "%sNested skills (never loaded; their files "
			        "run as the outer skill's):%s\n",
			        d->st.bold, d->st.reset);
		fputs("  ", d->f);
		text(d, n->e->dir);
		fputc('/', d->f);
		text(d, relpath);
		fprintf(d->f, " (in %s", d->st.cyan);
		text(d, n->e->name);
		fprintf(d->f, "%s, %s)\n", d->st.reset, n->e->source);
	}
	(*n->shown)++;
	return 0;
}

/*
 * A SKILL.md under a skill's folder (`outer/scripts/inner/SKILL.md`) is
 * a file of the outer skill, never a skill (docs/registry.md): each is a
 * finding. Every loadable skill's folder is walked (paths only, capped
 * as skit_skill_foreach_file() caps it).
 */
static void sec_nested(struct doctor *d)
{
	size_t n = skit_registry_all_count(d->reg), shown = 0;

	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_all_entry(d->reg, i);
		struct nested ctx = { d, e, &shown };
		skit_skill *s = NULL;

		if (e->state == SKIT_ENTRY_SKIPPED ||
		    skit_registry_load(&s, d->reg, e, NULL) < 0)
			continue;
		skit_skill_foreach_file(s, nested_cb, &ctx, NULL);
		skit_skill_free(s);
	}
	d->findings += shown;
	if (d->json)
		fputs(shown ? "\n  ]" : "[]", d->f);
}

static void sec_diags(struct doctor *d)
{
	size_t n;
	const skit_diag *dg = skit_registry_diags(d->reg, &n);

	for (size_t i = 0; i < n; i++) {
		if (is_info(&dg[i]))
			d->infos++;
		else if (dg[i].severity == SKIT_SEVERITY_ERROR)
			d->findings++;
		else
			d->warnings++;
	}
	if (d->json) {
		fputs(n ? "[\n" : "[]", d->f);
		for (size_t i = 0; i < n; i++) {
			fputs("    {\n", d->f);
			cli_put_json_kv(d->f, "      ", "severity",
			                severity(&dg[i]), true);
			cli_put_json_kv(d->f, "      ", "code", dg[i].code,
			                true);
			cli_put_json_kv(d->f, "      ", "path", dg[i].path,
			                true);
			cli_put_json_kv(d->f, "      ", "message",
			                dg[i].message, false);
			fputs(i + 1 < n ? "    },\n" : "    }\n  ]", d->f);
		}
		return;
	}
	if (!n)
		return;
	fprintf(d->f, "%sScan findings:%s\n", d->st.bold, d->st.reset);
	for (size_t i = 0; i < n; i++) {
		fprintf(d->f, "  %s%s%s ",
		        is_info(&dg[i])                         ? d->st.dim
		        : dg[i].severity == SKIT_SEVERITY_ERROR ? d->st.red
		                                                : d->st.yellow,
		        severity(&dg[i]), d->st.reset);
		if (dg[i].path) {
			text(d, dg[i].path);
			fputs(": ", d->f);
		}
		text(d, dg[i].message);
		fprintf(d->f, " %s[%s]%s\n", d->st.dim, dg[i].code,
		        d->st.reset);
	}
}

/*
 * The level-1 index as the agent would put it in the prompt: the active
 * skills the model may see (not disable-model-invocation), in index
 * order, description plus when_to_use, rendered as XML.
 */
static void sec_index(struct doctor *d)
{
	size_t n = skit_registry_count(d->reg), m = 0;
	skit_prompt_options opts = SKIT_PROMPT_OPTIONS_INIT;
	skit_prompt_stats full = { 0 }, cut = { 0 };
	skit_prompt_item *items;
	char **joined, *out = NULL;
	skit_error err = { 0 };
	int error = SKIT_ENOMEM;

	items = skitx_calloc(n ? n : 1, sizeof(*items));
	joined = skitx_calloc(n ? n : 1, sizeof(*joined));
	if (!items || !joined)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_entry(d->reg, i);
		struct skitx_buf b = SKITX_BUF_INIT;

		if (e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION)
			continue;
		items[m].name = e->name;
		items[m].description = e->description;
		items[m].location = e->file;
		if (e->when_to_use) {
			if (skitx_buf_printf(&b, "%s %s", e->description,
			                     e->when_to_use) < 0)
				goto out;
			joined[m] = skitx_buf_detach(&b, NULL);
			if (!joined[m])
				goto out;
			items[m].description = joined[m];
		}
		m++;
	}
	error = skit_prompt_render(&out, items, m, &opts, &full, &err);
	skit_free(out);
	out = NULL;
	if (error < 0)
		goto out;
	cut = full;
	if (full.chars > SKIT_PROMPT_DEFAULT_BUDGET) {
		opts.budget = SKIT_PROMPT_DEFAULT_BUDGET;
		error = skit_prompt_render(&out, items, m, &opts, &cut, &err);
		skit_free(out);
		if (error < 0 && error != SKIT_ETOOBIG)
			goto out;
	}
	error = 0;
out:
	if (d->json) {
		fprintf(d->f,
		        "{\n    \"format\": \"xml\",\n    \"skills\": %zu,\n"
		        "    \"chars\": %zu,\n    \"tokens\": %zu,\n"
		        "    \"budget\": %d,\n    \"fits\": %s,\n"
		        "    \"shown\": %zu,\n    \"shortened\": %zu,\n"
		        "    \"omitted\": %zu\n  }",
		        m, full.chars, skit_prompt_estimate_tokens(full.chars),
		        SKIT_PROMPT_DEFAULT_BUDGET,
		        full.chars <= SKIT_PROMPT_DEFAULT_BUDGET ? "true"
		                                                 : "false",
		        cut.shown, cut.shortened, cut.omitted);
	} else if (error < 0) {
		fprintf(d->f, "%sIndex:%s cannot be rendered: %s\n", d->st.bold,
		        d->st.reset,
		        err.message[0] ? err.message : skit_strerror(error));
	} else {
		fprintf(d->f,
		        "%sIndex:%s %zu characters (~%zu tokens) for %zu "
		        "skill%s; default budget %d characters: ",
		        d->st.bold, d->st.reset, full.chars,
		        skit_prompt_estimate_tokens(full.chars), m,
		        m == 1 ? "" : "s", SKIT_PROMPT_DEFAULT_BUDGET);
		if (full.chars <= SKIT_PROMPT_DEFAULT_BUDGET)
			fprintf(d->f, "%sfits%s\n", d->st.green, d->st.reset);
		else
			fprintf(d->f,
			        "%sover%s; %zu description%s shortened, %zu "
			        "skill%s left out (search_skills finds "
			        "them)\n",
			        d->st.yellow, d->st.reset, cut.shortened,
			        cut.shortened == 1 ? "" : "s", cut.omitted,
			        cut.omitted == 1 ? "" : "s");
	}
	for (size_t i = 0; joined && i < n; i++)
		skitx_free(joined[i]);
	skitx_free(joined);
	skitx_free(items);
}

/*
 * The confinement layers this kernel gives scripts (docs/sandbox.md). A missing
 * layer is a warning, not a finding: the run still goes on, with the
 * agent saying which layers it lacks.
 */
/*
 * The sandbox mode `skit run` would use here without --sandbox: the user
 * config, then the project's (which may not choose full-access). Returns
 * the config file that failed to load, or NULL.
 */
static char *sandbox_mode(struct doctor *d, skit_sandbox_config *cfg,
                          skit_error *err)
{
	/* an untrusted project's config is not read (folder trust) */
	const char *project = skit_registry_project_trusted(d->reg)
	                              ? skit_registry_project_dir(d->reg)
	                              : NULL;
	char *files[3] = { NULL, NULL, NULL }, *bad = NULL;
	bool trusted[3] = { true, false, true };

	cli_config_files(d->no_config, d->config, project, files);
	for (size_t i = 0; i < 3; i++) {
		skit_error e = { 0 };
		int rc;

		if (!files[i] || bad)
			continue;
		rc = skit_sandbox_config_load(cfg, files[i], trusted[i], &e);
		if (rc && !(rc == SKIT_ENOTFOUND && i < 2)) {
			bad = skitx_strdup(files[i]);
			*err = e;
		}
	}
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	return bad;
}

static void sec_sandbox(struct doctor *d)
{
	unsigned int avail = skit_sandbox_available(), missing = 0;
	int abi = skit_sandbox_landlock_abi();
	skit_sandbox_config cfg = SKIT_SANDBOX_CONFIG_INIT;
	skit_error err = { 0 };
	char *bad = sandbox_mode(d, &cfg, &err);
	uint64_t cap =
	        cfg.disk_cap ? cfg.disk_cap : SKIT_SANDBOX_DEFAULT_DISK_CAP;
	bool first = true;

	if (bad)
		d->findings++;
	skitx_free(bad);
	if (d->json) {
		fprintf(d->f,
		        "{\n    \"mode\": \"%s\",\n    \"disk_cap\": %llu,\n"
		        "    \"landlock_abi\": %d,\n    \"layers\": {",
		        skit_sandbox_mode_name(cfg.mode),
		        (unsigned long long)cap, abi);
		for (unsigned int b = 1; b & SKIT_SANDBOX_ALL; b <<= 1) {
			fprintf(d->f, "%s\n      \"%s\": %s", first ? "" : ",",
			        skit_sandbox_layer_name(b),
			        avail & b ? "true" : "false");
			first = false;
		}
		fputs("\n    }\n  }", d->f);
		return;
	}
	fprintf(d->f, "%sSandbox%s (layers for scripts; Landlock ABI %d):\n",
	        d->st.bold, d->st.reset, abi);
	fprintf(d->f, "  %-15s %s (disk cap %llu MiB a run)\n", "mode",
	        skit_sandbox_mode_name(cfg.mode),
	        (unsigned long long)(cap >> 20));
	if (err.message[0]) {
		fputs("  ", d->f);
		text(d, err.message);
		fputc('\n', d->f);
	}
	if (cfg.full_access_refused)
		fputs("  the project's config asks for full-access: ignored "
		      "(only --sandbox or the user config may)\n",
		      d->f);
	for (unsigned int b = 1; b & SKIT_SANDBOX_ALL; b <<= 1) {
		fprintf(d->f, "  %-15s %s%s%s\n", skit_sandbox_layer_name(b),
		        avail & b ? d->st.green : d->st.yellow,
		        avail & b ? "available" : "missing", d->st.reset);
		if (!(avail & b))
			missing++;
	}
	if (missing)
		fprintf(d->f,
		        "  %s%u layer%s missing: scripts run less confined "
		        "(docs/sandbox.md)%s\n",
		        d->st.yellow, missing, missing == 1 ? "" : "s",
		        d->st.reset);
}

/*
 * The project instructions `skit run` and `skit chat` would put in the
 * system prompt here (docs/agent.md, "Project instructions"): each file
 * found, read, cut or skipped and why, and whether a config file turns
 * them off. Not a finding: an untrusted folder's file is a state.
 */
static void sec_instructions(struct doctor *d)
{
	const char *project = skit_registry_project_dir(d->reg);
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_instructions *ins = NULL;
	skit_error err = { 0 };
	char *found = NULL, *files[3] = { NULL, NULL, NULL };
	const char *off = NULL;
	size_t n;

	/* where run and chat look: the registry's project, else theirs */
	if (!project && !skit_project_for_run(&found, NULL, &err))
		project = found;
	cli_config_files(d->no_config, d->config,
	                 skit_registry_project_trusted(d->reg) ? project : NULL,
	                 files);
	/* as run and chat read them: the user's, the project's (which may
	 * turn them off, not on), --config; a bad file is the sandbox
	 * section's to report */
	for (size_t i = 0; i < 3; i++) {
		skit_error e = { 0 };
		bool was = ao.project_instructions;

		if (files[i] &&
		    !skit_agent_options_load_config(&ao, files[i], i != 1,
		                                    &e) &&
		    was != ao.project_instructions)
			off = ao.project_instructions ? NULL : files[i];
	}
	if (skit_instructions_load(&ins, project, NULL, &err) < 0)
		ins = NULL;
	n = skit_instructions_count(ins);
	if (d->json) {
		fprintf(d->f, "{\n    \"enabled\": %s,\n    \"files\": [",
		        off ? "false" : "true");
		for (size_t i = 0; i < n; i++) {
			const skit_instruction_file *f =
			        skit_instructions_file(ins, i);

			fprintf(d->f, "%s\n      {\"path\": ", i ? "," : "");
			cli_put_json_str(d->f, f->path);
			fputs(", \"label\": ", d->f);
			cli_put_json_str(d->f, f->label);
			fprintf(d->f,
			        ", \"scope\": \"%s\", \"bytes\": %llu, "
			        "\"shown\": %zu, \"sha256\": ",
			        f->user ? "user" : "project",
			        (unsigned long long)f->size, f->shown);
			cli_put_json_str(d->f, f->sha256);
			fputs(", \"skipped\": ", d->f);
			if (f->skipped)
				cli_put_json_str(d->f, f->skipped);
			else
				fputs("null", d->f);
			fputc('}', d->f);
		}
		fputs(n ? "\n    ]\n  }" : "]\n  }", d->f);
	} else {
		fprintf(d->f,
		        "%sProject instructions%s (AGENTS.md, CLAUDE.md: the "
		        "system prompt of run and chat):\n",
		        d->st.bold, d->st.reset);
		if (off) {
			fputs("  off: \"project_instructions\": false in ",
			      d->f);
			text(d, off);
			fputc('\n', d->f);
		}
		if (!n)
			fputs("  none (no AGENTS.md or CLAUDE.md from the "
			      "project's root down to here, nor "
			      "~/.agents/AGENTS.md)\n",
			      d->f);
		for (size_t i = 0; i < n; i++) {
			const skit_instruction_file *f =
			        skit_instructions_file(ins, i);

			fputs("  ", d->f);
			text(d, f->label);
			if (f->skipped) {
				fprintf(d->f, "  %snot read: %s%s",
				        d->st.yellow, f->skipped, d->st.reset);
				if (!strcmp(f->skipped, "not a trusted folder"))
					fputs(" (skit trust the folder to read "
					      "it)",
					      d->f);
			} else if (f->shown < f->size) {
				fprintf(d->f, "  cut to %zu of %llu bytes",
				        f->shown, (unsigned long long)f->size);
			} else {
				fprintf(d->f, "  %llu bytes",
				        (unsigned long long)f->size);
			}
			fputc('\n', d->f);
		}
	}
	skit_instructions_free(ins);
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	skitx_free(found);
}

/*
 * The lsp tool's language servers (docs/lsp.md): each built-in or
 * configured one, its program as PATH finds it, and whether run and chat
 * give them here (only in a trusted project).
 */
static void sec_lsp(struct doctor *d)
{
	const char *project = skit_registry_project_dir(d->reg);
	char *found = NULL, *files[3] = { NULL, NULL, NULL }, why[512];
	bool trusted[3] = { true, false, true }, ok = false;
	skit_error err = { 0 };
	struct cli_lsp *l = skitx_calloc(1, sizeof(*l));
	int rc;

	if (!l)
		return;
	if (!project && !skit_project_for_run(&found, NULL, &err))
		project = found;
	if (project && skit_trust_check(&ok, project, &err) < 0)
		ok = false;
	cli_config_files(d->no_config, d->config, ok ? project : NULL, files);
	why[0] = '\0';
	rc = cli_lsp_load(l, files, trusted, 3, why, sizeof(why));
	if (d->json) {
		fprintf(d->f, "{\n    \"offered\": %s,\n    \"servers\": [",
		        ok && !rc ? "true" : "false");
		for (size_t i = 0; i < l->ne; i++) {
			const struct cli_lsp_entry *e = &l->e[i];
			char *path = e->argv ? cli_lsp_which(e->argv[0]) : NULL;

			fprintf(d->f, "%s\n      {\"name\": ", i ? "," : "");
			cli_put_json_str(d->f, e->name);
			fputs(", \"command\": ", d->f);
			if (e->argv)
				cli_put_json_str(d->f, e->argv[0]);
			else
				fputs("null", d->f);
			fputs(", \"path\": ", d->f);
			if (path)
				cli_put_json_str(d->f, path);
			else
				fputs("null", d->f);
			fprintf(d->f, ", \"source\": \"%s\", \"enabled\": %s}",
			        e->user ? "config" : "built-in",
			        e->off ? "false" : "true");
			skitx_free(path);
		}
		fputs(l->ne ? "\n    ]\n  }" : "]\n  }", d->f);
	} else {
		fprintf(d->f,
		        "%sLanguage servers%s (the lsp tool of run and chat):\n",
		        d->st.bold, d->st.reset);
		if (rc)
			fprintf(d->f, "  %s%s%s\n", d->st.red, why,
			        d->st.reset);
		for (size_t i = 0; !rc && i < l->ne; i++) {
			const struct cli_lsp_entry *e = &l->e[i];
			char *path = e->argv ? cli_lsp_which(e->argv[0]) : NULL;

			fprintf(d->f, "  %-11s ", e->name);
			if (e->off && e->runs_code && !e->user)
				fprintf(d->f,
				        "off: it runs the project's code outside "
				        "the sandbox (\"%s\": true in the user "
				        "config turns it on)",
				        e->name);
			else if (e->off)
				fputs("off (\"false\" in the config)", d->f);
			else if (path)
				text(d, path);
			else
				fprintf(d->f, "%snot installed%s (%s)",
				        d->st.dim, d->st.reset, e->argv[0]);
			fputc('\n', d->f);
			skitx_free(path);
		}
		if (!ok && project) {
			fputs("  not offered here: ", d->f);
			text(d, project);
			fputs(" is not a trusted folder (a language server may "
			      "run its code; skit trust DIR)\n",
			      d->f);
		}
	}
	cli_lsp_release(l);
	skitx_free(l);
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	skitx_free(found);
}

static const struct {
	const char *key; /* the JSON member */
	void (*fn)(struct doctor *d);
} sections[] = {
	{ "project", sec_project }, { "roots", sec_roots },
	{ "skills", sec_skills },   { "shadowed", sec_shadowed },
	{ "skipped", sec_skipped }, { "warnings", sec_warned },
	{ "nested", sec_nested },   { "diagnostics", sec_diags },
	{ "index", sec_index },     { "instructions", sec_instructions },
	{ "sandbox", sec_sandbox }, { "lsp", sec_lsp },
};

int cmd_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		CLI_ROOTS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_roots roots = { { NULL }, 0, NULL, false };
	struct doctor d;
	int c, status;

	memset(&d, 0, sizeof(d));
	d.f = stdout;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		status = cli_roots_option(&roots, c, optarg, argv[0]);
		if (status == 1)
			continue;
		if (status)
			return status;
		switch (c) {
		case 'j':
			d.json = true;
			break;
		case 'S':
			d.strict = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
		                       argv[optind]);
	d.explicit_roots = roots.nroots > 0;
	d.no_config = roots.no_config;
	d.config = roots.config;
	status = cli_open_registry_any(&d.reg, &roots, argv[0]);
	if (status != CLI_OK)
		return status;
	cli_style_init(&d.st, !d.json && cli_color(stdout));

	for (size_t i = 0; i < skit_registry_all_count(d.reg); i++) {
		const skit_entry *e = skit_registry_all_entry(d.reg, i);

		if (e->state == SKIT_ENTRY_ACTIVE) {
			d.active++;
			if (e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION)
				d.hidden++;
		} else if (e->state == SKIT_ENTRY_SHADOWED) {
			d.shadowed++;
		} else {
			d.skipped++;
		}
	}

	if (d.json)
		fputs("{\n", d.f);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(sections); i++) {
		if (d.json)
			fprintf(d.f, "  \"%s\": ", sections[i].key);
		sections[i].fn(&d);
		if (d.json)
			fputs(",\n", d.f);
	}
	if (d.strict)
		d.warnings += d.warned;
	if (d.json)
		fprintf(d.f,
		        "  \"findings\": %zu,\n  \"errors\": %zu,\n"
		        "  \"warnings\": %zu,\n  \"info\": %zu\n}\n",
		        d.findings + d.warnings, d.findings, d.warnings,
		        d.infos);
	else
		verdict(&d);

	status = d.findings || (d.strict && d.warnings) ? CLI_FAIL : CLI_OK;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error(argv[0], "cannot write the output");
		status = CLI_FAIL;
	}
	skit_registry_free(d.reg);
	return status;
}
