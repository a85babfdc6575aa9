/* parser_score.c: `make parser-score`, how well the built-in parsers
 * read the corpus of real published logs (tests/corpus; docs/parsers.md,
 * "The corpus and its score").
 *
 *   build/parser-score [-v] CORPUS
 *   build/parser-score --suggest [-v] [--logdown BIN | --parsers-from DIR] CORPUS
 *
 * (--suggest: `make suggest-score`, the parsers `logdown parse --suggest`
 * writes over tests/corpus-suggest; see "The suggest corpus" below.)
 *
 * CORPUS holds one folder a kind (cerebras/, slurm/, ...).  In each:
 * logs as published, NAME.facts beside each log NAME.EXT, and SOURCES,
 * one line a file: name<TAB>owner/repo<TAB>commit<TAB>path<TAB>what was
 * kept.  A facts file says, one a line:
 *
 *   # a comment (a whole line)
 *   parser: slurm                      the parser that should detect the log
 *   job_id = 33071                     a field of the run (dotted names too)
 *   train.rows = 10                    the row count of a series
 *   train.first.loss = 9.39062         a cell of its first row
 *   train.last.loss = 7.12500          a cell of its last row
 *
 * For each facts file the scorer checks which parser detection picks for
 * the log (parsers_detect() over the built-in parsers, as `logdown build`
 * picks one for a run that names none) against `parser:`, then runs the
 * parser the facts name, so that a detection miss does not also fail
 * every fact, and checks each fact against the run.  It prints facts
 * right / total and detection right / total per kind and overall; -v
 * first prints every miss, one a line ("FILE: FACT: expected X, got Y").
 *
 * Exit status: 0 scored; 2 bad usage, or a corpus that breaks its own
 * format (a malformed facts line, a facts file without its log, a file
 * without its SOURCES line), each reported where it is, what could be
 * read still scored; 3 the corpus folder cannot be read.
 *
 * tests/unit/test_parser_score.c includes this file with
 * PARSER_SCORE_NO_MAIN defined, to test the facts reader and the
 * comparison without a corpus. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "data/value.h"
#include "parse/logparse.h"
#include "parse/valuetype.h"

/* One `FIELD = VALUE` line of a facts file. */
struct fact {
	char *name;  /* "job_id", "train.last.loss" */
	char *value; /* as written, blanks around it trimmed */
	int line;
};

/* A facts file as read. */
struct facts {
	char *parser; /* the `parser:` line's name; NULL when it had none */
	int parser_line;
	struct fact *v;
	size_t n;
};

static void facts_free(struct facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].value);
	}
	free(f->v);
	free(f->parser);
	memset(f, 0, sizeof *f);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* s[0..*n) without the blanks around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n > 0 && is_blank(s[0])) {
		s++;
		(*n)--;
	}
	while (*n > 0 && is_blank(s[*n - 1]))
		(*n)--;
	return s;
}

/* The error for a `parser:` line naming no parser of set. */
static void unknown_parser(const struct parser_set *set, const char *name, struct loc at,
			   struct diag *d)
{
	size_t n = parsers_count(set);
	const char **names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = parser_name(parsers_at(set, i));
	const char *near = closest_name(name, names);
	if (near) {
		diag_error(d, at, "unknown parser '%s' (did you mean '%s'?)", name, near);
	} else {
		struct buf all = BUF_INIT;
		buf_put_names(&all, names);
		diag_error(d, at, "unknown parser '%s' (the built-in parsers: %s)", name,
			   buf_data(&all));
		buf_free(&all);
	}
	free(names);
}

/* Reads the facts file `file` (its text, len bytes) into *out.  A
 * malformed line is an error at file:line through d saying what was
 * expected, and is left out; a `parser:` line must name a parser of set.
 * set NULL reads a facts file of the suggest corpus (tests/corpus-suggest),
 * whose logs no built-in parser reads: it has no `parser:` line.
 * Returns false when there was an error.  Caller frees *out with
 * facts_free(), in either case. */
static bool facts_read(const char *file, const char *text, size_t len,
		       const struct parser_set *set, struct facts *out, struct diag *d)
{
	memset(out, 0, sizeof *out);
	size_t before = diag_errors(d);
	bool parser_seen = false;
	int lineno = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *s = trim(p, &n);
		p = nl ? nl + 1 : end;
		lineno++;
		if (n == 0 || s[0] == '#')
			continue;
		struct loc at = loc_line(file, lineno);
		if (n >= 7 && memcmp(s, "parser:", 7) == 0 && !set) {
			diag_error(d, at, "a 'parser:' line in the suggest corpus: its logs are of "
					  "kinds no built-in parser reads (tests/corpus holds the others)");
			continue;
		}
		if (n >= 7 && memcmp(s, "parser:", 7) == 0) {
			size_t kn = n - 7;
			const char *k = trim(s + 7, &kn);
			bool one_word = kn > 0;
			for (size_t i = 0; i < kn; i++)
				if (is_blank(k[i]))
					one_word = false;
			if (!one_word) {
				diag_error(d, at, "expected one parser name after 'parser:', as in "
						  "'parser: slurm'");
			} else if (parser_seen) {
				diag_error(d, at, "a second 'parser:' line (the first is line %d): a log "
						  "has one parser", out->parser_line);
			} else {
				parser_seen = true;
				out->parser_line = lineno;
				char *name = xstrndup(k, kn);
				if (parsers_find(set, name)) {
					out->parser = name;
				} else {
					unknown_parser(set, name, at, d);
					free(name);
				}
			}
			continue;
		}
		const char *eq = memchr(s, '=', n);
		if (!eq) {
			diag_error(d, at, "expected 'FIELD = VALUE', 'parser: KIND' or a # comment");
			continue;
		}
		size_t namelen = (size_t)(eq - s), valuelen = n - namelen - 1;
		const char *name = trim(s, &namelen), *value = trim(eq + 1, &valuelen);
		if (namelen == 0) {
			diag_error(d, at, "expected a field name before '=', as in 'final_loss = 7.1'");
			continue;
		}
		if (valuelen == 0) {
			diag_error(d, at, "expected a value after '%.*s =', as written in the log",
				   (int)namelen, name);
			continue;
		}
		char *key = xstrndup(name, namelen);
		size_t dup = out->n;
		for (size_t i = 0; i < out->n; i++)
			if (strcmp(out->v[i].name, key) == 0)
				dup = i;
		if (dup < out->n) {
			diag_error(d, at, "a second fact for '%s' (the first is line %d)", key,
				   out->v[dup].line);
			free(key);
			continue;
		}
		out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->v[out->n++] = (struct fact){key, xstrndup(value, valuelen), lineno};
	}
	if (!parser_seen && set)
		diag_error(d, loc_line(file, 0),
			   "no 'parser: KIND' line: name the parser that should detect the log");
	return diag_errors(d) == before;
}

