/* numlint.c: hand-typed numbers in a report's prose that equal a value
 * of its runs (numlint.h). */
#define _GNU_SOURCE /* memmem() */
#include "resolve/numlint.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>

#include "base/util.h"
#include "data/run.h"
#include "data/value.h"
#include "resolve/blocks.h"
#include "resolve/doc.h"
#include "resolve/format.h"

/* --- the scanner --- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_word(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_';
}

static bool lower_is(char c, char l)
{
	return c == l || c == l - 'a' + 'A';
}

/* "st", "nd", "rd", "th" and no letter after: 1st, 22nd, 3rd, 10th. */
static bool ordinal_at(const char *s, size_t i, size_t len)
{
	if (i + 2 > len)
		return false;
	char a = s[i], b = s[i + 1];
	bool suffix = (lower_is(a, 's') && lower_is(b, 't')) || (lower_is(a, 'n') && lower_is(b, 'd')) ||
		      (lower_is(a, 'r') && lower_is(b, 'd')) || (lower_is(a, 't') && lower_is(b, 'h'));
	return suffix && (i + 2 == len || !is_word(s[i + 2]));
}

/* A round number: a power of two (16, 512, 1024) or one digit and
 * zeros (100, 200, 5000).  Batch sizes, steps, sequence lengths, node
 * counts and learning rates are written so: settings a report names,
 * seldom a result it measured, which is rarely this round. */
static bool round_number(const char *norm)
{
	if (*norm == '-')
		norm++;
	bool zeros = norm[0] != '0';
	for (const char *p = norm + 1; *p; p++)
		zeros = zeros && *p == '0';
	if (zeros)
		return true;
	if (strlen(norm) > 18)
		return false;
	unsigned long long v = strtoull(norm, NULL, 10);
	return v && (v & (v - 1)) == 0;
}

/* Past the word-like chain from i (letters, digits, '_', '.' between
 * them), so that the rest of "x86_64" or "1.2.3" is not read again. */
static size_t past_chain(const char *s, size_t i, size_t len)
{
	while (i < len && (is_word(s[i]) || (s[i] == '.' && i + 1 < len && is_word(s[i + 1]))))
		i++;
	return i;
}

/* The number at digit s[i] read into *t; returns where it ends.  Sets
 * *keep false when it is left alone. */
