/* SPDX-License-Identifier: MIT */
/*
 * tools_fs.c - the project tools, one provider of tool_provider.h: the
 * file tools read_file, list_dir, grep (read-only) and write_file
 * (atomic: a temporary file in the same folder, fsync, then rename), and
 * shell (run by tools.c, with the skill scripts' sandbox). They are
 * offered only when the run asks for them (skit_agent_options.file_tools).
 *
 * They work inside the project folder only. Every path is opened beneath
 * the project's descriptor without following symbolic links
 * (skit__open_beneath), so neither `..`, an absolute path nor a link
 * planted in the tree can lead out of it, and there is no window between
 * a check and the use. The permission gate (agent_tools.c) has decided
 * that the call may run; this file only does it, with caps on what it
 * reads, walks and writes.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/policy.h"

#include "lib/core/error.h"
#include "lib/tools/tool_provider.h"
#include "lib/tools/tools_int.h"
#include "lib/core/rx.h"
#include "util/fs.h"
#include "util/path.h"

#define LIST_MAX        500                /* entries shown by list_dir */
#define GREP_PATTERN    1024               /* bytes of a grep pattern */
#define GREP_HITS       200                /* matching lines reported */
#define GREP_FILES      20000              /* files looked at */
#define GREP_FILE_MAX   (4u * 1024 * 1024) /* larger files are skipped */
#define GREP_DEPTH      32
#define GREP_LINE_SHOWN 300 /* bytes of a matching line shown */
#define WRITE_MAX       (4u * 1024 * 1024)

/* The project folder, opened once. -1 with an error result on failure. */
static int project_fd(struct skit__tool_ctx *c, struct skitx_buf *out,
                      bool *is_error, int *rc)
{
	*rc = 0;
	if (c->projfd < 0)
		c->projfd = open(c->project_dir,
		                 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->projfd < 0)
		*rc = skit__tool_error(out, is_error,
		                       "the project folder %.200s cannot be "
		                       "opened: %s",
		                       c->project_dir, strerror(errno));
	return c->projfd;
}

/*
 * Whether the policy keeps `tool` away from `rel`, a path the tool walks
 * into on its own (a file grep searches, an entry list_dir shows). The
 * gate approved the call for the folder it named; a deny pattern on the
 * files of a subfolder must still hold for them, and so must a config
 * `ask`, since no one is asked about each file of a walk.
 */
static bool walk_refused(struct skit__tool_ctx *c, const char *tool,
                         const char *rel)
{
	skit_tool_request req;
	skit_decision d;

	req.tool = tool;
	req.target = rel;
	req.skill = NULL;
	if (skit_policy_check(c->policy, c->view, c->nactive, &req, &d, NULL))
		return true;
	return d.verdict != SKIT_POLICY_ALLOW;
}

/* `rel`/`name`, or `name` when `rel` is "." (NULL on out-of-memory). */
static char *child_path(const char *rel, const char *name)
{
	return strcmp(rel, ".") ? skitx_path_join(rel, name)
	                        : skitx_strdup(name);
}

/* The path argument `key`, checked; NULL with an error result. */
static const char *path_arg(json_t *args, const char *key, const char *dflt,
                            struct skitx_buf *out, bool *is_error, int *rc)
{
	const char *path = skit__str_arg(args, key), *why;

	*rc = 0;
	if (!path && json_object_get(args, key))
		*rc = skit__tool_error(out, is_error, "\"%s\" must be a string",
		                       key);
	else if (!path && !dflt)
		*rc = skit__tool_error(out, is_error, "missing \"%s\"", key);
	if (*rc || (!path && !dflt))
		return NULL;
	if (!path)
		return dflt;
	why = strcmp(path, ".") ? skit__check_rel_path(path) : NULL;
	if (why) {
		*rc = skit__tool_error(out, is_error, "%.200s: %s", path, why);
		return NULL;
	}
	return path;
}

/* ---- read_file -------------------------------------------------------- */

