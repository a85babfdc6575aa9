/* runs.c: the `runs:` of a report's front matter (SPEC section 2).
 *
 *   runs:
 *     cs512:  logs/cerebras/bs512.log                  # parser detected
 *     cs2048: { file: logs/cerebras/bs2048.log, parser: cerebras }
 *     cs:     { glob: "logs/cerebras/bs*.log", parser: cerebras,
 *               name_pattern: 'bs(?<batch_size>\d+)' }
 *
 * Every path is taken relative to the report's folder and must lead,
 * after symbolic links, to a file inside the project: nothing outside
 * it is ever opened.  A glob's members are sorted by path (bytewise, so
 * the order never depends on the locale); each is named by its file
 * stem ("bs512"), and name_pattern's named groups, matched against the
 * member's file name, become its fields: typed as a log capture is, with
 * the file name as their text and line 0 (they come from no line).
 * They replace fields of the same name that the parser found, since the
 * author asked for them.
 *
 * A run that fails to load is left out of the result (its error already
 * reported) and its name kept in the result's `failed`, so that a use of
 * it further down the report is not "not defined".  So is a glob that
 * loaded no run (it matches no file, or every member failed); a set
 * that loaded some keeps them, and its failed members' names are kept
 * as failed too. */
#include "parse/runs.h"

#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <malloc.h>
#include <math.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>
#include <xxhash.h>

#include "data/cache.h"
#include "data/keys.h"
#include "base/fsutil.h"
#include "data/limit.h"
#include "base/util.h"
#include "parse/notebook.h"
#include "parse/valuetype.h"
#include "parser.h"

/* name_pattern only ever sees a file name: a small budget is plenty,
 * and a pattern that backtracks without end fails instead of hanging. */
#define NAME_MATCH_LIMIT 100000
/* A parsed run of this many rows gives its memory back once stored
 * (run_swap_freed()). */
#define RUN_TRIM_ROWS ((size_t)1 << 20)

static const char *const entry_keys[] = {"file",      "glob",    "parser", "name_pattern",
					 "run",       "number_style", "delimiter", "columns",
					 "header",    NULL};

struct loader {
	const char *report_dir;
	const char *root_real;
	const struct parser_set *parsers;
	struct diag *d;
	bool ok;
	struct report_runs *out; /* for its names that did not load */
	struct parse_cache *cache;
	/* report_runs_inputs(): hash what would be loaded, load nothing */
	struct cache *disk;
	const struct cache_key *parsers_key; /* or NULL: mark no run to keep */
	struct cache_hasher *inputs;
	void (*on_file)(void *ctx, const char *shown);
	void *file_ctx;
	/* with defer_whole, a file the load will read whole (a new log:
	 * cache_reads_whole()) is not hashed here, since the load's parse
	 * hashes it as it reads: `deferred` says one was, and the inputs
	 * are then to be taken again after the load */
	bool defer_whole, deferred;
	/* The number_style of the entry being loaded (NULL: the parser's),
	 * and where it is written. */
	const struct numstyle *style;
	struct loc style_loc;
	/* Its delimiter, columns and header (csv NULL: the parser's), which
	 * of them it gives, and where the first is written. */
	const struct csv_options *csv;
	bool csv_given[3];
	struct loc csv_loc;
};

/* What a set holds in report_runs_inputs(): no run is loaded. */
static char placeholder;

/* --- the parse cache --- */

struct cache_entry {
	char *real, *shown, *run_name, *parser, *np; /* np: "" without one */
	long long st[6];                             /* size, mtime, inode, ctime */
	struct run *run;
	bool reusable;
	bool has_dkey;          /* keyed by content (with a disk cache) */
	struct cache_key dkey;
	unsigned long gen; /* the last build that used it */
};

struct parse_cache {
	pthread_mutex_t mu; /* reports load on several threads (site.h: jobs) */
	struct cache_entry *e;
	size_t n, cap;
	/* The entries by content key and by path, stat and names: open
	 * addressing, entry index + 1 (0: empty), icap slots each.  A
	 * report with 100,000 runs looks each up once, not in a scan. */
	size_t *by_dkey, *by_path;
	size_t icap;
	unsigned long gen;
	size_t parsed, reused, from_disk;
	size_t continued; /* of parsed: from where the last parse stopped */
	struct cache *disk;          /* or NULL */
	struct cache_key parsers_key; /* the parser set, for disk keys */
	/* The disk keys being parsed now, by a thread each (busy_mark()),
	 * and the signal that one is done. */
	struct cache_key *busy;
	size_t nbusy, capbusy;
	pthread_cond_t done;
};

struct parse_cache *parse_cache_new(void)
{
	struct parse_cache *c = xcalloc(1, sizeof *c);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->done, NULL);
	c->gen = 1;
	return c;
}

static void entry_free(struct cache_entry *e)
{
	free(e->real);
	free(e->shown);
	free(e->run_name);
	free(e->parser);
	free(e->np);
	run_free(e->run);
}

static uint64_t dkey_hash(const struct cache_key *k)
{
	uint64_t h;
	memcpy(&h, k->b, sizeof h);
	return h;
}

static uint64_t path_hash(const char *real, const char *shown, const char *run_name,
			  const char *parser, const char *np, const long long st[6])
{
	const char *parts[] = {real, shown, run_name, parser, np};
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < ARRAY_LEN(parts); i++)
		h = (h ^ str_hash(parts[i])) * 1099511628211u;
	for (int i = 0; i < 6; i++)
		h = (h ^ (uint64_t)st[i]) * 1099511628211u;
	return h;
}

static void slot_put(size_t *t, size_t cap, uint64_t h, size_t i)
{
	size_t at = (size_t)h & (cap - 1);
	while (t[at])
		at = (at + 1) & (cap - 1);
	t[at] = i + 1;
}

static void index_put(struct parse_cache *c, size_t i)
{
	const struct cache_entry *e = &c->e[i];
	if (e->has_dkey)
		slot_put(c->by_dkey, c->icap, dkey_hash(&e->dkey), i);
	/* only what cache_find() can return: a run read back from disk has
	 * no path, and all such would share one slot's chain */
	if (e->reusable && *e->real)
		slot_put(c->by_path, c->icap,
			 path_hash(e->real, e->shown, e->run_name, e->parser, e->np, e->st), i);
}

/* Both indexes made again for the entries there are (after a sweep, or
 * to grow them): at most half full. */
static void index_rebuild(struct parse_cache *c)
{
	size_t cap = 64;
	while (cap < 2 * (c->n + 1))
		cap *= 2;
	free(c->by_dkey);
	free(c->by_path);
	c->by_dkey = xcalloc(cap, sizeof *c->by_dkey);
	c->by_path = xcalloc(cap, sizeof *c->by_path);
	c->icap = cap;
	for (size_t i = 0; i < c->n; i++)
		index_put(c, i);
}

/* A new entry at the end, zeroed; index it with entry_indexed() once its
 * keys are set.  Under c->mu. */
static struct cache_entry *entry_new(struct parse_cache *c)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->e = xrealloc(c->e, c->cap * sizeof *c->e);
	}
	struct cache_entry *e = &c->e[c->n++];
	memset(e, 0, sizeof *e);
	return e;
}

static void entry_indexed(struct parse_cache *c)
{
	if (2 * c->n > c->icap)
		index_rebuild(c);
	else
		index_put(c, c->n - 1);
}

void parse_cache_sweep(struct parse_cache *c)
{
	if (!c)
		return;
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->e[i].reusable && c->e[i].gen == c->gen)
			c->e[k++] = c->e[i];
		else
			entry_free(&c->e[i]);
	}
	c->n = k;
	c->gen++;
	index_rebuild(c);
}

void parse_cache_clear(struct parse_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		entry_free(&c->e[i]);
	c->n = 0;
	index_rebuild(c);
}

void parse_cache_free(struct parse_cache *c)
{
	if (!c)
		return;
	parse_cache_clear(c);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->done);
	free(c->busy);
	free(c->by_dkey);
	free(c->by_path);
	free(c->e);
	free(c);
}

size_t parse_cache_parsed(const struct parse_cache *c)
{
	return c ? c->parsed : 0;
}

size_t parse_cache_reused(const struct parse_cache *c)
{
	return c ? c->reused : 0;
}

size_t parse_cache_from_disk(const struct parse_cache *c)
{
	return c ? c->from_disk : 0;
}

size_t parse_cache_continued(const struct parse_cache *c)
{
	return c ? c->continued : 0;
}

void parse_cache_set_disk(struct parse_cache *c, struct cache *disk,
			  const struct cache_key *parsers)
{
	if (!c)
		return;
	c->disk = disk;
	if (parsers)
		c->parsers_key = *parsers;
}

struct cache_key parse_cache_parsers_key(const struct parser_set *set)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "parsers");
	for (size_t i = 0; i < parsers_count(set); i++) {
		const struct parser *p = parsers_at(set, i);
		size_t len;
		const char *text = parser_source(p, &len);
		cache_hasher_str(h, parser_name(p));
		cache_hasher_str(h, parser_origin(p));
		cache_hasher_bytes(h, text, len);
	}
	return cache_hasher_end(h);
}

/* The run stored under the content key k: in memory, or on disk (then
 * kept in memory too).  NULL when neither has it.  The key knows the
 * file by its place in the project, not by the name diagnostics give
 * it (shown: the path as logdown was given it, so `build .` and
 * `serve /abs/project` share their stored runs): a run read back from
 * disk is given the name shown, and one in memory is taken only when it
 * has that name. */