/* Do two numbers agree, as facts compare them: equal as doubles, or equal
 * to 9 significant digits (a fact copied from a rounded printout of the
 * same value).  NaN agrees with NaN: a diverged loss is a fact too. */
static bool numbers_agree(double a, double b)
{
	if (a == b || (isnan(a) && isnan(b)))
		return true;
	if (!isfinite(a) || !isfinite(b))
		return false;
	char x[40], y[40];
	snprintf(x, sizeof x, "%.8e", a);
	snprintf(y, sizeof y, "%.8e", b);
	return strcmp(x, y) == 0;
}

/* Does the value d match a fact's value `want`, as written?  The same
 * text always does ("--" matches a cell written "--").  A fact that
 * reads as a number (as logdown reads one: "98.07%", "1,024") matches a
 * number that agrees with it, or a string whose text reads as one; other
 * facts match text exactly, a computed number by its shortest form. */
static bool value_matches(const char *want, const struct datum *d)
{
	size_t wn = strlen(want);
	if (d->text && d->len == wn && memcmp(d->text, want, wn) == 0)
		return true;
	if (d->kind == DATUM_MISSING)
		return false;
	double w, got;
	if (number_parse(want, wn, &w)) {
		if (d->kind == DATUM_NUMBER)
			return numbers_agree(w, d->num);
		size_t gn = d->len;
		const char *g = d->text ? trim(d->text, &gn) : NULL;
		return g && number_parse(g, gn, &got) && numbers_agree(w, got);
	}
	if (d->text)
		return false;
	struct buf b = BUF_INIT;
	number_put(&b, d->num);
	bool same = strcmp(buf_data(&b), want) == 0;
	buf_free(&b);
	return same;
}

/* What a value is, for a miss: its text as written, a computed number
 * in its shortest form, "nothing" for a value not found. */
static void put_got(struct buf *b, const struct datum *d)
{
	if (d->text)
		buf_put(b, d->text, d->len);
	else if (d->kind == DATUM_MISSING)
		buf_puts(b, "nothing");
	else
		number_put(b, d->num);
}

/* Is rest what may follow a series' name in a fact: "rows",
 * "first.COLUMN" or "last.COLUMN"?  *col gets the column (NULL for rows). */
static bool series_selector(const char *rest, const char **col)
{
	*col = NULL;
	if (strcmp(rest, "rows") == 0)
		return true;
	if (str_has_prefix(rest, "first.") && rest[6])
		*col = rest + 6;
	else if (str_has_prefix(rest, "last.") && rest[5])
		*col = rest + 5;
	return *col != NULL;
}

/* Appends the names of r's series joined with ", ", or "none". */
static void put_series_names(struct buf *b, const struct run *r)
{
	size_t n = run_series_count(r);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_puts(b, ", ");
		buf_puts(b, series_name(run_series_at(r, i)));
	}
	if (n == 0)
		buf_puts(b, "none");
}

/* Checks a series fact: rest is "rows", "first.COLUMN" or "last.COLUMN"
 * of the series s. */
static bool series_fact(const struct series *s, const char *rest, const char *want,
			struct buf *got)
{
	const char *col;
	series_selector(rest, &col);
	size_t rows = series_row_count(s);
	if (!col) {
		double w;
		buf_printf(got, "%zu", rows);
		return number_parse(want, strlen(want), &w) && numbers_agree(w, (double)rows);
	}
	if (rows == 0) {
		buf_printf(got, "nothing (%s has no rows)", series_name(s));
		return false;
	}
	long c = series_column_index(s, col);
	if (c < 0) {
		buf_printf(got, "nothing (%s has no column '%s'; its columns: ", series_name(s), col);
		for (size_t i = 0; i < series_column_count(s); i++)
			buf_printf(got, "%s%s", i ? ", " : "", series_column(s, i));
		buf_putc(got, ')');
		return false;
	}
	struct datum d;
	series_cell(s, rest[0] == 'f' ? 0 : rows - 1, (size_t)c, &d);
	put_got(got, &d);
	return value_matches(want, &d);
}

