/* SPDX-License-Identifier: MIT */
/*
 * planted.c - find what a task's programs planted in the project
 * (planted.h).
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/agent/planted.h"
#include "lib/agent/agent_int.h"
#include "util/alloc.h"
#include "util/buf.h"

/* Folders deeper than this are not entered (a path would outgrow
 * PATH_MAX long before). */
#define MAX_DEPTH 64

struct walk {
	const struct timespec *since;
	struct skitx_vec *found;
	size_t max_found, seen;
	bool *partial;
	struct skitx_buf path; /* project-relative, of the folder walked */
};

static bool is_marker(const char *name)
{
	return !strcmp(name, ".git") || !strcmp(name, ".agents") ||
	       !strcmp(name, ".agent") || !strcmp(name, ".claude");
}

static bool changed_since(const struct stat *st, const struct timespec *t)
{
	return st->st_ctim.tv_sec > t->tv_sec ||
	       (st->st_ctim.tv_sec == t->tv_sec &&
	        st->st_ctim.tv_nsec >= t->tv_nsec);
}

static int record(struct walk *w, const char *name)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int rc;

	if (w->found->len >= w->max_found)
		return 0;
	rc = skitx_buf_printf(&b, "%s%s%s", skitx_buf_cstr(&w->path),
	                      w->path.len ? "/" : "", name);
	if (!rc)
		rc = skitx_vec_push(w->found, b.ptr);
	if (rc) {
		skitx_buf_release(&b);
		return SKIT_ENOMEM;
	}
	return 0;
}

/* Walk the folder `fd` (taken over), `depth` levels below the project. */
static int walk_dir(struct walk *w, int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(fd);
		*w->partial = true;
		return 0;
	}
	while (!rc && (de = readdir(d))) {
		const char *name = de->d_name;
		struct stat st;
		bool dir;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (++w->seen > SKIT__PLANTED_MAX_ENTRIES) {
			*w->partial = true;
			break;
		}
		dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN ||
		    (depth > 0 && is_marker(name))) {
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) <
			    0)
				continue;
			dir = S_ISDIR(st.st_mode);
			/* The project's own markers are the sandbox's
			 * protected paths: not looked at here. */
			if (depth > 0 && is_marker(name) &&
			    changed_since(&st, w->since))
				rc = record(w, name);
		}
		if (rc || !dir || !strcmp(name, ".git"))
			continue;
		if (depth + 1 >= MAX_DEPTH) {
			*w->partial = true;
			continue;
		}
		{
			size_t keep = w->path.len;
			int sub = openat(dirfd(d), name,
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                         O_CLOEXEC);

			if (sub < 0) {
				*w->partial = true;
				continue;
			}
			rc = skitx_buf_printf(&w->path, "%s%s", keep ? "/" : "",
			                      name);
			if (rc) {
				close(sub);
				rc = SKIT_ENOMEM;
				break;
			}
			rc = walk_dir(w, sub, depth + 1);
			skitx_buf_truncate(&w->path, keep);
		}
	}
	closedir(d);
	return rc;
}

int skit__planted_scan(const char *project, const struct timespec *since,
                       struct skitx_vec *found, size_t max_found, bool *partial)
{
	struct walk w;
	int fd, rc;

	*partial = false;
	fd = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*partial = true;
		return 0;
	}
	memset(&w, 0, sizeof(w));
	w.since = since;
	w.found = found;
	w.max_found = max_found;
	w.partial = partial;
	skitx_buf_init(&w.path, 0);
	rc = walk_dir(&w, fd, 0);
	skitx_buf_release(&w.path);
	return rc;
}

/* ---- the agent's report ------------------------------------------------ */

/* At most this many planted entries are reported a task. */
#define PLANTED_MAX 32

void skit__agent_planted_clear(struct skit_agent *a)
{
	for (size_t i = 0; i < a->nplanted; i++)
		skitx_free(a->planted[i]);
	skitx_free(a->planted);
	a->planted = NULL;
	a->nplanted = 0;
	a->planted_partial = false;
}

/*
 * After a task whose programs could write the project: what they left
 * there that runs code or loads skills later (a nested `.git`, a skill
 * root), reported in the trail, the trace and skit_agent_planted(). The
 * sandbox cannot protect paths that do not exist yet (planted.h).
 */
int skit__agent_planted_check(struct skit_agent *a)
{
	struct skitx_vec found = SKITX_VEC_INIT;
	bool partial = false;
	int rc;

	skit__agent_planted_clear(a);
	if (!a->tc.task_scripts || !a->project_dir ||
	    a->sandbox_mode == SKIT_SANDBOX_READ_ONLY)
		return 0;
	rc = skit__planted_scan(a->project_dir, &a->task_since, &found,
	                        PLANTED_MAX, &partial);
	a->planted = (char **)found.items;
	a->nplanted = found.len;
	a->planted_partial = partial;
	if (rc)
		return rc;
	for (size_t i = 0; i < a->nplanted; i++) {
		skit__agent_audit(a, "planted",
		                  json_pack("{s:s}", "path", a->planted[i]));
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "a program of this task created or changed "
		                  "%s (it runs code or loads skills later)",
		                  a->planted[i]);
	}
	return 0;
}

size_t skit_agent_planted_count(const skit_agent *agent)
{
	return agent->nplanted;
}

const char *skit_agent_planted(const skit_agent *agent, size_t i)
{
	assert(i < agent->nplanted);
	return agent->planted[i];
}
