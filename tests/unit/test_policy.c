/* SPDX-License-Identifier: MIT */
/*
 * test_policy.c - every row of the table in docs/permissions.md, then the
 * pattern grammar's edges (errors and their columns, caps, paths, command
 * words, hosts, case) and out-of-memory torture.
 */
#include "common.h"

#include "harness.h"
#include "skit/policy.h"
#include "lib/policy/policy_int.h"
#include "util/buf.h"
#include "util/fs.h"

enum { YES = 1, NONET = 2 };

/*
 * One row of docs/permissions.md. Each list holds at most one pattern
 * except `allow2`; a skill with `tools` NULL declares no allowed-tools.
 */
struct row {
	int n;
	const char *allow, *allow2, *deny, *ask;
	const char *name1, *tools1, *name2, *tools2;
	const char *flag_allow, *flag_deny;
	unsigned int flags;
	const char *tool, *target, *skill;
	skit_verdict verdict;
	const char *reason;
};

#define A SKIT_POLICY_ALLOW
#define Q SKIT_POLICY_ASK
#define D SKIT_POLICY_DENY

/* clang-format off */
static const struct row rows[] = {
	{ 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "read_file", "docs/a.md", NULL, A, "read-only" },
	{ 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "shell", "git status", NULL, Q, "execute call needs approval" },
	{ 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, YES,
	  "shell", "git status", NULL, A, "approved by --yes (execute call)" },
	{ 4, "Bash(git:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "shell", "git status", NULL, A,
	  "pre-approved by config allow 'Bash(git:*)'" },
	{ 5, "Bash(git:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "shell", "git", NULL, A, "pre-approved by config allow 'Bash(git:*)'" },
	{ 6, "Bash(git:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "shell", "gitx status", NULL, Q, "execute call needs approval" },
	{ 7, "Bash(git:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "shell", "git log; rm -rf ~", NULL, Q, "execute call needs approval" },
	{ 8, NULL, NULL, "Bash(rm:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  YES, "shell", "ls && rm -rf build", NULL, D,
	  "denied by config deny 'Bash(rm:*)'" },
	{ 9, "Bash(rm:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  "Bash(rm:*)", 0, "shell", "rm -rf build", NULL, D,
	  "denied by --deny 'Bash(rm:*)'" },
	{ 10, "Bash(npm run test:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, 0, "shell", "npm run test -- --watch", NULL, A,
	  "pre-approved by config allow 'Bash(npm run test:*)'" },
	{ 11, "Bash(npm run test:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, 0, "shell", "npm run testing", NULL, Q,
	  "execute call needs approval" },
	{ 12, "Bash(Git:*)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  0, "shell", "git status", NULL, Q, "execute call needs approval" },
	{ 13, NULL, NULL, NULL, NULL, "csv-report", "Bash(python3:*) Read", NULL,
	  NULL, NULL, NULL, 0, "read_file", "data.csv", NULL, A, "read-only" },
	{ 14, NULL, NULL, NULL, NULL, "csv-report", "Bash(python3:*) Read", NULL,
	  NULL, NULL, NULL, 0, "write_file", "out/r.md", NULL, D,
	  "not in the allowed-tools of the active skills (csv-report: "
	  "Bash(python3:*) Read)" },
	{ 15, NULL, NULL, NULL, NULL, "csv-report", "Bash(python3:*) Read", NULL,
	  NULL, NULL, NULL, 0, "shell", "python3 report.py", NULL, Q,
	  "execute call needs approval" },
	{ 16, "Bash(python3:*)", NULL, NULL, NULL, "csv-report",
	  "Bash(python3:*) Read", NULL, NULL, NULL, NULL, 0, "shell",
	  "python3 report.py", NULL, A,
	  "pre-approved by config allow 'Bash(python3:*)'" },
	{ 17, "Bash(python3:*)", NULL, NULL, NULL, "csv-report", "Read", NULL,
	  NULL, NULL, NULL, 0, "shell", "python3 report.py", NULL, D,
	  "not in the allowed-tools of the active skills (csv-report: Read)" },
	{ 18, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "Bash(git:*)", NULL,
	  0, "shell", "git status", NULL, A,
	  "pre-approved by --allow 'Bash(git:*)'" },
	{ 19, NULL, NULL, NULL, NULL, "csv-report", "Read", NULL, NULL,
	  "Bash(git:*)", NULL, 0, "shell", "git status", NULL, D,
	  "not in the allowed-tools of the active skills (csv-report: Read)" },
	{ 20, NULL, NULL, NULL, NULL, "csv-report", "Read", NULL, NULL, NULL,
	  NULL, 0, "run_skill_script", "scripts/report.py data.csv",
	  "csv-report", Q, "execute call needs approval" },
	{ 21, NULL, NULL, NULL, NULL, "csv-report", "Read", NULL, NULL, NULL,
	  NULL, 0, "run_skill_script", "scripts/fill.py", "pdf", D,
	  "not in the allowed-tools of the active skills (csv-report: Read)" },
	{ 22, NULL, NULL, NULL, NULL, "pdf", NULL, NULL, NULL, NULL, NULL, 0,
	  "write_file", "out/a.pdf", NULL, Q, "write call needs approval" },
	{ 23, NULL, NULL, NULL, NULL, "a", "Read", "b", "Write(out/**)", NULL,
	  NULL, 0, "write_file", "out/x.md", NULL, Q,
	  "write call needs approval" },
	{ 24, NULL, NULL, NULL, NULL, "a", "Read", NULL, NULL, NULL, NULL, 0,
	  "use_skill", NULL, NULL, A, "read-only" },
	{ 25, NULL, NULL, NULL, NULL, "a", "Bash(git:*)", NULL, NULL, NULL, NULL,
	  0, "read_file", "README.md", NULL, D,
	  "not in the allowed-tools of the active skills (a: Bash(git:*))" },
	{ 26, NULL, NULL, NULL, NULL, "a", "", NULL, NULL, NULL, NULL, 0, "grep",
	  "TODO", NULL, D,
	  "not in the allowed-tools of the active skills (a: (none))" },
	{ 27, NULL, NULL, "Read(secrets/**)", NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, "read_file", "docs/../secrets/key.pem", NULL, D,
	  "denied by config deny 'Read(secrets/**)'" },
	{ 28, NULL, NULL, NULL, NULL, "a", "Read(docs/**)", NULL, NULL, NULL,
	  NULL, 0, "list_dir", "docs", NULL, A, "read-only" },
	{ 29, NULL, NULL, NULL, NULL, "a", "Read(docs/**)", NULL, NULL, NULL,
	  NULL, 0, "read_file", "docs/guide/intro.md", NULL, A, "read-only" },
	{ 30, NULL, NULL, NULL, NULL, "a", "Read(docs/**)", NULL, NULL, NULL,
	  NULL, 0, "read_file", "../docs/a.md", NULL, D,
	  "path is outside the project folder" },
	{ 31, NULL, NULL, NULL, NULL, "a", "Read(docs/*)", NULL, NULL, NULL,
	  NULL, 0, "read_file", "docs/guide/intro.md", NULL, D,
	  "not in the allowed-tools of the active skills (a: Read(docs/*))" },
	{ 32, "Bash(git:*)", NULL, NULL, "Bash(git push:*)", NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, "shell", "git add . && git push", NULL, Q,
	  "needs approval: config ask 'Bash(git push:*)'" },
	{ 33, "Bash(git:*)", NULL, NULL, "Bash(git push:*)", NULL, NULL, NULL,
	  NULL, NULL, NULL, YES, "shell", "git push origin", NULL, A,
	  "approved by --yes (config ask 'Bash(git push:*)')" },
	{ 34, NULL, NULL, NULL, "Read(.env)", NULL, NULL, NULL, NULL, NULL, NULL,
	  0, "read_file", "./.env", NULL, Q,
	  "needs approval: config ask 'Read(.env)'" },
	{ 35, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NONET | YES, "WebFetch", "https://example.com/x", NULL, D,
	  "denied by --no-network" },
	{ 36, "WebFetch(domain:example.com)", NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, "WebFetch", "https://Docs.Example.com/x", NULL, A,
	  "pre-approved by config allow 'WebFetch(domain:example.com)'" },
	{ 37, "WebFetch(domain:example.com)", NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL, 0, "WebFetch", "https://badexample.com/", NULL, Q,
	  "network call needs approval" },
	{ 38, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "Write(out/**)",
	  NULL, 0, "write_file", "out/report.md", NULL, A,
	  "pre-approved by --allow 'Write(out/**)'" },
	{ 39, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "Write(out/**)",
	  NULL, 0, "write_file", "out/../src/main.c", NULL, Q,
	  "write call needs approval" },
	{ 40, "Edit(out/**)", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, 0, "write_file", "out/report.md", NULL, A,
	  "pre-approved by config allow 'Edit(out/**)'" },
	{ 41, NULL, NULL, "Bash", NULL, "a", "Read", NULL, NULL, NULL, NULL, 0,
	  "run_skill_script", "scripts/x.sh", "a", D,
	  "denied by config deny 'Bash'" },
	{ 42, NULL, NULL, "shell", NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "Bash", "ls", NULL, Q, "execute call needs approval" },
	{ 43, NULL, NULL, "Read", NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	  "read_file", "/etc/passwd", NULL, D, "denied by config deny 'Read'" },
	{ 44, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, YES,
	  "read_file", "/etc/passwd", NULL, D,
	  "path is outside the project folder" },
};
/* clang-format on */

static void add(skit_policy *p, bool flag, skit_policy_list list,
                const char *pattern)
{
	skit_error err;

	if (!pattern)
		return;
	if (flag)
		ASSERT_OK(skit_policy_add_flag(p, list, pattern, &err));
	else
		ASSERT_OK(skit_policy_add(p, list, pattern, &err));
}

/* Decide the call of row `r`; NULL `verdict` means "just run it". */
static int run_row(const struct row *r, skit_decision *d)
{
	skit_allowed_tools *t1 = NULL, *t2 = NULL;
	skit_active_skill active[2];
	skit_tool_request req = { r->tool, r->target, r->skill };
	skit_policy *p = NULL;
	size_t nactive = 0;
	skit_error err;
	int error;

	error = skit_policy_new(&p, &err);
	if (error < 0)
		goto out;
	if (r->tools1) {
		error = skit_allowed_tools_parse(&t1, r->name1, r->tools1,
		                                 &err);
		if (error < 0)
			goto out;
	}
	if (r->tools2) {
		error = skit_allowed_tools_parse(&t2, r->name2, r->tools2,
		                                 &err);
		if (error < 0)
			goto out;
	}
	if (r->name1) {
		active[nactive].name = r->name1;
		active[nactive++].tools = t1;
	}
	if (r->name2) {
		active[nactive].name = r->name2;
		active[nactive++].tools = t2;
	}
	{
		const char *pats[] = { r->allow, r->allow2,     r->deny,
			               r->ask,   r->flag_allow, r->flag_deny };
		const skit_policy_list lists[] = {
			SKIT_POLICY_LIST_ALLOW, SKIT_POLICY_LIST_ALLOW,
			SKIT_POLICY_LIST_DENY,  SKIT_POLICY_LIST_ASK,
			SKIT_POLICY_LIST_ALLOW, SKIT_POLICY_LIST_DENY
		};

		for (size_t i = 0; i < 6 && !error; i++) {
			if (!pats[i])
				continue;
			error = i < 4 ? skit_policy_add(p, lists[i], pats[i],
			                                &err)
			              : skit_policy_add_flag(p, lists[i],
			                                     pats[i], &err);
		}
		if (error < 0)
			goto out;
	}
	skit_policy_set_yes(p, r->flags & YES);
	skit_policy_set_no_network(p, r->flags & NONET);
	error = skit_policy_check(p, active, nactive, &req, d, &err);
out:
	skit_allowed_tools_free(t1);
	skit_allowed_tools_free(t2);
	skit_policy_free(p);
	return error;
}

static void test_policy__table(void)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];
		skit_decision d;

		ASSERT_EQ(r->n, (int)i + 1);
		ASSERT_OK(run_row(r, &d));
		if (d.verdict != r->verdict || strcmp(d.reason, r->reason))
			HARNESS_FAIL("row %d: got %d \"%s\", want %d \"%s\"",
			             r->n, (int)d.verdict, d.reason,
			             (int)r->verdict, r->reason);
		/* A flag decided exactly when the reason names one; a
		 * config "ask" that --yes approved names both. */
		if (d.by_flag != (strstr(r->reason, "by --") != NULL))
			HARNESS_FAIL("row %d: by_flag is %d for \"%s\"", r->n,
			             (int)d.by_flag, r->reason);
	}
}

/* The rows of the doc table must be the rows tested here, in order. */
static void test_policy__doc_table_in_sync(void)
{
	const char *src = getenv("SKIT_SOURCE_DIR");
	char path[1024], line[2048];
	int n = 0;
	FILE *f;

	if (!src)
		return;
	snprintf(path, sizeof(path), "%s/docs/permissions.md", src);
	f = fopen(path, "r");
	ASSERT(f);
	while (fgets(line, sizeof(line), f)) {
		int num;
		const char *verdict;

		if (sscanf(line, "| %d |", &num) != 1)
			continue;
		ASSERT(n < (int)SKIT_ARRAY_SIZE(rows));
		ASSERT_EQ(num, rows[n].n);
		verdict = rows[n].verdict == A   ? "| allow |"
		          : rows[n].verdict == Q ? "| ask |"
		                                 : "| deny |";
		ASSERT_CONTAINS(line, verdict);
		ASSERT_CONTAINS(line, rows[n].reason);
		n++;
	}
	fclose(f);
	ASSERT_EQ(n, SKIT_ARRAY_SIZE(rows));
}

/* ---- grammar ----------------------------------------------------------- */

/* Add `pattern` to a fresh policy; the status, and the column on error. */
static int try_add(const char *pattern, unsigned int *column)
{
	skit_policy *p;
	skit_error err;
	int error;

	memset(&err, 0, sizeof(err));
	ASSERT_OK(skit_policy_new(&p, NULL));
	error = skit_policy_add(p, SKIT_POLICY_LIST_DENY, pattern, &err);
	skit_policy_free(p);
	if (error)
		ASSERT_EQ(err.code, error);
	if (column)
		*column = err.column;
	return error;
}

static void test_policy__grammar_errors(void)
{
	static const struct {
		const char *pattern;
		unsigned int column;
		const char *msg;
	} bad[] = {
		{ "", 1, "empty pattern" },
		{ "(x)", 1, "missing tool name" },
		{ "1Read", 1, "must start with a letter" },
		{ "Bash(git", 5, "unclosed '('" },
		{ "Bash(a))", 8, "after ')'" },
		{ "Read)", 5, "unexpected ')'" },
		{ "Read x", 5, "unexpected ' '" },
		{ "Read()", 6, "empty argument" },
		{ "Bash( )", 6, "empty command" },
		{ "Bash(:*)", 6, "empty command" },
		{ "Read(/etc/**)", 6, "relative to the project" },
		{ "Read(~/x)", 6, "relative to the project" },
		{ "Read(docs/../x)", 11, "'..'" },
		{ "WebFetch(example.com)", 10, "domain:HOST" },
		{ "WebFetch(domain:)", 17, "1 to 255" },
		{ "WebFetch(domain:a_b.com)", 18, "invalid character" },
		{ "WebFetch(domain:.com)", 17, "invalid character" },
		{ "WebSearch(x)", 10, "takes no argument" },
		{ "update_plan(x)", 12, "takes no argument" },
		{ "Skill(Bad_Name)", 7, "a skill's name" },
		{ "Bash(a\tb\x01)", 9, "control character" },
		{ "Read(\x7f)", 6, "control character" },
		{ "BASH", 1, "did you mean 'Bash'" },
		{ "Frobnicate", 1, "unknown tool 'Frobnicate'" },
	};

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(bad); i++) {
		skit_policy *p;
		skit_error err;
		int error;

		ASSERT_OK(skit_policy_new(&p, NULL));
		error = skit_policy_add(p, SKIT_POLICY_LIST_ALLOW,
		                        bad[i].pattern, &err);
		skit_policy_free(p);
		if (error != SKIT_EINVALID || err.column != bad[i].column ||
		    !strstr(err.message, bad[i].msg))
			HARNESS_FAIL("\"%s\": got %d col %u \"%s\"",
			             bad[i].pattern, error, err.column,
			             err.message);
	}
	/* Surrounding blanks are trimmed, and columns count them. */
	ASSERT_OK(try_add("  Bash(git:*)  ", NULL));
	{
		unsigned int col;

		ASSERT_EQ(try_add("  Read()", &col), SKIT_EINVALID);
		ASSERT_EQ(col, 8);
	}
	/* Nested balanced parentheses are part of a command. */
	ASSERT_OK(try_add("Bash(echo (a) b)", NULL));
	ASSERT_OK(try_add("WebFetch(domain:Sub.Example.COM)", NULL));
	ASSERT_EQ(try_add("mcp", NULL), SKIT_EINVALID);
}