/* Checks the fact `name = want` against the run r: true when it holds;
 * otherwise got tells what the run has instead ("nothing", "175.07049",
 * "nothing (no series 'trian'; the run's series: train)").
 *
 * NAME is a series fact when a series of r is named by the part before
 * ".rows", ".first.COLUMN" or ".last.COLUMN" (the longest such part:
 * JSON series have dotted names); else a field when r has a field of that
 * name (a field may be called "a.rows"); else a series fact about a
 * series r lacks when it ends that way; else a field r lacks. */
static bool fact_check(const struct run *r, const char *name, const char *want, struct buf *got)
{
	size_t n = strlen(name);
	const char *col;
	for (size_t i = n; i-- > 0;) {
		if (name[i] != '.' || !series_selector(name + i + 1, &col))
			continue;
		char *sname = xstrndup(name, i);
		const struct series *s = run_series(r, sname);
		free(sname);
		if (s)
			return series_fact(s, name + i + 1, want, got);
	}
	const struct datum *d = run_field(r, name);
	if (d) {
		put_got(got, d);
		return value_matches(want, d);
	}
	for (size_t i = n; i-- > 0;) {
		if (name[i] != '.')
			continue;
		char *sname = xstrndup(name, i);
		const struct series *s = run_series(r, sname);
		if (s)
			buf_printf(got, "nothing (%s is a series: write %s.rows, %s.first.COLUMN or "
					"%s.last.COLUMN)", sname, sname, sname, sname);
		free(sname);
		if (s)
			return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (name[i] != '.' || !series_selector(name + i + 1, &col))
			continue;
		buf_printf(got, "nothing (no series '%.*s'; the run's series: ", (int)i, name);
		put_series_names(got, r);
		buf_putc(got, ')');
		return false;
	}
	buf_puts(got, "nothing");
	return false;
}

#ifndef PARSER_SCORE_NO_MAIN

/* The counts of one kind (a folder of the corpus), or of all. */
struct tally {
	char *kind;
	long facts, facts_right;
	long logs, detected;
};

struct scorer {
	const struct parser_set *set;
	struct diag *d; /* the corpus's own errors, to stderr */
	bool verbose;
	/* --suggest: the suggest corpus, one tally a log in logs[] */
	bool suggest;
	const char *parsers_from; /* DIR/<stem>.yaml instead of running --suggest */
	const char *logdown;      /* the binary that suggests */
	struct tally *logs;
	size_t nlogs;
};

/* The message of the first diagnostic in text (written by a DIAG_TEXT
 * sink): the first line, after "error: " or "warning: ". */
static void first_message(const char *text, struct buf *out)
{
	size_t n = strcspn(text, "\n");
	const char *m = NULL;
	for (const char *k = text; k < text + n; k++)
		if (str_has_prefix(k, "error: ") || str_has_prefix(k, "warning: ")) {
			m = strchr(k, ' ') + 1;
			break;
		}
	if (!m)
		m = text;
	buf_put(out, m, (size_t)(text + n - m));
}

/* A SOURCES line's name: the file's name, or its stem. */
struct source {
	char *name;
	int line;
	bool used;
};

/* Reads dir/SOURCES into *out (*n lines); a malformed line is an error
 * at its place.  False when the file cannot be read (reported). */
static bool sources_read(struct scorer *sc, const char *dir, struct source **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	char *path = path_join(dir, "SOURCES");
	struct buf b = BUF_INIT;
	if (!file_read(path, &b, NULL)) {
		diag_error(sc->d, loc_line(path, 0), "cannot read: %s (every log of the corpus "
			   "has a line there: name<TAB>owner/repo<TAB>commit<TAB>path<TAB>what was kept)",
			   strerror(errno));
		buf_free(&b);
		free(path);
		return false;
	}
	int lineno = 0;
	const char *p = buf_data(&b), *end = p + b.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		const char *line = p;
		p = nl ? nl + 1 : end;
		lineno++;
		size_t tn = len;
		const char *t = trim(line, &tn);
		if (tn == 0 || t[0] == '#')
			continue;
		/* Five fields, the first four not empty. */
		size_t fields = 1;
		bool empty = false;
		const char *start = line;
		for (size_t i = 0; i <= len; i++) {
			if (i < len && line[i] != '\t')
				continue;
			size_t fl = (size_t)(line + i - start);
			trim(start, &fl);
			if (fl == 0 && fields <= 4)
				empty = true;
			if (i < len)
				fields++;
			start = line + i + 1;
		}
		if (fields != 5 || empty) {
			diag_error(sc->d, loc_line(path, lineno), "expected name<TAB>owner/repo<TAB>commit"
				   "<TAB>path<TAB>what was kept (five fields, the first four not empty)");
			continue;
		}
		size_t nn = strcspn(line, "\t");
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = (struct source){xstrndup(line, nn), lineno, false};
	}
	buf_free(&b);
	free(path);
	return true;
}

/* Is the entry `name` of a kind folder (or of the suggest corpus) a log:
 * not a facts file, not SOURCES, SCORE or README.md, not hidden, not a
 * folder? */
static bool is_log(const char *dir, const char *name)
{
	if (name[0] == '.' || strcmp(name, "SOURCES") == 0 || strcmp(name, "SCORE") == 0 ||
	    strcmp(name, "README.md") == 0 || str_has_suffix(name, ".facts"))
		return false;
	char *path = path_join(dir, name);
	bool file = is_file(path);
	free(path);
	return file;
}

