/* junit.c: JUnit XML into a run (format: junit).
 *
 * The tools agree on <testcase> and its <failure>, <error> and
 * <skipped> children, and differ on the rest: gtest writes a
 * <testsuites> root with the totals and marks a disabled test
 * status="notrun"; pytest before 5.1 a <testsuite> root (`skips` before
 * 4.0), after it a <testsuites> root with no totals (or only a name)
 * around one <testsuite>; ctest a <testsuite> root whose test cases say
 * status="run", "fail", "notrun" or "disabled".  So each total is the
 * root's attribute, else the sum of its suites' attributes (when every
 * suite gives it), else counted from the test cases. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "parse/valuetype.h"
#include "parse/xmlread.h"
#include "xmlevents.h"

enum status { ST_PASSED, ST_SKIPPED, ST_FAILED, ST_ERROR };
static const char *const status_words[] = {"passed", "skipped", "failed", "error"};

/* The totals, by the attribute that gives each. */
enum { T_TESTS, T_FAILURES, T_ERRORS, T_SKIPPED, T_TIME, T_COUNT };
static const char *const total_names[] = {"tests", "failures", "errors", "skipped", "time"};

struct total {
	/* The root's attribute, as written. */
	char *root_text;
	long root_line;
	/* The sum over the root's <testsuite> children, while each has it. */
	double sum;
	size_t suites_with;
	/* The first suite's attribute: a sum of one keeps its text and
	 * line. */
	char *first_text;
	long first_line;
};

struct junit {
	struct run *r;
	const char *shown;
	struct diag *d;
	struct series *cases, *suites;
	struct total totals[T_COUNT];
	size_t nsuites; /* <testsuite> children of the root */
	/* Counted from the test cases. */
	size_t ncases, nstatus[4];
	double case_time;
	/* The names of the open <testsuite> elements, innermost last. */
	char **suite_names;
	size_t nsuite_names, suite_cap;
	/* The open <testcase>: its depth + 1 (0: none), cells, status. */
	size_t case_depth;
	long case_line;
	char *classname, *name, *time;
	enum status status;
	char *message;
	/* The <failure>, <error> or <skipped> open in it, and its message
	 * attribute. */
	size_t outcome_depth;
	enum status outcome;
	char *outcome_message;
};

/* An attribute of a total: `skips` is pytest's before 4.0. */
static const char *total_attr(const char **attrs, int t)
{
	const char *v = xml_attr(attrs, total_names[t]);
	if (!v && t == T_SKIPPED)
		v = xml_attr(attrs, "skips");
	return v;
}

static bool number_of(const char *text, double *out)
{
	size_t len = strlen(text);
	struct datum v = datum_from_text(text, len, 0);
	if (v.kind == DATUM_NUMBER) {
		*out = v.num;
		return true;
	}
	/* gtest writes a time of zero as "0." */
	char *end;
	*out = strtod(text, &end);
	return end != text && *end == '\0';
}

static struct datum cell(const char *text, long line)
{
	if (!text)
		return (struct datum){DATUM_MISSING, 0, NULL, 0, line};
	return datum_from_text(text, strlen(text), line);
}

static void case_clear(struct junit *j)
{
	free(j->classname);
	free(j->name);
	free(j->time);
	free(j->message);
	free(j->outcome_message);
	j->classname = j->name = j->time = j->message = j->outcome_message = NULL;
	j->case_depth = j->outcome_depth = 0;
}