static void test_policy__caps(void)
{
	char big[SKIT_POLICY_MAX_PATTERN + 16];
	skit_allowed_tools *at;
	char *many;
	skit_policy *p;
	skit_error err;
	size_t n;

	/* A pattern of exactly the cap parses; one byte more does not. */
	memcpy(big, "Read(", 5);
	memset(big + 5, 'a', SKIT_POLICY_MAX_PATTERN - 6);
	big[SKIT_POLICY_MAX_PATTERN - 1] = ')';
	big[SKIT_POLICY_MAX_PATTERN] = '\0';
	ASSERT_OK(try_add(big, NULL));
	memmove(big + 6, big + 5, SKIT_POLICY_MAX_PATTERN - 4);
	ASSERT_EQ(strlen(big), SKIT_POLICY_MAX_PATTERN + 1);
	ASSERT_EQ(try_add(big, NULL), SKIT_ETOOBIG);

	/* 256 patterns in a list, then no more. */
	ASSERT_OK(skit_policy_new(&p, NULL));
	for (int i = 0; i < SKIT_POLICY_MAX_PATTERNS; i++)
		ASSERT_OK(
		        skit_policy_add(p, SKIT_POLICY_LIST_ASK, "Read", &err));
	ASSERT_EQ(skit_policy_add(p, SKIT_POLICY_LIST_ASK, "Read", &err),
	          SKIT_ETOOBIG);
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY, "Read", &err));
	skit_policy_free(p);

	/* The same for an allowed-tools value. */
	n = (SKIT_POLICY_MAX_PATTERNS + 1) * 5;
	many = malloc(n + 1);
	ASSERT(many);
	for (size_t i = 0; i < SKIT_POLICY_MAX_PATTERNS + 1; i++)
		memcpy(many + i * 5, "Read ", 5);
	many[n - 5] = '\0'; /* exactly 256 */
	ASSERT_OK(skit_allowed_tools_parse(&at, "s", many, &err));
	ASSERT_EQ(skit_allowed_tools_count(at), SKIT_POLICY_MAX_PATTERNS);
	skit_allowed_tools_free(at);
	many[n - 5] = 'R';
	many[n] = '\0';
	ASSERT_EQ(skit_allowed_tools_parse(&at, "s", many, &err), SKIT_ETOOBIG);
	ASSERT(!at);
	ASSERT_EQ(err.column, 256 * 5 + 1);
	free(many);
}

static void test_policy__allowed_tools_parse(void)
{
	skit_allowed_tools *at;
	const skit_diag *diags;
	skit_error err;
	size_t n;

	ASSERT_OK(skit_allowed_tools_parse(
	        &at, "x", " Bash(npm run test:*)  Read,Grep ,\tfoo(1 2) BASH",
	        &err));
	ASSERT_EQ(skit_allowed_tools_count(at), 5);
	ASSERT_STR(skit_allowed_tools_pattern(at, 0), "Bash(npm run test:*)");
	ASSERT_STR(skit_allowed_tools_pattern(at, 1), "Read");
	ASSERT_STR(skit_allowed_tools_pattern(at, 2), "Grep");
	ASSERT_STR(skit_allowed_tools_pattern(at, 3), "foo(1 2)");
	ASSERT_STR(skit_allowed_tools_pattern(at, 4), "BASH");
	diags = skit_allowed_tools_diags(at, &n);
	ASSERT_EQ(n, 2);
	ASSERT_EQ(diags[0].severity, SKIT_SEVERITY_WARNING);
	ASSERT_STR(diags[0].code, "allowed-tools-unknown-tool");
	ASSERT_STR(diags[0].message, "Unknown tool 'foo' in allowed-tools");
	ASSERT_EQ(diags[0].column, 36);
	ASSERT_CONTAINS(diags[1].message, "did you mean 'Bash'?");
	skit_allowed_tools_free(at);

	/* A malformed pattern fails the whole value, with its column. */
	ASSERT_EQ(skit_allowed_tools_parse(&at, "x", "Read Bash(git", &err),
	          SKIT_EINVALID);
	ASSERT(!at);
	ASSERT_EQ(err.column, 10);
	ASSERT_CONTAINS(err.message, "unclosed '('");
	ASSERT_EQ(skit_allowed_tools_parse(&at, "x", "Read Write(/etc)", &err),
	          SKIT_EINVALID);
	ASSERT_EQ(err.column, 12);

	/* Blank and empty values declare an empty list. */
	ASSERT_OK(skit_allowed_tools_parse(&at, NULL, " \t, ", &err));
	ASSERT_EQ(skit_allowed_tools_count(at), 0);
	skit_allowed_tools_free(at);
}

