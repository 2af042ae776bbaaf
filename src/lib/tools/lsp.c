/* SPDX-License-Identifier: MIT */
/*
 * lsp.c - the `lsp` tool: code intelligence (definitions, references,
 * hover, symbols, call hierarchy, diagnostics) from the language servers
 * of skit_agent_options.lsp_servers, as one tool provider (lsp.h,
 * docs/lsp.md). The transport is lsp_rpc.c.
 *
 * A server starts on the first call for a file with one of its
 * extensions (initialize, initialized), and each file is opened in it
 * (didOpen) before its first request and changed (didChange, the whole
 * text) when its content differs from what the server last saw, so an
 * edit by edit_file is seen. The file's text is read by skit, beneath the
 * project's descriptor without following links (the file tools' rule),
 * at most MAX_FILE bytes: the server is only told about files inside the
 * project. A server that cannot start, breaks the protocol or exits gives
 * an error result naming it and its command; one that died is started
 * again once per agent. Results are text for the model: paths relative
 * to the project, 1-based line:column positions (columns in characters,
 * where LSP counts UTF-16 units), the source line of each location.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/tools/lsp.h"
#include "lib/tools/tools_int.h"
#include "util/path.h"
#include "util/utf8.h"

#define MAX_NAME        64
#define MAX_FILE        (4 * 1024 * 1024) /* bytes of a file sent */
#define MAX_SHOWN       200               /* locations or symbols listed */
#define LINE_SHOWN      200               /* bytes of a source line shown */
#define MSG_SHOWN       500               /* bytes of a diagnostic's message */
#define QUERY_MAX       512               /* bytes of a workspaceSymbol query */
#define MAX_DEPTH       16                /* levels of a symbol outline */
#define REQUEST_TIMEOUT 30000L
#define DIAGS_TIMEOUT   5000L
#define MAX_STARTS      2    /* a start, and one restart after a death */
#define MAX_DOCS        1024 /* documents opened in one server */

/* ---- the operations --------------------------------------------------- */

enum op {
	OP_DEFINITION,
	OP_REFERENCES,
	OP_HOVER,
	OP_DOC_SYMBOL,
	OP_WS_SYMBOL,
	OP_IMPLEMENTATION,
	OP_PREPARE_CALLS,
	OP_INCOMING,
	OP_OUTGOING,
	OP_DIAGNOSTICS,
};

static const struct {
	const char *name;
	const char *method;     /* the request; NULL: none (diagnostics) */
	const char *capability; /* what the server must offer */
	const char *what;       /* for "no ... found" */
	bool position;          /* needs line and character */
} ops[] = {
	{ "goToDefinition", "textDocument/definition", "definitionProvider",
	  "definition", true },
	{ "findReferences", "textDocument/references", "referencesProvider",
	  "references", true },
	{ "hover", "textDocument/hover", "hoverProvider", "hover information",
	  true },
	{ "documentSymbol", "textDocument/documentSymbol",
	  "documentSymbolProvider", "symbols", false },
	{ "workspaceSymbol", "workspace/symbol", "workspaceSymbolProvider",
	  "workspace symbols", false },
	{ "goToImplementation", "textDocument/implementation",
	  "implementationProvider", "implementation", true },
	{ "prepareCallHierarchy", "textDocument/prepareCallHierarchy",
	  "callHierarchyProvider", "call hierarchy item", true },
	{ "incomingCalls", "callHierarchy/incomingCalls",
	  "callHierarchyProvider", "incoming calls", true },
	{ "outgoingCalls", "callHierarchy/outgoingCalls",
	  "callHierarchyProvider", "outgoing calls", true },
	{ "diagnostics", NULL, NULL, "diagnostics", false },
};

static const char *const kinds[] = {
	"Symbol",   "File",          "Module",     "Namespace", "Package",
	"Class",    "Method",        "Property",   "Field",     "Constructor",
	"Enum",     "Interface",     "Function",   "Variable",  "Constant",
	"String",   "Number",        "Boolean",    "Array",     "Object",
	"Key",      "Null",          "EnumMember", "Struct",    "Event",
	"Operator", "TypeParameter",
};

static const char *kind_name(json_t *k)
{
	json_int_t v = json_integer_value(k);

	return v > 0 && v < (json_int_t)SKIT_ARRAY_SIZE(kinds) ? kinds[v]
	                                                       : kinds[0];
}

/* clang-format off */
static const skit_tool_schema lsp_schema = {
	"lsp",
	"Code intelligence from a language server for a file of the "
	"project: goToDefinition, findReferences, hover (type and docs), "
	"documentSymbol (the file's outline), workspaceSymbol (find a "
	"symbol by name), goToImplementation, prepareCallHierarchy, "
	"incomingCalls, outgoingCalls (of the function at the position), "
	"diagnostics (the file's errors and warnings). line and character "
	"are 1-based, as an editor shows them.",
	"{\"type\":\"object\",\"properties\":{"
	"\"operation\":{\"type\":\"string\",\"enum\":[\"goToDefinition\","
	"\"findReferences\",\"hover\",\"documentSymbol\",\"workspaceSymbol\","
	"\"goToImplementation\",\"prepareCallHierarchy\",\"incomingCalls\","
	"\"outgoingCalls\",\"diagnostics\"]},"
	"\"filePath\":{\"type\":\"string\",\"description\":\"the file, "
	"relative to the project (or absolute inside it)\"},"
	"\"line\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	"\"1-based line of the symbol\"},"
	"\"character\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
	"\"1-based column of the symbol, in characters\"},"
	"\"query\":{\"type\":\"string\",\"description\":\"the name to look "
	"for (workspaceSymbol)\"}},"
	"\"required\":[\"operation\",\"filePath\"],"
	"\"additionalProperties\":false}"
};
/* clang-format on */

/* ---- state ------------------------------------------------------------ */

/* A document the server has open. */
struct doc {
	char *rel, *uri;
	int version;
	char digest[65];      /* of the text the server has */
	long long diag_after; /* diagnostics numbered above are for it */
};

struct lsrv {
	char *name, *lang;
	char **argv, **ext; /* NULL-ended */
	struct skit__lsp_conn conn;
	bool up; /* initialized and running */
	unsigned int starts;
	char *dead; /* why it is not running, for the errors */
	json_t *caps;
	struct doc *docs;
	size_t ndocs;
};

struct skit__lsp {
	struct lsrv *v;
	size_t n;
	char *project; /* absolute, as the agent has it */
	char *real;    /* its real path (servers may resolve links) */
	char *root_uri;
	long request_ms, diags_ms;
	struct skit__tool_ctx *ctx; /* of the last call, for the audit */
	skit_lsp_server *view;      /* the definitions, for subagents */
};

/* The one source text a call looks at, with its lines found on demand. */
struct text {
	char *rel; /* NULL: none held */
	struct skitx_buf b;
};

/* ---- small helpers ---------------------------------------------------- */

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > MAX_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      s[i] == '_'))
			return false;
	return true;
}

/* "file://" and `path` with every byte but unreserved ones and '/'
 * percent-encoded. NULL on out-of-memory. */
