/* SPDX-License-Identifier: MIT */
/*
 * cmd_eval.c - `skit eval PATH...`: run eval cases through the agent and
 * report trigger, step and output checks with their costs.
 */
#include "common.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/agent_opts.h"
#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/buf.h"
#include "util/fs.h"

#define PROGRESS_NAME 48 /* columns of an entry's name on the progress line */

static volatile int canceled;

static void on_signal(int sig)
{
	(void)sig;
	canceled = 1;
}

static void help(void)
{
	printf("usage: skit eval [options] PATH...\n"
	       "       skit eval merge [options] REPORT.json...\n\n"
	       "Run eval cases: each PATH is a case file (YAML or JSON) or a "
	       "folder of them.\nEvery case goes through the agent loop "
	       "(offline with its cassette unless\n--model is given), in its "
	       "own work folder with its own audit trail, and is\nchecked: "
	       "which skills triggered, the steps taken, the output.\n\n"
	       "A file with 'queries' is a trigger set for tuning one skill's "
	       "description:\neach query, marked should_trigger true or "
	       "false, runs 'trials' times, and\nthe report gives its trigger "
	       "rate and the skill's, with a held-out split.\n"
	       "docs/evals.md describes both formats.\n\n"
	       "Options:\n"
	       "  --model SPEC        run every case with this model "
	       "(e.g. openai:gpt-4.1-mini)\n"
	       "  -j, --jobs N        run N trials at once (default 1)\n"
	       "  --report FORMAT     text (default), json or junit\n"
	       "  --json              the same as --report json\n"
	       "  -o, --out FILE      write the report to FILE instead of "
	       "stdout\n"
	       "  --runs-dir DIR      put the run folders in DIR (default: "
	       "a new eval-* folder\n"
	       "                      in <project>/.agents/runs, named in "
	       "the report)\n"
	       "  --holdout R         hold out R (0 to under 1) of every "
	       "trigger set's queries,\n"
	       "                      instead of each set's own 'holdout'\n"
	       "  --min-pass-rate R   exit 1 when fewer than R (0..1) of the "
	       "cases and queries\n"
	       "                      pass (default 1: all of them)\n"
	       "  --shard I/N         run shard I (1 to N) of N: a stable hash "
	       "share of the\n"
	       "                      cases and queries; merge the JSON "
	       "reports with\n"
	       "                      'skit eval merge'\n"
	       "  --rpm N, --tpm N    at most N requests (tokens) a minute to "
	       "the model's\n"
	       "                      provider, shared by every job; a 429 "
	       "with retry-after\n"
	       "                      pauses them all\n"
	       "  -h, --help          show this help\n\n"
	       "'skit eval merge' combines the JSON reports of every shard of "
	       "one suite into\nthe report of an unsharded run; it takes "
	       "--report, --json, -o and\n--min-pass-rate.\n\n"
	       "Case files must be in a folder you trust (skit trust DIR); "
	       "on a terminal,\nskit eval asks. No trial's program gets the "
	       "network.\n\n"
	       "Exit status: 0 the pass rate is met, 1 it is not (or a run "
	       "failed), 2 usage,\na case file that does not load or is not "
	       "in a trusted folder, or reports that\ndo not merge.\n");
}

static void progress(size_t done, size_t total, const char *name, bool passed,
                     void *payload)
{
	(void)payload;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s ", done, total,
	        passed ? "pass" : "FAIL");
	/* Names come from case files: no control bytes to the terminal, and
	 * short enough not to wrap (which would defeat the \r). */
	cli_put_text(stderr, name, true, PROGRESS_NAME);
	if (done == total)
		fputs("\r\033[K", stderr);
}

static int parse_rate(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0 && v <= 1.0))
		return -1;
	*out = v;
	return 0;
}

/*
 * The default home of an eval's run folders: a new
 * `eval-<UTC time>-XXXXXX` folder in the audit trail (the folder
 * `skit runs` reads: <project>/.agents/runs, or $SKIT_RUNS_DIR), not
 * $TMPDIR, so nothing is left in /tmp and the runs sit with the others.
 */