static size_t read_number(const char *s, size_t i, size_t len, struct numlint_token *t, bool *keep)
{
	size_t start = i, j = i;
	*keep = true;
	memset(t, 0, sizeof *t);
	while (j < len && is_digit(s[j]))
		j++;
	size_t int_digits = j - start;
	/* a group is a comma and exactly three digits, after one to three */
	while (int_digits <= 3 && j + 3 < len && s[j] == ',' && is_digit(s[j + 1]) &&
	       is_digit(s[j + 2]) && is_digit(s[j + 3]) && (j + 4 >= len || !is_digit(s[j + 4]))) {
		t->grouped = true;
		j += 4;
	}
	if (j + 1 < len && s[j] == '.' && is_digit(s[j + 1])) {
		j++;
		while (j < len && is_digit(s[j])) {
			t->decimals++;
			j++;
		}
	}
	size_t mant_end = j;
	if (j + 1 < len && (s[j] == 'e' || s[j] == 'E')) {
		size_t k = j + 1;
		if (k < len && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < len && is_digit(s[k])) {
			while (k < len && is_digit(s[k]))
				k++;
			t->exponent = true;
			j = k;
		}
	}
	size_t end = j;
	if (end < len && s[end] == '%') {
		t->percent = true;
		end++;
	}

	char prev = start > 0 ? s[start - 1] : ' ';
	char before_prev = start > 1 ? s[start - 2] : ' ';
	bool sign = false;
	if (is_word(prev) || prev == '.' || prev == ':' || prev == '/' || prev == '#' || prev == '@' ||
	    prev == '^' || prev == '\\' || prev == '~' || prev == '$' || prev == '&' || prev == '+' ||
	    prev == DOC_MARK)
		*keep = false; /* inside a word, a version, a time, a date, a path */
	if (prev == '-') {
		if (is_word(before_prev) || before_prev == '.') {
			/* "x86-64", "gpt-2": a name; "16-32": a range, whose
			 * end counts unless the start is part of a word */
			size_t k = start - 1;
			while (k > 0 && is_digit(s[k - 1]))
				k--;
			if (k == start - 1 || (k > 0 && (is_alpha(s[k - 1]) || s[k - 1] == '_' ||
							  s[k - 1] == '-' || s[k - 1] == '.')))
				*keep = false;
		} else {
			sign = true;
		}
	}
	if (prev == '[' && end < len && s[end] == ']')
		*keep = false; /* a citation by number, [12] */
	if (end < len) {
		char next = s[end];
		if (is_alpha(next) && t->exponent)
			*keep = false; /* 4e3f: a hash, not a unit */
		if (is_alpha(next) && !t->percent) {
			size_t k = end;
			while (k < len && is_alpha(s[k]))
				k++;
			/* a unit ("12GB", "3.2ms") counts; an ordinal or a
			 * name ("4e3f", "2a_b") does not */
			if (ordinal_at(s, end, len) || (k < len && (is_digit(s[k]) || s[k] == '_')))
				*keep = false;
		}
		if (next == '_' || ((next == '.' || next == ':' || next == '/') && end + 1 < len &&
				    is_digit(s[end + 1])))
			*keep = false; /* an identifier, a version, a time, a date */
		if (next == '-' && end + 1 < len && is_digit(s[end + 1]) && !t->grouped &&
		    !t->decimals && mant_end - start == 4)
			*keep = false; /* 2024-04-08 */
	}
	if (int_digits > 1 && s[start] == '0')
		*keep = false; /* 04, 007: part of a date, a time or a code */

	/* the normal form: the sign, then as written without the commas;
	 * significant digits are the mantissa's, from its first non-zero */
	size_t n = 0;
	if (sign)
		t->norm[n++] = '-';
	bool leading = true;
	for (size_t k = start; k < j; k++) {
		if (s[k] == ',')
			continue;
		if (n + 1 >= sizeof t->norm) {
			*keep = false; /* longer than any number a log shows */
			break;
		}
		t->norm[n++] = s[k];
		if (k < mant_end && is_digit(s[k]) && (s[k] != '0' || !leading)) {
			leading = false;
			t->sig++;
		}
	}
	t->norm[n] = '\0';
	if (*keep && !t->decimals && !t->grouped && !t->exponent && int_digits == 1)
		*keep = false; /* a single digit: "2 nodes", "4 GPUs" */
	if (*keep && !t->decimals && !t->grouped && !t->exponent && !t->percent && int_digits == 4) {
		/* its four digits (s is not NUL-terminated at len) */
		long year = 0;
		for (size_t k = start; k < start + 4; k++)
			year = year * 10 + (s[k] - '0');
		if (year >= 1900 && year <= 2100)
			*keep = false;
	}
	/* one significant digit (0.03, 0.5, 200), a power of two written
	 * bare as a setting is ("batch 1024"; "1,024" is a quantity) */
	if (*keep && !t->exponent &&
	    (t->sig < 2 || (!t->decimals && !t->grouped && round_number(t->norm))))
		*keep = false;
	t->at = sign ? start - 1 : start;
	t->len = end - t->at;
	return end;
}

bool numlint_next(const char *s, size_t len, size_t *pos, struct numlint_token *t)
{
	size_t i = *pos;
	while (i < len) {
		if (s[i] == DOC_MARK) {
			/* a placeholder: a value, a reference, math */
			const char *close = memchr(s + i + 1, DOC_MARK, len - i - 1);
			i = close ? (size_t)(close - s) + 1 : len;
			continue;
		}
		if (!is_digit(s[i])) {
			i++;
			continue;
		}
		bool keep;
		size_t end = read_number(s, i, len, t, &keep);
		if (keep) {
			*pos = end;
			return true;
		}
		i = past_chain(s, end > i ? end : i + 1, len);
	}
	*pos = len;
	return false;
}

/* --- the values --- */

struct lint_value {
	char *expr;
	const char *text; /* as the log wrote it */
	size_t len;
	char norm[48];    /* its number's sign, digits, point, exponent */
	int decimals;
	bool exponent;
	bool percent;     /* the log wrote a '%' after it */
	double num;       /* of norm */
	const char *file;
	long line;
	size_t order;
};

struct numlint {
	struct lint_value *v;
	size_t n;
	size_t *by_num; /* indexes into v, by num */
	const struct run *const *runs; /* for the middle of the series */
	size_t nruns;
};

/* Reads the number a value's text starts with into v; false when it
 * does not start with one or shows another number than `num` (a
 * parser that scaled it). */
static bool lint_number(struct lint_value *v, double num)
{
	const char *s = v->text, *end = s + v->len;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	size_t n = 0;
	if (s < end && (*s == '-' || *s == '+')) {
		if (*s == '-')
			v->norm[n++] = '-';
		s++;
	}
	if (s >= end || !is_digit(*s))
		return false;
	bool point = false;
	for (; s < end; s++) {
		if (is_digit(*s)) {
			v->decimals += point;
		} else if (*s == ',' && s + 3 < end + 0 && is_digit(s[1]) && !point) {
			continue;
		} else if (*s == '.' && !point && s + 1 < end && is_digit(s[1])) {
			point = true;
		} else if ((*s == 'e' || *s == 'E') && s + 1 < end &&
			   (is_digit(s[1]) || ((s[1] == '-' || s[1] == '+') && s + 2 < end && is_digit(s[2])))) {
			v->exponent = true;
			v->norm[n++] = *s++;
			while (s < end && (is_digit(*s) || *s == '-' || *s == '+') && n + 1 < sizeof v->norm)
				v->norm[n++] = *s++;
			break;
		} else {
			break;
		}
		if (n + 1 >= sizeof v->norm)
			return false;
		v->norm[n++] = *s;
	}
	v->norm[n] = '\0';
	while (s < end && *s == ' ')
		s++;
	v->percent = s < end && *s == '%';
	v->num = strtod(v->norm, NULL);
	/* a parser may scale what it read: then the text is not the number
	 * a format spec would show */
	return isfinite(v->num) && fabs(v->num - num) <= 1e-9 * fmax(1.0, fabs(num));
}

