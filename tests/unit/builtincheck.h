/* builtincheck.h: checking a built-in parser on a real file, for the
 * tests of the built-ins: detection, and fields, series and cells with
 * their exact values, texts and lines, each failure said at the test's
 * line with what the diagnostics said.  Include after cmocka.h; the
 * test's group setup and teardown are load_builtins and free_builtins. */
#ifndef LOGDOWN_TESTS_BUILTINCHECK_H
#define LOGDOWN_TESTS_BUILTINCHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/diag.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "capture.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"

static struct parser_set *builtins;
static struct capture quiet;

/* The built-ins are loaded once; diagnostics of the runs go to memory and
 * are shown when a check fails. */
static int load_builtins(void **state)
{
	(void)state;
	cap_open(&quiet);
	builtins = parsers_load(NULL, NULL, quiet.d);
	return builtins ? 0 : -1;
}

static int free_builtins(void **state)
{
	(void)state;
	parsers_free(builtins);
	cap_close(&quiet);
	return 0;
}

/* What the diagnostics said so far (for failure messages). */
static const char *said(void)
{
	const char *text = cap_text(&quiet);
	return *text ? text : "(nothing)";
}

static bool same_text(const struct datum *d, const char *text)
{
	return d->text && strlen(text) == d->len && memcmp(d->text, text, d->len) == 0;
}

static const char *kind_name(enum datum_kind k)
{
	return k == DATUM_NUMBER ? "a number" : k == DATUM_STRING ? "a string" : "missing";
}

/* The parser detection picks for path: asserts it is `name`. */
static const struct parser *detect_as(const char *path, const char *name, const char *file, int at)
{
	size_t errors = diag_errors(quiet.d);
	const struct parser *p = parsers_detect(builtins, path, loc_line(path, 0), quiet.d);
	if (!p || strcmp(parser_name(p), name) != 0 || diag_errors(quiet.d) != errors) {
		print_error("%s: detected as '%s', expected '%s'\n%s\n", path,
			    p ? parser_name(p) : "(none)", name, said());
		_fail(file, at);
	}
	return p;
}

/* The run a test is looking at: a failed check jumps out of the test,
 * so the run is freed by the next parse_as() or by the test's teardown. */
static struct run *current;

static int free_current(void **state)
{
	(void)state;
	run_free(current);
	current = NULL;
	return 0;
}

/* Detects path (asserting the parser) and runs it without errors.  The
 * run stays `current`. */
static struct run *parse_as(const char *path, const char *name, const char *file, int at)
{
	free_current(NULL);
	const struct parser *p = detect_as(path, name, file, at);
	size_t errors = diag_errors(quiet.d);
	current = parser_run(p, path, path, "r", quiet.d);
	if (!current || diag_errors(quiet.d) != errors) {
		print_error("%s: parser '%s' failed\n%s\n", path, name, said());
		_fail(file, at);
	}
	return current;
}
#define PARSE(path, name) parse_as(path, name, __FILE__, __LINE__)

static const struct datum *field_at(const struct run *r, const char *name, const char *file, int at)
{
	const struct datum *d = run_field(r, name);
	if (!d) {
		print_error("%s: no field '%s'\n", run_file(r), name);
		_fail(file, at);
	}
	return d;
}

static void check_value(const char *what, const struct datum *d, double num, const char *text,
			long line, const char *file, int at)
{
	if (d->kind != DATUM_NUMBER) {
		print_error("%s is %s ('%.*s'), expected the number %s\n", what, kind_name(d->kind),
			    (int)d->len, d->text ? d->text : "", text ? text : "");
		_fail(file, at);
	}
	if (fabs(d->num - num) > 1e-9 * fmax(1.0, fabs(num))) {
		print_error("%s is %.17g, expected %.17g\n", what, d->num, num);
		_fail(file, at);
	}
	if (text ? !same_text(d, text) : d->text != NULL) {
		print_error("%s has the text '%.*s', expected %s%s%s\n", what, (int)d->len,
			    d->text ? d->text : "(none)", text ? "'" : "", text ? text : "none (computed)",
			    text ? "'" : "");
		_fail(file, at);
	}
	if (d->line != line) {
		print_error("%s is from line %ld, expected %ld\n", what, d->line, line);
		_fail(file, at);
	}
}

static void check_string(const char *what, const struct datum *d, const char *text, long line,
			 const char *file, int at)
{
	if (d->kind != DATUM_STRING || !same_text(d, text) || d->line != line) {
		print_error("%s is %s '%.*s' from line %ld, expected the string '%s' from line %ld\n",
			    what, kind_name(d->kind), (int)d->len, d->text ? d->text : "", d->line, text,
			    line);
		_fail(file, at);
	}
}