static char *path_uri(const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int rc = skitx_buf_puts(&b, "file://");

	for (const unsigned char *p = (const unsigned char *)path; !rc && *p;
	     p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			rc = skitx_buf_putc(&b, (char)*p);
		else
			rc = skitx_buf_printf(&b, "%%%02X", *p);
	}
	if (rc) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The absolute path of a file:// URI (percent-decoded) into `out`; false
 * for another scheme, a host, a NUL or a path that is not absolute. */
static bool uri_path(const char *uri, struct skitx_buf *out)
{
	const char *p;

	skitx_buf_clear(out);
	if (!uri || strncmp(uri, "file://", 7))
		return false;
	p = uri + 7;
	if (!strncmp(p, "localhost/", 10))
		p += 9;
	if (*p != '/' || strlen(p) > SKIT__TOOL_PATH_MAX * 3)
		return false;
	for (; *p; p++) {
		char c = *p;

		if (c == '%') {
			int h = hexval(p[1]), l = h < 0 ? -1 : hexval(p[2]);

			if (l < 0 || (!h && !l))
				return false;
			c = (char)(h * 16 + l);
			p += 2;
		}
		if (skitx_buf_putc(out, c))
			return false;
	}
	return true;
}

/* `abs` relative to the project (borrowed from `abs`), or NULL when it is
 * outside. "." for the project itself. */
static const char *project_rel(const struct skit__lsp *l, const char *abs)
{
	const char *roots[2] = { l->project, l->real };

	for (size_t i = 0; i < 2; i++) {
		size_t n = roots[i] ? strlen(roots[i]) : 0;

		if (!n)
			continue;
		if (n == 1 && abs[0] == '/')
			return abs[1] ? abs + 1 : ".";
		if (!strncmp(abs, roots[i], n) && (abs[n] == '/' || !abs[n]))
			return abs[n] ? abs + n + 1 : ".";
	}
	return NULL;
}

/* Line `line0` (0-based) of `text`: its start and length without the
 * line break; false past the last line. */
static bool line_of(const char *text, size_t len, size_t line0,
                    const char **start, size_t *n)
{
	const char *p = text, *end = text + len, *nl;

	for (size_t i = 0; i < line0; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		p = nl + 1;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*start = p;
	*n = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (*n && (*start)[*n - 1] == '\r')
		(*n)--;
	return true;
}

/* The UTF-16 offset of the 1-based character `col` of a line; -1 when
 * the line is shorter (its end, col = length + 1, is allowed). */
static long utf16_of(const char *s, size_t n, long col)
{
	size_t i = 0;
	long u = 0;

	for (long k = 1; k < col; k++) {
		int32_t cp;

		if (i >= n)
			return -1;
		i += skitx_utf8_decode(s + i, n - i, &cp);
		u += cp >= 0x10000 ? 2 : 1;
	}
	return u;
}

/* The 1-based character of UTF-16 offset `u` in a line. */
static long column_of(const char *s, size_t n, long u)
{
	size_t i = 0;
	long col = 1;

	while (u > 0 && i < n) {
		int32_t cp;

		i += skitx_utf8_decode(s + i, n - i, &cp);
		u -= cp >= 0x10000 ? 2 : 1;
		col++;
	}
	return col;
}

/* ---- reading a file of the project ------------------------------------ */

/*
 * Read `rel` beneath the project into t->b (contained: no `..`, no link,
 * a regular file of at most MAX_FILE bytes, UTF-8 text). 0, 1 with an
 * error result in `out` (`why` names the problem), SKIT_ENOMEM.
 */
static int read_text(struct skit__tool_ctx *c, const char *rel, struct text *t,
                     struct skitx_buf *out, bool *is_error)
{
	struct stat st;
	int fd, rc;

	if (t->rel && !strcmp(t->rel, rel))
		return 0;
	skitx_free(t->rel);
	t->rel = NULL;
	skitx_buf_clear(&t->b);
	if (c->projfd < 0)
		c->projfd = open(c->project_dir,
		                 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->projfd < 0) {
		rc = skit__tool_error(out, is_error,
		                      "the project folder cannot be opened: %s",
		                      strerror(errno));
		return rc ? rc : 1;
	}
	memset(&st, 0, sizeof(st)); /* read below even if fstat() fails */
	fd = skit__open_beneath(c->projfd, rel, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", rel,
		                      skit__open_failure(errno));
		return rc ? rc : 1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
		bool big = !S_ISREG(st.st_mode) ? false : st.st_size > MAX_FILE;

		close(fd);
		rc = skit__tool_error(out, is_error,
		                      big ? "%.200s: over %d MiB; refused"
		                          : "%.200s: not a regular file; "
		                            "refused",
		                      rel, MAX_FILE >> 20);
		return rc ? rc : 1;
	}
	rc = skitx_buf_grow(&t->b, (size_t)st.st_size);
	while (!rc && skitx_buf_len(&t->b) <= MAX_FILE) {
		char chunk[65536];
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		rc = skitx_buf_add(&t->b, chunk, (size_t)r);
	}
	close(fd);
	if (rc)
		return SKIT_ENOMEM;
	if (skitx_buf_len(&t->b) > MAX_FILE) {
		rc = skit__tool_error(out, is_error,
		                      "%.200s: over %d MiB; refused", rel,
		                      MAX_FILE >> 20);
		return rc ? rc : 1;
	}
	if (skitx_utf8_check(t->b.ptr, skitx_buf_len(&t->b), NULL)) {
		rc = skit__tool_error(out, is_error,
		                      "%.200s: not UTF-8 text; refused", rel);
		return rc ? rc : 1;
	}
	t->rel = skitx_strdup(rel);
	return t->rel ? 0 : SKIT_ENOMEM;
}

/* ---- the servers ------------------------------------------------------ */

static void audit_exit(struct skit__lsp *l, struct lsrv *s)
{
	char st[48];

	skit__lsp_status_text(s->conn.status, st, sizeof(st));
	if (l->ctx)
		skit__tool_audit(
		        l->ctx, "lsp_server_exit",
		        json_pack("{s:s, s:s}", "name", s->name, "status", st));
}

static void docs_clear(struct lsrv *s)
{
	for (size_t i = 0; i < s->ndocs; i++) {
		skitx_free(s->docs[i].rel);
		skitx_free(s->docs[i].uri);
	}
	skitx_free(s->docs);
	s->docs = NULL;
	s->ndocs = 0;
}

/* The server went down (found after a call): note why, audit it. */
static void server_down(struct skit__lsp *l, struct lsrv *s, const char *why)
{
	if (!s->up && !s->conn.pid && s->conn.fd < 0 && s->dead)
		return;
	skit__lsp_conn_stop(&s->conn, false);
	s->up = false;
	skitx_free(s->dead);
	s->dead = skitx_strdup(why);
	json_decref(s->caps);
	s->caps = NULL;
	docs_clear(s);
	audit_exit(l, s);
	if (l->ctx)
		skit__tool_trace(l->ctx, SKIT_TRACE_TOOL,
		                 "lsp: the %s language server (%s) stopped: %s",
		                 s->name, s->argv[0], why);
}

static json_t *init_params(const struct skit__lsp *l)
{
	const char *root = l->real ? l->real : l->project;
	const char *base = strrchr(root, '/');

	return json_pack(
	        "{s:I, s:s, s:s, s:{s:s}, s:[{s:s, s:s}], s:{"
	        "s:{s:{s:b, s:b}, s:{s:[s,s]}, s:{s:b}, s:{s:b}, s:{}, "
	        "s:{s:b}, s:{}, s:{s:b}},"
	        "s:{s:{}, s:b, s:b}, s:{s:b}}}",
	        "processId", (json_int_t)getpid(), "rootUri", l->root_uri,
	        "rootPath", root, "clientInfo", "name", "skit",
	        "workspaceFolders", "uri", l->root_uri, "name",
	        base && base[1] ? base + 1 : root, "capabilities",
	        "textDocument", "synchronization", "dynamicRegistration", 0,
	        "didSave", 0, "hover", "contentFormat", "markdown", "plaintext",
	        "definition", "linkSupport", 1, "implementation", "linkSupport",
	        1, "references", "documentSymbol",
	        "hierarchicalDocumentSymbolSupport", 1, "callHierarchy",
	        "publishDiagnostics", "versionSupport", 1, "workspace",
	        "symbol", "configuration", 1, "workspaceFolders", 1, "window",
	        "workDoneProgress", 1);
}

/* Start `s` and initialize it. 0, 1 with an error result, SKIT_ENOMEM or
 * SKIT_ECANCELED (with err). */
static int server_start(struct skit__lsp *l, struct skit__tool_ctx *c,
                        struct lsrv *s, struct skitx_buf *out, bool *is_error,
                        skit_error *err)
{
	json_t *params, *resp = NULL, *caps;
	skit_error e = { 0 };
	int rc;

	s->starts++;
	memset(&s->conn, 0, sizeof(s->conn));
	s->conn.fd = -1;
	rc = skit__lsp_conn_start(&s->conn, (const char *const *)s->argv,
	                          l->project, &e);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc) {
		char why[300];

		snprintf(why, sizeof(why), "%s", e.message);
		skit__lsp_conn_stop(&s->conn, false);
		skitx_free(s->dead);
		s->dead = NULL;
		if (rc == SKIT_ENOTFOUND) {
			s->starts = MAX_STARTS; /* it will not appear */
			s->dead = skitx_strdup("not installed");
			rc = skit__tool_error(
			        out, is_error,
			        "the %s language server (%.200s) is not "
			        "installed: %s (install it, or set \"lsp\" in "
			        "the user config; docs/lsp.md)",
			        s->name, s->argv[0], why);
		} else {
			s->dead = skitx_strdup(why);
			rc = skit__tool_error(out, is_error,
			                      "the %s language server (%.200s) "
			                      "cannot start: %s",
			                      s->name, s->argv[0], why);
		}
		return rc ? rc : 1;
	}
	s->conn.cancel = c->cancel;
	skit__tool_audit(c, "lsp_server_start",
	                 json_pack("{s:s, s:s, s:I}", "name", s->name, "argv0",
	                           s->argv[0], "pid", (json_int_t)s->conn.pid));
	skit__tool_trace(c, SKIT_TRACE_TOOL,
	                 "lsp: started the %s language server (%s, pid %ld)",
	                 s->name, s->argv[0], (long)s->conn.pid);
	params = init_params(l);
	if (!params)
		return skit__error_oom(err);
	rc = skit__lsp_conn_request(&s->conn, "initialize", params,
	                            l->request_ms, &resp, &e);
	json_decref(params);
	caps = json_object_get(json_object_get(resp, "result"), "capabilities");
	if (!rc && !json_is_object(caps))
		rc = skit__error_set(&e, SKIT_EIO, 0,
		                     "its answer to initialize has no "
		                     "capabilities");
	if (!rc) {
		json_t *none = json_object();

		rc = none ? skit__lsp_conn_notify(&s->conn, "initialized", none,
		                                  &e)
		          : SKIT_ENOMEM;
		json_decref(none);
	}
	if (rc == SKIT_ENOMEM) {
		json_decref(resp);
		return skit__error_oom(err);
	}
	if (rc) {
		char why[300];

		snprintf(why, sizeof(why), "%s",
		         rc == SKIT_ETIMEOUT ? "no answer to initialize in time"
		                             : e.message);
		json_decref(resp);
		server_down(l, s, why);
		if (rc == SKIT_ECANCELED)
			return skit__error_set(err, SKIT_ECANCELED, 0,
			                       "canceled");
		rc = skit__tool_error(out, is_error,
		                      "the %s language server (%.200s) failed "
		                      "to start: %s",
		                      s->name, s->argv[0], why);
		return rc ? rc : 1;
	}
	s->caps = json_incref(caps);
	json_decref(resp);
	s->up = true;
	skitx_free(s->dead);
	s->dead = NULL;
	return 0;
}