/* ---- matching edges ---------------------------------------------------- */

/* The verdict for one call under one config pattern in list `list`. */
static skit_verdict verdict(skit_policy_list list, const char *pattern,
                            const char *tool, const char *target)
{
	skit_tool_request req = { tool, target, NULL };
	skit_decision d;
	skit_policy *p;

	ASSERT_OK(skit_policy_new(&p, NULL));
	add(p, false, list, pattern);
	ASSERT_OK(skit_policy_check(p, NULL, 0, &req, &d, NULL));
	skit_policy_free(p);
	return d.verdict;
}

/* Whether an allow `pattern` pre-approves the call. */
static bool grants(const char *pattern, const char *tool, const char *target)
{
	return verdict(SKIT_POLICY_LIST_ALLOW, pattern, tool, target) == A;
}

/* Whether a deny `pattern` refuses the call. */
static bool refuses(const char *pattern, const char *tool, const char *target)
{
	return verdict(SKIT_POLICY_LIST_DENY, pattern, tool, target) == D;
}

static void test_policy__commands(void)
{
	ASSERT(grants("Bash(git:*)", "shell", "git"));
	ASSERT(grants("Bash(git:*)", "shell", "  git\t status  "));
	ASSERT(!grants("Bash(git:*)", "shell", "gitx"));
	ASSERT(!grants("Bash(git:*)", "shell", "git-lfs pull"));
	ASSERT(!grants("Bash(git:*)", "shell", "git status | sh"));
	ASSERT(!grants("Bash(git:*)", "shell", "git status > /etc/x"));
	ASSERT(!grants("Bash(git:*)", "shell", "git $(rm x)"));
	ASSERT(!grants("Bash(git:*)", "shell", "git status\nrm x"));
	ASSERT(grants("Bash(git status)", "shell", "git  status"));
	ASSERT(!grants("Bash(git status)", "shell", "git status -s"));
	ASSERT(grants("Bash(make && make test)", "shell", "make && make test"));
	ASSERT(grants("shell(ls:*)", "shell", "ls -l"));
	ASSERT(!grants("shell(ls:*)", "Bash", "ls -l"));
	ASSERT(grants("Bash(python3:*)", "run_skill_script", "python3 x.py"));
	ASSERT(!grants("Bash(python3:*)", "run_skill_script", "scripts/x.py"));
	ASSERT(grants("run_skill_script(scripts/x.py:*)", "run_skill_script",
	              "scripts/x.py --in a.csv"));

	ASSERT(refuses("Bash(rm:*)", "shell", "rm"));
	ASSERT(refuses("Bash(rm:*)", "shell", "ls; rm -rf /"));
	ASSERT(refuses("Bash(rm:*)", "shell", "ls|rm x"));
	ASSERT(refuses("Bash(rm:*)", "shell", "echo `rm x`"));
	ASSERT(refuses("Bash(rm:*)", "shell", "echo $(rm x)"));
	ASSERT(refuses("Bash(rm:*)", "shell", "true\nrm x"));
	ASSERT(!refuses("Bash(rm:*)", "shell", "rmdir x"));
	ASSERT(!refuses("Bash(rm:*)", "shell", "echo rm"));
	ASSERT(refuses("Bash(git push)", "shell", "git add . && git push"));
	ASSERT(!refuses("Bash(git push)", "shell", "git push -f"));
	ASSERT(!refuses("Bash(RM:*)", "shell", "rm x"));
}

static void test_policy__paths(void)
{
	ASSERT(refuses("Read(*.md)", "read_file", "a.md"));
	ASSERT(!refuses("Read(*.md)", "read_file", "docs/a.md"));
	ASSERT(refuses("Read(**/*.md)", "read_file", "a.md"));
	ASSERT(refuses("Read(**/*.md)", "read_file", "x/y/z/a.md"));
	ASSERT(refuses("Read(docs/**)", "read_file", "docs"));
	ASSERT(refuses("Read(docs/**/x)", "read_file", "docs/x"));
	ASSERT(refuses("Read(docs/**/x)", "read_file", "docs/a/b/x"));
	ASSERT(!refuses("Read(docs/**/x)", "read_file", "docs/a/b/y"));
	ASSERT(refuses("Read(a/**/**/b)", "read_file", "a/b"));
	ASSERT(refuses("Read(?.txt)", "read_file", "a.txt"));
	ASSERT(!refuses("Read(?.txt)", "read_file", "ab.txt"));
	ASSERT(!refuses("Read(a?b)", "read_file", "a/b"));
	ASSERT(refuses("Read(./docs//a.md)", "read_file", "docs/./a.md"));
	ASSERT(refuses("Read(docs/a.md)", "read_file", "x/../docs/a.md"));
	ASSERT(!refuses("Read(Docs/a.md)", "read_file", "docs/a.md"));
	ASSERT(refuses("Read(.)", "list_dir", NULL));
	ASSERT(refuses("Read(.)", "list_dir", "."));
	ASSERT(refuses("Read(.env*)", "grep", ".env.local"));
	ASSERT(refuses("LS(src)", "list_dir", "src"));
	ASSERT(!refuses("LS(src)", "read_file", "src"));
	ASSERT(refuses("Glob", "Glob", "x"));
	ASSERT(refuses("Read", "Glob", "x"));
	ASSERT(refuses("Write", "Edit", "x"));
	ASSERT(refuses("read_file", "read_file", "x"));
	ASSERT(!refuses("read_file", "Read", "x"));
	/* Outside the project: refused whatever the lists say. */
	ASSERT_EQ(verdict(SKIT_POLICY_LIST_ALLOW, "Write", "write_file",
	                  "a/../../x"),
	          D);
	ASSERT_EQ(verdict(SKIT_POLICY_LIST_ALLOW, "Read", "read_file",
	                  "~/.ssh/id_rsa"),
	          D);
	ASSERT_EQ(verdict(SKIT_POLICY_LIST_ALLOW, "Read", "read_file", "a/.."),
	          A);
	/* Pathological globs stay fast (one backtrack point per level). */
	{
		char path[2048], pat[600];
		size_t w = 0;

		for (int i = 0; i < 1000; i++) {
			path[w++] = 'a';
			path[w++] = '/';
		}
		path[w++] = 'b';
		path[w] = '\0';
		w = 0;
		memcpy(pat, "Read(", 5);
		w = 5;
		for (int i = 0; i < 100; i++) {
			memcpy(pat + w, "**/a/", 5);
			w += 5;
		}
		memcpy(pat + w, "c)", 3);
		ASSERT(!refuses(pat, "read_file", path));
	}
	/* An over-long path is refused, not matched loosely. */
	{
		char *longp = malloc(5000);

		ASSERT(longp);
		memset(longp, 'a', 4999);
		longp[4999] = '\0';
		ASSERT_EQ(verdict(SKIT_POLICY_LIST_ALLOW, "Read", "read_file",
		                  longp),
		          D);
		free(longp);
	}
}

static void test_policy__domains(void)
{
	const char *p = "WebFetch(domain:example.com)";

	ASSERT(refuses(p, "WebFetch", "example.com"));
	ASSERT(refuses(p, "WebFetch", "https://example.com"));
	ASSERT(refuses(p, "WebFetch", "https://a.b.EXAMPLE.com./x?y#z"));
	ASSERT(refuses(p, "WebFetch", "http://user:pw@example.com:8080/"));
	ASSERT(refuses(p, "WebFetch", "http://evil.com@example.com/"));
	ASSERT(!refuses(p, "WebFetch", "https://example.com.evil.net/"));
	ASSERT(!refuses(p, "WebFetch", "https://notexample.com/"));
	ASSERT(!refuses(p, "WebFetch", "https://example.co/"));
	/* No host: refusing patterns match, granting ones do not. */
	ASSERT(refuses(p, "WebFetch", "https:///x"));
	ASSERT(!grants(p, "WebFetch", "https:///x"));
	ASSERT(!refuses("WebFetch(domain:x.com)", "WebSearch", "x.com"));
	ASSERT(refuses("WebSearch", "WebSearch", "anything"));
}

static void test_policy__risk_and_unknown(void)
{
	skit_tool_request req = { "Frob", NULL, NULL };
	skit_decision d;
	skit_policy *p;
	skit_error err;
	skit_risk r;

	ASSERT_OK(skit_tool_risk(&r, "shell"));
	ASSERT_EQ(r, SKIT_RISK_EXECUTE);
	ASSERT_OK(skit_tool_risk(&r, "write_file"));
	ASSERT_EQ(r, SKIT_RISK_WRITE);
	ASSERT_OK(skit_tool_risk(&r, "WebSearch"));
	ASSERT_EQ(r, SKIT_RISK_NETWORK);
	ASSERT_OK(skit_tool_risk(&r, "update_plan"));
	ASSERT_EQ(r, SKIT_RISK_READ);
	ASSERT_EQ(skit_tool_risk(&r, "SHELL"), SKIT_ENOTFOUND);

	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_EQ(skit_policy_check(p, NULL, 0, &req, &d, &err),
	          SKIT_ENOTFOUND);
	ASSERT_CONTAINS(err.message, "unknown tool 'Frob'");
	skit_policy_free(p);

	/* An unknown name in allowed-tools never matches anything. */
	{
		skit_allowed_tools *at;
		skit_active_skill s = { "s", NULL };
		skit_tool_request rq = { "shell", "ls", NULL };

		ASSERT_OK(skit_allowed_tools_parse(&at, "s", "SHELL", NULL));
		s.tools = at;
		ASSERT_OK(skit_policy_new(&p, NULL));
		ASSERT_OK(skit_policy_check(p, &s, 1, &rq, &d, NULL));
		ASSERT_EQ(d.verdict, D);
		ASSERT_EQ(d.risk, SKIT_RISK_EXECUTE);
		skit_policy_free(p);
		skit_allowed_tools_free(at);
	}
}

static void test_policy__long_reason_is_cut(void)
{
	skit_allowed_tools *at;
	skit_active_skill s = { "s", NULL };
	skit_tool_request rq = { "shell", "ls", NULL };
	char text[2048];
	skit_decision d;
	skit_policy *p;
	size_t w = 0;

	for (int i = 0; i < 60; i++) {
		memcpy(text + w, "Read(abcdefghij) ", 17);
		w += 17;
	}
	text[w] = '\0';
	ASSERT_OK(skit_allowed_tools_parse(&at, "s", text, NULL));
	s.tools = at;
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_check(p, &s, 1, &rq, &d, NULL));
	ASSERT_EQ(d.verdict, D);
	ASSERT_EQ(strlen(d.reason), sizeof(d.reason) - 1);
	ASSERT_STR(d.reason + sizeof(d.reason) - 4, "...");
	skit_policy_free(p);
	skit_allowed_tools_free(at);
}

/* ---- out of memory ----------------------------------------------------- */