static int tool_read_file(struct skit__tool_ctx *c, json_t *args,
                          struct skitx_buf *out, bool *is_error,
                          skit_error *err)
{
	struct skit__read_info ri;
	const char *path;
	int fd, rc;

	path = path_arg(args, "path", NULL, out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	rc = skit__tool_read(c, fd, path, args, out, is_error, &ri, err);
	if (rc || !ri.read)
		return rc;
	skit__tool_audit(c, "file_read",
	                 json_pack("{s:s, s:I, s:I, s:b, s:I}", "path", path,
	                           "offset", (json_int_t)ri.first, "bytes",
	                           (json_int_t)skitx_buf_len(out), "truncated",
	                           ri.truncated, "file_bytes",
	                           (json_int_t)ri.file_bytes));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "read_file %s (%zu bytes%s)", path,
	                 skitx_buf_len(out), ri.truncated ? ", truncated" : "");
	return 0;
}

/* ---- list_dir --------------------------------------------------------- */

struct entry {
	char *name;
	char kind; /* '/' folder, '@' link, ' ' file, '?' other */
	long long size;
};

static int entry_cmp(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->name,
	              ((const struct entry *)y)->name);
}

static int tool_list_dir(struct skit__tool_ctx *c, json_t *args,
                         struct skitx_buf *out, bool *is_error, skit_error *err)
{
	struct entry *v = NULL;
	size_t n = 0, alloc = 0, more = 0, hidden = 0;
	struct dirent *de;
	char *child;
	bool refused;
	const char *path;
	DIR *d;
	int fd, dfd, rc;

	path = path_arg(args, "path", ".", out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	dfd = skit__open_beneath(fd, path, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        errno == ENOTDIR
		                                ? "not a folder"
		                                : skit__open_failure(errno));
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return skit__tool_error(out, is_error, "%.200s: %s", path,
		                        strerror(errno));
	}
	rc = 0;
	while (!rc && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		child = child_path(path, de->d_name);
		if (!child) {
			rc = SKIT_ENOMEM;
			break;
		}
		refused = walk_refused(c, "list_dir", child);
		skitx_free(child);
		if (refused) {
			hidden++;
			continue;
		}
		if (n == LIST_MAX) {
			more++;
			continue;
		}
		if (n == alloc) {
			struct entry *g;

			alloc = alloc ? alloc * 2 : 64;
			g = skitx_realloc(v, alloc * sizeof(*v));
			if (!g) {
				rc = SKIT_ENOMEM;
				break;
			}
			v = g;
		}
		v[n].name = skitx_strdup(de->d_name);
		if (!v[n].name) {
			rc = SKIT_ENOMEM;
			break;
		}
		v[n].size = -1;
		v[n].kind = '?';
		if (!fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			v[n].kind = S_ISDIR(st.st_mode)   ? '/'
			            : S_ISLNK(st.st_mode) ? '@'
			            : S_ISREG(st.st_mode) ? ' '
			                                  : '?';
			if (S_ISREG(st.st_mode))
				v[n].size = (long long)st.st_size;
		}
		n++;
	}
	closedir(d);
	if (!rc) {
		qsort(v, n, sizeof(*v), entry_cmp);
		skitx_buf_clear(out);
		rc |= skitx_buf_printf(out, "%s (%zu entr%s):\n", path,
		                       n + more, n + more == 1 ? "y" : "ies");
		for (size_t i = 0; i < n; i++) {
			rc |= skit__put_clean(out, v[i].name,
			                      strlen(v[i].name));
			if (v[i].kind == '/')
				rc |= skitx_buf_puts(out, "/\n");
			else if (v[i].kind == '@')
				rc |= skitx_buf_puts(out, " (symbolic link)\n");
			else if (v[i].size >= 0)
				rc |= skitx_buf_printf(out, "  %lld bytes\n",
				                       v[i].size);
			else
				rc |= skitx_buf_puts(out, " (special)\n");
		}
		if (more)
			rc |= skitx_buf_printf(
			        out, "[%zu more entries not shown]\n", more);
		if (hidden)
			rc |= skitx_buf_printf(out,
			                       "[%zu entr%s hidden by the "
			                       "permission rules]\n",
			                       hidden,
			                       hidden == 1 ? "y" : "ies");
	}
	for (size_t i = 0; i < n; i++)
		skitx_free(v[i].name);
	skitx_free(v);
	if (rc)
		return skit__error_oom(err);
	skit__tool_trace(c, SKIT_TRACE_TOOL, "list_dir %s (%zu entries)", path,
	                 n + more);
	return 0;
}

