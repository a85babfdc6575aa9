/* run.h: the data model: what a parser extracts from one result file.
 *
 * A run has fields (a number or a string, each remembering the text it
 * was written with and its line), series (tables: ordered rows of named
 * columns, each row remembering its line) and the count of its lines
 * (SPEC section 3).  Nested records are flattened into dotted field
 * names ("summary.metis.mean_latency_s").
 *
 * Memory: a run owns everything reachable from it, text included.  A
 * series may hold millions of rows, so its storage is the
 * implementation's business: read it through series_cell(). */
#ifndef LOGDOWN_RUN_H
#define LOGDOWN_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum datum_kind {
	DATUM_MISSING, /* "--", "n/a", an empty cell: skipped by aggregations, shown as — */
	DATUM_NUMBER,
	DATUM_STRING,
};

/* One value, as a view: text points into storage owned by the run (or
 * by whoever made the datum) and is NOT NUL-terminated; use len. */
struct datum {
	enum datum_kind kind;
	double num;       /* DATUM_NUMBER: the value ("98.07%" gives 98.07) */
	const char *text; /* as written in the file ("7.12500"); NULL when computed */
	size_t len;
	long line;        /* 1-based line in the run's file; 0 when computed */
};

struct series;
struct run;
struct span;

/* A new empty run.  name is the run's name in the report ("cs512"),
 * file the result file as diagnostics show it, parser the parser's
 * name.  Caller frees with run_free(). */
struct run *run_new(const char *name, const char *file, const char *parser);
void run_free(struct run *r);

const char *run_name(const struct run *r);
/* Renames r (a run just made, not yet shared). */
void run_set_name(struct run *r, const char *name);
/* The file as diagnostics show it (a stored run, read back by another
 * build, gets the name this one knows the file by). */
void run_set_file(struct run *r, const char *file);
/* The `file` attribute reports read ({{ cs.file }}): the file relative
 * to the report, which the loader knows (run_file() stays the path
 * diagnostics show); set for r and its members.  run_file_attr() gives
 * it, or run_file() when none was set (`logdown parse`). */
void run_set_file_attr(struct run *r, const char *attr);
const char *run_file_attr(const struct run *r);
/* The line the run starts at in its file: 1, unless the file holds
 * several runs (below). */
long run_first_line(const struct run *r);
void run_set_first_line(struct run *r, long line);

/* A file that holds several runs (a parser's split:) is read as a run
 * with no fields or series of its own that holds them, in file order,
 * each named "NAME.MEMBER" (its name, then the member's: "mnist.run2")
 * so that a report writes mnist.run2.test_accuracy.  r owns them. */
void run_add_member(struct run *r, struct run *m);
size_t run_member_count(const struct run *r);
struct run *run_member_at(const struct run *r, size_t i);
/* Takes member i out of r: the caller owns it. */
struct run *run_take_member(struct run *r, size_t i);
const char *run_file(const struct run *r);
const char *run_parser(const struct run *r);
long run_line_count(const struct run *r);
void run_set_line_count(struct run *r, long n);

/* Sets field name to a copy of d (its text is copied), replacing an
 * earlier value of that name.  Field order is the order of first set. */
void run_set_field(struct run *r, const char *name, const struct datum *d);
/* The field, or NULL.  The view stays valid until the run changes.
 * The implicit fields name, file and parser (strings) and line_count (a
 * number), all with line 0, are answered here too when no field of that
 * name was set: a result file's own "name" wins.  They are not counted
 * by run_field_count() nor listed by run_field_at(). */
const struct datum *run_field(const struct run *r, const char *name);

/* For a computed field (a parser's derive): what it was computed from,
 * "samples = 512000 (logs/bs512.log:58); ...", shown in a tooltip.  The
 * field must exist; inputs is copied.  run_field_inputs() gives NULL for
 * a field without. */
void run_set_field_inputs(struct run *r, const char *name, const char *inputs);
const char *run_field_inputs(const struct run *r, const char *name);
size_t run_field_count(const struct run *r);
/* The i-th field's name and value, in order. */
const char *run_field_name(const struct run *r, size_t i);
const struct datum *run_field_at(const struct run *r, size_t i);

/* Adds a series with the given columns (copied), or returns the existing
 * series of that name when its columns are the same (rows then append).
 * Returns NULL when a series of that name exists with other columns. */
