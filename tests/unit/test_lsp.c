/* SPDX-License-Identifier: MIT */
/*
 * test_lsp.c - the lsp tool against a real language server (pylsp, from
 * Debian's python3-pylsp, with pyflakes) and small fake servers written
 * here: definition, references, hover, the outline, diagnostics, an edit
 * seen between two calls, UTF-16 columns, workspace symbols and the call
 * hierarchy (fake), paths that leave the project refused, no server for
 * a file type, a server that is not installed, exits at once, sends an
 * oversized message or never answers, cancel, and the agent's gate: a
 * Read() deny and a skill's allowed-tools decide a call, and no tool is
 * offered without servers.
 *
 * Most calls go straight to the provider (the agent's own, with its
 * context); the gate's cases run a replay cassette through the agent.
 * pylsp is a test dependency (scripts/install-deps.sh): without it the
 * pylsp cases fail.
 */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/skit.h"
#include "lib/tools/lsp.h"
#include "lib/tools/tool_provider.h"
#include "util/buf.h"
#include "util/fs.h"

static char top[PATH_MAX], proj[PATH_MAX], logpath[PATH_MAX];
static volatile int cancel_flag;

static void fmt(char *buf, size_t cap, const char *f, ...) SKIT_PRINTF(3, 4);
static void fmt(char *buf, size_t cap, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, cap, f, ap);
	va_end(ap);
	ASSERT(n >= 0 && (size_t)n < cap);
}

/* Write `text` to `rel` under the project (folders made). */
static void put(const char *rel, const char *text, int mode)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	fmt(path, sizeof(path), "%s/%s", proj, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(path, 0700));
	*slash = '/';
	f = fopen(path, "w");
	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
	ASSERT_OK(chmod(path, (mode_t)mode));
}

static bool have_pylsp(void)
{
	return access("/usr/bin/pylsp", X_OK) == 0 ||
	       system("command -v pylsp >/dev/null 2>&1") == 0;
}

