/* SPDX-License-Identifier: MIT */
/*
 * cmd_scan.c - `skit scan PATH|NAME...`: static analysis of skills before
 * they run (docs/scan.md). Findings print as text, JSON or SARIF 2.1.0;
 * the exit status is 1 when one reaches --fail-on.
 */
#include "common.h"

#include <jansson.h>
#include <sys/stat.h>
#include <dirent.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

enum { OPT_JSON = 0x2000, OPT_FORMAT, OPT_FAIL_ON, OPT_RULES };
enum format { FMT_TEXT, FMT_JSON, FMT_SARIF };

static void help(void)
{
	printf("usage: skit scan [options] PATH|NAME...\n\n"
	       "Scan skills for malicious or risky content before they run: "
	       "every file of\neach skill (SKILL.md, scripts, references, "
	       "assets) is read and matched\nagainst skit's scan rules; "
	       "nothing is executed. Code and Markdown\nare also read "
	       "normalised (string pieces folded, escapes, character codes\n"
	       "and base64 decoded, aliases resolved); a finding there shows "
	       "the line as\nwritten and what it decoded to. PATH is a skill "
	       "folder, a file, or a folder\nof skill folders; NAME is a "
	       "skill found in the roots.\n\n"
	       "Options:\n"
	       "  --json              print the findings as JSON\n"
	       "  --format F          text (default), json or sarif "
	       "(SARIF 2.1.0)\n"
	       "  --fail-on SEV       exit 1 when a finding reaches SEV: "
	       "info, low, medium,\n"
	       "                      high (default), critical, or none\n"
	       "  --rules FILE        use this rules file instead of the "
	       "shipped one\n" CLI_ROOTS_HELP
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 nothing reaches --fail-on, 1 a finding does "
	       "(or the rules\ncannot be loaded), 2 usage or a PATH/NAME "
	       "that does not exist.\n");
}

static bool has_skill_md(const char *dir)
{
	char *p = skitx_path_join(dir, "SKILL.md");
	bool yes = p && skitx_fs_exists(p);

	skitx_free(p);
	return yes;
}

/*
 * A folder without SKILL.md whose subfolders hold skills (a root, or a
 * repository's skills folder): scan each. Returns how many it scanned,
 * or a negative status.
 */
static int scan_children(skit_scanner *sc, skit_scan_report *rep,
                         const char *dir, skit_error *err)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), count = 0, rc = 0;

	for (int i = 0; i < n; i++) {
		char *child = NULL;

		if (!rc && names[i]->d_name[0] != '.') {
			child = skitx_path_join(dir, names[i]->d_name);
			if (!child)
				rc = SKIT_ENOMEM;
			else if (skitx_fs_is_dir(child) &&
			         has_skill_md(child)) {
				rc = skit_scan_path(sc, rep, child, err);
				count++;
			}
		}
		skitx_free(child);
		free(names[i]); /* scandir allocates with malloc */
	}
	free(names);
	return rc ? rc : count;
}

static const char *sarif_level(skit_scan_severity s)
{
	return s >= SKIT_SCAN_HIGH     ? "error"
	       : s == SKIT_SCAN_MEDIUM ? "warning"
	                               : "note";
}

/* GitHub code scanning reads this score (0-10) to rank results. */
static const char *security_severity(skit_scan_severity s)
{
	static const char *const score[] = { "0.0", "2.0", "5.0", "8.0",
		                             "9.5" };
	return score[s];
}

static char *location(const skit_scan_finding *f)
{
	return skitx_path_join(f->skill, f->file);
}

static json_t *finding_json(const skit_scan_finding *f)
{
	char *loc = location(f);
	json_t *o = json_pack(
	        "{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s?}", "rule",
	        f->rule, "family", f->family, "severity",
	        skit_scan_severity_name(f->severity), "skill", f->skill, "file",
	        f->file, "line", (int)f->line, "where", f->where, "text",
	        f->text, "explain", f->explain, "path", loc);

	/* what the text became once normalised or decoded */
	if (o && f->decoded)
		json_object_set_new(o, "decoded", json_string(f->decoded));

	skitx_free(loc);
	return o;
}

static json_t *report_json(const skit_scan_report *rep, const char *version)
{
	json_t *list = json_array(), *o;
	size_t counts[SKIT_SCAN_CRITICAL + 1] = { 0 };

	for (size_t i = 0; list && i < skit_scan_report_count(rep); i++) {
		const skit_scan_finding *f = skit_scan_report_get(rep, i);

		counts[f->severity]++;
		json_array_append_new(list, finding_json(f));
	}
	o = json_pack("{s:s, s:I, s:I, s:o, s:{s:I, s:I, s:I, s:I, s:I}}",
	              "rules_version", version, "files",
	              (json_int_t)skit_scan_report_files(rep), "bytes",
	              (json_int_t)skit_scan_report_bytes(rep), "findings", list,
	              "counts", "critical",
	              (json_int_t)counts[SKIT_SCAN_CRITICAL], "high",
	              (json_int_t)counts[SKIT_SCAN_HIGH], "medium",
	              (json_int_t)counts[SKIT_SCAN_MEDIUM], "low",
	              (json_int_t)counts[SKIT_SCAN_LOW], "info",
	              (json_int_t)counts[SKIT_SCAN_INFO]);
	return o;
}