/* Make sure `s` runs: start it the first time, and once more after it
 * died. Returns as server_start(). */
static int server_ensure(struct skit__lsp *l, struct skit__tool_ctx *c,
                         struct lsrv *s, struct skitx_buf *out, bool *is_error,
                         skit_error *err)
{
	int rc;

	if (s->up && s->conn.fd >= 0) {
		s->conn.cancel = c->cancel;
		return 0;
	}
	if (s->up)
		server_down(l, s, "it exited");
	if (s->starts >= MAX_STARTS) {
		rc = skit__tool_error(out, is_error,
		                      "the %s language server (%.200s) is not "
		                      "running: %s (it is not started again "
		                      "in this session)",
		                      s->name, s->argv[0],
		                      s->dead ? s->dead : "stopped");
		return rc ? rc : 1;
	}
	return server_start(l, c, s, out, is_error, err);
}

/* The server of `rel`'s extension, or NULL. */
static struct lsrv *server_for(struct skit__lsp *l, const char *rel)
{
	size_t n = strlen(rel);

	for (size_t i = 0; i < l->n; i++)
		for (char **e = l->v[i].ext; *e; e++) {
			size_t k = strlen(*e);

			if (n > k && !strcmp(rel + n - k, *e) &&
			    rel[n - k - 1] != '/')
				return &l->v[i];
		}
	return NULL;
}

/*
 * Open `rel` (its text in `t`) in the server, or tell it the new text
 * when it changed since. *d: the document. 0 or a negative status of the
 * transport (the caller handles it).
 */
