/* test_run.c: the data model: typing values, fields, series storage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/run.h"
#include "parse/valuetype.h"
#include "base/util.h"

/* The typed datum of a C string. */
static struct datum typed(const char *s)
{
	return datum_from_text(s, strlen(s), 7);
}

static void assert_text(const struct datum *d, const char *text)
{
	assert_non_null(d->text);
	assert_int_equal(d->len, strlen(text));
	assert_memory_equal(d->text, text, d->len);
}

static void number_keeps_its_text(void **state)
{
	(void)state;
	struct datum d = typed("7.12500");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(d.num == 7.125);
	assert_text(&d, "7.12500");
	assert_int_equal(d.line, 7);
}

static void percent_reads_as_its_number(void **state)
{
	(void)state;
	struct datum d = typed("98.07%");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(d.num == 98.07);
	assert_text(&d, "98.07%");
}

static void thousands_commas_read_as_one_number(void **state)
{
	(void)state;
	struct datum d = typed("1,024");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(d.num == 1024);
	d = typed("17,834,242");
	assert_true(d.num == 17834242);
	d = typed("445,571.5");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(d.num == 445571.5);
}

static void misplaced_commas_make_a_string(void **state)
{
	(void)state;
	assert_int_equal(typed("1,5").kind, DATUM_STRING);
	assert_int_equal(typed("1,0000").kind, DATUM_STRING);
	assert_int_equal(typed("1234,567").kind, DATUM_STRING);
	assert_int_equal(typed(",5").kind, DATUM_STRING);
}

static void exponents_and_signs_are_numbers(void **state)
{
	(void)state;
	struct datum d = typed("4e-05");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(d.num == 4e-05);
	assert_true(typed("-3.5").num == -3.5);
	assert_true(typed("+2").num == 2);
	assert_true(typed(".5").num == 0.5);
	assert_true(typed("5.").num == 5);
	assert_true(typed("1.5E+3").num == 1500);
}

static void decimal_parse_is_correctly_rounded(void **state)
{
	(void)state;
	/* The fast path and strtod must agree to the last bit. */
	const char *cases[] = {"0.1", "2983.97", "175.070497198", "9.39062", "0.7279000282287598",
			       "123456789012345678", "3.22303e-08", "1e23", "0.000001",
			       "12345678901234567890.5"};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		double v;
		assert_true(number_parse(cases[i], strlen(cases[i]), &v));
		assert_true(v == strtod(cases[i], NULL));
	}
}

static void nan_and_inf_are_numbers(void **state)
{
	(void)state;
	struct datum d = typed("nan");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(isnan(d.num));
	d = typed("-inf");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(isinf(d.num) && d.num < 0);
	assert_int_equal(typed("Infinity").kind, DATUM_NUMBER);
	assert_int_equal(typed("nano").kind, DATUM_STRING);
}

static void missing_words_are_missing(void **state)
{
	(void)state;
	const char *words[] = {"--", "n/a", "N/A", "-", "", "null", "None", "   "};
	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		assert_int_equal(typed(words[i]).kind, DATUM_MISSING);
	assert_int_equal(typed("---").kind, DATUM_STRING);
	assert_int_equal(typed("none").kind, DATUM_STRING);
}

static void other_text_is_a_string(void **state)
{
	(void)state;
	assert_int_equal(typed("10.99s").kind, DATUM_STRING);
	assert_int_equal(typed("0x10").kind, DATUM_STRING);
	assert_int_equal(typed("cpu").kind, DATUM_STRING);
	assert_int_equal(typed("5%%").kind, DATUM_STRING);
	assert_int_equal(typed("1e").kind, DATUM_STRING);
}

static void blanks_around_a_value_are_trimmed(void **state)
{
	(void)state;
	struct datum d = typed("  32.84\t ");
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_text(&d, "32.84");
	d = typed("  groq  ");
	assert_int_equal(d.kind, DATUM_STRING);
	assert_text(&d, "groq");
}

static void fields_keep_their_first_set_order(void **state)
{
	(void)state;
	struct run *r = run_new("cs512", "logs/bs512.log", "cerebras");
	struct datum a = typed("512"), b = typed("7.12500"), c = typed("600");
	run_set_field(r, "batch_size", &a);
	run_set_field(r, "final_loss", &b);
	run_set_field(r, "batch_size", &c);
	assert_int_equal(run_field_count(r), 2);
	assert_string_equal(run_field_name(r, 0), "batch_size");
	assert_string_equal(run_field_name(r, 1), "final_loss");
	assert_true(run_field_at(r, 0)->num == 600);
	assert_text(run_field(r, "final_loss"), "7.12500");
	assert_null(run_field(r, "nope"));
	run_free(r);
}