static struct run *content_hit(struct parse_cache *c, const struct cache_key *k,
			       const char *shown, const char *rel)
{
	pthread_mutex_lock(&c->mu);
	for (size_t at = c->icap ? (size_t)dkey_hash(k) & (c->icap - 1) : 0;
	     c->icap && c->by_dkey[at]; at = (at + 1) & (c->icap - 1)) {
		struct cache_entry *e = &c->e[c->by_dkey[at] - 1];
		if (e->reusable && e->has_dkey && memcmp(e->dkey.b, k->b, sizeof k->b) == 0 &&
		    strcmp(e->shown, shown) == 0 && strcmp(run_file_attr(e->run), rel) == 0) {
			e->gen = c->gen;
			c->reused++;
			pthread_mutex_unlock(&c->mu);
			cache_run_keep(c->disk, k);
			return e->run;
		}
	}
	pthread_mutex_unlock(&c->mu);
	struct run *r = cache_run_get(c->disk, k);
	if (!r)
		return NULL;
	run_set_file(r, shown);
	run_set_file_attr(r, rel);
	pthread_mutex_lock(&c->mu);
	c->from_disk++;
	struct cache_entry *e = entry_new(c);
	e->real = xstrdup("");
	e->shown = xstrdup(shown);
	e->run_name = xstrdup("");
	e->parser = xstrdup("");
	e->np = xstrdup("");
	e->run = r;
	e->reusable = true;
	e->has_dkey = true;
	e->dkey = *k;
	e->gen = c->gen;
	entry_indexed(c);
	pthread_mutex_unlock(&c->mu);
	return r;
}

static bool file_key(const char *real, long long st_out[6])
{
	struct stat st;
	if (stat(real, &st) != 0)
		return false;
	long long v[6] = {(long long)st.st_size,
			  (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
			  (long long)st.st_ino,
			  (long long)st.st_dev,
			  (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec,
			  (long long)st.st_mode};
	memcpy(st_out, v, sizeof v);
	return true;
}

static struct cache_entry *cache_find(struct parse_cache *c, const char *real, const char *shown,
				      const char *run_name, const char *parser, const char *np,
				      const long long st[6])
{
	for (size_t at = c->icap ? (size_t)path_hash(real, shown, run_name, parser, np, st) &
					   (c->icap - 1)
				 : 0;
	     c->icap && c->by_path[at]; at = (at + 1) & (c->icap - 1)) {
		struct cache_entry *e = &c->e[c->by_path[at] - 1];
		if (e->reusable && strcmp(e->real, real) == 0 && strcmp(e->shown, shown) == 0 &&
		    strcmp(e->run_name, run_name) == 0 && strcmp(e->parser, parser) == 0 &&
		    strcmp(e->np, np) == 0 && memcmp(e->st, st, sizeof e->st) == 0)
			return e;
	}
	return NULL;
}

/* The text of a scalar that names a path or a parser ("512" too), or
 * NULL after an error. */
static const char *entry_text(struct loader *ld, const char *run, const char *key,
			      const struct value *v)
{
	if ((v->kind == VALUE_STRING || v->kind == VALUE_NUMBER) && v->text && v->len > 0)
		return v->text;
	diag_error(ld->d, v->loc, "'%s' of run '%s' must be %s, not %s", key, run,
		   strcmp(key, "parser") == 0 ? "a parser name"
		   : strcmp(key, "name_pattern") == 0 ? "a pattern"
						       : "a path",
		   v->kind == VALUE_STRING ? "an empty string" : value_kind_name(v->kind));
	ld->ok = false;
	return NULL;
}

/* The entry of folder dir (a path the build can open) closest to name,
 * among its files (want_dir false) or folders: a plausible typo, or
 * NULL.  Hidden entries only for a hidden name.  Caller frees. */
static char *near_entry(const char *dir, const char *name, bool want_dir)
{
	size_t n;
	char **all = dir_list(*dir ? dir : ".", &n);
	if (!all)
		return NULL;
	const char **cands = xcalloc(n + 1, sizeof *cands);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (all[i][0] == '.' && name[0] != '.')
			continue;
		char *full = path_join(dir, all[i]);
		if (want_dir ? is_dir(full) : is_file(full))
			cands[k++] = all[i];
		free(full);
	}
	const char *near = closest_name(name, cands);
	char *out = near ? xstrdup(near) : NULL;
	free(cands);
	strv_free(all);
	return out;
}

/* For a path that does not exist (rel, as written, relative to the
 * report's folder): the nearest one that does, as the author would
 * write it ("logs/bs512.lgo" -> "logs/bs512.log"; a folder's typo is
 * mended too: "logz/bs512.log" -> "logs/bs512.log"); a file, or a folder
 * when want_dir.  NULL when nothing is close.  Caller frees. */
static char *near_path(const char *report_dir, const char *rel, bool want_dir)
{
	const char *slash = strrchr(rel, '/');
	const char *base = slash ? slash + 1 : rel;
	char *head = slash ? xstrndup(rel, slash == rel ? 1 : (size_t)(slash - rel)) : xstrdup("");
	char *out = NULL;
	if (!*base)
		goto out;
	char *dir = path_join(report_dir, head);
	char *fixed = NULL; /* head, mended when it is no folder */
	if (is_dir(*dir ? dir : "."))
		fixed = xstrdup(head);
	else if (*head && strcmp(head, "/") != 0)
		fixed = near_path(report_dir, head, true);
	free(dir);
	if (!fixed)
		goto out;
	dir = path_join(report_dir, fixed);
	char *whole = path_join(dir, base);
	char *name = (want_dir ? is_dir(whole) : is_file(whole)) ? xstrdup(base)
								  : near_entry(dir, base, want_dir);
	/* the head as it was is no suggestion: the name itself was not close */
	if (name && (strcmp(fixed, head) != 0 || strcmp(name, base) != 0))
		out = *fixed ? path_join(fixed, name) : xstrdup(name);
	free(name);
	free(whole);
	free(dir);
	free(fixed);
out:
	free(head);
	return out;
}

/* Whether the first n bytes of b are a plausible typo of those of a
 * (the literal start or end of a glob: a close whole pattern may still
 * have replaced all of it, "gpu*.log" by "ali*.log"). */
static bool end_close(const char *a, const char *b, size_t n)
{
	char *x = xstrndup(a, n), *y = xstrndup(b, n);
	const char *const cand[] = {y, NULL};
	bool ok = strcmp(x, y) == 0 || closest_name(x, cand) != NULL;
	free(x);
	free(y);
	return ok;
}

/* For a glob that matches no file (pattern, relative to report_dir):
 * the nearest one that does, as the author would write it.  A typo is
 * looked for in the pattern's literal ends: each file of the folder
 * gives the pattern with its own start and end in their place
 * ("bs*.lgo" and bs512.log give "bs*.log"), and the closest of those
 * that matches its file is the suggestion; a folder's typo is mended as
 * near_path() does.  NULL when nothing is close, or the folders hold
 * wildcards.  Caller frees. */
static char *near_glob(const char *report_dir, const char *pattern)
{
	const char *slash = strrchr(pattern, '/');
	const char *base = slash ? slash + 1 : pattern;
	char *head = slash ? xstrndup(pattern, slash == pattern ? 1 : (size_t)(slash - pattern))
			   : xstrdup("");
	char *out = NULL, *fixed = NULL, *dir = NULL, *name = NULL;
	char **all = NULL;
	const char **cands = NULL;
	char **made = NULL;
	size_t n = 0;
	if (!*base || strpbrk(head, "*?["))
		goto out;
	dir = path_join(report_dir, head);
	if (is_dir(*dir ? dir : "."))
		fixed = xstrdup(head);
	else if (*head && strcmp(head, "/") != 0)
		fixed = near_path(report_dir, head, true);
	free(dir);
	dir = fixed ? path_join(report_dir, fixed) : NULL;
	all = dir ? dir_list(*dir ? dir : ".", &n) : NULL;
	if (!all)
		goto out;
	size_t pre = strcspn(base, "*?["), blen = strlen(base);
	bool wild = pre < blen;
	size_t post = 0; /* the literal end, after the last wildcard */
	while (wild && post < blen && !strchr("*?]", base[blen - 1 - post]))
		post++;
	cands = xcalloc(n + 1, sizeof *cands);
	made = xcalloc(n + 1, sizeof *made);
	size_t k = 0;
	bool matches = false;
	for (size_t i = 0; i < n; i++) {
		char *full = path_join(dir, all[i]);
		bool file = is_file(full);
		free(full);
		if (!file)
			continue;
		if (fnmatch(base, all[i], FNM_PERIOD) == 0)
			matches = true;
		size_t flen = strlen(all[i]);
		if (!wild) {
			if (all[i][0] != '.' || base[0] == '.')
				cands[k++] = all[i];
			continue;
		}
		if (flen < pre + post)
			continue;
		/* the file's own ends around the pattern's wildcards */
		struct buf b = BUF_INIT;
		buf_put(&b, all[i], pre);
		buf_put(&b, base + pre, blen - pre - post);
		buf_puts(&b, all[i] + flen - post);
		char *c = buf_detach(&b);
		if (fnmatch(c, all[i], FNM_PERIOD) == 0 && (all[i][0] != '.' || base[0] == '.'))
			cands[k++] = made[i] = c;
		else
			free(c);
	}
	const char *best = matches ? NULL : closest_name(base, cands);
	if (matches)
		name = xstrdup(base); /* only the folder was wrong */
	else if (best && (!wild || (end_close(base, best, pre) &&
				    end_close(base + blen - post, best + strlen(best) - post, post))))
		name = xstrdup(best);
	if (name && (strcmp(fixed, head) != 0 || strcmp(name, base) != 0))
		out = *fixed ? path_join(fixed, name) : xstrdup(name);
out:
	for (size_t i = 0; made && i < n; i++)
		free(made[i]);
	free(made);
	free(cands);
	strv_free(all);
	free(name);
	free(dir);
	free(fixed);
	free(head);
	return out;
}

/* "cannot read REL: No such file or directory", with the nearest
 * existing path when there is one close; rel is relative to dir. */
static void cannot_read(struct loader *ld, struct loc at, const char *dir, const char *rel,
			int err)
{
	char *near = err == ENOENT ? near_path(dir, rel, false) : NULL;
	if (near)
		diag_error(ld->d, at, "cannot read %s: %s (did you mean '%s'?)", rel, strerror(err),
			   near);
	else
		diag_error(ld->d, at, "cannot read %s: %s", rel, strerror(err));
	free(near);
}

/* Checks that path (as written: `rel`, reported at `at`) leads to a
 * regular file inside the project.  Returns its canonical form, which is
 * what gets read, or NULL after an error. */
static char *confined_file(struct loader *ld, const char *path, const char *rel, struct loc at)
{
	/* a glob's member is named by its whole path, a run's file as written */
	const char *dir = rel == path ? "" : ld->report_dir;
	char *real = path_resolve(path);
	if (!real) {
		cannot_read(ld, at, dir, rel, errno);
		ld->ok = false;
		return NULL;
	}
	if (!path_under(real, ld->root_real)) {
		diag_error(ld->d, at,
			   "%s leads outside the project: logdown reads nothing there (copy the "
			   "file into the project)",
			   rel);
		goto fail;
	}
	struct stat st;
	if (stat(real, &st) != 0) {
		cannot_read(ld, at, dir, rel, errno);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		diag_error(ld->d, at, "%s is a folder, not a result file", rel);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(ld->d, at, "%s is not a regular file (%s)", rel,
			   file_kind_word(st.st_mode));
		goto fail;
	}
	return real;
fail:
	ld->ok = false;
	free(real);
	return NULL;
}

static bool load_all(struct loader *ld, struct report_runs *out, const struct value *spec);

/* A member's name without the file's run name: "run2" of "mnist.run2". */
static const char *member_short(const struct run *m, const char *set_name)
{
	size_t n = strlen(set_name);
	const char *name = run_name(m);
	return strncmp(name, set_name, n) == 0 && name[n] == '.' ? name + n + 1 : name;
}

/* "run1 (line 1), run2 (line 78)" */
static char *members_list(const struct run *whole, const char *set_name)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < run_member_count(whole); i++) {
		const struct run *m = run_member_at(whole, i);
		buf_printf(&b, "%s%s (line %ld)", i ? ", " : "", member_short(m, set_name),
			   run_first_line(m));
	}
	return buf_detach(&b);
}