static void test_policy__out_of_memory(void)
{
	long n;
	int error = -1;

	for (n = 1; n < 10000 && error; n++) {
		for (size_t i = 0; i < SKIT_ARRAY_SIZE(rows); i++) {
			skit_decision d;

			skitx_alloc_fail_at(n);
			error = run_row(&rows[i], &d);
			skitx_alloc_fail_at(0);
			if (error) {
				ASSERT_EQ(error, SKIT_ENOMEM);
				break;
			}
			ASSERT_EQ(d.verdict, rows[i].verdict);
			ASSERT_STR(d.reason, rows[i].reason);
		}
	}
	ASSERT_OK(error);
	ASSERT(n > 5); /* it did fail at several points first */

	/* allowed-tools with warnings, failing at every allocation. */
	error = -1;
	for (n = 1; n < 10000 && error; n++) {
		skit_allowed_tools *at = NULL;
		skit_error err;

		skitx_alloc_fail_at(n);
		error = skit_allowed_tools_parse(
		        &at, "s", "Read Foo Bar(x) Bash(git:*) WebFetch", &err);
		skitx_alloc_fail_at(0);
		if (error) {
			ASSERT_EQ(error, SKIT_ENOMEM);
			ASSERT_EQ(err.code, SKIT_ENOMEM);
			ASSERT(!at);
		} else {
			size_t nd;

			skit_allowed_tools_diags(at, &nd);
			ASSERT_EQ(nd, 2);
		}
		skit_allowed_tools_free(at);
	}
	ASSERT_OK(error);
}

/* clang-format off */

/* ---- disclosure, network, suggestions, config ---------------------------- */

static void test_policy__offers(void)
{
	skit_allowed_tools *git, *none;
	skit_active_skill one = { "git-helper", NULL }, two[2];
	skit_policy *p;

	ASSERT_OK(skit_allowed_tools_parse(&git, "git-helper",
	                                   "Bash(git:*) Read", NULL));
	ASSERT_OK(skit_allowed_tools_parse(&none, "plain", "", NULL));
	ASSERT_OK(skit_policy_new(&p, NULL));

	/* Nothing active, nobody to ask: reads only. */
	ASSERT(skit_policy_offers(p, NULL, 0, "use_skill", false));
	ASSERT(skit_policy_offers(p, NULL, 0, "read_file", false));
	ASSERT(skit_policy_offers(p, NULL, 0, "grep", false));
	ASSERT(!skit_policy_offers(p, NULL, 0, "shell", false));
	ASSERT(!skit_policy_offers(p, NULL, 0, "write_file", false));
	ASSERT(!skit_policy_offers(p, NULL, 0, "run_skill_script", false));
	ASSERT(!skit_policy_offers(p, NULL, 0, "NoSuchTool", true));
	/* Someone to ask, or --yes: execute and write tools too. */
	ASSERT(skit_policy_offers(p, NULL, 0, "shell", true));
	skit_policy_set_yes(p, true);
	ASSERT(skit_policy_offers(p, NULL, 0, "write_file", false));
	skit_policy_set_yes(p, false);

	/* A skill naming Bash discloses shell once active; it hides what
	 * it does not name (write_file), and scripts appear. */
	one.tools = git;
	ASSERT(skit_policy_offers(p, &one, 1, "shell", false));
	ASSERT(!skit_policy_offers(p, &one, 1, "write_file", true));
	ASSERT(skit_policy_offers(p, &one, 1, "read_file", false));
	ASSERT(skit_policy_offers(p, &one, 1, "list_dir", false));
	ASSERT(skit_policy_offers(p, &one, 1, "run_skill_script", false));
	/* An empty allowed-tools grants nothing, but scripts stay. */
	two[0] = one;
	two[1].name = "plain";
	two[1].tools = none;
	ASSERT(skit_policy_offers(p, &two[1], 1, "run_skill_script", false));
	ASSERT(!skit_policy_offers(p, &two[1], 1, "read_file", true));
	ASSERT(skit_policy_offers(p, two, 2, "shell", false));

	/* A user allow discloses; a bare deny hides, an argument one not. */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW, "Write",
	                               NULL));
	ASSERT(skit_policy_offers(p, NULL, 0, "write_file", false));
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY, "Bash(rm:*)",
	                          NULL));
	ASSERT(skit_policy_offers(p, &one, 1, "shell", false));
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY, "Bash", NULL));
	ASSERT(!skit_policy_offers(p, &one, 1, "shell", true));
	ASSERT(!skit_policy_offers(p, &one, 1, "run_skill_script", true));
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY, "Read", NULL));
	ASSERT(!skit_policy_offers(p, NULL, 0, "grep", true));

	skit_policy_free(p);
	skit_allowed_tools_free(git);
	skit_allowed_tools_free(none);
}

static void test_policy__network(void)
{
	skit_allowed_tools *fetch, *plain;
	skit_active_skill s[2] = { { "fetcher", NULL }, { "plain", NULL } };
	skit_policy *p;

	ASSERT_OK(skit_allowed_tools_parse(
	        &fetch, "fetcher", "WebFetch(domain:example.com)", NULL));
	ASSERT_OK(skit_allowed_tools_parse(&plain, "plain", "Read", NULL));
	s[0].tools = fetch;
	s[1].tools = plain;
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT(!skit_policy_network(p, NULL, 0, NULL));
	/* A skill's allowed-tools never turn the whole network on, nor
	 * does a user's WebFetch or WebSearch allow. */
	ASSERT(!skit_policy_network(p, s, 2, "fetcher"));
	skit_policy_set_yes(p, true);
	ASSERT(!skit_policy_network(p, s, 2, "fetcher"));
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW, "WebSearch",
	                               NULL));
	ASSERT(!skit_policy_network(p, NULL, 0, NULL));
	/* Only the user's own switch does. */
	skit_policy_set_network(p, true);
	ASSERT(skit_policy_network(p, NULL, 0, NULL));
	ASSERT(skit_policy_network(p, s, 2, "plain"));
	skit_policy_set_no_network(p, true);
	ASSERT(!skit_policy_network(p, s, 2, "fetcher"));
	skit_policy_set_no_network(p, false);
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY, "WebFetch", NULL));
	ASSERT(!skit_policy_network(p, NULL, 0, NULL));
	skit_policy_free(p);
	skit_allowed_tools_free(fetch);
	skit_allowed_tools_free(plain);
}

static size_t count_domains(char **d)
{
	size_t n = 0;

	while (d && d[n])
		n++;
	return n;
}

static void test_policy__web_domains(void)
{
	skit_allowed_tools *fetch, *bare;
	skit_active_skill s[2] = { { "fetcher", NULL }, { "bare", NULL } };
	skit_policy *p;
	char **d;

	ASSERT_OK(skit_allowed_tools_parse(
	        &fetch, "fetcher",
	        "WebFetch(domain:example.com) WebFetch(domain:other.org)",
	        NULL));
	ASSERT_OK(skit_allowed_tools_parse(&bare, "bare", "WebFetch", NULL));
	s[0].tools = fetch;
	s[1].tools = bare;
	ASSERT_OK(skit_policy_new(&p, NULL));
	/* Nothing the user allowed: a skill alone grants no domain. */
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, "fetcher", NULL));
	ASSERT(!d);
	/* The user allows one of the skill's two domains. */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW,
	                               "WebFetch(domain:example.com)", NULL));
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, "fetcher", NULL));
	ASSERT_EQ(count_domains(d), 1);
	ASSERT_STR(d[0], "example.com");
	skit_policy_web_domains_free(d);
	/* Shell calls get the user's domains too. */
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, NULL, NULL));
	ASSERT_EQ(count_domains(d), 1);
	skit_policy_web_domains_free(d);
	/* --yes covers each domain the skill names, and no more; a bare
	 * WebFetch of a skill names none. */
	skit_policy_set_yes(p, true);
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, "fetcher", NULL));
	ASSERT_EQ(count_domains(d), 2);
	ASSERT_STR(d[1], "other.org");
	skit_policy_web_domains_free(d);
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, "bare", NULL));
	ASSERT_EQ(count_domains(d), 1);
	skit_policy_web_domains_free(d);
	/* A user's domain deny is carried and removes the skill's grant. */
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY,
	                          "WebFetch(domain:other.org)", NULL));
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, "fetcher", NULL));
	ASSERT_EQ(count_domains(d), 2);
	ASSERT_STR(d[1], "!other.org");
	skit_policy_web_domains_free(d);
	/* A bare user allow is any host. */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW, "WebFetch",
	                               NULL));
	ASSERT_OK(skit_policy_web_domains(&d, p, NULL, 0, NULL, NULL));
	ASSERT_EQ(count_domains(d), 3);
	ASSERT_STR(d[1], "*");
	skit_policy_web_domains_free(d);
	skit_policy_set_no_network(p, true);
	ASSERT_OK(skit_policy_web_domains(&d, p, s, 2, "fetcher", NULL));
	ASSERT(!d);
	skit_policy_free(p);
	skit_allowed_tools_free(fetch);
	skit_allowed_tools_free(bare);
}

static void test_policy__suggest(void)
{
	skit_tool_request r = { "shell", "  git status -s", NULL };
	char buf[256];

	ASSERT_OK(skit_policy_suggest(buf, sizeof(buf), &r, false));
	ASSERT_STR(buf, "Bash(git status -s)");
	ASSERT_OK(skit_policy_suggest(buf, sizeof(buf), &r, true));
	ASSERT_STR(buf, "Bash(git:*)");
	r.tool = "run_skill_script";
	r.target = "scripts/report.py data.csv";
	r.skill = "csv-report";
	ASSERT_OK(skit_policy_suggest(buf, sizeof(buf), &r, false));
	ASSERT_STR(buf, "run_skill_script(csv-report:scripts/report.py)");
	r.skill = NULL; /* a script of no named skill: no narrow pattern */
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	r.tool = "write_file";
	r.target = "./out//a.md";
	ASSERT_OK(skit_policy_suggest(buf, sizeof(buf), &r, false));
	ASSERT_STR(buf, "Write(out/a.md)");
	r.target = "../x";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	ASSERT_STR(buf, "");
	r.tool = "WebFetch";
	r.target = "https://Docs.Example.com/x";
	ASSERT_OK(skit_policy_suggest(buf, sizeof(buf), &r, false));
	ASSERT_STR(buf, "WebFetch(domain:docs.example.com)");
	r.tool = "shell";
	r.target = "echo )";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	r.target = "git status";
	ASSERT_EQ(skit_policy_suggest(buf, 8, &r, false), SKIT_ETOOBIG);
	r.tool = "Nope";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_ENOTFOUND);
}