/* Can each dot-separated part of name be written in an expression? */
static bool expr_name(const char *name)
{
	char *copy = xstrdup(name);
	bool ok = *copy != '\0';
	for (char *p = copy, *dot; ok && p; p = dot ? dot + 1 : NULL) {
		dot = strchr(p, '.');
		if (dot)
			*dot = '\0';
		ok = is_identifier(p);
	}
	free(copy);
	return ok;
}

static void add_value(struct numlint *nl, char *expr, const struct datum *d, const char *file)
{
	if (d->kind != DATUM_NUMBER || !d->text || !d->len || d->line <= 0) {
		free(expr);
		return;
	}
	struct lint_value v = {.expr = expr, .text = d->text, .len = d->len, .file = file,
			       .line = d->line};
	if (!lint_number(&v, d->num)) {
		free(expr);
		return;
	}
	v.order = nl->n;
	nl->v = xrealloc(nl->v, (nl->n + 1) * sizeof *nl->v);
	nl->v[nl->n++] = v;
}

/* Cell (row, col) of s, its text as the log wrote it: a run store's
 * column of plain decimals prints it from its number into buf (and a
 * NUL), which no one keeps (series_cell() would keep it with the
 * store's mapping: a 1 GB log's columns, every text of them, for a lint
 * that reads each once); d->text is then buf. */
static void cell_read(const struct series *s, size_t row, size_t col, struct datum *d,
		      char buf[NUMBER_FIXED_MAX + 1])
{
	int dec;
	series_cell_number(s, row, col, d, &dec);
	if (dec >= 0 && !d->text) {
		d->len = number_put_fixed(d->num, (unsigned)dec, buf);
		buf[d->len] = '\0';
		d->text = buf;
	}
}

/* The first, last, smallest and largest number of a column: found by
 * the numbers alone, the texts read for those four rows. */
static void add_column(struct numlint *nl, const struct run *r, const struct series *s, size_t col)
{
	static const char *const fn[] = {"first", "last", "min", "max"};
	size_t pick[4] = {0};
	double lo = 0, hi = 0;
	bool have = false;
	size_t rows = series_row_count(s);
	for (size_t row = 0; row < rows; row++) {
		struct datum c;
		int dec;
		series_cell_number(s, row, col, &c, &dec);
		if (c.kind != DATUM_NUMBER || (!c.text && dec < 0))
			continue;
		if (!have) {
			pick[0] = pick[2] = pick[3] = row;
			lo = hi = c.num;
		}
		pick[1] = row;
		if (c.num < lo) {
			pick[2] = row;
			lo = c.num;
		}
		if (c.num > hi) {
			pick[3] = row;
			hi = c.num;
		}
		have = true;
	}
	if (!have)
		return;
	for (size_t k = 0; k < 4; k++) {
		struct datum c;
		series_cell(s, pick[k], col, &c);
		add_value(nl,
			  xasprintf("%s(%s.%s.%s)", fn[k], run_name(r), series_name(s),
				    series_column(s, col)),
			  &c, run_file(r));
	}
}

/* A run's fields, or (series) its series' columns; its members' too. */
static void add_run(struct numlint *nl, const struct run *r, bool series)
{
	for (size_t i = 0; i < run_member_count(r); i++)
		add_run(nl, run_member_at(r, i), series);
	if (!expr_name(run_name(r)))
		return;
	for (size_t i = 0; !series && i < run_field_count(r); i++)
		if (expr_name(run_field_name(r, i)))
			add_value(nl, xasprintf("%s.%s", run_name(r), run_field_name(r, i)),
				  run_field_at(r, i), run_file(r));
	for (size_t i = 0; series && i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		if (!is_identifier(series_name(s)))
			continue;
		for (size_t c = 0; c < series_column_count(s); c++)
			if (is_identifier(series_column(s, c)))
				add_column(nl, r, s, c);
	}
}

struct num_key {
	double num;
	size_t index;
};