static bool junit_start(void *ctx, const struct xml_elem *e)
{
	struct junit *j = ctx;
	bool suite = strcmp(e->name, "testsuite") == 0;
	if (e->depth == 0) {
		if (!suite && strcmp(e->name, "testsuites") != 0) {
			diag_error(j->d, (struct loc){j->shown, (int)e->line, e->col, 1},
				   "the root element is <%s>, not <testsuites> or <testsuite>: "
				   "not a JUnit XML file",
				   e->name);
			return false;
		}
		for (int t = 0; t < T_COUNT; t++) {
			const char *v = total_attr(e->attrs, t);
			if (v) {
				j->totals[t].root_text = xstrdup(v);
				j->totals[t].root_line = e->line;
			}
		}
	}
	if (suite) {
		if (e->depth == 1) {
			j->nsuites++;
			for (int t = 0; t < T_COUNT; t++) {
				double x;
				const char *v = total_attr(e->attrs, t);
				if (v && number_of(v, &x)) {
					if (!j->totals[t].suites_with++) {
						j->totals[t].first_text = xstrdup(v);
						j->totals[t].first_line = e->line;
					}
					j->totals[t].sum += x;
				}
			}
		}
		struct datum row[6] = {
			cell(xml_attr(e->attrs, "name"), e->line),
			cell(total_attr(e->attrs, T_TESTS), e->line),
			cell(total_attr(e->attrs, T_FAILURES), e->line),
			cell(total_attr(e->attrs, T_ERRORS), e->line),
			cell(total_attr(e->attrs, T_SKIPPED), e->line),
			cell(total_attr(e->attrs, T_TIME), e->line),
		};
		series_append(j->suites, row, e->line);
		if (j->nsuite_names == j->suite_cap) {
			j->suite_cap = j->suite_cap ? 2 * j->suite_cap : 8;
			j->suite_names = xrealloc(j->suite_names, j->suite_cap * sizeof *j->suite_names);
		}
		const char *n = xml_attr(e->attrs, "name");
		j->suite_names[j->nsuite_names++] = n ? xstrdup(n) : NULL;
		return true;
	}
	if (strcmp(e->name, "testcase") == 0 && !j->case_depth) {
		case_clear(j);
		j->case_depth = e->depth + 1;
		j->case_line = e->line;
		const char *v;
		if ((v = xml_attr(e->attrs, "classname")))
			j->classname = xstrdup(v);
		if ((v = xml_attr(e->attrs, "name")))
			j->name = xstrdup(v);
		if ((v = xml_attr(e->attrs, "time")))
			j->time = xstrdup(v);
		/* gtest: status="notrun" (disabled) or result="skipped"
		 * (GTEST_SKIP); ctest: status="notrun", "disabled", "fail". */
		const char *st = xml_attr(e->attrs, "status");
		const char *res = xml_attr(e->attrs, "result");
		j->status = ST_PASSED;
		if (st && strcmp(st, "fail") == 0)
			j->status = ST_FAILED;
		else if ((st && (strcmp(st, "notrun") == 0 || strcmp(st, "disabled") == 0)) ||
			 (res && (strcmp(res, "skipped") == 0 || strcmp(res, "suppressed") == 0)))
			j->status = ST_SKIPPED;
		return true;
	}
	if (j->case_depth && e->depth == j->case_depth && !j->outcome_depth) {
		enum status s;
		if (strcmp(e->name, "failure") == 0)
			s = ST_FAILED;
		else if (strcmp(e->name, "error") == 0)
			s = ST_ERROR;
		else if (strcmp(e->name, "skipped") == 0)
			s = ST_SKIPPED;
		else
			return true;
		j->outcome_depth = e->depth + 1;
		j->outcome = s;
		const char *m = xml_attr(e->attrs, "message");
		free(j->outcome_message);
		j->outcome_message = m && *m ? xstrdup(m) : NULL;
	}
	return true;
}

