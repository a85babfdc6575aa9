/* test_mustache.c: the Mustache engine, one behaviour per test, then the
 * official spec's test cases (../shared/testdata/mustache-spec, or
 * $MUSTACHE_SPEC_DIR), one cmocka test per case. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "render/mustache.h"
#include "base/util.h"
#include "data/value.h"
#include "data/yamldoc.h"
#include "capture.h"

/* The data for a test, written as YAML.  Caller frees with value_free(). */
static struct value *yaml(const char *text)
{
	struct diag *d = diag_new(stderr, DIAG_TEXT, false);
	struct value *v = yamldoc_parse(text, strlen(text), "data.yaml", 0, d);
	diag_free(d);
	assert_non_null(v);
	return v;
}

/* Serves partials from a map of name -> template text. */
struct partials {
	const struct value *map;
	int loads;
};

static bool load_partial(void *ctx, const char *name, struct buf *out)
{
	struct partials *p = ctx;
	p->loads++;
	const struct value *v = value_get(p->map, name);
	if (!v || v->kind != VALUE_STRING)
		return false;
	buf_put(out, v->text, v->len);
	return true;
}

/* Compiles and renders tpl with data (YAML) and partials (YAML map or
 * NULL), expecting no diagnostics.  Caller frees the result. */
static char *render_yaml(const char *tpl, const char *data, const char *partials)
{
	struct value *v = yaml(data);
	struct value *pv = partials ? yaml(partials) : NULL;
	struct partials p = {pv, 0};
	struct capture c;
	cap_open(&c);
	struct mustache *m = mustache_compile("t.html", tpl, strlen(tpl), c.d);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_true(mustache_render(m, v, load_partial, &p, &out, c.d));
	mustache_free(m);
	char *diags = cap_take(&c);
	assert_string_equal(diags, "");
	free(diags);
	value_free(v);
	value_free(pv);
	return buf_detach(&out);
}

#define assert_renders(tpl, data, partials, want)                      \
	do {                                                           \
		char *got_ = render_yaml((tpl), (data), (partials));   \
		assert_string_equal(got_, (want));                     \
		free(got_);                                            \
	} while (0)

/* Compiles text registered as `file`, expects it to fail with exactly
 * one error, and returns the diagnostics printed.  Caller frees. */
static char *compile_errors(const char *file, const char *text)
{
	struct capture c;
	cap_open(&c);
	diag_add_source(c.d, file, text, strlen(text));
	struct mustache *m = mustache_compile(file, text, strlen(text), c.d);
	assert_null(m);
	assert_int_equal(diag_errors(c.d), 1);
	return cap_take(&c);
}

#define assert_compile_error(text, want)                               \
	do {                                                           \
		char *got_ = compile_errors("page.html", (text));      \
		assert_string_equal(got_, (want));                     \
		free(got_);                                            \
	} while (0)

static void renders_text_without_tags_unchanged(void **state)
{
	(void)state;
	assert_renders("Hello from {Mustache}!\n", "{}", NULL, "Hello from {Mustache}!\n");
}

static void interpolates_a_name_from_the_data(void **state)
{
	(void)state;
	assert_renders("Hello, {{subject}}!", "{subject: world}", NULL, "Hello, world!");
	assert_renders("|{{ subject }}|", "{subject: world}", NULL, "|world|");
}

static void escapes_html_in_double_braces(void **state)
{
	(void)state;
	assert_renders("{{x}}", "{x: '& < > \" '''}", NULL, "&amp; &lt; &gt; &quot; &#39;");
}

static void triple_braces_and_ampersand_do_not_escape(void **state)
{
	(void)state;
	assert_renders("{{{x}}}|{{&x}}|{{{ x }}}", "{x: '<b>&'}", NULL, "<b>&|<b>&|<b>&");
}

static void numbers_interpolate_in_their_shortest_form(void **state)
{
	(void)state;
	assert_renders("{{a}} {{b}} {{c}} {{{a}}}", "{a: 1.210, b: 85, c: -0.50}", NULL,
		       "1.21 85 -0.5 1.21");
}

static void booleans_interpolate_as_words(void **state)
{
	(void)state;
	assert_renders("{{t}}/{{f}}", "{t: true, f: false}", NULL, "true/false");
}

static void null_and_missing_names_render_nothing(void **state)
{
	(void)state;
	assert_renders("({{n}})({{missing}})({{{n}}})", "{n: null}", NULL, "()()()");
}

static void lists_and_maps_interpolate_as_nothing(void **state)
{
	(void)state;
	assert_renders("({{l}})({{m}})", "{l: [1, 2], m: {a: 1}}", NULL, "()()");
}

static void dotted_names_reach_into_maps(void **state)
{
	(void)state;
	assert_renders("{{a.b.c}}", "{a: {b: {c: deep}}}", NULL, "deep");
	assert_renders("({{a.x.c}})", "{a: {b: {c: deep}}}", NULL, "()");
}

static void dotted_name_resolves_only_its_first_part_up_the_stack(void **state)
{
	(void)state;
	/* b is found in a, so b.c is not looked for in the root. */
	assert_renders("({{#a}}{{b.c}}{{/a}})", "{a: {b: {}}, b: {c: wrong}}", NULL, "()");
}

static void dotted_name_is_never_a_single_key(void **state)
{
	(void)state;
	assert_renders("({{a.b}})", "{a.b: wrong}", NULL, "()");
}

static void implicit_iterator_is_the_current_item(void **state)
{
	(void)state;
	assert_renders("{{#list}}({{.}}){{/list}}", "{list: [a, '<', 3]}", NULL, "(a)(&lt;)(3)");
	assert_renders("{{.}}", "root", NULL, "root");
}

