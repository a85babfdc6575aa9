/* test_yamldoc.c: YAML and JSON text into value trees, with locations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "base/util.h"
#include "data/value.h"
#include "data/limit.h"
#include "data/yamldoc.h"
#include "capture.h"

/* The whole "file" a YAML text sits in: line0 lines of "---", then the
 * text.  Registered with the diagnostics for quoting; freed by
 * close_capture(). */
static char *file_text;

/* cap_close(), then the file text the diagnostics quoted from. */
static void close_capture(struct capture *c)
{
	cap_close(c);
	free(file_text);
	file_text = NULL;
}

/* Parses text as lines line0 + 1 ... of "f.yaml", as front matter is. */
static struct value *parse_at(struct capture *c, const char *text, int line0)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < line0; i++)
		buf_puts(&b, "---\n");
	size_t off = b.len;
	buf_puts(&b, text);
	free(file_text);
	file_text = buf_detach(&b);
	diag_add_source(c->d, "f.yaml", file_text, strlen(file_text));
	return yamldoc_parse(file_text + off, strlen(text), "f.yaml", line0, c->d);
}

static struct value *parse(struct capture *c, const char *text)
{
	return parse_at(c, text, 0);
}

/* Types one plain scalar and checks its kind. */
static void assert_scalar_kind(const char *text, enum value_kind kind)
{
	struct value *v = yamldoc_scalar(text, strlen(text));
	assert_non_null(v);
	if (v->kind != kind)
		fail_msg("'%s' typed as %s, expected %s", text, value_kind_name(v->kind),
			 value_kind_name(kind));
	value_free(v);
}

/* Types one plain scalar that must be a number, keeping its text. */
static void assert_scalar_number(const char *text, double n)
{
	struct value *v = yamldoc_scalar(text, strlen(text));
	assert_non_null(v);
	if (v->kind != VALUE_NUMBER)
		fail_msg("'%s' typed as %s, expected a number", text, value_kind_name(v->kind));
	if (v->number != n)
		fail_msg("'%s' read as %.17g, expected %.17g", text, v->number, n);
	assert_non_null(v->text);
	assert_string_equal(v->text, text);
	assert_int_equal(v->len, strlen(text));
	value_free(v);
}

static void null_words_and_nothing_are_null(void **state)
{
	(void)state;
	assert_scalar_kind("", VALUE_NULL);
	assert_scalar_kind("~", VALUE_NULL);
	assert_scalar_kind("null", VALUE_NULL);
	assert_scalar_kind("Null", VALUE_NULL);
	assert_scalar_kind("NULL", VALUE_NULL);
}

static void true_and_false_are_booleans(void **state)
{
	(void)state;
	const char *t[] = {"true", "True", "TRUE"};
	const char *f[] = {"false", "False", "FALSE"};
	for (size_t i = 0; i < ARRAY_LEN(t); i++) {
		struct value *v = yamldoc_scalar(t[i], strlen(t[i]));
		assert_int_equal(v->kind, VALUE_BOOL);
		assert_true(v->boolean);
		value_free(v);
		v = yamldoc_scalar(f[i], strlen(f[i]));
		assert_int_equal(v->kind, VALUE_BOOL);
		assert_false(v->boolean);
		value_free(v);
	}
}

static void yaml_1_1_booleans_stay_strings(void **state)
{
	(void)state;
	assert_scalar_kind("yes", VALUE_STRING);
	assert_scalar_kind("no", VALUE_STRING);
	assert_scalar_kind("on", VALUE_STRING);
	assert_scalar_kind("off", VALUE_STRING);
	assert_scalar_kind("y", VALUE_STRING);
	assert_scalar_kind("tRUE", VALUE_STRING);
}

static void decimal_numbers_are_numbers(void **state)
{
	(void)state;
	assert_scalar_number("0", 0);
	assert_scalar_number("-3", -3);
	assert_scalar_number("+7", 7);
	assert_scalar_number("0.5", 0.5);
	assert_scalar_number(".5", 0.5);
	assert_scalar_number("2.", 2);
	assert_scalar_number("1e5", 1e5);
	assert_scalar_number("4e-05", 4e-05);
	assert_scalar_number("1.5E+3", 1500);
	assert_scalar_number("-2.5e-3", -2.5e-3);
}

static void number_keeps_the_text_it_was_written_with(void **state)
{
	(void)state;
	struct value *v = yamldoc_scalar("7.12500", 7);
	assert_int_equal(v->kind, VALUE_NUMBER);
	assert_true(v->number == 7.125);
	assert_string_equal(v->text, "7.12500");
	struct buf b = BUF_INIT;
	value_put_text(&b, v);
	assert_string_equal(buf_data(&b), "7.12500");
	buf_free(&b);
	value_free(v);
}