struct series *run_add_series(struct run *r, const char *name, const char *const *columns,
			      size_t ncols);
struct series *run_series(const struct run *r, const char *name);
size_t run_series_count(const struct run *r);
struct series *run_series_at(const struct run *r, size_t i);

const char *series_name(const struct series *s);
size_t series_column_count(const struct series *s);
const char *series_column(const struct series *s, size_t col);
/* The index of the column, or -1. */
long series_column_index(const struct series *s, const char *name);
size_t series_row_count(const struct series *s);
/* Appends a row of series_column_count() cells (texts copied), read from
 * line `line` (0 when computed); a cell whose own line is after it
 * keeps that line.  A series already holding limit
 * series_rows rows keeps the count of the rows past it instead (see
 * series_dropped()). */
void series_append(struct series *s, const struct datum *cells, long line);
/* series_append(), with bit j of shortest set when cell j is a number
 * whose text is what number_put() writes for it (the scanner knows as
 * it reads it: datum_from_text_short()); series_row_shortest() and
 * series_cell_shortest() give the bits back, so that a writer need not
 * check the text again.  Columns past the 64th are never marked. */
void series_append_shortest(struct series *s, const struct datum *cells, long line,
			    uint64_t shortest);
/* series_append_shortest(), with dec[j] (dec may be NULL: none known)
 * the scanner's number_fixed_decimals() of cell j's text when it read
 * the cell's number exactly from it (number_read_exact()'s double of
 * that text), -1 when it read no number so, -2 when it does not know:
 * neither the series' survey (series_survey()) nor the choice to keep
 * the number as its text alone then looks at the text again. */
void series_append_fixed(struct series *s, const struct datum *cells, long line,
			 uint64_t shortest, const signed char *dec);
/* Right after series_append_shortest() kept a row (its row count grew)
 * from cells on line `line`, and before anything else changes s: the
 * cell in column col as series_cell_shortest() will give it back (its
 * text is cells[col]'s, valid while that is), without reading it again
 * (its double is the one its text reads as, which appending checked).
 * Returns what series_cell_shortest() would. */
bool series_appended_cell(const struct series *s, const struct datum *cells, long line,
			  size_t col, struct datum *out);
/* What a run store's writer needs to know of a column's cells before it
 * lays them out (runstore.c), gathered as the rows are appended.  A
 * cell's tag is its kind | SERIES_VIEW_TEXT (it has a text) |
 * SERIES_VIEW_LINE (its line is after its row's); a plain decimal is a
 * number kept as its text alone whose text number_fixed_decimals()
 * takes (value.h). */
struct series_col_survey {
	unsigned tag0;      /* the first row's cell's tag */
	bool uniform;       /* every cell has that tag */
	bool numbers;       /* some cell is a number */
	bool fixed;         /* every cell is a plain decimal of dec0 decimals on its row's line */
	signed char dec0;   /* the first row's cell's decimals, or -1 */
	uint64_t pool_len;  /* the bytes of the cells' texts */
	uint64_t nown;      /* the cells on a line after their row's */
};
/* The rows between two of series_survey_before()'s points. */
#define SERIES_SURVEY_STEP ((size_t)1 << 16)
/* The survey of s's rows, taken as they were appended: each column's
 * into cols[series_column_count(s)], the least line of each block of
 * SERIES_VIEW_BLOCK rows into base[] (room for the row count over the
 * block, rounded up), and the widest span of lines in one block
 * returned in *span.  False (and nothing set) for a series with no
 * rows, or with rows of a view. */
bool series_survey(const struct series *s, struct series_col_survey *cols, int64_t *base,
		   uint64_t *span);
/* Per column, the pool_len and nown of the rows before row (a multiple
 * of SERIES_SURVEY_STEP below the row count of a series that
 * series_survey() answers for). */
void series_survey_before(const struct series *s, size_t row, uint64_t *pool_len,
			  uint64_t *nown);
/* From now on (s has no rows yet), rows appended are counted, within
 * limit series_rows, and not kept: for a caller that takes them as they
 * are appended (`logdown parse --json` streams them).  Of such rows,
 * series_row_line() answers for the first and the last (an expression's
 * inputs name them), and nothing else may be asked. */
