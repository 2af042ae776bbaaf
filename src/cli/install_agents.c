/* SPDX-License-Identifier: MIT */
/*
 * install_agents.c - `skit install --agent NAME`: the agents skit links
 * installed skills for, and where each one reads its skills; what an
 * install prints after its plan (the links, a change of source, skills
 * that loaded with warnings, an untrusted project).
 *
 * The folders follow each agent's own documentation; docs/install.md
 * ("Installing for other agents") has the table and its sources. An
 * agent that reads skit's own folder (`.agents/skills`) needs no link.
 */
#include "common.h"

#include <jansson.h>
#include <sys/stat.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "cli/roots.h"
#include "util/alloc.h"
#include "util/path.h"

/* One agent: where it reads skills in a project, and in the user's
 * home (`env`, when set to an absolute path, replaces `home_base`). */
struct agent {
	const char *name, *alias;
	const char *project;   /* relative to the project */
	const char *env;       /* a folder the agent lets users move */
	const char *env_sub;   /* the skills folder under it */
	const char *home_base; /* relative to HOME, when `env` is unset */
};

static const struct agent agents[] = {
	{ "claude-code", "claude", ".claude/skills", "CLAUDE_CONFIG_DIR",
	  "skills", ".claude/skills" },
	{ "codex", NULL, ".agents/skills", "CODEX_HOME", "skills",
	  ".codex/skills" },
	{ "cursor", NULL, ".agents/skills", NULL, NULL, ".cursor/skills" },
	{ "gemini-cli", "gemini", ".agents/skills", NULL, NULL,
	  ".gemini/skills" },
	{ "opencode", NULL, ".agents/skills", "XDG_CONFIG_HOME",
	  "opencode/skills", ".config/opencode/skills" },
};

static const struct agent *find_agent(const char *name)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(agents); i++)
		if (!strcmp(agents[i].name, name) ||
		    (agents[i].alias && !strcmp(agents[i].alias, name)))
			return &agents[i];
	return NULL;
}

static int add_name(struct cli_agents *a, const char *name, size_t len,
                    const char *verb)
{
	const char *names[SKIT_ARRAY_SIZE(agents) * 2];
	const struct agent *ag;
	char word[48];
	size_t n = 0;

	if (!len)
		return CLI_OK;
	if (len >= sizeof(word))
		return cli_usage_error(verb, "unknown agent '%.*s'", (int)len,
		                       name);
	memcpy(word, name, len);
	word[len] = '\0';
	ag = find_agent(word);
	if (!ag) {
		const char *near;

		for (size_t i = 0; i < SKIT_ARRAY_SIZE(agents); i++) {
			names[n++] = agents[i].name;
			if (agents[i].alias)
				names[n++] = agents[i].alias;
		}
		near = cli_suggest(word, names, n);
		if (near)
			return cli_usage_error(
			        verb, "unknown agent '%s'; did you mean '%s'?",
			        word, find_agent(near)->name);
		return cli_usage_error(
		        verb,
		        "unknown agent '%s' (known: "
		        "claude-code, codex, cursor, gemini-cli, "
		        "opencode)",
		        word);
	}
	for (size_t i = 0; i < a->n; i++)
		if (a->names[i] == ag->name)
			return CLI_OK;
	if (a->n == SKIT_ARRAY_SIZE(a->names))
		return cli_usage_error(verb, "too many agents");
	a->names[a->n++] = ag->name;
	return CLI_OK;
}

int cli_install_agent_option(struct cli_agents *a, const char *arg,
                             const char *verb)
{
	for (const char *p = arg;;) {
		size_t len = strcspn(p, ", ");
		int rc = add_name(a, p, len, verb);

		if (rc != CLI_OK)
			return rc;
		if (!p[len])
			return CLI_OK;
		p += len + 1;
	}
}

/* The user config file (owned), or NULL. */
static char *user_config(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return skitx_path_join(xdg, "skit/config.json");
	if (home && *home == '/')
		return skitx_path_join(home, ".config/skit/config.json");
	return NULL;
}

/*
 * The user config's default: {"install": {"agents": ["claude-code"],
 * "copy": false}}. Only the user's own config is read: a project's
 * config must not make an install write into the user's home.
 */
