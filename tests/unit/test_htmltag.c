/* test_htmltag.c: start tags and attribute values read as a browser's
 * tokenizer reads them (base/htmltag.h): the author's raw HTML in a
 * report (its <img> tags) and the headings of a rendered page. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/htmltag.h"

/* The offset of the next <name> tag in s from `from`, -1 for none. */
static long next_at(const char *s, long from, const char *name)
{
	const char *t = html_next_tag(s + from, s + strlen(s), name);
	return t ? (long)(t - s) : -1;
}

/* Every <img>'s src in s, each after a '|'; "-" for a tag without one. */
static char *srcs(const char *s)
{
	static char out[512];
	out[0] = '\0';
	const char *end = s + strlen(s);
	for (const char *t = html_next_tag(s, end, "img"); t;
	     t = html_next_tag(html_tag_end(t, end), end, "img")) {
		char *v = html_attr(t, end, "src", NULL);
		strcat(out, "|");
		strcat(out, v ? v : "-");
		free(v);
	}
	return out;
}

static void a_tag_is_its_name_in_any_case_then_a_blank_slash_or_end(void **state)
{
	(void)state;
	assert_int_equal(next_at("a <img src=x>", 0, "img"), 2);
	assert_int_equal(next_at("<IMG\nsrc=x>", 0, "img"), 0);
	assert_int_equal(next_at("<img/>", 0, "img"), 0);
	assert_int_equal(next_at("<img>", 0, "img"), 0);
	/* another name, an end tag, a '<' that starts no tag */
	assert_int_equal(next_at("<imgx src=a> </img> a < img", 0, "img"), -1);
	assert_int_equal(next_at("<im", 0, "img"), -1);
	assert_int_equal(next_at("", 0, "img"), -1);
	assert_int_equal(next_at("<p><img src=a><img src=b>", 4, "img"), 14);
	/* a tag ends past its '>', a quoted one aside */
	const char *t = "<img alt='a>b' src=c>d";
	assert_string_equal(html_tag_end(t, t + strlen(t)), "d");
	t = "<img alt='cut";
	assert_true(html_tag_end(t, t + strlen(t)) == t + strlen(t));
}

static void comments_doctypes_and_raw_text_hold_no_tags(void **state)
{
	(void)state;
	assert_string_equal(srcs("<!-- <img src=a> --><img src=b>"), "|b");
	/* a comment ends at "-->", not at its first '>' */
	assert_string_equal(srcs("<!-- a > b <img src=a> --><img src=b>"), "|b");
	/* the empty comments of the tokenizer: "<!-->" and "<!--->" */
	assert_string_equal(srcs("<!--><img src=a><!---><img src=b>"), "|a|b");
	assert_string_equal(srcs("<!-- never closed <img src=a>"), "");
	assert_string_equal(srcs("<!DOCTYPE html><?x <img src=a>?><img src=b>"), "|b");
	assert_string_equal(srcs("<script>document.write('<img src=a>')</script><img src=b>"),
			    "|b");
	assert_string_equal(srcs("<STYLE>a::after{content:'<img src=a>'}</style ><img src=b>"),
			    "|b");
	assert_string_equal(srcs("<textarea><img src=a></TEXTAREA><img src=b>"), "|b");
	/* an attribute's value is not a tag */
	assert_string_equal(srcs("<a title=\"<img src=a>\"><img src=b></a>"), "|b");
	assert_string_equal(srcs("<a title='<img src=a>'><img src=b></a>"), "|b");
	assert_string_equal(srcs("<img alt=\"<img src=a>\" src=b><img src=c>"), "|b|c");
}

static void values_are_quoted_either_way_or_not_at_all(void **state)
{
	(void)state;
	assert_string_equal(srcs("<img src=\"a b.png\">"), "|a b.png");
	assert_string_equal(srcs("<img src='it\"s.png'>"), "|it\"s.png");
	assert_string_equal(srcs("<img src=plain.png alt=x>"), "|plain.png");
	assert_string_equal(srcs("<img src=plain.png>"), "|plain.png");
	assert_string_equal(srcs("<img alt=x src = \"spaced.png\" >"), "|spaced.png");
	assert_string_equal(srcs("<img SRC=\"upper.png\">"), "|upper.png");
	assert_string_equal(srcs("<img\n  width=\"300\"\n  src=\"lines.png\"\n>"), "|lines.png");
	assert_string_equal(srcs("<img src=\"a.png\"/>"), "|a.png");
	/* a '>' inside quotes does not end the tag */
	assert_string_equal(srcs("<img alt=\"a > b\" src=c.png>"), "|c.png");
	/* none, empty, without a value, a lookalike name */
	assert_string_equal(srcs("<img alt=x>"), "|-");
	assert_string_equal(srcs("<img src=\"\">"), "|");
	assert_string_equal(srcs("<img src alt=x>"), "|");
	assert_string_equal(srcs("<img data-src=a.png srcset=b.png>"), "|-");
	/* the first of two, as in a browser */
	assert_string_equal(srcs("<img src=first.png src=second.png>"), "|first.png");
	/* cut short: what is there */
	assert_string_equal(srcs("<img src=\"cut"), "|cut");
	assert_string_equal(srcs("<img src="), "|");
}

static void character_references_are_decoded(void **state)
{
	(void)state;
	assert_string_equal(srcs("<img src=\"a&amp;b&lt;&gt;&quot;&apos;.png\">"), "|a&b<>\"'.png");
	assert_string_equal(srcs("<img src=\"&#39;&#x26;&#X41;&#65\">"), "|'&AA");
	/* not a code point: U+FFFD; unknown or bare: as written */
	assert_string_equal(srcs("<img src=\"&#0;&#xD800;&#x110000;\">"),
			    "|\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
	assert_string_equal(srcs("<img src=\"&copy;&nbsp;a & b&#;&#x;\">"), "|&copy;&nbsp;a & b&#;&#x;");
}

static void an_attribute_is_placed_at_its_value(void **state)
{
	(void)state;
	const char *tag = "<h2 class=x id=\"results &amp; more\">";
	const char *at = NULL;
	char *id = html_attr(tag, NULL, "id", &at);
	assert_string_equal(id, "results & more");
	assert_int_equal(at - tag, 16);
	free(id);
	/* without a value: at its name */
	id = html_attr("<h2 hidden id>", NULL, "id", &at);
	assert_string_equal(id, "");
	assert_string_equal(at, "id>");
	free(id);
	assert_null(html_attr("<h2 class=\"id=x\">", NULL, "id", NULL));
	/* the tag ends at its '>': a later tag's attribute is not its */
	assert_null(html_attr("<h2>text <a id=x>", NULL, "id", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_tag_is_its_name_in_any_case_then_a_blank_slash_or_end),
		cmocka_unit_test(comments_doctypes_and_raw_text_hold_no_tags),
		cmocka_unit_test(values_are_quoted_either_way_or_not_at_all),
		cmocka_unit_test(character_references_are_decoded),
		cmocka_unit_test(an_attribute_is_placed_at_its_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