static void test_policy__approving_flag(void)
{
	skit_tool_request r = { "shell", "echo it's", NULL };
	skit_allowed_tools *rs;
	skit_active_skill s = { "rs", NULL };
	skit_policy *p;
	char buf[256];

	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf), p, NULL, 0, &r));
	ASSERT_STR(buf, "--allow 'Bash(echo it'\\''s)'");
	/* A config ask beats --allow: only --yes approves. */
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_ASK, "Bash(echo:*)",
	                          NULL));
	ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf), p, NULL, 0, &r));
	ASSERT_STR(buf, "--yes");
	/* A skill running its own script it does not list: --yes. */
	ASSERT_OK(skit_allowed_tools_parse(&rs, "rs", "Read", NULL));
	s.tools = rs;
	r.tool = "run_skill_script";
	r.target = "scripts/x.sh";
	r.skill = "rs";
	ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf), p, &s, 1, &r));
	ASSERT_STR(buf, "--yes");
	/* Denied: nothing approves. */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY,
	                               "run_skill_script", NULL));
	ASSERT_EQ(skit_policy_approving_flag(buf, sizeof(buf), p, &s, 1, &r),
	          SKIT_ENOTFOUND);
	ASSERT_STR(buf, "");
	skit_policy_free(p);
	skit_allowed_tools_free(rs);
}

/*
 * One meaning for shell patterns (docs/permissions.md): the policy below
 * allows git, ls, find, tar, env, xargs, cat and rsync with ":*" and the
 * exact line "make test"; it denies rm and curl anywhere in a line. Each
 * command line is allowed (A), asked about (Q) or denied (D).
 */
static void test_policy__shell_table(void)
{
	static const char *const allow[] = {
		"Bash(git:*)",  "Bash(ls:*)",  "Bash(find:*)",
		"Bash(tar:*)",  "Bash(env:*)", "Bash(xargs:*)",
		"Bash(cat:*)",  "Bash(rsync:*)", "Bash(make test)",
		"Bash(ssh:*)",
	};
	static const struct {
		const char *cmd;
		skit_verdict want;
	} lines[] = {
		/* one simple command: pre-approved */
		{ "git status", A },
		{ "git log --oneline -5", A },
		{ "  git\tdiff HEAD~1 ", A },
		{ "ls -la src", A },
		{ "find . -name '*.c'", A },
		{ "tar -tzf x.tgz", A },
		{ "cat README.md", A },
		{ "make test", A },
		{ "make  test", A },
		{ "git commit -m 'fix the build'", A },
		{ "git add -u", A },
		/* not one simple command: asked */
		{ "git status; ls", Q },
		{ "git status && ls", Q },
		{ "git status || ls", Q },
		{ "git log | head", Q },
		{ "git fetch &", Q },
		{ "git log $(echo x)", Q },
		{ "git log `echo x`", Q },
		{ "(git status)", Q },
		{ "{ git status; }", Q },
		{ "if true; then git status; fi", Q },
		{ "git status\nls", Q },
		{ "git status > out.txt", Q },
		{ "git commit -m 'a; b'", Q },
		{ "make test -j4", Q },
		{ "/usr/bin/git status", Q },
		/* options that run other code: asked */
		{ "git -c alias.x=!id x", Q },
		{ "git -c core.pager=id log", Q },
		{ "git --config-env=core.editor=ED commit", Q },
		{ "git -C /tmp/other status", Q },
		{ "git --git-dir=/tmp/x/.git log", Q },
		{ "git fetch --upload-pack='touch x' origin", Q },
		{ "git ls-remote -u 'touch x' origin", Q },
		{ "git archive --exec=x --remote=r HEAD", Q },
		{ "git rebase -x 'make' main", Q },
		{ "git submodule foreach 'echo x'", Q },
		{ "git bisect run ./t.sh", Q },
		{ "git config core.fsmonitor ./x", Q },
		{ "git clone --template=/tmp/t repo", Q },
		{ "git clone -c core.hooksPath=/tmp repo", Q },
		{ "git fetch ext::sh", Q },
		{ "git '-c' alias.x=!id x", Q },
		{ "find . -exec id ;", Q },
		{ "find . -execdir id {} +", Q },
		{ "find . -ok id {} +", Q },
		{ "find . -delete", Q },
		{ "tar -xf a.tar --to-command=id", Q },
		{ "tar -cf a.tar -I 'sh -c id' .", Q },
		{ "tar -cf a.tar --checkpoint-action=exec=id .", Q },
		{ "rsync -e 'sh -c id' a b:", Q },
		{ "rsync -avze ssh a b:", Q },
		{ "ssh -o ProxyCommand=id host", Q },
		{ "env id", Q },
		{ "env FOO=1 git status", Q },
		{ "xargs id", Q },
		/* deny: the command word anywhere */
		{ "rm -f a", D },
		{ "git status; rm -f a", D },
		{ "{ rm -f b; }", D },
		{ "if true; then rm -f c; fi", D },
		{ "! rm -f d", D },
		{ "for f in e; do rm -f $f; done", D },
		{ "while false; do rm x; done", D },
		{ "until true; do rm x; done", D },
		{ "case x in x) rm y;; esac", D },
		{ "(rm -f g)", D },
		{ "echo $(rm -f h)", D },
		{ "echo \"$(rm -f i)\"", D },
		{ "echo `rm -f j`", D },
		{ "X=$(rm k) true", D },
		{ "/bin/rm -f l", D },
		{ "'rm' -f m", D },
		{ "r\\m -f n", D },
		{ "\"r\"m -f o", D },
		{ "FOO=1 rm -f p", D },
		{ "env rm -f q", D },
		{ "sudo -u root rm -f r", D },
		{ "xargs rm < list", D },
		{ "find . -name x -exec rm {} ;", D },
		{ "sh -c 'rm -f s'", D },
		{ "bash -lc \"echo hi; rm -f t\"", D },
		{ "eval 'rm -f u'", D },
		{ "timeout 5 rm -f v", D },
		{ "nice -n 5 rm w", D },
		{ "cat <(rm x)", D },
		{ "git -c alias.x='!rm -rf y' x", D },
		{ "curl https://example.com", D },
		{ "git log && curl x", D },
		{ "$CMD -f z", D },
		{ "2>/dev/null rm -f zz", D },
		/* not a command word: not denied */
		{ "echo rm", Q },
		{ "git rm --cached x", A },
		{ "rmdir x", Q },
		{ "ls rm", A },
	};
	skit_policy *p;
	size_t bad = 0;

	ASSERT_OK(skit_policy_new(&p, NULL));
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(allow); i++)
		ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW, allow[i],
		                          NULL));
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY, "Bash(rm:*)",
	                          NULL));
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY, "Bash(curl:*)",
	                          NULL));
	ASSERT(SKIT_ARRAY_SIZE(lines) >= 40);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(lines); i++) {
		skit_tool_request r = { "shell", lines[i].cmd, NULL };
		skit_decision d;

		ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
		if (d.verdict != lines[i].want) {
			fprintf(stderr, "  row %zu \"%s\": got %d (%s), want %d\n",
			        i + 1, lines[i].cmd, (int)d.verdict, d.reason,
			        (int)lines[i].want);
			bad++;
		}
	}
	ASSERT_EQ(bad, 0);
	skit_policy_free(p);
	/* A line built to be read again and again is refused, quickly. */
	{
		struct skitx_buf b = SKITX_BUF_INIT;
		skit_tool_request r = { "shell", NULL, NULL };
		skit_decision d;

		ASSERT_OK(skit_policy_new(&p, NULL));
		ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_DENY,
		                          "Bash(rm:*)", NULL));
		/* env sh "env sh true sh true ..." sh "env sh true ..." ...:
		 * every script is read once for each shell before it */
		ASSERT_OK(skitx_buf_puts(&b, "env"));
		for (int i = 0; i < 30; i++) {
			ASSERT_OK(skitx_buf_puts(&b, " sh \"env"));
			for (int k = 0; k < 30; k++)
				ASSERT_OK(skitx_buf_puts(&b, " sh true"));
			ASSERT_OK(skitx_buf_puts(&b, "\""));
		}
		r.target = b.ptr;
		ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
		ASSERT_EQ(d.verdict, SKIT_POLICY_DENY);
		skitx_buf_release(&b);
		skit_policy_free(p);
	}
	/* what an "always" answer for a program may cover */
	ASSERT(skit_policy_simple_command("git status -s"));
	ASSERT(!skit_policy_simple_command("git -c alias.x=!id x"));
	ASSERT(!skit_policy_simple_command("git status; id"));
	ASSERT(!skit_policy_simple_command("find . -exec id ;"));
	ASSERT(!skit_policy_simple_command("env id"));
}

/*
 * `cmd` under `levels` nested "env -S": each inner level quotes the one
 * inside it for env (single quotes, \\ and \' escaped), the outermost
 * quotes for sh (double quotes). The caller frees the line.
 */
static char *nested_env_split(int levels, const char *cmd)
{
	struct skitx_buf in = SKITX_BUF_INIT, out = SKITX_BUF_INIT;

	ASSERT_OK(skitx_buf_puts(&in, cmd));
	for (int i = 1; i < levels; i++) {
		skitx_buf_clear(&out);
		ASSERT_OK(skitx_buf_puts(&out, "env -S '"));
		for (const char *c = in.ptr; *c; c++) {
			if (*c == '\\' || *c == '\'')
				ASSERT_OK(skitx_buf_putc(&out, '\\'));
			ASSERT_OK(skitx_buf_putc(&out, *c));
		}
		ASSERT_OK(skitx_buf_putc(&out, '\''));
		skitx_buf_clear(&in);
		ASSERT_OK(skitx_buf_puts(&in, out.ptr));
	}
	skitx_buf_clear(&out);
	ASSERT_OK(skitx_buf_puts(&out, "env -S \""));
	for (const char *c = in.ptr; *c; c++) {
		if (strchr("\\\"$`", *c))
			ASSERT_OK(skitx_buf_putc(&out, '\\'));
		ASSERT_OK(skitx_buf_putc(&out, *c));
	}
	ASSERT_OK(skitx_buf_putc(&out, '"'));
	skitx_buf_release(&in);
	return skitx_buf_detach(&out, NULL);
}

/*
 * env -S (--split-string) splits its argument into words and runs them:
 * the split string is a command like any other, so a deny pattern names
 * the program in it, however the option is spelled, and env's options
 * that take an argument (-u NAME, -C DIR) do not end the search for it.
 * No allow pattern pre-approves it (env runs what it is given).
 */