/* The fixtures: a small Python project, and a fake server. */
static void build(const char *name)
{
	const char *t = getenv("SKIT_TEST_DIR");
	char cmd[PATH_MAX + 64];

	fmt(top, sizeof(top), "%s/%s", t ? t : "/tmp/skit-test-lsp", name);
	fmt(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ASSERT_OK(system(cmd));
	fmt(proj, sizeof(proj), "%s/proj", top);
	fmt(logpath, sizeof(logpath), "%s/req.jsonl", top);
	ASSERT_OK(skitx_fs_mkdir_p(proj, 0700));
	put("shapes.py",
	    "class Greeter:\n"
	    "    def __init__(self, name):\n"
	    "        self.name = name\n"
	    "\n"
	    "    def greet(self):\n"
	    "        \"\"\"Say hello to the named person.\"\"\"\n"
	    "        return \"hello \" + self.name\n"
	    "\n"
	    "\n"
	    "def make(name):\n"
	    "    return Greeter(name)\n",
	    0644);
	put("main.py",
	    "from shapes import make\n"
	    "\n"
	    "g = make(\"ada\")\n"
	    "print(g.greet())\n",
	    0644);
	put("bad.py",
	    "import os\n"
	    "\n"
	    "def broken(:\n"
	    "    return 1\n",
	    0644);
	put("unused.py", "import os\n", 0644);
	put("secret.py", "TOKEN = 1\n", 0644);
	put("w.fake",
	    "class Widget:\n"
	    "    pass\n"
	    "x = \"\xF0\x9F\x98\x80\xF0\x9F\x98\x80\" + Widget\n",
	    0644);
	put("../outside.py", "def elsewhere():\n    pass\n", 0644);
	fmt(cmd, sizeof(cmd), "ln -s ../outside.py '%s/link.py'", proj);
	ASSERT_OK(system(cmd));
	/* A fake server: answers initialize after asking the client two
	 * things, then workspace/symbol and the call hierarchy; echoes the
	 * position it gets in a URI ("pos-LINE-CHAR.fake"). Mode "hang"
	 * never answers workspace/symbol. */
	put("../fake.py",
	    "import sys, json\n"
	    "mode = sys.argv[1]\n"
	    "inp, out = sys.stdin.buffer, sys.stdout.buffer\n"
	    "def read():\n"
	    "    n = None\n"
	    "    while True:\n"
	    "        line = inp.readline()\n"
	    "        if not line:\n"
	    "            sys.exit(0)\n"
	    "        line = line.strip()\n"
	    "        if not line:\n"
	    "            break\n"
	    "        k, v = line.split(b':', 1)\n"
	    "        if k.lower() == b'content-length':\n"
	    "            n = int(v)\n"
	    "    return json.loads(inp.read(n))\n"
	    "def send(m):\n"
	    "    b = json.dumps(m).encode()\n"
	    "    out.write(b'Content-Length: %d\\r\\n\\r\\n' % len(b) + b)\n"
	    "    out.flush()\n"
	    "def rng(l, c):\n"
	    "    return {'start': {'line': l, 'character': c},\n"
	    "            'end': {'line': l, 'character': c + 1}}\n"
	    "def item(name, uri, l, c):\n"
	    "    return {'name': name, 'kind': 12, 'uri': uri,\n"
	    "            'range': rng(l, c), 'selectionRange': rng(l, c)}\n"
	    "ok = False\n"
	    "while True:\n"
	    "    m = read()\n"
	    "    meth, mid = m.get('method'), m.get('id')\n"
	    "    p = m.get('params') or {}\n"
	    "    if meth == 'initialize':\n"
	    "        root = p['rootUri']\n"
	    "        send({'jsonrpc': '2.0', 'id': 'c1', 'method':\n"
	    "              'workspace/configuration',\n"
	    "              'params': {'items': [{}, {}]}})\n"
	    "        ok = read().get('result') == [None, None]\n"
	    "        send({'jsonrpc': '2.0', 'id': 'c2', 'method': 'odd/x'})\n"
	    "        ok = ok and read()['error']['code'] == -32601\n"
	    "        send({'jsonrpc': '2.0', 'method': 'window/logMessage',\n"
	    "              'params': {'type': 3, 'message': 'hi'}})\n"
	    "        caps = {'workspaceSymbolProvider': True,\n"
	    "                'callHierarchyProvider': True,\n"
	    "                'definitionProvider': True}\n"
	    "        send({'jsonrpc': '2.0', 'id': mid,\n"
	    "              'result': {'capabilities': caps}})\n"
	    "    elif meth == 'workspace/symbol':\n"
	    "        if mode == 'hang':\n"
	    "            continue\n"
	    "        w = root + '/w.fake'\n"
	    "        if p['query'] == 'many':\n"
	    "            res = [{'name': 'W%d' % i, 'kind': 5, 'location':\n"
	    "                    {'uri': w, 'range': rng(0, 6)}}\n"
	    "                   for i in range(250)]\n"
	    "        elif p['query'] == 'none':\n"
	    "            res = []\n"
	    "        else:\n"
	    "            res = [{'name': 'Widget', 'kind': 5,\n"
	    "                    'containerName': 'CONFIG_OK' if ok else 'NO',\n"
	    "                    'location': {'uri': w, 'range': rng(0, 6)}},\n"
	    "                   {'name': 'far', 'kind': 12, 'location':\n"
	    "                    {'uri': 'file:///nonexistent/far.fake',\n"
	    "                     'range': rng(4, 0)}}]\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'result': res})\n"
	    "    elif meth == 'textDocument/definition':\n"
	    "        pos = p['position']\n"
	    "        u = root + '/pos-%d-%d.fake' % (pos['line'],\n"
	    "                                        pos['character'])\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'result': [\n"
	    "              {'uri': p['textDocument']['uri'],\n"
	    "               'range': rng(pos['line'], pos['character'])},\n"
	    "              {'uri': u, 'range': rng(0, 0)}]})\n"
	    "    elif meth == 'textDocument/prepareCallHierarchy':\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'result':\n"
	    "              [item('run', root + '/w.fake', 0, 6)]})\n"
	    "    elif meth == 'callHierarchy/incomingCalls':\n"
	    "        assert p['item']['name'] == 'run'\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'result': [\n"
	    "              {'from': item('caller', root + '/w.fake', 2, 0),\n"
	    "               'fromRanges': [rng(2, 0)]}]})\n"
	    "    elif meth == 'callHierarchy/outgoingCalls':\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'result': []})\n"
	    "    elif meth == 'shutdown':\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'result': None})\n"
	    "    elif meth == 'exit':\n"
	    "        sys.exit(0)\n"
	    "    elif mid is not None:\n"
	    "        send({'jsonrpc': '2.0', 'id': mid, 'error':\n"
	    "              {'code': -32601, 'message': 'no'}})\n",
	    0644);
	/* Says it will send 64 MiB. */
	put("../big.sh",
	    "#!/bin/sh\n"
	    "printf 'Content-Length: 67108864\\r\\n\\r\\n{'\n"
	    "exec sleep 30\n",
	    0755);
	/* A header block that never ends. */
	put("../long.sh",
	    "#!/bin/sh\n"
	    "i=0\n"
	    "while [ $i -lt 400 ]; do printf 'X-Junk: "
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\r\\n'; i=$((i+1)); done\n"
	    "exec sleep 30\n",
	    0755);
}

/* ---- an agent --------------------------------------------------------- */

struct fx {
	skit_registry *reg;
	skit_model *model;
	skit_policy *policy;
	skit_agent *a;
};

static const char *python(void)
{
	return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3"
	                                             : "python3";
}

static char fake_path[PATH_MAX], big_path[PATH_MAX], long_path[PATH_MAX];
static const char *pylsp_argv[] = { "pylsp", NULL };
static const char *py_ext[] = { ".py", ".pyi", NULL };
static const char *fake_argv[] = { NULL, fake_path, "ok", NULL };
static const char *hang_argv[] = { NULL, fake_path, "hang", NULL };
static const char *fake_ext[] = { ".fake", NULL };

/* build(name), with the fake server (fake.py in the test's folder) run
 * by python3 as fake_argv says. */
static void build_fake(const char *name)
{
	build(name);
	fmt(fake_path, sizeof(fake_path), "%s/fake.py", top);
	fake_argv[0] = python();
}

/* An agent on the project with `servers` and a cassette of `lines`
 * (NULL: one text answer); `deny` a --deny pattern or NULL. */
static void open_fx(struct fx *f, const skit_lsp_server *servers, size_t n,
                    const char *lines, const char *deny, const char *skills)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[PATH_MAX + 16], cas[PATH_MAX], work[PATH_MAX];
	skit_error err = { 0 };
	FILE *c;

	memset(f, 0, sizeof(*f));
	fmt(cas, sizeof(cas), "%s/cassette.jsonl", top);
	c = fopen(cas, "w");
	ASSERT(c);
	fputs(lines ? lines : "{\"text\": \"done\"}\n", c);
	ASSERT_OK(fclose(c));
	fmt(work, sizeof(work), "%s/work", top);
	ASSERT_OK(skitx_fs_mkdir_p(work, 0700));
	unlink(logpath);
	ASSERT_OK(skit_registry_new(&f->reg, &err));
	if (skills)
		ASSERT_OK(skit_registry_add_root(f->reg, "project", skills,
		                                 &err));
	ASSERT_OK(skit_registry_scan(f->reg, &err));
	fmt(spec, sizeof(spec), "replay:%s", cas);
	mo.spec = spec;
	mo.request_log = logpath;
	ASSERT_OK(skit_model_new(&f->model, &mo, &err));
	ASSERT_OK(skit_policy_new(&f->policy, &err));
	if (deny)
		ASSERT_OK(skit_policy_add_flag(f->policy, SKIT_POLICY_LIST_DENY,
		                               deny, &err));
	ao.registry = f->reg;
	ao.model = f->model;
	ao.policy = f->policy;
	ao.workdir = work;
	ao.project_dir = proj;
	ao.file_tools = true;
	ao.project_instructions = false;
	ao.cancel = &cancel_flag;
	ao.lsp_servers = servers;
	ao.nlsp_servers = n;
	if (skit_agent_new(&f->a, &ao, &err))
		HARNESS_FAIL("skit_agent_new: %s", err.message);
}