static void junit_end(void *ctx, const struct xml_elem *e, const char *text, size_t len,
		      bool leaf)
{
	struct junit *j = ctx;
	(void)leaf;
	if (j->outcome_depth && e->depth + 1 == j->outcome_depth) {
		/* The worst outcome wins (a failed test whose teardown
		 * errs is an error), the first of its kind gives the
		 * message: its message attribute, else its text. */
		if (j->outcome > j->status || (j->outcome == j->status && !j->message)) {
			j->status = j->outcome;
			free(j->message);
			j->message = NULL;
			if (j->outcome_message) {
				j->message = j->outcome_message;
				j->outcome_message = NULL;
			} else {
				while (len && strchr(" \t\r\n", *text)) {
					text++;
					len--;
				}
				while (len && strchr(" \t\r\n", text[len - 1]))
					len--;
				if (len)
					j->message = xstrndup(text, len);
			}
		}
		free(j->outcome_message);
		j->outcome_message = NULL;
		j->outcome_depth = 0;
		return;
	}
	if (j->case_depth && e->depth + 1 == j->case_depth) {
		const char *suite = j->nsuite_names ? j->suite_names[j->nsuite_names - 1] : NULL;
		struct datum row[6] = {
			cell(suite, j->case_line),
			cell(j->classname, j->case_line),
			/* A name is a name: "1" is not a number. */
			j->name ? datum_from_text_only(j->name, strlen(j->name), j->case_line)
				: cell(NULL, j->case_line),
			cell(j->time, j->case_line),
			{DATUM_STRING, 0, status_words[j->status], strlen(status_words[j->status]),
			 j->case_line},
			j->message ? datum_from_text_only(j->message, strlen(j->message), j->case_line)
				   : cell(NULL, j->case_line),
		};
		series_append(j->cases, row, j->case_line);
		j->ncases++;
		j->nstatus[j->status]++;
		double x;
		if (j->time && number_of(j->time, &x))
			j->case_time += x;
		case_clear(j);
		return;
	}
	if (strcmp(e->name, "testsuite") == 0 && j->nsuite_names) {
		free(j->suite_names[--j->nsuite_names]);
	}
}

/* The fields: each total from the root, the suites or the cases. */
static void junit_fields(struct junit *j)
{
	const double counted[T_COUNT] = {
		(double)j->ncases, (double)j->nstatus[ST_FAILED], (double)j->nstatus[ST_ERROR],
		(double)j->nstatus[ST_SKIPPED], j->case_time,
	};
	for (int t = 0; t < T_COUNT; t++) {
		struct total *tt = &j->totals[t];
		struct datum v;
		const char *text = tt->root_text;
		if (tt->root_text)
			v = datum_from_text(tt->root_text, strlen(tt->root_text), tt->root_line);
		else if (j->nsuites == 1 && tt->suites_with == 1)
			v = datum_from_text(text = tt->first_text, strlen(tt->first_text),
					    tt->first_line);
		else if (j->nsuites && tt->suites_with == j->nsuites)
			v = (struct datum){DATUM_NUMBER, tt->sum, NULL, 0, 0};
		else
			v = (struct datum){DATUM_NUMBER, counted[t], NULL, 0, 0};
		if (t == T_TIME && v.kind == DATUM_STRING) {
			double x;
			if (number_of(text, &x))
				v = (struct datum){DATUM_NUMBER, x, text, strlen(text), v.line};
		}
		run_set_field(j->r, total_names[t], &v);
	}
	struct datum passed = {DATUM_NUMBER, (double)j->nstatus[ST_PASSED], NULL, 0, 0};
	run_set_field(j->r, "passed", &passed);
}

bool xmlread_junit(struct run *r, const char *path, const char *shown, struct diag *d)
{
	static const char *const case_cols[] = {"suite", "classname", "name",
						"time",  "status",    "message"};
	static const char *const suite_cols[] = {"name",   "tests",   "failures",
						 "errors", "skipped", "time"};
	struct junit j = {.r = r, .shown = shown, .d = d};
	j.cases = run_add_series(r, "testcases", case_cols, 6);
	j.suites = run_add_series(r, "testsuites", suite_cols, 6);
	struct xml_sink sink = {&j, junit_start, junit_end};
	bool ok = xml_stream(path, shown, d, &sink);
	if (ok)
		junit_fields(&j);
	case_clear(&j);
	for (size_t i = 0; i < j.nsuite_names; i++)
		free(j.suite_names[i]);
	free(j.suite_names);
	for (int t = 0; t < T_COUNT; t++) {
		free(j.totals[t].root_text);
		free(j.totals[t].first_text);
	}
	return ok;
}
