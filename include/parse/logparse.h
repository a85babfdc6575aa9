/* logparse.h: parsers: YAML definitions (SPEC section 7), compiled once,
 * run over result files to make runs.
 *
 *   name: cerebras
 *   description: Cerebras Model Zoo training logs
 *   detect: 'Train Device=CSX'            # tried in the first 1 MiB
 *   fields:
 *     batch_size: 'Effective batch size is (\d+)'      # first group, last match
 *     total_time: { pattern: 'in ([\d.]+) seconds', pick: last }
 *     started:    { pattern: '^(\S+ \S+) INFO', type: timestamp }
 *   series:
 *     train: 'Step=(?<step>\d+), Loss=(?<loss>[\d.]+), Rate=(?<rate>[\d.]+)'
 *   tables:
 *     results: { header: '\|\s*Source\s*\|' }
 *   derive:
 *     final_loss: last(train.loss)
 *
 * The structured readers (json, yaml, csv) are parsers too: their
 * definitions say `format: json` (or yaml, csv) instead of patterns.
 *
 * Keys of a definition (anything else is an error with a did-you-mean):
 *
 *   name         the parser's name (default: the file's stem)
 *   description  one line for `logdown parsers`
 *   detect       a pattern or a list of them, matched against the first
 *                1 MiB of a file as one text (so '^' is the start of the
 *                file unless the pattern says (?m)); any match claims it
 *   extensions   [.json, '*.nsys.txt', ...]: the file names it claims,
 *                besides the files detect claims.  format json/yaml/csv
 *                default to theirs
 *   format       text (default) | json | yaml | csv
 *   cr           last (default): a line rewritten with carriage returns
 *                is its last non-blank segment | keep: patterns see the
 *                whole line, CRs included
 *   fields       name: pattern | {pattern, pick: first|last (default last),
 *                type: number|string|duration|duration_ms|duration_us|
 *                duration_ns|timestamp, group: N or name,
 *                default: value}.  The value is the first group that took
 *                part (the whole match for a pattern without groups).  A
 *                field that matched nothing is missing, or its default.
 *                The name '*' makes a field of every match, named by the
 *                group (?<name>...) in snake_case (each dotted part) and
 *                valued by (?<value>...).
 *   series       name: pattern | {pattern, columns: [group names],
 *                types: {column: type}}: one row per match, the columns
 *                the named groups in group order unless listed
 *   tables       name: header-pattern | {header: pattern, columns:
 *                {name: cell | [cells]}, types: {column: type}}: the table
 *                at the line that matches (or right after it): +---+ and
 *                | a | b | rows, box drawing (│ ┃ ║ ─ ┼ ...), Markdown, or
 *                columns aligned with spaces under a "--- ---" ruler.
 *                Columns are the header cells in snake_case(), or the name
 *                columns gives a cell; a types name no column has is a
 *                warning.  A table may share its name with a series whose
 *                columns its columns all name: the one a file holds fills
 *                it.
 *   number_style {decimal: ',', thousands: '.'}: every value is read in
 *                that style (valuetype.h); a number only in the usual
 *                style is a warning and stays text.
 *   derive       name: expression (expr.h), evaluated in order after the
 *                file is read, names resolving in the run being made
 *   split        'pattern' | {pattern, name: GROUP}: each line it matches
 *                starts a new run of the file (the lines before the first
 *                are the first run's; a split line after nothing found
 *                joins the run); its named groups are fields of that
 *                run, but GROUP's, which names it (made an identifier;
 *                else run1, run2, ...).  Fields, series, tables and
 *                derive are each run's own.  Read on one thread.
 *
 * Types (valuetype.h): number reads as datum_from_text() does (the
 * default types each value that way), and a number followed by a unit
 * ("12345 MiB": 12345); duration "01:49" (m:s) = 109, "1:02:03" = 3723,
 * "1-02:03:04" (Slurm's d-h:m:s), "10.99s", "1h2m3.5s", "150 ms",
 * "2 days, 1:02:03", seconds; duration_ms, duration_us, duration_ns the
 * same in that unit, scaled exactly ("814.13us" is 814130 ns); timestamp "2024-03-30 14:09:43,663",
 * "2024-04-08T09:03:33.195878Z", "Mon Apr  8 09:03:33 2024" give seconds
 * since the epoch (UTC unless a zone is written), "[09:01:59.258]"
 * seconds since midnight: differences are seconds.  A value that does
 * not read as its type stays text, with a warning.  Every value keeps
 * its text as written and its line.
 *
 * How a line is normalised before matching (CRLF, carriage-return
 * rewrites, MPI rank prefixes, Markdown indentation, invalid UTF-8) and
 * how copies of a row printed by several MPI ranks are skipped: see the
 * comment at the top of src/parse/scan.c. */
#ifndef LOGDOWN_LOGPARSE_H
#define LOGDOWN_LOGPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"

struct parser;
struct parser_set;

