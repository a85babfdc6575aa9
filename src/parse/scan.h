/* scan.h: the scanner's state, shared by the files that run a parser
 * over a log: scan.c (lines, fields, series, more), scantable.c
 * (tables), scanpipe.c (the threads) and logparse.c (the run).  Private
 * to parse/. */
#ifndef LOGDOWN_PARSE_SCAN_H
#define LOGDOWN_PARSE_SCAN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/diag.h"
#include "base/util.h"
#include "data/re.h"
#include "data/run.h"
#include "parse/notebook.h"
#include "parser.h"

#define BINARY_PROBE ((size_t)64 << 10)  /* a NUL byte here: binary */
#define CHUNK_BYTES ((size_t)4 << 20)
#define MAX_LINE ((size_t)64 << 20)      /* longer lines are cut */
#define PIPE_MIN ((off_t)8 << 20)        /* bigger logs build rows in a second thread */
#define NSLOTS 3                         /* chunk buffers in flight between the threads */
#define REC_HEAD 6 /* words before a row record's cells */

/* A line as the patterns see it (see the top of scan.c). */
struct line {
	const char *p; /* without leading blanks and fence */
	size_t n;
	const char *full; /* with leading blanks: columns of aligned tables */
	size_t full_n;
	bool ranked;
	uint64_t rank;
};

/* Rows already taken from rank-prefixed lines, by their cells' hash. */
struct dent {
	uint64_t hash, rank;
	size_t row;
};

struct dedup {
	struct dent *v;
	size_t n, cap; /* cap is 0 or a power of two */
};

/* Names a '*' field found, in first-seen order. */
struct named {
	char *name;
	struct buf text;
	long line;
};

struct fstate {
	bool found;
	long line;
	struct buf text;
	/* pick: sum and count: the matches, their sum, and the first value
	 * that was not a number (left out of the sum, warned about). */
	size_t count;
	double sum;
	long first_line;
	long bad_line;
	struct buf bad;
	struct named *names;
	size_t nnames, names_cap;
	size_t *index; /* open addressing over names + 1 */
	size_t index_cap;
};

/* A series' state, used by the row builder (a thread of its own for a
 * big log): nothing here is touched by the scanner. */
struct sstate {
	struct series *s;
	struct dedup dd;
	struct datum *cells; /* a row being built */
	signed char *dec;    /* its cells' decimals, as series_append_fixed() takes them */
	/* Per column, the first value that did not read as the column's
	 * type, warned about once the file is read. */
	unsigned char *warned; /* enum typed: TYPED_OK, or why it was not */
	long *warn_line;
	char **warn_text;
	const struct row_sink *sink; /* where its rows go, or NULL */
	/* A typed sink's series is counted, not kept: rows of
	 * rank-prefixed lines are kept here too, in a series of a run of
	 * their own, for the copies of other ranks to be found among. */
	struct run *ranked_run;
	struct series *ranked;
	/* A series that shares its name with a table (pseries.table): made
	 * at its first row, at first_line; shared_warned once the table
	 * took the name first. */
	long first_line;
	bool shared_warned;
};

/* A field's match in one chunk (parallel scanning); a '*' field's
 * names found in it, in first-seen order, lines in the chunk. */
struct slot_field {
	bool found;
	long line; /* in the chunk */
	struct buf text;
	struct named *names;
	size_t nnames;
};

/* A pattern that failed in one chunk (parallel scanning). */
struct slot_fail {
	size_t act;
	int rc;
	long line; /* in the chunk */
};

/* An end line of a split parser that a scanner found in its chunk
 * (parallel scanning): the part of the chunk before it, up to the end
 * of the line, is the end of a run.  What the scan found in that part:
 * its rows are those before words, its failed patterns those before
 * nfails, its fields and hits are here; the texts of the split
 * pattern's named groups and name group, for the builder to give the
 * run (split_replay()). */