/* Scores one facts file against the log at logpath; misses printed
 * when verbose. */
static void score_log(struct scorer *sc, struct tally *t, const char *logpath,
		      const struct facts *f)
{
	/* Detection, as a report naming the file without a parser gets it. */
	char *dtext = NULL;
	size_t dlen = 0;
	FILE *dout = open_memstream(&dtext, &dlen);
	struct diag *dd = diag_new(dout, DIAG_TEXT, false);
	const struct parser *found = parsers_detect(sc->set, logpath, loc_line(logpath, 0), dd);
	diag_free(dd);
	fclose(dout);
	t->logs++;
	if (found && strcmp(parser_name(found), f->parser) == 0) {
		t->detected++;
	} else if (sc->verbose) {
		struct buf got = BUF_INIT;
		if (found) {
			buf_puts(&got, parser_name(found));
		} else {
			buf_puts(&got, "nothing (");
			first_message(dtext, &got);
			buf_putc(&got, ')');
		}
		printf("%s: parser: expected %s, got %s\n", logpath, f->parser, buf_data(&got));
		buf_free(&got);
	}
	free(dtext);

	/* The facts, from the parser they name. */
	char *rtext = NULL;
	size_t rlen = 0;
	FILE *rout = open_memstream(&rtext, &rlen);
	struct diag *rd = diag_new(rout, DIAG_TEXT, false);
	char *stem = path_stem(logpath);
	struct run *r = parser_run(parsers_find(sc->set, f->parser), logpath, logpath, stem, rd);
	free(stem);
	diag_free(rd);
	fclose(rout);
	struct buf failed = BUF_INIT;
	if (!r) {
		buf_printf(&failed, "nothing (parser '%s' failed: ", f->parser);
		first_message(rtext, &failed);
		buf_putc(&failed, ')');
	}
	free(rtext);
	/* A file its parser splits into runs: the facts are its last run's
	 * (tests/corpus/README.md). */
	const struct run *facts_of = r && run_member_count(r) ? run_member_at(r, run_member_count(r) - 1)
							      : r;
	for (size_t i = 0; i < f->n; i++) {
		struct buf got = BUF_INIT;
		bool right = r && fact_check(facts_of, f->v[i].name, f->v[i].value, &got);
		t->facts++;
		if (right)
			t->facts_right++;
		else if (sc->verbose)
			printf("%s: %s: expected %s, got %s\n", logpath, f->v[i].name, f->v[i].value,
			       r ? buf_data(&got) : buf_data(&failed));
		buf_free(&got);
	}
	buf_free(&failed);
	run_free(r);
}

/* ---- The suggest corpus: `make suggest-score` ----
 *
 * tests/corpus-suggest holds logs of kinds no built-in parser reads,
 * their facts and SOURCES, in one folder.  For each log the parser that
 * `logdown parse LOG --suggest` writes (or, with --parsers-from DIR, the
 * hand-written DIR/<stem>.yaml) runs over it unedited, and a fact is
 * right when something it extracted has the fact's value and a name made
 * of the words next to that value: every word of the name (split at '_'
 * and '.') is in the line the value came from, in any case (for a
 * series' cell, or in the header lines just above its first row).  Names
 * need not be the facts': `Epoch 3 | loss 0.41` may give `epoch`, `loss`.
 *
 *   FIELD = V          a field of value V
 *   S.first.COL = V    the first cell of a column of some series
 *   S.last.COL = V     the last cell of a column of some series
 *   S.rows = N         a series of N rows with a column that scores one of
 *                      S's first/last facts (any series of N rows when the
 *                      facts have none) */

/* The log's text and where each line starts. */
struct loglines {
	struct buf text;
	size_t *start; /* start[i]: line i + 1; start[n] one past the end */
	size_t n;
};

static void loglines_read(struct loglines *L, const char *path)
{
	memset(L, 0, sizeof *L);
	file_read(path, &L->text, NULL);
	const char *t = buf_data(&L->text);
	size_t cap = 16;
	L->start = xcalloc(cap, sizeof *L->start);
	for (size_t i = 0; i < L->text.len;) {
		if (L->n + 2 > cap)
			L->start = xrealloc(L->start, (cap *= 2) * sizeof *L->start);
		L->start[L->n++] = i;
		const char *nl = memchr(t + i, '\n', L->text.len - i);
		i = nl ? (size_t)(nl - t) + 1 : L->text.len;
	}
	L->start[L->n] = L->text.len;
}

static void loglines_free(struct loglines *L)
{
	buf_free(&L->text);
	free(L->start);
}

/* Does h[0..hn) hold w[0..wn), ignoring ASCII case? */
static bool holds_word(const char *h, size_t hn, const char *w, size_t wn)
{
	for (size_t i = 0; i + wn <= hn; i++) {
		size_t k = 0;
		while (k < wn && tolower((unsigned char)h[i + k]) == tolower((unsigned char)w[k]))
			k++;
		if (k == wn)
			return true;
	}
	return false;
}

/* Is every word of name (split at '_' and '.') in line `line` of the
 * log?  A name without a word, or a value without a line, is not.  When
 * not, *missing (if not NULL) gets the first word missing (a copy). */