static void names_are_found_up_the_context_stack(void **state)
{
	(void)state;
	assert_renders("{{#sec}}{{a}}, {{b}}{{/sec}}", "{a: outer, b: wrong, sec: {b: inner}}",
		       NULL, "outer, inner");
}

static void section_repeats_for_each_list_item(void **state)
{
	(void)state;
	assert_renders("{{#items}}<{{name}}>{{/items}}", "{items: [{name: a}, {name: b}]}", NULL,
		       "<a><b>");
}

static void section_over_a_map_renders_once_with_the_map_on_top(void **state)
{
	(void)state;
	assert_renders("{{#person}}Hi {{name}}.{{/person}}", "{person: {name: Joe}}", NULL,
		       "Hi Joe.");
}

static void section_over_a_truthy_scalar_renders_once(void **state)
{
	(void)state;
	assert_renders("{{#s}}[{{.}}]{{/s}}{{#t}}yes{{/t}}", "{s: x, t: true}", NULL, "[x]yes");
}

static void falsy_values_skip_a_section(void **state)
{
	(void)state;
	assert_renders("({{#n}}n{{/n}}{{#f}}f{{/f}}{{#e}}e{{/e}}{{#missing}}m{{/missing}})",
		       "{n: null, f: false, e: []}", NULL, "()");
}

static void inverted_section_renders_only_when_falsy(void **state)
{
	(void)state;
	assert_renders("{{^e}}empty{{/e}}{{^t}}no{{/t}}{{^missing}}!{{/missing}}",
		       "{e: [], t: true}", NULL, "empty!");
}

static void comments_render_nothing(void **state)
{
	(void)state;
	assert_renders("a{{! a note }}b\n{{!\nlong\n}}\nc", "{}", NULL, "ab\nc");
}

static void set_delimiters_change_the_tag_syntax(void **state)
{
	(void)state;
	assert_renders("{{=<% %>=}}<%name%> {{name}} <%={{ }}=%>{{name}}", "{name: Joe}", NULL,
		       "Joe {{name}} Joe");
}

static void standalone_tags_drop_their_whole_line(void **state)
{
	(void)state;
	assert_renders("a\n  {{#t}}\nb\n\t{{/t}}  \nc\n", "{t: true}", NULL, "a\nb\nc\n");
	assert_renders("|\r\n{{#t}}\r\n{{/t}}\r\n|", "{t: true}", NULL, "|\r\n|");
	assert_renders("  {{! note }}\nx\n  {{=<% %>=}}", "{}", NULL, "x\n");
}

static void inline_tags_keep_their_line(void **state)
{
	(void)state;
	assert_renders(" {{#t}}YES{{/t}}\n  {{x}}\n", "{t: true, x: '-'}", NULL, " YES\n  -\n");
}

static void partial_renders_in_the_current_context(void **state)
{
	(void)state;
	assert_renders("{{#p}}[{{> card}}]{{/p}}", "{p: {name: Ann}}", "{card: '<{{name}}>'}",
		       "[<Ann>]");
}

static void missing_partial_renders_nothing(void **state)
{
	(void)state;
	assert_renders("[{{>nothere}}]", "{}", "{}", "[]");

	struct mustache *m = mustache_compile("t.html", "[{{>p}}]", 8, NULL);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_true(mustache_render(m, NULL, NULL, NULL, &out, NULL));
	assert_string_equal(buf_data(&out), "[]");
	buf_free(&out);
	mustache_free(m);
}

static void standalone_partial_indents_each_line_of_its_source(void **state)
{
	(void)state;
	/* The data's own newline is not indented: only the partial's. */
	assert_renders("<ul>\n  {{>item}}\n</ul>\n", "{x: \"a\\nb\"}",
		       "{item: \"<li>\\n{{{x}}}\\n\\n</li>\\n\"}",
		       "<ul>\n  <li>\n  a\nb\n  \n  </li>\n</ul>\n");
}

static void partials_are_loaded_once_per_indentation(void **state)
{
	(void)state;
	struct value *pv = yaml("{p: 'P'}");
	struct partials p = {pv, 0};
	const char *tpl = "{{>p}}\n  {{>p}}\n{{>p}}{{>p}}\n";
	struct mustache *m = mustache_compile("t.html", tpl, strlen(tpl), NULL);
	struct buf out = BUF_INIT;
	assert_true(mustache_render(m, NULL, load_partial, &p, &out, NULL));
	assert_true(mustache_render(m, NULL, load_partial, &p, &out, NULL));
	/* The first two lines are standalone: the partial replaces them. */
	assert_string_equal(buf_data(&out), "P  PPP\nP  PPP\n");
	/* Once without indentation and once with "  ", not six times. */
	assert_int_equal(p.loads, 2);
	buf_free(&out);
	mustache_free(m);
	value_free(pv);
}

static void compiled_template_renders_many_times(void **state)
{
	(void)state;
	const char *tpl = "{{#l}}{{.}},{{/l}}";
	struct mustache *m = mustache_compile("t.html", tpl, strlen(tpl), NULL);
	assert_non_null(m);
	const char *data[] = {"{l: [1, 2]}", "{l: []}", "{l: [x]}"};
	const char *want[] = {"1,2,", "", "x,"};
	for (size_t i = 0; i < ARRAY_LEN(data); i++) {
		struct value *v = yaml(data[i]);
		struct buf out = BUF_INIT;
		assert_true(mustache_render(m, v, NULL, NULL, &out, NULL));
		assert_string_equal(buf_data(&out), want[i]);
		buf_free(&out);
		value_free(v);
	}
	mustache_free(m);
}

static void render_appends_to_the_output(void **state)
{
	(void)state;
	struct mustache *m = mustache_compile("t.html", "b", 1, NULL);
	struct buf out = BUF_INIT;
	buf_puts(&out, "a");
	assert_true(mustache_render(m, NULL, NULL, NULL, &out, NULL));
	assert_string_equal(buf_data(&out), "ab");
	buf_free(&out);
	mustache_free(m);
}