static void field_text_is_copied(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	char text[] = "2983.97";
	struct datum d = datum_from_text(text, strlen(text), 44);
	run_set_field(r, "rate", &d);
	text[0] = 'X';
	assert_text(run_field(r, "rate"), "2983.97");
	assert_int_equal(run_field(r, "rate")->line, 44);
	run_free(r);
}

static void computed_field_has_no_text(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	struct datum d = {DATUM_NUMBER, 2924.51, NULL, 5, 0};
	run_set_field(r, "throughput", &d);
	const struct datum *got = run_field(r, "throughput");
	assert_null(got->text);
	assert_int_equal(got->len, 0);
	assert_int_equal(got->line, 0);
	run_free(r);
}

static void many_fields_stay_findable(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	char name[32], text[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "summary.k%d", i);
		snprintf(text, sizeof text, "%d", i);
		struct datum d = datum_from_text(text, strlen(text), i + 1);
		run_set_field(r, name, &d);
	}
	assert_int_equal(run_field_count(r), 5000);
	for (int i = 0; i < 5000; i += 97) {
		snprintf(name, sizeof name, "summary.k%d", i);
		assert_true(run_field(r, name)->num == i);
		assert_string_equal(run_field_name(r, (size_t)i), name);
	}
	run_free(r);
}

static void implicit_fields_answer_when_not_set(void **state)
{
	(void)state;
	struct run *r = run_new("cs512", "logs/bs512.log", "cerebras");
	run_set_line_count(r, 58);
	assert_text(run_field(r, "name"), "cs512");
	assert_int_equal(run_field(r, "name")->kind, DATUM_STRING);
	assert_text(run_field(r, "file"), "logs/bs512.log");
	assert_text(run_field(r, "parser"), "cerebras");
	const struct datum *lc = run_field(r, "line_count");
	assert_int_equal(lc->kind, DATUM_NUMBER);
	assert_true(lc->num == 58);
	assert_text(lc, "58");
	assert_int_equal(lc->line, 0);
	assert_int_equal(run_field_count(r), 0);
	/* A result file's own "name" wins. */
	struct datum d = typed("bert");
	run_set_field(r, "name", &d);
	assert_text(run_field(r, "name"), "bert");
	assert_string_equal(run_name(r), "cs512");
	run_free(r);
}

static void run_free_null_does_nothing(void **state)
{
	(void)state;
	run_free(NULL);
}

static const char *const train_cols[] = {"step", "loss", "rate", "global_rate"};

static void add_series_returns_existing_with_same_columns(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	struct series *s = run_add_series(r, "train", train_cols, 4);
	assert_non_null(s);
	assert_ptr_equal(run_add_series(r, "train", train_cols, 4), s);
	assert_null(run_add_series(r, "train", train_cols, 3));
	const char *other[] = {"step", "loss", "rate", "globalrate"};
	assert_null(run_add_series(r, "train", other, 4));
	assert_int_equal(run_series_count(r), 1);
	assert_ptr_equal(run_series(r, "train"), s);
	assert_ptr_equal(run_series_at(r, 0), s);
	assert_string_equal(series_name(s), "train");
	assert_int_equal(series_column_count(s), 4);
	assert_string_equal(series_column(s, 3), "global_rate");
	assert_int_equal(series_column_index(s, "rate"), 2);
	assert_int_equal(series_column_index(s, "nope"), -1);
	run_free(r);
}