static void infinities_and_nan_are_numbers(void **state)
{
	(void)state;
	struct value *v = yamldoc_scalar(".inf", 4);
	assert_int_equal(v->kind, VALUE_NUMBER);
	assert_true(isinf(v->number) && v->number > 0);
	assert_string_equal(v->text, ".inf");
	value_free(v);
	v = yamldoc_scalar("-.Inf", 5);
	assert_int_equal(v->kind, VALUE_NUMBER);
	assert_true(isinf(v->number) && v->number < 0);
	value_free(v);
	v = yamldoc_scalar("+.INF", 5);
	assert_int_equal(v->kind, VALUE_NUMBER);
	assert_true(isinf(v->number) && v->number > 0);
	value_free(v);
	v = yamldoc_scalar(".nan", 4);
	assert_int_equal(v->kind, VALUE_NUMBER);
	assert_true(isnan(v->number));
	value_free(v);
}

static void dates_versions_and_words_are_strings(void **state)
{
	(void)state;
	const char *s[] = {"2024-04-08", "1.2.3", "yes", "1e", "e5", "1e+", "-", ".", "+", "1_000",
			   "0x1F", "12abc", "Infinity", "NaN", "inf", "3 4", "v1.0", "1,5"};
	for (size_t i = 0; i < ARRAY_LEN(s); i++) {
		struct value *v = yamldoc_scalar(s[i], strlen(s[i]));
		if (v->kind != VALUE_STRING)
			fail_msg("'%s' typed as %s, expected a string", s[i], value_kind_name(v->kind));
		assert_string_equal(v->text, s[i]);
		assert_int_equal(v->len, strlen(s[i]));
		value_free(v);
	}
}

static void scalar_reads_only_the_given_length(void **state)
{
	(void)state;
	struct value *v = yamldoc_scalar("12abc", 2);
	assert_int_equal(v->kind, VALUE_NUMBER);
	assert_true(v->number == 12);
	assert_string_equal(v->text, "12");
	value_free(v);
}

static void plain_scalars_in_a_document_are_typed(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: ~\nb: true\nc: 1e5\nd: 2024-04-08\ne: 7.12500\nf:\n");
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_MAP);
	assert_int_equal(v->count, 6);
	assert_int_equal(value_get(v, "a")->kind, VALUE_NULL);
	assert_int_equal(value_get(v, "b")->kind, VALUE_BOOL);
	assert_int_equal(value_get(v, "c")->kind, VALUE_NUMBER);
	assert_true(value_get(v, "c")->number == 1e5);
	assert_int_equal(value_get(v, "d")->kind, VALUE_STRING);
	assert_string_equal(value_get(v, "d")->text, "2024-04-08");
	assert_int_equal(value_get(v, "e")->kind, VALUE_NUMBER);
	assert_string_equal(value_get(v, "e")->text, "7.12500");
	assert_int_equal(value_get(v, "f")->kind, VALUE_NULL);
	assert_string_equal(cap_text(&c), "");
	value_free(v);
	close_capture(&c);
}

static void quoted_scalars_are_always_strings(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: '123'\nb: \"true\"\nc: 'null'\nd: ''\ne: \"1e5\"\n");
	assert_non_null(v);
	const char *keys[] = {"a", "b", "c", "d", "e"};
	const char *want[] = {"123", "true", "null", "", "1e5"};
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		struct value *s = value_get(v, keys[i]);
		assert_non_null(s);
		assert_int_equal(s->kind, VALUE_STRING);
		assert_string_equal(s->text, want[i]);
	}
	value_free(v);
	close_capture(&c);
}

static void block_scalars_are_strings(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: |\n  123\nb: >-\n  true\n");
	assert_non_null(v);
	assert_int_equal(value_get(v, "a")->kind, VALUE_STRING);
	assert_string_equal(value_get(v, "a")->text, "123\n");
	assert_int_equal(value_get(v, "b")->kind, VALUE_STRING);
	assert_string_equal(value_get(v, "b")->text, "true");
	value_free(v);
	close_capture(&c);
}

static void str_tag_makes_a_plain_scalar_a_string(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "version: !!str 1.10\nflag: !!str true\n");
	assert_non_null(v);
	assert_int_equal(value_get(v, "version")->kind, VALUE_STRING);
	assert_string_equal(value_get(v, "version")->text, "1.10");
	assert_int_equal(value_get(v, "flag")->kind, VALUE_STRING);
	assert_string_equal(value_get(v, "flag")->text, "true");
	value_free(v);
	close_capture(&c);
}