static void close_fx(struct fx *f)
{
	skit_agent_free(f->a);
	skit_policy_free(f->policy);
	skit_model_free(f->model);
	skit_registry_free(f->reg);
}

/* Call the lsp tool with `json` straight through the provider: its
 * result text (static) and whether it is an error; the status in *rc. */
static const char *call(struct fx *f, const char *json, bool *is_error, int *rc)
{
	static struct skitx_buf out = SKITX_BUF_INIT;
	void *self = skit__agent_provider(f->a, &skit__lsp_tools);
	json_t *args = json_loads(json, 0, NULL);
	skit_error err = { 0 };

	ASSERT(self && args);
	skitx_buf_release(&out);
	*is_error = false;
	*rc = skit__lsp_tools.call(self, skit__agent_tool_ctx(f->a), "lsp",
	                           args, &out, is_error, &err);
	json_decref(args);
	return out.ptr;
}

/* As call(), expecting status 0 and `want_error`. */
static const char *ask(struct fx *f, const char *json, bool want_error)
{
	bool is_error;
	int rc;
	const char *r = call(f, json, &is_error, &rc);

	if (rc || is_error != want_error)
		HARNESS_FAIL("%s: rc %d, is_error %d: %s", json, rc, is_error,
		             r);
	return r;
}

static skit_lsp_server python_server(void)
{
	skit_lsp_server s = { "python", pylsp_argv, py_ext, "python" };

	return s;
}

/* ---- pylsp ------------------------------------------------------------ */