struct slot_split {
	long line; /* in the chunk */
	size_t words, nfails, hits;
	struct slot_field *fields;
	struct buf *texts;
	bool *took;
	char *name;
};

/* A chunk buffer, and the series rows found in it: for each row, the
 * words [series, line lo, line hi, ranked, rank lo, rank hi] and an
 * (offset, length) pair per column, offsets from buf.  When chunks are
 * scanned in parallel, line numbers count from the chunk's start and
 * the rest of what the scan found waits here for the builder, which
 * takes the chunks in file order. */
struct slot {
	char *buf;
	size_t cap;
	uint32_t *rows;
	size_t nwords, words_cap;
	/* Parallel scanning only: */
	size_t from, to;   /* the lines to scan: buf[from, to) */
	long nl_before;    /* '\n' passed over before from (the end of a cut line) */
	bool cut;          /* its first line is longer than MAX_LINE */
	bool scanned;      /* a scanner is done with it */
	long nl;           /* '\n' in buf[from, to) */
	size_t hits;
	struct slot_field *fields;
	struct slot_fail *fails;
	size_t nfails;
	struct slot_split *splits; /* in file order */
	size_t nsplits, splits_cap;
};

/* A big log is read by two threads: the scanner (the caller: reading,
 * finding lines, matching, fields and tables) and the row builder
 * (typing series cells and storing rows, which is where the memory of
 * millions of rows is first touched).  Chunk buffers go round NSLOTS
 * slots; a slot handed to the builder is read-only until it comes back.
 *
 * With more than one core and a parser without tables, '*' fields,
 * `more` or `carry` (whose state runs from line to line), the caller only reads, and
 * scanning goes to one thread per core (struct scanner): each takes the
 * next chunk read, scans it with its own matcher, and leaves what it
 * found in the slot, line numbers counted from the chunk's start.  The
 * builder takes the chunks in file order, so it knows where each
 * starts: it numbers the lines, merges the fields (a first-pick field
 * from the first chunk that has it, a last-pick one from the last),
 * reports failed patterns and builds the rows, exactly as one thread
 * reading the file from the start would. */
struct pipe {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots;
	size_t nslots;
	size_t published, consumed;
	size_t next_scan;      /* the next chunk for a scanner */
	bool done;
	struct scan *sc;
	struct scanner *scanners;
	size_t nscanners;
	bool *act_over;        /* per act: a first-pick field found, or a failed
				* pattern, in a chunk taken before */
	unsigned char *reported; /* per act: its failure was reported */
};

struct tstate {
	struct series *s;
	struct dedup dd;
	bool found;
	bool clash_warned;
	bool types_checked;     /* its types' column names, against its header */
	bool fill_checked;      /* its fill_down names, likewise */
	unsigned char *warned;  /* per column: a value not of its type was warned about */
	size_t nwarned;
	long header_line; /* the first line its header pattern matched, or 0 */
};

enum act_kind { A_FIELD, A_SERIES, A_TABLE, A_SPLIT, A_CARRY, A_RESET, A_FRESET };

/* A pattern looked for during a run. */
struct act {
	const struct pattern *pat;
	enum act_kind what;
	size_t idx;
	/* The next place of the pattern's literal in the chunk, at or after
	 * the line being looked at; NULL when not looked for yet, the
	 * chunk's end when there is none. */
	const char *next;
	bool off; /* a first-pick field that has matched, or a broken pattern */
	/* The first act whose pattern has the same literal (this one's
	 * index when none comes before): its search serves this one too. */
	size_t lead;
};

enum table_mode { TM_SEEK, TM_PIPE, TM_SPACE, TM_DELIM };