static void series_cells_keep_kind_text_and_line(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	const char *cols[] = {"source", "accuracy", "on_chip_ips", "computed"};
	struct series *s = run_add_series(r, "results", cols, 4);
	struct datum row[4] = {typed("cpu"), typed("77.47%"), typed("--"),
			       {DATUM_NUMBER, 1.5, NULL, 0, 0}};
	series_append(s, row, 4);
	struct datum c;
	series_cell(s, 0, 0, &c);
	assert_int_equal(c.kind, DATUM_STRING);
	assert_text(&c, "cpu");
	/* its own line, after the row's (a record over several lines) */
	assert_int_equal(c.line, 7);
	series_cell(s, 0, 1, &c);
	assert_int_equal(c.kind, DATUM_NUMBER);
	assert_true(c.num == 77.47);
	assert_text(&c, "77.47%");
	series_cell(s, 0, 2, &c);
	assert_int_equal(c.kind, DATUM_MISSING);
	assert_text(&c, "--");
	series_cell(s, 0, 3, &c);
	assert_int_equal(c.kind, DATUM_NUMBER);
	assert_true(c.num == 1.5);
	assert_null(c.text);
	assert_int_equal(c.line, 4); /* none of its own: the row's */
	assert_int_equal(series_row_line(s, 0), 4);
	/* the whole row at once: each cell as series_cell() gives it */
	struct datum all[4];
	series_row(s, 0, all);
	for (size_t j = 0; j < 4; j++) {
		series_cell(s, 0, j, &c);
		assert_int_equal(all[j].kind, c.kind);
		assert_true(all[j].num == c.num);
		assert_ptr_equal(all[j].text, c.text);
		assert_int_equal(all[j].len, c.len);
		assert_int_equal(all[j].line, c.line);
	}
	assert_int_equal(all[0].line, 7);
	assert_int_equal(all[3].line, 4);
	run_free(r);
}

/* Enough rows to fill several chunks and arena blocks. */
static void a_million_rows_read_back_exactly(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	struct series *s = run_add_series(r, "train", train_cols, 4);
	char t[4][32];
	for (long i = 0; i < 1000000; i++) {
		snprintf(t[0], sizeof t[0], "%ld", i * 100);
		snprintf(t[1], sizeof t[1], "%ld.%05ld", i % 10, i % 100000);
		snprintf(t[2], sizeof t[2], "2983.97");
		snprintf(t[3], sizeof t[3], "%s", i % 3 ? "n/a" : "1");
		struct datum row[4];
		for (int j = 0; j < 4; j++)
			row[j] = datum_from_text(t[j], strlen(t[j]), i + 57);
		series_append(s, row, i + 57);
	}
	assert_int_equal(series_row_count(s), 1000000);
	for (long i = 0; i < 1000000; i += 4999) {
		struct datum c;
		series_cell(s, (size_t)i, 0, &c);
		assert_true(c.num == i * 100.0);
		series_cell(s, (size_t)i, 1, &c);
		snprintf(t[1], sizeof t[1], "%ld.%05ld", i % 10, i % 100000);
		assert_text(&c, t[1]);
		assert_true(c.num == strtod(t[1], NULL));
		series_cell(s, (size_t)i, 3, &c);
		assert_int_equal(c.kind, i % 3 ? DATUM_MISSING : DATUM_NUMBER);
		assert_int_equal(c.line, i + 57);
		assert_int_equal(series_row_line(s, (size_t)i), i + 57);
	}
	run_free(r);
}

static void a_cell_bigger_than_a_block_is_kept_whole(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	const char *cols[] = {"message"};
	struct series *s = run_add_series(r, "errors", cols, 1);
	size_t n = 3u << 20;
	char *big = xmalloc(n);
	memset(big, 'x', n);
	big[n - 1] = 'y';
	struct datum small = typed("short"), large = datum_from_text(big, n, 2);
	series_append(s, &small, 1);
	series_append(s, &large, 2);
	series_append(s, &small, 3);
	struct datum c;
	series_cell(s, 1, 0, &c);
	assert_int_equal(c.len, n);
	assert_int_equal(c.text[n - 1], 'y');
	series_cell(s, 2, 0, &c);
	assert_text(&c, "short");
	free(big);
	run_free(r);
}

/* A row appended with its shortest cells marked gives the marks back,
 * with the same cells as series_row() and series_cell(); a mark on a
 * cell that is not a number is not kept, and columns past the 64th
 * have none. */