/* `run:` of a file entry: the run it picks of the file's runs (first,
 * last, a number from 1, or a member's name), renamed run_name and made
 * a plain run; r is freed.  NULL after an error at the value. */
static struct run *pick_run(struct loader *ld, struct run *r, const struct value *pick,
			    const char *set_name)
{
	size_t n = run_member_count(r);
	size_t total = n ? n : 1;
	long want = -1; /* 0-based */
	char *text = pick->text ? xstrndup(pick->text, pick->len) : NULL;
	if (pick->kind == VALUE_NUMBER) {
		double k = pick->number;
		if (k != floor(k) || k < 1) {
			diag_error(ld->d, pick->loc,
				   "run: is first, last, a run's number from 1 or its name, not %s",
				   text ? text : "that number");
			goto fail;
		}
		if (k > (double)total) {
			char *list = n ? members_list(r, set_name) : NULL;
			if (n)
				diag_error(ld->d, pick->loc, "run: %s, but %s holds %zu runs: %s", text,
					   run_file(r), n, list);
			else
				diag_error(ld->d, pick->loc,
					   "run: %s, but %s holds one run (its parser did not split it)",
					   text, run_file(r));
			free(list);
			goto fail;
		}
		want = (long)k - 1;
	} else if (pick->kind == VALUE_STRING && strcmp(text, "first") == 0) {
		want = 0;
	} else if (pick->kind == VALUE_STRING && strcmp(text, "last") == 0) {
		want = (long)total - 1;
	} else if (pick->kind == VALUE_STRING && *text) {
		for (size_t i = 0; i < n && want < 0; i++)
			if (strcmp(member_short(run_member_at(r, i), set_name), text) == 0)
				want = (long)i;
		if (want < 0) {
			if (!n) {
				diag_error(ld->d, pick->loc,
					   "%s holds one run (its parser did not split it): it has no "
					   "run '%s'; leave run: out",
					   run_file(r), text);
				goto fail;
			}
			const char **names = xcalloc(n + 1, sizeof *names);
			for (size_t i = 0; i < n; i++)
				names[i] = member_short(run_member_at(r, i), set_name);
			const char *close = closest_name(text, names);
			char *list = members_list(r, set_name);
			if (close)
				diag_error(ld->d, pick->loc,
					   "%s has no run '%s' (did you mean '%s'?); its runs: %s",
					   run_file(r), text, close, list);
			else
				diag_error(ld->d, pick->loc,
					   "%s has no run '%s'; its runs: %s (or first, last, a "
					   "number)",
					   run_file(r), text, list);
			free(list);
			free(names);
			goto fail;
		}
	} else {
		diag_error(ld->d, pick->loc,
			   "run: is first, last, a run's number from 1 or its name, not %s",
			   value_kind_name(pick->kind));
		goto fail;
	}
	free(text);
	if (!n)
		return r;
	struct run *m = run_take_member(r, (size_t)want);
	run_free(r);
	run_set_name(m, set_name);
	return m;
fail:
	free(text);
	run_free(r);
	ld->ok = false;
	return NULL;
}

/* Whether this build already parsed a run under content key k (with
 * c->mu held), whatever name its report gave the file. */
static bool dkey_parsed(const struct parse_cache *c, const struct cache_key *k)
{
	for (size_t at = c->icap ? (size_t)dkey_hash(k) & (c->icap - 1) : 0;
	     c->icap && c->by_dkey[at]; at = (at + 1) & (c->icap - 1)) {
		const struct cache_entry *e = &c->e[c->by_dkey[at] - 1];
		if (e->reusable && e->has_dkey && memcmp(e->dkey.b, k->b, sizeof k->b) == 0)
			return true;
	}
	return false;
}

/* Marks the run stored under k as being parsed by this thread, unless
 * another thread of the build parses it: then waits for that one to be
 * done and says so (false), and the caller looks for its run again.  A
 * log two reports name differently (../logs/x.log, ../../logs/x.log)
 * has one key: it is parsed once, whichever report loads first.  The
 * other thread may also have parsed and stored it, and cleared its mark,
 * between the caller's look and this mark: that says false too. */
static bool busy_mark(struct parse_cache *c, const struct cache_key *k)
{
	bool waited = false;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		size_t i = 0;
		while (i < c->nbusy && memcmp(c->busy[i].b, k->b, sizeof k->b) != 0)
			i++;
		if (i == c->nbusy)
			break;
		waited = true;
		pthread_cond_wait(&c->done, &c->mu);
	}
	if (!waited && dkey_parsed(c, k))
		waited = true;
	if (!waited) {
		if (c->nbusy == c->capbusy) {
			c->capbusy = c->capbusy ? 2 * c->capbusy : 4;
			c->busy = xrealloc(c->busy, c->capbusy * sizeof *c->busy);
		}
		c->busy[c->nbusy++] = *k;
	}
	pthread_mutex_unlock(&c->mu);
	return !waited;
}

/* The parse busy_mark() marked is done (stored, or not). */
static void busy_clear(struct parse_cache *c, const struct cache_key *k)
{
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->nbusy; i++)
		if (memcmp(c->busy[i].b, k->b, sizeof k->b) == 0) {
			c->busy[i] = c->busy[--c->nbusy];
			break;
		}
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->mu);
}

/* The file as its report knows it, for the `file` attribute: shown
 * (the report's folder joined to what runs: wrote, path_join()) less
 * the report's folder, whatever path the project was given by. */
static const char *report_relative(const char *report_dir, const char *shown)
{
	size_t n = report_dir ? strlen(report_dir) : 0;
	if (n == 0 || strcmp(report_dir, ".") == 0)
		return shown;
	if (strncmp(shown, report_dir, n) == 0 && shown[n] == '/')
		return shown + n + 1;
	return shown;
}

/* A confined file's path in the project: its canonical path under the
 * project's (real is canonical and inside root_real). */
static const char *project_place(const char *real, const char *root_real)
{
	const char *under = root_real ? path_under(real, root_real) : NULL;
	return under ? under : real;
}

struct name_pattern;
static void pattern_apply(struct loader *ld, const struct name_pattern *np, const char *path,
			  struct run *r);

/* The key of a run on disk: the parser set, the parser named (NULL:
 * detected), the file's content hash and the names that shape the run:
 * place, the file's path in the project (project_place()), whatever
 * path the project was given by. */