static void nested_maps_and_lists_are_loaded(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "runs:\n"
				    "  cs512: logs/a.log\n"
				    "  cs: {glob: \"logs/*.log\", parser: cerebras}\n"
				    "tags: [a, [b, c], {d: 1}]\n"
				    "list:\n"
				    "  - x\n"
				    "  - k: v\n");
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_MAP);
	assert_int_equal(v->count, 3);
	struct value *runs = value_get(v, "runs");
	assert_int_equal(runs->kind, VALUE_MAP);
	assert_string_equal(value_get(runs, "cs512")->text, "logs/a.log");
	struct value *cs = value_get(runs, "cs");
	assert_int_equal(cs->kind, VALUE_MAP);
	assert_string_equal(value_get(cs, "glob")->text, "logs/*.log");
	assert_string_equal(value_get(cs, "parser")->text, "cerebras");
	struct value *tags = value_get(v, "tags");
	assert_int_equal(tags->kind, VALUE_LIST);
	assert_int_equal(tags->count, 3);
	assert_string_equal(tags->items[0]->text, "a");
	assert_int_equal(tags->items[1]->kind, VALUE_LIST);
	assert_int_equal(tags->items[1]->count, 2);
	assert_string_equal(tags->items[1]->items[1]->text, "c");
	assert_int_equal(tags->items[2]->kind, VALUE_MAP);
	assert_true(value_get(tags->items[2], "d")->number == 1);
	struct value *list = value_get(v, "list");
	assert_int_equal(list->kind, VALUE_LIST);
	assert_int_equal(list->count, 2);
	assert_string_equal(list->items[0]->text, "x");
	assert_string_equal(value_get(list->items[1], "k")->text, "v");
	assert_null(list->keys);
	value_free(v);
	close_capture(&c);
}

static void key_order_is_kept(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "zeta: 1\nalpha: 2\nmid: 3\nbeta: 4\n");
	assert_non_null(v);
	assert_int_equal(v->count, 4);
	assert_string_equal(v->keys[0], "zeta");
	assert_string_equal(v->keys[1], "alpha");
	assert_string_equal(v->keys[2], "mid");
	assert_string_equal(v->keys[3], "beta");
	assert_string_equal(v->items[2]->text, "3");
	value_free(v);
	close_capture(&c);
}

static void locations_are_one_based_lines_and_columns(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "title: Hello\nlist:\n  - one\n  - 22\n");
	assert_non_null(v);
	assert_string_equal(v->loc.file, "f.yaml");
	assert_int_equal(v->loc.line, 1);
	assert_int_equal(v->loc.col, 1);
	/* The key and its value. */
	assert_int_equal(v->key_locs[0].line, 1);
	assert_int_equal(v->key_locs[0].col, 1);
	assert_int_equal(v->key_locs[0].len, 5);
	struct value *title = value_get(v, "title");
	assert_int_equal(title->loc.line, 1);
	assert_int_equal(title->loc.col, 8);
	assert_int_equal(title->loc.len, 5);
	assert_int_equal(v->key_locs[1].line, 2);
	assert_int_equal(v->key_locs[1].col, 1);
	assert_int_equal(v->key_locs[1].len, 4);
	struct value *list = value_get(v, "list");
	assert_int_equal(list->loc.line, 3);
	assert_int_equal(list->loc.col, 3);
	assert_int_equal(list->items[0]->loc.line, 3);
	assert_int_equal(list->items[0]->loc.col, 5);
	assert_int_equal(list->items[0]->loc.len, 3);
	assert_int_equal(list->items[1]->loc.line, 4);
	assert_int_equal(list->items[1]->loc.col, 5);
	assert_int_equal(list->items[1]->loc.len, 2);
	value_free(v);
	close_capture(&c);
}

static void line0_offsets_every_location(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	/* Front matter: the YAML starts on line 2 of the .md file. */
	struct value *v = parse_at(&c, "title: Hello\ndate: 2024-04-08\n", 1);
	assert_non_null(v);
	assert_int_equal(v->loc.line, 2);
	assert_int_equal(v->key_locs[0].line, 2);
	assert_int_equal(v->key_locs[1].line, 3);
	assert_int_equal(v->key_locs[1].col, 1);
	assert_int_equal(value_get(v, "date")->loc.line, 3);
	assert_int_equal(value_get(v, "date")->loc.col, 7);
	assert_int_equal(value_get(v, "date")->loc.len, 10);
	value_free(v);
	close_capture(&c);
}