static int eval_runs_dir(char **out)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *base = NULL, stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	*out = NULL;
	if (cli_default_runs_dir(&base) || skitx_fs_mkdir_p(base, 0700) < 0) {
		skitx_free(base);
		return -1;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (skitx_buf_printf(&b, "%s/eval-%s-XXXXXX", base, stamp) ||
	    !mkdtemp(b.ptr)) {
		skitx_buf_release(&b);
		skitx_free(base);
		return -1;
	}
	skitx_free(base);
	*out = skitx_buf_detach(&b, NULL);
	return *out ? 0 : -1;
}

/* "skit eval: DIR is not a trusted folder: ...; to trust it, run: ..." */
static void refuse_untrusted(const char *dir, const struct cli_style *st)
{
	fputs("skit eval: ", stderr);
	cli_put_exact(stderr, dir, st);
	fputs(" is not a trusted folder: its cases were not run; to trust "
	      "it, run: skit trust ",
	      stderr);
	cli_put_exact(stderr, dir, st);
	fputc('\n', stderr);
}

/* On a terminal: whether the user trusts `dir` now (recorded). */
static bool ask_trust(const char *dir, const struct cli_style *st)
{
	skit_error err = { 0 };
	char line[64];

	fprintf(stderr, "%sskit eval: ", st->bold);
	cli_put_exact(stderr, dir, st);
	fprintf(stderr,
	        " is not a trusted folder%s\n"
	        "  Its eval cases name the skills whose scripts run and the "
	        "cassettes that\n"
	        "  drive the calls: someone else's code until you trust "
	        "it.\n",
	        st->reset);
	for (;;) {
		fputs("Trust this folder? [y]es, [n]o: ", stderr);
		fflush(stderr);
		if (!fgets(line, sizeof(line), stdin)) {
			fputc('\n', stderr);
			return false;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "n") || !strcmp(line, "no") || !line[0])
			return false;
		if (strcmp(line, "y") && strcmp(line, "yes"))
			continue;
		if (skit_trust_add(dir, &err) < 0) {
			cli_error("eval", "%s", err.message);
			return false;
		}
		fputs("skit eval: trusted ", stderr);
		cli_put_exact(stderr, dir, st);
		fputs(" (skit trust --remove DIR undoes it)\n", stderr);
		return true;
	}
}

/*
 * Folder trust (docs/evals.md): a case file names the skills whose
 * scripts run and the cassette that drives the calls, so every one must
 * be in a folder the user trusts, as a project must be for `skit run`
 * to load its skills. On a terminal, ask about each untrusted folder
 * (yes records the trust); else, or on no, refuse in one line that says
 * how to trust it. CLI_OK when the whole suite may run.
 */
static int check_trust(const skit_eval_suite *suite)
{
	struct cli_style st;
	skit_error err = { 0 };
	char *dir = NULL, *asked = NULL;
	bool tty = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);

	cli_style_init(&st, cli_color(stderr));
	for (;;) {
		if (skit_eval_suite_untrusted(&dir, suite, &err) < 0) {
			cli_error("eval", "%s", err.message);
			skit_free(asked);
			return CLI_FAIL;
		}
		if (!dir) {
			skit_free(asked);
			return CLI_OK;
		}
		/* Trusted just now and still not: do not ask again. */
		if (!tty || (asked && !strcmp(asked, dir)) ||
		    !ask_trust(dir, &st))
			break;
		skit_free(asked);
		asked = dir;
	}
	refuse_untrusted(dir, &st);
	skit_free(dir);
	skit_free(asked);
	return CLI_USAGE;
}