static void text_with_nul_bytes_is_kept(void **state)
{
	(void)state;
	const char tpl[] = "a\0b{{x}}";
	struct value *v = yaml("{x: c}");
	struct mustache *m = mustache_compile("t.html", tpl, sizeof tpl - 1, NULL);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_true(mustache_render(m, v, NULL, NULL, &out, NULL));
	assert_int_equal(out.len, 4);
	assert_memory_equal(out.data, "a\0bc", 4);
	buf_free(&out);
	mustache_free(m);
	value_free(v);
}

static void recursive_partial_stops_at_the_depth_limit(void **state)
{
	(void)state;
	struct value *pv = yaml("{loop: '{{>loop}}'}");
	struct partials p = {pv, 0};
	struct capture c;
	cap_open(&c);
	struct mustache *m = mustache_compile("page.html", "x{{>loop}}", 10, c.d);
	struct buf out = BUF_INIT;
	assert_false(mustache_render(m, NULL, load_partial, &p, &out, c.d));
	buf_free(&out);
	mustache_free(m);
	char *diags = cap_take(&c);
	assert_string_equal(diags,
		"loop:1:1: error: partials nest more than 64 deep (does partial 'loop' include itself?)\n"
		"    1 | {{>loop}}\n"
		"      | ^~~~~~~~~\n");
	free(diags);
	value_free(pv);
}

/* mustache_prepare() loads every partial a render could reach, in
 * sections whatever the data, in partials and in parents' arguments;
 * renders then load nothing and give what an unprepared render gives. */
static void a_prepared_template_renders_without_loading(void **state)
{
	(void)state;
	struct value *pv = yaml("{nav: '<{{> item}}>', item: '{{name}};', base: "
				"'[{{$b}}d{{/b}}]', card: 'C', never: 'N'}");
	const char *tpl = "{{#toc}}{{> nav}}{{/toc}}{{^toc}}-{{/toc}}"
			  "{{<base}}{{$b}}{{> card}}{{/b}}{{/base}}";
	struct mustache *m = mustache_compile("t.html", tpl, strlen(tpl), NULL);
	struct mustache *plain = mustache_compile("t.html", tpl, strlen(tpl), NULL);
	struct partials p = {pv, 0}, q = {pv, 0};
	assert_true(mustache_prepare(m, load_partial, &p));
	/* nav, item, base, card: once each, never the one not named */
	assert_int_equal(p.loads, 4);
	const char *data[] = {"{toc: true, name: Ann}", "{toc: false}"};
	const char *want[] = {"<Ann;>[C]", "-[C]"};
	for (size_t i = 0; i < ARRAY_LEN(data); i++) {
		struct value *v = yaml(data[i]);
		struct buf out = BUF_INIT, ref = BUF_INIT;
		assert_true(mustache_render_prepared(m, v, &out, NULL));
		assert_true(mustache_render(plain, v, load_partial, &q, &ref, NULL));
		assert_string_equal(buf_data(&out), want[i]);
		assert_string_equal(buf_data(&out), buf_data(&ref));
		buf_free(&out);
		buf_free(&ref);
		value_free(v);
	}
	assert_int_equal(p.loads, 4);
	mustache_free(m);
	mustache_free(plain);
	value_free(pv);
}

/* A partial missing or failing to compile anywhere a render could
 * reach: not prepared, nothing reported, and the template as it was,
 * so that the render that meets it reports it as before. */
static void a_template_with_a_bad_partial_is_not_prepared(void **state)
{
	(void)state;
	struct value *pv = yaml("{ok: 'fine', bad: '{{#x}}'}");
	struct partials p = {pv, 0};
	const char *tpl = "{{> ok}}{{#maybe}}{{> bad}}{{/maybe}}";
	struct capture c;
	cap_open(&c);
	struct mustache *m = mustache_compile("page.html", tpl, strlen(tpl), c.d);
	assert_false(mustache_prepare(m, load_partial, &p));
	char *quiet = cap_take(&c);
	assert_string_equal(quiet, "");
	free(quiet);
	cap_open(&c);
	struct value *v = yaml("{maybe: true}");
	struct buf out = BUF_INIT;
	assert_false(mustache_render(m, v, load_partial, &p, &out, c.d));
	char *diags = cap_take(&c);
	assert_non_null(strstr(diags, "bad:1:1: error: "));
	assert_non_null(strstr(diags, "note: in partial 'bad' included here"));
	free(diags);
	buf_free(&out);
	value_free(v);
	mustache_free(m);

	const char *missing = "{{#never}}{{> nothere}}{{/never}}";
	m = mustache_compile("page.html", missing, strlen(missing), NULL);
	assert_false(mustache_prepare(m, load_partial, &p));
	mustache_free(m);
	value_free(pv);
}

static void unclosed_section_reports_line_and_column(void **state)
{
	(void)state;
	assert_compile_error("<h1>{{title}}</h1>\n<ul>\n    {{#reports}}\n<li>{{name}}</li>\n</ul>\n",
		"page.html:3:5: error: section 'reports' is never closed (add {{/reports}})\n"
		"    3 |     {{#reports}}\n"
		"      |     ^~~~~~~~~~~~\n");
}

static void unclosed_inner_section_is_the_one_reported(void **state)
{
	(void)state;
	assert_compile_error("{{#a}}{{^b}}x{{/a}}",
		"page.html:1:14: error: {{/a}} does not match the open section 'b' (expected {{/b}})\n"
		"    1 | {{#a}}{{^b}}x{{/a}}\n"
		"      |              ^~~~~~\n"
		"page.html:1:7: note: section 'b' was opened here\n"
		"    1 | {{#a}}{{^b}}x{{/a}}\n"
		"      |       ^~~~~~\n");
}