static void json_with_tabs_is_read(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "{\n\t\"loss\": 2.30,\n\t\"ok\":\ttrue,\n\t\"list\": [1,\t\"two\", null],\n"
				    "\t\"nested\": {\"a\":1}\n}\n");
	assert_non_null(v);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(v->kind, VALUE_MAP);
	assert_int_equal(v->count, 4);
	assert_int_equal(value_get(v, "loss")->kind, VALUE_NUMBER);
	assert_string_equal(value_get(v, "loss")->text, "2.30");
	assert_int_equal(value_get(v, "loss")->loc.line, 2);
	assert_int_equal(value_get(v, "ok")->kind, VALUE_BOOL);
	struct value *list = value_get(v, "list");
	assert_int_equal(list->count, 3);
	assert_int_equal(list->items[0]->kind, VALUE_NUMBER);
	assert_int_equal(list->items[1]->kind, VALUE_STRING);
	assert_int_equal(list->items[2]->kind, VALUE_NULL);
	assert_true(value_get(value_get(v, "nested"), "a")->number == 1);
	value_free(v);
	close_capture(&c);
}

static void python_style_dict_with_single_quotes_is_read(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "{'loss': 2.3, 'epoch': 0.1, 'name': 'run a', 'flag': True, 'x': None}");
	assert_non_null(v);
	assert_int_equal(v->count, 5);
	assert_string_equal(v->keys[0], "loss");
	assert_int_equal(value_get(v, "loss")->kind, VALUE_NUMBER);
	assert_true(value_get(v, "loss")->number == 2.3);
	assert_true(value_get(v, "epoch")->number == 0.1);
	assert_int_equal(value_get(v, "name")->kind, VALUE_STRING);
	assert_string_equal(value_get(v, "name")->text, "run a");
	assert_int_equal(value_get(v, "flag")->kind, VALUE_BOOL);
	assert_true(value_get(v, "flag")->boolean);
	/* None is not a YAML null: it stays the word. */
	assert_int_equal(value_get(v, "x")->kind, VALUE_STRING);
	value_free(v);
	close_capture(&c);
}

static void json_top_level_list_is_a_list(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "[1, 2.5, \"x\"]");
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_LIST);
	assert_int_equal(v->count, 3);
	value_free(v);
	close_capture(&c);
}

static void unclosed_flow_list_names_where_it_started(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: [1, 2\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:2:1: error: malformed YAML: did not find expected ',' or ']'\n"
					  "    2 | \n"
					  "      | ^\n"
					  "f.yaml:1:4: note: while parsing a flow sequence (it starts here)\n"
					  "    1 | a: [1, 2\n"
					  "      |    ^\n");
	assert_int_equal(diag_errors(c.d), 1);
	assert_int_equal(diag_warnings(c.d), 0);
	close_capture(&c);
}

static void unclosed_quote_names_where_it_started(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse_at(&c, "title: x\na: 'x\n", 1);
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:4:1: error: malformed YAML: found unexpected end of stream\n"
					  "    4 | \n"
					  "      | ^\n"
					  "f.yaml:3:4: note: while scanning a quoted scalar (it starts here)\n"
					  "    3 | a: 'x\n"
					  "      |    ^\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void bad_indentation_is_an_error_at_its_place(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: 1\n b: 2\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:2:3: error: malformed YAML: mapping values are not allowed in this context\n"
					  "    2 |  b: 2\n"
					  "      |   ^\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void tab_indentation_is_an_error(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a:\n\tb: 1\n");
	assert_null(v);
	assert_true(str_has_prefix(cap_text(&c), "f.yaml:2:1: error: malformed YAML: "));
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void error_caret_after_multibyte_characters_lines_up(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	/* "tïl: [1, 2": ï is two bytes; the note's caret must sit under the
	 * '[', five characters in, whatever unit the column is counted in. */
	struct value *v = parse(&c, "t\xc3\xafl: [1, 2\n");
	assert_null(v);
	if (!strstr(cap_text(&c), "note: while parsing a flow sequence (it starts here)\n"
				  "    1 | t\xc3\xafl: [1, 2\n"
				  "      |      ^\n"))
		fail_msg("reported as:\n%s", cap_text(&c));
	close_capture(&c);
}

static void invalid_utf8_is_reported_on_its_line(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse_at(&c, "a: 1\nb: 2\nc: caf\xe9\n", 1);
	assert_null(v);
	assert_int_equal(diag_errors(c.d), 1);
	/* The bad byte is on the third YAML line: line 4 of the file. */
	if (!str_has_prefix(cap_text(&c), "f.yaml:4:"))
		fail_msg("reported as: %s", cap_text(&c));
	assert_non_null(strstr(cap_text(&c), "UTF-8"));
	close_capture(&c);
}