static void test_policy__env_split_string(void)
{
	static const char *const denied[] = {
		"env -S 'rm -v x'",
		"env -S\"rm -v x\"",
		"env -vS 'rm -v x'",
		"env -ivS'rm -v x'",
		"env --split-string='rm -v x'",
		"env --split-string 'rm -v x'",
		"env --split='rm -v x'",
		"env --s 'rm -v x'",
		"env -u HOME -S 'rm -v x'",
		"env -uHOME -S 'rm -v x'",
		"env --unset HOME -S 'rm -v x'",
		"env -C /tmp -S 'rm -v x'",
		"env --chdir /tmp --split-string 'rm -v x'",
		"/usr/bin/env -S 'rm -v x'",
		"sudo env -S 'rm -v x'",
		"nice -n 5 env -S 'rm -v x'",
		"env -S 'FOO=1 rm -v x'",
		"env -S '-u X -C /tmp rm x'",
		"env -S '-S\"rm x\"'",
		"env -S 'rm\\_-v\\_x'",
		"env -S '\"r\"m x'",
		"env -S 'sh -c \"rm x\"'",
		"env -S '${CMD} x'",
		"env -S \"$CMD\"",
		"env \"$OPTS\" 'rm x'",
		"env -S 'rm' x",
	};
	static const char *const not_denied[] = {
		"env -S 'ls -l'",
		"env -S 'echo hi'",
		"env -S 'ls #rm x'",
		"env -S 'ls \\c rm x'",
		"env -u S 'ls -l'",
		"env -C S 'ls -l'",
		/* FOO=1 ends env's options: "-S" is the program's name */
		"env -i FOO=1 -S 'rm -v x'",
	};
	size_t bad = 0;

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(denied); i++) {
		if (!refuses("Bash(rm:*)", "shell", denied[i])) {
			fprintf(stderr, "  not denied: %s\n", denied[i]);
			bad++;
		}
		if (grants("Bash(env:*)", "shell", denied[i])) {
			fprintf(stderr, "  pre-approved: %s\n", denied[i]);
			bad++;
		}
	}
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(not_denied); i++) {
		if (refuses("Bash(rm:*)", "shell", not_denied[i])) {
			fprintf(stderr, "  denied: %s\n", not_denied[i]);
			bad++;
		}
	}
	ASSERT_EQ(bad, 0);
	/* a runner named by its path is no simple command either */
	ASSERT(!grants("Bash(/usr/bin/env:*)", "shell",
	               "/usr/bin/env -S 'rm -v x'"));
	ASSERT(!skit_policy_simple_command("/usr/bin/env -S 'rm x'"));
	/* a split string nested past the depth limit is refused, though
	 * the innermost command is harmless (checked: GNU env runs it) */
	{
		char *line = nested_env_split(6, "echo deep");

		ASSERT(refuses("Bash(rm:*)", "shell", line));
		skitx_free(line);
		line = nested_env_split(4, "rm -v x");
		ASSERT(refuses("Bash(rm:*)", "shell", line));
		skitx_free(line);
		line = nested_env_split(2, "ls -l");
		ASSERT(!refuses("Bash(rm:*)", "shell", line));
		skitx_free(line);
	}
}

/* The skill a script grant names, and the hint that never widens. */
static void test_policy__script_grants_and_hints(void)
{
	skit_tool_request r = { "run_skill_script", "scripts/probe.sh", "alpha" };
	skit_policy *p;
	skit_decision d;
	char buf[512];

	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf), p, NULL, 0, &r));
	ASSERT_STR(buf, "--allow 'run_skill_script(alpha:scripts/probe.sh)'");
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW,
	                               "run_skill_script(alpha:scripts/"
	                               "probe.sh)",
	                               NULL));
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
	r.target = "scripts/probe.sh --any arg";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
	r.skill = "beta"; /* another skill's script of the same path */
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	r.skill = NULL;
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	r.skill = "alpha";
	r.target = "scripts/other.sh";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	/* a skill-qualified deny holds for that skill only */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY,
	                               "run_skill_script(beta:scripts/x.sh)",
	                               NULL));
	r.skill = "beta";
	r.target = "scripts/x.sh";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_DENY);
	r.skill = "alpha";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	skit_policy_free(p);

	/*
	 * The reproducer: a model-chosen "rm -rf build :*" once gave
	 * --allow 'Bash(rm -rf build :*)', a prefix rule for every
	 * "rm -rf build ...". The hint must cover that call only.
	 */
	ASSERT_OK(skit_policy_new(&p, NULL));
	r.tool = "shell";
	r.skill = NULL;
	r.target = "rm -rf build :*";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf), p, NULL, 0, &r));
	ASSERT_STR(buf, "--yes");
	/* folded blanks inside quotes would name other lines */
	r.target = "echo 'a    b'";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	skit_policy_free(p);

	/*
	 * The fuzzer's two more: a file named "**" once got Write(**),
	 * which allows every path, and a script call with a backtick got
	 * a hint that did not allow it. Neither has a narrow pattern.
	 */
	ASSERT_OK(skit_policy_new(&p, NULL));
	r.tool = "write_file";
	r.target = "**";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	r.target = "out/a?.md";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf), p, NULL, 0, &r));
	ASSERT_STR(buf, "--yes");
	r.tool = "read_file";
	r.target = "docs/*";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	r.tool = "run_skill_script";
	r.skill = "fz";
	r.target = "scripts/x.py `id`";
	ASSERT_EQ(skit_policy_suggest(buf, sizeof(buf), &r, false),
	          SKIT_EINVALID);
	r.target = "scripts/x.py --out a.md";
	ASSERT_OK(skit_policy_suggest(buf, sizeof(buf), &r, false));
	ASSERT_STR(buf, "run_skill_script(fz:scripts/x.py)");
	r.skill = NULL;
	skit_policy_free(p);

	/* Every hint given for these calls grants that call and no other. */
	{
		static const char *const calls[] = {
			"rm -rf build :*", "git status", "ls  -l",
			"echo 'a b'",      "echo a:*",   "make test :*",
			"git log --oneline", "printf '%s' x",
		};
		static const char *const others[] = {
			" x", " :*", "; id", " && id", "x", " -rf /",
		};

		for (size_t i = 0; i < SKIT_ARRAY_SIZE(calls); i++) {
			skit_tool_request c = { "shell", calls[i], NULL };
			skit_policy *q;
			char pat[512];

			ASSERT_OK(skit_policy_new(&p, NULL));
			ASSERT_OK(skit_policy_approving_flag(buf, sizeof(buf),
			                                     p, NULL, 0, &c));
			skit_policy_free(p);
			if (!strcmp(buf, "--yes"))
				continue;
			ASSERT(!strncmp(buf, "--allow '", 9));
			ASSERT_OK(skit_policy_suggest(pat, sizeof(pat), &c,
			                              false));
			ASSERT_OK(skit_policy_new(&q, NULL));
			ASSERT_OK(skit_policy_add_flag(
			        q, SKIT_POLICY_LIST_ALLOW, pat, NULL));
			ASSERT_OK(skit_policy_check(q, NULL, 0, &c, &d, NULL));
			ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
			for (size_t k = 0; k < SKIT_ARRAY_SIZE(others); k++) {
				char other[256];

				snprintf(other, sizeof(other), "%s%s",
				         calls[i], others[k]);
				c.target = other;
				ASSERT_OK(skit_policy_check(q, NULL, 0, &c, &d,
				                            NULL));
				if (d.verdict == SKIT_POLICY_ALLOW)
					HARNESS_FAIL("hint %s grants \"%s\"",
					             pat, other);
			}
			skit_policy_free(q);
		}
	}
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static void test_policy__load_config(void)
{
	const char *top = getenv("SKIT_TEST_DIR");
	skit_tool_request r = { "shell", "git push", NULL };
	char path[1024];
	skit_decision d;
	skit_policy *p;
	skit_error err = { 0 };
	size_t ignored = 9;

	ASSERT(top);
	ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
	snprintf(path, sizeof(path), "%s/config.json", top);
	write_text(path, "{\"roots\": {}, \"permissions\": {"
	                 "\"allow\": [\"Bash(git:*)\"], "
	                 "\"ask\": [\"Bash(git push:*)\"], "
	                 "\"deny\": [\"Bash(rm:*)\"]}}");
	/* Trusted: all three lists. */
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_load_config(p, path, true, &ignored, &err));
	ASSERT_EQ(ignored, 0);
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	r.target = "git status";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
	r.target = "rm -rf x";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_DENY);
	skit_policy_free(p);
	/* A project's config restricts, never grants. */
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_load_config(p, path, false, &ignored, &err));
	ASSERT_EQ(ignored, 1);
	r.target = "git status";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	r.target = "rm -rf x";
	ASSERT_OK(skit_policy_check(p, NULL, 0, &r, &d, NULL));
	ASSERT_EQ(d.verdict, SKIT_POLICY_DENY);
	skit_policy_free(p);

	/* Errors name the file and the entry. */
	ASSERT_OK(skit_policy_new(&p, NULL));
	write_text(path, "{\"permissions\": {\"deny\": [\"Bsh(rm:*)\"]}}");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "config.json: permissions.deny[0]: ");
	ASSERT_CONTAINS(err.message, "unknown tool 'Bsh'");
	write_text(path, "{\"permissions\": {\"allow\": \"Read\"}}");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "must be a list");
	write_text(path, "{\"permissions\": {\"alow\": []}}");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "permissions.alow");
	write_text(path, "{\"permissions\": {\"deny\": [1]}}");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	write_text(path, "{\"permissions\": ");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "config.json:1:");
	write_text(path, "{\"a\": 1, \"a\": 2}");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	write_text(path, "[]");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	snprintf(path, sizeof(path), "%s/nope.json", top);
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_ENOTFOUND);
	ASSERT_EQ(skit_policy_load_config(p, top, true, NULL, &err),
	          SKIT_EUNSAFE);
	skit_policy_free(p);
}

/* "network": true in the user's config turns the network on; in a
 * project's config it does nothing; anything but a boolean is an error. */
static void test_policy__config_network(void)
{
	const char *top = getenv("SKIT_TEST_DIR");
	char path[1024];
	skit_policy *p;
	skit_error err = { 0 };

	ASSERT(top);
	ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
	snprintf(path, sizeof(path), "%s/net.json", top);
	write_text(path, "{\"network\": true}");
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_load_config(p, path, false, NULL, &err));
	ASSERT(!skit_policy_network(p, NULL, 0, NULL));
	ASSERT_OK(skit_policy_load_config(p, path, true, NULL, &err));
	ASSERT(skit_policy_network(p, NULL, 0, NULL));
	write_text(path, "{\"network\": \"yes\"}");
	ASSERT_EQ(skit_policy_load_config(p, path, true, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "\"network\" must be true or false");
	skit_policy_free(p);
}