static json_t *report_sarif(const skit_scan_report *rep, const char *version)
{
	json_t *rules = json_array(), *results = json_array(), *seen, *sarif;
	size_t n = skit_scan_report_count(rep);

	seen = json_object();
	for (size_t i = 0; i < n; i++) {
		const skit_scan_finding *f = skit_scan_report_get(rep, i);
		char *loc = location(f);
		json_t *phys, *res;

		if (!json_object_get(seen, f->rule)) {
			json_object_set_new(seen, f->rule, json_true());
			json_array_append_new(
			        rules,
			        json_pack("{s:s, s:{s:s}, s:{s:s}, s:{s:[s], "
			                  "s:s}}",
			                  "id", f->rule, "shortDescription",
			                  "text", f->explain, "fullDescription",
			                  "text", f->explain, "properties",
			                  "tags", f->family,
			                  "security-severity",
			                  security_severity(f->severity)));
		}
		phys = json_pack("{s:{s:s}}", "artifactLocation", "uri",
		                 loc ? loc : f->file);
		if (phys && f->line)
			json_object_set_new(
			        phys, "region",
			        json_pack("{s:i}", "startLine", (int)f->line));
		res = json_pack("{s:s, s:s, s:{s:s}, s:[{s:o}], s:{s:s, s:s, "
		                "s:s}}",
		                "ruleId", f->rule, "level",
		                sarif_level(f->severity), "message", "text",
		                f->explain, "locations", "physicalLocation",
		                phys, "properties", "severity",
		                skit_scan_severity_name(f->severity), "where",
		                f->where, "matched", f->text);
		/* the decoded evidence: what the matched text became once
		 * folded or decoded, for a reader of the dashboard */
		if (res && f->decoded) {
			json_t *props = json_object_get(res, "properties");
			json_t *msg = json_object_get(res, "message");
			struct skitx_buf both;

			skitx_buf_init(&both, 4096);

			json_object_set_new(props, "decoded",
			                    json_string(f->decoded));
			if (!skitx_buf_printf(&both, "%s (decoded: %s)",
			                      f->explain, f->decoded))
				json_object_set_new(
				        msg, "text",
				        json_string(skitx_buf_cstr(&both)));
			skitx_buf_release(&both);
		}
		json_array_append_new(results, res);
		skitx_free(loc);
	}
	json_decref(seen);
	sarif = json_pack(
	        "{s:s, s:s, s:[{s:{s:{s:s, s:s, s:s, s:o, s:{s:s}}}, s:o}]}",
	        "$schema", "https://json.schemastore.org/sarif-2.1.0.json",
	        "version", "2.1.0", "runs", "tool", "driver", "name", "skit",
	        "version", SKIT_VERSION, "informationUri",
	        "https://github.com/skit/skit/blob/main/docs/scan.md", "rules",
	        rules, "properties", "rulesVersion", version, "results",
	        results);
	return sarif;
}

static void print_text(const skit_scan_report *rep, const char *version,
                       size_t skills)
{
	struct cli_style st;
	size_t counts[SKIT_SCAN_CRITICAL + 1] = { 0 };
	size_t n = skit_scan_report_count(rep);
	bool first = true;

	cli_style_init(&st, cli_color(stdout));
	for (size_t i = 0; i < n; i++) {
		const skit_scan_finding *f = skit_scan_report_get(rep, i);
		const char *col = f->severity >= SKIT_SCAN_HIGH     ? st.red
		                  : f->severity == SKIT_SCAN_MEDIUM ? st.yellow
		                                                    : st.dim;
		char *loc = location(f);

		counts[f->severity]++;
		cli_put_text(stdout, loc ? loc : f->file, true, 0);
		if (f->line)
			printf(":%u", f->line);
		printf(": %s%s%s: %s%s%s (%s): %s\n", col,
		       skit_scan_severity_name(f->severity), st.reset, st.bold,
		       f->rule, st.reset, f->where, f->explain);
		fputs("    ", stdout);
		cli_put_text(stdout, f->text, true, 0);
		fputc('\n', stdout);
		if (f->decoded) {
			fputs("    decoded: ", stdout);
			cli_put_text(stdout, f->decoded, true, 0);
			fputc('\n', stdout);
		}
		skitx_free(loc);
	}
	printf("%s%zu skill%s, %zu file%s scanned (rules %s): ", n ? "\n" : "",
	       skills, skills == 1 ? "" : "s", skit_scan_report_files(rep),
	       skit_scan_report_files(rep) == 1 ? "" : "s", version);
	for (int s = SKIT_SCAN_CRITICAL; s >= SKIT_SCAN_INFO; s--) {
		if (!counts[s])
			continue;
		printf("%s%zu %s", first ? "" : ", ", counts[s],
		       skit_scan_severity_name((skit_scan_severity)s));
		first = false;
	}
	puts(first ? "no findings" : "");
}