static void duplicate_key_names_the_first_line(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse_at(&c, "title: a\ndate: 2024-04-08\ntitle: b\n", 1);
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:4:1: error: duplicate key 'title' (first given on line 2)\n"
					  "    4 | title: b\n"
					  "      | ^~~~~\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void every_duplicate_key_and_the_syntax_error_after_them_are_reported(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: 1\nb: 2\na: 3\nc: {b: 1, b: 2}\nb: 4\nd: [1, 2\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:3:1: error: duplicate key 'a' (first given on line 1)\n"
					  "    3 | a: 3\n"
					  "      | ^\n"
					  "f.yaml:4:11: error: duplicate key 'b' (first given on line 4)\n"
					  "    4 | c: {b: 1, b: 2}\n"
					  "      |           ^\n"
					  "f.yaml:5:1: error: duplicate key 'b' (first given on line 2)\n"
					  "    5 | b: 4\n"
					  "      | ^\n"
					  "f.yaml:7:1: error: malformed YAML: did not find expected ',' or ']'\n"
					  "    7 | \n"
					  "      | ^\n"
					  "f.yaml:6:4: note: while parsing a flow sequence (it starts here)\n"
					  "    6 | d: [1, 2\n"
					  "      |    ^\n");
	assert_int_equal(diag_errors(c.d), 4);
	close_capture(&c);
}

static void duplicate_key_keeps_pointing_at_the_first_one(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "k: 1\nk: 2\nk: 3\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:2:1: error: duplicate key 'k' (first given on line 1)\n"
					  "    2 | k: 2\n"
					  "      | ^\n"
					  "f.yaml:3:1: error: duplicate key 'k' (first given on line 1)\n"
					  "    3 | k: 3\n"
					  "      | ^\n");
	assert_int_equal(diag_errors(c.d), 2);
	close_capture(&c);
}

static void errors_after_an_alias_and_a_list_key_are_still_reported(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: 1\na: *x\n? [k]\n: v\nb: &y 1\nb: 2\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:2:1: error: duplicate key 'a' (first given on line 1)\n"
					  "    2 | a: *x\n"
					  "      | ^\n"
					  "f.yaml:2:4: error: YAML aliases (*name) are not supported: write the value out\n"
					  "    2 | a: *x\n"
					  "      |    ^\n"
					  "f.yaml:3:3: error: a map key must be a plain name or string\n"
					  "    3 | ? [k]\n"
					  "      |   ^\n"
					  "f.yaml:6:1: error: duplicate key 'b' (first given on line 5)\n"
					  "    6 | b: 2\n"
					  "      | ^\n");
	assert_int_equal(diag_errors(c.d), 4);
	close_capture(&c);
}

static void duplicate_key_in_a_nested_map_is_an_error(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "runs: {a: 1, b: 2, a: 3}\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:1:20: error: duplicate key 'a' (first given on line 1)\n"
					  "    1 | runs: {a: 1, b: 2, a: 3}\n"
					  "      |                    ^\n");
	close_capture(&c);
}

static void alias_is_refused(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: &x 1\nb: *x\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:2:4: error: YAML aliases (*name) are not supported: write the value out\n"
					  "    2 | b: *x\n"
					  "      |    ^\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void anchor_without_alias_is_harmless(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "a: &x 1\n");
	assert_non_null(v);
	assert_true(value_get(v, "a")->number == 1);
	assert_string_equal(cap_text(&c), "");
	value_free(v);
	close_capture(&c);
}

static void list_as_map_key_is_refused(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "? [a]\n: 1\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:1:3: error: a map key must be a plain name or string\n"
					  "    1 | ? [a]\n"
					  "      |   ^\n");
	close_capture(&c);
}

/* n opening brackets, closed again when close is set. */
static char *brackets(int n, bool close)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < n; i++)
		buf_putc(&b, '[');
	for (int i = 0; close && i < n; i++)
		buf_putc(&b, ']');
	buf_putc(&b, '\n');
	return buf_detach(&b);
}

static void ten_thousand_open_brackets_are_refused_without_crashing(void **state)
{
	(void)state;
	char *text = brackets(10000, false);
	struct capture c;
	cap_open(&c);
	struct value *v = yamldoc_parse(text, strlen(text), "deep.yaml", 0, c.d);
	assert_null(v);
	assert_int_equal(diag_errors(c.d), 1);
	assert_true(str_has_prefix(cap_text(&c), "deep.yaml:1:"));
	assert_non_null(strstr(cap_text(&c), ": error: YAML nested deeper than 200 levels"
						   " (limit yaml_depth: raise it with limits: in site.yaml or LOGDOWN_LIMIT_YAML_DEPTH)\n"));
	close_capture(&c);
	free(text);
}

