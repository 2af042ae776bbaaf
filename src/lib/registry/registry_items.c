/* SPDX-License-Identifier: MIT */
/*
 * registry_items.c - to-prompt's items (skit_registry_prompt_items()):
 * for each skill folder `skit to-prompt` is given, what the prompt
 * renderer (prompt.c) takes: the name as written, the description and
 * the location of its SKILL.md.
 *
 * skit_registry_prompt_items() loads folders it is given, not roots, but
 * an unchanged skill need not be parsed again when a scan of its parent
 * folder (as a root) cached it: the folders are grouped by parent, each
 * parent's cache is read once, and a folder whose record still matches
 * its key (the same check a scan makes) is served from it. Everything
 * else is loaded exactly as `skit to-prompt` always did. Folders are
 * handled on a few threads; each writes only its own slot.
 */
#include "common.h"

#include <dirent.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skit/registry.h"
#include "lib/registry/registry_int.h"
#include "lib/registry/registry_cache.h"
#include "lib/core/error.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/parallel.h"

/* Parents whose cache is read, at most (each holds a descriptor). */
#define PROMPT_MAX_PARENTS 256

/* A parent folder of some of the given folders, and its cache. */
struct pparent {
	char *path;     /* absolute */
	int fd;         /* -1: not open, so no cache */
	uint64_t dev;   /* its st_dev: the identity a scan gives a folder */
	uint64_t nlink; /* its st_nlink: 2 + its subfolders on most file systems
	                 */
	struct skit__cache cache;
	size_t given; /* how many of the given folders are in it */
	/*
	 * When many of them are: what readdir() says of each cached folder
	 * (by record index; type 0: not listed, so gone), read once, as a
	 * scan does, instead of a stat() per folder. NULL: stat each.
	 */
	struct pdent {
		uint64_t ino;
		unsigned char type;
	} * dents;
};

/* What became of one given folder. */
struct pslot {
	int error;       /* < 0: it failed, and `err` says why */
	uint32_t parent; /* into parents, or SKIT__REGISTRY_NO_ITEM: no cache */
	uint32_t folder; /* offset of the last component in the path */
	bool hit;        /* served from the cache */
	bool miss;       /* not from the cache: to load */
	skit_error *err; /* NULL when out of memory (or no failure) */
};

struct pload {
	const char *const *dirs;
	size_t n;
	skit_prompt_item *items;
	struct pslot *slots;
	struct pparent *parents;
	atomic_size_t first_failed; /* lowest index that failed; n: none */
};

/*
 * An absolute path spelled as skill.c would spell it (no empty, "." or
 * ".." component, no trailing slash), with a last component under the
 * root: only such a path names its folder the way a scan of its parent
 * does, so only such a path is looked up.
 */
static bool plain_abs_path(const char *p)
{
	if (p[0] != '/' || !p[1])
		return false;
	for (const char *c = p + 1;;) {
		const char *e = strchr(c, '/');
		size_t len = e ? (size_t)(e - c) : strlen(c);

		if (!len ||
		    (c[0] == '.' && (len == 1 || (len == 2 && c[1] == '.'))))
			return false;
		if (!e)
			return true;
		c = e + 1;
	}
}

/* Open the parent folder (`len` bytes at `path`) and read its cache. */
static void pparent_open(struct pparent *pp, const char *home, const char *path,
                         size_t len)
{
	struct stat st;
	char *parent;

	memset(pp, 0, sizeof(*pp));
	pp->fd = -1;
	parent = skitx_strndup(path, len);
	if (!parent)
		return;
	pp->path = parent;
	pp->fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pp->fd >= 0 && fstat(pp->fd, &st) < 0) {
		close(pp->fd);
		pp->fd = -1;
	}
	if (pp->fd >= 0) {
		pp->dev = (uint64_t)st.st_dev;
		pp->nlink = (uint64_t)st.st_nlink;
		skit__cache_open(&pp->cache, home, (const char *const *)&parent,
		                 1);
	}
}