static void mismatched_close_reports_both_tags(void **state)
{
	(void)state;
	assert_compile_error("{{#a}}\n  {{/b}}\n",
		"page.html:2:3: error: {{/b}} does not match the open section 'a' (expected {{/a}})\n"
		"    2 |   {{/b}}\n"
		"      |   ^~~~~~\n"
		"page.html:1:1: note: section 'a' was opened here\n"
		"    1 | {{#a}}\n"
		"      | ^~~~~~\n");
}

static void close_without_open_reports_line_and_column(void **state)
{
	(void)state;
	assert_compile_error("text {{/a}}",
		"page.html:1:6: error: {{/a}} closes a section that was never opened\n"
		"    1 | text {{/a}}\n"
		"      |      ^~~~~~\n");
}

static void unterminated_tag_reports_line_and_column(void **state)
{
	(void)state;
	assert_compile_error("line one\nHi {{name\nand more\n",
		"page.html:2:4: error: unterminated tag: no closing '}}'\n"
		"    2 | Hi {{name\n"
		"      |    ^~\n");
}

static void unterminated_triple_mustache_names_its_closer(void **state)
{
	(void)state;
	assert_compile_error("{{{x}}",
		"page.html:1:1: error: unterminated tag: no closing '}}}'\n"
		"    1 | {{{x}}\n"
		"      | ^~\n");
}

static void empty_tag_name_reports_line_and_column(void **state)
{
	(void)state;
	assert_compile_error("a {{ }} b",
		"page.html:1:3: error: empty tag name in {{}}\n"
		"    1 | a {{ }} b\n"
		"      |   ^~~~~\n");
	assert_compile_error("\n{{#}}",
		"page.html:2:1: error: empty tag name in {{#}}\n"
		"    2 | {{#}}\n"
		"      | ^~~~~\n");
}

static void tag_name_with_a_space_is_an_error(void **state)
{
	(void)state;
	assert_compile_error("{{first name}}",
		"page.html:1:1: error: tag name 'first name' contains a space\n"
		"    1 | {{first name}}\n"
		"      | ^~~~~~~~~~~~~~\n");
}

static void set_delimiter_tag_needs_two_delimiters(void **state)
{
	(void)state;
	assert_compile_error("{{=<%=}}",
		"page.html:1:1: error: a set-delimiter tag needs two delimiters "
		"separated by a space, as in {{=<% %>=}}\n"
		"    1 | {{=<%=}}\n"
		"      | ^~~~~~~~\n");
}

static void errors_show_tags_with_the_current_delimiters(void **state)
{
	(void)state;
	assert_compile_error("{{=<% %>=}}\n<%#a%>",
		"page.html:2:1: error: section 'a' is never closed (add <%/a%>)\n"
		"    2 | <%#a%>\n"
		"      | ^~~~~~\n");
}

static void unclosed_block_reports_line_and_column(void **state)
{
	(void)state;
	assert_compile_error("<h1>{{title}}</h1>\n  {{$body}}\n<p>{{text}}</p>\n",
		"page.html:2:3: error: block 'body' is never closed (add {{/body}})\n"
		"    2 |   {{$body}}\n"
		"      |   ^~~~~~~~~\n");
}

static void unclosed_parent_reports_line_and_column(void **state)
{
	(void)state;
	assert_compile_error("{{! page }}\n{{<base}}\n{{$body}}x{{/body}}\n",
		"page.html:2:1: error: parent 'base' is never closed (add {{/base}})\n"
		"    2 | {{<base}}\n"
		"      | ^~~~~~~~~\n");
}

static void block_closed_by_its_parent_reports_both_tags(void **state)
{
	(void)state;
	assert_compile_error("{{<base}}\n{{$body}}\n<p>x</p>\n{{/base}}\n",
		"page.html:4:1: error: {{/base}} does not match the open block 'body' (expected {{/body}})\n"
		"    4 | {{/base}}\n"
		"      | ^~~~~~~~~\n"
		"page.html:2:1: note: block 'body' was opened here\n"
		"    2 | {{$body}}\n"
		"      | ^~~~~~~~~\n");
}

static void block_and_parent_names_follow_the_tag_rules(void **state)
{
	(void)state;
	assert_compile_error("{{$ }}{{/ }}",
		"page.html:1:1: error: empty tag name in {{$}}\n"
		"    1 | {{$ }}{{/ }}\n"
		"      | ^~~~~~\n");
	assert_compile_error("{{<my base}}{{/my base}}",
		"page.html:1:1: error: tag name 'my base' contains a space\n"
		"    1 | {{<my base}}{{/my base}}\n"
		"      | ^~~~~~~~~~~~\n");
}

/* The layout a project's templates/page.html is meant to be written
 * against: base.html from the partial loader, with a block per region. */
static const char base_html[] =
	"{base: \"<html>\\n"
	"<head><title>{{$title}}{{site}}{{/title}}</title></head>\\n"
	"<body>\\n"
	"  <main>\\n"
	"    {{$body}}\\n"
	"    <p>Nothing here yet.</p>\\n"
	"    {{/body}}\\n"
	"  </main>\\n"
	"</body>\\n"
	"</html>\\n\"}";

static void page_fills_the_blocks_of_a_base_layout(void **state)
{
	(void)state;
	assert_renders("{{<base}}\n"
		       "{{$title}}{{title}} | {{site}}{{/title}}\n"
		       "{{$body}}\n"
		       "<h1>{{title}}</h1>\n"
		       "{{#rows}}\n"
		       "<p>{{.}}</p>\n"
		       "{{/rows}}\n"
		       "{{/body}}\n"
		       "{{/base}}\n",
		       "{site: Reports, title: Q1, rows: [a, '<b>']}", base_html,
		       "<html>\n"
		       "<head><title>Q1 | Reports</title></head>\n"
		       "<body>\n"
		       "  <main>\n"
		       "    <h1>Q1</h1>\n"
		       "    <p>a</p>\n"
		       "    <p>&lt;b&gt;</p>\n"
		       "  </main>\n"
		       "</body>\n"
		       "</html>\n");
}