static void ten_thousand_nested_block_lists_are_refused(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	for (int i = 0; i < 10000; i++)
		buf_puts(&b, "- ");
	buf_puts(&b, "x\n");
	struct capture c;
	cap_open(&c);
	struct value *v = yamldoc_parse(b.data, b.len, "deep.yaml", 0, c.d);
	assert_null(v);
	assert_non_null(strstr(cap_text(&c), "error: YAML nested deeper than 200 levels"
						   " (limit yaml_depth: raise it with limits: in site.yaml or LOGDOWN_LIMIT_YAML_DEPTH)\n"));
	close_capture(&c);
	buf_free(&b);
}

static void nesting_of_200_levels_is_accepted(void **state)
{
	(void)state;
	char *text = brackets(200, true);
	struct capture c;
	cap_open(&c);
	struct value *v = yamldoc_parse(text, strlen(text), "deep.yaml", 0, c.d);
	assert_non_null(v);
	assert_string_equal(cap_text(&c), "");
	int depth = 0;
	for (struct value *p = v; p->kind == VALUE_LIST; p = p->count ? p->items[0] : NULL) {
		depth++;
		if (!p->count)
			break;
	}
	assert_int_equal(depth, 200);
	value_free(v);
	close_capture(&c);
	free(text);
}

static void nesting_of_201_levels_is_refused(void **state)
{
	(void)state;
	char *text = brackets(201, true);
	struct capture c;
	cap_open(&c);
	struct value *v = yamldoc_parse(text, strlen(text), "deep.yaml", 0, c.d);
	assert_null(v);
	assert_string_equal(cap_text(&c), "deep.yaml:1:201: error: YAML nested deeper than 200 levels"
					  " (limit yaml_depth: raise it with limits: in site.yaml or LOGDOWN_LIMIT_YAML_DEPTH)\n");
	value_free(v);
	close_capture(&c);
	free(text);
}

static void empty_document_is_null(void **state)
{
	(void)state;
	const char *texts[] = {"", "\n\n", "# only a comment\n", "---\n", "---\n...\n", "~\n"};
	for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
		struct capture c;
		cap_open(&c);
		struct value *v = parse(&c, texts[i]);
		assert_non_null(v);
		assert_int_equal(v->kind, VALUE_NULL);
		assert_int_equal(v->count, 0);
		assert_string_equal(v->loc.file, "f.yaml");
		assert_string_equal(cap_text(&c), "");
		value_free(v);
		close_capture(&c);
	}
}

static void empty_text_is_null_on_its_first_line(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse_at(&c, "", 3);
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_NULL);
	assert_string_equal(v->loc.file, "f.yaml");
	assert_int_equal(v->loc.line, 4);
	value_free(v);
	close_capture(&c);
}

static void empty_text_with_no_length_is_null(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = yamldoc_parse("ignored", 0, "f.yaml", 0, c.d);
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_NULL);
	value_free(v);
	close_capture(&c);
}

static void a_second_document_is_an_error(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "title: x\n---\noutput: y\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:2:1: error: a second YAML document starts here; "
					  "logdown reads one document per file (remove this ---)\n"
					  "    2 | ---\n"
					  "      | ^~~\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void a_second_document_is_reported_on_its_file_line(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	/* Only the start of the second document is reported: what is in it
	 * (here a broken third one) is never read. */
	struct value *v = parse_at(&c, "a: 1\n---\nb: 2\n---\n[ broken\n", 2);
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:4:1: error: a second YAML document starts here; "
					  "logdown reads one document per file (remove this ---)\n"
					  "    4 | ---\n"
					  "      | ^~~\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void a_second_document_after_a_directive_is_reported_at_the_directive(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "title: x\n...\n%YAML 1.2\n---\nb: 2\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:3:1: error: a second YAML document starts here; "
					  "logdown reads one document per file\n"
					  "    3 | %YAML 1.2\n"
					  "      | ^\n");
	close_capture(&c);
}

static void a_syntax_error_after_the_document_is_reported(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "title: x\n...\nb: 2\n");
	assert_null(v);
	assert_string_equal(cap_text(&c), "f.yaml:3:1: error: malformed YAML: did not find expected <document start>\n"
					  "    3 | b: 2\n"
					  "      | ^\n");
	assert_int_equal(diag_errors(c.d), 1);
	close_capture(&c);
}

static void document_markers_around_one_document_are_fine(void **state)
{
	(void)state;
	const char *texts[] = {"title: x\n...\n", "---\ntitle: x\n...\n", "--- {title: x}\n",
			       "title: x\n...\n# the end\n...\n"};
	for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
		struct capture c;
		cap_open(&c);
		struct value *v = parse(&c, texts[i]);
		assert_non_null(v);
		assert_int_equal(v->kind, VALUE_MAP);
		assert_int_equal(v->count, 1);
		assert_string_equal(value_get(v, "title")->text, "x");
		assert_string_equal(cap_text(&c), "");
		value_free(v);
		close_capture(&c);
	}
}