static int doc_sync(struct skit__lsp *l, struct lsrv *s, const char *rel,
                    const struct text *t, struct doc **dp, skit_error *err)
{
	struct doc *d = NULL;
	char digest[65];
	json_t *p;
	int rc;

	skit__sha256_hex(t->b.ptr, skitx_buf_len(&t->b), digest);
	for (size_t i = 0; i < s->ndocs && !d; i++)
		if (!strcmp(s->docs[i].rel, rel))
			d = &s->docs[i];
	if (d && !strcmp(d->digest, digest)) {
		*dp = d;
		return 0;
	}
	if (!d) {
		struct doc *grown;
		char *abs;

		if (s->ndocs >= MAX_DOCS)
			return skit__error_set(err, SKIT_ELIMIT, 0,
			                       "%d files open in one server",
			                       MAX_DOCS);
		grown = skitx_realloc(s->docs, (s->ndocs + 1) * sizeof(*grown));
		if (!grown)
			return skit__error_oom(err);
		s->docs = grown;
		d = &s->docs[s->ndocs];
		memset(d, 0, sizeof(*d));
		abs = skitx_path_join(l->real ? l->real : l->project, rel);
		d->rel = skitx_strdup(rel);
		d->uri = abs ? path_uri(abs) : NULL;
		skitx_free(abs);
		if (!d->rel || !d->uri) {
			skitx_free(d->rel);
			skitx_free(d->uri);
			return skit__error_oom(err);
		}
		s->ndocs++;
		d->version = 1;
		p = json_pack("{s:{s:s, s:s, s:i, s:s%}}", "textDocument",
		              "uri", d->uri, "languageId",
		              s->lang ? s->lang : s->name, "version",
		              d->version, "text", t->b.ptr,
		              skitx_buf_len(&t->b));
	} else {
		d->version++;
		p = json_pack("{s:{s:s, s:i}, s:[{s:s%}]}", "textDocument",
		              "uri", d->uri, "version", d->version,
		              "contentChanges", "text", t->b.ptr,
		              skitx_buf_len(&t->b));
	}
	if (!p)
		return skit__error_oom(err);
	/* Diagnostics from here on are for this text. */
	d->diag_after = s->conn.diag_seq;
	rc = skit__lsp_conn_notify(&s->conn,
	                           d->version == 1 ? "textDocument/didOpen"
	                                           : "textDocument/didChange",
	                           p, err);
	json_decref(p);
	if (!rc)
		memcpy(d->digest, digest, sizeof(digest));
	*dp = d;
	return rc;
}

/* ---- formatting results ----------------------------------------------- */

/* Append a source line for the model: leading blanks dropped, at most
 * LINE_SHOWN bytes (cut at a character), cleaned. */
static int put_line(struct skitx_buf *out, const char *s, size_t n)
{
	bool cut = false;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n > LINE_SHOWN) {
		n = LINE_SHOWN;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
		cut = true;
	}
	if (skit__put_clean(out, s, n))
		return SKIT_ENOMEM;
	return cut && skitx_buf_puts(out, "…") ? SKIT_ENOMEM : 0;
}

/* What a call formats with: the provider, the run, the one text held. */
struct fmt {
	struct skit__lsp *l;
	struct skit__tool_ctx *c;
	struct text t;
	struct skitx_buf path; /* scratch */
	struct skitx_buf scratch;
	bool scratch_err;
};

/* Whether the policy refuses a read of `rel`, a file the answer names
 * but the call did not (a deny, or an ask no one is asked about). */
static bool text_refused(struct skit__tool_ctx *c, const char *rel)
{
	/* the gate's own decision: a subagent's narrowing counts too */
	return c->host->read_refused(c->host_self, "lsp", rel);
}

/*
 * Append "path:line:col" for `uri` and LSP `range`'s start, then, when
 * `with_text`, ": " and the source line. A path inside the project is
 * relative and its line is read (contained); one outside is shown
 * absolute without its text.
 */
static int put_loc(struct fmt *f, struct skitx_buf *out, const char *uri,
                   json_t *range, bool with_text)
{
	json_t *start = json_object_get(range, "start");
	json_int_t line0 = json_integer_value(json_object_get(start, "line"));
	json_int_t ch = json_integer_value(json_object_get(start, "character"));
	const char *rel, *s;
	size_t n;
	int rc;

	if (line0 < 0)
		line0 = 0;
	if (ch < 0)
		ch = 0;
	if (!uri_path(uri, &f->path)) {
		rc = skitx_buf_printf(out, "%.300s:%lld:%lld",
		                      uri ? uri : "(no uri)",
		                      (long long)line0 + 1, (long long)ch + 1);
		return rc ? SKIT_ENOMEM : 0;
	}
	rel = project_rel(f->l, f->path.ptr);
	if (!rel || skit__check_rel_path(rel)) {
		if (skit__put_clean(out, f->path.ptr, skitx_buf_len(&f->path)))
			return SKIT_ENOMEM;
		rc = skitx_buf_printf(out, ":%lld:%lld", (long long)line0 + 1,
		                      (long long)ch + 1);
		return rc ? SKIT_ENOMEM : 0;
	}
	/* The file is read beneath the project, unless the policy keeps
	 * reads from it (a deny on it holds for lines quoted from it too);
	 * either failure shows the position as the server gave it. */
	skitx_buf_clear(&f->scratch);
	rc = text_refused(f->c, rel) ? 1
	                             : read_text(f->c, rel, &f->t, &f->scratch,
	                                         &f->scratch_err);
	if (rc < 0)
		return rc;
	if (rc == 0 &&
	    line_of(f->t.b.ptr, skitx_buf_len(&f->t.b), (size_t)line0, &s, &n))
		ch = column_of(s, n, (long)ch) - 1;
	else
		with_text = false;
	if (skit__put_clean(out, rel, strlen(rel)) ||
	    skitx_buf_printf(out, ":%lld:%lld", (long long)line0 + 1,
	                     (long long)ch + 1))
		return SKIT_ENOMEM;
	if (with_text && n) {
		if (skitx_buf_puts(out, ": "))
			return SKIT_ENOMEM;
		return put_line(out, s, n);
	}
	return 0;
}

/* Locations (Location, Location[], LocationLink[]) as lines. The count
 * listed in *count. */
static int put_locations(struct fmt *f, struct skitx_buf *out, json_t *res,
                         size_t *count)
{
	json_t *one = NULL, *v;
	size_t i, total;

	*count = 0;
	if (json_is_object(res)) {
		one = json_array();
		if (!one || json_array_append(one, res))
			return SKIT_ENOMEM;
		res = one;
	}
	total = json_array_size(res);
	json_array_foreach(res, i, v)
	{
		const char *uri = json_string_value(json_object_get(v, "uri"));
		json_t *range = json_object_get(v, "range");
		int rc;

		if (!uri) { /* a LocationLink */
			uri = json_string_value(
			        json_object_get(v, "targetUri"));
			range = json_object_get(v, "targetSelectionRange");
			if (!range)
				range = json_object_get(v, "targetRange");
		}
		if (!uri)
			continue;
		if (*count == MAX_SHOWN)
			break;
		rc = put_loc(f, out, uri, range, true);
		if (!rc)
			rc = skitx_buf_putc(out, '\n') ? SKIT_ENOMEM : 0;
		if (rc) {
			json_decref(one);
			return rc;
		}
		(*count)++;
	}
	json_decref(one);
	if (total > *count && *count == MAX_SHOWN &&
	    skitx_buf_printf(out, "[%zu more not shown]\n", total - *count))
		return SKIT_ENOMEM;
	return 0;
}