static struct cache_key disk_key(const struct cache_key *parsers, const struct parser *p,
				 const struct cache_key *fh, const char *place,
				 const char *run_name, const char *np_text)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "run");
	cache_hasher_key(h, parsers);
	cache_hasher_str(h, p ? parser_name(p) : "");
	cache_hasher_key(h, fh);
	cache_hasher_str(h, place);
	cache_hasher_str(h, run_name);
	cache_hasher_str(h, np_text ? np_text : "");
	return cache_hasher_end(h);
}

/* Appends (docs/internals.md): a log's resume state is known by what
 * names the run, not by the log's content, so that the log grown since
 * finds the state its last parse left. */
static struct cache_key tail_key(const struct cache_key *parsers, const char *place,
				 const char *run_name, const char *np_text)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "scan state");
	cache_hasher_key(h, parsers);
	cache_hasher_str(h, place);
	cache_hasher_str(h, run_name);
	cache_hasher_str(h, np_text ? np_text : "");
	return cache_hasher_end(h);
}

/* What busy_mark() knows a log read whole by its parse by
 * (load_run_tail()): its path, not yet its content. */
static struct cache_key whole_key(const struct parse_cache *pc, const char *real)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "read whole");
	cache_hasher_key(h, &pc->parsers_key);
	cache_hasher_str(h, real);
	return cache_hasher_end(h);
}

/* A log resumed from its state is stored again (run and state) only
 * when it is small or what was read past the stored point is an eighth
 * of it or more (run_resuming()). */
#define RESTORE_MIN ((uint64_t)8 << 20)

/* RESTORE_MIN, or for tests (a small log that keeps its stored run
 * over appends, as a big one does) LOGDOWN_TEST_RESTORE_MIN bytes. */
static uint64_t restore_min(void)
{
	const char *t = getenv("LOGDOWN_TEST_RESTORE_MIN");
	return t && *t ? strtoull(t, NULL, 10) : RESTORE_MIN;
}

/* A stored state: the run it goes with, the XXH3-128 of the log's
 * bytes before its point, the point, then the scanner's state. */
#define TAIL_HEAD (16 + 16 + 8)

/* Feeds the file's bytes [from, to) to h.  False when the file is
 * shorter or unreadable. */
static bool hash_range(struct cache_hasher *h, int fd, uint64_t from, uint64_t to)
{
	size_t cap = (size_t)1 << 20;
	char *buf = xmalloc(cap);
	bool ok = true;
	while (ok && from < to) {
		size_t want = to - from < cap ? (size_t)(to - from) : cap;
		ssize_t n = pread(fd, buf, want, (off_t)from);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		if (ok) {
			cache_hasher_plain_bytes(h, buf, (size_t)n);
			from += (uint64_t)n;
		}
	}
	free(buf);
	return ok;
}

/* The state stored under tkey for a log that grew since (size bytes
 * now): *from (its run not loaded yet), the key of its run and the
 * prefix hash to check, or false. */
static bool tail_find(struct cache *disk, const struct cache_key *tkey, off_t size,
		      struct scan_point *from, struct cache_key *prev_key, unsigned char prefix[16],
		      bool *stated)
{
	struct buf b = BUF_INIT;
	if (!cache_state_get(disk, tkey, &b) || b.len < TAIL_HEAD) {
		buf_free(&b);
		return false;
	}
	if (stated)
		*stated = true;
	memcpy(prev_key->b, b.data, 16);
	memcpy(prefix, b.data + 16, 16);
	uint64_t point = 0;
	for (int i = 0; i < 8; i++)
		point |= (uint64_t)(unsigned char)b.data[32 + i] << (8 * i);
	/* Only a log longer than it was: one the same length is another
	 * log, whose key missed. */
	bool longer = point > 0 && (off_t)point < size;
	if (longer) {
		buf_put(&from->state, b.data + TAIL_HEAD, b.len - TAIL_HEAD);
		from->point = point;
	}
	buf_free(&b);
	return longer;
}

/* Stores the state `to` of the run stored under dkey, the log's bytes
 * before its point hashed (*prefix when known). */
static void tail_put(struct cache *disk, const struct cache_key *tkey,
		     const struct cache_key *dkey, const struct scan_point *to,
		     const struct cache_key *prefix)
{
	struct buf b = BUF_INIT;
	buf_put(&b, (const char *)dkey->b, 16);
	buf_put(&b, (const char *)prefix->b, 16);
	for (int i = 0; i < 8; i++)
		buf_putc(&b, (char)(unsigned char)(to->point >> (8 * i)));
	buf_put(&b, buf_data(&to->state), to->state.len);
	cache_state_put(disk, tkey, b.data, b.len);
	buf_free(&b);
}

/* A log's stored resume state, found before its content is hashed (so
 * that the hash of its bytes before the point is taken in that read). */
struct tail {
	bool found;
	struct scan_point from;   /* its run not loaded yet */
	struct cache_key prev_key; /* the run stored with it */
	unsigned char want[16];   /* the hash its bytes before the point had */
	bool prefix_known;        /* the content hash's read gave it: */
	struct cache_key prefix;  /* what they hash to now */
	bool whole_known;         /* the content hash of the whole log: */
	struct cache_key whole;   /* its XXH3-128, */
	uint64_t whole_size;      /* over this many bytes */
	bool busy;                /* busy_mark()ed: its key */
	struct cache_key busy_key;
	/* a log read whole by its parse, which hashes it on the way
	 * (cache_fd_read_begin()), until run_resuming() ends the read */
	struct cache_read *rd;
};

/* The hash of the log's bytes before the state's point `point` without
 * reading them again, when they are the whole log the content hash was
 * taken over (a log that ends with its line's '\n': a first build's
 * usual case).  The run is stored only if the log did not change since
 * that hash (cache_file_unchanged()), so the hash is of what was
 * parsed. */
static bool prefix_is_whole(const struct tail *tl, uint64_t point, struct cache_key *out)
{
	if (!tl->whole_known || point != tl->whole_size)
		return false;
	*out = tl->whole;
	return true;
}

/* parser_run(), through the log's resume state tl when the log only
 * grew since (its bytes before the state's point hash as they did), and
 * the state for the next build into *to, with the hash of the log's
 * bytes before its point (*to_prefix; *has_prefix), when the run is to
 * be stored (*store).  *resumed: the point it went on from (0: a full
 * parse). */
static struct run *run_resuming(struct parse_cache *pc, const struct cache_key *tkey,
				struct tail *tl, const char *real, int cfd,
				const struct parser *p, const char *rpath, const char *shown,
				const char *run_name, struct scan_point *to,
				struct cache_key *to_prefix, bool *has_prefix, bool *store,
				uint64_t *resumed, struct diag *d)
{
	*store = true;
	*has_prefix = false;
	*resumed = 0;
	struct run *r = NULL;
	struct stat st;
	struct cache_hasher *hs = NULL; /* the bytes before `hashed` */
	uint64_t hashed = 0;
	/* Not looked for yet when the log's hash was known: the log is the
	 * one hashed before, whose resumed run was not stored. */
	if (!tl->found && !tl->rd && fstat(cfd, &st) == 0)
		tl->found = tail_find(pc->disk, tkey, st.st_size, &tl->from, &tl->prev_key, tl->want,
				      NULL);
	if (tl->found && fstat(cfd, &st) == 0) {
		struct scan_point *from = &tl->from;
		bool same;
		/* The build's one read of the log (the page key's, or the
		 * load's hash) stopped at the point: its hash state there
		 * checks the bytes before it, and the new state's prefix
		 * hash goes on from it. */
		hs = cache_fd_hasher_at(pc->disk, real, cfd, from->point);
		if (hs) {
			struct cache_key got = cache_hasher_digest(hs);
			same = memcmp(got.b, tl->want, 16) == 0;
			hashed = from->point;
		} else if (tl->prefix_known ||
			   cache_fd_prefix_known(pc->disk, real, cfd, from->point, &tl->prefix)) {
			/* (a log unchanged since a read that took it) */
			same = memcmp(tl->prefix.b, tl->want, 16) == 0;
		} else {
			/* the bytes before the point first: a log rewritten
			 * costs their read, not the stored run's mapping and
			 * seal too */
			hs = cache_hasher_plain();
			same = hash_range(hs, cfd, 0, from->point);
			if (same) {
				struct cache_key got = cache_hasher_digest(hs);
				same = memcmp(got.b, tl->want, 16) == 0;
				hashed = from->point;
			}
		}
		if (same)
			from->prev = cache_run_get(pc->disk, &tl->prev_key);
		bool refused = !same || !from->prev;
		if (!refused)
			r = parser_run_from(p, rpath, shown, run_name, from, to, &refused, d);
		from->prev = NULL; /* taken */
		if (r) {
			pthread_mutex_lock(&pc->mu);
			pc->continued++;
			pthread_mutex_unlock(&pc->mu);
			*resumed = from->point;
			/* A run written again whole costs more than its parse
			 * (a 231 MB store and its seal for the 1 GB log): while
			 * what was read past the stored point is small beside
			 * it, the stored run and state stay, and the next build
			 * goes on from the same point again. */
			uint64_t past = (uint64_t)st.st_size - from->point;
			*store = (uint64_t)st.st_size < restore_min() || past * 8 >= (uint64_t)st.st_size;
		} else if (refused) {
			buf_clear(&to->state);
		} else {
			/* an error, reported: as a full parse would have */
			if (hs)
				cache_hasher_end(hs);
			return NULL;
		}
	}
	if (!r) {
		if (hs)
			cache_hasher_end(hs);
		hs = NULL;
		hashed = 0;
		if (tl->rd) {
			to->sink = cache_read_feed;
			to->sink_ctx = tl->rd;
		}
		r = parser_run_from(p, rpath, shown, run_name, NULL, to, NULL, d);
		to->sink = NULL;
	}
	if (tl->rd) {
		/* the parse's read, whole and unchanged: its hash is the
		 * log's, and the prefix below is known without a read */
		tl->whole_known = cache_read_end(tl->rd, &tl->whole);
		tl->rd = NULL;
	}
	/* the new state's prefix hash, only for a state to be stored */
	if (r && *store && to->state.len && hashed == 0 &&
	    prefix_is_whole(tl, to->point, to_prefix)) {
		*has_prefix = true;
	} else if (r && *store && to->state.len && to->point >= hashed) {
		if (!hs) {
			hs = cache_hasher_plain();
			hashed = 0;
		}
		if (hash_range(hs, cfd, hashed, to->point)) {
			*to_prefix = cache_hasher_digest(hs);
			*has_prefix = true;
		}
	}
	if (hs)
		cache_hasher_end(hs);
	return r;
}