static void test_lsp__pylsp_operations(void)
{
	skit_lsp_server s;
	struct fx f;
	const char *r;

	/* scripts/install-deps.sh installs it: its absence is a failure */
	if (!have_pylsp())
		HARNESS_FAIL("pylsp is not installed (python3-pylsp): run "
		             "scripts/install-deps.sh");
	build("pylsp");
	s = python_server();
	open_fx(&f, &s, 1, NULL, NULL, NULL);
	/* make("ada") in main.py leads to its def in shapes.py */
	r = ask(&f,
	        "{\"operation\":\"goToDefinition\",\"filePath\":\"main.py\","
	        "\"line\":3,\"character\":5}",
	        false);
	ASSERT_CONTAINS(r, "shapes.py:10:5: def make(name):");
	/* an absolute path inside the project works too */
	{
		char json[PATH_MAX + 200];

		fmt(json, sizeof(json),
		    "{\"operation\":\"findReferences\",\"filePath\":"
		    "\"%s/shapes.py\",\"line\":10,\"character\":6}",
		    proj);
		r = ask(&f, json, false);
	}
	ASSERT_CONTAINS(r, "shapes.py:10:5: def make(name):");
	ASSERT_CONTAINS(r, "main.py:1:20: from shapes import make");
	ASSERT_CONTAINS(r, "main.py:3:5: g = make(\"ada\")");
	r = ask(&f,
	        "{\"operation\":\"hover\",\"filePath\":\"shapes.py\","
	        "\"line\":5,\"character\":10}",
	        false);
	ASSERT_CONTAINS(r, "Say hello to the named person.");
	r = ask(&f,
	        "{\"operation\":\"documentSymbol\",\"filePath\":"
	        "\"shapes.py\"}",
	        false);
	ASSERT_CONTAINS(r, "Class Greeter (line 1)");
	ASSERT_CONTAINS(r, "Function make (line 10)");
	/* pylsp 1.7 has no workspace symbols: said, not guessed */
	r = ask(&f,
	        "{\"operation\":\"workspaceSymbol\",\"filePath\":"
	        "\"shapes.py\",\"query\":\"Greeter\"}",
	        true);
	ASSERT_CONTAINS(r, "the python language server (pylsp) does not "
	                   "offer workspaceSymbol");
	/* nothing at a blank line */
	r = ask(&f,
	        "{\"operation\":\"goToDefinition\",\"filePath\":\"shapes.py\","
	        "\"line\":4,\"character\":1}",
	        true);
	ASSERT_CONTAINS(r, "no definition found at shapes.py:4:1");
	/* out of range */
	r = ask(&f,
	        "{\"operation\":\"hover\",\"filePath\":\"shapes.py\","
	        "\"line\":99,\"character\":1}",
	        true);
	ASSERT_CONTAINS(r, "shapes.py:99:1: line out of range");
	r = ask(&f,
	        "{\"operation\":\"hover\",\"filePath\":\"main.py\","
	        "\"line\":3,\"character\":40}",
	        true);
	ASSERT_CONTAINS(r, "character out of range (line 3 has 15 characters)");
	r = ask(&f, "{\"operation\":\"rename\",\"filePath\":\"main.py\"}",
	        true);
	ASSERT_CONTAINS(r, "unknown operation 'rename'; use one of: "
	                   "goToDefinition, findReferences, hover,");
	ASSERT_CONTAINS(r, "outgoingCalls, diagnostics");
	r = ask(&f, "{\"operation\":\"hover\",\"filePath\":\"main.py\"}", true);
	ASSERT_CONTAINS(r, "hover needs \"line\" and \"character\"");

	/* diagnostics: pyflakes' syntax error and unused import */
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"bad.py\"}",
	        false);
	ASSERT_CONTAINS(r, "bad.py:3:");
	ASSERT_CONTAINS(r, ": error: ");
	ASSERT_CONTAINS(r, "[pyflakes]");
	r = ask(&f,
	        "{\"operation\":\"diagnostics\",\"filePath\":\"unused.py\"}",
	        false);
	ASSERT_CONTAINS(r, "unused.py:1:1: warning: 'os' imported but unused "
	                   "[pyflakes]");
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"main.py\"}",
	        false);
	ASSERT_CONTAINS(r, "no errors or warnings in main.py");

	/* an edit between two calls is seen (didChange) */
	put("unused.py", "import os\nprint(os.sep)\n", 0644);
	r = ask(&f,
	        "{\"operation\":\"diagnostics\",\"filePath\":\"unused.py\"}",
	        false);
	ASSERT_CONTAINS(r, "no errors or warnings in unused.py");
	put("shapes.py", "def renamed_fn(x):\n    return x\n", 0644);
	r = ask(&f,
	        "{\"operation\":\"documentSymbol\",\"filePath\":"
	        "\"shapes.py\"}",
	        false);
	ASSERT_CONTAINS(r, "Function renamed_fn (line 1)");
	ASSERT(!strstr(r, "Greeter"));
	close_fx(&f);
}

/* ---- a fake server: what pylsp lacks, and the protocol ---------------- */