/* One MarkedString or MarkupContent. */
static int put_marked(struct skitx_buf *out, json_t *m)
{
	const char *v = json_string_value(m), *lang;

	if (v)
		return skit__put_clean(out, v, strlen(v));
	v = json_string_value(json_object_get(m, "value"));
	lang = json_string_value(json_object_get(m, "language"));
	if (!v)
		return 0;
	if (lang && (skitx_buf_printf(out, "```%.40s\n", lang) ||
	             skit__put_clean(out, v, strlen(v)) ||
	             skitx_buf_puts(out, "\n```")))
		return SKIT_ENOMEM;
	return lang ? 0 : skit__put_clean(out, v, strlen(v));
}

static int put_hover(struct skitx_buf *out, json_t *res, size_t *count)
{
	json_t *c = json_object_get(res, "contents"), *v;
	size_t i, before = skitx_buf_len(out);

	if (json_is_array(c)) {
		json_array_foreach(c, i, v)
		{
			if (skitx_buf_len(out) > before &&
			    skitx_buf_puts(out, "\n\n"))
				return SKIT_ENOMEM;
			if (put_marked(out, v))
				return SKIT_ENOMEM;
		}
	} else if (c && put_marked(out, c)) {
		return SKIT_ENOMEM;
	}
	/* only blanks is no information */
	*count = 0;
	for (i = before; i < skitx_buf_len(out); i++)
		if (!strchr(" \t\n", out->ptr[i]))
			*count = 1;
	if (!*count)
		skitx_buf_truncate(out, before);
	return 0;
}

/* A DocumentSymbol tree, indented, each "Kind name (line N)". */
static int put_doc_symbols(struct skitx_buf *out, json_t *syms, int depth,
                           size_t *count, size_t *left_out)
{
	json_t *v;
	size_t i;

	json_array_foreach(syms, i, v)
	{
		const char *name =
		        json_string_value(json_object_get(v, "name"));
		json_t *range = json_object_get(v, "selectionRange");
		json_t *loc = json_object_get(v, "location"); /* flat form */
		const char *container =
		        json_string_value(json_object_get(v, "containerName"));
		json_int_t line0;

		if (!name)
			continue;
		if (*count >= MAX_SHOWN) {
			(*left_out)++;
			continue;
		}
		if (!range)
			range = json_object_get(loc ? loc : v, "range");
		line0 = json_integer_value(json_object_get(
		        json_object_get(range, "start"), "line"));
		if (skitx_buf_printf(out, "%*s%s ", depth * 2, "",
		                     kind_name(json_object_get(v, "kind"))) ||
		    skit__put_clean(out, name, strnlen(name, 200)) ||
		    skitx_buf_printf(out, " (line %lld",
		                     (long long)line0 + 1) ||
		    (container && *container &&
		     (skitx_buf_puts(out, ", in ") ||
		      skit__put_clean(out, container,
		                      strnlen(container, 200)))) ||
		    skitx_buf_puts(out, ")\n"))
			return SKIT_ENOMEM;
		(*count)++;
		if (depth + 1 < MAX_DEPTH &&
		    put_doc_symbols(out, json_object_get(v, "children"),
		                    depth + 1, count, left_out))
			return SKIT_ENOMEM;
	}
	return 0;
}

/* A symbol or call-hierarchy item with a location: "Kind name  at". */
static int put_item(struct fmt *f, struct skitx_buf *out, json_t *v,
                    bool with_text)
{
	const char *name = json_string_value(json_object_get(v, "name"));
	const char *container =
	        json_string_value(json_object_get(v, "containerName"));
	json_t *loc = json_object_get(v, "location");
	const char *uri =
	        json_string_value(json_object_get(loc ? loc : v, "uri"));
	json_t *range = json_object_get(v, "selectionRange");
	int rc;

	if (!range)
		range = json_object_get(loc ? loc : v, "range");
	if (skitx_buf_printf(out, "%s ",
	                     kind_name(json_object_get(v, "kind"))) ||
	    skit__put_clean(out, name ? name : "?",
	                    name ? strnlen(name, 200) : 1) ||
	    skitx_buf_puts(out, "  "))
		return SKIT_ENOMEM;
	rc = put_loc(f, out, uri, range, with_text);
	if (rc)
		return rc;
	if (container && *container &&
	    (skitx_buf_puts(out, " (in ") ||
	     skit__put_clean(out, container, strnlen(container, 200)) ||
	     skitx_buf_putc(out, ')')))
		return SKIT_ENOMEM;
	return skitx_buf_putc(out, '\n') ? SKIT_ENOMEM : 0;
}

/* An array of items (workspace symbols, call hierarchy items) or calls
 * (`key`: "from" or "to" of incoming or outgoing calls). */
static int put_items(struct fmt *f, struct skitx_buf *out, json_t *res,
                     const char *key, size_t *count)
{
	json_t *v;
	size_t i, total = json_array_size(res);
	int rc;

	*count = 0;
	json_array_foreach(res, i, v)
	{
		json_t *item = key ? json_object_get(v, key) : v;

		if (!json_is_object(item))
			continue;
		if (*count == MAX_SHOWN)
			break;
		rc = put_item(f, out, item, !key);
		if (rc)
			return rc;
		(*count)++;
	}
	if (total > *count && *count == MAX_SHOWN &&
	    skitx_buf_printf(out, "[%zu more not shown]\n", total - *count))
		return SKIT_ENOMEM;
	return 0;
}

static int put_diags(struct fmt *f, struct skitx_buf *out, const char *rel,
                     json_t *diags, size_t *count)
{
	static const char *const sev[] = { "error", "error", "warning",
		                           "information", "hint" };
	json_t *v;
	size_t i, total = json_array_size(diags);

	*count = 0;
	json_array_foreach(diags, i, v)
	{
		json_t *range = json_object_get(v, "range");
		json_t *start = json_object_get(range, "start");
		json_int_t line0 =
		        json_integer_value(json_object_get(start, "line"));
		json_int_t ch =
		        json_integer_value(json_object_get(start, "character"));
		json_int_t sv =
		        json_integer_value(json_object_get(v, "severity"));
		const char *msg =
		        json_string_value(json_object_get(v, "message"));
		const char *src =
		        json_string_value(json_object_get(v, "source"));
		const char *s;
		size_t n, mlen;

		if (*count == MAX_SHOWN)
			break;
		if (line0 < 0)
			line0 = 0;
		if (line_of(f->t.b.ptr, skitx_buf_len(&f->t.b), (size_t)line0,
		            &s, &n))
			ch = column_of(s, n, (long)(ch < 0 ? 0 : ch)) - 1;
		if (skit__put_clean(out, rel, strlen(rel)) ||
		    skitx_buf_printf(out, ":%lld:%lld: %s: ",
		                     (long long)line0 + 1, (long long)ch + 1,
		                     sev[sv >= 1 && sv <= 4 ? sv : 0]))
			return SKIT_ENOMEM;
		mlen = msg ? strnlen(msg, MSG_SHOWN) : 0;
		while (mlen && ((unsigned char)msg[mlen] & 0xC0) == 0x80)
			mlen--;
		for (size_t k = 0; k < mlen; k++) {
			/* one line each: a message's breaks become blanks */
			size_t run = strcspn(msg + k, "\r\n");

			if (run > mlen - k)
				run = mlen - k;
			if (skit__put_clean(out, msg + k, run) ||
			    (k + run < mlen && skitx_buf_putc(out, ' ')))
				return SKIT_ENOMEM;
			k += run;
		}
		if (src && (skitx_buf_puts(out, " [") ||
		            skit__put_clean(out, src, strnlen(src, 60)) ||
		            skitx_buf_putc(out, ']')))
			return SKIT_ENOMEM;
		if (skitx_buf_putc(out, '\n'))
			return SKIT_ENOMEM;
		(*count)++;
	}
	if (total > *count &&
	    skitx_buf_printf(out, "[%zu more not shown]\n", total - *count))
		return SKIT_ENOMEM;
	return 0;
}