static int by_num(const void *a, const void *b)
{
	const struct num_key *x = a, *y = b;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct numlint *numlint_new(const struct run *const *runs, size_t nruns)
{
	struct numlint *nl = xcalloc(1, sizeof *nl);
	nl->runs = runs;
	nl->nruns = nruns;
	/* every run's fields before any series: a field is what a log
	 * states once (final_loss), a series' 7.125 may be any step's */
	for (size_t i = 0; i < nruns; i++)
		add_run(nl, runs[i], false);
	for (size_t i = 0; i < nruns; i++)
		add_run(nl, runs[i], true);
	struct num_key *keys = xmalloc((nl->n + 1) * sizeof *keys);
	for (size_t i = 0; i < nl->n; i++)
		keys[i] = (struct num_key){nl->v[i].num, i};
	qsort(keys, nl->n, sizeof *keys, by_num);
	nl->by_num = xmalloc((nl->n + 1) * sizeof *nl->by_num);
	for (size_t i = 0; i < nl->n; i++)
		nl->by_num[i] = keys[i].index;
	free(keys);
	return nl;
}

void numlint_free(struct numlint *nl)
{
	if (!nl)
		return;
	for (size_t i = 0; i < nl->n; i++)
		free(nl->v[i].expr);
	free(nl->v);
	free(nl->by_num);
	free(nl);
}

/* --- the matcher --- */

/* At most this many values of about the same number are tried for one
 * number of the prose (a hostile report's thousands of equal values). */
#define NUMLINT_CANDIDATES 4096

/* The same normal form, an exponent's e in either case. */
static bool same_norm(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == 'e' || *a == 'E') && (*b == 'e' || *b == 'E')))
			return false;
	return *a == *b;
}

static bool formats_as(double num, char type, int precision, bool grouping, const char *want)
{
	struct format f = {.grouping = grouping, .precision = precision, .type = type};
	struct buf b = BUF_INIT;
	format_number(&b, num, &f);
	bool same = strcmp(buf_data(&b), want) == 0;
	buf_free(&b);
	return same;
}

/* How value v matches t, if it does (how < 0: not). */
static int match_one(const struct lint_value *v, const struct numlint_token *t, char *spec,
		     size_t spec_size)
{
	if (same_norm(v->norm, t->norm)) {
		spec[0] = '\0';
		/* "1,024" for a log's 1024: the grouping is the spec's */
		if (t->grouped && !memchr(v->text, ',', v->len))
			snprintf(spec, spec_size, v->decimals ? ",.%df" : ",d", v->decimals);
		return NUMLINT_SAME;
	}
	/* a rounding to a whole number needs three digits: 14 is too
	 * likely to be 13.63 by chance */
	if (t->exponent || t->sig < (t->decimals || t->percent ? 2 : 3))
		return -1;
	if (!t->percent || v->percent) {
		if ((t->decimals < v->decimals || v->exponent) &&
		    formats_as(v->num, 'f', t->decimals, false, t->norm)) {
			snprintf(spec, spec_size, "%s.%df", t->grouped ? "," : "", t->decimals);
			return NUMLINT_ROUNDED;
		}
		return -1;
	}
	char want[sizeof t->norm + 1];
	snprintf(want, sizeof want, "%s%%", t->norm);
	if (formats_as(v->num, '%', t->decimals, false, want)) {
		snprintf(spec, spec_size, ".%d%%", t->decimals);
		return NUMLINT_PERCENT;
	}
	return -1;
}

bool numlint_match(const struct numlint *nl, const struct numlint_token *t, struct numlint_match *m)
{
	double x = strtod(t->norm, NULL);
	if (!isfinite(x))
		return false;
	/* every value that can match lies within half a unit of the last
	 * digit written (or of its percent) */
	double half = 0.5 * pow(10.0, -t->decimals), scale = 1.0;
	int best = -1;
	size_t best_order = SIZE_MAX;
	char spec[16];
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!t->percent)
				break;
			scale = 0.01;
		}
		double lo = (x - half) * scale, hi = (x + half) * scale;
		double slack = 1e-9 * fmax(1.0, fabs(hi));
		lo -= slack;
		hi += slack;
		/* the first value at or above lo */
		size_t a = 0, b = nl->n;
		while (a < b) {
			size_t mid = a + (b - a) / 2;
			if (nl->v[nl->by_num[mid]].num < lo)
				a = mid + 1;
			else
				b = mid;
		}
		for (size_t k = a, tried = 0; k < nl->n && tried < NUMLINT_CANDIDATES; k++, tried++) {
			const struct lint_value *v = &nl->v[nl->by_num[k]];
			if (v->num > hi)
				break;
			int how = match_one(v, t, spec, sizeof spec);
			if (how < 0)
				continue;
			if (best < 0 || how < best || (how == best && v->order < best_order)) {
				best = how;
				best_order = v->order;
				memcpy(m->spec, spec, sizeof spec);
			}
		}
	}
	if (best < 0)
		return false;
	const struct lint_value *v = &nl->v[best_order];
	m->expr = v->expr;
	m->text = v->text;
	m->text_len = v->len;
	m->file = v->file;
	m->line = v->line;
	m->how = (enum numlint_how)best;
	return true;
}