static struct run *load_run_keyed(struct loader *ld, const char *real, const char *shown,
				  const char *run_name, const struct parser *p, struct loc at,
				  const struct name_pattern *np, const char *np_text,
				  const struct value *pick);
static struct run *load_run_opened(struct loader *ld, const char *real, const char *rpath,
				   int cfd, const char *shown, const char *run_name,
				   const struct parser *p, struct loc at,
				   const struct name_pattern *np, const char *np_text,
				   const struct value *pick);

/* The rows a run holds in memory at least (a big one's rows are tens of
 * bytes each). */
static size_t run_rows(const struct run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < run_series_count(r); i++)
		n += series_row_count(run_series_at(r, i));
	return n;
}

/* The parsed run r, its store mapped as m: r is freed and m goes on.
 * A run of millions of rows leaves its memory free in malloc's heaps,
 * where glibc keeps it (only the top of a heap is given back): the
 * reports would then map their pages of the store beside it, and that
 * was the first build's peak over the 1 GB log (151 MB of such memory
 * and 290 MB of the store).  So it is given back at once. */
static struct run *run_swap_freed(struct run *r, struct run *m)
{
	bool big = run_rows(r) >= RUN_TRIM_ROWS;
	/* what the parse folded (a derive's aggregates) holds for the
	 * store's rows too: they are the same rows */
	run_folds_move(m, r);
	run_free(r);
	if (big)
		malloc_trim(0);
	return m;
}

/* Parses one confined file (real: its canonical path, shown: as
 * diagnostics name it) into a run named run_name, with parser p or the
 * one detection picks, then np's fields (np_text: its text) when np is
 * not NULL.  Through the loader's cache when there is one.  NULL after
 * an error. */
static struct run *load_run(struct loader *ld, const char *real, const char *shown,
			    const char *run_name, const struct parser *p, struct loc at,
			    const struct name_pattern *np, const char *np_text,
			    const struct value *pick)
{
	/* A run's own number_style shapes it as its name_pattern does: the
	 * caches know it by both. */
	char *styled_key = NULL;
	if (ld->style) {
		styled_key = xasprintf("%s\x1fnumber_style %c%c", np_text ? np_text : "",
				       ld->style->decimal, ld->style->thousands ? ld->style->thousands : '0');
		np_text = styled_key;
	}
	char *csv_key = NULL;
	if (ld->csv) {
		char *k = csv_options_key(ld->csv);
		csv_key = xasprintf("%s\x1f%d%d%d %s", np_text ? np_text : "", ld->csv_given[0],
				    ld->csv_given[1], ld->csv_given[2], k);
		free(k);
		np_text = csv_key;
	}
	struct run *r = load_run_keyed(ld, real, shown, run_name, p, at, np, np_text, pick);
	free(styled_key);
	free(csv_key);
	return r;
}

/* Does a load of a file with parser p (NULL: detected) parse it whole,
 * from its first byte, in scan_file()'s one read (a text log, as its
 * parser reads it, all its runs kept), so that the parse can hash it as
 * it goes (struct scan_point's sink)? */
static bool whole_parse(const struct parser *p, const struct value *pick,
			const struct loader *ld)
{
	return (!p || p->format == FMT_TEXT) && !pick && !ld->csv && !ld->style;
}

static struct run *load_run_keyed(struct loader *ld, const char *real, const char *shown,
				  const char *run_name, const struct parser *p, struct loc at,
				  const struct name_pattern *np, const char *np_text,
				  const struct value *pick)
{
	if (ld->inputs) {
		/* A grown log's resume state, looked up first: this read,
		 * the build's first of the log, stops at its point on the way,
		 * and the load's resume then reads nothing before it. */
		struct cache_key tkey, prev_key, fh, prefix;
		bool has_state = false, prefix_ok;
		uint64_t point = 0;
		if (ld->parsers_key) {
			tkey = tail_key(ld->parsers_key, project_place(real, ld->root_real),
					run_name, np_text);
			struct buf tb = BUF_INIT;
			has_state = cache_state_get(ld->disk, &tkey, &tb) && tb.len >= TAIL_HEAD;
			if (has_state) {
				memcpy(prev_key.b, tb.data, 16);
				for (int i = 0; i < 8; i++)
					point |= (uint64_t)(unsigned char)tb.data[32 + i] << (8 * i);
			}
			buf_free(&tb);
		}
		/* named before its read: a big log's raw copy into the site
		 * may start beside its hash (site/earlycopy.c) */
		if (ld->on_file)
			ld->on_file(ld->file_ctx, shown);
		if (ld->defer_whole && !has_state && whole_parse(p, pick, ld) &&
		    cache_reads_whole(ld->disk, real)) {
			ld->deferred = true;
			return (struct run *)(void *)&placeholder;
		}
		if (!cache_fd_hash_mid(ld->disk, real, -1, &fh, NULL, point, &prefix, &prefix_ok)) {
			ld->ok = false;
			return NULL;
		}
		cache_hasher_str(ld->inputs, "run");
		cache_hasher_str(ld->inputs, p ? parser_name(p) : "");
		cache_hasher_key(ld->inputs, &fh);
		cache_hasher_str(ld->inputs, shown);
		cache_hasher_str(ld->inputs, run_name);
		cache_hasher_str(ld->inputs, np_text ? np_text : "");
		if (ld->parsers_key) {
			/* the run a load would find on disk: still in use */
			struct cache_key dkey = disk_key(ld->parsers_key, p, &fh,
							 project_place(real, ld->root_real),
							 run_name, np_text);
			cache_run_keep(ld->disk, &dkey);
			/* and a grown log's resume state, with the run it
			 * goes on from */
			if (has_state)
				cache_run_keep(ld->disk, &prev_key);
		}
		return (struct run *)(void *)&placeholder;
	}
	/* The file is opened once, confined to the project and checked on
	 * the descriptor; it is hashed from that descriptor, and the
	 * readers, which open files by path, are given the path of that
	 * descriptor (Linux's /proc/self/fd): a file swapped for a link out
	 * of the project after confined_file() checked it gives nothing
	 * from outside, to detection as to the parse (both know the file
	 * by its name: a notebook's .ipynb).  Where /proc is not mounted,
	 * the file is read by its own path. */
	int cfd = open_confined(real, ld->root_real, NULL);
	if (cfd < 0) {
		if (errno == EXDEV || errno == ELOOP)
			diag_error(ld->d, at,
				   "%s leads outside the project: logdown reads nothing there (copy "
				   "the file into the project)",
				   shown);
		else /* as a reader says it */
			diag_error(ld->d, loc_line(shown, 0), "cannot read: %s", open_error(errno));
		ld->ok = false;
		return NULL;
	}
	char via[48];
	snprintf(via, sizeof via, "/proc/self/fd/%d", cfd);
	const char *rpath = access(via, R_OK) == 0 ? via : real;
	struct run *r = load_run_opened(ld, real, rpath, cfd, shown, run_name, p, at, np, np_text,
					pick);
	close(cfd);
	return r;
}

static struct run *load_run_tail(struct loader *ld, const char *real, const char *rpath,
				   int cfd, const char *shown, const char *run_name,
				   const struct parser *p, struct loc at,
				   const struct name_pattern *np, const char *np_text,
				   const struct value *pick, struct tail *tl);

static struct run *load_run_opened(struct loader *ld, const char *real, const char *rpath,
				   int cfd, const char *shown, const char *run_name,
				   const struct parser *p, struct loc at,
				   const struct name_pattern *np, const char *np_text,
				   const struct value *pick)
{
	struct tail tl;
	memset(&tl, 0, sizeof tl);
	tl.from.state = (struct buf)BUF_INIT;
	struct run *r = load_run_tail(ld, real, rpath, cfd, shown, run_name, p, at, np, np_text,
				      pick, &tl);
	if (tl.busy)
		busy_clear(ld->cache, &tl.busy_key);
	buf_free(&tl.from.state);
	return r;
}