static int config_default(struct cli_agents *a, const char *verb)
{
	char *path = user_config();
	json_error_t jerr;
	json_t *doc, *inst, *list, *v;
	size_t i;
	int rc = CLI_OK;

	if (!path)
		return CLI_OK;
	doc = json_load_file(path, 0, &jerr);
	inst = json_object_get(doc, "install");
	list = json_object_get(inst, "agents");
	if (inst && !json_is_object(inst))
		list = NULL;
	if (list && !json_is_array(list)) {
		cli_error(verb,
		          "%s: \"install\".\"agents\" is a list of agent "
		          "names",
		          path);
		rc = CLI_USAGE;
	}
	json_array_foreach(list, i, v)
	{
		if (rc != CLI_OK)
			break;
		if (!json_is_string(v)) {
			cli_error(verb,
			          "%s: \"install\".\"agents\" is a list "
			          "of agent names",
			          path);
			rc = CLI_USAGE;
			break;
		}
		rc = cli_install_agent_option(a, json_string_value(v), verb);
	}
	if (rc == CLI_OK && json_is_true(json_object_get(inst, "copy")))
		a->copy = true;
	json_decref(doc);
	skitx_free(path);
	return rc;
}

/* The folder `ag` reads skills from in `scope`, or NULL (owned). */
static char *agent_dir(const struct agent *ag, bool project,
                       const char *project_dir)
{
	const char *home = getenv("HOME"), *env;

	if (project)
		return project_dir ? skitx_path_join(project_dir, ag->project)
		                   : NULL;
	env = ag->env ? getenv(ag->env) : NULL;
	if (env && *env == '/')
		return skitx_path_join(env, ag->env_sub);
	return home && *home == '/' ? skitx_path_join(home, ag->home_base)
	                            : NULL;
}

/* Whether `a` and `b` are one folder (a link between them, as users
 * make ~/.claude/skills -> ~/.agents/skills). */
static bool same_folder(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	bool same = ra && rb && !strcmp(ra, rb);

	free(ra);
	free(rb);
	return same;
}

int cli_install_agent_targets(struct cli_agents *a, const char *label,
                              const char *root, const char *verb)
{
	skit_roots_options ro = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	const char *project_dir = NULL;
	bool project;
	int rc = CLI_OK;

	if (!a->none && !a->given && (rc = config_default(a, verb)) != CLI_OK)
		return rc;
	if (a->none)
		a->n = 0;
	if (!a->n)
		return CLI_OK;
	if (skit_registry_new(&reg, NULL) == 0 &&
	    skit_registry_add_default_roots(reg, &ro, NULL) == 0)
		project_dir = skit_registry_project_dir(reg);
	/* --root: the agents' folders of the project here, else the
	 * user's */
	project = !strcmp(label, "project") ||
	          (!strcmp(label, "root") && project_dir);
	for (size_t i = 0; i < a->n && rc == CLI_OK; i++) {
		const struct agent *ag = find_agent(a->names[i]);
		char *dir = agent_dir(ag, project, project_dir);

		if (!dir) {
			cli_error(verb, "no folder for %s here (set HOME)",
			          ag->name);
			rc = CLI_FAIL;
			break;
		}
		if (!strcmp(dir, root) || same_folder(dir, root)) {
			/* it reads skit's own folder: nothing to link */
			a->reads_root[a->nreads++] = ag->name;
			skitx_free(dir);
			continue;
		}
		a->dirs[a->ntargets] = dir;
		a->targets[a->ntargets].agent = ag->name;
		a->targets[a->ntargets++].dir = dir;
	}
	skit_registry_free(reg);
	return rc;
}

void cli_agents_release(struct cli_agents *a)
{
	for (size_t i = 0; i < a->ntargets; i++)
		skitx_free(a->dirs[i]);
	a->ntargets = 0;
}

/* ---- what an install prints ---- */

