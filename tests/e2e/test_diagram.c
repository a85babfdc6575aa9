/* test_diagram.c: ```dot fences (resolve/diagram.h): the figure in the
 * page (inline SVG, its node labels as text, a value in a label linked
 * to its line), numbered with the charts and referenced, the PDF's text,
 * and each bad input's one diagnostic: a DOT syntax error at its line
 * and column in the .md (in a list item too), an unknown fence
 * attribute, a file-reading attribute, <IMG>, a script URL, a value
 * outside a string, a graph over limit dot_nodes (refused at once,
 * before any layout), and Graphviz's warnings as warnings, never on
 * stderr of their own.
 *
 * The log is the seed Cerebras log tests/fixtures/cerebras/bs512.log:
 * its final loss, 7.12500, is on line 53. */
#define _DEFAULT_SOURCE /* wait4(), setgroups(), usleep() in bounded.h */
#include "e2e.h"

#include <grp.h>

#include "bounded.h"

static char *project;

static int cleanup(void **state)
{
	(void)state;
	e2e_free_kept();
	e2e_drop(&project);
	return 0;
}

static void make_project(const char *md)
{
	char *text = xasprintf("---\ntitle: D\nruns:\n  cs: logs/bs512.log\n---\n%s", md);
	project = e2e_project(E2E_FILES(E2E_COPY("content/r/logs/bs512.log",
						 "tests/fixtures/cerebras/bs512.log"),
					E2E_TEXT("content/r/index.md", text)));
	free(text);
}

/* The body of the report built from md (which must build cleanly). */
static const char *body_of(const char *md)
{
	make_project(md);
	return e2e_keep(e2e_build_body(project, ""));
}

/* stderr of a build of md that fails (exit 1). */
static const char *errors_of(const char *md)
{
	make_project(md);
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 1);
	return r.err;
}

static const char *const flow =
	"See @fig-flow.\n"
	"\n"
	"```dot {#fig-flow caption=\"The loss path, final loss {{ cs.final_loss :.2f }}\"}\n"
	"digraph {\n"
	"  log -> parser [label=\"loss {{ cs.final_loss :.3f }}\"]\n"
	"  parser -> report\n"
	"}\n"
	"```\n";

static void a_diagram_is_a_figure_with_inline_svg(void **state)
{
	(void)state;
	const char *body = body_of(flow);
	assert_contains(body, "<p>See <a class=\"ld-ref\" href=\"#fig-flow\">Figure 1</a>.</p>\n"
			      "<figure class=\"ld-figure ld-diagram\" id=\"fig-flow\">"
			      "<div class=\"ld-diagram-box\" style=\"--ld-min: ");
	/* no narrower than where its 14-px text would be 9 px: 9/14 of it */
	assert_contains(body, "<div class=\"ld-diagram-box\" style=\"--ld-min: 78px\">\n"
			      "<svg width=\"121\" height=\"204\"\n viewBox=");
	/* the node labels are text, in the page's colour */
	assert_contains(body, "fill=\"currentColor\">log</text>");
	assert_contains(body, "fill=\"currentColor\">parser</text>");
	assert_contains(body, "fill=\"currentColor\">report</text>");
	assert_contains(body, "font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"14.00\"");
	/* no prolog, comments, titles or ids that could clash */
	assert_not_contains(body, "<?xml");
	assert_not_contains(body, "<!--");
	assert_not_contains(body, "<title>");
	assert_not_contains(body, "id=\"node1\"");
	assert_contains(body, "</svg>\n</div><figcaption>Figure 1: The loss path, final loss "
			      "<a class=\"ld-value\" href=\"logs/bs512.log.html#L53.1\"");
	assert_contains(body, ">7.12</a></figcaption></figure>\n");
}

/* {{ }} in a label: the value's text, and the label links to its line. */
static void a_value_in_a_label_is_shown_and_linked(void **state)
{
	(void)state;
	const char *body = body_of(flow);
	assert_contains(body, "<g><a xlink:href=\"logs/bs512.log.html#L53.1\" "
			      "xlink:title=\"content/r/logs/bs512.log:53\">\n");
	assert_contains(body, "fill=\"currentColor\">loss 7.125</text>\n</a>");
}

/* The default colour is the page's text (currentColor); text on a fill
 * stays dark in both schemes, as do the defaults on the author's own
 * background; colours the author wrote stay as written. */
static void colours_follow_the_page_and_fills(void **state)
{
	(void)state;
	const char *body = body_of("```dot\n"
				   "digraph { a [style=filled]; b [color=red, fontcolor=blue]; a -> b }\n"
				   "```\n"
				   "\n"
				   "```dot\n"
				   "digraph { bgcolor=lightyellow; c -> d }\n"
				   "```\n"
				   "\n"
				   "Loss {{ cs.final_loss }}.\n");
	assert_contains(body, "<ellipse fill=\"lightgrey\" stroke=\"currentColor\"");
	assert_contains(body, "fill=\"#1c2128\">a</text>");
	assert_contains(body, "<ellipse fill=\"none\" stroke=\"red\"");
	assert_contains(body, "fill=\"blue\">b</text>");
	assert_contains(body, "<path fill=\"none\" stroke=\"currentColor\"");
	assert_contains(body, "<polygon fill=\"lightyellow\" stroke=\"transparent\"");
	assert_contains(body, "fill=\"#1c2128\">c</text>");
}