/* The table being read. */
struct tcur {
	long table; /* its index, or -1 */
	enum table_mode mode;
	int seek_left;
	bool after_header; /* a space-aligned table's ruler may come next */
	size_t *ext;       /* a space-aligned table's column starts, from its ruler */
	size_t next;
	size_t ncols;
	/* Per column, its type, when the table has types or the parser a
	 * number_style (NULL otherwise: cells typed as usual). */
	enum vtype *types;
	/* fill_down: the columns that take the cell above when blank, and
	 * that cell's text (a copy: it may be in an earlier chunk). */
	size_t *fill;
	struct buf *fill_prev;
	size_t nfill;
	/* The carried columns after the header's: the parser's carried
	 * column of each (those the header has itself are left out). */
	size_t *carried;
	size_t ncarried;
	/* A |-table whose rows start and end with a border, and pasted
	 * behind "> " or "# " (scantable.c). */
	bool bordered, quoted;
	/* The header or row a terminal wrapped, joined from its pieces
	 * until it is whole: its text, first line and rank. */
	bool head_open, row_open;
	/* The last line of a bordered table was a whole ruler (+---+---+):
	 * a second one right after it starts the next table. */
	bool ruled;
	struct buf pend;
	/* A delimited row's quoted cells with "" in them, unquoted. */
	struct buf dcells;
	long pend_line;
	bool pend_ranked;
	uint64_t pend_rank;
};

/* A row of a series with `more`, kept until the lines after it that go
 * on in its cell have been read.  Its cells are copies: those lines may
 * be in the next chunk. */
struct more {
	bool on;
	size_t series;
	long line;
	bool ranked;
	uint64_t rank;
	size_t taken;      /* lines after the row's line looked at */
	bool until_failed; /* the until pattern failed (reported once) */
	struct buf *cells; /* per column */
	size_t ncells;
	struct buf joined; /* the cells one after another, to build the row */
};

struct scan {
	const struct parser *p;
	struct run *r;
	struct diag *d;
	const char *shown;
	bool quote; /* small enough for diagnostics to quote its lines */
	/* The notebook whose outputs are the text (notebook.h): diagnostics
	 * name the cell and the line in its output. */
	const struct notebook *nb;
	struct re_matcher m;
	struct act *acts;
	size_t nacts;
	bool every_line;
	bool has_cr, has_caret; /* in the chunk being read */
	bool srun_labels;
	long nl; /* '\n' before the scan position */
	struct fstate *fs;
	struct sstate *ss;
	struct tstate *ts;
	struct tcur tc;
	struct span *cells;
	size_t cells_cap;
	struct datum *row;
	size_t row_cap;
	bool failed;
	size_t hits;
	/* Where series rows go: the slot being scanned (its rows are built
	 * by the builder thread) or, without one, built at once. */
	struct slot *slot;
	struct pipe *pipe; /* the builder's, while scan_file() runs one */
	const char *base; /* the buffer that row offsets count from */
	uint32_t *rec;    /* a row record, when built at once */
	size_t rec_cap;
	bool defer;       /* a parallel scanner: failures wait in the slot */
	long line_base;   /* the builder: lines before the chunk being built */
	struct more more; /* a row waiting for its more lines */
	/* split: (a parser's split pattern, acts[0]; with `end`, a big
	 * log's chunks are scanned apart and the builder ends the runs at
	 * the end lines the scanners found, split_replay(); otherwise the
	 * log is scanned on one thread, its rows built by the builder,
	 * which is waited for at each split line: pipe_drain()).  A split
	 * line ends the run being read, unless it is the file's first or
	 * the run found nothing since its own split line; next_run() then
	 * finishes sc->r and gives the next run. */
	struct act *split;
	struct run *(*next_run)(struct scan *sc, long line);
	void *split_ctx;
	size_t splits;     /* split lines read */
	size_t split_mark; /* hits when the last split line was read */
	bool split_now;    /* the line being read is a split line */
	/* split: {end: ...}: the line being read ends its run; the next
	 * run starts after it */
	bool split_pending;
	/* only the rows of a sink's series are looked for: the acts that
	 * are not (a new run of a split file leaves them off) */
	bool sink_only;
	bool *sink_off;
	bool *ever_rows;   /* per series: rows in an earlier run */
	bool *ever_found;  /* per table: found in an earlier run */
	/* The name group's text on the run's split lines (the first one
	 * that has it), or NULL. */
	char *split_name;
	/* carry: per carried column of the parser, its value now (empty:
	 * none), and a row's cells copied with them to build it. */
	struct buf *carry;
	struct buf carry_row;
	/* Appends (scanstate.c): the scan goes on from a state read back,
	 * the file's start checked then (resumed); the state at the end of
	 * the file's last whole line is wanted into *capture (NULL: not),
	 * taken before a last line without its '\n' is read (captured),
	 * point_read bytes after where the scan started. */
	bool resumed;
	size_t runs_done; /* split: runs ended before the one being read */
	struct buf *capture;
	bool captured;
	uint64_t point_read;
	/* What the caller keeps with the state (logparse.c: its derives'
	 * aggregates, derivecarry.c): written after it by state_more(),
	 * when set; a state read back leaves those bytes in state_more_in
	 * (a view of the state's). */
	void (*state_more)(void *ctx, struct buf *out);
	void *state_ctx;
	/* Called by the row builder's thread after each chunk's rows when
	 * chunks are scanned apart (scanpipe.c), with state_ctx: the
	 * derives' aggregates folded as the rows come (derivecarry.c),
	 * not all at once after the parse.  Or NULL. */
	void (*rows_built)(void *ctx);
	/* Called by build_row() with state_ctx when it has just appended a
	 * row (cells, read on line) to the run's series s, the parser's
	 * series `series`: what rows_built would read back of it, taken as
	 * it is appended (series_appended_cell()).  Or NULL. */
	void (*row_added)(void *ctx, size_t series, const struct series *s,
			  const struct datum *cells, long line);
	struct span state_more_in;
	/* Not NULL: every byte scan_file() reads is counted there, on the
	 * reading thread (the log page's line count and index). */
	struct line_count *count;
	/* Not NULL: every byte scan_file() reads is handed to it too, in
	 * order, on the reading thread (struct scan_point's sink). */
	void (*sink)(void *ctx, const void *p, size_t n);
	void *sink_ctx;
};