/* MCP tools: patterns by name, prefix and server; risk from the hint. */
static void test_policy__mcp(void)
{
	skit_allowed_tools *at;
	skit_active_skill sk;
	skit_decision d;
	skit_policy *p;
	skit_error err = { 0 };

	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__fs__read_text", true,
	                                &d, &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
	ASSERT_EQ(d.risk, SKIT_RISK_READ);
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__fs__write", false,
	                                &d, &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	ASSERT_EQ(d.risk, SKIT_RISK_EXECUTE);
	ASSERT_STR(d.reason, "execute call needs approval");
	ASSERT(!skit_policy_offers_mcp(p, NULL, 0, "mcp__fs__write", false,
	                               false));
	ASSERT(skit_policy_offers_mcp(p, NULL, 0, "mcp__fs__write", false,
	                              true));
	ASSERT(skit_policy_offers_mcp(p, NULL, 0, "mcp__fs__read", true,
	                              false));
	ASSERT_EQ(skit_policy_check_mcp(p, NULL, 0, "shell", false, &d, &err),
	          SKIT_ENOTFOUND);

	/* A server-wide allow, a prefix deny: the deny wins. */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW, "mcp__fs",
	                               &err));
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY,
	                               "mcp__fs__write*", &err));
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__fs__move", false, &d,
	                                &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
	ASSERT_STR(d.reason, "pre-approved by --allow 'mcp__fs'");
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__fs__write_file",
	                                true, &d, &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_DENY);
	ASSERT_STR(d.reason, "denied by --deny 'mcp__fs__write*'");
	ASSERT(!skit_policy_offers_mcp(p, NULL, 0, "mcp__fs__write_file", true,
	                               true));
	/* "mcp__fs" is not a prefix of another server's name. */
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__fsx__move", false,
	                                &d, &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ASK);
	/* Non-MCP patterns never cover MCP tools, nor the reverse. */
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY, "Bash",
	                               &err));
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__fs__move", false, &d,
	                                &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);
	skit_policy_free(p);

	/* Grammar: no argument, no stray character. */
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT_EQ(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW, "mcp__fs(x)",
	                          &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "an MCP tool takes no argument");
	ASSERT_EQ(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW, "mcp__fs*x",
	                          &err),
	          SKIT_EINVALID);
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW, "mcp__*", &err));
	ASSERT_OK(skit_policy_check_mcp(p, NULL, 0, "mcp__a-b__c.d", false, &d,
	                                &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_ALLOW);

	/* A skill's allowed-tools gates MCP tools like any other. */
	ASSERT_OK(skit_allowed_tools_parse(&at, "s", "Read mcp__gh__*", &err));
	sk.name = "s";
	sk.tools = at;
	ASSERT_OK(skit_policy_check_mcp(p, &sk, 1, "mcp__fs__x", true, &d,
	                                &err));
	ASSERT_EQ(d.verdict, SKIT_POLICY_DENY);
	ASSERT(!skit_policy_offers_mcp(p, &sk, 1, "mcp__fs__x", true, true));
	ASSERT(skit_policy_offers_mcp(p, &sk, 1, "mcp__gh__x", true, false));
	skit_allowed_tools_free(at);
	skit_policy_free(p);
}

/* The edit and glob tools: their risk, the names that match them, and
 * what is offered. */
static void test_policy__edit_and_glob(void)
{
	skit_allowed_tools *reads;
	skit_active_skill one = { "reader", NULL };
	skit_policy *p;
	skit_risk r;

	ASSERT_OK(skit_tool_risk(&r, "edit_file"));
	ASSERT_EQ(r, SKIT_RISK_WRITE);
	ASSERT_OK(skit_tool_risk(&r, "multi_edit"));
	ASSERT_EQ(r, SKIT_RISK_WRITE);
	ASSERT_OK(skit_tool_risk(&r, "MultiEdit"));
	ASSERT_EQ(r, SKIT_RISK_WRITE);
	ASSERT_OK(skit_tool_risk(&r, "glob"));
	ASSERT_EQ(r, SKIT_RISK_READ);
	/* Edit, MultiEdit and Write all mean "changes a file" */
	ASSERT(refuses("Edit(src/**)", "edit_file", "src/a.c"));
	ASSERT(refuses("Edit(src/**)", "multi_edit", "src/a.c"));
	ASSERT(refuses("MultiEdit(src/**)", "multi_edit", "src/a.c"));
	ASSERT(refuses("MultiEdit(src/**)", "edit_file", "src/a.c"));
	ASSERT(refuses("MultiEdit", "write_file", "x"));
	ASSERT(refuses("Write(src/**)", "multi_edit", "src/a.c"));
	ASSERT(!refuses("Edit(src/**)", "edit_file", "docs/a.md"));
	ASSERT(grants("Edit(out/**)", "edit_file", "out/r.md"));
	ASSERT(grants("Write(out/**)", "multi_edit", "out/r.md"));
	ASSERT(!grants("Write(out/**)", "edit_file", "out/../src/a.c"));
	/* skit's own names match only their tool */
	ASSERT(refuses("edit_file", "edit_file", "x"));
	ASSERT(!refuses("edit_file", "multi_edit", "x"));
	ASSERT(!refuses("edit_file", "write_file", "x"));
	/* glob is a read: Read and Glob cover it, Grep does not */
	ASSERT(refuses("Read(secrets/**)", "glob", "secrets/k"));
	ASSERT(refuses("Glob(secrets/**)", "glob", "secrets"));
	ASSERT(!refuses("Grep(secrets/**)", "glob", "secrets"));
	ASSERT(!refuses("Edit", "glob", "x"));
	ASSERT(!refuses("Read", "edit_file", "x"));
	ASSERT_EQ(verdict(SKIT_POLICY_LIST_ALLOW, "Edit", "edit_file",
	                  "a/../../x"),
	          D);

	ASSERT_OK(skit_allowed_tools_parse(&reads, "reader", "Read", NULL));
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT(skit_policy_offers(p, NULL, 0, "glob", false));
	ASSERT(!skit_policy_offers(p, NULL, 0, "edit_file", false));
	ASSERT(skit_policy_offers(p, NULL, 0, "multi_edit", true));
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_ALLOW, "MultiEdit",
	                               NULL));
	ASSERT(skit_policy_offers(p, NULL, 0, "edit_file", false));
	ASSERT(skit_policy_offers(p, NULL, 0, "multi_edit", false));
	/* a skill that names only Read: glob, not the edits */
	one.tools = reads;
	ASSERT(skit_policy_offers(p, &one, 1, "glob", false));
	ASSERT(!skit_policy_offers(p, &one, 1, "edit_file", true));
	ASSERT_OK(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY, "Glob", NULL));
	ASSERT(!skit_policy_offers(p, NULL, 0, "glob", true));
	skit_policy_free(p);
	skit_allowed_tools_free(reads);
}

/* ask_user: Claude Code's AskUserQuestion names it; like the skill tools
 * a skill's allowed-tools never hides it, and it needs no approval. */
static void test_policy__ask_user(void)
{
	skit_allowed_tools *reads, *asks;
	skit_active_skill one = { "reader", NULL };
	skit_policy *p;
	skit_risk r;

	ASSERT_OK(skit_tool_risk(&r, "ask_user"));
	ASSERT_EQ(r, SKIT_RISK_READ);
	ASSERT_OK(skit_tool_risk(&r, "AskUserQuestion"));
	ASSERT_EQ(r, SKIT_RISK_READ);
	ASSERT_OK(skit_allowed_tools_parse(&asks, "asker", "AskUserQuestion Read",
	                                   NULL));
	ASSERT_EQ(skit_allowed_tools_count(asks), 2);
	ASSERT_OK(skit_allowed_tools_parse(&reads, "reader", "Read", NULL));
	ASSERT_OK(skit_policy_new(&p, NULL));
	ASSERT(skit_policy_offers(p, NULL, 0, "ask_user", false));
	one.tools = reads;
	ASSERT(skit_policy_offers(p, &one, 1, "ask_user", false));
	one.tools = asks;
	ASSERT(skit_policy_offers(p, &one, 1, "ask_user", false));
	skit_policy_free(p);
	skit_allowed_tools_free(reads);
	skit_allowed_tools_free(asks);
}

/*
 * The names other agents (and Claude Code's newer tools) give skit's
 * tools: each covers what its Claude Code name covers; Skill and the plan
 * names are accepted where they grant and refused where a rule of them
 * could never act (skit never gates use_skill or update_plan).
 */
