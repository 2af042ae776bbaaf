/* SPDX-License-Identifier: MIT */
/*
 * install_opts.c - the scope of the install commands and the printing of
 * a plan (see install_opts.h).
 */
#include "common.h"

#include <jansson.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "cli/roots.h"
#include "util/alloc.h"

int cli_scope_option(struct cli_scope *s, int c, const char *arg,
                     const char *verb)
{
	switch (c) {
	case CLI_OPT_SCOPE:
		if (strcmp(arg, "project") && strcmp(arg, "user"))
			return cli_usage_error(
			        verb,
			        "--scope is project or user, not "
			        "'%s'",
			        arg);
		s->scope = arg;
		return 1;
	case CLI_OPT_IROOT:
		s->root = arg;
		return 1;
	default:
		return 0;
	}
}

int cli_scope_root(const struct cli_scope *s, char **root, const char **label,
                   const char *verb)
{
	skit_roots_options ro = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	const char *want = s->scope, *found = NULL;

	*root = NULL;
	if (s->root && s->scope)
		return cli_usage_error(verb, "--root and --scope exclude each "
		                             "other");
	if (s->root) {
		if (label)
			*label = "root";
		*root = skitx_strdup(s->root);
		return *root ? CLI_OK : CLI_FAIL;
	}
	if (skit_registry_new(&reg, &err) < 0 ||
	    skit_registry_add_default_roots(reg, &ro, &err) < 0) {
		cli_error(verb, "%s", err.message);
		skit_registry_free(reg);
		return CLI_FAIL;
	}
	if (!want)
		want = skit_registry_project_dir(reg) ? "project" : "user";
	for (size_t i = 0; i < skit_registry_root_count(reg) && !found; i++) {
		const char *src, *path;
		bool exists;
		size_t n;

		skit_registry_root(reg, i, &src, &path, &exists, &n);
		if (skit_registry_source_matches(src, want))
			found = path;
	}
	if (found)
		*root = skitx_strdup(found);
	skit_registry_free(reg);
	if (!found) {
		if (!strcmp(want, "project"))
			cli_error(verb, "no project here (no .agents, .agent "
			                "or .git above this folder); use "
			                "--scope user or --root DIR");
		else
			cli_error(verb, "no user skills folder (set HOME or "
			                "SKIT_HOME), or use --root DIR");
		return CLI_FAIL;
	}
	if (label)
		*label = want;
	return *root ? CLI_OK : CLI_FAIL;
}

static const char *action_name(skit_install_action a)
{
	switch (a) {
	case SKIT_INSTALL_NEW:
		return "new";
	case SKIT_INSTALL_REPLACED:
		return "replaced";
	case SKIT_INSTALL_UNCHANGED:
	default:
		return "unchanged";
	}
}

static const char *change_mark(skit_file_change_kind k)
{
	return k == SKIT_FILE_ADDED ? "+" : k == SKIT_FILE_REMOVED ? "-" : "~";
}

void cli_print_plan(FILE *f, const skit_install_item *items, size_t n,
                    bool dry_run)
{
	for (size_t i = 0; i < n; i++) {
		const skit_install_item *it = &items[i];

		static const char *const verbs[3][2] = {
			{ "installed", "would install" },
			{ "replaced", "would replace" },
			{ "kept", "would keep" },
		};

		fprintf(f, "%s %s", verbs[it->action][dry_run], it->name);
		if (it->action == SKIT_INSTALL_REPLACED)
			fprintf(f, " (%zu file%s changed%s)", it->change_count,
			        it->change_count == 1 ? "" : "s",
			        it->sensitive ? "; scripts or allowed-tools "
			                        "change"
			                      : "");
		else if (it->action == SKIT_INSTALL_UNCHANGED)
			fputs(" (already up to date)", f);
		if (it->signed_by)
			fprintf(f, " signed by %s", it->signed_by);
		fputc('\n', f);
		for (size_t k = 0; k < it->change_count; k++) {
			fprintf(f, "  %s ", change_mark(it->changes[k].kind));
			cli_put_text(f, it->changes[k].path, true, 0);
			fputc('\n', f);
		}
	}
}