/* A thread scanning chunks of a big log (see struct pipe). */
struct scanner {
	pthread_t thread;
	struct pipe *pp;
	struct scan sc;
};

/* scan.c */

/* The entry of a '*' field's name (a copy of name[0, n)), made when
 * new (*fresh). */
struct named *named_get(struct fstate *fs, const char *name, size_t n, bool *fresh);
/* A place in the log.  diag quotes a line by reading the whole file,
 * which a big log must not cost: its lines are left unquoted. */
/* Makes, empty, each series that shares its name with a table when the
 * file held neither, so that it exists as declared series do. */
void scan_finish_shared(struct scan *sc);
void log_diag(struct scan *sc, bool error, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Reports a's pattern hitting a limit (or, in a parallel scanner,
 * leaves it in the slot), and switches a off. */
void pattern_failed(struct scan *sc, struct act *a, const char *what, int rc, long line);
/* "field 'x'", "series 'x'", "table 'x'"; caller frees. */
char *act_what(const struct scan *sc, const struct act *a);
struct datum *row_scratch(struct scan *sc, size_t n);
/* Appends a row, unless it is another rank's copy of a row already
 * taken.  Returns whether it was taken. */
bool add_row(struct series *s, struct dedup *dd, const struct datum *cells, uint64_t shortest,
	     bool ranked, uint64_t line_rank, long line, const signed char *dec);
/* Adds an entry to a rank de-duplication table (growing it). */
void dedup_insert(struct dedup *dd, struct dent e);
/* Types the cells of one row record and stores the row.  Returns the
 * words the record took. */
size_t build_row(struct scan *sc, const uint32_t *w, const char *base);
void update_every_line(struct scan *sc);
/* Builds the row that waited for its more lines. */
void more_end(struct scan *sc);
void scan_chunk(struct scan *sc, const char *buf, const char *end);
void scan_init(struct scan *sc, const struct parser *p, struct run *r, struct diag *d,
	       const char *shown);