/* ---- grep ------------------------------------------------------------- */

struct grep {
	struct skit__tool_ctx *c;
	struct skit__rx *re;
	skit_error rx_err; /* why a match was stopped (a cost limit) */
	char *stopped_at;  /* "file:line" of that match, or NULL */
	const char *glob;  /* on the base name; NULL: every file */
	struct skitx_buf *out;
	size_t cap; /* bytes of `out` */
	size_t hits, files, skipped;
	size_t refused; /* files and folders the permission rules keep out */
	bool full;      /* a cap was reached */
	char line[GREP_LINE_SHOWN + 1];
};

/*
 * Does line `lineno` of `rel` match? A match stopped by a cost limit ends
 * the search (g->full) and is reported by name: 0 then, as for no match.
 */
static int grep_match(struct grep *g, const char *line, size_t len,
                      const char *rel, size_t lineno)
{
	struct skitx_buf where = SKITX_BUF_INIT;
	int m = skit__rx_match(g->re, line, len, NULL, &g->rx_err);

	if (m >= 0)
		return m;
	g->full = true;
	if (m == SKIT_ENOMEM || skit__put_clean(&where, rel, strlen(rel)) ||
	    skitx_buf_printf(&where, ":%zu", lineno)) {
		skitx_buf_release(&where);
		return SKIT_ENOMEM;
	}
	g->stopped_at = skitx_buf_detach(&where, NULL);
	return g->stopped_at ? 0 : SKIT_ENOMEM;
}

/* Search one file (open at `fd`, taken) shown as `rel`. */
static int grep_file(struct grep *g, int fd, const char *rel)
{
	struct skitx_buf data;
	const char *p, *e, *nl;
	size_t lineno = 0;
	char *copy = NULL;
	size_t copy_cap = 0;
	int rc;

	skitx_buf_init(&data, 0);
	rc = skitx_fs_read_fd(fd, &data, GREP_FILE_MAX);
	close(fd);
	if (rc == SKIT_ENOMEM)
		return rc;
	if (rc < 0 ||
	    memchr(skitx_buf_cstr(&data), '\0',
	           skitx_buf_len(&data) < 8192 ? skitx_buf_len(&data) : 8192)) {
		g->skipped++;
		skitx_buf_release(&data);
		return 0;
	}
	p = skitx_buf_cstr(&data);
	e = p + skitx_buf_len(&data);
	rc = 0;
	for (; !rc && p < e && !g->full; p = nl ? nl + 1 : e) {
		size_t len;

		nl = memchr(p, '\n', (size_t)(e - p));
		len = (size_t)((nl ? nl : e) - p);
		lineno++;
		if (len + 1 > copy_cap) {
			char *c = skitx_realloc(copy, len + 1);

			if (!c) {
				rc = SKIT_ENOMEM;
				break;
			}
			copy = c;
			copy_cap = len + 1;
		}
		memcpy(copy, p, len);
		copy[len] = '\0';
		rc = grep_match(g, copy, len, rel, lineno);
		if (rc <= 0)
			continue;
		rc = 0;
		if (g->hits == GREP_HITS || skitx_buf_len(g->out) > g->cap) {
			g->full = true;
			break;
		}
		g->hits++;
		rc |= skit__put_clean(g->out, rel, strlen(rel));
		rc |= skitx_buf_printf(g->out, ":%zu: ", lineno);
		rc |= skit__put_clean(g->out, copy,
		                      len > GREP_LINE_SHOWN ? GREP_LINE_SHOWN
		                                            : len);
		rc |= skitx_buf_puts(g->out,
		                     len > GREP_LINE_SHOWN ? " [...]\n" : "\n");
	}
	skitx_free(copy);
	skitx_buf_release(&data);
	return rc ? SKIT_ENOMEM : 0;
}

