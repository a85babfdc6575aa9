/* runs.h: the `runs:` of a report's front matter (SPEC section 2). */
#ifndef LOGDOWN_RUNS_H
#define LOGDOWN_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "data/cache.h"
#include "base/diag.h"
#include "parse/logparse.h"
#include "data/run.h"
#include "data/value.h"

/* A report's runs: single runs by name, and run sets (a glob) whose
 * members are runs named by their file stems. */
struct runset {
	char *name;          /* the name in front matter: "cs512", "cs" */
	bool is_set;         /* a glob (members sorted by path), or a split file */
	struct run **runs;   /* one for a single run */
	size_t count;
	/* A file a parser split into several runs (run.h): the run that
	 * holds them, runs[] its members ("mnist.run1", ...); else NULL. */
	struct run *whole;
	char *file; /* then its file as runs: names it ("logs/mnist.log") */
};

struct report_runs {
	struct runset *sets;
	size_t count;
	bool borrowed; /* the runs belong to a parse_cache: freed by it, not here */
	/* The names a report could write that did not load, their error
	 * already reported: a run (or a whole run set) whose entry failed,
	 * a glob member that failed.  A use of one is then a note, not
	 * "not defined" (expr.h, struct scope).  Owned. */
	char **failed;
	size_t nfailed;
	/* A log the load read whole to parse it and hash it (a new one:
	 * cache_fd_read_begin()) changed as it was read: what was parsed is
	 * not what a hash taken now would say the inputs are. */
	bool read_changed;
};

/* Parsed runs kept between builds (`logdown serve`), keyed by the file's
 * canonical path, the path as shown, the run's name, the parser, the
 * name_pattern and the file's size, mtime, inode and ctime: a hit reuses
 * the run instead of parsing the file again.  A parse that reported
 * anything (a warning, an error) is never reused, so that a build with
 * the cache reports exactly what one without it does.  The cache owns
 * every run loaded through it; they stay valid until the next
 * parse_cache_sweep(), which a build calls once its reports are freed. */
struct parse_cache;
struct parse_cache *parse_cache_new(void);
void parse_cache_free(struct parse_cache *c);
/* Frees the runs the last build did not use (or may not reuse). */
void parse_cache_sweep(struct parse_cache *c);
/* Forgets everything (the parsers changed).  Only between builds. */
void parse_cache_clear(struct parse_cache *c);
/* How many files were parsed, how many runs reused from memory, and how
 * many read from the disk cache, since new. */
size_t parse_cache_parsed(const struct parse_cache *c);
size_t parse_cache_reused(const struct parse_cache *c);
size_t parse_cache_from_disk(const struct parse_cache *c);
/* Of those parsed, how many went on from where the last parse of a log
 * that only grew since stopped (appends). */
size_t parse_cache_continued(const struct parse_cache *c);

/* Backs c with the on-disk cache (cache.h; NULL: none), where runs are
 * keyed by the content hashes of the parser set (`parsers`, see
 * parse_cache_parsers_key()), the file and the names that shape a run;
 * a run parsed without a diagnostic is stored there.  Other parsers than
 * before clear c.  Only between builds. */
void parse_cache_set_disk(struct parse_cache *c, struct cache *disk,
			  const struct cache_key *parsers);
/* The content key of a parser set: every parser's name, origin and
 * definition, in order. */
struct cache_key parse_cache_parsers_key(const struct parser_set *set);

/* Loads every run that `spec` (the front matter's runs: map, may be
 * NULL) names.  Paths are relative to report_dir and must resolve inside
 * root_real (after symlinks): anything else is an error at its line in
 * the front matter.  Every problem is reported through d; runs that
 * loaded are kept.  Returns false when there was an error.  Free with
 * report_runs_free(). */
bool report_runs_load(struct report_runs *out, const struct value *spec, const char *report_dir,
		      const char *root_real, const struct parser_set *parsers, struct diag *d);
/* The same, through cache (may be NULL: report_runs_load()).  With a
 * cache, out->borrowed is set: the runs are the cache's. */
bool report_runs_load_cached(struct report_runs *out, const struct value *spec,
			     const char *report_dir, const char *root_real,
			     const struct parser_set *parsers, struct parse_cache *cache,
			     struct diag *d);
void report_runs_free(struct report_runs *rr);

/* Resolves spec as report_runs_load() does (globs, confinement), but
 * instead of parsing adds to h what the runs depend on: each file's
 * content hash (through disk), its path, the run's name, the parser
 * named and the name_pattern; and names each file's path (as a run's
 * file would show it) to on_file (may be NULL), before the file is
 * read (and even when it then cannot be).  With parsers_key (the
 * parser set's, as parse_cache_set_disk() got it; may be NULL) each
 * run's disk entry is marked as in use (cache_run_keep()).  Problems go
 * to d.  False when a file could not be resolved or hashed: the report
 * then has no key.  With deferred (may be NULL), a file the load will
 * read whole (cache_reads_whole(): a new log) is named but not hashed,
 * and *deferred says one was: the key is then to be taken again once
 * the runs are loaded, whose parse hashed it (nothing else is known
 * by such a key). */
bool report_runs_inputs(const struct value *spec, const char *report_dir, const char *root_real,
			const struct parser_set *parsers, struct cache *disk,
			const struct cache_key *parsers_key, struct cache_hasher *h,
			void (*on_file)(void *ctx, const char *shown), void *file_ctx,
			bool *deferred, struct diag *d);

#endif