void cli_print_plan_json(const skit_install_result *r, bool dry_run)
{
	json_t *doc = json_object(), *arr = json_array();
	char *text;

	for (size_t i = 0; i < skit_install_result_count(r); i++) {
		const skit_install_item *it = skit_install_result_at(r, i);
		json_t *o = json_object(), *ch = json_array();

		for (size_t k = 0; k < it->change_count; k++)
			json_array_append_new(
			        ch,
			        json_pack("{s:s, s:s}", "path",
			                  it->changes[k].path, "change",
			                  it->changes[k].kind == SKIT_FILE_ADDED
			                          ? "added"
			                  : it->changes[k].kind ==
			                                  SKIT_FILE_REMOVED
			                          ? "removed"
			                          : "modified"));
		json_object_set_new(o, "name", json_string(it->name));
		json_object_set_new(o, "action",
		                    json_string(action_name(it->action)));
		json_object_set_new(o, "source", json_string(it->source));
		json_object_set_new(o, "resolved",
		                    it->resolved ? json_string(it->resolved)
		                                 : json_null());
		json_object_set_new(o, "signed_by",
		                    it->signed_by ? json_string(it->signed_by)
		                                  : json_null());
		json_object_set_new(o, "sensitive",
		                    json_boolean(it->sensitive));
		json_object_set_new(o, "changes", ch);
		{
			const char *was =
			        skit_install_result_previous_source(r, i);
			json_t *links = json_array();

			json_object_set_new(o, "previous_source",
			                    was ? json_string(was)
			                        : json_null());
			for (size_t k = 0;
			     k < skit_install_result_link_count(r, i); k++) {
				const skit_install_link *l =
				        skit_install_result_link_at(r, i, k);

				json_array_append_new(
				        links,
				        json_pack("{s:s, s:s, s:b, s:b}",
				                  "agent", l->agent, "path",
				                  l->path, "copy", l->copy,
				                  "made", l->made));
			}
			json_object_set_new(o, "links", links);
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(doc, "root",
	                    json_string(skit_install_result_root(r)));
	json_object_set_new(doc, "dry_run", json_boolean(dry_run));
	json_object_set_new(doc, "skills", arr);
	text = json_dumps(doc, JSON_INDENT(2));
	if (text) {
		puts(text);
		free(text);
	}
	json_decref(doc);
}

/*
 * The transactions a dead command left in `root`: into `arr` (JSON) or
 * as a warning on stderr. Nothing is recovered here (list takes no
 * lock): the next command that locks the root does it.
 */
static void list_unfinished(const char *root, const char *label, json_t *arr,
                            const char *verb)
{
	skit_unfinished_txn *v = NULL;
	skit_error err = { 0 };
	size_t n = 0;

	if (skit_root_unfinished(root, &v, &n, &err) < 0) {
		cli_error(verb, "warning: %s", err.message);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *outcome = v[i].committed ? "finished"
		                      : v[i].moved   ? "rolled back"
		                                     : "removed";

		if (arr) {
			json_array_append_new(
			        arr,
			        json_pack("{s:s, s:s, s:s, s:b, s:b, s:s}",
			                  "root", root, "scope", label,
			                  "staging", v[i].staging, "moved",
			                  v[i].moved, "committed",
			                  v[i].committed, "recovery", outcome));
			continue;
		}
		cli_error(
		        verb,
		        "warning: %s (%s): a transaction was left unfinished (%s); the "
		        "next command that locks this folder (install, "
		        "uninstall, update or verify) recovers it: %s",
		        root, label, v[i].staging,
		        v[i].committed ? "the change is kept"
		        : v[i].moved   ? "every move is rolled back"
		                       : "nothing had moved");
	}
	skit_free(v);
}

/* The links entry `i` of `lock` records, as JSON. */
static json_t *links_json(const skit_lock *lock, size_t i)
{
	json_t *arr = json_array();

	for (size_t k = 0; k < skit_lock_link_count(lock, i); k++) {
		const skit_install_link *l = skit_lock_link_at(lock, i, k);

		if (l)
			json_array_append_new(arr, json_pack("{s:s, s:s, s:b}",
			                                     "agent", l->agent,
			                                     "path", l->path,
			                                     "copy", l->copy));
	}
	return arr;
}

/* One root's lock entries into `arr` (JSON) or onto stdout (text). */
static int list_root(const char *root, const char *label, json_t *arr,
                     json_t *pending, size_t *listed, const char *verb)
{
	skit_lock *lock = NULL;
	skit_error err = { 0 };

	list_unfinished(root, label, pending, verb);
	if (skit_lock_read(&lock, root, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	*listed += skit_lock_count(lock);
	for (size_t i = 0; i < skit_lock_count(lock); i++) {
		const skit_lock_entry *e = skit_lock_at(lock, i);

		if (arr) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}",
			                      "name", e->name, "scope", label,
			                      "root", root, "source", e->source,
			                      "files", (json_int_t)e->files,
			                      "bytes", (json_int_t)e->bytes);

			json_object_set_new(o, "resolved",
			                    e->resolved
			                            ? json_string(e->resolved)
			                            : json_null());
			json_object_set_new(o, "version",
			                    e->version ? json_string(e->version)
			                               : json_null());
			json_object_set_new(
			        o, "installed_at",
			        e->installed_at ? json_string(e->installed_at)
			                        : json_null());
			json_object_set_new(o, "signed_by",
			                    e->signed_by
			                            ? json_string(e->signed_by)
			                            : json_null());
			json_object_set_new(o, "links", links_json(lock, i));
			json_array_append_new(arr, o);
			continue;
		}
		cli_put_text(stdout, e->name, true, 40);
		printf("  %s  ", e->version ? e->version : "-");
		cli_put_text(stdout, e->source, true, 0);
		printf("  %s  %s%s", e->installed_at ? e->installed_at : "-",
		       label, e->signed_by ? "  signed" : "");
		/* the agents it is linked (or copied) for: install --agent */
		for (size_t k = 0; k < skit_lock_link_count(lock, i); k++) {
			const skit_install_link *l =
			        skit_lock_link_at(lock, i, k);

			if (l)
				printf("%s%s%s", k ? "," : "  for ", l->agent,
				       l->copy ? " (copy)" : "");
		}
		putchar('\n');
	}
	skit_lock_free(lock);
	return CLI_OK;
}

int cli_list_installed(const char *const *roots, int nroots, const char *scope,
                       bool json, const char *verb)
{
	json_t *arr = json ? json_array() : NULL;
	json_t *pending = json ? json_array() : NULL;
	size_t listed = 0;
	int status = CLI_OK;

	if (nroots) {
		for (int i = 0; i < nroots && status == CLI_OK; i++)
			status = list_root(roots[i], "root", arr, pending,
			                   &listed, verb);
	} else {
		static const char *const scopes[] = { "project", "user" };

		for (size_t i = 0; i < 2 && status == CLI_OK; i++) {
			struct cli_scope s = { scopes[i], NULL };
			skit_roots_options ro = SKIT_ROOTS_OPTIONS_INIT;
			skit_registry *reg = NULL;
			const char *path = NULL;

			if (scope && strcmp(scope, scopes[i]))
				continue;
			/* A scope that does not exist here is just empty. */
			if (skit_registry_new(&reg, NULL) < 0 ||
			    skit_registry_add_default_roots(reg, &ro, NULL) <
			            0) {
				skit_registry_free(reg);
				continue;
			}
			for (size_t k = 0;
			     k < skit_registry_root_count(reg) && !path; k++) {
				const char *src, *p;
				bool exists;
				size_t n;

				skit_registry_root(reg, k, &src, &p, &exists,
				                   &n);
				/* the scope's first root: project:agents */
				if (skit_registry_source_matches(src, s.scope))
					path = p;
			}
			if (path)
				status = list_root(path, scopes[i], arr,
				                   pending, &listed, verb);
			skit_registry_free(reg);
		}
	}
	/* Nothing installed: say so where a person reads it. */
	if (!arr && status == CLI_OK && !listed)
		fprintf(stderr,
		        "skit %s: nothing installed by skit here yet (skit "
		        "install SOURCE adds a skill; skit list shows every "
		        "skill found)\n",
		        verb);
	if (arr) {
		json_t *doc = json_pack("{s:o, s:o}", "skills", arr,
		                        "unfinished", pending);
		char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;

		if (status == CLI_OK && text)
			puts(text);
		free(text);
		json_decref(doc);
	}
	return status;
}