/* Walk the folder open at `fd` (taken), shown as `rel`. Hidden entries
 * (.git and the like) and symbolic links are not followed. */
static int grep_dir(struct grep *g, int fd, const char *rel, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);
	int rc = 0;

	if (!d) {
		close(fd);
		g->skipped++;
		return 0;
	}
	while (!rc && !g->full && (de = readdir(d))) {
		struct stat st;
		char *child;
		int cfd;

		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			continue;
		if (S_ISREG(st.st_mode) &&
		    ((g->glob && fnmatch(g->glob, de->d_name, 0)) ||
		     st.st_size > GREP_FILE_MAX)) {
			g->skipped += st.st_size > GREP_FILE_MAX;
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth >= GREP_DEPTH)
			continue;
		if (S_ISREG(st.st_mode) && ++g->files > GREP_FILES) {
			g->full = true;
			break;
		}
		child = child_path(rel, de->d_name);
		if (!child) {
			rc = SKIT_ENOMEM;
			break;
		}
		if (walk_refused(g->c, "grep", child)) {
			g->refused++;
			skitx_free(child);
			continue;
		}
		cfd = openat(dirfd(d), de->d_name,
		             (S_ISDIR(st.st_mode) ? O_DIRECTORY : O_NONBLOCK) |
		                     O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			g->skipped++;
		else if (S_ISDIR(st.st_mode))
			rc = grep_dir(g, cfd, child, depth + 1);
		else
			rc = grep_file(g, cfd, child);
		skitx_free(child);
	}
	closedir(d);
	return rc;
}

static int tool_grep(struct skit__tool_ctx *c, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *pattern = skit__str_arg(args, "pattern"), *path;
	json_t *icase = json_object_get(args, "ignore_case");
	struct grep *g;
	struct stat st;
	skit_error rx_err = { 0 };
	int fd, start, rc;

	if (!pattern || !*pattern || strlen(pattern) > GREP_PATTERN)
		return skit__tool_error(out, is_error,
		                        "\"pattern\" must be a regular "
		                        "expression of 1 to %d bytes",
		                        GREP_PATTERN);
	if (icase && !json_is_boolean(icase))
		return skit__tool_error(out, is_error,
		                        "\"ignore_case\" must be a boolean");
	path = path_arg(args, "path", ".", out, is_error, &rc);
	if (!path)
		return rc;
	fd = project_fd(c, out, is_error, &rc);
	if (fd < 0)
		return rc;
	g = skitx_calloc(1, sizeof(*g));
	if (!g)
		return skit__error_oom(err);
	rc = skit__rx_new(&g->re, pattern,
	                  json_is_true(icase) ? SKIT__RX_ICASE : 0, &rx_err);
	if (rc) {
		skitx_free(g);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		return skit__tool_error(
		        out, is_error, "%s regular expression: %s",
		        rc == SKIT_ETOOBIG ? "refused" : "bad", rx_err.message);
	}
	g->c = c;
	g->glob = skit__str_arg(args, "glob");
	g->out = out;
	g->cap = c->resource_cap;
	skitx_buf_clear(out);
	start = skit__open_beneath(fd, path, O_RDONLY | O_NONBLOCK);
	if (start < 0 || fstat(start, &st) < 0 ||
	    (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      start < 0 ? skit__open_failure(errno)
		                                : "not a file or a folder");
		if (start >= 0)
			close(start);
		skit__rx_free(g->re);
		skitx_free(g);
		return rc;
	}
	rc = S_ISDIR(st.st_mode) ? grep_dir(g, start, path, 0)
	                         : grep_file(g, start, path);
	if (!rc && g->stopped_at)
		rc = skit__tool_error(out, is_error, "grep stopped at %s: %s",
		                      g->stopped_at, g->rx_err.message);
	else if (!rc && !g->hits)
		rc = skitx_buf_puts(out, "No line matches.");
	else if (!rc && g->full)
		rc = skitx_buf_printf(out, "[stopped: more matches not shown; "
		                           "narrow the pattern or the path]");
	if (!rc && g->refused)
		rc = skitx_buf_printf(out,
		                      "%s[%zu file(s) or folder(s) not "
		                      "searched: the permission rules keep "
		                      "them out]",
		                      skitx_buf_len(out) ? "\n" : "",
		                      g->refused);
	skit__tool_trace(c, SKIT_TRACE_TOOL, "grep \"%.60s\" in %s: %zu hit(s)",
	                 pattern, path, g->hits);
	skit__rx_free(g->re);
	skitx_free(g->stopped_at);
	skitx_free(g);
	return rc ? skit__error_oom(err) : 0;
}