static struct run *load_run_tail(struct loader *ld, const char *real, const char *rpath,
				   int cfd, const char *shown, const char *run_name,
				   const struct parser *p, struct loc at,
				   const struct name_pattern *np, const char *np_text,
				   const struct value *pick, struct tail *tl)
{
	/* With a disk cache, a run is known by the content of everything it
	 * comes from: the parsers, the file, the names.  Detection too is
	 * a function of those, so a hit skips it. */
	struct parse_cache *pc = ld->cache;
	struct cache_key dkey, fh;
	struct cache_stamp stamp;
	bool dkeyed = false;
	struct cache_key tkey;
	const char *rel = report_relative(ld->report_dir, shown);
	const struct parser *given = p; /* (NULL: detected) the disk key's */
	bool whole = false, detected = false;
	size_t before_all = diag_errors(ld->d) + diag_warnings(ld->d);
	if (pc && pc->disk) {
		/* A log whose bytes are read again (changed since its hash
		 * was taken) may have grown: its resume state's point is
		 * hashed on the way. */
		tkey = tail_key(&pc->parsers_key, project_place(real, ld->root_real), run_name,
				np_text);
		struct cache_key known;
		struct stat fst;
		bool stated = false; /* a state stored for its place: a run too */
		if (!pick && !cache_fd_hash_known(pc->disk, real, cfd, &known) &&
		    fstat(cfd, &fst) == 0)
			tl->found = tail_find(pc->disk, &tkey, fst.st_size, &tl->from, &tl->prev_key,
					      tl->want, &stated);
		/* A new log, which its parse reads whole: hashed in that read,
		 * not in one of its own before (cache_fd_read_begin()); its
		 * run can then be in no store, and detection comes first. */
		if (!tl->found && !stated && whole_parse(p, pick, ld))
			tl->rd = cache_fd_read_begin(pc->disk, real, cfd, &stamp);
		if (tl->rd && !p) {
			p = parsers_detect_read(ld->parsers, rpath, shown, at, ld->d);
			detected = true;
			if (!p || p->format != FMT_TEXT) {
				cache_read_drop(tl->rd);
				tl->rd = NULL;
			}
		}
		/* (a notebook's text is its cells' output, read apart) */
		if (tl->rd && notebook_is_named(rpath, shown)) {
			cache_read_drop(tl->rd);
			tl->rd = NULL;
		}
		if (tl->rd) {
			/* one parse of it at a time: another report's, done
			 * meanwhile, made its row, and the hash below its key */
			struct cache_key wk = whole_key(pc, real);
			if (busy_mark(pc, &wk)) {
				tl->busy = true;
				tl->busy_key = wk;
				tl->whole_size = (uint64_t)stamp.sig[0];
				whole = true;
			} else {
				cache_read_drop(tl->rd);
				tl->rd = NULL;
			}
		}
		if (!whole && cache_fd_hash_mid(pc->disk, real, cfd, &fh, &stamp,
				      tl->found ? tl->from.point : 0, tl->found ? &tl->prefix : NULL,
				      &tl->prefix_known)) {
			dkey = disk_key(&pc->parsers_key, given, &fh,
					project_place(real, ld->root_real), run_name, np_text);
			dkeyed = true;
			tl->whole_known = true;
			tl->whole = fh;
			tl->whole_size = (uint64_t)stamp.sig[0];
			struct run *hit = content_hit(pc, &dkey, shown, rel);
			if (hit)
				return hit;
			if (busy_mark(pc, &dkey)) {
				tl->busy = true;
				tl->busy_key = dkey;
			} else if ((hit = content_hit(pc, &dkey, shown, rel)) != NULL) {
				return hit;
			} /* else not stored (it warned, or changed): parsed here too */
		}
	}
	/* Detection names the file it looked at: the path as the project
	 * knows it, not the canonical one. */
	if (!p && !detected)
		p = parsers_detect_read(ld->parsers, rpath, shown, at, ld->d);
	if (!p) {
		ld->ok = false;
		return NULL;
	}
	struct parse_cache *c = ld->cache;
	long long st[6];
	bool keyed = c && file_key(real, st);
	const char *np_key = np_text ? np_text : "";
	if (keyed && !dkeyed) {
		pthread_mutex_lock(&c->mu);
		struct cache_entry *e = cache_find(c, real, shown, run_name, parser_name(p), np_key, st);
		struct run *hit = NULL;
		/* (its file named by another report's folder: not this one's) */
		if (e && strcmp(run_file_attr(e->run), rel) == 0) {
			e->gen = c->gen;
			c->reused++;
			hit = e->run;
		}
		pthread_mutex_unlock(&c->mu);
		if (hit) {
			cache_read_drop(tl->rd);
			tl->rd = NULL;
			return hit;
		}
	}
	size_t before = diag_errors(ld->d) + diag_warnings(ld->d);
	struct run *r;
	struct scan_point to = {BUF_INIT, 0, NULL, NULL, false, NULL, NULL};
	/* the log page's line count taken by the parse's read: the page
	 * then reads only the lines it shows */
	struct line_count lines = {.ix = {LINE_INDEX_EVERY, NULL, 0}};
	to.count = &lines;
	struct cache_key to_prefix;
	bool has_prefix = false, store = true;
	uint64_t resumed = 0;
	parser_jit(p); /* before a copy of it below: it carries the flags */
	if (ld->csv && p->format != FMT_CSV) {
		diag_error(ld->d, ld->csv_loc,
			   "parser '%s' reads %s: delimiter, columns and header are for CSV "
			   "files",
			   parser_name(p), format_name(p->format));
		ld->ok = false;
		return NULL;
	}
	if (ld->csv) {
		/* The parser as it is, but for how this file is written. */
		struct parser own = *p;
		if (ld->csv_given[0])
			own.csv.delimiter = ld->csv->delimiter;
		if (ld->csv_given[1]) {
			own.csv.columns = ld->csv->columns;
			own.csv.ncolumns = ld->csv->ncolumns;
			own.csv.header = ld->csv->header;
		}
		if (ld->csv_given[2])
			own.csv.header = ld->csv->header;
		r = parser_run(&own, rpath, shown, run_name, ld->d);
	} else if (ld->style) {
		if (p->format != FMT_TEXT) {
			diag_error(ld->d, ld->style_loc,
				   "parser '%s' reads %s, whose numbers are read as the format "
				   "writes them: number_style is for text logs",
				   parser_name(p), format_name(p->format));
			ld->ok = false;
			return NULL;
		}
		/* The parser as it is, but for how this file writes numbers. */
		struct parser styled = *p;
		styled.styled = true;
		styled.style = *ld->style;
		styled.run_style = true;
		r = parser_run(&styled, rpath, shown, run_name, ld->d);
	} else if ((dkeyed || whole) && !pick) {
		/* the log may have grown since its last parse */
		r = run_resuming(pc, &tkey, tl, real, cfd, p, rpath, shown, run_name, &to,
				 &to_prefix, &has_prefix, &store, &resumed, ld->d);
		if (whole && tl->whole_known) {
			/* the parse's read was the whole log, unchanged since
			 * its stamp: its run is known by that read's hash */
			fh = tl->whole;
			dkey = disk_key(&pc->parsers_key, given, &fh,
					project_place(real, ld->root_real), run_name, np_text);
			dkeyed = true;
		} else if (whole && ld->out) {
			/* it changed as it was read: the report's key, taken
			 * after the load (report_runs_inputs()), would be
			 * that of bytes this run was not parsed from */
			ld->out->read_changed = true;
		}
	} else {
		r = parser_run(p, rpath, shown, run_name, ld->d);
	}
	if (r && np)
		pattern_apply(ld, np, shown, r);
	if (r && pick)
		r = pick_run(ld, r, pick, run_name);
	if (!r) {
		buf_free(&to.state);
		free(lines.ix.starts);
		ld->ok = false;
		return NULL;
	}
	/* Only a run parsed from the bytes that were hashed is known by
	 * their hash: a file rewritten in between (a running job's log, a
	 * save during serve) is parsed again next time. */
	bool same = whole ? dkeyed
			  : dkeyed && (resumed ? cache_fd_unchanged_from(pc->disk, real, cfd, &stamp,
									 &fh, resumed)
					       : cache_file_unchanged(real, &stamp, &fh));
	run_set_file_attr(r, rel);
	if (c) {
		/* only a parse that reported nothing is kept on disk */
		bool clean = same && diag_errors(ld->d) + diag_warnings(ld->d) == before_all;
		bool reusable = keyed && diag_errors(ld->d) + diag_warnings(ld->d) == before;
		/* a split file's runs are kept in memory only */
		if (clean && run_member_count(r) == 0 && store) {
			/* Stored, the run is used as a later build would: read
			 * in place from the store, and its rows in memory freed
			 * before the reports read it (a 1 GB log's run is 580
			 * MB of memory; only what the reports read of the
			 * store's is touched).  Before it is shared: no one
			 * holds r yet. */
			struct run *m = cache_run_put_mapped(c->disk, &dkey, r);
			if (m) {
				r = run_swap_freed(r, m);
				run_set_file_attr(r, rel);
			}
			/* and the state to go on from, when the log grows */
			if (has_prefix)
				tail_put(c->disk, &tkey, &dkey, &to, &to_prefix);
		}
		pthread_mutex_lock(&c->mu);
		c->parsed++;
		struct cache_entry *e = entry_new(c);
		e->real = xstrdup(real);
		e->shown = xstrdup(shown);
		e->run_name = xstrdup(run_name);
		e->parser = xstrdup(parser_name(p));
		e->np = xstrdup(np_key);
		if (keyed)
			memcpy(e->st, st, sizeof st);
		e->run = r;
		e->gen = c->gen;
		e->reusable = reusable;
		e->has_dkey = clean;
		if (clean)
			e->dkey = dkey;
		entry_indexed(c);
		pthread_mutex_unlock(&c->mu);
		/* the file is the one hashed (its bytes hash as fh): its
		 * row takes the count */
		if (same && to.counted)
			cache_fd_lines_note(c->disk, real, cfd, line_count_lines(&lines), lines.total,
					    &lines.ix, &fh);
	}
	buf_free(&to.state);
	free(lines.ix.starts);
	return r;
}