int cmd_scan(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_ROOTS_LONGOPTS,
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_roots roots = { 0 };
	skit_registry *reg = NULL;
	skit_scanner *sc = NULL;
	skit_scan_report *rep = NULL;
	skit_error err = { 0 };
	skit_scan_severity fail_on = SKIT_SCAN_HIGH;
	bool fail_never = false;
	enum format fmt = FMT_TEXT;
	const char *rules = NULL;
	size_t skills = 0;
	int c, rc, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		rc = cli_roots_option(&roots, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		switch (c) {
		case OPT_JSON:
			fmt = FMT_JSON;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else if (!strcmp(optarg, "sarif"))
				fmt = FMT_SARIF;
			else
				return cli_usage_error(
				        argv[0],
				        "--format must be text, json or sarif");
			break;
		case OPT_FAIL_ON:
			fail_never = !strcmp(optarg, "none");
			if (!fail_never &&
			    skit_scan_severity_parse(&fail_on, optarg))
				return cli_usage_error(
				        argv[0],
				        "--fail-on must be info, low, medium, "
				        "high, critical or none");
			break;
		case OPT_RULES:
			rules = optarg;
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
		return cli_usage_error(argv[0], "give a skill PATH or NAME");

	rc = skit_scanner_new(&sc, rules, &err);
	if (rc) {
		cli_error(argv[0], "%s", err.message);
		return rc == SKIT_ENOTFOUND && rules ? CLI_USAGE : CLI_FAIL;
	}
	if (skit_scan_report_new(&rep, &err)) {
		cli_error(argv[0], "%s", err.message);
		skit_scanner_free(sc);
		return CLI_FAIL;
	}
	for (int i = optind; i < argc && status == CLI_OK; i++) {
		const char *arg = argv[i], *dir = NULL;
		struct stat st;

		if (stat(arg, &st) == 0) {
			dir = arg;
		} else if (!strchr(arg, '/')) {
			const skit_entry *e;

			if (!reg) {
				status = cli_open_registry(&reg, &roots,
				                           argv[0]);
				if (status)
					break;
			}
			e = skit_registry_find(reg, arg, NULL);
			dir = e ? e->dir : NULL;
		}
		if (!dir) {
			cli_error(argv[0], "%s: no such file, folder or skill",
			          arg);
			status = CLI_USAGE;
			break;
		}
		if (S_ISDIR(st.st_mode) && dir == arg && !has_skill_md(dir)) {
			rc = scan_children(sc, rep, dir, &err);
			if (rc > 0) {
				skills += (size_t)rc;
				continue;
			}
			if (rc < 0) {
				cli_error(argv[0], "%s", err.message);
				status = CLI_FAIL;
				break;
			}
		}
		rc = skit_scan_path(sc, rep, dir, &err);
		if (rc) {
			cli_error(argv[0], "%s", err.message);
			status = rc == SKIT_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
			break;
		}
		skills++;
	}
	if (status == CLI_OK) {
		const char *version = skit_scanner_rules_version(sc);
		json_t *out = NULL;

		if (fmt == FMT_TEXT)
			print_text(rep, version, skills);
		else
			out = fmt == FMT_JSON ? report_json(rep, version)
			                      : report_sarif(rep, version);
		if (fmt != FMT_TEXT) {
			if (!out || json_dumpf(out, stdout, JSON_INDENT(2))) {
				cli_error(argv[0], "out of memory");
				status = CLI_FAIL;
			}
			fputc('\n', stdout);
			json_decref(out);
		}
		if (status == CLI_OK && !fail_never &&
		    skit_scan_report_reaches(rep, fail_on))
			status = CLI_FAIL;
	}
	skit_scan_report_free(rep);
	skit_scanner_free(sc);
	skit_registry_free(reg);
	return status;
}

/* ---- the scan step of install and update -------------------------------- */

int cli_install_scanner(skit_scanner **out, const char *verb)
{
	skit_error err = { 0 };

	if (skit_scanner_new(out, NULL, &err)) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	return CLI_OK;
}

void cli_install_on_scan(void *userdata, const char *skill,
                         const skit_scan_report *rep)
{
	size_t n = skit_scan_report_count(rep);

	(void)userdata;
	for (size_t i = 0; i < n; i++) {
		const skit_scan_finding *f = skit_scan_report_get(rep, i);

		/* low and info findings stay for `skit scan` */
		if (f->severity < SKIT_SCAN_MEDIUM)
			continue;
		fputs("scan: ", stderr);
		cli_put_text(stderr, skill, true, 0);
		fputc('/', stderr);
		cli_put_text(stderr, f->file, true, 0);
		if (f->line)
			fprintf(stderr, ":%u", f->line);
		fprintf(stderr, ": %s: %s (%s): %s\n    ",
		        skit_scan_severity_name(f->severity), f->rule, f->where,
		        f->explain);
		cli_put_text(stderr, f->text, true, 0);
		fputc('\n', stderr);
		if (f->decoded) {
			fputs("    decoded: ", stderr);
			cli_put_text(stderr, f->decoded, true, 0);
			fputc('\n', stderr);
		}
	}
}