/* ---- write_file ------------------------------------------------------- */

/*
 * Open (creating as needed) the folders of `path` but its last component
 * beneath `root`. Returns a folder descriptor and points *base at the
 * last component, or -1 with errno set.
 */
static int open_parent(int root, char *path, const char **base)
{
	char *slash = strrchr(path, '/'), *c = path;
	int fd, next;

	*base = slash ? slash + 1 : path;
	fd = dup(root);
	if (!slash || fd < 0)
		return fd;
	*slash = '\0';
	while (*c && fd >= 0) {
		size_t n = strcspn(c, "/");
		char save = c[n];

		c[n] = '\0';
		if (n && strcmp(c, ".")) {
			if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST) {
				close(fd);
				return -1;
			}
			next = openat(fd, c,
			              O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                      O_CLOEXEC);
			close(fd);
			fd = next;
		}
		c[n] = save;
		c += n;
		while (*c == '/')
			c++;
	}
	*slash = '/';
	return fd;
}

/*
 * The refusal of a write to a protected path: an error the model sees,
 * an audit event and a trace line. Not a question for the user: no
 * --allow pattern opens these paths (only the full-access mode does).
 */
static int protected_error(struct skit__tool_ctx *c, const char *path,
                           const char *why, struct skitx_buf *out,
                           bool *is_error)
{
	skit__tool_audit(
	        c, "file_write_refused",
	        json_pack("{s:s, s:s}", "path", path, "protected", why));
	skit__tool_trace(c, SKIT_TRACE_TOOL,
	                 "write_file %.200s refused: protected (%s)", path,
	                 why);
	return skit__tool_error(out, is_error,
	                        "%.200s: protected path (%.200s); write_file "
	                        "never writes it",
	                        path, why);
}