/* --- the middle of the series ---
 *
 * A series' other cells (the loss at step 500 of 1000) are values too,
 * but only by the same digits: a million cells would match any
 * rounding by chance.  They are not kept: the prose's numbers that
 * match nothing above are few, so they go in a small table first, and
 * every cell of every series is read once and looked up in it (linear
 * in the cells, memory in the prose's numbers). */

struct middle_slot {
	const char *norm;      /* borrowed from a token in `tokens` */
	struct lint_value v;   /* v.expr set once a cell matched */
};

/* At most this many rows are read in all, for one report, to tell
 * whether a cell's row is the first with its key (first_with_key()):
 * thousands of numbers that each match a cell deep in a million rows
 * would read every row once per number.  Past it, a cell whose row
 * cannot be told is not suggested (another of the same digits may be). */
#define NUMLINT_KEY_ROWS 10000000

struct middle {
	struct middle_slot *slot;
	size_t cap, n, found;
	size_t key_rows; /* left of NUMLINT_KEY_ROWS */
	struct numlint_token *tokens;
	size_t ntokens;
};

static struct middle_slot *middle_find(const struct middle *m, const char *norm)
{
	if (!m->cap)
		return NULL;
	for (size_t i = (size_t)str_hash(norm) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slot[i].norm)
			return NULL;
		if (strcmp(m->slot[i].norm, norm) == 0)
			return &m->slot[i];
	}
}

/* The rows of s before `row` whose column 0 shows `key`: is `row` the
 * first, which s[col0=key] finds? */
static bool first_with_key(struct middle *m, const struct series *s, size_t row,
			   const struct datum *key)
{
	if (row > m->key_rows)
		return false;
	m->key_rows -= row;
	for (size_t r = 0; r < row; r++) {
		struct datum c;
		char buf[NUMBER_FIXED_MAX + 1];
		cell_read(s, r, 0, &c, buf);
		if (c.text && c.len == key->len && memcmp(c.text, key->text, c.len) == 0)
			return false;
	}
	return true;
}

/* How an expression names cell (row, col) of s: by its row's first
 * column, as a.train[step=500].loss; NULL when that does not find it. */
static char *cell_expr(struct middle *m, const struct run *r, const struct series *s, size_t row,
		       size_t col)
{
	struct datum key;
	if (col == 0 || !series_column(s, 0) || !is_identifier(series_column(s, 0)))
		return NULL;
	series_cell(s, row, 0, &key);
	if (!key.text || !key.len || !first_with_key(m, s, row, &key))
		return NULL;
	if (key.kind == DATUM_NUMBER)
		return xasprintf("%s.%s[%s=%.*s].%s", run_name(r), series_name(s), series_column(s, 0),
				 (int)key.len, key.text, series_column(s, col));
	if (memchr(key.text, '"', key.len) || memchr(key.text, '\\', key.len) ||
	    memchr(key.text, '\n', key.len))
		return NULL;
	return xasprintf("%s.%s[%s=\"%.*s\"].%s", run_name(r), series_name(s), series_column(s, 0),
			 (int)key.len, key.text, series_column(s, col));
}

static void middle_scan(struct middle *m, const struct run *r)
{
	for (size_t i = 0; i < run_member_count(r) && m->found < m->n; i++)
		middle_scan(m, run_member_at(r, i));
	if (!expr_name(run_name(r)))
		return;
	for (size_t i = 0; i < run_series_count(r) && m->found < m->n; i++) {
		const struct series *s = run_series_at(r, i);
		if (!is_identifier(series_name(s)))
			continue;
		size_t rows = series_row_count(s);
		for (size_t c = 0; c < series_column_count(s) && m->found < m->n; c++) {
			if (!is_identifier(series_column(s, c)))
				continue;
			for (size_t row = 0; row < rows && m->found < m->n; row++) {
				struct datum d;
				char buf[NUMBER_FIXED_MAX + 1];
				cell_read(s, row, c, &d, buf);
				if (d.text == buf) {
					/* a store's plain decimal: its text, printed
					 * back, is its normal form (lint_number()) */
					const struct middle_slot *slot = middle_find(m, buf);
					if (!slot || slot->v.expr || d.line <= 0)
						continue;
					series_cell(s, row, c, &d); /* kept with the store */
				}
				if (d.kind != DATUM_NUMBER || !d.text || !d.len || d.line <= 0)
					continue;
				struct lint_value v = {.text = d.text, .len = d.len,
						       .file = run_file(r), .line = d.line};
				if (!lint_number(&v, d.num))
					continue;
				struct middle_slot *slot = middle_find(m, v.norm);
				if (!slot || slot->v.expr)
					continue;
				char *expr = cell_expr(m, r, s, row, c);
				if (!expr)
					continue; /* another cell of the same digits may do */
				v.expr = expr;
				slot->v = v;
				m->found++;
			}
		}
	}
}