static void test_lsp__fake_server(void)
{
	skit_lsp_server s = { "fake", fake_argv, fake_ext, NULL };
	struct fx f;
	const char *r;

	build_fake("fake");
	open_fx(&f, &s, 1, NULL, NULL, NULL);
	/* workspace symbols; the client answered the server's requests
	 * (CONFIG_OK); a location outside the project is absolute and
	 * its text is not read */
	r = ask(&f,
	        "{\"operation\":\"workspaceSymbol\",\"filePath\":\"w.fake\","
	        "\"query\":\"Widget\"}",
	        false);
	ASSERT_CONTAINS(r, "Class Widget  w.fake:1:7: class Widget: (in "
	                   "CONFIG_OK)");
	ASSERT_CONTAINS(r, "Function far  /nonexistent/far.fake:5:1\n");
	r = ask(&f,
	        "{\"operation\":\"workspaceSymbol\",\"filePath\":\"w.fake\","
	        "\"query\":\"many\"}",
	        false);
	ASSERT_CONTAINS(r, "Class W199  w.fake:1:7");
	ASSERT(!strstr(r, "W200"));
	ASSERT_CONTAINS(r, "[50 more not shown]");
	r = ask(&f,
	        "{\"operation\":\"workspaceSymbol\",\"filePath\":\"w.fake\","
	        "\"query\":\"none\"}",
	        true);
	ASSERT_CONTAINS(r, "no workspace symbols match \"none\"");
	/* UTF-16: W of Widget on line 3 is character 12, after two
	 * characters outside the BMP: LSP's character 13 */
	r = ask(&f,
	        "{\"operation\":\"goToDefinition\",\"filePath\":\"w.fake\","
	        "\"line\":3,\"character\":12}",
	        false);
	ASSERT_CONTAINS(r, "w.fake:3:12: x = ");
	ASSERT_CONTAINS(r, "pos-2-13.fake:1:1");
	/* the call hierarchy */
	r = ask(&f,
	        "{\"operation\":\"prepareCallHierarchy\",\"filePath\":"
	        "\"w.fake\",\"line\":1,\"character\":7}",
	        false);
	ASSERT_CONTAINS(r, "Function run  w.fake:1:7: class Widget:");
	r = ask(&f,
	        "{\"operation\":\"incomingCalls\",\"filePath\":\"w.fake\","
	        "\"line\":1,\"character\":7}",
	        false);
	ASSERT_CONTAINS(r, "Function caller  w.fake:3:1");
	r = ask(&f,
	        "{\"operation\":\"outgoingCalls\",\"filePath\":\"w.fake\","
	        "\"line\":1,\"character\":7}",
	        true);
	ASSERT_CONTAINS(r, "no outgoing calls found at w.fake:1:7");
	r = ask(&f,
	        "{\"operation\":\"hover\",\"filePath\":\"w.fake\","
	        "\"line\":1,\"character\":7}",
	        true);
	ASSERT_CONTAINS(r, "the fake language server");
	ASSERT_CONTAINS(r, "does not offer hover");
	close_fx(&f);
}

/* ---- paths ------------------------------------------------------------ */

static void test_lsp__paths(void)
{
	skit_lsp_server s = { "fake", fake_argv, fake_ext, NULL };
	skit_lsp_server two[2] = { { "fake", fake_argv, fake_ext, NULL },
		                   { "python", pylsp_argv, py_ext, NULL } };
	char json[PATH_MAX + 200];
	struct fx f;
	const char *r;

	build_fake("paths");
	(void)s;
	open_fx(&f, two, 2, NULL, NULL, NULL);
	r = ask(&f,
	        "{\"operation\":\"documentSymbol\",\"filePath\":"
	        "\"../outside.py\"}",
	        true);
	ASSERT_CONTAINS(r, "../outside.py: '..' is refused");
	r = ask(&f,
	        "{\"operation\":\"documentSymbol\",\"filePath\":"
	        "\"link.py\"}",
	        true);
	ASSERT_CONTAINS(r, "link.py: ");
	ASSERT(!strstr(r, "elsewhere"));
	fmt(json, sizeof(json),
	    "{\"operation\":\"documentSymbol\",\"filePath\":"
	    "\"%s/../outside.py\"}",
	    proj);
	r = ask(&f, json, true);
	ASSERT_CONTAINS(r, "outside the project; refused");
	r = ask(&f,
	        "{\"operation\":\"documentSymbol\",\"filePath\":"
	        "\"lib/x.rb\"}",
	        true);
	ASSERT_CONTAINS(r, "no language server for .rb files (lib/x.rb); "
	                   "the servers take: .fake (fake), .py .pyi "
	                   "(python)");
	r = ask(&f, "{\"operation\":\"documentSymbol\"}", true);
	ASSERT_CONTAINS(r, "missing \"filePath\"");
	close_fx(&f);
}

/* ---- servers that fail ------------------------------------------------ */