static int tool_write_file(struct skit__tool_ctx *c, json_t *args,
                           struct skitx_buf *out, bool *is_error,
                           skit_error *err)
{
	json_t *jcontent = json_object_get(args, "content");
	const char *path, *base, *content;
	char tmp[300], hex[65], why[256], *copy;
	size_t len;
	struct stat st;
	bool existed, full;
	mode_t mode = 0644;
	int root, dfd, fd = -1, rc, e = 0;

	path = path_arg(args, "path", NULL, out, is_error, &rc);
	if (!path)
		return rc;
	if (!strcmp(path, ".") || path[strlen(path) - 1] == '/')
		return skit__tool_error(out, is_error,
		                        "%.200s: not a file path", path);
	if (!json_is_string(jcontent))
		return skit__tool_error(out, is_error,
		                        "\"content\" must be a string");
	content = json_string_value(jcontent);
	len = json_string_length(jcontent);
	if (len > WRITE_MAX)
		return skit__tool_error(out, is_error,
		                        "content is %zu bytes; at most %u can "
		                        "be written at once",
		                        len, WRITE_MAX);
	/* The sandbox mode holds for the file tools too: read-only writes
	 * nothing; only full-access (the user's own choice) may write the
	 * protected paths. */
	if (c->sandbox_mode == SKIT_SANDBOX_READ_ONLY)
		return skit__tool_error(out, is_error,
		                        "%.200s: the sandbox is read-only "
		                        "(--sandbox read-only); nothing is "
		                        "written",
		                        path);
	full = c->sandbox_mode == SKIT_SANDBOX_FULL_ACCESS;
	if (!full &&
	    c->host->protected_rel(c->host_self, path, why, sizeof(why)))
		return protected_error(c, path, why, out, is_error);
	root = project_fd(c, out, is_error, &rc);
	if (root < 0)
		return rc;
	copy = skitx_strdup(path);
	if (!copy)
		return skit__error_oom(err);
	dfd = open_parent(root, copy, &base);
	if (dfd < 0) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      skit__open_failure(errno));
		skitx_free(copy);
		return rc;
	}
	if (!full &&
	    c->host->protected_at(c->host_self, dfd, base, why, sizeof(why))) {
		rc = protected_error(c, path, why, out, is_error);
		goto done;
	}
	existed = !fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW);
	if (existed && !S_ISREG(st.st_mode)) {
		rc = skit__tool_error(out, is_error,
		                      "%.200s exists and is not a regular "
		                      "file; refused",
		                      path);
		goto done;
	}
	if (existed)
		mode = st.st_mode & 0777;
	for (unsigned int i = 0; fd < 0 && i < 16; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, sizeof(tmp), ".%.200s.skit-%ld-%lx", base,
		         (long)getpid(), (unsigned long)ts.tv_nsec ^ i);
		fd = openat(dfd, tmp,
		            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		                    O_CLOEXEC,
		            mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      strerror(errno));
		goto done;
	}
	for (size_t at = 0; !e && at < len;) {
		ssize_t w = write(fd, content + at, len - at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w < 0 ? errno : EIO;
		else
			at += (size_t)w;
	}
	if (!e && (fchmod(fd, mode) < 0 || fsync(fd) < 0))
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && renameat(dfd, tmp, dfd, base) < 0)
		e = errno;
	if (e) {
		unlinkat(dfd, tmp, 0);
		rc = skit__tool_error(out, is_error, "%.200s: %s", path,
		                      strerror(e));
		goto done;
	}
	fsync(dfd);
	skit__sha256_hex(content, len, hex);
	skit__tool_audit(c, "file_written",
	                 json_pack("{s:s, s:I, s:s, s:b}", "path", path,
	                           "bytes", (json_int_t)len, "sha256", hex,
	                           "created", !existed));
	skit__tool_trace(c, SKIT_TRACE_TOOL, "write_file %s (%zu bytes)", path,
	                 len);
	skitx_buf_clear(out);
	rc = skitx_buf_printf(out, "%s %.200s (%zu bytes).",
	                      existed ? "Replaced" : "Created", path, len)
	             ? skit__error_oom(err)
	             : 0;
done:
	close(dfd);
	skitx_free(copy);
	return rc;
}

/* ---- the provider of the project tools -------------------------------- */