static void check_missing(const char *what, const struct datum *d, const char *file, int at)
{
	if (d->kind != DATUM_MISSING) {
		print_error("%s is %s '%.*s', expected missing\n", what, kind_name(d->kind),
			    (int)d->len, d->text ? d->text : "");
		_fail(file, at);
	}
}

static void num_field(const struct run *r, const char *name, double num, const char *text, long line,
		      const char *file, int at)
{
	char what[256];
	snprintf(what, sizeof what, "%s: field '%s'", run_file(r), name);
	check_value(what, field_at(r, name, file, at), num, text, line, file, at);
}

static void str_field(const struct run *r, const char *name, const char *text, long line,
		      const char *file, int at)
{
	char what[256];
	snprintf(what, sizeof what, "%s: field '%s'", run_file(r), name);
	check_string(what, field_at(r, name, file, at), text, line, file, at);
}

/* A field that is missing: declared by the parser, absent from the log. */
static void missing_field(const struct run *r, const char *name, const char *file, int at)
{
	char what[256];
	snprintf(what, sizeof what, "%s: field '%s'", run_file(r), name);
	check_missing(what, field_at(r, name, file, at), file, at);
}

#define NUM(r, name, num, text, line) num_field(r, name, num, text, line, __FILE__, __LINE__)
#define STR(r, name, text, line) str_field(r, name, text, line, __FILE__, __LINE__)
#define MISSING(r, name) missing_field(r, name, __FILE__, __LINE__)

static const struct series *series_of(const struct run *r, const char *name, size_t rows,
				      const char *file, int at)
{
	const struct series *s = run_series(r, name);
	if (!s) {
		print_error("%s: no series '%s'\n", run_file(r), name);
		_fail(file, at);
	}
	if (series_row_count(s) != rows) {
		print_error("%s: series '%s' has %zu rows, expected %zu\n", run_file(r), name,
			    series_row_count(s), rows);
		_fail(file, at);
	}
	return s;
}
#define SERIES(r, name, rows) series_of(r, name, rows, __FILE__, __LINE__)

static struct datum cell_of(const struct series *s, size_t row, const char *col, const char *file,
			    int at)
{
	long c = series_column_index(s, col);
	if (c < 0) {
		print_error("series '%s' has no column '%s'\n", series_name(s), col);
		_fail(file, at);
	}
	struct datum d;
	series_cell(s, row, (size_t)c, &d);
	return d;
}

static void num_cell(const struct series *s, size_t row, const char *col, double num,
		     const char *text, long line, const char *file, int at)
{
	char what[256];
	snprintf(what, sizeof what, "%s[%zu].%s", series_name(s), row, col);
	struct datum d = cell_of(s, row, col, file, at);
	check_value(what, &d, num, text, line, file, at);
}

static void str_cell(const struct series *s, size_t row, const char *col, const char *text,
		     long line, const char *file, int at)
{
	char what[256];
	snprintf(what, sizeof what, "%s[%zu].%s", series_name(s), row, col);
	struct datum d = cell_of(s, row, col, file, at);
	check_string(what, &d, text, line, file, at);
}

static void missing_cell(const struct series *s, size_t row, const char *col, const char *file,
			 int at)
{
	char what[256];
	snprintf(what, sizeof what, "%s[%zu].%s", series_name(s), row, col);
	struct datum d = cell_of(s, row, col, file, at);
	check_missing(what, &d, file, at);
}

#define NUM_CELL(s, row, col, num, text, line) num_cell(s, row, col, num, text, line, __FILE__, __LINE__)
#define STR_CELL(s, row, col, text, line) str_cell(s, row, col, text, line, __FILE__, __LINE__)
#define MISSING_CELL(s, row, col) missing_cell(s, row, col, __FILE__, __LINE__)

/* The series' columns, in order, start with these. */
static void columns_start(const struct series *s, const char *const *cols, const char *file, int at)
{
	for (size_t i = 0; cols[i]; i++) {
		if (i >= series_column_count(s) || strcmp(series_column(s, i), cols[i]) != 0) {
			print_error("series '%s': column %zu is '%s', expected '%s'\n", series_name(s),
				    i, i < series_column_count(s) ? series_column(s, i) : "(none)",
				    cols[i]);
			_fail(file, at);
		}
	}
}
#define COLUMNS(s, ...)                                                                  \
	do {                                                                             \
		static const char *const cols_[] = {__VA_ARGS__, NULL};                  \
		columns_start(s, cols_, __FILE__, __LINE__);                             \
	} while (0)

#pragma GCC diagnostic pop

#endif