/* The built-in parsers (compiled into the binary from the repository's
 * parsers folder), then every .yaml file in ROOT/parsers and in each of
 * extra_dirs
 * (NULL-terminated, may be NULL), a later definition of a name replacing
 * an earlier one.  root may be NULL (built-ins only).  Problems in a
 * definition (malformed YAML, an unknown key, a pattern that does not
 * compile: at its line and column in the .yaml file) are reported
 * through d and that parser is left out; the set is returned anyway.
 * Caller frees with parsers_free(). */
struct parser_set *parsers_load(const char *root, char *const *extra_dirs, struct diag *d);
void parsers_free(struct parser_set *set);

/* An empty set, for a caller that adds definitions itself (tests,
 * tools).  Caller frees with parsers_free(). */
struct parser_set *parsers_new(void);
/* Adds the definition in text (len bytes; `file` names it in
 * diagnostics and is copied), replacing a parser of the same name in its
 * place.  A built-in's text must outlive the set (diagnostics quote it).
 * Returns false after reporting the definition's problems through d;
 * the set is then unchanged. */
bool parsers_add(struct parser_set *set, const char *file, const char *text, size_t len,
		 bool builtin, struct diag *d);

size_t parsers_count(const struct parser_set *set);
const struct parser *parsers_at(const struct parser_set *set, size_t i);
/* The parser of that name, or NULL. */
const struct parser *parsers_find(const struct parser_set *set, const char *name);
/* Is name that of a definition that did not load (parsers_add())? */
bool parsers_broken(const struct parser_set *set, const char *name);
/* The parser named, or NULL after an error at `at` that suggests the
 * closest name: "unknown parser 'cerebas' (did you mean 'cerebras'?)";
 * for a definition that did not load, the error says so. */
const struct parser *parsers_lookup(const struct parser_set *set, const char *name,
				    struct loc at, struct diag *d);

const char *parser_name(const struct parser *p);
/* Whether p's patterns are JIT-compiled yet: a parser is JIT-compiled
 * when a file is first read with it, not when it is loaded, so that a
 * build pays only for the parsers its runs use. */
bool parser_jitted(const struct parser *p);
const char *parser_description(const struct parser *p);
/* What p reads, how it is detected and what it extracts (fields,
 * series, tables, their declared types) and its example, appended to b:
 * the page `logdown parsers NAME` prints, or with markdown its section
 * of docs/builtin-parsers.md. */
void parser_describe(const struct parser *p, bool markdown, struct buf *b);
/* The definition's `example:` (a few lines of what the parser reads), or "". */
const char *parser_example(const struct parser *p);
/* "built-in", or the path of the .yaml file that defined it. */
const char *parser_origin(const struct parser *p);
/* The definition's YAML text (the cache keys parsed runs by it). */
const char *parser_source(const struct parser *p, size_t *len);

/* The one parser whose detection claims the file at path (its first
 * 1 MiB) or its name (extensions): either claims it.  A project parser
 * beats a built-in, then content and name beat content (detect) alone,
 * which beats a name alone; among the strongest
 * claims, more than one is an error at `at` naming them ("cannot tell
 * which parser reads logs/x.log: both 'a' and 'b' match; name one with
 * {file: ..., parser: NAME}"), and none an error listing the parsers.
 * NULL then. */
const struct parser *parsers_detect(const struct parser_set *set, const char *path,
				    struct loc at, struct diag *d);
/* The same for a file read from `from` (a path to a descriptor already
 * opened and checked, /proc/self/fd/N) and known as `path`: its name
 * (extensions, a notebook's .ipynb) and diagnostics are path's, its
 * bytes from's. */
const struct parser *parsers_detect_read(const struct parser_set *set, const char *from,
					 const char *path, struct loc at, struct diag *d);

/* Runs p over the file at path (streamed: memory grows with the series
 * kept, not with the file), naming the run run_name.  `shown` is the
 * path as diagnostics and the run's file should show it.  An unreadable,
 * empty or binary file (a NUL byte in its first 64 KiB) is an error, as
 * is a pattern that hits the match limit (catastrophic backtracking:
 * reported at the pattern in its definition, with the log's line); a
 * parser that matched nothing is a warning ("parser 'x' matched nothing
 * in FILE"), and so, for a project's parser that matched something, are
 * each series without rows and each table not found, naming the
 * pattern.  Every field the definition names is set, missing when it
 * matched nothing, and every series exists, empty or not.  A derive
 * that fails is reported and left missing, and the run still returned;
 * when the file lacked some of the parser's fields or series (a run cut
 * short), a derive that cannot be computed is missing without a word.
 * Returns NULL on an error, reported through d.  A file that p's split
 * cuts into several runs gives a run that holds them (run.h:
 * run_member_at(), named "RUN_NAME.MEMBER"), with no fields or series
 * of its own; into one run, a plain run.  Caller frees with
 * run_free(). */
