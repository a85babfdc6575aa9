/* site_int.h: what the files of the build share, and no one else
 * (site.h is the public side): the build under way and one report's
 * turn in it.
 *
 *   discover.c  the reports: the walk of content/, slugs, drafts,
 *               collisions; a bundle's files
 *   reuse.c     cache keys of pages; what the previous output lends
 *   images.c    the local images a page would show broken
 *   build.c     the build itself: runs, rendering on -j threads, pages,
 *               log pages, the index, the PDFs, the output swapped in
 *   keepcopy.c  a log's raw copy kept, or appended to
 *   earlycopy.c a big log's raw copy started as its report renders
 *   promise.c   what a build made before its logs' proofs held says,
 *               held until they do
 *   clean.c     logdown clean
 *   searchindex.c  the site's search index, search-index.js */
#ifndef LOGDOWN_SITE_INT_H
#define LOGDOWN_SITE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/diag.h"
#include "base/outdir.h"
#include "data/cache.h"
#include "data/config.h"
#include "parse/report.h"
#include "render/searchtext.h"
#include "render/theme.h"
#include "site/manifest.h"
#include "site/site.h"

struct doc;
struct output_file;
struct term_table;

struct held_call;

/* A build made while the proofs of its logs' old bytes are checked
 * (promise.c): the options it runs with (the caller's, its on_report
 * and on_input held), its diagnostics' deferred sink, and the caller's. */
struct promise {
	struct build_opts opts;
	const struct build_opts *caller;
	struct diag *d, *outer;
	struct held_call *calls;
	size_t ncalls;
	bool broken; /* a proof failed: the build is thrown away */
};

/* Starts p for a build with opts, reporting to d: the build runs with
 * p->opts and reports to p->d. */
void promise_begin(struct promise *p, const struct build_opts *opts, struct diag *d);
/* The proofs held: what p held back is given to the caller, in order
 * (its diagnostics flushed to the outer sink, its calls made); returns
 * that sink, for the rest of the build. */
struct diag *promise_keep(struct promise *p);
/* A proof failed: what p held back is dropped (and the output folder's
 * name the build gave back, freed: the build made again gives it). */
void promise_drop(struct promise *p);

/* One site_build(): what it loaded and found, and where it writes.  Its
 * turns (struct job) run on several threads: they read it, and write
 * only their own report, their own job and their report's files in the
 * output. */
struct build {
	const struct build_opts *opts;
	struct diag *d;
	struct config config;
	struct theme theme;
	struct parser_set *parsers;
	struct outdir out;
	bool writing;
	bool io_failed;
	char *root_real;      /* the project, canonical: nothing outside is read */
	char *content;        /* ROOT/content */
	struct report *reports;
	size_t nreports, reports_cap;
	uint64_t *slug_hashes; /* str_hash() of each report's slug, while discovering */
	size_t *slug_slots;    /* a hash table of those reports: index + 1, or 0 */
	size_t slug_cap;
	size_t ndrafts;        /* left out */
	char **resources;      /* bundle files to copy: source, then output path */
	size_t nresources, resources_cap;
	struct output_file *by_output; /* the resources by output path (images) */
	char **walk;           /* canonical folders being walked, outermost first */
	size_t nwalk;
	size_t nrendered;
	/* the on-disk cache (NULL with --no-cache) */
	struct cache *disk;
	struct parse_cache *pc;      /* opts->cache, or this build's own */
	struct parse_cache *own_pc;
	struct cache_key site_key;   /* what every page depends on */
	struct cache_key parsers_key; /* the parser set's (runs.h) */
	bool reports_keyed;          /* pages may be reused by key */
	struct cache_reports *prev;  /* the keys the current output was built with */
	size_t nfrom_cache;
	/* reused report folders kept where they are in the output on
	 * commit (outdir_keep()) rather than linked file by file */
	bool can_move;
	const char **slugs;          /* every report's slug, sorted */
	struct term_table *terms;    /* the search index's terms (searchindex.c) */
	const char **moved;          /* the kept ones, sorted */
	size_t nmoved;
	/* the previous output's manifest.json (manifest.h), or NULL: a
	 * reused report takes its entry from there */
	struct value *prev_manifest;
	struct manifest_slugs *prev_slugs; /* its entries by slug, or NULL */
	int prev_fd; /* the previous output folder (O_NOFOLLOW), or -1 */
	/* where relative claims find their committed values (claim.h): the
	 * manifest of check --against's folder, else of the output folder,
	 * as named on the command line (claim_base_dir); NULL when there is
	 * none; prev_manifest itself when that was read from the same folder */
	struct value *claim_base;
	char *claim_base_dir;
	/* the raw copies this build put in the output (keepcopy.c) */
	struct kept_copy {
		char *rel;
		struct cache_key content;
		/* a racy log's path: its copy is remembered only when it
		 * still is the file that was hashed (cache_fd_racy_still()) */
		char *racy;
		/* a kept copy of a log that grew: the new bytes `tail` to
		 * append at `at` once the output is committed, to the file
		 * `was`; remembered only when `appended` */
		char *tail;
		size_t tail_len;
		uint64_t at;
		struct stat was;
		bool appended;
	} *copies;
	size_t ncopies, copies_cap;
};