static void blocks_not_filled_render_their_defaults(void **state)
{
	(void)state;
	assert_renders("{{<base}}{{/base}}", "{site: Reports}", base_html,
		       "<html>\n"
		       "<head><title>Reports</title></head>\n"
		       "<body>\n"
		       "  <main>\n"
		       "    <p>Nothing here yet.</p>\n"
		       "  </main>\n"
		       "</body>\n"
		       "</html>\n");
	/* Outside any parent a block is just its default content. */
	assert_renders("<p>\n  {{$x}}{{y}}{{/x}}\n</p>", "{y: Y}", NULL, "<p>\n  Y\n</p>");
}

static void parent_is_loaded_and_compiled_once(void **state)
{
	(void)state;
	struct value *pv = yaml(base_html);
	struct partials p = {pv, 0};
	const char *tpl = "{{<base}}{{$body}}<p>{{n}}</p>{{/body}}{{/base}}";
	struct mustache *m = mustache_compile("page.html", tpl, strlen(tpl), NULL);
	assert_non_null(m);
	const char *data[] = {"{n: 1}", "{n: 2}", "{n: 3}"};
	for (size_t i = 0; i < ARRAY_LEN(data); i++) {
		struct value *v = yaml(data[i]);
		struct buf out = BUF_INIT;
		assert_true(mustache_render(m, v, load_partial, &p, &out, NULL));
		char *want = xasprintf("<html>\n<head><title></title></head>\n<body>\n"
				       "  <main>\n    <p>%zu</p>\n  </main>\n</body>\n</html>\n",
				       i + 1);
		assert_string_equal(buf_data(&out), want);
		free(want);
		buf_free(&out);
		value_free(v);
	}
	assert_int_equal(p.loads, 1);
	mustache_free(m);
	value_free(pv);
}

static void blocks_reach_through_partials_of_the_parent(void **state)
{
	(void)state;
	/* A layout split into partials: the header's block is still filled. */
	assert_renders("{{<base}}{{$title}}Q1{{/title}}{{/base}}", "{}",
		       "{base: '{{>header}}<main/>', header: '<h1>{{$title}}Untitled{{/title}}</h1>'}",
		       "<h1>Q1</h1><main/>");
}

static void argument_renders_its_own_blocks_from_outside_only(void **state)
{
	(void)state;
	/* The inner {{$a}} is the argument's own parameter: it is not filled
	 * with the argument it is in, so this ends instead of recursing. */
	assert_renders("{{<p}}{{$a}}[{{$a}}x{{/a}}]{{/a}}{{/p}}", "{}", "{p: '{{$a}}-{{/a}}'}",
		       "[x]");
}

static void argument_lines_take_the_indentation_of_the_block(void **state)
{
	(void)state;
	/* The argument's own indentation goes; the block's is added to each
	 * of its lines, but not inside the data. */
	assert_renders("{{<list}}\n"
		       "  {{$items}}\n"
		       "    <li>{{x}}</li>\n"
		       "    <li>two</li>\n"
		       "  {{/items}}\n"
		       "{{/list}}\n",
		       "{x: \"a\\nb\"}", "{list: \"<ul>\\n  {{$items}}\\n  {{/items}}\\n</ul>\\n\"}",
		       "<ul>\n  <li>a\nb</li>\n  <li>two</li>\n</ul>\n");
}

static void missing_parent_renders_nothing(void **state)
{
	(void)state;
	assert_renders("[{{<nothere}}{{$a}}x{{/a}}{{/nothere}}]", "{}", "{}", "[]");
}

static void recursive_parent_stops_at_the_depth_limit(void **state)
{
	(void)state;
	struct value *pv = yaml("{loop: '{{<loop}}{{/loop}}'}");
	struct partials p = {pv, 0};
	struct capture c;
	cap_open(&c);
	const char *tpl = "{{<loop}}{{/loop}}";
	struct mustache *m = mustache_compile("page.html", tpl, strlen(tpl), c.d);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_false(mustache_render(m, NULL, load_partial, &p, &out, c.d));
	assert_int_equal(diag_errors(c.d), 1);
	buf_free(&out);
	mustache_free(m);
	char *diags = cap_take(&c);
	assert_string_equal(diags,
		"loop:1:1: error: parents nest more than 64 deep (does parent 'loop' include itself?)\n"
		"    1 | {{<loop}}{{/loop}}\n"
		"      | ^~~~~~~~~\n");
	free(diags);
	value_free(pv);
}

static void error_in_a_parent_names_the_parent_and_the_tag(void **state)
{
	(void)state;
	struct value *pv = yaml("{base: \"<main>\\n  {{$body}}\\n</main>\\n\"}");
	struct partials p = {pv, 0};
	const char *tpl = "{{<base}}\n{{$body}}x{{/body}}\n{{/base}}\n";
	struct capture c;
	cap_open(&c);
	diag_add_source(c.d, "page.html", tpl, strlen(tpl));
	struct mustache *m = mustache_compile("page.html", tpl, strlen(tpl), c.d);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_false(mustache_render(m, NULL, load_partial, &p, &out, c.d));
	buf_free(&out);
	mustache_free(m);
	char *diags = cap_take(&c);
	assert_string_equal(diags,
		"base:2:3: error: block 'body' is never closed (add {{/body}})\n"
		"    2 |   {{$body}}\n"
		"      |   ^~~~~~~~~\n"
		"page.html:1:1: note: in parent 'base' included here\n"
		"    1 | {{<base}}\n"
		"      | ^~~~~~~~~\n");
	free(diags);
	value_free(pv);
}

