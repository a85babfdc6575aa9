/* test_attrs.c: the attribute syntax "{#id .class key=value}" that
 * headings, images, equations and code fences share, and the label
 * registry that references read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "capture.h"
#include "resolve/attrs.h"
#include "resolve/xref.h"

/* Parses text (its '{' at column 10 of line 3), returning the result;
 * *items gets "key=value;" per item and *err the diagnostics. */
static enum attrs_result parse(const char *text, char **items, char **err, size_t *used)
{
	struct capture c;
	cap_open(&c);
	struct attrs a;
	const char *after = NULL;
	struct loc at = {"r.md", 3, 10, 0};
	enum attrs_result r = attrs_parse(text, text + strlen(text), at, c.d, &a, &after);
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < a.n; i++)
		buf_printf(&b, "%s=%s@%d+%d;", a.items[i].key, a.items[i].value, a.items[i].col,
			   a.items[i].len);
	*items = buf_detach(&b);
	*err = xstrdup(cap_text(&c));
	*used = r == ATTRS_NONE ? 0 : (size_t)(after - text);
	attrs_free(&a);
	cap_close(&c);
	return r;
}

static void expect(const char *text, enum attrs_result want, const char *items, const char *err,
		   size_t used)
{
	char *got, *e;
	size_t u;
	enum attrs_result r = parse(text, &got, &e, &u);
	if (r != want || strcmp(got, items) != 0 || strcmp(e, err) != 0 || u != used)
		fprintf(stderr, "for %s: result %d, items '%s', used %zu, diagnostics:\n%s", text,
			(int)r, got, u, e);
	assert_int_equal(r, want);
	assert_string_equal(got, items);
	assert_string_equal(e, err);
	assert_int_equal(u, used);
	free(got);
	free(e);
}

static void pandoc_forms_are_read_with_their_columns(void **state)
{
	(void)state;
	expect("{#sec-results}", ATTRS_OK, "id=sec-results@11+12;", "", 14);
	expect("{#fig-loss width=60%}", ATTRS_OK, "id=fig-loss@11+9;width=60%@21+9;", "", 21);
	expect("{.python .numberLines hl_lines=\"3-5\"} rest", ATTRS_OK,
	       "class=python@11+7;class=numberLines@19+12;hl_lines=3-5@32+14;", "", 37);
	expect("{ #a  .b\tk='x y' }", ATTRS_OK, "id=a@12+2;class=b@16+2;k=x y@19+7;", "", 18);
	expect("{-}", ATTRS_OK, "class=unnumbered@11+1;", "", 3);
	expect("{title=\"a \\\"quoted\\\" \\\\ word\"}", ATTRS_OK,
	       "title=a \"quoted\" \\ word@11+28;", "", 30);
	expect("{k=\"\"}", ATTRS_OK, "k=@11+4;", "", 6);
}

static void text_in_braces_is_left_alone(void **state)
{
	(void)state;
	expect("{}", ATTRS_NONE, "", "", 0);
	expect("{x}", ATTRS_NONE, "", "", 0);
	expect("{{ b.loss }}", ATTRS_NONE, "", "", 0);
	expect("{=html}", ATTRS_NONE, "", "", 0);
	expect("{ a b }", ATTRS_NONE, "", "", 0);
	expect("not a brace", ATTRS_NONE, "", "", 0);
	expect("", ATTRS_NONE, "", "", 0);
}