void series_set_counted(struct series *s);
bool series_counted(const struct series *s);
/* Rows series_append() did not keep because the series had reached
 * limit series_rows (limit.h), and the line of the first of them. */
size_t series_dropped(const struct series *s, long *first_line);
/* Cell (row, col) into *out; out->line is the cell's own line when it
 * was appended with one after the row's (a field of a JSON record
 * written over several lines), else the row's.  The view is
 * valid until the run changes or is freed (a row appended may move the
 * texts of the rows before it). */
void series_cell(const struct series *s, size_t row, size_t col, struct datum *out);
/* series_cell(), and whether the cell was marked shortest when it was
 * appended (series_append_shortest()). */
bool series_cell_shortest(const struct series *s, size_t row, size_t col, struct datum *out);
/* series_cell() but for the number (out->num is 0): a series in memory
 * keeps most numbers as their texts and reads them again when asked
 * (run.c), which a writer that takes a column's texts and its numbers
 * in two passes (data/runstore.c) need not pay for twice. */
void series_cell_text(const struct series *s, size_t row, size_t col, struct datum *out);
/* The number series_cell() gives for the cell (0 for one that is not a
 * number): a writer of a column's numbers (data/runstore.c). */
double series_number(const struct series *s, size_t row, size_t col);
/* Every cell of a row into out[0 .. series_column_count()): what
 * series_cell() gives for each, the row's record read once (a writer of
 * millions of rows). */
void series_row(const struct series *s, size_t row, struct datum *out);
/* series_row(), and the row's cells marked shortest when it was
 * appended, bit j for column j (series_append_shortest()). */
uint64_t series_row_shortest(const struct series *s, size_t row, struct datum *out);
/* series_row() for a run store's writer: dec[j] is the decimals of
 * cell j when it is a number whose text is number_put_fixed() of its
 * double with them (its text may then be NULL: a SERIES_VIEW_DEC
 * view's, not made, its number always given), else -1; of the other
 * cells, their numbers only when want has SERIES_STORED_NUMBERS (else
 * 0) and their decimals only with SERIES_STORED_DECIMALS (else -1).
 * True for a row read from a view. */
enum { SERIES_STORED_NUMBERS = 1, SERIES_STORED_DECIMALS = 2 };
bool series_row_stored(const struct series *s, size_t row, struct datum *out, signed char *dec,
		       unsigned want);
/* A cell for a loop over millions of rows that needs its kind, number
 * and, for a number, its decimals (an aggregate): series_cell_shortest()
 * but that a SERIES_VIEW_DEC cell's text is not made (out->text NULL)
 * and *dec is its decimals; -1 for every other cell. */
bool series_cell_number(const struct series *s, size_t row, size_t col, struct datum *out,
			int *dec);
/* The numbers of column col's rows [from, to) into out[0 .. to - from),
 * NaN for a cell that is not a number: a chart's points.  A
 * SERIES_VIEW_DEC column's are copied from its store at once. */
void series_numbers(const struct series *s, size_t col, size_t from, size_t to, double *out);
/* series_row() but for the numbers (each out[j].num is 0), as
 * series_cell_text(). */
void series_row_text(const struct series *s, size_t row, struct datum *out);
long series_row_line(const struct series *s, size_t row);
/* For the store's writer: the numbers of a row of the series' own (past
 * its view's rows) into out[series_column_count(s)], as
 * series_row_stored() gives them (0 for a cell not a number), and its
 * line returned; in one pass over the row. */
long series_row_numbers(const struct series *s, size_t row, double *out);

/* A series read in place from memory the run does not own a copy of (a
 * mapped run store, data/runstore.c): its arrays are read by
 * series_cell() as they are, never copied, so that only the rows and
 * columns a report reads are touched.  Any bytes in them are safe to
 * read (a text never reaches outside its pool); rows appended to a
 * series so made come after the view's (series_take_view()). */