/*
 * Read `pp`'s listing into pp->dents, for the folders its cache has
 * records of. On any failure pp->dents stays NULL (stat each folder).
 */
static void pparent_list(struct pparent *pp)
{
	struct dirent *de;
	DIR *dir;
	long rec;
	int fd;

	pp->dents = skitx_calloc(pp->cache.nrecs, sizeof(*pp->dents));
	fd = pp->dents ? dup(pp->fd) : -1;
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		skitx_free(pp->dents);
		pp->dents = NULL;
		return;
	}
	rewinddir(dir);
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de)
			break;
		rec = skit__cache_lookup(&pp->cache, 0, de->d_name);
		if (rec < 0)
			continue;
		pp->dents[rec].ino = (uint64_t)de->d_ino;
		/* DT_UNKNOWN (0) is as good as unlisted: stat it */
		pp->dents[rec].type = de->d_type;
	}
	if (errno) {
		skitx_free(pp->dents); /* a partial listing: stat each */
		pp->dents = NULL;
	}
	closedir(dir);
}

/*
 * Group the folders by parent and read each parent's cache (sequential,
 * before the loads). Nothing here fails: a folder whose parent could not
 * be opened, or one past the cap, is simply loaded.
 */
static size_t prompt_parents(struct pload *pl, const skit_registry *reg,
                             struct skitx_strmap *map)
{
	size_t nparents = 0;
	char *home = NULL;

	for (size_t i = 0; i < pl->n; i++)
		pl->slots[i].parent = SKIT__REGISTRY_NO_ITEM;
	if (skit__registry_cache_disabled(reg))
		return 0;
	home = skit__cache_home();
	pl->parents =
	        home ? skitx_calloc(PROMPT_MAX_PARENTS, sizeof(*pl->parents))
	             : NULL;
	for (size_t i = 0; pl->parents && i < pl->n; i++) {
		const char *dir = pl->dirs[i], *slash;
		size_t plen;
		uint32_t found;
		int put;

		if (!plain_abs_path(dir))
			continue;
		slash = strrchr(dir, '/');
		plen = slash == dir ? 1 : (size_t)(slash - dir); /* "/" */
		put = skitx_strmap_put(map, dir, plen, (uint32_t)nparents,
		                       &found);
		if (put < 0)
			break;
		if (put == 1) {
			if (nparents == PROMPT_MAX_PARENTS)
				continue; /* (the map's value is out of range)
				           */
			pparent_open(&pl->parents[nparents], home, dir, plen);
			found = (uint32_t)nparents++;
		}
		if (found < nparents) {
			pl->slots[i].parent = found;
			pl->slots[i].folder = (uint32_t)(slash + 1 - dir);
			pl->parents[found].given++;
		}
	}
	/*
	 * A listing costs a fraction of a stat() per folder listed: worth
	 * it when a good share of the parent's folders were given (the
	 * usual `skit to-prompt root/<glob>`).
	 */
	for (size_t p = 0; p < nparents; p++) {
		struct pparent *pp = &pl->parents[p];

		if (pp->fd >= 0 && pp->cache.nrecs &&
		    pp->given >= pp->cache.nrecs / 4)
			pparent_list(pp);
	}
	skitx_free(home);
	return nparents;
}

/*
 * Fill `item` from its three strings in one allocation (name, then
 * description, then location, each NUL-terminated; `item->name` owns the
 * block, as skit_registry_prompt_items_free() expects). The location is
 * `dir` with "/" and `file` appended (file NULL: `dir` alone).
 */