static void deep_nesting_is_refused_without_crashing(void **state)
{
	(void)state;
	struct buf tpl = BUF_INIT;
	for (int i = 0; i < 10000; i++)
		buf_puts(&tpl, "{{#a}}");
	struct capture c;
	cap_open(&c);
	assert_null(mustache_compile("deep.html", tpl.data, tpl.len, c.d));
	char *diags = cap_take(&c);
	/* The 101st section, at byte 600, is one too many. */
	assert_true(str_has_prefix(diags,
		"deep.html:1:601: error: sections nest more than 100 deep\n"));
	free(diags);
	buf_free(&tpl);
}

static void long_templates_compile_and_render_in_one_pass(void **state)
{
	(void)state;
	/* 100,000 lines, each a standalone section around a variable: any
	 * rescanning from the start per tag or per line would show here. */
	struct buf tpl = BUF_INIT;
	for (int i = 0; i < 100000; i++)
		buf_puts(&tpl, "  {{#a}}\n{{b}}{{! c }}\n  {{/a}}\n");
	struct value *v = yaml("{a: true, b: x}");
	struct mustache *m = mustache_compile("long.html", tpl.data, tpl.len, NULL);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_true(mustache_render(m, v, NULL, NULL, &out, NULL));
	assert_int_equal(out.len, 200000);
	buf_free(&out);
	mustache_free(m);
	value_free(v);
	buf_free(&tpl);
}

static void error_in_a_partial_names_the_partial_and_the_include(void **state)
{
	(void)state;
	struct value *pv = yaml("{body: \"<p>\\n{{#x}}\\n\"}");
	struct partials p = {pv, 0};
	const char *tpl = "<main>\n  {{>body}}\n</main>\n";
	struct capture c;
	cap_open(&c);
	diag_add_source(c.d, "page.html", tpl, strlen(tpl));
	struct mustache *m = mustache_compile("page.html", tpl, strlen(tpl), c.d);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_false(mustache_render(m, NULL, load_partial, &p, &out, c.d));
	/* Reported once: the next render fails without repeating it. */
	assert_false(mustache_render(m, NULL, load_partial, &p, &out, c.d));
	assert_int_equal(diag_errors(c.d), 1);
	buf_free(&out);
	mustache_free(m);
	char *diags = cap_take(&c);
	/* The column is the partial's own, without the indentation. */
	assert_string_equal(diags,
		"body:2:1: error: section 'x' is never closed (add {{/x}})\n"
		"    2 | {{#x}}\n"
		"      | ^~~~~~\n"
		"page.html:2:3: note: in partial 'body' included here\n"
		"    2 |   {{>body}}\n"
		"      |   ^~~~~~~~~\n");
	free(diags);
	value_free(pv);
}

static void compiling_without_a_diag_fails_quietly(void **state)
{
	(void)state;
	assert_null(mustache_compile("t.html", "{{#a}}", 6, NULL));
	/* No text at all is an empty template. */
	struct mustache *m = mustache_compile(NULL, NULL, 0, NULL);
	assert_non_null(m);
	struct buf out = BUF_INIT;
	assert_true(mustache_render(m, NULL, NULL, NULL, &out, NULL));
	assert_string_equal(buf_data(&out), "");
	buf_free(&out);
	mustache_free(m);
}

static void every_prefix_of_a_template_compiles_or_reports(void **state)
{
	(void)state;
	const char *tpl = "{{=<% %>=}}<%#a%>\n  <%> p %>\n<%{x}%><%/a%><%={{ }}=%>{{^b}}{{!c}}"
			  "{{{y}}}{{&z}}{{/b}}\r\n{{.}}";
	struct value *pv = yaml("{p: '{{#a}}{{.}}{{/a}}'}");
	struct value *v = yaml("{a: [1, {x: '<'}], b: false, y: '&'}");
	struct partials p = {pv, 0};
	for (size_t n = 0; n <= strlen(tpl); n++) {
		struct capture c;
		cap_open(&c);
		struct mustache *m = mustache_compile("t.html", tpl, n, c.d);
		assert_true(m != NULL || diag_errors(c.d) == 1);
		struct buf out = BUF_INIT;
		if (m)
			assert_true(mustache_render(m, v, load_partial, &p, &out, c.d));
		buf_free(&out);
		mustache_free(m);
		free(cap_take(&c));
	}
	value_free(pv);
	value_free(v);
}

static void every_prefix_of_an_inheriting_template_compiles_or_reports(void **state)
{
	(void)state;
	const char *tpl = "{{<base}} x\n  {{$a}}\n    <%y%>{{y}}\n  {{/a}}\n{{=<% %>=}}<%$b%>\r\n"
			  "<%<base%><%$c%>z<%/c%><%/base%><%/b%>\n<%/base%>\n  <%$c%>\n d\n<%/c%>";
	struct value *pv = yaml("{base: \"{{$a}}\\n  {{$c}}{{/c}}\\n{{/a}}|{{$b}}{{.}}{{/b}}\"}");
	struct value *v = yaml("{y: '<'}");
	struct partials p = {pv, 0};
	for (size_t n = 0; n <= strlen(tpl); n++) {
		struct capture c;
		cap_open(&c);
		struct mustache *m = mustache_compile("t.html", tpl, n, c.d);
		assert_true(m != NULL || diag_errors(c.d) == 1);
		struct buf out = BUF_INIT;
		if (m)
			assert_true(mustache_render(m, v, load_partial, &p, &out, c.d));
		buf_free(&out);
		mustache_free(m);
		free(cap_take(&c));
	}
	value_free(pv);
	value_free(v);
}

static void free_null_does_nothing(void **state)
{
	(void)state;
	mustache_free(NULL);
	struct buf out = BUF_INIT;
	assert_false(mustache_render(NULL, NULL, NULL, NULL, &out, NULL));
	buf_free(&out);
}