/* ---- the call --------------------------------------------------------- */

/* The filePath argument relative to the project (into `rel`), or an error
 * result. 0, 1 (error result), SKIT_ENOMEM. */
static int file_arg(struct skit__lsp *l, json_t *args, struct skitx_buf *rel,
                    struct skitx_buf *out, bool *is_error)
{
	const char *p = skit__str_arg(args, "filePath"), *r, *why;
	int rc;

	if (!p || !*p) {
		rc = skit__tool_error(out, is_error,
		                      "missing \"filePath\": the file, "
		                      "relative to the project");
		return rc ? rc : 1;
	}
	r = p;
	if (*p == '/') {
		char *norm = skitx_path_absolute(p);

		if (!norm)
			return SKIT_ENOMEM;
		r = project_rel(l, norm);
		if (!r || !strcmp(r, ".")) {
			skitx_free(norm);
			rc = skit__tool_error(out, is_error,
			                      "%.200s: outside the project; "
			                      "refused",
			                      p);
			return rc ? rc : 1;
		}
		rc = skitx_buf_puts(rel, r);
		skitx_free(norm);
		if (rc)
			return SKIT_ENOMEM;
	} else if (skitx_buf_puts(rel, r)) {
		return SKIT_ENOMEM;
	}
	why = skit__check_rel_path(rel->ptr);
	if (why) {
		rc = skit__tool_error(out, is_error,
		                      "%.200s: %s (the file must be inside the "
		                      "project)",
		                      p, why);
		return rc ? rc : 1;
	}
	return 0;
}

/* The extensions served, for an error: ".py .pyi (python), ...". */
static int put_served(const struct skit__lsp *l, struct skitx_buf *b)
{
	for (size_t i = 0; i < l->n; i++) {
		if (i && skitx_buf_puts(b, ", "))
			return SKIT_ENOMEM;
		for (char **e = l->v[i].ext; *e; e++)
			if (skitx_buf_printf(b, "%s%s",
			                     e == l->v[i].ext ? "" : " ", *e))
				return SKIT_ENOMEM;
		if (skitx_buf_printf(b, " (%s)", l->v[i].name))
			return SKIT_ENOMEM;
	}
	return 0;
}

/* A 1-based integer argument, or 0 when absent or not one. */
static long pos_arg(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);
	json_int_t n = json_integer_value(v);

	return json_is_integer(v) && n >= 1 && n <= 100000000 ? (long)n : 0;
}

/* Handle a transport failure during a call: the error result (or the
 * status that ends the task). */
static int call_failed(struct skit__lsp *l, struct lsrv *s, int rc,
                       const skit_error *e, const char *op,
                       struct skitx_buf *out, bool *is_error, skit_error *err)
{
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc == SKIT_ECANCELED)
		return skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	if (rc == SKIT_ETIMEOUT)
		return skit__tool_error(out, is_error,
		                        "the %s language server (%.200s) gave "
		                        "no answer to %s within %ld ms",
		                        s->name, s->argv[0], op, l->request_ms);
	if (rc == SKIT_ELIMIT)
		return skit__tool_error(out, is_error, "%s", e->message);
	server_down(l, s, e->message);
	return skit__tool_error(out, is_error,
	                        "the %s language server (%.200s) failed and "
	                        "was stopped: %s",
	                        s->name, s->argv[0], e->message);
}