struct name_pattern {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	uint32_t count; /* named groups */
	uint32_t entry_size;
	PCRE2_SPTR table;
	const struct value *v; /* where it was written */
};

/* Compiles the name_pattern in v; false after an error at the pattern's
 * own column. */
static bool pattern_compile(struct loader *ld, struct name_pattern *np, const struct value *v,
			    const char *text)
{
	int err;
	PCRE2_SIZE off;
	np->v = v;
	np->code = pcre2_compile((PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!np->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		struct loc at = v->loc;
		/* A quoted scalar's text starts one column after its quote. */
		bool quoted = at.len == (int)v->len + 2;
		at.col += (int)off + (quoted ? 1 : 0);
		at.len = 1;
		diag_error(ld->d, at, "name_pattern does not compile: %s", (const char *)msg);
		ld->ok = false;
		return false;
	}
	pcre2_pattern_info(np->code, PCRE2_INFO_NAMECOUNT, &np->count);
	pcre2_pattern_info(np->code, PCRE2_INFO_NAMEENTRYSIZE, &np->entry_size);
	pcre2_pattern_info(np->code, PCRE2_INFO_NAMETABLE, &np->table);
	if (np->count == 0) {
		diag_error(ld->d, v->loc,
			   "name_pattern has no named group, such as (?<batch_size>\\d+): nothing "
			   "would become a field");
		ld->ok = false;
		return false;
	}
	np->md = pcre2_match_data_create_from_pattern(np->code, NULL);
	np->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(np->mctx, NAME_MATCH_LIMIT);
	return true;
}

static void pattern_free(struct name_pattern *np)
{
	pcre2_match_data_free(np->md);
	pcre2_match_context_free(np->mctx);
	pcre2_code_free(np->code);
}

/* Sets the named groups of np, matched against the file name of path,
 * as fields of r.  A group that took no part, or a name that does not
 * match, gives missing values, so that every member of a set has the
 * same fields. */
static void pattern_apply(struct loader *ld, const struct name_pattern *np, const char *path,
			  struct run *r)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int rc = pcre2_match(np->code, (PCRE2_SPTR)base, strlen(base), 0, 0, np->md, np->mctx);
	if (rc == PCRE2_ERROR_NOMATCH) {
		diag_warning(ld->d, np->v->loc,
			     "name_pattern does not match '%s': its fields are missing for run '%s'",
			     base, run_name(r));
	} else if (rc < 0) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(rc, msg, sizeof msg);
		diag_error(ld->d, np->v->loc, "name_pattern failed on '%s': %s", base,
			   (const char *)msg);
		ld->ok = false;
	}
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(np->md);
	for (uint32_t i = 0; i < np->count; i++) {
		PCRE2_SPTR entry = np->table + (size_t)i * np->entry_size;
		unsigned group = ((unsigned)entry[0] << 8) | entry[1];
		const char *name = (const char *)entry + 2;
		struct datum d = {DATUM_MISSING, 0, NULL, 0, 0};
		if (rc >= 0 && (int)group < rc && ov[2 * group] != PCRE2_UNSET)
			d = datum_from_text(base + ov[2 * group], ov[2 * group + 1] - ov[2 * group], 0);
		/* The log's own value wins: it links to its line.  The file name
		 * fills in what the log does not say. */
		const struct datum *own = run_field(r, name);
		if (own && own->kind != DATUM_MISSING && own->line > 0)
			continue;
		run_set_field(r, name, &d);
	}
}

/* Escapes the glob characters of a literal folder name, so that a
 * report in "content/[draft] hw" still globs below its own folder. */
static char *glob_escape(const char *s)
{
	struct buf b = BUF_INIT;
	for (; *s; s++) {
		if (strchr("*?[]\\", *s))
			buf_putc(&b, '\\');
		buf_putc(&b, *s);
	}
	return buf_detach(&b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* name did not load: its error is reported. */
static void failed_add(struct loader *ld, const char *name)
{
	struct report_runs *out = ld->out;
	out->failed = xrealloc(out->failed, (out->nfailed + 1) * sizeof *out->failed);
	out->failed[out->nfailed++] = xstrdup(name);
}

static void set_push(struct runset *set, struct run *r)
{
	set->runs = xrealloc(set->runs, (set->count + 1) * sizeof *set->runs);
	set->runs[set->count++] = r;
}

/* The members of a glob run set. */
static void load_glob(struct loader *ld, struct runset *set, const struct value *gv,
		      const char *pattern, const struct parser *p, const struct value *npv,
		      const char *np_text)
{
	struct name_pattern np = {0};
	if (npv && !pattern_compile(ld, &np, npv, np_text)) {
		pattern_free(&np);
		return;
	}
	char *full;
	if (pattern[0] == '/') {
		full = xstrdup(pattern);
	} else {
		char *dir = glob_escape(ld->report_dir);
		full = path_join(dir, pattern);
		free(dir);
	}
	glob_t g;
	int rc = glob(full, GLOB_NOSORT, NULL, &g);
	size_t files = 0;
	if (rc == 0 && g.gl_pathc > limit_get(LIMIT_GLOB_FILES)) {
		/* Each member is a run, parsed and kept: refuse before any is. */
		diag_error(ld->d, gv->loc, "%s matches %zu files, more than %lu (%s)", pattern,
			   (size_t)g.gl_pathc, limit_get(LIMIT_GLOB_FILES), limit_hint(LIMIT_GLOB_FILES));
		ld->ok = false;
		files = g.gl_pathc;
	} else if (rc == 0) {
		qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, cmp_str);
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *path = g.gl_pathv[i];
			/* A folder matched by the pattern is no result file. */
			if (is_dir(path))
				continue;
			files++;
			/* named by its stem, made a name an expression can write */
			char *stem = path_stem(path);
			char *name = identifier_of(stem);
			free(stem);
			const char *twin = NULL;
			for (size_t k = 0; k < set->count && !ld->inputs; k++)
				if (strcmp(run_name(set->runs[k]), name) == 0)
					twin = run_file(set->runs[k]);
			if (twin) {
				diag_error(ld->d, gv->loc,
					   "%s and %s are both named '%s' in expressions (a member's "
					   "name is its file stem, other characters than letters, "
					   "digits and '_' made '_'): rename one of the files",
					   twin, path, name);
				ld->ok = false;
				free(name);
				continue;
			}
			char *real = confined_file(ld, path, path, gv->loc);
			struct run *r = real ? load_run(ld, real, path, name, p, gv->loc,
							npv ? &np : NULL, npv ? np_text : NULL, NULL)
					     : NULL;
			if (r && !ld->inputs && run_member_count(r) > 0) {
				diag_error(ld->d, gv->loc,
					   "%s holds %zu runs (its parser splits it), and a glob's "
					   "member is one run: name it in runs: with file: (a run set "
					   "of its own), and run: last to pick one",
					   path, run_member_count(r));
				ld->ok = false;
				if (!ld->cache)
					run_free(r);
				r = NULL;
			}
			if (r)
				set_push(set, r);
			else
				failed_add(ld, name);
			free(name);
			free(real);
		}
	}
	if (rc == GLOB_NOSPACE || rc == GLOB_ABORTED) {
		diag_error(ld->d, gv->loc, "cannot list the files of %s: %s", pattern,
			   rc == GLOB_NOSPACE ? strerror(ENOMEM) : strerror(errno ? errno : EIO));
		ld->ok = false;
	} else if (files == 0) {
		char *near = near_glob(ld->report_dir, pattern);
		if (near)
			diag_error(ld->d, gv->loc, "no file matches %s (in %s; did you mean '%s'?)",
				   pattern, *ld->report_dir ? ld->report_dir : ".", near);
		else
			diag_error(ld->d, gv->loc, "no file matches %s (in %s)", pattern,
				   *ld->report_dir ? ld->report_dir : ".");
		free(near);
		ld->ok = false;
	}
	if (rc == 0)
		globfree(&g);
	free(full);
	pattern_free(&np);
}

static bool load_entry_runs(struct loader *ld, struct runset *set, const char *name,
			    const struct value *file, const char *file_text, const struct value *gl,
			    const char *glob_text, const struct value *parser,
			    const char *parser_text, const struct value *np, const char *np_text,
			    const struct value *pick);

/* One entry of runs:, `name: spec`, into set.  False when nothing was
 * loaded and the set is to be dropped. */