void scan_free(struct scan *sc);
/* Once the file is read: a warning for each declared series of a
 * project's parser that got no row, and each table never found, naming
 * its pattern (a built-in's series and tables may be absent from a
 * file of its kind).  Said only when something else matched: a parser
 * that matched nothing gets the one warning of its own. */
void scan_warn_silent(struct scan *sc);
/* Reads the file in chunks and scans each; false after an error. */
bool scan_file(struct scan *sc, int fd, off_t size);
/* Would a full scan of the file open at fd, size bytes, see its start
 * as the scan that stopped `point` bytes into it did (no NUL byte for
 * the binary probe, srun's labels as sc has them, read back)? */
bool scan_resume_ok(const struct scan *sc, int fd, off_t size, uint64_t point);
/* split: sc reads on into r, a new run: the state of the run before
 * (fields found, series, tables, first-pick fields done) starts afresh. */
void scan_restart(struct scan *sc, struct run *r);
/* The builder meets an end line that a scanner found at `line`: the
 * line's named groups (texts, when took) and name (taken) go to the run
 * it ends, which is finished, and the next run starts after it, as one
 * thread's scan_line() does. */
void split_replay(struct scan *sc, const struct buf *texts, const bool *took, char *name,
		  long line);

/* scanstate.c */

/* Appends to out the state of sc that runs from line to line (fields,
 * series and their rows counted, rank de-duplication, the table being
 * read, a row waiting for its more lines, carried values), as it is
 * between two lines. */
void scan_state_save(const struct scan *sc, struct buf *out);
/* Sets the state of sc, fresh from scan_init() over an empty run, from
 * data[0, len) (scan_state_save()'s), the run's series taking their
 * first rows from prev (the run stored with the state).  False when the
 * state is not one of sc's parser, or is damaged: sc is then only fit
 * for scan_free(). */
bool scan_state_load(struct scan *sc, const void *data, size_t len, const struct run *prev);

/* scantable.c */

/* The header pattern of table t matched this line. */
void table_start(struct scan *sc, size_t t, const struct line *ln, long line);
/* A line after a table's header: a row, a ruler, or the end. */
void table_line(struct scan *sc, const struct line *ln, long line);
/* The file ended: a row still waiting for its wrapped rest is warned
 * about. */
void table_finish(struct scan *sc);

/* scanpipe.c */

void slot_free(struct slot *sl, const struct parser *p);
void slot_reserve(struct slot *sl, size_t cap);
/* The threads that scan a big log's chunks (0: the reading thread). */
size_t scan_threads(void);
/* Does a series of p read the lines after its rows (`more`)? */
bool has_more(const struct parser *p);
/* Can chunks of a log be scanned apart? */
bool parallel_ok(const struct parser *p);
/* Starts the builder, and nscanners scanners, or returns NULL. */
struct pipe *pipe_start(struct scan *sc, size_t nscanners);
/* Slot k, once the builder is done with what it held. */
struct slot *pipe_acquire(struct pipe *pp, size_t k);
/* Hands the next slot in order to the scanners or the builder. */
void pipe_publish(struct pipe *pp);
/* Waits for the threads to finish every slot handed to them. */
void pipe_finish(struct pipe *pp);
/* A parallel scanner read an end line at `line`: its texts, took and
 * name are kept (taken) in the slot for the builder. */
void scanner_split(struct scan *w, struct buf *texts, bool *took, char *name, long line);
/* ... and is at the end of that line: what it found since the chunk's
 * start or the end line before goes with the end line, and the scan of
 * the chunk goes on as that of a new run. */
void scanner_cut(struct scan *w);
/* A split line ends the run being read (no scanners): waits for the
 * builder to finish every slot handed to it, then builds the rows of
 * sc->slot found so far here, so that the run is whole before it is
 * finished. */
void pipe_drain(struct pipe *pp, struct scan *sc);

#endif