/* The numbers of the prose that match no value (numlint_match()),
 * each once, looked for in every cell of the runs' series. */
static void middle_build(struct middle *m, const struct numlint *nl, cmark_node *root)
{
	memset(m, 0, sizeof *m);
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(it);
		const char *lit = cmark_node_get_literal(node);
		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_TEXT || !lit)
			continue;
		size_t len = strlen(lit), pos = 0;
		struct numlint_token t;
		struct numlint_match mt;
		while (numlint_next(lit, len, &pos, &t))
			if (!numlint_match(nl, &t, &mt)) {
				m->tokens = xrealloc(m->tokens, (m->ntokens + 1) * sizeof *m->tokens);
				m->tokens[m->ntokens++] = t;
			}
	}
	cmark_iter_free(it);
	if (!m->ntokens)
		return;
	for (m->cap = 16; m->cap < 2 * m->ntokens; m->cap *= 2)
		;
	m->slot = xcalloc(m->cap, sizeof *m->slot);
	m->key_rows = NUMLINT_KEY_ROWS;
	for (size_t k = 0; k < m->ntokens; k++) {
		const char *norm = m->tokens[k].norm;
		if (middle_find(m, norm))
			continue;
		size_t i = (size_t)str_hash(norm) & (m->cap - 1);
		while (m->slot[i].norm)
			i = (i + 1) & (m->cap - 1);
		m->slot[i].norm = norm;
		m->n++;
	}
	for (size_t i = 0; i < nl->nruns && m->found < m->n; i++)
		middle_scan(m, nl->runs[i]);
}

static void middle_free(struct middle *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slot[i].v.expr);
	free(m->slot);
	free(m->tokens);
}

/* A number of the prose that has the same digits as a cell in the
 * middle of a series. */
static bool middle_match(const struct middle *m, const struct numlint_token *t,
			 struct numlint_match *out)
{
	const struct middle_slot *slot = middle_find(m, t->norm);
	if (!slot || !slot->v.expr)
		return false;
	const struct lint_value *v = &slot->v;
	out->expr = v->expr;
	out->text = v->text;
	out->text_len = v->len;
	out->file = v->file;
	out->line = v->line;
	out->how = NUMLINT_SAME;
	out->spec[0] = '\0';
	/* "1,024" for a log's 1024: the grouping is the spec's */
	if (t->grouped && !memchr(v->text, ',', v->len))
		snprintf(out->spec, sizeof out->spec, v->decimals ? ",.%df" : ",d", v->decimals);
	return true;
}

/* --- the walk over a report --- */

/* What a <!-- logdown: allow-number --> comment allows, in the node it
 * covers: every number (n 0), or those written. */
struct allow {
	cmark_node *node;
	char **nums;
	size_t n;
};

struct walk {
	const struct numlint *nl;
	const struct middle *mid;
	const char *text;
	size_t len;
	const char *file;
	int line0;
	struct diag *d;
	struct allow *active; /* a stack, innermost last */
	size_t nactive;
	struct allow *pending; /* blocks after a comment, not yet entered */
	size_t npending;
	size_t *starts; /* where each body line starts, and len after the last */
	size_t nlines;
};

/* Line n (1-based) of the body and its length; NULL past the end. */
static const char *body_line(const struct walk *w, int n, size_t *line_len)
{
	if (n < 1 || (size_t)n > w->nlines)
		return NULL;
	size_t from = w->starts[n - 1], to = w->starts[n];
	/* to is past the line's '\n', except for the last line */
	*line_len = to - from - (to > from && w->text[to - 1] == '\n');
	return w->text + from;
}

static void find_lines(struct walk *w)
{
	w->nlines = 1;
	for (size_t i = 0; i < w->len; i++)
		w->nlines += w->text[i] == '\n';
	w->starts = xmalloc((w->nlines + 1) * sizeof *w->starts);
	size_t k = 0;
	w->starts[k++] = 0;
	for (size_t i = 0; i < w->len; i++)
		if (w->text[i] == '\n')
			w->starts[k++] = i + 1;
	w->starts[k] = w->len;
}

static void allow_free(struct allow *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->nums[i]);
	free(a->nums);
}

enum comment { COMMENT_OTHER, COMMENT_UNKNOWN, COMMENT_ALLOW };

/* Reads an HTML comment's text (at body line `line`): an allow-number
 * comment fills *a (nums NULL: every number); any other logdown comment
 * is warned of. */