struct series_view_col {
	/* per row: the kind (low 2 bits), SERIES_VIEW_TEXT, SERIES_VIEW_LINE;
	 * NULL when every cell has `tag` */
	const unsigned char *tags;
	unsigned tag;
	const double *num;   /* per row, or NULL: 0 */
	/* per row: where its text ends in pool (it starts where the row
	 * before's ends, row 0's at 0), ends_width bytes each (4 or 8) */
	const void *ends;
	unsigned ends_width;
	const char *pool;
	size_t pool_len;
	/* nown pairs (row, the cell's line after its row's), in row order:
	 * the cells tagged SERIES_VIEW_LINE */
	const uint64_t *own;
	size_t nown;
	/* SERIES_VIEW_DEC in `tag` (every cell the same, no tags): each
	 * cell is a number whose text is number_put_fixed() of its double
	 * with `dec` decimals; no ends, no pool.  The texts are made as
	 * they are read, a block of rows at a time, into `texts`, which
	 * lives as long as the view's memory (series_view_texts_new()):
	 * not NULL exactly for such a column. */
	unsigned dec;
	struct series_view_texts *texts;
};
#define SERIES_VIEW_TEXT 4u
#define SERIES_VIEW_LINE 8u
#define SERIES_VIEW_DEC 16u
/* The texts made for a SERIES_VIEW_DEC column of nrows rows, none yet;
 * freed by series_view_texts_free() once no series reads the view (a
 * store's with its mapping).  Safe to fill from several threads. */
struct series_view_texts *series_view_texts_new(size_t nrows);
void series_view_texts_free(struct series_view_texts *t);
/* Row lines are kept per block of this many rows: the block's least
 * line (line_base) and each row's line after it (line_off, line_width
 * bytes: 1, 2, 4 or 8). */
#define SERIES_VIEW_BLOCK 256
struct series_view {
	size_t nrows;
	size_t dropped;
	long first_dropped;
	const int64_t *line_base;
	const void *line_off;
	unsigned line_width;
	const struct series_view_col *cols; /* series_column_count() of them, copied */
	/* The key of the run store these rows are read from (runstore.c),
	 * so that what is computed from them can be kept by it; zeros when
	 * the view is not a store's. */
	unsigned char origin[16];
	/* Gives back the pages of [p, p + len) that reading brought into the
	 * process (a read-only file mapping: they stay in the page cache and
	 * a later read maps them again), or NULL (series_drop_pages()). */
	void (*drop)(const void *p, size_t len);
};
/* Adds a series (no series of that name may exist) read through v.
 * The memory v points to must outlive r: see run_hold(). */
struct series *run_add_series_view(struct run *r, const char *name, const char *const *columns,
				   size_t ncols, const struct series_view *v);
/* Makes s, an empty series, read its first nrows rows from the view
 * series `from` reads (whose memory must outlive s: run_hold()), rows
 * appended to s coming after them; false (s unchanged) when from is not
 * a view of as many columns and at least nrows rows. */
bool series_take_view(struct series *s, const struct series *from, size_t nrows);
/* The view s reads its first rows from (its nrows: how many), or NULL
 * when every row of s is its own.  Borrowed from s. */
const struct series_view *series_view_of(const struct series *s);

/* For a reader that went over a whole column of a series of millions of
 * rows (an aggregation, a chart's points): the pages of a mapped store
 * (struct series_view) that column's reading brought into the process
 * are given back, so that what a build has read of a big run does not
 * stay in its memory.  Nothing changes for the reader: a cell read
 * again, or a text still held, maps its page again.  Does nothing for
 * a series in memory. */
void series_drop_pages(const struct series *s, size_t col);
/* What a parse folded of column col of s for an aggregate fn over its
 * first rows rows (a parser's derive such as `mean(train.rate)`,
 * parse/derivecarry.c), as the aggregate's saved bytes
 * (expr_agg_save()), copied: a report reading the same aggregate of the
 * run's store on a memo miss (resolve/memoize.c) takes it up rather
 * than folding those rows again.  A note for the same col and fn is
 * replaced. */
void series_fold_note(struct series *s, size_t col, int fn, size_t rows, const void *bytes,
		      size_t len);
/* The bytes noted for col and fn over exactly rows rows into *out
 * (borrowed from s: valid while s is), or false. */
bool series_fold_get(const struct series *s, size_t col, int fn, size_t rows,
		     struct span *out);
/* Moves the fold notes of from's series to the series of to with the
 * same name and as many columns (a parsed run swapped for its store's
 * mapping, which holds the same rows). */
void run_folds_move(struct run *to, struct run *from);
/* Makes r own p: run_free() calls release(p) last (a mapping its series
 * views read). */
void run_hold(struct run *r, void *p, void (*release)(void *));

#endif