static bool name_on_line(const struct loglines *L, const char *name, long line, char **missing)
{
	if (missing)
		*missing = NULL;
	if (line < 1 || (size_t)line > L->n)
		return false;
	const char *h = buf_data(&L->text) + L->start[line - 1];
	size_t hn = L->start[line] - L->start[line - 1];
	size_t words = 0;
	for (const char *w = name; *w;) {
		size_t wn = strcspn(w, "_.");
		if (wn > 0) {
			words++;
			if (!holds_word(h, hn, w, wn)) {
				if (missing)
					*missing = xstrndup(w, wn);
				return false;
			}
		}
		w += wn + (w[wn] != '\0');
	}
	return words > 0;
}

/* Is column c of s named by the words next to its cell d: on d's line,
 * or on one of the three lines above the series' first row (a table's
 * header, where `Step Temp TotEng` names the numbers under it)? */
static bool column_named(const struct loglines *L, const struct series *s, size_t c,
			 const struct datum *d)
{
	const char *name = series_column(s, c);
	if (name_on_line(L, name, d->line, NULL))
		return true;
	long first = series_row_line(s, 0);
	for (long l = first - 1; l >= first - 3 && l >= 1; l--)
		if (name_on_line(L, name, l, NULL))
			return true;
	return false;
}

/* Does the first (last) cell of column c of s have the value want and a
 * column name of the words next to it? */
static bool cell_scores(const struct series *s, size_t c, bool last, const char *want,
			const struct loglines *L)
{
	size_t rows = series_row_count(s);
	if (rows == 0)
		return false;
	struct datum d;
	series_cell(s, last ? rows - 1 : 0, c, &d);
	return value_matches(want, &d) && column_named(L, s, c, &d);
}

/* A fact's name read as the suggest corpus reads it: a series fact
 * (SERIES.rows, SERIES.first.COLUMN, SERIES.last.COLUMN: *slen is the
 * length of SERIES, *col the column or NULL for rows, *last) or a field
 * (false). */
static bool suggest_series_fact(const char *name, size_t *slen, const char **col, bool *last)
{
	for (size_t i = 0; name[i]; i++)
		if (name[i] == '.' && i > 0 && series_selector(name + i + 1, col)) {
			*slen = i;
			*last = str_has_prefix(name + i + 1, "last.");
			return true;
		}
	return false;
}

/* Why a value v named `name` from line `line` does not score, for a miss:
 * "NAME = V, but line N lacks 'WORD'". */
static void put_wrong_name(struct buf *got, const struct loglines *L, const char *what,
			   const struct datum *v, const char *name)
{
	char *missing = NULL;
	buf_printf(got, "%s = ", what);
	put_got(got, v);
	name_on_line(L, name, v->line, &missing);
	if (missing)
		buf_printf(got, ", but line %ld lacks '%s'", v->line, missing);
	else
		buf_printf(got, ", but it has no line of the log (computed)");
	free(missing);
}

/* Checks fact i of f against the run r (the suggested parser's) and the
 * log's lines L; when wrong, got says what came closest. */
static bool suggest_fact_check(const struct run *r, const struct facts *f, size_t i,
			       const struct loglines *L, struct buf *got)
{
	const char *name = f->v[i].name, *want = f->v[i].value;
	size_t slen;
	const char *col;
	bool last;
	size_t ns = run_series_count(r);
	if (!suggest_series_fact(name, &slen, &col, &last)) {
		const struct datum *near = NULL;
		const char *near_name = NULL;
		for (size_t k = 0; k < run_field_count(r); k++) {
			const struct datum *d = run_field_at(r, k);
			if (!value_matches(want, d))
				continue;
			if (name_on_line(L, run_field_name(r, k), d->line, NULL))
				return true;
			if (!near) {
				near = d;
				near_name = run_field_name(r, k);
			}
		}
		if (near) {
			put_wrong_name(got, L, near_name, near, near_name);
			return false;
		}
		/* The value in a series instead of a field. */
		for (size_t k = 0; k < ns; k++) {
			const struct series *s = run_series_at(r, k);
			size_t rows = series_row_count(s);
			for (size_t c = 0; c < series_column_count(s) && rows; c++)
				for (int e = 0; e < 2; e++) {
					struct datum d;
					series_cell(s, e ? rows - 1 : 0, c, &d);
					if (value_matches(want, &d)) {
						buf_printf(got, "no field; %s.%s.%s has it", series_name(s),
							   e ? "last" : "first", series_column(s, c));
						return false;
					}
				}
		}
		buf_printf(got, "nothing (no field has that value; %zu fields, %zu series)",
			   run_field_count(r), ns);
		return false;
	}
	if (col) {
		for (size_t k = 0; k < ns; k++) {
			const struct series *s = run_series_at(r, k);
			for (size_t c = 0; c < series_column_count(s); c++)
				if (cell_scores(s, c, last, want, L))
					return true;
		}
		for (size_t k = 0; k < ns; k++) {
			const struct series *s = run_series_at(r, k);
			size_t rows = series_row_count(s);
			for (size_t c = 0; c < series_column_count(s) && rows; c++) {
				struct datum d;
				series_cell(s, last ? rows - 1 : 0, c, &d);
				if (value_matches(want, &d)) {
					char *what = xasprintf("%s.%s.%s", series_name(s),
							       last ? "last" : "first", series_column(s, c));
					put_wrong_name(got, L, what, &d, series_column(s, c));
					free(what);
					return false;
				}
			}
		}
		for (size_t k = 0; k < run_field_count(r); k++)
			if (value_matches(want, run_field_at(r, k))) {
				buf_printf(got, "no series' %s row; field %s has it",
					   last ? "last" : "first", run_field_name(r, k));
				return false;
			}
		buf_printf(got, "nothing (no series' %s row has that value; %zu series)",
			   last ? "last" : "first", ns);
		return false;
	}
	/* SERIES.rows = N: a series of N rows holding a column that scores one
	 * of SERIES's cell facts. */
	double w;
	if (!number_parse(want, strlen(want), &w)) {
		buf_puts(got, "nothing (a row count is a number)");
		return false;
	}
	bool any_cell_fact = false;
	const struct series *near = NULL;
	for (size_t k = 0; k < ns; k++) {
		const struct series *s = run_series_at(r, k);
		if (!numbers_agree(w, (double)series_row_count(s)))
			continue;
		if (!near)
			near = s;
		for (size_t j = 0; j < f->n; j++) {
			size_t jl;
			const char *jc;
			bool jlast;
			if (j == i || !suggest_series_fact(f->v[j].name, &jl, &jc, &jlast) || !jc ||
			    jl != slen || memcmp(f->v[j].name, name, slen) != 0)
				continue;
			any_cell_fact = true;
			for (size_t c = 0; c < series_column_count(s); c++)
				if (cell_scores(s, c, jlast, f->v[j].value, L))
					return true;
		}
		if (!any_cell_fact)
			return true;
	}
	if (near) {
		buf_printf(got, "%s has %s rows, but none of its columns scores a first/last fact "
				"of %.*s", series_name(near), want, (int)slen, name);
		return false;
	}
	buf_puts(got, "no series of that many rows (");
	for (size_t k = 0; k < ns; k++)
		buf_printf(got, "%s%s: %zu", k ? ", " : "", series_name(run_series_at(r, k)),
			   series_row_count(run_series_at(r, k)));
	buf_puts(got, ns ? ")" : "no series)");
	return false;
}