static enum comment read_comment(struct walk *w, const char *s, size_t n, int line,
				 struct allow *a)
{
	memset(a, 0, sizeof *a);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n < 7 || strncmp(s, "<!--", 4) != 0 || strncmp(s + n - 3, "-->", 3) != 0)
		return COMMENT_OTHER;
	const char *p = s + 4, *end = s + n - 3;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	if ((size_t)(end - p) < 8 || strncmp(p, "logdown:", 8) != 0)
		return COMMENT_OTHER;
	p += 8;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *word = p;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	size_t word_len = (size_t)(p - word);
	/* the source line, to place the warnings: the comment's first */
	size_t line_len = 0;
	const char *src = body_line(w, line, &line_len);
	const char *mark = src ? memmem(src, line_len, "logdown:", 8) : NULL;
	struct loc at = {w->file, w->line0 + line, 0, 0};
	if (word_len != strlen("allow-number") || strncmp(word, "allow-number", word_len) != 0) {
		static const char *const known[] = {"allow-number", NULL};
		char *name = xstrndup(word, word_len);
		const char *found = mark ? memmem(mark, line_len - (size_t)(mark - src), word,
						  word_len)
					 : NULL;
		if (found && word_len)
			at.col = (int)(found - src) + 1, at.len = (int)word_len;
		const char *near = closest_name(name, known);
		if (near)
			diag_warning(w->d, at, "unknown logdown comment '%s' (did you mean '%s'?)",
				     name, near);
		else
			diag_warning(w->d, at,
				     "unknown logdown comment '%s': the one there is is allow-number",
				     name);
		free(name);
		return COMMENT_UNKNOWN;
	}
	/* the numbers it allows, each as the prose writes it */
	bool listed = false;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
			p++;
		const char *item = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		size_t ilen = (size_t)(p - item);
		if (!ilen)
			break;
		listed = true;
		size_t k = item[0] == '-' ? 1 : 0;
		struct numlint_token t;
		bool keep;
		if (k < ilen && is_digit(item[k]) && read_number(item, k, ilen, &t, &keep) == ilen) {
			a->nums = xrealloc(a->nums, (a->n + 1) * sizeof *a->nums);
			a->nums[a->n++] = xstrdup(t.norm);
			continue;
		}
		const char *found = src ? memmem(src, line_len, item, ilen) : NULL;
		struct loc iat = at;
		if (found)
			iat.col = (int)(found - src) + 1, iat.len = (int)ilen;
		diag_warning(w->d, iat,
			     "'%.*s' is not a number: allow-number takes the numbers it allows as "
			     "the text writes them (2.31 1,024 93.4%%), or none for every number",
			     (int)ilen, item);
	}
	/* a list of nothing but mistakes allows nothing */
	if (listed && !a->nums)
		a->nums = xcalloc(1, sizeof *a->nums);
	return COMMENT_ALLOW;
}

static bool allowed(const struct walk *w, const struct numlint_token *t)
{
	for (size_t i = 0; i < w->nactive; i++) {
		const struct allow *a = &w->active[i];
		if (!a->nums)
			return true;
		for (size_t k = 0; k < a->n; k++)
			if (same_norm(a->nums[k], t->norm))
				return true;
	}
	return false;
}

static void push(struct allow **v, size_t *n, struct allow a)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = a;
}

#define NUMLINT_NEAR 4096

/* The column (1-based) of number t, read at offset `off` of a text
 * node that cmark places at column `col` of body line `line`: cmark's
 * inline columns are close but not exact (a value's placeholder is not
 * as long as its braces, a line's indentation is not counted), so the
 * number is looked for in the source line, outside {{ }} and code
 * spans, nearest to where cmark says. */
static int number_column(const struct walk *w, int line, int col, size_t off, const char *tok,
			 size_t tok_len)
{
	size_t line_len;
	const char *src = body_line(w, line, &line_len);
	long guess = (long)col - 1 + (long)off;
	if (!src)
		return (int)(guess + 1);
	long best = -1;
	bool in_value = false, in_code = false;
	/* near the guess only: a line of a megabyte with a number every
	 * few bytes is not read once per number */
	size_t from = guess > NUMLINT_NEAR ? (size_t)(guess - NUMLINT_NEAR) : 0;
	size_t to = (size_t)(guess < 0 ? 0 : guess) + NUMLINT_NEAR + tok_len;
	if (to > line_len)
		to = line_len;
	for (size_t i = from; i + tok_len <= to; i++) {
		if (!in_code && i + 1 < line_len && src[i] == '{' && src[i + 1] == '{')
			in_value = true;
		if (in_value && i + 1 < line_len && src[i] == '}' && src[i + 1] == '}')
			in_value = false;
		if (!in_value && src[i] == '`')
			in_code = !in_code;
		if (in_value || in_code || memcmp(src + i, tok, tok_len) != 0)
			continue;
		if ((i > 0 && (is_digit(src[i - 1]) || src[i - 1] == '.')) ||
		    (i + tok_len < line_len && is_digit(src[i + tok_len])))
			continue;
		if (best < 0 || labs((long)i - guess) < labs(best - guess))
			best = (long)i;
	}
	return (int)((best >= 0 ? best : guess < 0 ? 0 : guess) + 1);
}