static void shortest_marks_come_back_with_their_rows(void **state)
{
	(void)state;
	const char *names[70];
	char name_text[70][8];
	for (int j = 0; j < 70; j++) {
		snprintf(name_text[j], sizeof name_text[j], "c%d", j);
		names[j] = name_text[j];
	}
	struct run *r = run_new("r", "f.log", "p");
	struct series *s = run_add_series(r, "s", names, 70);
	struct datum cells[70];
	bool sh[70];
	for (int j = 0; j < 70; j++)
		cells[j] = datum_from_text_short(j % 3 ? "2934.70" : "2934.71", 7, 4, &sh[j]);
	cells[1] = datum_from_text_short("x", 1, 4, &sh[1]);
	cells[2] = datum_from_text_short("--", 2, 4, &sh[2]);
	assert_false(sh[1] || sh[2] || sh[4]);
	assert_true(sh[0] && sh[3] && sh[66]);
	/* the marks datum_from_text_short() gave, and the string's and
	 * the missing cell's, which are not numbers: not kept */
	uint64_t mask = 6;
	for (int j = 0; j < 64; j++)
		mask |= (uint64_t)sh[j] << j;
	series_append_shortest(s, cells, 4, mask);
	series_append(s, cells, 5);
	struct datum got[70], one;
	uint64_t marks = series_row_shortest(s, 0, got);
	for (int j = 0; j < 64; j++) {
		bool want = j % 3 == 0;
		if ((marks >> j & 1) != want)
			fail_msg("column %d: mark %d", j, (int)(marks >> j & 1));
		assert_int_equal(series_cell_shortest(s, 0, (size_t)j, &one), want);
		assert_int_equal(one.kind, got[j].kind);
		assert_int_equal(one.len, got[j].len);
	}
	assert_int_equal(got[1].kind, DATUM_STRING);
	assert_int_equal(got[2].kind, DATUM_MISSING);
	assert_int_equal(got[3].kind, DATUM_NUMBER);
	assert_true(got[3].num == 2934.71);
	assert_false(series_cell_shortest(s, 0, 66, &one));
	assert_int_equal(one.kind, DATUM_NUMBER);
	/* appended without marks: none */
	assert_int_equal(series_row_shortest(s, 1, got), 0);
	assert_false(series_cell_shortest(s, 1, 0, &one));
	assert_true(one.num == 2934.71);
	run_free(r);
}


/* Cells whose number the text does and does not give back: a series
 * keeps a number as its text alone when the text reads as its double
 * bit for bit (run.c), so each must come back as appended, whichever
 * way it was kept. */
static const struct datum number_cells[] = {
	{DATUM_NUMBER, 7.125, "7.12500", 7, 10},   /* read back, not number_put()'s */
	{DATUM_NUMBER, 2934.7, "2934.7", 6, 10},   /* number_put()'s (marked in row 1) */
	{DATUM_NUMBER, 98.07, "98.07%", 6, 10},    /* the text does not read as it */
	{DATUM_NUMBER, 1e-5, "1e-5", 4, 10},       /* an exponent: not read the fast way */
	{DATUM_NUMBER, 2.0, "1", 1, 10},           /* a text that says another number */
	{DATUM_NUMBER, -0.0, "-0", 2, 10},         /* reads as -0, bit for bit */
	{DATUM_NUMBER, 0.0, "-0", 2, 10},          /* reads as -0, kept as +0 */
	{DATUM_NUMBER, 0.1, "0.1", 3, 10},
	{DATUM_NUMBER, 12345678901234567890.0, "12345678901234567890", 20, 10},
	{DATUM_NUMBER, -3.25, "-3.25", 5, 12},     /* on a line after its row's */
	{DATUM_NUMBER, 1.5, NULL, 0, 0},           /* computed: no text */
	{DATUM_NUMBER, 0.5, "", 0, 10},            /* an empty text */
	{DATUM_STRING, 0, "x", 1, 10},
	{DATUM_STRING, 0, NULL, 0, 10},
	{DATUM_MISSING, 0, "--", 2, 10},
	{DATUM_MISSING, 0, NULL, 0, 10},
};
#define NUMBER_CELLS (sizeof number_cells / sizeof number_cells[0])

static void assert_same_cell(const struct datum *got, const struct datum *want, long row_line,
			     bool with_number, size_t col)
{
	long line = want->line > row_line ? want->line : row_line;
	double num = with_number && want->kind == DATUM_NUMBER ? want->num : 0;
	if (got->kind != want->kind || memcmp(&got->num, &num, sizeof num) != 0 ||
	    (got->text == NULL) != (want->text == NULL) || got->len != want->len ||
	    (want->len && memcmp(got->text, want->text, want->len) != 0) || got->line != line)
		fail_msg("column %zu: kind %d, number %.17g, text %s[%.*s], line %ld", col,
			 (int)got->kind, got->num, got->text ? "" : "null", (int)got->len,
			 got->text ? got->text : "", got->line);
}