static int item_fill(skit_prompt_item *item, const char *name, size_t nlen,
                     const char *desc, size_t dlen, const char *dir,
                     const char *file)
{
	size_t rlen = strlen(dir), flen = file ? strlen(file) + 1 : 0, size;
	char *p;

	if (skitx_add_overflow(nlen, dlen, &size) ||
	    skitx_add_overflow(size, rlen, &size) ||
	    skitx_add_overflow(size, flen, &size) ||
	    skitx_add_overflow(size, 3, &size))
		return SKIT_ENOMEM;
	p = skitx_malloc(size);
	if (!p)
		return SKIT_ENOMEM;
	item->name = p;
	memcpy(p, name, nlen);
	p += nlen;
	*p++ = '\0';
	item->description = p;
	memcpy(p, desc, dlen);
	p += dlen;
	*p++ = '\0';
	item->location = p;
	memcpy(p, dir, rlen);
	p += rlen;
	if (file) {
		*p++ = '/';
		memcpy(p, file, flen - 1);
		p += flen - 1;
	}
	*p = '\0';
	return 0;
}

/*
 * Folder i from its parent's cache: a record for its name, active, whose
 * key matches the folder's identity and SKILL.md's stat() now (one
 * fstatat() of SKILL.md, and of the folder unless the parent was listed;
 * nothing is opened or read). False: load it.
 */