/* The parser definition for the log at logpath into *yaml: DIR/<stem>.yaml
 * with --parsers-from, else what `LOGDOWN parse LOG --suggest` writes.
 * False with *why set when there is none. */
static bool suggested_parser(struct scorer *sc, const char *logpath, struct buf *yaml,
			     struct buf *why)
{
	char *stem = path_stem(logpath);
	bool ok;
	if (sc->parsers_from) {
		char *name = xasprintf("%s.yaml", stem);
		char *path = path_join(sc->parsers_from, name);
		ok = file_read(path, yaml, NULL);
		if (!ok)
			buf_printf(why, "nothing (cannot read %s: %s)", path, strerror(errno));
		free(path);
		free(name);
		free(stem);
		return ok;
	}
	free(stem);
	char tmp[] = "/tmp/suggest-score-XXXXXX";
	if (!mkdtemp(tmp)) {
		buf_printf(why, "nothing (cannot make a folder in /tmp: %s)", strerror(errno));
		return false;
	}
	char *out = path_join(tmp, "suggest.yaml"), *err = path_join(tmp, "stderr");
	char *cmd = xasprintf("'%s' parse '%s' --suggest --name suggest -o '%s' </dev/null "
			      ">/dev/null 2>'%s'", sc->logdown, logpath, out, err);
	int st = system(cmd);
	ok = st == 0 && file_read(out, yaml, NULL);
	if (!ok) {
		struct buf e = BUF_INIT;
		file_read(err, &e, NULL);
		buf_printf(why, "nothing (%s parse --suggest exited %d: ", sc->logdown,
			   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		first_message(buf_data(&e), why);
		buf_putc(why, ')');
		buf_free(&e);
	}
	free(cmd);
	remove_tree(tmp);
	free(out);
	free(err);
	return ok;
}

/* Scores the facts f of the log at logpath with its suggested parser,
 * into a tally of its own (and t); misses printed when verbose.  The
 * log's detection: do the built-in parsers and the suggested one give it
 * to the suggested one? */
static void score_log_suggest(struct scorer *sc, struct tally *t, const char *logpath,
			      const struct facts *f)
{
	sc->logs = xrealloc(sc->logs, (sc->nlogs + 1) * sizeof *sc->logs);
	struct tally *lt = &sc->logs[sc->nlogs++];
	*lt = (struct tally){.kind = path_stem(logpath)};
	struct buf yaml = BUF_INIT, failed = BUF_INIT;
	struct run *r = NULL;
	struct parser_set *set = NULL;
	const struct parser *p = NULL;
	if (suggested_parser(sc, logpath, &yaml, &failed)) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		struct diag *dd = diag_new(out, DIAG_TEXT, false);
		set = parsers_load(NULL, NULL, dd);
		size_t before = parsers_count(set);
		parsers_add(set, "suggest.yaml", buf_data(&yaml), yaml.len, false, dd);
		if (parsers_count(set) > before)
			p = parsers_at(set, before);
		diag_free(dd);
		fclose(out);
		if (!p && len == 0) {
			/* Added in a built-in's place: the same name. */
			buf_puts(&failed, "nothing (the suggested parser has a built-in parser's "
					  "name: suggest it with --name suggest)");
		} else if (!p) {
			buf_puts(&failed, "nothing (the suggested parser does not load: ");
			first_message(text, &failed);
			buf_putc(&failed, ')');
		}
		free(text);
	}
	lt->logs = 1;
	if (p) {
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		struct diag *dd = diag_new(out, DIAG_TEXT, false);
		const struct parser *found = parsers_detect(set, logpath, loc_line(logpath, 0), dd);
		diag_free(dd);
		fclose(out);
		if (found == p) {
			lt->detected = 1;
		} else if (sc->verbose) {
			struct buf got = BUF_INIT;
			if (found) {
				buf_puts(&got, parser_name(found));
			} else {
				buf_puts(&got, "nothing (");
				first_message(text, &got);
				buf_putc(&got, ')');
			}
			printf("%s: parser: expected %s, got %s\n", logpath, parser_name(p),
			       buf_data(&got));
			buf_free(&got);
		}
		free(text);
		text = NULL;
		out = open_memstream(&text, &len);
		dd = diag_new(out, DIAG_TEXT, false);
		char *stem = path_stem(logpath);
		r = parser_run(p, logpath, logpath, stem, dd);
		free(stem);
		diag_free(dd);
		fclose(out);
		if (!r) {
			buf_printf(&failed, "nothing (the suggested parser failed: ");
			first_message(text, &failed);
			buf_putc(&failed, ')');
		}
		free(text);
	} else if (sc->verbose) {
		printf("%s: parser: expected suggest, got %s\n", logpath, buf_data(&failed));
	}
	const struct run *of = r && run_member_count(r) ? run_member_at(r, run_member_count(r) - 1)
							: r;
	struct loglines L;
	loglines_read(&L, logpath);
	for (size_t i = 0; i < f->n; i++) {
		struct buf got = BUF_INIT;
		bool right = of && suggest_fact_check(of, f, i, &L, &got);
		lt->facts++;
		if (right)
			lt->facts_right++;
		else if (sc->verbose)
			printf("%s: %s: expected %s, got %s\n", logpath, f->v[i].name, f->v[i].value,
			       of ? buf_data(&got) : buf_data(&failed));
		buf_free(&got);
	}
	loglines_free(&L);
	t->logs += lt->logs;
	t->detected += lt->detected;
	t->facts += lt->facts;
	t->facts_right += lt->facts_right;
	run_free(r);
	parsers_free(set);
	buf_free(&yaml);
	buf_free(&failed);
}