static void numbers_come_back_bit_for_bit_with_or_without_their_double(void **state)
{
	(void)state;
	const char *names[NUMBER_CELLS];
	char name_text[NUMBER_CELLS][8];
	for (size_t j = 0; j < NUMBER_CELLS; j++) {
		snprintf(name_text[j], sizeof name_text[j], "c%zu", j);
		names[j] = name_text[j];
	}
	struct run *r = run_new("r", "f.log", "p");
	struct series *s = run_add_series(r, "s", names, NUMBER_CELLS);
	/* a row before the first's line, one far after */
	const long lines[] = {10, 10, 5, 4000000000L};
	for (size_t row = 0; row < 4; row++) {
		struct datum cells[NUMBER_CELLS];
		memcpy(cells, number_cells, sizeof cells);
		for (size_t j = 0; j < NUMBER_CELLS; j++)
			if (cells[j].line)
				cells[j].line += lines[row] - 10;
		series_append_shortest(s, cells, lines[row], row == 1 ? 2 : 0);
		/* each cell as it will be read back, taken from the cells
		 * just appended (a parse's derives fold them so) */
		for (size_t j = 0; j < NUMBER_CELLS; j++) {
			struct datum got, want = number_cells[j];
			if (want.line)
				want.line += lines[row] - 10;
			assert_int_equal(series_appended_cell(s, cells, lines[row], j, &got),
					 row == 1 && j == 1);
			assert_same_cell(&got, &want, lines[row], true, j);
		}
	}
	for (size_t row = 0; row < 4; row++) {
		assert_int_equal(series_row_line(s, row), lines[row]);
		struct datum all[NUMBER_CELLS];
		uint64_t marks = series_row_shortest(s, row, all);
		assert_int_equal(marks, row == 1 ? 2 : 0);
		for (size_t j = 0; j < NUMBER_CELLS; j++) {
			struct datum want = number_cells[j], got;
			if (want.line)
				want.line += lines[row] - 10;
			assert_int_equal(series_cell_shortest(s, row, j, &got), row == 1 && j == 1);
			assert_same_cell(&got, &want, lines[row], true, j);
			assert_same_cell(&all[j], &want, lines[row], true, j);
			series_cell_text(s, row, j, &got);
			assert_same_cell(&got, &want, lines[row], false, j);
			double num = series_number(s, row, j);
			double wnum = want.kind == DATUM_NUMBER ? want.num : 0;
			assert_memory_equal(&num, &wnum, sizeof num);
		}
	}
	run_free(r);
}


/* A number kept as its text is read back from it (run.c's
 * text_number()): for texts of every shape a log prints (signs, points
 * at any place, up to 20 digits, a point alone or doubled, leading
 * zeros), the number a series gives back is the one the text was typed
 * as, bit for bit. */
static void numbers_read_back_from_texts_of_every_shape(void **state)
{
	(void)state;
	struct run *r = run_new("a", "f", "p");
	const char *cols[] = {"x"};
	struct series *s = run_add_series(r, "s", cols, 1);
	enum { ROWS = 200000 };
	static char texts[ROWS][32];
	static double want[ROWS];
	uint64_t seed = 0x9E3779B97F4A7C15u;
	size_t n = 0;
	for (size_t k = 0; k < ROWS; k++) {
		char *t = texts[n];
		size_t len = 0;
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		uint64_t x = seed >> 11;
		if (x & 1)
			t[len++] = '-';
		size_t ip = (x >> 1) % 14, fp = (x >> 5) % 12;
		if ((x >> 9) % 16 == 0)
			ip += 6; /* past 16 digits, some past 19: the long way */
		for (size_t i = 0; i < ip; i++)
			t[len++] = (char)('0' + (x >> (12 + i % 40)) % 10);
		if (fp || (x >> 52) % 4 == 0)
			t[len++] = '.';
		for (size_t i = 0; i < fp; i++)
			t[len++] = (char)('0' + (seed >> (i * 5 % 60)) % 10);
		if ((x >> 50) % 64 == 0)
			t[len++] = '.';
		t[len] = '\0';
		struct datum d = datum_from_text(t, len, 1);
		if (d.kind != DATUM_NUMBER)
			continue;
		want[n++] = d.num;
		series_append(s, &d, 1);
		struct datum got;
		series_appended_cell(s, &d, 1, 0, &got);
		if (memcmp(&got.num, &d.num, sizeof d.num) != 0 || got.text != d.text)
			fail_msg("'%s' appended as %.17g, typed as %.17g", t, got.num, d.num);
	}
	assert_true(n > ROWS / 2);
	for (size_t row = 0; row < n; row++) {
		struct datum c;
		series_cell(s, row, 0, &c);
		if (memcmp(&c.num, &want[row], sizeof c.num) != 0)
			fail_msg("'%s' read back as %.17g, typed as %.17g", texts[row], c.num,
				 want[row]);
		double num = series_number(s, row, 0);
		assert_memory_equal(&want[row], &num, sizeof num);
	}
	run_free(r);
}