static void lint_text(struct walk *w, cmark_node *node)
{
	const char *s = cmark_node_get_literal(node);
	if (!s)
		return;
	size_t len = strlen(s), pos = 0;
	struct numlint_token t;
	while (numlint_next(s, len, &pos, &t)) {
		struct numlint_match m;
		if (allowed(w, &t) ||
		    (!numlint_match(w->nl, &t, &m) && !middle_match(w->mid, &t, &m)))
			continue;
		int line = cmark_node_get_start_line(node);
		struct loc at = {w->file, w->line0 + line,
				 number_column(w, line, cmark_node_get_start_column(node), t.at,
					       s + t.at, t.len),
				 (int)t.len};
		const char *how = m.how == NUMLINT_SAME      ? ""
				  : m.how == NUMLINT_ROUNDED ? " rounded"
							     : " as a percent";
		/* "97.13%" for a log's 97.13: the sign stays in the text */
		bool sign = t.percent && m.how == NUMLINT_SAME && !memchr(m.text, '%', m.text_len);
		diag_warning(w->d, at, "%.*s is %s, %.*s%s (%s:%ld): write {{ %s%s%s }}%s",
			     (int)t.len, s + t.at, m.expr, (int)m.text_len, m.text, how, m.file,
			     m.line, m.expr, *m.spec ? " :" : "", m.spec, sign ? "%" : "");
	}
}

/* Is node a block whose children are inlines (a paragraph, a table
 * cell)? */
static bool holds_inlines(cmark_node *node)
{
	cmark_node *c = cmark_node_first_child(node);
	return (cmark_node_get_type(node) & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK && c &&
	       (cmark_node_get_type(c) & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_INLINE;
}

void numlint_doc(const struct numlint *nl, struct cmark_node *root, const char *text,
		 size_t len, const char *file, int line0, struct diag *d)
{
	struct middle mid;
	middle_build(&mid, nl, root);
	struct walk w = {nl, &mid, text, len, file, line0, d, NULL, 0, NULL, 0, NULL, 0};
	find_lines(&w);
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(node);
		if (ev == CMARK_EVENT_EXIT) {
			while (w.nactive && w.active[w.nactive - 1].node == node)
				allow_free(&w.active[--w.nactive]);
			continue;
		}
		/* a block a comment before it allows */
		for (size_t i = 0; i < w.npending; i++)
			if (w.pending[i].node == node) {
				push(&w.active, &w.nactive, w.pending[i]);
				w.pending[i] = w.pending[--w.npending];
				break;
			}
		const struct block *blk = type == CMARK_NODE_CUSTOM_BLOCK ? doc_block(node) : NULL;
		if (type == CMARK_NODE_HEADING || type == CMARK_NODE_IMAGE ||
		    (blk && blk->kind == BLOCK_TAB_TITLE)) {
			/* a heading (a tab's too) names a part; an image's
			 * text is not shown */
			cmark_iter_reset(it, node, CMARK_EVENT_EXIT);
			continue;
		}
		if (type == CMARK_NODE_HTML_BLOCK) {
			struct allow a;
			const char *lit = cmark_node_get_literal(node);
			if (lit && read_comment(&w, lit, strlen(lit), cmark_node_get_start_line(node),
						&a) == COMMENT_ALLOW) {
				a.node = cmark_node_next(node);
				if (a.node && cmark_node_first_child(a.node))
					push(&w.pending, &w.npending, a);
				else
					allow_free(&a);
			}
			continue;
		}
		if (type == CMARK_NODE_TEXT) {
			lint_text(&w, node);
			continue;
		}
		if (holds_inlines(node)) {
			/* a comment anywhere in a paragraph allows all of it */
			for (cmark_node *c = cmark_node_first_child(node); c; c = cmark_node_next(c)) {
				const char *lit = cmark_node_get_literal(c);
				struct allow a;
				if (cmark_node_get_type(c) == CMARK_NODE_HTML_INLINE && lit &&
				    read_comment(&w, lit, strlen(lit), cmark_node_get_start_line(c), &a) ==
					    COMMENT_ALLOW) {
					a.node = node;
					push(&w.active, &w.nactive, a);
				}
			}
		}
	}
	cmark_iter_free(it);
	while (w.nactive)
		allow_free(&w.active[--w.nactive]);
	while (w.npending)
		allow_free(&w.pending[--w.npending]);
	free(w.active);
	free(w.pending);
	free(w.starts);
	middle_free(&mid);
}