/* Charts and diagrams are one sequence of figures. */
static void diagrams_and_charts_share_the_numbers(void **state)
{
	(void)state;
	const char *body = body_of("```{chart}\n"
				   "type: bar\n"
				   "caption: Loss\n"
				   "label: fig-loss\n"
				   "series: [cs]\n"
				   "y: final_loss\n"
				   "```\n"
				   "\n"
				   "```{.dot #fig-path caption=\"Path\"}\n"
				   "digraph { a -> b }\n"
				   "```\n"
				   "\n"
				   "```graphviz\n"
				   "graph { x -- y }\n"
				   "```\n"
				   "\n"
				   "@fig-loss and @fig-path.\n");
	assert_contains(body, "<figcaption>Figure 2: Path</figcaption>");
	assert_contains(body, "<a class=\"ld-ref\" href=\"#fig-loss\">Figure 1</a> and "
			      "<a class=\"ld-ref\" href=\"#fig-path\">Figure 2</a>.");
	/* unlabelled and uncaptioned: a drawing, no number */
	assert_contains(body, "<figure class=\"ld-figure ld-diagram\"><div class=\"ld-diagram-box\" "
			      "style=\"--ld-min: ");
	assert_contains(body, "fill=\"currentColor\">y</text>");
}

static void the_pdf_has_the_labels_and_the_caption(void **state)
{
	(void)state;
	int have;
	free(e2e_sh(&have, "command -v pdftotext"));
	if (have != 0) {
		print_message("poppler-utils is missing: skipped\n");
		skip();
	}
	make_project(flow);
	struct proc r = e2e_keep_proc(e2e_run(project, "pdf"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	int st;
	char *t = e2e_keep(e2e_sh(&st, "pdftotext -enc UTF-8 '%s/_site/r/report.pdf' -", project));
	assert_int_equal(st, 0);
	assert_contains(t, "log\n");
	assert_contains(t, "parser\n");
	assert_contains(t, "report\n");
	assert_contains(t, "loss 7.125\n");
	assert_contains(t, "Figure 1: The loss path, final loss 7.12\n");
}

static void a_syntax_error_is_at_its_line(void **state)
{
	(void)state;
	const char *err = errors_of("Text.\n"
				    "\n"
				    "```dot\n"
				    "digraph {\n"
				    "  a -> b\n"
				    "  b -> ;\n"
				    "}\n"
				    "```\n"
				    "\n"
				    "- In a list:\n"
				    "\n"
				    "  ```dot\n"
				    "  digraph {\n"
				    "    a -> ]\n"
				    "  }\n"
				    "  ```\n");
	assert_string_equal(err, "content/r/index.md:11:8: error: DOT syntax error near ';'\n"
				 "   11 |   b -> ;\n"
				 "      |        ^\n"
				 "content/r/index.md:19:10: error: DOT syntax error near ']'\n"
				 "   19 |     a -> ]\n"
				 "      |          ^\n"
				 "logdown: 2 errors; the previous output was left as it was\n");
}

static void fence_attributes_are_checked(void **state)
{
	(void)state;
	const char *err = errors_of("```dot {#fig-a captoin=\"x\"}\n"
				    "digraph { a }\n"
				    "```\n"
				    "\n"
				    "```dot {#tbl-b}\n"
				    "digraph { b }\n"
				    "```\n"
				    "\n"
				    "```dot\n"
				    "```\n");
	assert_string_equal(err, "content/r/index.md:6:16: error: a diagram has no attribute "
				 "'captoin' (did you mean 'caption'?)\n"
				 "    6 | ```dot {#fig-a captoin=\"x\"}\n"
				 "      |                ^~~~~~~~~~~\n"
				 "content/r/index.md:10:9: error: a diagram's label is {#fig-NAME} "
				 "(letters, digits, '-' and '_'), e.g. {#fig-pipeline}\n"
				 "   10 | ```dot {#tbl-b}\n"
				 "      |         ^~~~~~\n"
				 "content/r/index.md:14:4: error: this diagram is empty: write a graph, "
				 "e.g. digraph { a -> b }\n"
				 "   14 | ```dot\n"
				 "      |    ^~~\n"
				 "logdown: 3 errors; the previous output was left as it was\n");
}

/* A report may come from someone else: no attribute that reads a file,
 * no <IMG> in an HTML label, no script URL. */
static void reading_files_is_refused(void **state)
{
	(void)state;
	const char *err = errors_of("```dot\n"
				    "digraph {\n"
				    "  a [image=\"/etc/passwd\"]\n"
				    "  b [shape=epsf, shapefile=\"/etc/passwd\"]\n"
				    "  c [label=<<IMG SRC=\"/etc/hostname\"/>>]\n"
				    "  d [URL=\"javascript:alert(1)\"]\n"
				    "  graph [fontpath=\"/etc\"]\n"
				    "}\n"
				    "```\n");
	assert_string_equal(err,
			    "content/r/index.md:8:6: error: a diagram may not set 'image': it would "
			    "read a file\n"
			    "    8 |   a [image=\"/etc/passwd\"]\n"
			    "      |      ^~~~~\n"
			    "content/r/index.md:9:18: error: a diagram may not set 'shapefile': it "
			    "would read a file\n"
			    "    9 |   b [shape=epsf, shapefile=\"/etc/passwd\"]\n"
			    "      |                  ^~~~~~~~~\n"
			    "content/r/index.md:10:13: error: <IMG> in a diagram's HTML label would "
			    "read a file: not allowed in a report\n"
			    "   10 |   c [label=<<IMG SRC=\"/etc/hostname\"/>>]\n"
			    "      |             ^~~~\n"
			    "content/r/index.md:11:6: error: URL leads to a 'javascript:' URL, which "
			    "would run script: not allowed\n"
			    "   11 |   d [URL=\"javascript:alert(1)\"]\n"
			    "      |      ^~~\n"
			    "content/r/index.md:12:10: error: a diagram may not set 'fontpath': it "
			    "would read a file\n"
			    "   12 |   graph [fontpath=\"/etc\"]\n"
			    "      |          ^~~~~~~~\n"
			    "logdown: 5 errors; the previous output was left as it was\n");
}

static void a_value_outside_a_string_is_an_error(void **state)
{
	(void)state;
	const char *err = errors_of("```dot\n"
				    "digraph { a -> b [label={{ cs.final_loss }}] }\n"
				    "```\n");
	assert_string_equal(err, "content/r/index.md:7:25: error: a value in a diagram goes inside "
				 "a quoted string: label=\"{{ cs.final_loss }}\"\n"
				 "    7 | digraph { a -> b [label={{ cs.final_loss }}] }\n"
				 "      |                         ^~~~~~~~~~~~~~~~~~~\n"
				 "logdown: 1 error; the previous output was left as it was\n");
}

/* Graphviz's own warnings come through logdown, at the fence. */
static void graphviz_warnings_are_diagnostics(void **state)
{
	(void)state;
	make_project("```dot\ndigraph { a [shape=nonsense, label=\"{{ cs.final_loss }}\"] }\n```\n");
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "content/r/index.md:6:4: warning: Graphviz: using box for "
				   "unknown shape nonsense\n"
				   "    6 | ```dot\n"
				   "      |    ^~~\n"
				   "logdown: built 1 report into _site\n");
}

/* 100,000 nodes: refused by limit dot_nodes before any layout, at once
 * (dot would take hours). */
static void a_huge_graph_is_refused_at_once(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		printf("a_huge_graph_is_refused_at_once: times logdown, not valgrind; skipped\n");
		skip();
	}
	struct buf md = BUF_INIT;
	buf_puts(&md, "```dot\ndigraph {\n");
	for (int i = 0; i < 100000; i++)
		buf_printf(&md, "n%d -> n%d\n", i, i + 1);
	buf_puts(&md, "}\n```\n");
	make_project(buf_data(&md));
	buf_free(&md);
	const char *argv[] = {"logdown", "build", NULL};
	struct bounded r = bounded_run(e2e_binary(), project, argv, NULL, 60);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "content/r/index.md:6:4: error: this diagram has 100001 nodes "
				   "and 100000 edges, more than the 2000 a diagram may have (limit "
				   "dot_nodes: raise it with limits: in site.yaml or "
				   "LOGDOWN_LIMIT_DOT_NODES)\n"
				   "    6 | ```dot\n"
				   "      |    ^~~\n"
				   "logdown: 1 error; the previous output was left as it was\n");
	if (r.cpu_secs > 20)
		fail_msg("refusing 100,000 nodes took %.1f s of CPU", r.cpu_secs);
	bounded_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_diagram_is_a_figure_with_inline_svg, cleanup),
		cmocka_unit_test_teardown(a_value_in_a_label_is_shown_and_linked, cleanup),
		cmocka_unit_test_teardown(colours_follow_the_page_and_fills, cleanup),
		cmocka_unit_test_teardown(diagrams_and_charts_share_the_numbers, cleanup),
		cmocka_unit_test_teardown(the_pdf_has_the_labels_and_the_caption, cleanup),
		cmocka_unit_test_teardown(a_syntax_error_is_at_its_line, cleanup),
		cmocka_unit_test_teardown(fence_attributes_are_checked, cleanup),
		cmocka_unit_test_teardown(reading_files_is_refused, cleanup),
		cmocka_unit_test_teardown(a_value_outside_a_string_is_an_error, cleanup),
		cmocka_unit_test_teardown(graphviz_warnings_are_diagnostics, cleanup),
		cmocka_unit_test_teardown(a_huge_graph_is_refused_at_once, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