enum entry { ENTRY_SKIP, ENTRY_FILE, ENTRY_DIR };

/* What one report's turn reports and whether its writing failed: each
 * turn has its own, so that turns can run on several threads and still
 * report in report order (diag_flush()). */
/* earlycopy.c's copies of one report's result files (struct job) */
struct earlycopy {
	struct early *v;
	size_t n, cap;
	bool begun; /* earlycopy_begin() was called */
	bool on;    /* ... and allowed copies */
};

struct job {
	struct diag *load_d;   /* loading its runs */
	struct diag *render_d; /* rendering its body, or copying its output */
	bool reused;           /* its folder is copied from the previous output */
	bool move;             /* ... by keeping it where it is on commit */
	bool whole;            /* its folder holds only what a build writes */
	bool io_failed;
	bool page_written;     /* its page was written in its render turn */
	bool keyed;            /* key is what the page depends on (cache.h) */
	struct cache_key key;
	struct cache_key listing; /* its folder's in the previous output (previous_clean()) */
	bool settled;             /* ... with no change time as late as its walk */
	bool clean;            /* built without a diagnostic: its key may be kept */
	bool shows_others;     /* shows an image from outside its folder (not in its key) */
	char **inputs;         /* the result files the key covers */
	size_t ninputs;
	struct search_doc search; /* its sections for the search index */
	struct value *manifest; /* its entry in manifest.json (manifest.h) */
	/* a reused report's entry instead: the previous manifest's, borrowed
	 * (written again as it is, not copied) */
	const struct value *kept_entry;
	struct cache_key entry; /* with entry_known: manifest_entry_digest() of it */
	bool entry_known;
	/* with site.yaml's footer_hash: the entry's short hash, which the
	 * page's footer and the PDF's show; else "" */
	char manifest_hash[MANIFEST_SHORT_HASH + 1];
	/* with key: the key of what its values and charts may read besides
	 * their own text (directive_ctx's memo_key) */
	struct cache_key memo_key;
	/* its big logs' raw copies, started as report_key() names them
	 * (earlycopy.c), ended before the output is committed */
	struct earlycopy early;
};

/* build.c */
/* fn(b, i, ctx) for every i below n, on up to opts->jobs threads (the
 * calling one included), in no set order; returns when all are done. */
void run_parallel(struct build *b, size_t n, void (*fn)(struct build *b, size_t i, void *ctx),
		  void *ctx);

/* discover.c */
/* Finds the reports under dir (rel: its path below content/) into
 * b->reports, and their bundles' files into b->resources. */
void discover(struct build *b, const char *dir, const char *rel);
/* Is name a file a bundle copies beside its page (an image, a video)? */
bool is_resource(const char *name);
enum entry classify(struct build *b, const char *path);
/* Caller gives the names back with walk_leave(). */
/* real_dir: dir is known to be a folder itself (its listing said
 * DT_DIR), not a link, so its canonical path needs no lstat().  With
 * types, *types (caller frees) has each name's type from the listing
 * (dir_list_typed()). */
char **walk_enter(struct build *b, const char *dir, bool child, bool real_dir, size_t *n,
		  unsigned char **types);
void walk_leave(struct build *b, char **names);

/* reuse.c */
bool reusable(const struct build *b, const struct report *r);
/* How report_key() takes the report's files: KEY_NOW hashes each;
 * KEY_DEFER leaves a new log to its load, which hashes it as it parses
 * it (report_runs_inputs()'s deferred: *deferred, and no key); KEY_AGAIN
 * takes the key after that load, the files already named. */
enum key_take { KEY_NOW, KEY_DEFER, KEY_AGAIN };
bool report_key(struct build *b, const struct report *r, struct job *job,
		struct cache_key *out, enum key_take take, bool *deferred);