static int lsp_call(void *self, struct skit__tool_ctx *c, const char *tool,
                    json_t *args, struct skitx_buf *out, bool *is_error,
                    skit_error *err)
{
	struct skit__lsp *l = self;
	const char *opname = skit__str_arg(args, "operation"), *query = NULL;
	struct skitx_buf rel = SKITX_BUF_INIT, where = SKITX_BUF_INIT;
	struct fmt f;
	struct lsrv *s;
	struct doc *d = NULL;
	json_t *params = NULL, *resp = NULL, *res, *e;
	skit_error e2 = { 0 };
	size_t op = SKIT_ARRAY_SIZE(ops), count = 0;
	long line = 0, col = 0, u16 = 0;
	int rc;

	(void)tool;
	l->ctx = c;
	memset(&f, 0, sizeof(f));
	f.l = l;
	f.c = c;
	skitx_buf_init(&f.t.b, 0);
	skitx_buf_init(&f.path, 0);
	skitx_buf_init(&f.scratch, 0);
	for (size_t i = 0; opname && i < SKIT_ARRAY_SIZE(ops); i++)
		if (!strcmp(opname, ops[i].name))
			op = i;
	if (op == SKIT_ARRAY_SIZE(ops)) {
		struct skitx_buf names = SKITX_BUF_INIT;

		for (size_t i = 0; i < SKIT_ARRAY_SIZE(ops); i++)
			rc = skitx_buf_printf(&names, "%s%s", i ? ", " : "",
			                      ops[i].name);
		rc = skit__tool_error(out, is_error,
		                      "unknown operation '%.60s'; use one of: "
		                      "%s",
		                      opname ? opname : "", names.ptr);
		skitx_buf_release(&names);
		goto out;
	}
	rc = file_arg(l, args, &rel, out, is_error);
	if (rc)
		goto done;
	s = server_for(l, rel.ptr);
	if (!s) {
		const char *dot = strrchr(rel.ptr, '.'), *slash;

		slash = strrchr(rel.ptr, '/');
		if (dot && slash && dot < slash)
			dot = NULL;
		rc = put_served(l, &where);
		if (!rc)
			rc = skit__tool_error(
			        out, is_error,
			        "no language server for %.40s files "
			        "(%.200s); the servers take: %s",
			        dot ? dot : "such", rel.ptr, where.ptr);
		goto out;
	}
	if (ops[op].position) {
		line = pos_arg(args, "line");
		col = pos_arg(args, "character");
		if (!line || !col) {
			rc = skit__tool_error(
			        out, is_error,
			        "%s needs \"line\" and "
			        "\"character\" (1-based integers)",
			        ops[op].name);
			goto out;
		}
	}
	if (op == OP_WS_SYMBOL) {
		query = skit__str_arg(args, "query");
		if (!query || strlen(query) > QUERY_MAX) {
			rc = skit__tool_error(
			        out, is_error,
			        "workspaceSymbol needs \"query\": "
			        "the name to look for (at most %d "
			        "bytes)",
			        QUERY_MAX);
			goto out;
		}
	}
	rc = read_text(c, rel.ptr, &f.t, out, is_error);
	if (rc)
		goto done;
	if (ops[op].position) {
		const char *ls;
		size_t ln;

		if (!line_of(f.t.b.ptr, skitx_buf_len(&f.t.b), (size_t)line - 1,
		             &ls, &ln) ||
		    (u16 = utf16_of(ls, ln, col)) < 0) {
			bool has_line =
			        line_of(f.t.b.ptr, skitx_buf_len(&f.t.b),
			                (size_t)line - 1, &ls, &ln);

			rc = has_line
			             ? skit__tool_error(
			                       out, is_error,
			                       "%.200s:%ld:%ld: character out of "
			                       "range (line %ld has %zu "
			                       "characters)",
			                       rel.ptr, line, col, line,
			                       skitx_utf8_count(ls, ln))
			             : skit__tool_error(
			                       out, is_error,
			                       "%.200s:%ld:%ld: line out "
			                       "of range",
			                       rel.ptr, line, col);
			goto out;
		}
	}
	rc = server_ensure(l, c, s, out, is_error, err);
	if (rc)
		goto done;
	if (ops[op].capability) {
		json_t *cap = json_object_get(s->caps, ops[op].capability);

		if (!cap || json_is_false(cap)) {
			rc = skit__tool_error(out, is_error,
			                      "the %s language server (%.200s) "
			                      "does not offer %s",
			                      s->name, s->argv[0],
			                      ops[op].name);
			goto out;
		}
	}
	rc = doc_sync(l, s, rel.ptr, &f.t, &d, &e2);
	if (rc) {
		rc = call_failed(l, s, rc, &e2, ops[op].name, out, is_error,
		                 err);
		goto out;
	}
	skit__tool_trace(c, SKIT_TRACE_TOOL, "lsp %s %s%s%.0ld%s%.0ld (%s)",
	                 ops[op].name, rel.ptr, line ? ":" : "", line,
	                 col ? ":" : "", col, s->name);
	if (op == OP_DIAGNOSTICS) {
		long long seq = 0;
		json_t *diags;

		rc = skit__lsp_conn_wait_diags(&s->conn, d->uri, d->diag_after,
		                               l->diags_ms, &e2);
		if (rc && rc != SKIT_ETIMEOUT) {
			rc = call_failed(l, s, rc, &e2, ops[op].name, out,
			                 is_error, err);
			goto out;
		}
		diags = skit__lsp_conn_diags(&s->conn, d->uri, &seq);
		if (!diags) {
			rc = skit__tool_error(
			        out, is_error,
			        "the %s language server reported no "
			        "diagnostics for %.200s within %ld "
			        "ms",
			        s->name, rel.ptr, l->diags_ms);
			goto out;
		}
		skitx_buf_clear(out);
		rc = put_diags(&f, out, rel.ptr, diags, &count);
		if (!rc && !count)
			rc = skitx_buf_printf(out,
			                      "no errors or warnings in %.200s "
			                      "(the %s language server)",
			                      rel.ptr, s->name)
			             ? SKIT_ENOMEM
			             : 0;
		if (rc)
			rc = skit__error_oom(err);
		goto out;
	}
	if (op == OP_WS_SYMBOL)
		params = json_pack("{s:s}", "query", query);
	else if (op == OP_DOC_SYMBOL)
		params = json_pack("{s:{s:s}}", "textDocument", "uri", d->uri);
	else
		params = json_pack("{s:{s:s}, s:{s:i, s:i}}", "textDocument",
		                   "uri", d->uri, "position", "line",
		                   (int)(line - 1), "character", (int)u16);
	if (params && op == OP_REFERENCES)
		json_object_set_new(
		        params, "context",
		        json_pack("{s:b}", "includeDeclaration", 1));
	if (!params) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = skit__lsp_conn_request(
	        &s->conn,
	        op == OP_INCOMING || op == OP_OUTGOING
	                ? "textDocument/prepareCallHierarchy"
	                : ops[op].method,
	        params, l->request_ms, &resp, &e2);
	if (!rc && (op == OP_INCOMING || op == OP_OUTGOING)) {
		json_t *item =
		        json_array_get(json_object_get(resp, "result"), 0);

		json_decref(params);
		params = NULL;
		if (item) {
			params = json_pack("{s:O}", "item", item);
			json_decref(resp);
			resp = NULL;
			if (!params) {
				rc = skit__error_oom(err);
				goto out;
			}
			rc = skit__lsp_conn_request(&s->conn, ops[op].method,
			                            params, l->request_ms,
			                            &resp, &e2);
		}
	}
	if (rc) {
		rc = call_failed(l, s, rc, &e2, ops[op].name, out, is_error,
		                 err);
		goto out;
	}
	e = json_object_get(resp, "error");
	res = json_object_get(resp, "result");
	if (e) {
		const char *m =
		        json_string_value(json_object_get(e, "message"));

		rc = skit__tool_error(out, is_error,
		                      "the %s language server answered %s with "
		                      "an error: %.300s",
		                      s->name, ops[op].name, m ? m : "(none)");
		goto out;
	}
	skitx_buf_clear(out);
	switch ((enum op)op) {
	case OP_DEFINITION:
	case OP_REFERENCES:
	case OP_IMPLEMENTATION:
		rc = put_locations(&f, out, res, &count);
		break;
	case OP_HOVER:
		rc = put_hover(out, res, &count);
		break;
	case OP_DOC_SYMBOL: {
		size_t left = 0;

		rc = put_doc_symbols(out, res, 0, &count, &left);
		if (!rc && left &&
		    skitx_buf_printf(out, "[%zu more not shown]\n", left))
			rc = SKIT_ENOMEM;
		break;
	}
	case OP_WS_SYMBOL:
	case OP_PREPARE_CALLS:
		rc = put_items(&f, out, res, NULL, &count);
		break;
	case OP_INCOMING:
		rc = put_items(&f, out, resp ? res : NULL, "from", &count);
		break;
	case OP_OUTGOING:
		rc = put_items(&f, out, resp ? res : NULL, "to", &count);
		break;
	case OP_DIAGNOSTICS:
		break;
	}
	if (rc) {
		rc = rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
		goto out;
	}
	if (!count) {
		if (op == OP_WS_SYMBOL)
			rc = skit__tool_error(out, is_error,
			                      "no workspace symbols match "
			                      "\"%.200s\"",
			                      query);
		else if (op == OP_DOC_SYMBOL)
			rc = skit__tool_error(out, is_error,
			                      "no symbols found in %.200s",
			                      rel.ptr);
		else
			rc = skit__tool_error(out, is_error,
			                      "no %s found at %.200s:%ld:%ld",
			                      ops[op].what, rel.ptr, line, col);
		goto out;
	}
	/* The whole result within the tool-output cap, cut at a line. */
	if (skitx_buf_len(out) > SKIT_TOOL_OUTPUT_CAP - 64) {
		size_t cut = SKIT_TOOL_OUTPUT_CAP - 64;

		while (cut && out->ptr[cut - 1] != '\n')
			cut--;
		skitx_buf_truncate(out, cut);
		if (skitx_buf_printf(out, "[output cut at %d KiB]",
		                     SKIT_TOOL_OUTPUT_CAP / 1024))
			rc = skit__error_oom(err);
	}
out:
done:
	if (rc == SKIT_ENOMEM)
		rc = skit__error_oom(err);
	if (rc == 1)
		rc = 0;
	json_decref(params);
	json_decref(resp);
	skitx_free(f.t.rel);
	skitx_buf_release(&f.t.b);
	skitx_buf_release(&f.path);
	skitx_buf_release(&f.scratch);
	skitx_buf_release(&rel);
	skitx_buf_release(&where);
	return rc;
}