/* Scores the folder dir (a kind of the corpus, or the suggest corpus)
 * into t. */
static void score_kind(struct scorer *sc, const char *dir, struct tally *t)
{
	size_t n = 0;
	char **names = dir_list(dir, &n);
	if (!names) {
		diag_error(sc->d, loc_line(dir, 0), "cannot read: %s", strerror(errno));
		return;
	}
	struct source *src = NULL;
	size_t nsrc = 0;
	bool have_sources = sources_read(sc, dir, &src, &nsrc);
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		char *path = path_join(dir, name);
		if (str_has_suffix(name, ".facts") && is_file(path)) {
			/* Its log: NAME.EXT beside it, exactly one. */
			size_t stemlen = strlen(name) - strlen(".facts");
			const char *log = NULL;
			struct buf logs = BUF_INIT;
			size_t nlogs = 0;
			for (size_t j = 0; j < n; j++) {
				if (!is_log(dir, names[j]))
					continue;
				char *stem = path_stem(names[j]);
				if (strlen(stem) == stemlen && memcmp(stem, name, stemlen) == 0) {
					log = names[j];
					buf_printf(&logs, "%s%s", nlogs++ ? ", " : "", names[j]);
				}
				free(stem);
			}
			struct buf text = BUF_INIT;
			struct facts f;
			memset(&f, 0, sizeof f);
			if (nlogs == 0) {
				diag_error(sc->d, loc_line(path, 0), "no log beside it (expected %s/%.*s.EXT)",
					   dir, (int)stemlen, name);
			} else if (nlogs > 1) {
				diag_error(sc->d, loc_line(path, 0), "several logs beside it (%s): which one "
					   "do the facts describe?", buf_data(&logs));
			} else if (!file_read(path, &text, NULL)) {
				diag_error(sc->d, loc_line(path, 0), "cannot read: %s", strerror(errno));
			} else {
				diag_add_source(sc->d, path, buf_data(&text), text.len);
				facts_read(path, buf_data(&text), text.len, sc->suggest ? NULL : sc->set,
					   &f, sc->d);
				if (sc->suggest) {
					char *logpath = path_join(dir, log);
					score_log_suggest(sc, t, logpath, &f);
					free(logpath);
				} else if (f.parser) {
					char *logpath = path_join(dir, log);
					score_log(sc, t, logpath, &f);
					free(logpath);
				}
				diag_forget_source(sc->d, path);
			}
			facts_free(&f);
			buf_free(&text);
			buf_free(&logs);
		} else if (is_log(dir, name)) {
			char *stem = path_stem(name);
			bool listed = false;
			for (size_t k = 0; k < nsrc; k++)
				if (strcmp(src[k].name, name) == 0 || strcmp(src[k].name, stem) == 0)
					listed = src[k].used = true;
			if (have_sources && !listed)
				diag_error(sc->d, loc_line(path, 0), "no line in %s/SOURCES (name<TAB>"
					   "owner/repo<TAB>commit<TAB>path<TAB>what was kept)", dir);
			char *facts = xasprintf("%s/%s.facts", dir, stem);
			if (!is_file(facts))
				diag_warning(sc->d, loc_line(path, 0), "no %s.facts beside it: not scored",
					     stem);
			free(facts);
			free(stem);
		}
		free(path);
	}
	for (size_t k = 0; k < nsrc; k++) {
		if (!src[k].used) {
			char *path = path_join(dir, "SOURCES");
			diag_error(sc->d, loc_line(path, src[k].line), "no file '%s' in %s", src[k].name,
				   dir);
			free(path);
		}
		free(src[k].name);
	}
	free(src);
	strv_free(names);
}