static void test_policy__other_names(void)
{
	static const char *const open_names[] = {
		"Skill", "Skill(pdf)", "skill", "TodoWrite", "TaskCreate",
		"TaskList", "todowrite", "write_todos", "use_skill",
		"update_plan", "AskUserQuestion", "question", "ask_user",
	};
	skit_allowed_tools *at;
	const skit_diag *diags;
	skit_policy *p;
	skit_error err;
	size_t n;

	ASSERT(grants("bash(git:*)", "shell", "git status"));
	ASSERT(!grants("bash(git:*)", "shell", "rm -rf x"));
	ASSERT(grants("run_shell_command(make:*)", "shell", "make test"));
	ASSERT(refuses("PowerShell(rm:*)", "shell", "rm x"));
	ASSERT(refuses("exec", "shell", "ls"));
	ASSERT(refuses("bash_tool", "run_skill_script", "python3 x.py"));
	ASSERT(refuses("view(secrets/**)", "read_file", "secrets/k"));
	ASSERT(refuses("view(secrets/**)", "list_dir", "secrets"));
	ASSERT(!refuses("view", "write_file", "x"));
	ASSERT(refuses("read(secrets/**)", "grep", "secrets/k"));
	ASSERT(refuses("edit(src/**)", "edit_file", "src/a.c"));
	ASSERT(refuses("str_replace(src/**)", "multi_edit", "src/a.c"));
	ASSERT(refuses("create", "write_file", "x"));
	ASSERT(refuses("create_file", "edit_file", "x"));
	ASSERT(!refuses("create", "read_file", "x"));
	ASSERT(refuses("rg(secrets/**)", "grep", "secrets/x"));
	ASSERT(!refuses("rg", "glob", "x"));
	ASSERT(refuses("file_search", "glob", "x"));
	ASSERT(refuses("list_directory", "list_dir", "x"));
	ASSERT(refuses("webfetch(domain:example.com)", "web_fetch",
	               "https://example.com/a"));
	ASSERT(!refuses("webfetch(domain:example.com)", "web_fetch",
	                "https://example.org/a"));
	ASSERT(refuses("google_web_search", "web_search", "q"));

	/* a rule that could never act is refused, with the reason */
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(open_names); i++) {
		ASSERT_OK(skit_policy_new(&p, NULL));
		ASSERT_EQ(skit_policy_add(p, SKIT_POLICY_LIST_DENY,
		                          open_names[i], &err),
		          SKIT_EINVALID);
		ASSERT_CONTAINS(err.message, "never gates");
		ASSERT_CONTAINS(err.message, "a deny rule");
		ASSERT_EQ(skit_policy_add(p, SKIT_POLICY_LIST_ASK,
		                          open_names[i], &err),
		          SKIT_EINVALID);
		ASSERT_CONTAINS(err.message, "an ask rule");
		ASSERT_EQ(skit_policy_add_flag(p, SKIT_POLICY_LIST_DENY,
		                               open_names[i], &err),
		          SKIT_EINVALID);
		ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW,
		                          open_names[i], &err));
		skit_policy_free(p);
	}

	/* a skill written for Claude Code or another agent: no warning */
	ASSERT_OK(skit_allowed_tools_parse(
	        &at, "x",
	        "Skill(peer-review), TodoWrite, TaskCreate, TaskUpdate, "
	        "bash(git:*), view, create_file, rg, PowerShell, exec, "
	        "ask_user_question, webfetch",
	        &err));
	ASSERT_EQ(skit_allowed_tools_count(at), 12);
	diags = skit_allowed_tools_diags(at, &n);
	ASSERT_EQ(n, 0);
	(void)diags;
	skit_allowed_tools_free(at);

	/* Cursor's, Cline's and Windsurf's names, Claude Code's older
	 * SlashCommand, a plugin's skill and NAME(*) of a tool without an
	 * argument */
	ASSERT_OK(skit_allowed_tools_parse(
	        &at, "x",
	        "Shell(git:*), execute_command, run_command, view_file, "
	        "write_to_file, replace_in_file, replace_file_content, "
	        "list_files, search_files, codebase_search, find_by_name, "
	        "read_url_content, search_web, ask_followup_question, "
	        "ask_question, SlashCommand(/graphql:*), Skill(lgtm:analyze), "
	        "WebSearch(*), Task(*)",
	        &err));
	ASSERT_EQ(skit_allowed_tools_count(at), 19);
	diags = skit_allowed_tools_diags(at, &n);
	ASSERT_EQ(n, 0);
	skit_allowed_tools_free(at);
	/* quoted items without brackets (one YAML text): unquoted */
	ASSERT_OK(skit_allowed_tools_parse(
	        &at, "x", "\"Read\", 'Bash(git log:*)', \"Nope\"", &err));
	ASSERT_EQ(skit_allowed_tools_count(at), 3);
	ASSERT_STR(skit_allowed_tools_pattern(at, 1), "Bash(git log:*)");
	diags = skit_allowed_tools_diags(at, &n);
	ASSERT_EQ(n, 1);
	ASSERT_CONTAINS(diags[0].message, "'Nope'");
	skit_allowed_tools_free(at);
	ASSERT(refuses("Shell(rm:*)", "shell", "rm x"));
	ASSERT(refuses("run_command(rm:*)", "shell", "rm x"));
	ASSERT(refuses("write_to_file(src/**)", "write_file", "src/a.c"));
	ASSERT(refuses("replace_in_file(src/**)", "edit_file", "src/a.c"));
	ASSERT_EQ(skit_allowed_tools_parse(&at, "x", "Skill(:analyze)", &err),
	          SKIT_EINVALID);
	ASSERT_EQ(skit_allowed_tools_parse(&at, "x", "Skill(a b:c)", &err),
	          SKIT_EINVALID);
	ASSERT_EQ(skit_allowed_tools_parse(&at, "x", "WebSearch(x)", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "'WebSearch' takes no argument");

	/* what the coverage bench counts as offered */
	ASSERT(skit__policy_tool_offered("Glob", 4, 0));
	ASSERT(skit__policy_tool_offered("TaskList", 8, 0));
	ASSERT(skit__policy_tool_offered("SendMessage", 11, 0));
	ASSERT(skit__policy_tool_offered("ToolSearch", 10, 0));
	ASSERT(skit__policy_tool_offered("semantic_search", 15, 0));
	ASSERT(skit__policy_tool_offered("ListMcpResourcesTool", 20, 0));
	ASSERT(skit__policy_tool_offered("ReadMcpResourceTool", 19, 0));
	ASSERT(skit__policy_tool_offered("mcp__s__t", 9, 0));
	ASSERT(!skit__policy_tool_offered("WebSearch", 9, 0));
	ASSERT(skit__policy_tool_offered("WebSearch", 9, SKIT__OFFER_SEARCH));
	ASSERT(!skit__policy_tool_offered("WebSearch", 9, SKIT__OFFER_LSP));
	ASSERT(!skit__policy_tool_offered("google_web_search", 17, 0));
	/* the code intelligence names need a language server */
	ASSERT(!skit__policy_tool_offered("LSP", 3, SKIT__OFFER_SEARCH));
	ASSERT(skit__policy_tool_offered("LSP", 3, SKIT__OFFER_LSP));
	ASSERT(!skit__policy_tool_offered("get_errors", 10, 0));
	ASSERT(skit__policy_tool_offered("list_code_usages", 16,
	                                 SKIT__OFFER_LSP));
	ASSERT(!skit__policy_tool_offered("NotebookEdit", 12, ~0u));
	ASSERT(!skit__policy_tool_offered("Workflow", 8, ~0u));
	ASSERT(!skit__policy_tool_offered("mcp (read-only)", 15, ~0u));
	ASSERT(!skit__policy_tool_offered("mcp__", 5, ~0u));
}

/* A skill's disallowed-tools: denied while it is active, whatever else
 * allows; no allowed-tools list declared by it alone. */
static void test_policy__disallowed(void)
{
	skit_tool_request rm = { "shell", "rm -rf build", NULL };
	skit_tool_request ls = { "shell", "ls", NULL };
	skit_tool_request rd = { "read_file", "a.md", NULL };
	skit_tool_request web = { "web_fetch", "https://example.com/", NULL };
	skit_active_skill one = { "careful", NULL };
	skit_allowed_tools *at;
	const skit_diag *diags;
	skit_decision d;
	skit_policy *p;
	skit_error err;
	char **dom;
	size_t n;

	ASSERT_OK(skit_allowed_tools_new(&at, "careful", NULL));
	ASSERT_OK(skit_allowed_tools_disallow(at, "Bash(rm:*), WebFetch", &err));
	ASSERT_EQ(skit_allowed_tools_count(at), 0);
	ASSERT_EQ(skit_allowed_tools_disallowed_count(at), 2);
	one.tools = at;
	ASSERT_OK(skit_policy_new(&p, NULL));
	skit_policy_set_yes(p, true);
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW, "Bash", NULL));
	ASSERT_OK(skit_policy_check(p, &one, 1, &rm, &d, NULL));
	ASSERT_EQ(d.verdict, D);
	ASSERT_STR(d.reason, "denied by the disallowed-tools of skill "
	                     "'careful' ('Bash(rm:*)')");
	/* no allowed-tools declared: the rest as without the skill */
	ASSERT_OK(skit_policy_check(p, &one, 1, &ls, &d, NULL));
	ASSERT_EQ(d.verdict, A);
	ASSERT_OK(skit_policy_check(p, &one, 1, &rd, &d, NULL));
	ASSERT_EQ(d.verdict, A);
	ASSERT_OK(skit_policy_check(p, &one, 1, &web, &d, NULL));
	ASSERT_EQ(d.verdict, D);
	/* without the skill, rm runs */
	ASSERT_OK(skit_policy_check(p, NULL, 0, &rm, &d, NULL));
	ASSERT_EQ(d.verdict, A);
	/* offered: shell (only rm is refused), not web_fetch (bare) */
	ASSERT(skit_policy_offers(p, &one, 1, "shell", false));
	ASSERT(!skit_policy_offers(p, &one, 1, "web_fetch", true));
	ASSERT(skit_policy_offers(p, NULL, 0, "web_fetch", true));
	/* scripts: a bare disallowed WebFetch is no web for any program */
	ASSERT_OK(skit_policy_add(p, SKIT_POLICY_LIST_ALLOW,
	                          "WebFetch(domain:example.com)", NULL));
	ASSERT_OK(skit_policy_web_domains(&dom, p, NULL, 0, NULL, NULL));
	ASSERT(dom && !strcmp(dom[0], "example.com"));
	skit_policy_web_domains_free(dom);
	ASSERT_OK(skit_policy_web_domains(&dom, p, &one, 1, NULL, NULL));
	ASSERT(!dom);
	skit_policy_free(p);

	/* with allowed-tools too: both hold */
	skit_allowed_tools_free(at);
	ASSERT_OK(skit_allowed_tools_parse(&at, "careful", "Read Bash(git:*)",
	                                   NULL));
	ASSERT_OK(skit_allowed_tools_disallow(at, "Bash(git push:*)", NULL));
	one.tools = at;
	ASSERT_OK(skit_policy_new(&p, NULL));
	skit_policy_set_yes(p, true);
	{
		skit_tool_request st = { "shell", "git status", NULL };
		skit_tool_request push = { "shell", "git push origin", NULL };

		ASSERT_OK(skit_policy_check(p, &one, 1, &st, &d, NULL));
		ASSERT_EQ(d.verdict, A);
		ASSERT_OK(skit_policy_check(p, &one, 1, &push, &d, NULL));
		ASSERT_EQ(d.verdict, D);
		ASSERT_CONTAINS(d.reason, "disallowed-tools");
		ASSERT_OK(skit_policy_check(p, &one, 1, &ls, &d, NULL));
		ASSERT_EQ(d.verdict, D);
		ASSERT_CONTAINS(d.reason, "not in the allowed-tools");
	}
	skit_policy_free(p);

	/* a malformed value leaves the list as it was; unknown names warn */
	ASSERT_EQ(skit_allowed_tools_disallow(at, "Frob Read(a", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "disallowed-tools: unclosed '('");
	ASSERT_EQ(skit_allowed_tools_disallowed_count(at), 1);
	diags = skit_allowed_tools_diags(at, &n);
	ASSERT_EQ(n, 0);
	ASSERT_OK(skit_allowed_tools_disallow(at, "Frob", &err));
	diags = skit_allowed_tools_diags(at, &n);
	ASSERT_EQ(n, 1);
	ASSERT_STR(diags[0].code, "disallowed-tools-unknown-tool");
	ASSERT_STR(diags[0].message, "Unknown tool 'Frob' in disallowed-tools");
	skit_allowed_tools_free(at);
}

TEST_MAIN(
	TEST(test_policy__table)
	TEST(test_policy__doc_table_in_sync)
	TEST(test_policy__grammar_errors)
	TEST(test_policy__caps)
	TEST(test_policy__allowed_tools_parse)
	TEST(test_policy__commands)
	TEST(test_policy__paths)
	TEST(test_policy__domains)
	TEST(test_policy__risk_and_unknown)
	TEST(test_policy__long_reason_is_cut)
	TEST(test_policy__out_of_memory)
	TEST(test_policy__offers)
	TEST(test_policy__network) TEST(test_policy__web_domains)
	TEST(test_policy__suggest)
	TEST(test_policy__approving_flag)
	TEST(test_policy__shell_table)
	TEST(test_policy__env_split_string)
	TEST(test_policy__script_grants_and_hints)
	TEST(test_policy__load_config)
	TEST(test_policy__config_network)
	TEST(test_policy__mcp)
	TEST(test_policy__edit_and_glob)
	TEST(test_policy__ask_user)
	TEST(test_policy__other_names)
	TEST(test_policy__disallowed))
/* clang-format on */