static void byte_order_mark_is_skipped_and_every_key_kept(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "\xef\xbb\xbftitle: T\noutput: out2\n");
	assert_non_null(v);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(v->kind, VALUE_MAP);
	assert_int_equal(v->count, 2);
	assert_string_equal(v->keys[0], "title");
	assert_string_equal(v->keys[1], "output");
	assert_string_equal(value_get(v, "title")->text, "T");
	assert_string_equal(value_get(v, "output")->text, "out2");
	/* The mark takes no column: line 1 reads as if it were not there. */
	assert_int_equal(v->loc.line, 1);
	assert_int_equal(v->loc.col, 1);
	assert_int_equal(v->key_locs[0].line, 1);
	assert_int_equal(v->key_locs[0].col, 1);
	assert_int_equal(value_get(v, "title")->loc.col, 8);
	assert_int_equal(v->key_locs[1].line, 2);
	assert_int_equal(v->key_locs[1].col, 1);
	value_free(v);
	close_capture(&c);
}

static void byte_order_mark_counts_nothing_in_line_1_diagnostics(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	/* Not registered and not on disk, so only the locations are shown:
	 * quoting a line that holds the mark is the diagnostics' business. */
	const char *text = "\xef\xbb\xbftitle: [1, 2\n";
	struct value *v = yamldoc_parse(text, strlen(text), "no-such-dir/bom.yaml", 0, c.d);
	assert_null(v);
	assert_string_equal(cap_text(&c), "no-such-dir/bom.yaml:2:1: error: malformed YAML: did not find expected ',' or ']'\n"
					  "no-such-dir/bom.yaml:1:8: note: while parsing a flow sequence (it starts here)\n");
	close_capture(&c);
}

static void byte_order_mark_alone_is_an_empty_document(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "\xef\xbb\xbf");
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_NULL);
	assert_string_equal(cap_text(&c), "");
	value_free(v);
	close_capture(&c);
}

/* cmark's pathological tests run each input under a time limit.  A
 * quadratic load takes minutes here; a linear one well under a second
 * even with the sanitizers, so the bound is loose on a busy machine. */
static void hundred_thousand_keys_load_in_linear_time(void **state)
{
	(void)state;
	enum { N = 100000 };
	struct buf b = BUF_INIT;
	for (int i = 0; i < N; i++)
		buf_printf(&b, "key%d: %d\n", i, i);
	struct capture c;
	cap_open(&c);
	clock_t t0 = clock();
	struct value *v = yamldoc_parse(b.data, b.len, "big.yaml", 0, c.d);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_non_null(v);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(v->count, N);
	char key[32];
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof key, "key%d", i);
		assert_int_equal(value_index(v, key), i);
		assert_true(v->items[i]->number == i);
		assert_int_equal(v->key_locs[i].line, i + 1);
	}
	assert_null(value_get(v, "key100000"));
	if (secs > 10)
		fail_msg("loading %d keys took %.1f s of CPU", N, secs);
	value_free(v);
	close_capture(&c);
	buf_free(&b);
}

static void a_top_level_scalar_is_loaded(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "just words\n");
	assert_non_null(v);
	assert_int_equal(v->kind, VALUE_STRING);
	assert_string_equal(v->text, "just words");
	assert_int_equal(v->loc.line, 1);
	assert_int_equal(v->loc.col, 1);
	value_free(v);
	close_capture(&c);
}

static void crlf_line_endings_are_read(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "title: Hello\r\nn: 3\r\n");
	assert_non_null(v);
	assert_string_equal(value_get(v, "title")->text, "Hello");
	assert_int_equal(value_get(v, "n")->kind, VALUE_NUMBER);
	assert_int_equal(value_get(v, "n")->loc.line, 2);
	value_free(v);
	close_capture(&c);
}

static void utf8_text_is_kept(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, "author: Zo\xc3\xab \xe6\x9d\x8e\n");
	assert_non_null(v);
	assert_string_equal(value_get(v, "author")->text, "Zo\xc3\xab \xe6\x9d\x8e");
	assert_int_equal(value_get(v, "author")->len, strlen("Zo\xc3\xab \xe6\x9d\x8e"));
	value_free(v);
	close_capture(&c);
}