static void test_lsp__broken_servers(void)
{
	static const char *missing_argv[] = { "skit-no-such-lsp", NULL };
	static const char *exit_argv[] = { "sh", "-c", "exit 3", NULL };
	static const char *silent_argv[] = { "sh", "-c", "exec cat >/dev/null",
		                             NULL };
	static const char *big_argv[] = { big_path, NULL };
	static const char *long_argv[] = { long_path, NULL };
	static const char *e_missing[] = { ".a", NULL },
	                  *e_exit[] = { ".b", NULL },
	                  *e_silent[] = { ".c", NULL },
	                  *e_big[] = { ".d", NULL }, *e_long[] = { ".e", NULL };
	skit_lsp_server v[5] = {
		{ "missing", missing_argv, e_missing, NULL },
		{ "quitter", exit_argv, e_exit, NULL },
		{ "silent", silent_argv, e_silent, NULL },
		{ "big", big_argv, e_big, NULL },
		{ "long", long_argv, e_long, NULL },
	};
	const char *files[] = { "x.a", "x.b", "x.c", "x.d", "x.e" };
	struct fx f;
	const char *r;
	void *self;

	build("broken");
	fmt(big_path, sizeof(big_path), "%s/big.sh", top);
	fmt(long_path, sizeof(long_path), "%s/long.sh", top);
	for (size_t i = 0; i < 5; i++)
		put(files[i], "x\n", 0644);
	open_fx(&f, v, 5, NULL, NULL, NULL);
	self = skit__agent_provider(f.a, &skit__lsp_tools);
	skit__lsp_set_timeouts(self, 400, 200);
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.a\"}",
	        true);
	ASSERT_CONTAINS(r, "the missing language server (skit-no-such-lsp) is "
	                   "not installed: No such file or directory");
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.a\"}",
	        true);
	ASSERT_CONTAINS(r, "is not running: not installed");
	/* exits at once: tried, tried once more, then left alone */
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.b\"}",
	        true);
	ASSERT_CONTAINS(r, "the quitter language server (sh) failed to start: "
	                   "it exited (exit status 3)");
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.b\"}",
	        true);
	ASSERT_CONTAINS(r, "failed to start: it exited (exit status 3)");
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.b\"}",
	        true);
	ASSERT_CONTAINS(r, "the quitter language server (sh) is not running: "
	                   "it exited (exit status 3) (it is not started "
	                   "again in this session)");
	/* never answers: the timeout */
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.c\"}",
	        true);
	ASSERT_CONTAINS(r, "the silent language server (sh) failed to start: "
	                   "no answer to initialize in time");
	/* an oversized Content-Length, a header that never ends */
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.d\"}",
	        true);
	ASSERT_CONTAINS(r, "failed to start: it sent a message of 67108864 "
	                   "bytes, over 8 MiB");
	r = ask(&f, "{\"operation\":\"diagnostics\",\"filePath\":\"x.e\"}",
	        true);
	ASSERT_CONTAINS(r, "failed to start: it sent a header over 8 KiB");
	close_fx(&f);
}

static void test_lsp__timeout_and_cancel(void)
{
	skit_lsp_server s = { "fake", hang_argv, fake_ext, NULL };
	struct fx f;
	const char *r;
	bool is_error;
	int rc;

	build("hang");
	fmt(fake_path, sizeof(fake_path), "%s/fake.py", top);
	hang_argv[0] = python();
	open_fx(&f, &s, 1, NULL, NULL, NULL);
	skit__lsp_set_timeouts(skit__agent_provider(f.a, &skit__lsp_tools), 500,
	                       0);
	r = ask(&f,
	        "{\"operation\":\"workspaceSymbol\",\"filePath\":\"w.fake\","
	        "\"query\":\"Widget\"}",
	        true);
	ASSERT_CONTAINS(r, "the fake language server (");
	ASSERT_CONTAINS(r, "gave no answer to workspaceSymbol within 500 ms");
	/* the server is kept: it still answers what it answers */
	r = ask(&f,
	        "{\"operation\":\"prepareCallHierarchy\",\"filePath\":"
	        "\"w.fake\",\"line\":1,\"character\":7}",
	        false);
	ASSERT_CONTAINS(r, "Function run");
	/* the agent's cancel flag ends the wait and the task */
	cancel_flag = 1;
	r = call(&f,
	         "{\"operation\":\"workspaceSymbol\",\"filePath\":\"w.fake\","
	         "\"query\":\"Widget\"}",
	         &is_error, &rc);
	cancel_flag = 0;
	ASSERT_EQ(rc, SKIT_ECANCELED);
	close_fx(&f);
}

/* ---- the agent's gate ------------------------------------------------- */

static char *read_log(void)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	if (skitx_fs_read_file(logpath, &b, 8 << 20) < 0)
		skitx_buf_clear(&b);
	return skitx_buf_detach(&b, NULL);
}

/* Run the agent with `server` (NULL: none) over the cassette `lines`,
 * with `deny` and the skills root `skills` as open_fx() takes them; the
 * request log's text (freed with skitx_free()). */
static char *run_agent(const skit_lsp_server *server, const char *lines,
                       const char *deny, const char *skills)
{
	skit_error err = { 0 };
	struct fx f;

	open_fx(&f, server, server ? 1 : 0, lines, deny, skills);
	if (skit_agent_send(f.a, "go", NULL, &err))
		HARNESS_FAIL("send: %s", err.message);
	close_fx(&f);
	return read_log();
}