/* The spec's test cases.  Each module is a YAML file with a list of
 * cases: name, desc, data, template, expected and maybe partials. */

/* Every module the engine implements, the optional inheritance one
 * included. */
static const struct {
	const char *name;
} spec_modules[] = {
	{"comments"},
	{"delimiters"},
	{"interpolation"},
	{"inverted"},
	{"partials"},
	{"sections"},
	{"~inheritance"},
};

struct spec_case {
	size_t module;             /* index into spec_modules */
	const struct value *test;  /* borrowed from the module's document */
	const char *problem;       /* set: the module did not load */
	bool passed;
};

struct spec {
	const char *dir;
	bool missing;
	char *paths[ARRAY_LEN(spec_modules)];
	struct value *docs[ARRAY_LEN(spec_modules)];
	char *problems[ARRAY_LEN(spec_modules)];
	struct spec_case *cases;
	size_t ncases;
	char **names;
};

static const char *field_text(const struct value *test, const char *key, struct buf *b)
{
	buf_clear(b);
	value_put_text(b, value_get(test, key));
	return buf_data(b);
}

static void spec_case_passes(void **state)
{
	struct spec_case *sc = *state;
	if (sc->problem) {
		print_error("%s\n", sc->problem);
		fail();
	}
	struct buf tpl = BUF_INIT, want = BUF_INIT, got = BUF_INIT, desc = BUF_INIT;
	field_text(sc->test, "template", &tpl);
	field_text(sc->test, "expected", &want);
	field_text(sc->test, "desc", &desc);
	struct partials p = {value_get(sc->test, "partials"), 0};

	struct capture c;
	cap_open(&c);
	diag_add_source(c.d, "template", buf_data(&tpl), tpl.len);
	struct mustache *m = mustache_compile("template", tpl.data ? tpl.data : "", tpl.len, c.d);
	bool ok = m && mustache_render(m, value_get(sc->test, "data"), load_partial, &p, &got, c.d);
	mustache_free(m);
	char *diags = cap_take(&c);
	ok = ok && got.len == want.len && memcmp(buf_data(&got), buf_data(&want), got.len) == 0;
	if (!ok)
		print_error("%s\ntemplate: [%s]\nexpected: [%s]\nrendered: [%s]\n%s", buf_data(&desc),
			    buf_data(&tpl), buf_data(&want), buf_data(&got), diags);
	free(diags);
	buf_free(&tpl);
	buf_free(&want);
	buf_free(&got);
	buf_free(&desc);
	assert_true(ok);
	sc->passed = true;
}

static void spec_folder_is_missing(void **state)
{
	(void)state;
	skip();
}

static void spec_add_case(struct spec *s, size_t module, const struct value *test,
			  const char *problem)
{
	s->cases = xrealloc(s->cases, (s->ncases + 1) * sizeof *s->cases);
	struct spec_case *sc = &s->cases[s->ncases++];
	sc->module = module;
	sc->test = test;
	sc->problem = problem;
	sc->passed = false;
}

static void spec_load(struct spec *s)
{
	if (!is_dir(s->dir)) {
		s->missing = true;
		return;
	}
	for (size_t i = 0; i < ARRAY_LEN(spec_modules); i++) {
		char *file = xasprintf("%s.yml", spec_modules[i].name);
		s->paths[i] = path_join(s->dir, file);
		free(file);
		struct buf text = BUF_INIT;
		if (!file_read(s->paths[i], &text, NULL)) {
			s->problems[i] = xasprintf("%s: cannot read the spec module", s->paths[i]);
			spec_add_case(s, i, NULL, s->problems[i]);
			buf_free(&text);
			continue;
		}
		/* Problems go to stderr, and the module's one test fails. */
		struct diag *d = diag_new(stderr, DIAG_TEXT, false);
		s->docs[i] = yamldoc_parse(buf_data(&text), text.len, s->paths[i], 0, d);
		diag_free(d);
		buf_free(&text);
		const struct value *tests = value_get(s->docs[i], "tests");
		if (!s->docs[i]) {
			s->problems[i] = xasprintf("%s: the spec module does not parse", s->paths[i]);
			spec_add_case(s, i, NULL, s->problems[i]);
			continue;
		}
		if (!tests || tests->kind != VALUE_LIST) {
			s->problems[i] = xasprintf("%s: no list of tests in it", s->paths[i]);
			spec_add_case(s, i, NULL, s->problems[i]);
			continue;
		}
		for (size_t j = 0; j < tests->count; j++)
			spec_add_case(s, i, tests->items[j], NULL);
	}
}

static void spec_free(struct spec *s)
{
	for (size_t i = 0; i < ARRAY_LEN(spec_modules); i++) {
		value_free(s->docs[i]);
		free(s->paths[i]);
		free(s->problems[i]);
	}
	if (s->names)
		for (size_t i = 0; i < s->ncases; i++)
			free(s->names[i]);
	free(s->names);
	free(s->cases);
}

