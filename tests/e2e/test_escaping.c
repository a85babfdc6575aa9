/* test_escaping.c: hostile text rendered inert wherever it lands.
 *
 * One project carries the same payload, which closes a tag, breaks out
 * of either kind of attribute quote and opens a script, in every place a
 * string can come from: log text and captured values, front matter, a
 * caption, a column header, a chart title and legend, a tooltip, a file
 * name; and javascript: URLs written by the author or made by a value. */
#define _GNU_SOURCE /* memmem() */
#include "e2e.h"

#define X "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
/* X as it must appear in HTML text and attribute values */
#define XE                                                                                  \
	"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x "                 \
	"onerror=alert(2)&gt;"
/* X as a log page writes it in element text, where quotes are inert */
#define XT "&lt;script&gt;alert(1)&lt;/script&gt;\"'&gt;&lt;img src=x onerror=alert(2)&gt;"
/* XT coloured as a log (a number in its own span) */
#define XTC                                                                                 \
	"&lt;script&gt;alert(<span class=\"hl-number\">1</span>)&lt;/script&gt;\"'&gt;&lt;img " \
	"src=x onerror=alert(<span class=\"hl-number\">2</span>)&gt;"
/* X inside a single-quoted YAML scalar */
#define XY "<script>alert(1)</script>\"''><img src=x onerror=alert(2)>"

static const char parser_t[] = "name: t\n"
			       "fields:\n"
			       "  final_loss: 'Loss=([\\d.]+)'\n"
			       "  tag: 'Tag=(.*)'\n"
			       "  url: 'Url=(.*)'\n"
			       "  vb: 'Vb=(.*)'\n"
			       "  dt: 'Dt=(.*)'\n"
			       "series:\n"
			       "  train: 'Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+), Who=(?<who>.*)'\n"
			       "derive:\n"
			       "  twice: final_loss * 2\n";

static const char log_text[] = "Tag=" X "\n"
			       "Step=1, Loss=2.5, Who=" X "\n"
			       "Step=2, Loss=1.5, Who=" X "\n"
			       "Url=javascript:alert(9)\n"
			       "Vb=VBScript:msgbox(1)\n"
			       "Dt=data:text/html,x\n";

static const char report[] =
	"---\n"
	"title: '" XY "'\n"
	"author: '" XY "'\n"
	"summary: '" XY "'\n"
	"runs:\n"
	"  a: { file: 'logs/a\"<b>.log', parser: t }\n"
	"---\n"
	"Tag {{ a.tag }} twice {{ a.twice }} file {{ a.file }}\n"
	"\n"
	"[click](javascript:alert(3)) [c2](JaVaScRiPt:alert(4)) ![img](javascript:alert(5)) "
	"[d](data:text/html,x) <javascript:alert(7)> [v](vbscript:x) [f](file:///etc/passwd) "
	"![ok](data:image/png;base64,AAAA) [web](https://example.org/?q=\"x\")\n"
	"\n"
	"[tagged]({{ a.url }}) [fine](https://example.org/{{ a.url }})\n"
	"\n"
	"<a href='{{ a.url }}'>sq</a> <a href={{ a.url }}>uq</a> "
	"<button formaction=\"{{ a.url }}\">fa</button> <a title={{ a.tag }}>tt</a> "
	"<img src = {{ a.url }} alt=x> <a onclick=\"f('{{ a.tag }}')\">oc</a> "
	"<a href=' {{ a.url }}'>sp</a> <svg><a xlink:href={{ a.url }}>xl</a></svg> "
	"<video poster='{{ a.url }}'></video> <form action={{ a.url }}></form> "
	"<a href='{{ a.vb }}'>vb</a> <object data={{ a.dt }}></object> <svg><a><set "
	"attributeName=href to={{ a.url }} /><animate attributeName=href values=\"x; {{ a.url }}\" "
	"/>an</a></svg>\n"
	"\n"
	"```{table}\n"
	"caption: 'cap " XY " {{ a.tag }}'\n"
	"rows: a.train\n"
	"columns:\n"
	"  '" XY "': who\n"
	"  Loss: loss\n"
	"```\n"
	"\n"
	"```{chart}\n"
	"type: line\n"
	"title: '" XY "'\n"
	"caption: 'chart " XY "'\n"
	"label: fig-x\n"
	"series: a\n"
	"x: train.step\n"
	"y: train.loss\n"
	"legend: '{{ tag }}'\n"
	"x_label: '" XY "'\n"
	"```\n"
	"\n"
	"```{log}\n"
	"from: a\n"
	"match: 'Tag'\n"
	"```\n"
	"\n"
	"<div title=x {{ a.tag }}>hb</div>\n"
	"\n"
	"<div>\n"
	"<{{ a.tag }}>tn\n"
	"</div>\n";