static void mkskill(const char *root, const char *name, const char *tools)
{
	char rel[PATH_MAX], text[1024];

	fmt(rel, sizeof(rel), "%s/%s/SKILL.md", root, name);
	fmt(text, sizeof(text),
	    "---\nname: %s\ndescription: A test skill that reads code.\n"
	    "allowed-tools: %s\n---\nRead the code.\n",
	    name, tools);
	put(rel, text, 0644);
}

static const char call_secret[] =
        "{\"tool_calls\": [{\"id\": \"l1\", \"name\": \"lsp\", "
        "\"arguments\": {\"operation\": \"workspaceSymbol\", "
        "\"filePath\": \"secret.fake\", \"query\": \"Widget\"}}]}\n"
        "{\"text\": \"done\"}\n";

static void test_lsp__gate(void)
{
	skit_lsp_server s = { "fake", fake_argv, fake_ext, NULL };
	char skills[PATH_MAX], *log;

	build_fake("gate");
	put("secret.fake", "class Widget:\n    pass\n", 0644);
	/* Read(secret.fake) denied: the lsp call on it is refused too */
	log = run_agent(&s, call_secret, "Read(secret.fake)", NULL);
	ASSERT_CONTAINS(log, "\"name\":\"lsp\"");
	ASSERT_CONTAINS(log, "denied by --deny 'Read(secret.fake)'");
	ASSERT(!strstr(log, "Class Widget"));
	skitx_free(log);
	/* allowed otherwise */
	log = run_agent(&s, call_secret, NULL, NULL);
	ASSERT_CONTAINS(log, "Class Widget  w.fake:1:7");
	skitx_free(log);
	/* A skill that lists LSP allows it; one that lists only
	 * Bash(echo:*) does not. */
	fmt(skills, sizeof(skills), "%s/skills", proj);
	mkskill("skills", "code-reader", "LSP");
	mkskill("skills", "echoer", "Bash(echo:*)");
	log = run_agent(
	        &s,
	        "{\"tool_calls\": [{\"id\": \"u1\", \"name\": \"use_skill\", "
	        "\"arguments\": {\"name\": \"code-reader\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"l1\", \"name\": \"lsp\", "
	        "\"arguments\": {\"operation\": \"workspaceSymbol\", "
	        "\"filePath\": \"w.fake\", \"query\": \"Widget\"}}]}\n"
	        "{\"text\": \"done\"}\n",
	        NULL, skills);
	ASSERT_CONTAINS(log, "Class Widget  w.fake:1:7");
	skitx_free(log);
	log = run_agent(
	        &s,
	        "{\"tool_calls\": [{\"id\": \"u1\", \"name\": \"use_skill\", "
	        "\"arguments\": {\"name\": \"echoer\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"l1\", \"name\": \"lsp\", "
	        "\"arguments\": {\"operation\": \"workspaceSymbol\", "
	        "\"filePath\": \"w.fake\", \"query\": \"Widget\"}}]}\n"
	        "{\"text\": \"done\"}\n",
	        NULL, skills);
	/* hidden from the model while the skill is active, and refused */
	ASSERT_CONTAINS(log, "\"text\":\"tool 'lsp' is not available now\"");
	ASSERT(!strstr(log, "Class Widget"));
	skitx_free(log);
}

/* A subagent has the servers too (its own, started from the parent's
 * settings), under the same rules. */
static void test_lsp__subagent(void)
{
	skit_lsp_server s = { "fake", fake_argv, fake_ext, NULL };
	char *log;

	build_fake("subagent");
	log = run_agent(
	        &s,
	        "{\"tool_calls\": [{\"id\": \"t1\", \"name\": \"task\", "
	        "\"arguments\": {\"description\": \"find Widget\", "
	        "\"prompt\": \"SUB-PROMPT where is Widget?\"}}]}\n"
	        "{\"expect\": {\"contains\": [\"SUB-PROMPT\"]}, "
	        "\"tool_calls\": [{\"id\": \"l1\", \"name\": \"lsp\", "
	        "\"arguments\": {\"operation\": \"workspaceSymbol\", "
	        "\"filePath\": \"w.fake\", \"query\": \"Widget\"}}]}\n"
	        "{\"expect\": {\"contains\": [\"Class Widget\"]}, "
	        "\"text\": \"SUB-FOUND w.fake:1:7\"}\n"
	        "{\"expect\": {\"contains\": [\"SUB-FOUND\"]}, "
	        "\"text\": \"done\"}\n",
	        NULL, NULL);
	ASSERT_CONTAINS(log, "Class Widget  w.fake:1:7");
	ASSERT_CONTAINS(log, "SUB-FOUND w.fake:1:7");
	skitx_free(log);
}