static void each_bad_item_is_reported_at_its_column(void **state)
{
	(void)state;
	expect("{#}", ATTRS_BAD, "", "r.md:3:11: error: '#' needs a name after it, as in {#sec-results}\n", 3);
	expect("{.numberLines width=}", ATTRS_BAD, "class=numberLines@11+12;",
	       "r.md:3:24: error: 'width=' needs a value, as in width=60%\n", 21);
	expect("{#a #b}", ATTRS_BAD, "id=a@11+2;",
	       "r.md:3:14: error: a second identifier '#b': an element has one {#id}\n", 7);
	expect("{.python numberLines}", ATTRS_BAD, "class=python@11+7;",
	       "r.md:3:19: error: 'numberLines' is not an attribute: write #id, .class or "
	       "key=value\n",
	       21);
	expect("{#fig-a width=60%", ATTRS_BAD, "id=fig-a@11+6;width=60%@18+9;",
	       "r.md:3:10: error: unclosed '{': an attribute block ends with '}' on its line\n", 17);
	expect("{#a k=\"open}\nnext", ATTRS_BAD, "id=a@11+2;",
	       "r.md:3:14: error: unclosed \" in the value of 'k'\n"
	       "r.md:3:10: error: unclosed '{': an attribute block ends with '}' on its line\n",
	       12);
	expect("{#a!b}", ATTRS_BAD, "id=a@11+2;",
	       "r.md:3:13: error: unexpected '!' in an attribute block: items are separated by "
	       "spaces\n",
	       6);
}

static void unknown_keys_get_a_suggestion(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct attrs a;
	const char *after, *text = "{#fig-x widht=60% .wide}";
	struct loc at = {"r.md", 2, 5, 0};
	assert_int_equal(attrs_parse(text, text + strlen(text), at, c.d, &a, &after), ATTRS_OK);
	static const char *const known[] = {"id", "width", "height", NULL};
	assert_false(attrs_check(&a, known, "an image", at, c.d));
	assert_string_equal(cap_text(&c),
			    "r.md:2:13: error: an image has no attribute 'widht' (did you mean "
			    "'width'?)\n"
			    "r.md:2:23: error: an image takes no {.class} here\n");
	assert_string_equal(attrs_get(&a, "id")->value, "fig-x");
	assert_true(attrs_has_class(&a, "wide"));
	assert_null(attrs_get(&a, "height"));
	attrs_free(&a);
	cap_close(&c);
}

static void labels_are_found_and_duplicates_refused(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct xref x = {0};
	struct loc at = {"r.md", 4, 1, 0};
	assert_true(xref_add(&x, "fig-loss", "Figure", 1, NULL, at, c.d));
	assert_true(xref_add(&x, "eq-roof", "Equation", 1, "Equation (1)", at, c.d));
	assert_false(xref_add(&x, "fig-loss", "Figure", 2, NULL, at, c.d));
	assert_string_equal(xref_find(&x, "fig-loss")->text, "Figure 1");
	assert_string_equal(xref_find(&x, "eq-roof")->text, "Equation (1)");
	xref_unknown(&x, "fig-los", at, c.d);
	xref_unknown(&x, "tbl-zzzzzz", at, c.d);
	assert_string_equal(cap_text(&c),
			    "r.md:4:1: error: label 'fig-loss' is already Figure 1's\n"
			    "r.md:4:1: error: label 'fig-los' is not defined (did you mean "
			    "'fig-loss'?)\n"
			    "r.md:4:1: error: label 'tbl-zzzzzz' is not defined: give a {table} "
			    "'label: tbl-zzzzzz'\n");
	const char *s = "fig-a. @eq-";
	assert_int_equal(xref_prefix(s, s + strlen(s)), 4);
	assert_int_equal(xref_prefix(s + 7, s + strlen(s)), 0);
	assert_true(xref_good_name("tbl-a_1", "tbl-"));
	assert_false(xref_good_name("tbl-", "tbl-"));
	assert_false(xref_good_name("tbl-a.b", "tbl-"));
	xref_free(&x);
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pandoc_forms_are_read_with_their_columns),
		cmocka_unit_test(text_in_braces_is_left_alone),
		cmocka_unit_test(each_bad_item_is_reported_at_its_column),
		cmocka_unit_test(unknown_keys_get_a_suggestion),
		cmocka_unit_test(labels_are_found_and_duplicates_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