static char *project;
static char *page, *index_page, *log_page, *svg;
static struct proc build;

static int setup(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(E2E_TEXT("parsers/t.yaml", parser_t),
					E2E_TEXT("content/r/logs/a\"<b>.log", log_text),
					E2E_TEXT("content/r/index.md", report),
					/* a report whose file name is the payload's
					 * gentler cousin */
					E2E_TEXT("content/q\"'<b>.md", "Untitled.\n")));
	build = e2e_run(project, "build");
	page = e2e_read(project, "_site/r/index.html");
	index_page = e2e_read(project, "_site/index.html");
	log_page = e2e_read(project, "_site/r/logs/a\"<b>.log.html");
	svg = e2e_read(project, "_site/r/figures/fig-x.svg");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(page);
	free(index_page);
	free(log_page);
	free(svg);
	proc_free(&build);
	remove_tree(project);
	free(project);
	return 0;
}

static void the_build_succeeds_with_a_warning_per_inert_link(void **state)
{
	(void)state;
	assert_int_equal(build.status, 0);
	assert_contains(build.err, "content/r/index.md:10:1: warning: link to a 'javascript:' URL "
				   "made inert: it would run script\n");
	assert_contains(build.err, "content/r/index.md:10:30: warning: link to a 'JaVaScRiPt:' URL "
				   "made inert: it would run script\n");
	assert_contains(build.err, "content/r/index.md:10:56: warning: image to a 'javascript:' "
				   "URL made inert: it would run script\n");
	assert_contains(build.err, "warning: link to a 'data:' URL made inert");
	assert_contains(build.err, "warning: link to a 'vbscript:' URL made inert");
	assert_contains(build.err, "warning: link to a 'file:' URL made inert");
	assert_contains(build.err, "content/r/index.md:12:10: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	/* in raw HTML too, whatever the quotes and the URL attribute */
	assert_contains(build.err, "content/r/index.md:14:10: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	assert_contains(build.err, "content/r/index.md:14:38: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	assert_contains(build.err, "content/r/index.md:14:77: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	assert_contains(build.err, "content/r/index.md:14:141: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	/* a leading blank is not part of the scheme the message names */
	for (size_t i = 0; i < 4; i++) {
		static const char *const cols[] = {"207", "246", "286", "321"};
		char *want = xasprintf("content/r/index.md:14:%s: warning: this value makes a "
				       "link's URL a 'javascript:' one: the link is made inert\n",
				       cols[i]);
		assert_contains(build.err, want);
		free(want);
	}
	/* SVG animation setting an href: to=, and any of values= */
	assert_contains(build.err, "content/r/index.md:14:438: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	assert_contains(build.err, "content/r/index.md:14:491: warning: this value makes a link's "
				   "URL a 'javascript:' one: the link is made inert\n");
	/* a value where a tag's attributes or name go, in an HTML block */
	assert_contains(build.err, "content/r/index.md:41:14: warning: a value cannot stand in a "
				   "tag outside an attribute's value (it would become attributes): "
				   "left out (write name=\"{{ ... }}\")\n");
	assert_contains(build.err, "content/r/index.md:44:2: warning: a value cannot stand in a "
				   "tag outside an attribute's value (it would become attributes): "
				   "left out (write name=\"{{ ... }}\")\n");
	/* vbscript: and data: as in a Markdown link */
	assert_contains(build.err, "content/r/index.md:14:350: warning: this value makes a link's "
				   "URL a 'VBScript:' one: the link is made inert\n");
	assert_contains(build.err, "content/r/index.md:14:382: warning: this value makes a link's "
				   "URL a 'data:' one: the link is made inert\n");
	/* an event handler: HTML escaping cannot keep a value inside the
	 * script's string (the browser decodes &#39; before running it) */
	assert_contains(build.err, "content/r/index.md:14:175: warning: a value in the event "
				   "handler 'onclick' would be script: the attribute is emptied (show "
				   "the value in the page's text instead)\n");
	assert_contains(build.err, "logdown: built 2 reports into _site\n");
	assert_not_contains(build.err, "'https:'");
	assert_not_contains(build.err, "image to a 'data:'");
}

/* The page with the theme's one script, the search box's, taken out
 * (it must be there, once); caller frees. */
static char *without_search_script(const char *html, const char *root)
{
	char *tag = xasprintf("<script src=\"%sstatic/search.js\" defer></script>\n", root);
	const char *at = strstr(html, tag);
	assert_non_null(at);
	char *rest = xasprintf("%.*s%s", (int)(at - html), html, at + strlen(tag));
	free(tag);
	return rest;
}

static void nothing_executable_reaches_any_page(void **state)
{
	(void)state;
	char *own[] = {without_search_script(page, "../"), without_search_script(index_page, "")};
	const char *pages[] = {own[0], own[1], log_page, svg};
	for (size_t i = 0; i < ARRAY_LEN(pages); i++) {
		assert_non_null(pages[i]);
		/* the one script is the theme's Copy button (static/copy.js) */
		for (const char *q = strstr(pages[i], "<script"); q; q = strstr(q + 1, "<script"))
			if (strncmp(q, "<script src=\"../static/copy.js\" defer></script>",
				    strlen("<script src=\"../static/copy.js\" defer></script>")) != 0)
				fail_msg("a script on a page: %.80s", q);
		assert_not_contains(pages[i], "<img src=x");
		assert_not_contains(pages[i], "href=\"javascript");
		assert_not_contains(pages[i], "src=\"javascript");
		assert_not_contains(pages[i], "href=\"data:text");
	}
	free(own[0]);
	free(own[1]);
}

static void front_matter_strings_are_escaped(void **state)
{
	(void)state;
	assert_contains(page, "<title>" XE " \xE2\x80\x94 Reports</title>");
	assert_contains(page, "<meta name=\"author\" content=\"" XE "\">");
	assert_contains(page, "<meta name=\"description\" content=\"" XE "\">");
	assert_contains(page, "<h1 class=\"ld-title\">" XE "</h1>");
	assert_contains(page, "<span class=\"ld-author\">" XE "</span>");
	assert_contains(page, "<p class=\"ld-summary\">" XE "</p>");
	assert_contains(index_page, "<a href=\"r/index.html\">" XE "</a>");
	assert_contains(index_page, "<p class=\"ld-entry-summary\">" XE "</p>");
}

static void captured_values_file_names_and_tooltips_are_escaped(void **state)
{
	(void)state;
	/* the value, its link to the log page (percent-encoded) and its
	 * tooltip (the file name, entity-encoded) */
	assert_contains(page, "Tag <a class=\"ld-value\" href=\"logs/a%22%3Cb%3E.log.html#L1.1\" "
			      "title=\"content/r/logs/a&quot;&lt;b&gt;.log:1\">" XE "</a>");
	/* a computed value names its inputs in a tooltip */
	assert_contains(page, "twice <span class=\"ld-value\" title=\"final_loss = 1.5 "
			      "(content/r/logs/a&quot;&lt;b&gt;.log:3)\">3</span>");
	/* (the file attribute: relative to the report, docs/parsers.md) */
	assert_contains(page, "file <span class=\"ld-value\">logs/a&quot;&lt;b&gt;.log</span>");
	/* the report named by its file gets a slug of safe characters */
	assert_contains(index_page, "<a href=\"q---b-/index.html\">q---b-</a>");
}

static void table_caption_header_and_cells_are_escaped(void **state)
{
	(void)state;
	assert_contains(page, "<figcaption>Table 1: cap " XE " <a class=\"ld-value\" "
			      "href=\"logs/a%22%3Cb%3E.log.html#L1.1\" "
			      "title=\"content/r/logs/a&quot;&lt;b&gt;.log:1\">" XE "</a></figcaption>");
	assert_contains(page, "<th>" XE "</th>");
	assert_contains(page, "<td><a class=\"ld-value\" href=\"logs/a%22%3Cb%3E.log.html#L2.1\" "
			      "title=\"content/r/logs/a&quot;&lt;b&gt;.log:2\">" XE "</a></td>");
}

/* Chart text (title, axis label, legend from a log value) is drawn as
 * glyph outlines by cairo: the SVG holds none of it as text. */
static void chart_text_is_drawn_not_written(void **state)
{
	(void)state;
	assert_contains(page, "<img src=\"figures/fig-x.svg\" width=\"720\" height=\"405\" alt=\"" XE
			      "\">");
	assert_contains(page, "<figcaption>Figure 1: chart " XE "</figcaption>");
	assert_contains(svg, "<svg");
	assert_not_contains(svg, "alert");
	assert_not_contains(svg, "onerror");
	assert_not_contains(svg, "<text");
}

static void log_excerpts_and_log_pages_are_escaped(void **state)
{
	(void)state;
	assert_contains(page, "</a>Tag=" XTC "</span>");
	/* The title names the file's path and the report, both escaped. */
	assert_contains(log_page, "<title>content/r/logs/a&quot;&lt;b&gt;.log \xE2\x80\x94 " XE
				  "</title>");
	assert_contains(log_page, "<a class=\"ld-lineno\" href=\"#L1\">1</a>Tag=<mark class=\"ld-mark\" "
				  "id=\"L1.1\">" XTC "</mark></span>");
	assert_contains(log_page, "Who=<mark class=\"ld-mark\" id=\"L2.1\">" XTC "</mark></span>");
	/* the raw copy beside it is the file as it was */
	char *raw = e2e_read(project, "_site/r/logs/a\"<b>.log");
	assert_string_equal(raw, log_text);
	free(raw);
}

static void dangerous_urls_lose_their_url(void **state)
{
	(void)state;
	assert_contains(page, "<a href=\"\">click</a> <a href=\"\">c2</a> "
			      "<img src=\"\" alt=\"img\" /> <a href=\"\">d</a> "
			      "<a href=\"\">javascript:alert(7)</a> <a href=\"\">v</a> "
			      "<a href=\"\">f</a> <img src=\"data:image/png;base64,AAAA\" alt=\"ok\" /> "
			      "<a href=\"https://example.org/?q=%22x%22\">web</a>");
	/* a value that makes the whole URL is checked after it is put in;
	 * inside a path it is harmless and stays */
	assert_contains(page, "<a href=\"\">tagged</a> "
			      "<a href=\"https://example.org/javascript:alert(9)\">fine</a>");
	/* raw HTML: single quotes, no quotes (given double ones, so that a
	 * blank in a value cannot start an attribute), formaction, src,
	 * xlink:href, poster, action; an event handler loses its script */
	assert_contains(page, "<a href=''>sq</a> <a href=\"\">uq</a> "
			      "<button formaction=\"\">fa</button> <a title=\"" XE "\">tt</a> "
			      "<img src = \"\" alt=\"x\"> <a onclick=\"\">oc</a> <a href=''>sp</a> "
			      "<svg><a xlink:href=\"\">xl</a></svg> <video poster=''></video> "
			      "<form action=\"\"></form> <a href=''>vb</a> <object data=\"\"></object> "
			      "<svg><a><set attributeName=\"href\" to=\"\" /><animate "
			      "attributeName=\"href\" values=\"\" />an</a></svg></p>");
	/* the HTML blocks: no attribute, no tag made by a value */
	assert_contains(page, "<div title=\"x\" >hb</div>\n<div>\n<>tn\n</div>\n");
}

/* The PDF: strings are text in it, never actions; a link keeps only a
 * URL that is not script. */
static void the_pdf_holds_the_payload_as_text_and_no_action(void **state)
{
	(void)state;
	if (system("command -v pdfinfo >/dev/null && command -v pdftotext >/dev/null") != 0) {
		print_message("poppler-utils is missing (tools/deps.sh installs it): skipped\n");
		skip();
	}
	e2e_ok(project, "pdf -o pdfout");
	char *path = path_join(project, "pdfout/r/report.pdf");
	struct buf pdf = BUF_INIT;
	assert_true(file_read(path, &pdf, NULL));
	static const char *const actions[] = {"/JavaScript", "/JS ", "/JS(", "/Launch",
					      "/OpenAction", "/SubmitForm", "/ImportData", NULL};
	for (size_t i = 0; actions[i]; i++)
		if (memmem(pdf.data, pdf.len, actions[i], strlen(actions[i])))
			fail_msg("the PDF holds %s", actions[i]);
	/* every link's URL is https: or relative (a value's log line) */
	size_t web = 0;
	for (const char *p = pdf.data, *end = pdf.data + pdf.len;
	     (p = memmem(p, (size_t)(end - p), "/URI (", 6)); p += 6) {
		const char *u = p + 6;
		size_t scheme = strcspn(u, ":/#)");
		if (strncmp(u, "https://example.org/", 20) == 0)
			web++;
		else if (u[scheme] == ':')
			fail_msg("a link to %.40s", u);
	}
	assert_int_equal(web, 2); /* web, and fine */
	buf_free(&pdf);
	int st;
	char *out = e2e_sh(&st, "pdfinfo '%s' && pdftotext -layout '%s' -", path, path);
	assert_int_equal(st, 0);
	/* the title and author as written, plain text */
	assert_contains(out, "Title:           " X "\n");
	assert_contains(out, "Author:          " X "\n");
	assert_contains(out, "Tag " X);
	free(out);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_build_succeeds_with_a_warning_per_inert_link),
		cmocka_unit_test(nothing_executable_reaches_any_page),
		cmocka_unit_test(front_matter_strings_are_escaped),
		cmocka_unit_test(captured_values_file_names_and_tooltips_are_escaped),
		cmocka_unit_test(table_caption_header_and_cells_are_escaped),
		cmocka_unit_test(chart_text_is_drawn_not_written),
		cmocka_unit_test(log_excerpts_and_log_pages_are_escaped),
		cmocka_unit_test(dangerous_urls_lose_their_url),
		cmocka_unit_test(the_pdf_holds_the_payload_as_text_and_no_action),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