void cli_print_result(FILE *f, const skit_install_result *r, bool dry_run)
{
	for (size_t i = 0; i < skit_install_result_count(r); i++) {
		const skit_install_item *it = skit_install_result_at(r, i);
		const char *was = skit_install_result_previous_source(r, i);

		if (was && it->action == SKIT_INSTALL_UNCHANGED) {
			/* the files are the same, what update follows is not */
			fprintf(f, "%s the source of ",
			        dry_run ? "would change" : "changed");
			cli_put_text(f, it->name, true, 0);
			fputs(" (same files): ", f);
			cli_put_text(f, was, true, 0);
			fputs(" -> ", f);
			cli_put_text(f, it->source, true, 0);
			fputc('\n', f);
		} else {
			cli_print_plan(f, it, 1, dry_run);
			if (was) {
				fputs("  source: ", f);
				cli_put_text(f, was, true, 0);
				fputs(" -> ", f);
				cli_put_text(f, it->source, true, 0);
				fputc('\n', f);
			}
		}
		for (size_t k = 0; k < skit_install_result_link_count(r, i);
		     k++) {
			const skit_install_link *l =
			        skit_install_result_link_at(r, i, k);

			if (!l->made) {
				fputs("  ", f);
				cli_put_text(f, l->path, true, 0);
				fprintf(f, " (%s): already %s\n", l->agent,
				        l->copy ? "copied" : "linked");
				continue;
			}
			fprintf(f, "  %s ",
			        dry_run   ? (l->copy ? "would copy to"
			                             : "would link")
			        : l->copy ? "copied to"
			                  : "linked");
			cli_put_text(f, l->path, true, 0);
			fprintf(f, " (%s)\n", l->agent);
		}
	}
}

void cli_print_reads_root(FILE *f, const struct cli_agents *a, const char *root)
{
	for (size_t i = 0; i < a->nreads; i++)
		fprintf(f, "%s reads %s itself: nothing to link\n",
		        a->reads_root[i], root);
}

/*
 * What matters next: a skill that loaded with warnings (the agent loads
 * it, but `skit validate` would not pass it), and a project the user has
 * not trusted, whose skills the agent leaves out until `skit trust`.
 */
void cli_install_notes(const skit_install_result *r, const char *label,
                       const char *verb)
{
	const char *root = skit_install_result_root(r);
	size_t warned = 0;

	for (size_t i = 0; i < skit_install_result_count(r); i++) {
		const skit_install_item *it = skit_install_result_at(r, i);
		skit_skill_options so = SKIT_SKILL_OPTIONS_INIT;
		skit_skill *sk = NULL;
		const skit_diag *d;
		size_t nd = 0, nw = 0;
		char *path;

		if (it->action == SKIT_INSTALL_UNCHANGED)
			continue;
		path = skitx_path_join(root, it->name);
		so.flags = SKIT_SKILL_LENIENT;
		if (path && skit_skill_load(&sk, path, &so, NULL) == 0) {
			d = skit_skill_diags(sk, &nd);
			for (size_t k = 0; k < nd; k++)
				nw += d[k].severity == SKIT_SEVERITY_WARNING;
			if (nw) {
				const skit_diag *first = NULL;

				for (size_t k = 0; k < nd && !first; k++)
					if (d[k].severity ==
					    SKIT_SEVERITY_WARNING)
						first = &d[k];
				fprintf(stderr,
				        "%s %s: warning: %s loaded with %zu "
				        "warning%s (%s: %s); 'skit validate "
				        "%s' shows %s\n",
				        "skit", verb, it->name, nw,
				        nw == 1 ? "" : "s", first->code,
				        first->message, path,
				        nw == 1 ? "it" : "them");
				warned++;
			}
		}
		skit_skill_free(sk);
		skitx_free(path);
	}
	(void)warned;
	if (!strcmp(label, "project")) {
		skit_roots_options ro = SKIT_ROOTS_OPTIONS_INIT;
		skit_registry *reg = NULL;
		const char *project = NULL;
		bool trusted = true;

		if (skit_registry_new(&reg, NULL) == 0 &&
		    skit_registry_add_default_roots(reg, &ro, NULL) == 0)
			project = skit_registry_project_dir(reg);
		if (project && skit_trust_check(&trusted, project, NULL) == 0 &&
		    !trusted)
			fprintf(stderr,
			        "skit %s: note: you have not trusted %s: 'skit "
			        "run' and 'skit chat' leave its skills out "
			        "until you run 'skit trust %s'\n",
			        verb, project, project);
		skit_registry_free(reg);
	}
}