/* "97.6%": right / total in percent, rounded down so that a figure short
 * of all is never shown as 100.0%; "-" for nothing counted. */
static char *percent(long right, long total)
{
	if (total == 0)
		return xstrdup("-");
	long permille = right * 1000 / total;
	return xasprintf("%ld.%ld%%", permille / 10, permille % 10);
}

/* The table of tallies k[0..n) and all, one row each, headed `head`
 * ("kind", "log"). */
static void print_table(FILE *out, const char *head, const struct tally *k, size_t n,
			const struct tally *all)
{
	size_t rows = n + 1;
	char **cell = xcalloc(rows * 4, sizeof *cell);
	size_t kw = strlen("overall"), fw = 0, dw = 0;
	if (strlen(head) > kw)
		kw = strlen(head);
	for (size_t i = 0; i < rows; i++) {
		const struct tally *t = i < n ? &k[i] : all;
		cell[i * 4] = xasprintf("%ld/%ld", t->facts_right, t->facts);
		cell[i * 4 + 1] = percent(t->facts_right, t->facts);
		cell[i * 4 + 2] = xasprintf("%ld/%ld", t->detected, t->logs);
		cell[i * 4 + 3] = percent(t->detected, t->logs);
		if (i < n && strlen(t->kind) > kw)
			kw = strlen(t->kind);
		if (strlen(cell[i * 4]) > fw)
			fw = strlen(cell[i * 4]);
		if (strlen(cell[i * 4 + 2]) > dw)
			dw = strlen(cell[i * 4 + 2]);
	}
	/* A percentage is at most "100.0%", six wide. */
	fprintf(out, "%-*s  %-*s  %s\n", (int)kw, head, (int)fw + 8, "facts", "detection");
	for (size_t i = 0; i < rows; i++) {
		fprintf(out, "%-*s  %-*s  %6s  %-*s  %6s\n", (int)kw, i < n ? k[i].kind : "overall",
			(int)fw, cell[i * 4], cell[i * 4 + 1], (int)dw, cell[i * 4 + 2],
			cell[i * 4 + 3]);
	}
	for (size_t i = 0; i < rows * 4; i++)
		free(cell[i]);
	free(cell);
}

static const char usage[] =
	"usage: parser-score [-v] CORPUS\n"
	"       parser-score --suggest [-v] [--logdown BIN | --parsers-from DIR] CORPUS\n"
	"  the facts right and the files whose parser detection picks, per kind\n"
	"  (each folder of CORPUS) and overall; -v also prints every miss.\n"
	"  --suggest scores the parser `BIN parse LOG --suggest` writes (BIN:\n"
	"  ./logdown), or DIR/<stem>.yaml, for each log of the one folder CORPUS\n";

int main(int argc, char **argv)
{
	bool verbose = false, suggest = false, bad = false;
	const char *corpus = NULL, *from = NULL, *bin = "./logdown";
	for (int i = 1; i < argc && !bad; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			verbose = true;
		} else if (strcmp(argv[i], "--suggest") == 0) {
			suggest = true;
		} else if (strcmp(argv[i], "--parsers-from") == 0 && i + 1 < argc) {
			from = argv[++i];
		} else if (strcmp(argv[i], "--logdown") == 0 && i + 1 < argc) {
			bin = argv[++i];
		} else if (argv[i][0] == '-' || corpus) {
			bad = true;
		} else {
			corpus = argv[i];
		}
	}
	if (bad || !corpus || (from && !suggest)) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	struct diag *d = diag_new(stderr, DIAG_TEXT, diag_want_colour(2));
	struct parser_set *set = parsers_load(NULL, NULL, d);
	struct scorer sc = {set, d, verbose, suggest, from, bin, NULL, 0};
	int rc = EXIT_OK;
	size_t n = 0;
	char **names = dir_list(corpus, &n);
	if (!names) {
		diag_error(d, loc_line(corpus, 0), "cannot read: %s", strerror(errno));
		rc = EXIT_IO;
		goto out;
	}
	struct tally *kinds = xcalloc(n ? n : 1, sizeof *kinds), all = {0};
	size_t nk = 0;
	if (suggest) {
		/* One folder: a row a log. */
		score_kind(&sc, corpus, &all);
		fflush(stdout);
		print_table(stdout, "log", sc.logs, sc.nlogs, &all);
		for (size_t i = 0; i < sc.nlogs; i++)
			free(sc.logs[i].kind);
		free(sc.logs);
	} else {
		for (size_t i = 0; i < n; i++) {
			char *dir = path_join(corpus, names[i]);
			bool kind = names[i][0] != '.' && is_dir(dir);
			if (kind) {
				struct tally *t = &kinds[nk++];
				t->kind = names[i];
				score_kind(&sc, dir, t);
				all.facts += t->facts;
				all.facts_right += t->facts_right;
				all.logs += t->logs;
				all.detected += t->detected;
			}
			free(dir);
		}
		fflush(stdout);
		print_table(stdout, "kind", kinds, nk, &all);
	}
	free(kinds);
	strv_free(names);
	/* The corpus breaking its own format is a usage error of the tool. */
	if (diag_errors(d) > 0)
		rc = EXIT_USAGE;
out:
	parsers_free(set);
	diag_free(d);
	return rc;
}

#endif