struct cache_key site_key(struct build *b, const struct cache_key *parsers);
void copy_previous(struct build *b, const char *slug, const char *rel, struct job *job);
bool movable(const struct build *b, const char *slug);
/* The previous manifest's entry of slug (manifest_find()), or NULL. */
const struct value *prev_entry(const struct build *b, const char *slug);

/* With settled, *settled says whether every change time in the listing
 * was before the walk began (kept_listed() may then take it as it is). */
bool previous_clean(const struct build *b, const char *slug, bool *whole,
		    struct cache_key *digest, bool *settled);
/* A report whose page the next build may reuse, once this output is in
 * place: its slug, its key, and for a folder kept where it was
 * (job->move), the digest of its listing when this build checked it
 * (job->listing). */
struct kept {
	const char *slug;
	struct cache_key key;
	bool moved;
	struct cache_key listing;
	bool settled; /* listing's change times all before its walk began */
	struct cache_key entry; /* manifest_entry_digest() of its entry */
};
/* After the commit: the reports list the next build reads (cache.h),
 * each of the n kept reports under report_listed() of its key and of
 * the listing of its folder in the output as it is now.  A folder that
 * holds what a build does not write, a kept folder changed while this
 * build ran, or a file changed too recently to tell a later change
 * from it, is left out: rendered again next time.  The folders are
 * listed on opts->jobs threads.  Caller gives it to cache_reports_save(). */
struct cache_reports *kept_listed(struct build *b, const struct kept *kept, size_t n);
/* The key a report is kept under for the next build: its page's key,
 * the digest of the files the commit left in its folder, so that a
 * folder holding anything else (a planted file, one changed since) is
 * not reused, and the digest of its manifest entry, which a reuse
 * takes from the output's manifest.json (manifest_entry_digest()). */
struct cache_key report_listed(const struct cache_key *key, const struct cache_key *digest,
			       const struct cache_key *entry);

/* The folder slug (or any folder path) below the folder fd, reached
 * through real folders only (O_NOFOLLOW at each step), or -1. */
int open_below(int fd, const char *slug);

/* keepcopy.c */
/* provenance_keeper's question (ctx: the build): may the previous
 * output's copy at rel of the file open at fd stay where it is?  Notes
 * the copy either way, for keepcopy_commit(). */
bool keepcopy_keep(void *ctx, const char *rel, int fd, const char *real);
/* Once the output is committed: remembers each copy of this build as it
 * is now in the output (cache_output_note()). */
void keepcopy_commit(struct build *b);
void keepcopy_free(struct build *b);

/* earlycopy.c: a report's big result files copied into the staging
 * folder on threads of their own while the report loads and renders. */
/* Starts the copies of r's result files named to it from now on
 * (earlycopy_file()), when the build writes and the previous output
 * does not hold r's folder. */
void earlycopy_begin(struct earlycopy *ec, struct build *b, const struct report *r);
/* Starts the copy of the file at path (a result file of r's, as a run
 * names it) if it is of 16 MiB or more and one of r's first two, when
 * earlycopy_begin() allowed copies. */
void earlycopy_file(struct earlycopy *ec, struct build *b, const char *path);
/* earlycopy_begin() unless it was called, then earlycopy_file() for
 * each of r's loaded runs' files (one started before is not again). */
void earlycopy_start(struct earlycopy *ec, struct build *b, const struct report *r);
/* The early copy of the file open at fd, when it is that file with the
 * signature it had while it was copied: renamed to rel in the staging
 * folder, true.  False when there is none (copy it then). */
bool earlycopy_take(struct earlycopy *ec, struct build *b, const char *rel, int fd);
/* Waits for the copies and removes those not taken. */
void earlycopy_end(struct earlycopy *ec);

/* images.c */
void index_resources(struct build *b);
void check_images(struct build *b, const struct report *r, struct doc *doc, struct job *job);

/* searchindex.c */
/* Collects r's sections for the index from its doc, after r->html. */
void search_report(struct build *b, const struct report *r, struct doc *doc, struct job *job);
/* Writes search-index.js from every job's sections (jobs parallel to
 * b->reports), a reused page's taken from the previous output's; a
 * failure to write it reported through d.  False when it was not
 * written.  Runs beside the thread writing the index page and the
 * manifest (and any pages left to one thread): it reads b's reports and
 * output and the jobs' search and reused, and writes only the jobs'
 * search and b->terms. */
bool search_index_write(struct build *b, struct job *jobs, struct diag *d);

#endif