static bool load_entry(struct loader *ld, struct runset *set, const char *name,
		       const struct value *spec)
{
	const struct value *file = NULL, *gl = NULL, *parser = NULL, *np = NULL, *pick = NULL,
			   *ns = NULL, *csv[3] = {NULL, NULL, NULL};
	struct loc csv_loc = {0};
	bool bad = false;
	if (spec->kind == VALUE_STRING || spec->kind == VALUE_NUMBER) {
		file = spec;
	} else if (spec->kind == VALUE_MAP) {
		static const struct keys_words words = {false, "key", "known"};
		char *where = xasprintf("in run '%s'", name);
		if (!keys_check(spec, entry_keys, where, &words, ld->d))
			bad = true;
		free(where);
		for (size_t i = 0; i < spec->count; i++) {
			const char *key = spec->keys[i];
			const struct value *v = spec->items[i];
			if (strcmp(key, "file") == 0) {
				file = v;
			} else if (strcmp(key, "glob") == 0) {
				gl = v;
			} else if (strcmp(key, "parser") == 0) {
				parser = v;
			} else if (strcmp(key, "name_pattern") == 0) {
				np = v;
			} else if (strcmp(key, "run") == 0) {
				pick = v;
			} else if (strcmp(key, "number_style") == 0) {
				ns = v;
			} else if (strcmp(key, "delimiter") == 0 || strcmp(key, "columns") == 0 ||
				   strcmp(key, "header") == 0) {
				csv[key[0] == 'd' ? 0 : key[0] == 'c' ? 1 : 2] = v;
				if (!csv_loc.file)
					csv_loc = spec->key_locs[i];
			}
		}
		if (file && gl) {
			diag_error(ld->d, spec->key_locs[value_index(spec, "glob")],
				   "run '%s' has both file: and glob:; give one", name);
			bad = true;
		} else if (!file && !gl) {
			diag_error(ld->d, spec->loc,
				   "run '%s' needs file: (one result file) or glob: (a run set)", name);
			bad = true;
		}
		if (pick && !file) {
			diag_error(ld->d, spec->key_locs[value_index(spec, "run")],
				   "run: picks one run of a file that holds several: run '%s' has "
				   "no file:",
				   name);
			bad = true;
		}
		if (np && !gl) {
			diag_error(ld->d, spec->key_locs[value_index(spec, "name_pattern")],
				   "name_pattern names the members of a glob: run '%s' has none", name);
			bad = true;
		}
	} else {
		diag_error(ld->d, spec->loc,
			   "run '%s' must be a file path or a map with file: or glob:, not %s", name,
			   value_kind_name(spec->kind));
		bad = true;
	}
	const char *file_text = file ? entry_text(ld, name, "file", file) : NULL;
	const char *glob_text = gl ? entry_text(ld, name, "glob", gl) : NULL;
	const char *parser_text = parser ? entry_text(ld, name, "parser", parser) : NULL;
	const char *np_text = np ? entry_text(ld, name, "name_pattern", np) : NULL;
	if (bad || (file && !file_text) || (gl && !glob_text) || (parser && !parser_text) ||
	    (np && !np_text)) {
		ld->ok = false;
		return false;
	}
	/* How this file writes numbers, over the parser's number_style. */
	struct numstyle style;
	if (ns) {
		char *where = xasprintf("in number_style of run '%s'", name);
		bool ok = numstyle_read(ns, where, &style, ld->d);
		free(where);
		if (!ok) {
			ld->ok = false;
			return false;
		}
		ld->style = &style;
		ld->style_loc = spec->key_locs[value_index(spec, "number_style")];
	}
	/* How this CSV file is written, over the parser's. */
	struct csv_options csv_opts = CSV_OPTIONS_INIT;
	if (csv[0] || csv[1] || csv[2]) {
		char *where = xasprintf("of run '%s'", name);
		bool ok = csv_options_read(csv[0], csv[1], csv[2], where, &csv_opts, ld->d);
		free(where);
		if (!ok) {
			csv_options_free(&csv_opts);
			ld->style = NULL;
			ld->ok = false;
			return false;
		}
		ld->csv = &csv_opts;
		for (int i = 0; i < 3; i++)
			ld->csv_given[i] = csv[i] != NULL;
		ld->csv_loc = csv_loc;
	}
	bool loaded = load_entry_runs(ld, set, name, file, file_text, gl, glob_text, parser,
				      parser_text, np, np_text, pick);
	ld->style = NULL;
	ld->csv = NULL;
	csv_options_free(&csv_opts);
	return loaded;
}

/* The runs of one entry whose keys are read and checked. */
static bool load_entry_runs(struct loader *ld, struct runset *set, const char *name,
			    const struct value *file, const char *file_text, const struct value *gl,
			    const char *glob_text, const struct value *parser,
			    const char *parser_text, const struct value *np, const char *np_text,
			    const struct value *pick)
{
	const struct parser *p = NULL;
	if (parser) {
		p = parsers_lookup(ld->parsers, parser_text, parser->loc, ld->d);
		if (!p) {
			ld->ok = false;
			return false;
		}
	}
	set->name = xstrdup(name);
	if (gl) {
		set->is_set = true;
		load_glob(ld, set, gl, glob_text, p, np, np_text);
		/* none loaded: the errors say why, and a table or chart of no
		 * runs would only add a misleading one */
		return set->count > 0;
	}
	char *path = path_join(ld->report_dir, file_text);
	char *real = confined_file(ld, path, file_text, file->loc);
	/* run: is part of what the run is: its cache key */
	char *pick_key = NULL;
	if (pick)
		pick_key = xasprintf("\001run: %.*s", pick->text ? (int)pick->len : 0,
				     pick->text ? pick->text : "");
	struct run *r = real ? load_run(ld, real, path, name, p, file->loc, NULL, pick_key, pick)
			     : NULL;
	free(pick_key);
	free(real);
	free(path);
	if (!r)
		return false;
	if (!ld->inputs && run_member_count(r) > 0) {
		/* a file of several runs: a run set of them */
		set->is_set = true;
		set->whole = r;
		set->file = xstrdup(file_text);
		for (size_t i = 0; i < run_member_count(r); i++)
			set_push(set, run_member_at(r, i));
		return true;
	}
	set_push(set, r);
	return true;
}

bool report_runs_load(struct report_runs *out, const struct value *spec, const char *report_dir,
		      const char *root_real, const struct parser_set *parsers, struct diag *d)
{
	return report_runs_load_cached(out, spec, report_dir, root_real, parsers, NULL, d);
}

bool report_runs_load_cached(struct report_runs *out, const struct value *spec,
			     const char *report_dir, const char *root_real,
			     const struct parser_set *parsers, struct parse_cache *cache,
			     struct diag *d)
{
	struct loader ld = {.report_dir = report_dir, .root_real = root_real, .parsers = parsers,
			    .d = d, .ok = true, .cache = cache};
	return load_all(&ld, out, spec);
}

bool report_runs_inputs(const struct value *spec, const char *report_dir, const char *root_real,
			const struct parser_set *parsers, struct cache *disk,
			const struct cache_key *parsers_key, struct cache_hasher *h,
			void (*on_file)(void *ctx, const char *shown), void *file_ctx,
			bool *deferred, struct diag *d)
{
	struct loader ld = {.report_dir = report_dir, .root_real = root_real, .parsers = parsers,
			    .d = d, .ok = true, .disk = disk, .parsers_key = parsers_key,
			    .inputs = h, .on_file = on_file, .file_ctx = file_ctx,
			    .defer_whole = deferred != NULL};
	struct report_runs rr;
	bool ok = load_all(&ld, &rr, spec);
	if (deferred)
		*deferred = ld.deferred;
	rr.borrowed = true;
	for (size_t i = 0; i < rr.count; i++) {
		cache_hasher_str(h, rr.sets[i].name);
		cache_hasher_bytes(h, &rr.sets[i].count, sizeof rr.sets[i].count);
	}
	report_runs_free(&rr);
	return ok;
}

static bool load_all(struct loader *ld, struct report_runs *out, const struct value *spec)
{
	struct diag *d = ld->d;
	out->sets = NULL;
	out->count = 0;
	out->borrowed = ld->cache != NULL;
	out->failed = NULL;
	out->nfailed = 0;
	out->read_changed = false;
	ld->out = out;
	if (!spec || spec->kind == VALUE_NULL)
		return true;
	if (spec->kind != VALUE_MAP) {
		diag_error(d, spec->loc, "'runs' must be a map of run names to result files, not %s",
			   value_kind_name(spec->kind));
		return false;
	}
	out->sets = xcalloc(spec->count ? spec->count : 1, sizeof *out->sets);
	for (size_t i = 0; i < spec->count; i++) {
		const char *name = spec->keys[i];
		if (!is_identifier(name)) {
			diag_error(d, spec->key_locs[i],
				   "run name '%s' cannot be written in an expression: use letters, "
				   "digits and '_', not starting with a digit",
				   name);
			ld->ok = false;
			continue;
		}
		struct runset *set = &out->sets[out->count];
		memset(set, 0, sizeof *set);
		if (load_entry(ld, set, name, spec->items[i])) {
			out->count++;
		} else {
			free(set->name);
			free(set->runs);
			failed_add(ld, name);
		}
	}
	return ld->ok;
}

void report_runs_free(struct report_runs *rr)
{
	if (!rr)
		return;
	for (size_t i = 0; i < rr->count; i++) {
		if (rr->sets[i].whole && !rr->borrowed)
			run_free(rr->sets[i].whole); /* its members too */
		for (size_t k = 0; !rr->borrowed && !rr->sets[i].whole && k < rr->sets[i].count; k++)
			run_free(rr->sets[i].runs[k]);
		free(rr->sets[i].runs);
		free(rr->sets[i].name);
		free(rr->sets[i].file);
	}
	free(rr->sets);
	rr->sets = NULL;
	rr->count = 0;
	for (size_t i = 0; i < rr->nfailed; i++)
		free(rr->failed[i]);
	free(rr->failed);
	rr->failed = NULL;
	rr->nfailed = 0;
}