/* What a parse folded of a column is kept on its series for its column,
 * function and row count (a later note for the same replaces it), and
 * goes with the rows when the run is swapped for another holding them
 * (its store's mapping): to the series of the same name and columns. */
static void a_fold_note_is_found_by_column_function_and_rows_and_moves(void **state)
{
	(void)state;
	const char *cols[] = {"step", "rate"};
	struct run *r = run_new("a", "f", "p");
	struct series *s = run_add_series(r, "train", cols, 2);
	struct span got;
	assert_false(series_fold_get(s, 1, 7, 3, &got));
	series_fold_note(s, 1, 7, 2, "old", 3);
	series_fold_note(s, 1, 7, 3, "state", 5);
	series_fold_note(s, 0, 7, 3, "other", 5);
	assert_true(series_fold_get(s, 1, 7, 3, &got));
	assert_int_equal(got.len, 5);
	assert_memory_equal(got.p, "state", 5);
	assert_false(series_fold_get(s, 1, 7, 2, &got)); /* replaced */
	assert_false(series_fold_get(s, 1, 8, 3, &got)); /* another function */
	struct run *m = run_new("a", "f", "p");
	struct series *t = run_add_series(m, "train", cols, 2);
	const char *one[] = {"x"};
	struct series *u = run_add_series(r, "eval", one, 1);
	series_fold_note(u, 0, 7, 0, "e", 1);
	struct series *v = run_add_series(m, "eval", cols, 2); /* not the same columns */
	run_folds_move(m, r);
	assert_false(series_fold_get(s, 1, 7, 3, &got));
	assert_true(series_fold_get(t, 1, 7, 3, &got));
	assert_memory_equal(got.p, "state", 5);
	assert_true(series_fold_get(t, 0, 7, 3, &got));
	assert_memory_equal(got.p, "other", 5);
	assert_false(series_fold_get(v, 0, 7, 0, &got));
	assert_true(series_fold_get(u, 0, 7, 0, &got));
	run_free(r);
	run_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(number_keeps_its_text),
		cmocka_unit_test(shortest_marks_come_back_with_their_rows),
		cmocka_unit_test(numbers_come_back_bit_for_bit_with_or_without_their_double),
		cmocka_unit_test(numbers_read_back_from_texts_of_every_shape),
		cmocka_unit_test(percent_reads_as_its_number),
		cmocka_unit_test(thousands_commas_read_as_one_number),
		cmocka_unit_test(misplaced_commas_make_a_string),
		cmocka_unit_test(exponents_and_signs_are_numbers),
		cmocka_unit_test(decimal_parse_is_correctly_rounded),
		cmocka_unit_test(nan_and_inf_are_numbers),
		cmocka_unit_test(missing_words_are_missing),
		cmocka_unit_test(other_text_is_a_string),
		cmocka_unit_test(blanks_around_a_value_are_trimmed),
		cmocka_unit_test(fields_keep_their_first_set_order),
		cmocka_unit_test(field_text_is_copied),
		cmocka_unit_test(computed_field_has_no_text),
		cmocka_unit_test(many_fields_stay_findable),
		cmocka_unit_test(implicit_fields_answer_when_not_set),
		cmocka_unit_test(run_free_null_does_nothing),
		cmocka_unit_test(add_series_returns_existing_with_same_columns),
		cmocka_unit_test(series_cells_keep_kind_text_and_line),
		cmocka_unit_test(a_million_rows_read_back_exactly),
		cmocka_unit_test(a_cell_bigger_than_a_block_is_kept_whole),
		cmocka_unit_test(a_fold_note_is_found_by_column_function_and_rows_and_moves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