struct run *parser_run(const struct parser *p, const char *path, const char *shown,
		       const char *run_name, struct diag *d);

/* Where the rows of one series go instead of into the run, as they are
 * found and in file order, for a caller that only passes them on
 * (`logdown parse --csv`): memory then stays flat whatever the file's
 * size.  row() gets the cells (texts point into the file's buffer: valid
 * for the call only; a column without a declared type is a string or
 * missing, its number not read) and the line; it is called from one thread,
 * though maybe not the caller's.  Rows of rank-prefixed lines are still
 * kept in the run too, since dropping another rank's copy of a row needs
 * the rows taken before. */
struct row_sink {
	const char *series;
	void (*row)(void *ctx, const struct datum *cells, size_t ncols, long line);
	void *ctx;
	/* Set by parser_run_stream() (row then unused): the cells typed as
	 * a kept row's, the series' index in the parser and the series
	 * (counted, not kept), and the cells whose text is number_put()'s
	 * (series_append_shortest()). */
	void (*typed)(void *ctx, size_t idx, const struct series *s, const struct datum *cells,
		      uint64_t shortest, long line);
};

/* parser_run(), with the rows of sink->series handed to sink (NULL:
 * parser_run() itself).  That series is then empty in the run, so a
 * derive over it is missing. */
struct run *parser_run_sink(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct row_sink *sink, struct diag *d);

/* Where parser_run_stream() hands the rows of every series that lines
 * fill (not one a table fills), as they are found: per series in file
 * order, typed as a kept row's cells are (texts valid for the call only;
 * bit j of shortest set when cell j's text is number_put()'s for its
 * number), the series being the run's, which counts them without
 * keeping them.  Called from one thread, maybe not the caller's. */
struct row_stream {
	void (*row)(void *ctx, const struct series *s, const struct datum *cells,
		    uint64_t shortest, long line);
	void *ctx;
};

/* Whether p's runs can be made with their rows streamed: a text parser
 * whose derives read its series only through first, last, min, max,
 * count, sum and mean of a column (expr_streamable()), which are then
 * taken as the rows pass. */
bool parser_streams(const struct parser *p);

/* parser_run(), for a p that parser_streams(), with the rows of its
 * series handed to rs and not kept: memory stays flat whatever the
 * file's size (but for the rows of rank-prefixed lines, kept aside to
 * find other ranks' copies among).  The run, its fields and derives,
 * its diagnostics and errors are parser_run()'s; its series hold no
 * rows but count them (series_counted(); an empty series is not).
 * Caller frees with run_free(). */
struct run *parser_run_stream(const struct parser *p, const char *path, const char *shown,
			      const char *run_name, const struct row_stream *rs,
			      struct diag *d);

/* Appends: a log that only grew is scanned from where the last parse
 * of it stopped (docs/internals.md, "Appends").  A scan_point is the
 * scanner's state at the end of a log's last whole line: `state` (the
 * bytes scanstate.c writes) is taken `point` bytes into the file, with
 * the run stored for that parse (`prev`: its series' first rows are the
 * rows found before the point). */
struct scan_point {
	struct buf state;
	uint64_t point;
	struct run *prev; /* resuming: taken by parser_run_from() */
	/* As `to`: not NULL (its ix.every set, ix.starts NULL), the lines
	 * of a text log read from its start are counted there as they are
	 * read, for its log page (line_count_feed()); counted says the
	 * whole file was.  The caller frees count->ix.starts. */
	struct line_count *count;
	bool counted;
	/* As `to`: not NULL, every byte of a text log read from its start
	 * is handed to sink(sink_ctx, ...) in order as it is read (its
	 * content hash: cache_read_feed()). */
	void (*sink)(void *ctx, const void *p, size_t n);
	void *sink_ctx;
};

/* parser_run(), for a text log: from `from` (NULL: the file's start),
 * the file's first from->point bytes taken to be the ones that state
 * was taken over (the caller checks their hash); and, when `to` is not
 * NULL and p's state can be carried (not a notebook, nor a
 * number_style read from the file, nor a file split into several runs
 * by then), the state at the end of the file's last whole line into
 * *to (to->state left empty when not).
 * *refused is set, with nothing reported and NULL returned, when the
 * state cannot go on in this file (not p's, damaged, or the grown
 * file's start says otherwise: a NUL byte for the binary probe, srun's
 * labels): parse it in full then.  A resumed run is the run a full
 * parse gives, byte for byte; it reads its first rows from from->prev
 * where they lie (a mapped store), which parser_run_from() takes, to
 * free with the run (or at once when it returns NULL). */
struct run *parser_run_from(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct scan_point *from,
			    struct scan_point *to, bool *refused, struct diag *d);

/* The columns of the series `name` when p is a text parser that
 * declares it (the series a row_sink can take), else NULL.  Borrowed
 * from p. */
const char *const *parser_series_columns(const struct parser *p, const char *name,
					 size_t *ncols);

#endif