/* ---- the provider ----------------------------------------------------- */

static size_t lsp_list(void *self, const struct skit__tool_ctx *c,
                       struct skit__tool_def *out, size_t max)
{
	const struct skit__lsp *l = self;

	if (!max)
		return 0;
	out[0].schema = lsp_schema;
	out[0].risk = SKIT_RISK_READ;
	out[0].gate = SKIT__GATE_BUILTIN;
	out[0].offered = l && l->n && c->file_tools;
	/* Else the policy hid it (a skill's allowed-tools): the agent
	 * says so. */
	out[0].hint = !l || !l->n      ? ": no language server is configured "
	                                 "(docs/lsp.md)"
	              : !c->file_tools ? ": the file tools are off"
	                               : "";
	return 1;
}

/* The policy matches the file, as read_file's: an absolute path inside
 * the project as its relative path, so that Read(...) rules hold. */
static int lsp_target(void *self, const char *tool, json_t *args,
                      struct skitx_buf *t, const char **skill)
{
	struct skit__lsp *l = self;
	const char *p = skit__str_arg(args, "filePath"), *r = NULL;
	char *norm = NULL;
	int rc;

	(void)tool;
	*skill = NULL;
	if (!p)
		p = "";
	if (*p == '/') {
		norm = skitx_path_absolute(p);
		if (!norm)
			return SKIT_ENOMEM;
		r = project_rel(l, norm);
	}
	rc = skitx_buf_puts(t, r ? r : p) ? SKIT_ENOMEM : 0;
	skitx_free(norm);
	return rc;
}

static void lsp_release(void *self)
{
	skit__lsp_free(self);
}

const struct skit__tool_provider_ops skit__lsp_tools = {
	"lsp", lsp_list, lsp_target, lsp_call, lsp_release,
};

/* ---- making and freeing ----------------------------------------------- */

static int check_server(const skit_lsp_server *sv, size_t i,
                        const struct skit__lsp *l, skit_error *err)
{
	const char *name = sv->name ? sv->name : "";
	size_t next = 0;

	if (!name_ok(name))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "language server %zu: name '%.80s' must "
		                       "be 1 to %d letters, digits, '-' or '_'",
		                       i + 1, name, MAX_NAME);
	for (size_t k = 0; k < l->n; k++)
		if (!strcmp(l->v[k].name, name))
			return skit__error_set(err, SKIT_EUSAGE, 0,
			                       "language server '%s' is given "
			                       "twice",
			                       name);
	if (!sv->argv || !sv->argv[0] || !sv->argv[0][0])
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "language server '%s' has no command",
		                       name);
	for (const char *const *e = sv->extensions; e && *e; e++, next++)
		if ((*e)[0] != '.' || !(*e)[1] || strlen(*e) > 32 ||
		    strchr(*e, '/'))
			return skit__error_set(
			        err, SKIT_EUSAGE, 0,
			        "language server '%s': extension "
			        "'%.40s' must start with '.' (\".py\")",
			        name, *e);
	if (!next)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "language server '%s' serves no file "
		                       "extension",
		                       name);
	if (sv->language_id &&
	    (!sv->language_id[0] || strlen(sv->language_id) > MAX_NAME))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "language server '%s': language_id must "
		                       "be 1 to %d bytes",
		                       name, MAX_NAME);
	return 0;
}

int skit__lsp_new(struct skit__lsp **out, const skit_lsp_server *servers,
                  size_t n, const char *project_dir, skit_error *err)
{
	struct skit__lsp *l;
	int rc = 0;

	assert(out && (servers || !n) && project_dir);
	*out = NULL;
	if (n > SKIT_AGENT_MAX_LSP_SERVERS)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "%zu language servers given, at most %d",
		                       n, SKIT_AGENT_MAX_LSP_SERVERS);
	l = skitx_calloc(1, sizeof(*l));
	if (!l || !(l->v = skitx_calloc(n + 1, sizeof(*l->v)))) {
		skitx_free(l);
		return skit__error_oom(err);
	}
	l->request_ms = REQUEST_TIMEOUT;
	l->diags_ms = DIAGS_TIMEOUT;
	l->project = skitx_strdup(project_dir);
	l->real = skitx_path_real(project_dir);
	l->root_uri = path_uri(l->real ? l->real : project_dir);
	if (!l->project || !l->root_uri)
		rc = skit__error_oom(err);
	for (size_t i = 0; !rc && i < n; i++) {
		const skit_lsp_server *sv = &servers[i];
		struct lsrv *s = &l->v[l->n];

		rc = check_server(sv, i, l, err);
		if (rc)
			break;
		s->conn.fd = -1;
		s->conn.status = -1;
		s->name = skitx_strdup(sv->name);
		s->lang =
		        sv->language_id ? skitx_strdup(sv->language_id) : NULL;
		s->argv = skitx_strv_dup(sv->argv);
		s->ext = skitx_strv_dup(sv->extensions);
		l->n++; /* freed with the rest from here on */
		if (!s->name || !s->argv || !s->ext ||
		    (sv->language_id && !s->lang))
			rc = skit__error_oom(err);
	}
	if (!rc && !(l->view = skitx_calloc(l->n + 1, sizeof(*l->view))))
		rc = skit__error_oom(err);
	for (size_t i = 0; !rc && i < l->n; i++) {
		l->view[i].name = l->v[i].name;
		l->view[i].argv = (const char *const *)l->v[i].argv;
		l->view[i].extensions = (const char *const *)l->v[i].ext;
		l->view[i].language_id = l->v[i].lang;
	}
	if (rc) {
		skit__lsp_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

size_t skit__lsp_servers(const struct skit__lsp *l, const skit_lsp_server **out)
{
	*out = l ? l->view : NULL;
	return l ? l->n : 0;
}

void skit__lsp_set_timeouts(struct skit__lsp *l, long request_ms, long diags_ms)
{
	if (request_ms > 0)
		l->request_ms = request_ms;
	if (diags_ms > 0)
		l->diags_ms = diags_ms;
}

void skit__lsp_free(struct skit__lsp *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		struct lsrv *s = &l->v[i];

		if (s->conn.pid || s->conn.fd >= 0) {
			skit__lsp_conn_stop(&s->conn, true);
			audit_exit(l, s);
		}
		skit__lsp_conn_stop(&s->conn, false); /* frees its buffers */
		docs_clear(s);
		json_decref(s->caps);
		skitx_free(s->name);
		skitx_free(s->lang);
		skitx_free(s->dead);
		skitx_strv_free(s->argv);
		skitx_strv_free(s->ext);
	}
	skitx_free(l->v);
	skitx_free(l->view);
	skitx_free(l->project);
	skitx_free(l->real);
	skitx_free(l->root_uri);
	skitx_free(l);
}