/* A deny on a file keeps its lines out of another file's answer. */
static void test_lsp__deny_quotes(void)
{
	skit_lsp_server s = { "fake", fake_argv, fake_ext, NULL };
	char *log;

	build_fake("quotes");
	put("other.fake", "x\n", 0644);
	log = run_agent(
	        &s,
	        "{\"tool_calls\": [{\"id\": \"l1\", \"name\": \"lsp\", "
	        "\"arguments\": {\"operation\": \"workspaceSymbol\", "
	        "\"filePath\": \"other.fake\", \"query\": \"Widget\"}}]}\n"
	        "{\"text\": \"done\"}\n",
	        "Read(w.fake)", NULL);
	ASSERT_CONTAINS(log, "Class Widget  w.fake:1:7 (in CONFIG_OK)");
	ASSERT(!strstr(log, "class Widget:"));
	skitx_free(log);
}

/* A subagent narrowed to LSP(other.fake) may not read w.fake: an answer
 * naming a place in w.fake does not quote its line. */
static void test_lsp__narrowed_quotes(void)
{
	skit_lsp_server s = { "fake", fake_argv, fake_ext, NULL };
	char *log;

	build_fake("narrowquotes");
	put("other.fake", "x\n", 0644);
	log = run_agent(
	        &s,
	        "{\"tool_calls\": [{\"id\": \"t1\", \"name\": \"task\", "
	        "\"arguments\": {\"description\": \"find Widget\", "
	        "\"prompt\": \"SUB-PROMPT\", \"tools\": [\"LSP(other.fake)\"]}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"r1\", \"name\": \"read_file\", "
	        "\"arguments\": {\"path\": \"w.fake\"}}, "
	        "{\"id\": \"l1\", \"name\": \"lsp\", "
	        "\"arguments\": {\"operation\": \"workspaceSymbol\", "
	        "\"filePath\": \"other.fake\", \"query\": \"Widget\"}}]}\n"
	        "{\"text\": \"SUB-DONE\"}\n"
	        "{\"text\": \"done\"}\n",
	        NULL, NULL);
	ASSERT_CONTAINS(log, "Class Widget  w.fake:1:7");
	ASSERT(!strstr(log, "w.fake:1:7: class Widget:"));
	skitx_free(log);
}

static void test_lsp__not_offered(void)
{
	char *log;

	build("none");
	log = run_agent(NULL, call_secret, NULL, NULL);
	ASSERT(!strstr(log, "\"name\":\"lsp\",\"description\""));
	ASSERT_CONTAINS(log, "tool 'lsp' is not available now: no language "
	                     "server is configured (docs/lsp.md)");
	skitx_free(log);
}

static void test_lsp__bad_options(void)
{
	static const char *argv1[] = { "x", NULL }, *noargv[] = { NULL };
	static const char *ext1[] = { ".x", NULL }, *badext[] = { "x", NULL };
	skit_lsp_server bad[] = {
		{ "bad name", argv1, ext1, NULL },
		{ "ok", noargv, ext1, NULL },
		{ "ok", argv1, badext, NULL },
		{ "ok", argv1, NULL, NULL },
	};
	const char *want[] = { "name 'bad name' must be", "has no command",
		               "extension 'x' must start with '.'",
		               "serves no file extension" };
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_registry *reg;
	skit_model *model;
	skit_agent *a = NULL;
	skit_error err = { 0 };
	char spec[PATH_MAX + 16];

	build("opts");
	put("../c.jsonl", "{\"text\": \"done\"}\n", 0644);
	fmt(spec, sizeof(spec), "replay:%s/c.jsonl", top);
	ASSERT_OK(skit_registry_new(&reg, &err));
	mo.spec = spec;
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ao.registry = reg;
	ao.model = model;
	ao.project_dir = proj;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(bad); i++) {
		ao.lsp_servers = &bad[i];
		ao.nlsp_servers = 1;
		ASSERT_EQ(skit_agent_new(&a, &ao, &err), SKIT_EUSAGE);
		ASSERT_CONTAINS(err.message, want[i]);
	}
	/* options of version 5 have no servers: never read */
	ao.version = 5;
	ao.lsp_servers = bad;
	ASSERT_OK(skit_agent_new(&a, &ao, &err));
	skit_agent_free(a);
	skit_model_free(model);
	skit_registry_free(reg);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_lsp__pylsp_operations)
	TEST(test_lsp__fake_server)
	TEST(test_lsp__paths)
	TEST(test_lsp__broken_servers)
	TEST(test_lsp__timeout_and_cancel)
	TEST(test_lsp__gate)
	TEST(test_lsp__subagent)
	TEST(test_lsp__deny_quotes)
	TEST(test_lsp__narrowed_quotes)
	TEST(test_lsp__not_offered)
	TEST(test_lsp__bad_options))
/* clang-format on */