static bool prompt_cached(struct pload *pl, size_t i)
{
	struct pslot *sl = &pl->slots[i];
	skit_prompt_item *item = &pl->items[i];
	const char *dir = pl->dirs[i], *folder, *name;
	struct skit__cache_rec r;
	const struct skit__cache_rec *rec = &r;
	const struct pparent *pp;
	const struct pdent *dent;
	struct skit__cache_key key;
	struct stat st;
	uint64_t dev, ino;
	size_t len;
	long ri;

	if (sl->parent == SKIT__REGISTRY_NO_ITEM)
		return false;
	pp = &pl->parents[sl->parent];
	folder = dir + sl->folder;
	ri = skit__cache_lookup(&pp->cache, 0, folder);
	if (ri < 0)
		return false;
	skit__cache_get(&pp->cache, (size_t)ri, &r);
	if (rec->state != SKIT_ENTRY_ACTIVE)
		return false; /* a skipped skill: load it for its message */
	/*
	 * The folder's identity as a scan records it: a real folder's is
	 * the parent's st_dev and readdir()'s d_ino; a link's, the stat()
	 * of its target.
	 */
	dent = pp->dents ? &pp->dents[ri] : NULL;
	if (dent && dent->type == DT_DIR) {
		dev = pp->dev;
		ino = dent->ino;
	} else {
		if (dent && dent->type != DT_LNK && dent->type != DT_UNKNOWN)
			return false; /* gone, or not a folder */
		if (fstatat(pp->fd, folder, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return false;
		dev = pp->dev;
		if (S_ISLNK(st.st_mode)) {
			if (fstatat(pp->fd, folder, &st, 0) < 0)
				return false;
			dev = (uint64_t)st.st_dev;
		}
		if (!S_ISDIR(st.st_mode))
			return false;
		ino = (uint64_t)st.st_ino;
	}
	if (!skit__cache_key_read(&key, pp->fd, folder, dev, ino) ||
	    !skit__cache_key_eq(&rec->key, &key))
		return false;

	name = rec->str[SKIT__CACHE_NAME_RAW] ? rec->str[SKIT__CACHE_NAME_RAW]
	                                      : rec->str[SKIT__CACHE_NAME];
	len = rec->str[SKIT__CACHE_NAME_RAW] ? rec->len[SKIT__CACHE_NAME_RAW]
	                                     : rec->len[SKIT__CACHE_NAME];
	/* records are never of a lowercase skill.md; `dir` is plain */
	if (item_fill(item, name, len, rec->str[SKIT__CACHE_DESCRIPTION],
	              rec->len[SKIT__CACHE_DESCRIPTION], dir, "SKILL.md") < 0)
		sl->error = SKIT_ENOMEM;
	sl->hit = true;
	return true;
}

/* Record that folder i failed (`err` may be NULL: out of memory). */
static void prompt_fail(struct pload *pl, size_t i, int error,
                        const skit_error *err)
{
	struct pslot *sl = &pl->slots[i];
	size_t cur = atomic_load(&pl->first_failed);

	sl->error = error;
	if (err && error != SKIT_ENOMEM) {
		sl->err = skitx_malloc(sizeof(*sl->err));
		if (sl->err)
			*sl->err = *err;
		else
			sl->error = SKIT_ENOMEM;
	}
	/* later folders need not be loaded: only the first failure counts */
	while (i < cur &&
	       !atomic_compare_exchange_weak(&pl->first_failed, &cur, i))
		;
}

/*
 * Folder i as `skit to-prompt` loads it: skit_skill_load() with the
 * loading rules; a folder they refuse is accepted when the reference's
 * checks (skit_skill_check_properties()) pass, and else fails with their
 * message.
 */
static void prompt_load(struct pload *pl, size_t i)
{
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	skit_prompt_item *item = &pl->items[i];
	skit_error err = { 0 };
	skit_skill *s = NULL;
	const char *base, *name, *desc;
	size_t blen;
	char *loc;
	int error;

	opts.flags = SKIT_SKILL_LENIENT;
	error = skit_skill_load(&s, pl->dirs[i], &opts, &err);
	/*
	 * The loading rules: what the reference accepts is printed as it
	 * prints it, and what only the loader accepts (flow collections, a
	 * missing name...) is printed too; the reference's message
	 * explains a folder neither accepts.
	 */
	if (!error && !skit_skill_valid(s))
		error = skit_skill_check_properties(s, &err);
	if (error < 0) {
		skit_skill_free(s);
		prompt_fail(pl, i, error, &err);
		return;
	}
	base = skitx_path_name(skit_skill_file(s), &blen);
	loc = skitx_path_join(skit_skill_dir(s), base);
	name = skit_skill_name_raw(s) ? skit_skill_name_raw(s)
	                              : skit_skill_dir_name(s);
	desc = skit_skill_description(s);
	if (!loc || item_fill(item, name, strlen(name), desc, strlen(desc), loc,
	                      NULL) < 0)
		prompt_fail(pl, i, SKIT_ENOMEM, NULL);
	skitx_free(loc);
	skit_skill_free(s);
}

/* Folders [begin, end) from the cache, where it holds (a thread). */
static void prompt_hit_batch(void *payload, size_t worker, size_t begin,
                             size_t end)
{
	struct pload *pl = payload;

	(void)worker;
	for (size_t i = begin; i < end; i++) {
		if (!prompt_cached(pl, i))
			pl->slots[i].miss = true;
		else if (pl->slots[i].error < 0)
			prompt_fail(pl, i, pl->slots[i].error, NULL);
	}
}

/* The folders [begin, end) still to load (a thread). */
static void prompt_load_batch(void *payload, size_t worker, size_t begin,
                              size_t end)
{
	struct pload *pl = payload;

	(void)worker;
	for (size_t i = begin; i < end; i++) {
		if (i > atomic_load(&pl->first_failed))
			return;
		if (pl->slots[i].miss)
			prompt_load(pl, i);
	}
}

/*
 * Whether the parent `pp` holds at most `limit` folders (and links),
 * counted by one readdir(); false as soon as it holds more. Where the
 * file system counts subfolders in the link count (ext4, xfs, tmpfs: 2 +
 * subfolders), that count decides without the listing: only links go
 * uncounted, and a folder of many links is then scanned, which costs
 * time, never a different output.
 */
static bool few_folders(const struct pparent *pp, size_t limit)
{
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	int fd;

	if (pp->nlink > 2)
		return pp->nlink - 2 <= limit;
	fd = dup(pp->fd);

	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	rewinddir(dir);
	while (n <= limit && (de = readdir(dir)) != NULL)
		if (de->d_name[0] != '.' &&
		    (de->d_type == DT_DIR || de->d_type == DT_LNK ||
		     de->d_type == DT_UNKNOWN))
			n++;
	closedir(dir);
	return n <= limit;
}

/*
 * The misses of parent `p` from a scan of that parent as a root, which
 * loads what changed and writes its cache, as `skit list --root PARENT`
 * does: the next run finds every record. Only when the given folders are
 * at least a quarter of the parent's (scanning a big folder for a few of
 * its skills would cost more than it saves). A folder is served from the
 * scan only when its entry is active and not of a lowercase skill.md, the
 * cases a record serves; the rest stay misses, loaded as always.
 */
static void prompt_scan_parent(struct pload *pl, skit_registry *reg, size_t p,
                               size_t misses)
{
	struct skitx_strmap map = SKITX_STRMAP_INIT;
	const struct pparent *pp = &pl->parents[p];
	const struct skit__index *ix;
	skit_registry *tmp = NULL;

	if (pp->fd < 0 || !pp->path || !misses || pp->given > SIZE_MAX / 4 ||
	    !few_folders(pp, pp->given * 4))
		return;
	if (skit_registry_new(&tmp, NULL) < 0 ||
	    skit_registry_add_root(tmp, "parent", pp->path, NULL) < 0)
		goto out;
	tmp->threads = reg->threads;
	tmp->diags_unread = true;
	if (skit_registry_scan(tmp, NULL) < 0)
		goto out;
	reg->cache_stats.written += tmp->cache_stats.written;
	reg->cache_stats.stored += tmp->cache_stats.stored;
	ix = tmp->index;
	for (size_t k = 0; k < ix->nall; k++) {
		const struct skit__item *it = &ix->all[k];

		if (it->e.state == SKIT_ENTRY_ACTIVE &&
		    !(it->e.flags & SKIT_SKILL_LOWERCASE_FILE) &&
		    skitx_strmap_put(&map, it->folder, strlen(it->folder),
		                     (uint32_t)k, NULL) < 0)
			goto out; /* no memory: the rest is loaded */
	}
	for (size_t i = 0; i < pl->n; i++) {
		struct pslot *sl = &pl->slots[i];
		skit_prompt_item *item = &pl->items[i];
		const struct skit__item *it;
		const char *folder, *name;
		uint32_t *k;

		if (sl->parent != p || !sl->miss)
			continue;
		folder = pl->dirs[i] + sl->folder;
		k = skitx_strmap_get(&map, folder, strlen(folder));
		if (!k)
			continue;
		it = &ix->all[*k];
		name = it->name_raw ? it->name_raw : it->e.name;
		sl->miss = false;
		/* `dirs[i]` is plain (it has a parent) */
		if (item_fill(item, name, strlen(name), it->e.description,
		              strlen(it->e.description), pl->dirs[i],
		              "SKILL.md") < 0)
			prompt_fail(pl, i, SKIT_ENOMEM, NULL);
	}
out:
	skitx_strmap_release(&map);
	skit_registry_free(tmp);
}

int skit_registry_prompt_items(skit_prompt_item **out, skit_registry *reg,
                               const char *const *dirs, size_t n,
                               skit_error *err)
{
	struct skitx_strmap map = SKITX_STRMAP_INIT;
	struct pload pl;
	size_t nparents = 0, nthreads = 1, batch, failed;
	int error = 0;

	assert(out && reg && (dirs || !n));
	*out = NULL;
	memset(&pl, 0, sizeof(pl));
	pl.dirs = dirs;
	pl.n = n;
	atomic_init(&pl.first_failed, n);
	memset(&reg->cache_stats, 0, sizeof(reg->cache_stats));
	if (!n)
		return 0;
	pl.items = skitx_calloc(n, sizeof(*pl.items));
	pl.slots = skitx_calloc(n, sizeof(*pl.slots));
	if (!pl.items || !pl.slots) {
		error = skit__error_oom(err);
		goto out;
	}
	nparents = prompt_parents(&pl, reg, &map);

	/* threads as for a scan (an embedder's allocator: one) */
	if (skitx_alloc_is_default())
		nthreads = reg->threads ? reg->threads
		           : n >= SKIT__REGISTRY_PARALLEL_MIN
		                   ? skitx_parallel_threads()
		                   : 1;
	if (nthreads > SKITX_PARALLEL_MAX)
		nthreads = SKITX_PARALLEL_MAX;
	batch = n / (nthreads * 4);
	batch = batch < 1 ? 1
	        : batch > SKIT__REGISTRY_PARALLEL_BATCH
	                ? SKIT__REGISTRY_PARALLEL_BATCH
	                : batch;
	/*
	 * First what the parents' caches hold; then each parent with misses
	 * may be scanned, which keeps its cache; then the rest is loaded.
	 */
	if (nparents)
		skitx_parallel_for(n, batch, nthreads, prompt_hit_batch, &pl);
	else
		for (size_t i = 0; i < n; i++)
			pl.slots[i].miss = true;
	for (size_t p = 0; p < nparents; p++) {
		size_t misses = 0;

		for (size_t i = 0; i < n; i++)
			misses += pl.slots[i].parent == p && pl.slots[i].miss;
		prompt_scan_parent(&pl, reg, p, misses);
	}
	skitx_parallel_for(n, batch, nthreads, prompt_load_batch, &pl);

	for (size_t i = 0; i < n; i++)
		reg->cache_stats.hits += pl.slots[i].hit && !pl.slots[i].error;
	failed = atomic_load(&pl.first_failed);
	if (failed < n) {
		const struct pslot *sl = &pl.slots[failed];

		if (sl->err && err)
			*err = *sl->err;
		else if (!sl->err)
			skit__error_oom(err);
		error = sl->error;
		goto out;
	}
	*out = pl.items;
	pl.items = NULL;
out:
	skit_registry_prompt_items_free(pl.items, n);
	for (size_t i = 0; pl.slots && i < n; i++)
		skitx_free(pl.slots[i].err);
	skitx_free(pl.slots);
	for (size_t i = 0; i < nparents; i++) {
		if (pl.parents[i].fd >= 0)
			close(pl.parents[i].fd);
		skit__cache_release(&pl.parents[i].cache);
		skitx_free(pl.parents[i].dents);
		skitx_free(pl.parents[i].path);
	}
	skitx_free(pl.parents);
	skitx_strmap_release(&map);
	return error;
}

void skit_registry_prompt_items_free(skit_prompt_item *items, size_t n)
{
	if (!items)
		return;
	/* each item's strings are one block, which its name starts */
	for (size_t i = 0; i < n; i++)
		skitx_free((char *)items[i].name);
	skitx_free(items);
}

/* ---- the index as the agent renders it --------------------------------- */

int skit_registry_render_index(const skit_registry *reg,
                               const skit_prompt_options *opts, char **out,
                               skit_prompt_stats *stats, skit_error *err)
{
	static const skit_prompt_options defaults = SKIT_PROMPT_OPTIONS_INIT;
	size_t n = skit_registry_count(reg), k = 0;
	skit_prompt_item *items;
	char **descs;
	int rc = 0;

	assert(reg && out);
	*out = NULL;
	items = skitx_calloc(n ? n : 1, sizeof(*items));
	descs = skitx_calloc(n ? n : 1, sizeof(*descs));
	if (!items || !descs) {
		skitx_free(items);
		skitx_free(descs);
		return skit__error_oom(err);
	}
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_entry(reg, i);

		if (e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION)
			continue;
		items[k].name = e->name;
		items[k].description = e->description;
		items[k].location = e->file;
		if (e->when_to_use && *e->when_to_use) {
			size_t len = strlen(e->description) +
			             strlen(e->when_to_use) + 2;

			descs[k] = skitx_malloc(len);
			if (!descs[k]) {
				rc = skit__error_oom(err);
				break;
			}
			snprintf(descs[k], len, "%s %s", e->description,
			         e->when_to_use);
			items[k].description = descs[k];
		}
		k++;
	}
	if (!rc)
		rc = skit_prompt_render(out, items, k, opts ? opts : &defaults,
		                        stats, err);
	for (size_t i = 0; i < k; i++)
		skitx_free(descs[i]);
	skitx_free(descs);
	skitx_free(items);
	return rc;
}