static void more_values_than_yaml_nodes_is_an_error(void **state)
{
	(void)state;
	limit_set(LIMIT_YAML_NODES, 100);
	struct buf b = BUF_INIT;
	buf_puts(&b, "rows:\n");
	for (int i = 0; i < 200; i++)
		buf_printf(&b, "  - %d\n", i);
	struct capture c;
	cap_open(&c);
	struct value *v = parse(&c, buf_data(&b));
	limit_set(LIMIT_YAML_NODES, 5000000);
	assert_null(v);
	assert_string_equal(cap_text(&c),
			    "f.yaml:100:5: error: YAML document holds more than 100 values (limit "
			    "yaml_nodes: raise it with limits: in site.yaml or LOGDOWN_LIMIT_YAML_NODES)\n"
			    "  100 |   - 98\n"
			    "      |     ^\n");
	close_capture(&c);
	buf_free(&b);
	/* 100 values exactly are fine */
	limit_set(LIMIT_YAML_NODES, 100);
	cap_open(&c);
	v = parse(&c, "[" "0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,"
		      "7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,"
		      "4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8]");
	limit_set(LIMIT_YAML_NODES, 5000000);
	assert_non_null(v);
	assert_int_equal(v->count, 99);
	value_free(v);
	close_capture(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(null_words_and_nothing_are_null),
		cmocka_unit_test(true_and_false_are_booleans),
		cmocka_unit_test(yaml_1_1_booleans_stay_strings),
		cmocka_unit_test(decimal_numbers_are_numbers),
		cmocka_unit_test(number_keeps_the_text_it_was_written_with),
		cmocka_unit_test(infinities_and_nan_are_numbers),
		cmocka_unit_test(dates_versions_and_words_are_strings),
		cmocka_unit_test(scalar_reads_only_the_given_length),
		cmocka_unit_test(plain_scalars_in_a_document_are_typed),
		cmocka_unit_test(quoted_scalars_are_always_strings),
		cmocka_unit_test(block_scalars_are_strings),
		cmocka_unit_test(str_tag_makes_a_plain_scalar_a_string),
		cmocka_unit_test(nested_maps_and_lists_are_loaded),
		cmocka_unit_test(key_order_is_kept),
		cmocka_unit_test(locations_are_one_based_lines_and_columns),
		cmocka_unit_test(line0_offsets_every_location),
		cmocka_unit_test(json_with_tabs_is_read),
		cmocka_unit_test(python_style_dict_with_single_quotes_is_read),
		cmocka_unit_test(json_top_level_list_is_a_list),
		cmocka_unit_test(unclosed_flow_list_names_where_it_started),
		cmocka_unit_test(unclosed_quote_names_where_it_started),
		cmocka_unit_test(bad_indentation_is_an_error_at_its_place),
		cmocka_unit_test(tab_indentation_is_an_error),
		cmocka_unit_test(error_caret_after_multibyte_characters_lines_up),
		cmocka_unit_test(invalid_utf8_is_reported_on_its_line),
		cmocka_unit_test(duplicate_key_names_the_first_line),
		cmocka_unit_test(every_duplicate_key_and_the_syntax_error_after_them_are_reported),
		cmocka_unit_test(duplicate_key_keeps_pointing_at_the_first_one),
		cmocka_unit_test(errors_after_an_alias_and_a_list_key_are_still_reported),
		cmocka_unit_test(duplicate_key_in_a_nested_map_is_an_error),
		cmocka_unit_test(alias_is_refused),
		cmocka_unit_test(more_values_than_yaml_nodes_is_an_error),
		cmocka_unit_test(anchor_without_alias_is_harmless),
		cmocka_unit_test(list_as_map_key_is_refused),
		cmocka_unit_test(ten_thousand_open_brackets_are_refused_without_crashing),
		cmocka_unit_test(ten_thousand_nested_block_lists_are_refused),
		cmocka_unit_test(nesting_of_200_levels_is_accepted),
		cmocka_unit_test(nesting_of_201_levels_is_refused),
		cmocka_unit_test(empty_document_is_null),
		cmocka_unit_test(empty_text_is_null_on_its_first_line),
		cmocka_unit_test(empty_text_with_no_length_is_null),
		cmocka_unit_test(a_second_document_is_an_error),
		cmocka_unit_test(a_second_document_is_reported_on_its_file_line),
		cmocka_unit_test(a_second_document_after_a_directive_is_reported_at_the_directive),
		cmocka_unit_test(a_syntax_error_after_the_document_is_reported),
		cmocka_unit_test(document_markers_around_one_document_are_fine),
		cmocka_unit_test(byte_order_mark_is_skipped_and_every_key_kept),
		cmocka_unit_test(byte_order_mark_counts_nothing_in_line_1_diagnostics),
		cmocka_unit_test(byte_order_mark_alone_is_an_empty_document),
		cmocka_unit_test(hundred_thousand_keys_load_in_linear_time),
		cmocka_unit_test(a_top_level_scalar_is_loaded),
		cmocka_unit_test(crlf_line_endings_are_read),
		cmocka_unit_test(utf8_text_is_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