/* "I/N" with 1 <= I <= N <= 10000. */
static int parse_shard(const char *s, unsigned int *index, unsigned int *count)
{
	char *end;
	unsigned long i, n;

	if (*s < '0' || *s > '9')
		return -1;
	i = strtoul(s, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	n = strtoul(end + 1, &end, 10);
	if (*end || n < 1 || n > 10000 || i < 1 || i > n)
		return -1;
	*index = (unsigned int)i;
	*count = (unsigned int)n;
	return 0;
}

static int parse_per_minute(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v < 1 || v > 100000000UL)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int parse_format(const char *s, skit_eval_format *out)
{
	if (!strcmp(s, "text"))
		*out = SKIT_EVAL_TEXT;
	else if (!strcmp(s, "json"))
		*out = SKIT_EVAL_JSON;
	else if (!strcmp(s, "junit"))
		*out = SKIT_EVAL_JUNIT;
	else
		return -1;
	return 0;
}

/* Write the report to `out` (or stdout), a summary line on stderr when
 * the report is not the text on stdout, and the exit status for the
 * pass rate. */
static int emit(const char *cmd, const skit_eval_report *report,
                skit_eval_format format, const char *out, double min_rate)
{
	skit_eval_summary sum;
	skit_error err = { 0 };
	char *text = NULL;
	int status;

	if (skit_eval_report_write(&text, report, format, &err) < 0) {
		cli_error(cmd, "%s", err.message);
		return CLI_FAIL;
	}
	if (out) {
		if (skitx_fs_write_atomic(out, text, strlen(text), 0644) < 0) {
			cli_error(cmd, "cannot write %s: %s", out,
			          strerror(errno));
			skit_free(text);
			return CLI_FAIL;
		}
	} else {
		fputs(text, stdout);
	}
	skit_free(text);
	skit_eval_report_summary(report, &sum);
	if (out || format != SKIT_EVAL_TEXT) {
		if (sum.cases || !sum.queries)
			fprintf(stderr, "%zu of %zu cases%s", sum.cases_passed,
			        sum.cases, sum.queries ? " and " : "");
		if (sum.queries)
			fprintf(stderr, "%zu of %zu trigger queries",
			        sum.queries_passed, sum.queries);
		fprintf(stderr, " passed (%.0f%%)", sum.pass_rate * 100.0);
		if (sum.shard_count)
			fprintf(stderr, " in shard %u/%u", sum.shard_index,
			        sum.shard_count);
		if (sum.shards_merged)
			fprintf(stderr, " over %u merged reports\n",
			        sum.shards_merged);
		else
			fprintf(stderr, "; runs in %s\n",
			        sum.runs_dir ? sum.runs_dir : "-");
	}
	status = sum.pass_rate + 1e-9 >= min_rate ? CLI_OK : CLI_FAIL;
	if (status != CLI_OK)
		fprintf(stderr,
		        "skit eval: pass rate %.2f is under the minimum %.2f\n",
		        sum.pass_rate, min_rate);
	return status;
}

/* `skit eval merge REPORT.json...` */
static int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "report", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'J' },
		{ "out", required_argument, NULL, 'o' },
		{ "min-pass-rate", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_eval_format format = SKIT_EVAL_TEXT;
	skit_eval_report *report = NULL;
	skit_error err = { 0 };
	const char *out = NULL;
	double min_rate = 1.0;
	const char *cmd = "eval merge"; /* for messages */
	int c, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_format(optarg, &format) < 0)
				return cli_usage_error(
				        cmd,
				        "--report is text, json or "
				        "junit, not '%s'",
				        optarg);
			break;
		case 'J':
			format = SKIT_EVAL_JSON;
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			if (parse_rate(optarg, &min_rate) < 0)
				return cli_usage_error(
				        cmd,
				        "--min-pass-rate is a "
				        "number from 0 to 1, not "
				        "'%s'",
				        optarg);
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(cmd, c, argc, argv, longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "missing REPORT.json");
	if (skit_eval_report_merge(&report, (const char *const *)argv + optind,
	                           (size_t)(argc - optind), &err) < 0) {
		cli_error(cmd, "%s", err.message);
		return err.code == SKIT_ENOMEM ? CLI_FAIL : CLI_USAGE;
	}
	status = emit(cmd, report, format, out, min_rate);
	skit_eval_report_free(report);
	return status;
}