/* clang-format off */
static const skit_tool_schema tool_read_file_schema = {
	"read_file",
	"Read a file of the project, by lines. Paths are relative to the "
	"project folder.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"offset\":{\"type\":\"integer\",\"minimum\":1},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1}},"
	"\"required\":[\"path\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_list_dir_schema = {
	"list_dir",
	"List a folder of the project (default: the project folder).",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"}},"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_grep_schema = {
	"grep",
	"Search the project's text files for lines matching a POSIX "
	"extended regular expression; hidden folders are skipped.",
	"{\"type\":\"object\",\"properties\":{"
	"\"pattern\":{\"type\":\"string\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"file or "
	"folder; default: the project\"},"
	"\"glob\":{\"type\":\"string\",\"description\":\"only files "
	"whose name matches, e.g. *.c\"},"
	"\"ignore_case\":{\"type\":\"boolean\"}},"
	"\"required\":[\"pattern\"],\"additionalProperties\":false}"
};

static const skit_tool_schema tool_write_file_schema = {
	"write_file",
	"Create or replace a file of the project with the given content "
	"(written atomically). Needs the user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},"
	"\"content\":{\"type\":\"string\"}},"
	"\"required\":[\"path\",\"content\"],"
	"\"additionalProperties\":false}"
};

static const skit_tool_schema tool_shell_schema = {
	"shell",
	"Run a command line with /bin/sh in a sandbox, in the project "
	"folder (or cwd, a folder inside it); it may write the project as "
	"the sandbox mode allows; $HOME and $TMPDIR are a private "
	"temporary folder; the network is off unless allowed. Needs the "
	"user's approval.",
	"{\"type\":\"object\",\"properties\":{"
	"\"command\":{\"type\":\"string\"},"
	"\"cwd\":{\"type\":\"string\",\"description\":\"a folder "
	"of the project, relative to it; default: the project\"}},"
	"\"required\":[\"command\"],\"additionalProperties\":false}"
};
/* clang-format on */

/* In the order the model sees them; all gated by the policy. */
static size_t project_list(void *self, const struct skit__tool_ctx *c,
                           struct skit__tool_def *out, size_t max)
{
	static const struct {
		const skit_tool_schema *schema;
		skit_risk risk;
	} tools[] = {
		{ &tool_read_file_schema, SKIT_RISK_READ },
		{ &tool_list_dir_schema, SKIT_RISK_READ },
		{ &tool_grep_schema, SKIT_RISK_READ },
		{ &tool_write_file_schema, SKIT_RISK_WRITE },
		{ &tool_shell_schema, SKIT_RISK_EXECUTE },
	};
	size_t n = 0;

	(void)self;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tools) && n < max; i++) {
		out[n].schema = *tools[i].schema;
		out[n].risk = tools[i].risk;
		out[n].gate = SKIT__GATE_BUILTIN;
		out[n].offered = c->file_tools;
		out[n].hint = "";
		n++;
	}
	return n;
}

/* What the policy matches: the command line of shell, else the path (the
 * project itself, ".", for a walk without one). */
static int project_target(void *self, const char *tool, json_t *args,
                          struct skitx_buf *t, const char **skill)
{
	const char *v;

	(void)self;
	*skill = NULL;
	if (!strcmp(tool, "shell")) {
		v = skit__str_arg(args, "command");
		return skitx_buf_puts(t, v ? v : "") ? SKIT_ENOMEM : 0;
	}
	v = skit__str_arg(args, "path");
	if (!v)
		v = strcmp(tool, "list_dir") && strcmp(tool, "grep") ? "" : ".";
	return skitx_buf_puts(t, v) ? SKIT_ENOMEM : 0;
}

static int project_call(void *self, struct skit__tool_ctx *c, const char *tool,
                        json_t *args, struct skitx_buf *out, bool *is_error,
                        skit_error *err)
{
	(void)self;
	if (!strcmp(tool, "read_file"))
		return tool_read_file(c, args, out, is_error, err);
	if (!strcmp(tool, "list_dir"))
		return tool_list_dir(c, args, out, is_error, err);
	if (!strcmp(tool, "grep"))
		return tool_grep(c, args, out, is_error, err);
	if (!strcmp(tool, "write_file"))
		return tool_write_file(c, args, out, is_error, err);
	if (!strcmp(tool, "shell"))
		return skit__tool_shell(c, args, out, is_error, err);
	return skit__tool_error(out, is_error, "unknown tool '%.64s'", tool);
}

const struct skit__tool_provider_ops skit__project_tools = {
	"project", project_list, project_target, project_call, NULL,
};