int main(void)
{
	static const struct CMUnitTest unit[] = {
		cmocka_unit_test(renders_text_without_tags_unchanged),
		cmocka_unit_test(interpolates_a_name_from_the_data),
		cmocka_unit_test(escapes_html_in_double_braces),
		cmocka_unit_test(triple_braces_and_ampersand_do_not_escape),
		cmocka_unit_test(numbers_interpolate_in_their_shortest_form),
		cmocka_unit_test(booleans_interpolate_as_words),
		cmocka_unit_test(null_and_missing_names_render_nothing),
		cmocka_unit_test(lists_and_maps_interpolate_as_nothing),
		cmocka_unit_test(dotted_names_reach_into_maps),
		cmocka_unit_test(dotted_name_resolves_only_its_first_part_up_the_stack),
		cmocka_unit_test(dotted_name_is_never_a_single_key),
		cmocka_unit_test(implicit_iterator_is_the_current_item),
		cmocka_unit_test(names_are_found_up_the_context_stack),
		cmocka_unit_test(section_repeats_for_each_list_item),
		cmocka_unit_test(section_over_a_map_renders_once_with_the_map_on_top),
		cmocka_unit_test(section_over_a_truthy_scalar_renders_once),
		cmocka_unit_test(falsy_values_skip_a_section),
		cmocka_unit_test(inverted_section_renders_only_when_falsy),
		cmocka_unit_test(comments_render_nothing),
		cmocka_unit_test(set_delimiters_change_the_tag_syntax),
		cmocka_unit_test(standalone_tags_drop_their_whole_line),
		cmocka_unit_test(inline_tags_keep_their_line),
		cmocka_unit_test(partial_renders_in_the_current_context),
		cmocka_unit_test(missing_partial_renders_nothing),
		cmocka_unit_test(standalone_partial_indents_each_line_of_its_source),
		cmocka_unit_test(partials_are_loaded_once_per_indentation),
		cmocka_unit_test(compiled_template_renders_many_times),
		cmocka_unit_test(render_appends_to_the_output),
		cmocka_unit_test(text_with_nul_bytes_is_kept),
		cmocka_unit_test(recursive_partial_stops_at_the_depth_limit),
		cmocka_unit_test(a_prepared_template_renders_without_loading),
		cmocka_unit_test(a_template_with_a_bad_partial_is_not_prepared),
		cmocka_unit_test(unclosed_section_reports_line_and_column),
		cmocka_unit_test(unclosed_inner_section_is_the_one_reported),
		cmocka_unit_test(mismatched_close_reports_both_tags),
		cmocka_unit_test(close_without_open_reports_line_and_column),
		cmocka_unit_test(unterminated_tag_reports_line_and_column),
		cmocka_unit_test(unterminated_triple_mustache_names_its_closer),
		cmocka_unit_test(empty_tag_name_reports_line_and_column),
		cmocka_unit_test(tag_name_with_a_space_is_an_error),
		cmocka_unit_test(set_delimiter_tag_needs_two_delimiters),
		cmocka_unit_test(errors_show_tags_with_the_current_delimiters),
		cmocka_unit_test(unclosed_block_reports_line_and_column),
		cmocka_unit_test(unclosed_parent_reports_line_and_column),
		cmocka_unit_test(block_closed_by_its_parent_reports_both_tags),
		cmocka_unit_test(block_and_parent_names_follow_the_tag_rules),
		cmocka_unit_test(page_fills_the_blocks_of_a_base_layout),
		cmocka_unit_test(blocks_not_filled_render_their_defaults),
		cmocka_unit_test(parent_is_loaded_and_compiled_once),
		cmocka_unit_test(blocks_reach_through_partials_of_the_parent),
		cmocka_unit_test(argument_renders_its_own_blocks_from_outside_only),
		cmocka_unit_test(argument_lines_take_the_indentation_of_the_block),
		cmocka_unit_test(missing_parent_renders_nothing),
		cmocka_unit_test(recursive_parent_stops_at_the_depth_limit),
		cmocka_unit_test(error_in_a_parent_names_the_parent_and_the_tag),
		cmocka_unit_test(deep_nesting_is_refused_without_crashing),
		cmocka_unit_test(long_templates_compile_and_render_in_one_pass),
		cmocka_unit_test(error_in_a_partial_names_the_partial_and_the_include),
		cmocka_unit_test(compiling_without_a_diag_fails_quietly),
		cmocka_unit_test(every_prefix_of_a_template_compiles_or_reports),
		cmocka_unit_test(every_prefix_of_an_inheriting_template_compiles_or_reports),
		cmocka_unit_test(free_null_does_nothing),
	};

	struct spec s = {0};
	s.dir = getenv("MUSTACHE_SPEC_DIR");
	if (!s.dir || !*s.dir)
		s.dir = "../shared/testdata/mustache-spec";
	spec_load(&s);

	/* One group, so that the runner's totals count every test. */
	size_t n = ARRAY_LEN(unit) + (s.missing ? 1 : s.ncases);
	struct CMUnitTest *tests = xcalloc(n, sizeof *tests);
	memcpy(tests, unit, sizeof unit);
	size_t k = ARRAY_LEN(unit);
	if (s.missing) {
		printf("mustache spec: %s not found; spec cases skipped\n", s.dir);
		tests[k].name = "mustache spec cases (folder not found)";
		tests[k].test_func = spec_folder_is_missing;
	} else {
		s.names = xcalloc(s.ncases ? s.ncases : 1, sizeof *s.names);
		for (size_t i = 0; i < s.ncases; i++, k++) {
			struct spec_case *sc = &s.cases[i];
			const struct value *name = value_get(sc->test, "name");
			s.names[i] = xasprintf("spec %s: %s", spec_modules[sc->module].name,
					       name && name->text ? name->text : "loads");
			tests[k].name = s.names[i];
			tests[k].test_func = spec_case_passes;
			tests[k].initial_state = sc;
		}
	}
	int failed = _cmocka_run_group_tests("mustache", tests, n, NULL, NULL);

	for (size_t i = 0; !s.missing && i < ARRAY_LEN(spec_modules); i++) {
		size_t run = 0, passed = 0;
		for (size_t j = 0; j < s.ncases; j++) {
			if (s.cases[j].module != i)
				continue;
			run++;
			passed += s.cases[j].passed;
		}
		printf("mustache spec: %s: %zu cases, %zu passed, %zu failed\n",
		       spec_modules[i].name, run, passed, run - passed);
	}
	free(tests);
	spec_free(&s);
	return failed;
}