int cmd_eval(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "report", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'J' },
		{ "out", required_argument, NULL, 'o' },
		{ "runs-dir", required_argument, NULL, 'R' },
		{ "min-pass-rate", required_argument, NULL, 'p' },
		{ "holdout", required_argument, NULL, 'H' },
		{ "shard", required_argument, NULL, 'S' },
		{ "rpm", required_argument, NULL, 'q' },
		{ "tpm", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_eval_options opts = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_format format = SKIT_EVAL_TEXT;
	skit_eval_suite *suite = NULL;
	skit_eval_report *report = NULL;
	skit_error err = { 0 };
	const char *out = NULL;
	double min_rate = 1.0;
	char *end, *runs_owned = NULL;
	long jobs;
	int c, status = CLI_FAIL;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return cmd_merge(argc - 1, argv + 1);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hj:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			opts.model = optarg;
			break;
		case 'j':
			jobs = strtol(optarg, &end, 10);
			if (end == optarg || *end || jobs < 1 || jobs > 64)
				return cli_usage_error(argv[0],
				                       "--jobs is 1 to 64, not "
				                       "'%s'",
				                       optarg);
			opts.jobs = (unsigned int)jobs;
			break;
		case 'S':
			if (parse_shard(optarg, &opts.shard_index,
			                &opts.shard_count) < 0)
				return cli_usage_error(
				        argv[0],
				        "--shard is I/N with 1 <= "
				        "I <= N <= 10000, not '%s'",
				        optarg);
			break;
		case 'q':
		case 't':
			if (parse_per_minute(optarg, c == 'q' ? &opts.rpm
			                                      : &opts.tpm) < 0)
				return cli_usage_error(
				        argv[0],
				        "--%s is a whole number "
				        "from 1 to 100000000, not "
				        "'%s'",
				        c == 'q' ? "rpm" : "tpm", optarg);
			break;
		case 'r':
			if (parse_format(optarg, &format) < 0)
				return cli_usage_error(
				        argv[0],
				        "--report is text, json or "
				        "junit, not '%s'",
				        optarg);
			break;
		case 'J':
			format = SKIT_EVAL_JSON;
			break;
		case 'o':
			out = optarg;
			break;
		case 'R':
			opts.runs_dir = optarg;
			break;
		case 'p':
			if (parse_rate(optarg, &min_rate) < 0)
				return cli_usage_error(
				        argv[0],
				        "--min-pass-rate is a "
				        "number from 0 to 1, not "
				        "'%s'",
				        optarg);
			break;
		case 'H':
			if (parse_rate(optarg, &opts.holdout) < 0 ||
			    opts.holdout >= 1.0)
				return cli_usage_error(argv[0],
				                       "--holdout is a number "
				                       "from 0 to under 1, not "
				                       "'%s'",
				                       optarg);
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
		return cli_usage_error(argv[0], "missing PATH");
	/* The suite first: a bad case file leaves no empty runs folder. */
	if (skit_eval_suite_load(&suite, (const char *const *)argv + optind,
	                         (size_t)(argc - optind), &err) < 0) {
		cli_error(argv[0], "%s", err.message);
		skitx_free(runs_owned);
		return CLI_USAGE;
	}
	status = check_trust(suite);
	if (status != CLI_OK) {
		skit_eval_suite_free(suite);
		return status;
	}
	/* And again as the trials start: trust may have been removed. */
	opts.honour_trust = true;
	if (!opts.runs_dir) {
		if (eval_runs_dir(&runs_owned) < 0) {
			cli_error(argv[0], "cannot create a folder for the "
			                   "runs; use --runs-dir");
			skit_eval_suite_free(suite);
			return CLI_FAIL;
		}
		opts.runs_dir = runs_owned;
	}
	if (isatty(STDERR_FILENO))
		opts.progress = progress;
	opts.cancel = &canceled;
	signal(SIGINT, on_signal);
	if (skit_eval_run(&report, suite, &opts, &err) < 0) {
		cli_error(argv[0], "%s", err.message);
		status = err.code == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	status = emit(argv[0], report, format, out, min_rate);
out:
	signal(SIGINT, SIG_DFL);
	skitx_free(runs_owned);
	skit_eval_report_free(report);
	skit_eval_suite_free(suite);
	return status;
}
