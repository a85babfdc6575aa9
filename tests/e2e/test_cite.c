/* test_cite.c: citations (docs/manual.md, Citations): [@key] and @key
 * in prose, numeric and author-year, the References in the page and
 * the PDF, the bibliography's problems at their places, and real .bib
 * files (tests/fixtures/bib/SOURCES). */
#define _GNU_SOURCE /* memmem() */
#include "e2e.h"

static char *project;

#define RUN(...) e2e_keep_proc(e2e_run(project, __VA_ARGS__))

static int cleanup(void **state)
{
	(void)state;
	e2e_free_kept();
	e2e_drop(&project);
	return 0;
}

static const char bib[] =
	"@string{cacm = \"Communications of the {ACM}\"}\n"
	"@article{williams2009,\n"
	"  author = {Williams, Samuel and Waterman, Andrew and Patterson, David},\n"
	"  title = {Roofline: An Insightful Visual Performance Model},\n"
	"  journal = cacm, volume = 52, number = 4, pages = {65--76},\n"
	"  month = apr, year = 2009, doi = {10.1145/1498765.1498785}\n"
	"}\n"
	"@misc{jia2019,\n"
	"  author = {Jia, Zhe and Tillman, Blake},\n"
	"  title = {Dissecting the {Graphcore} {IPU}},\n"
	"  year = {2019}, url = {https://arxiv.org/abs/1912.03413}\n"
	"}\n"
	"@book{unused, author = {Nobody, A.}, title = {Never Cited}, year = 2000}\n";

static const char md[] =
	"---\n"
	"title: C\n"
	"bibliography: refs.bib\n"
	"---\n"
	"Roofline [@williams2009], on p. 3 [@williams2009, p. 3]; both [@jia2019; @williams2009].\n"
	"As @jia2019 show, and [see @jia2019, pp. 3--4; -@williams2009].\n";

/* Builds content/r/index.md (text) with refs.bib beside it, and
 * site.yaml when given; returns the page's body. */
static char *build(const char *text, const char *site)
{
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/refs.bib", bib),
					E2E_TEXT("content/r/index.md", text),
					E2E_TEXT("site.yaml", site ? site : "title: T\n")));
	return e2e_keep(e2e_build_body(project, ""));
}

#define W_TITLE                                                                           \
	"Samuel Williams, Andrew Waterman and David Patterson. Roofline: An Insightful "  \
	"Visual Performance Model. Communications of the ACM 52(4):65–76, 2009. "         \
	"https://doi.org/10.1145/1498765.1498785"
#define J_TITLE "Zhe Jia and Blake Tillman. Dissecting the Graphcore IPU. 2019. https://arxiv.org/abs/1912.03413"

static void numeric_citations_link_to_their_entries(void **state)
{
	(void)state;
	char *body = build(md, NULL);
	assert_contains(body, "Roofline [<a class=\"ld-ref\" href=\"#ref-williams2009\" title=\"" W_TITLE
			      "\">1</a>], on p. 3 [<a class=\"ld-ref\" href=\"#ref-williams2009\" "
			      "title=\"" W_TITLE "\">1</a>, p. 3]; both [<a class=\"ld-ref\" "
			      "href=\"#ref-jia2019\" title=\"" J_TITLE "\">2</a>, <a class=\"ld-ref\" "
			      "href=\"#ref-williams2009\" title=\"" W_TITLE "\">1</a>].");
	/* a bare key is a number too; prefixes and locators stay, a range's
	 * -- is a dash */
	assert_contains(body, "As [<a class=\"ld-ref\" href=\"#ref-jia2019\" title=\"" J_TITLE
			      "\">2</a>] show, and [see <a class=\"ld-ref\" href=\"#ref-jia2019\" "
			      "title=\"" J_TITLE "\">2</a>, pp. 3–4; <a class=\"ld-ref\" "
			      "href=\"#ref-williams2009\" title=\"" W_TITLE "\">1</a>].");
	/* only the entries cited, in the order of first citation */
	assert_contains(body,
			"<section class=\"references\">\n<h2 id=\"references\">References<a "
			"class=\"ld-anchor\" href=\"#references\" aria-label=\"Link to this section: "
			"References\">#</a></h2>\n"
			"<ol class=\"references-numeric\">\n"
			"<li id=\"ref-williams2009\"><span class=\"ref-label\">[1] </span>Samuel "
			"Williams, Andrew Waterman and David Patterson. Roofline: An Insightful Visual "
			"Performance Model. Communications of the ACM 52(4):65–76, 2009. <a "
			"href=\"https://doi.org/10.1145/1498765.1498785\">https://doi.org/10.1145/"
			"1498765.1498785</a></li>\n"
			"<li id=\"ref-jia2019\"><span class=\"ref-label\">[2] </span>Zhe Jia and Blake "
			"Tillman. Dissecting the Graphcore IPU. 2019. <a "
			"href=\"https://arxiv.org/abs/1912.03413\">https://arxiv.org/abs/1912.03413</a>"
			"</li>\n</ol>\n</section>\n");
	assert_not_contains(body, "Never Cited");
}

static void author_year_names_authors_and_years(void **state)
{
	(void)state;
	char *body = build(md, "citation_style: author-year\n");
	assert_contains(body, "Roofline (<a class=\"ld-ref\" href=\"#ref-williams2009\" title=\"");
	assert_contains(body, "\">Williams et al., 2009</a>), on p. 3 (<a class=\"ld-ref\"");
	assert_contains(body, "\">Williams et al., 2009</a>, p. 3); both (<a class=\"ld-ref\" "
			      "href=\"#ref-jia2019\"");
	assert_contains(body, "\">Jia and Tillman, 2019</a>; <a class=\"ld-ref\"");
	/* bare: "Author (Year)"; -@key: the year alone */
	assert_contains(body, "As <a class=\"ld-ref\" href=\"#ref-jia2019\"");
	assert_contains(body, "\">Jia and Tillman (2019)</a> show, and (see <a");
	assert_contains(body, "\">Jia and Tillman, 2019</a>, pp. 3–4; <a class=\"ld-ref\" "
			      "href=\"#ref-williams2009\"");
	assert_contains(body, "\">2009</a>).");
	/* by author, then year; no numbers */
	assert_contains(body,
			"<ol class=\"references-author-year\">\n"
			"<li id=\"ref-jia2019\">Zhe Jia and Blake Tillman (2019). Dissecting the "
			"Graphcore IPU. <a href=\"https://arxiv.org/abs/1912.03413\">"
			"https://arxiv.org/abs/1912.03413</a></li>\n"
			"<li id=\"ref-williams2009\">Samuel Williams, Andrew Waterman and David "
			"Patterson (2009). Roofline: An Insightful Visual Performance Model. "
			"Communications of the ACM 52(4):65–76. <a "
			"href=\"https://doi.org/10.1145/1498765.1498785\">");
}

static void front_matter_style_wins_and_years_are_told_apart(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("refs.bib", "@misc{a, author={Lee, Ann}, title={One}, year=2020}\n"
				     "@misc{b, author={Lee, Ann}, title={Two}, year=2020}\n"),
		E2E_TEXT("content/r/index.md", "---\ncitation_style: author-year\n---\n"
					       "[@b; @a]\n"),
		E2E_TEXT("site.yaml", "bibliography: refs.bib\ncitation_style: numeric\n")));
	char *body = e2e_keep(e2e_build_body(project, ""));
	assert_contains(body, "\">Lee, 2020b</a>; <a class=\"ld-ref\" href=\"#ref-a\"");
	assert_contains(body, "\">Lee, 2020a</a>)");
	assert_contains(body, "<li id=\"ref-a\">Ann Lee (2020a). One.</li>\n"
			      "<li id=\"ref-b\">Ann Lee (2020b). Two.</li>\n");
}

static void what_is_no_citation_stays_text(void **state)
{
	(void)state;
	char *body = build("---\nbibliography: refs.bib\n---\n"
			   "Mail a@b.com, `[@jia2019]` and \\@jia2019, $x@y$, "
			   "[@jia2019](https://example.org).\n\n"
			   "```\n[@jia2019] @jia2019\n```\n",
			   NULL);
	assert_not_contains(body, "ld-ref");
	assert_not_contains(body, "references");
	assert_contains(body, "<code>[@jia2019]</code>");
	assert_contains(body, "<pre><code>[@jia2019] @jia2019\n</code></pre>");
}

/* Builds and expects failure with exactly err on stderr. */
static void fails_with(const char *text, const char *site, const char *bibtext, const char *err)
{
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/refs.bib", bibtext ? bibtext : bib),
					E2E_TEXT("content/r/index.md", text),
					E2E_TEXT("site.yaml", site ? site : "title: T\n")));
	struct proc r = RUN("build");
	assert_string_equal(r.err, err);
	assert_int_equal(r.status, 1);
}

static void an_unknown_key_is_an_error_with_did_you_mean(void **state)
{
	(void)state;
	fails_with("---\nbibliography: refs.bib\n---\nSee [@jia2019; @wiliams2009].\n", NULL, NULL,
		   "content/r/index.md:4:16: error: citation key 'wiliams2009' is not in the "
		   "bibliography (did you mean 'williams2009'?)\n"
		   "    4 | See [@jia2019; @wiliams2009].\n"
		   "      |                ^~~~~~~~~~~~\n"
		   "logdown: 1 error; the previous output was left as it was\n");
}

static void a_bib_syntax_error_is_at_its_line(void **state)
{
	(void)state;
	fails_with("---\nbibliography: refs.bib\n---\n[@ok]\n", NULL,
		   "@misc{ok, title = {Fine}}\n\n@misc{bad,\n  title = {Oops,\n  year = 2020\n}\n"
		   "@misc{next, title = {Next}}\n",
		   "content/r/refs.bib:7:1: error: entry 'bad' (line 3) is not closed before this "
		   "one: is a '}' missing in its field 'title' (line 4)?\n"
		   "    7 | @misc{next, title = {Next}}\n"
		   "      | ^\n"
		   "logdown: 1 error; the previous output was left as it was\n");
}

static void a_key_defined_twice_is_a_warning_and_the_first_wins(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/refs.bib", "@misc{a, title = {First}}\n@misc{a, title = {Second}}\n"),
		E2E_TEXT("content/r/index.md", "---\nbibliography: refs.bib\n---\n[@a]\n")));
	struct proc r = RUN("build");
	assert_string_equal(r.err, "content/r/refs.bib:2:7: warning: entry 'a' is already defined at "
				   "content/r/refs.bib:1: this one is ignored\n"
				   "    2 | @misc{a, title = {Second}}\n"
				   "      |       ^\n"
				   "logdown: built 1 report into _site\n");
	assert_int_equal(r.status, 0);
	char *page = e2e_keep(e2e_read(project, "_site/r/index.html"));
	assert_contains(page, "<span class=\"ref-label\">[1] </span>First.</li>");
}

static void a_missing_bibliography_is_an_error_at_its_key(void **state)
{
	(void)state;
	fails_with("---\nbibliography: ref.bib\n---\n[@a]\n", NULL, NULL,
		   "content/r/index.md:2:15: error: bibliography 'content/r/ref.bib' does not "
		   "exist\n"
		   "    2 | bibliography: ref.bib\n"
		   "      |               ^~~~~~~\n"
		   "logdown: 1 error; the previous output was left as it was\n");
}

static void a_citation_without_bibliography_says_how_to_add_one(void **state)
{
	(void)state;
	fails_with("Text [@a] and @b.\n", NULL, NULL,
		   "content/r/index.md:1:7: error: citation '@a' but the report has no "
		   "bibliography: add 'bibliography: refs.bib' (BibTeX, or CSL-JSON as refs.json) "
		   "to its front matter or to site.yaml\n"
		   "    1 | Text [@a] and @b.\n"
		   "      |       ^~\n"
		   "logdown: 1 error; the previous output was left as it was\n");
}

static void an_unknown_style_is_an_error(void **state)
{
	(void)state;
	fails_with("---\nbibliography: refs.bib\ncitation_style: author_year\n---\n[@jia2019]\n",
		   NULL, NULL,
		   "content/r/index.md:3:17: error: unknown citation_style 'author_year' (did you "
		   "mean 'author-year'?)\n"
		   "    3 | citation_style: author_year\n"
		   "      |                 ^~~~~~~~~~~\n"
		   "logdown: 1 error; the previous output was left as it was\n");
}

static void csl_json_is_read_too(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/refs.json",
			 "[{\"id\": \"lie2023\", \"type\": \"article-journal\", \"title\": \"Cerebras "
			 "Architecture Deep Dive\", \"author\": [{\"family\": \"Lie\", \"given\": "
			 "\"Sean\"}], \"container-title\": \"IEEE Micro\", \"volume\": \"43\", "
			 "\"issue\": \"3\", \"page\": \"18-30\", \"issued\": {\"date-parts\": "
			 "[[2023]]}, \"DOI\": \"10.1109/MM.2023.3256384\"}]\n"),
		E2E_TEXT("content/r/index.md", "---\nbibliography: [refs.json]\n---\n[@lie2023]\n")));
	char *body = e2e_keep(e2e_build_body(project, ""));
	assert_contains(body, "<li id=\"ref-lie2023\"><span class=\"ref-label\">[1] </span>Sean "
			      "Lie. Cerebras Architecture Deep Dive. IEEE Micro 43(3):18-30, 2023. <a "
			      "href=\"https://doi.org/10.1109/MM.2023.3256384\">");
}

/* A NUL in a key would end it early and make it no key at all: found
 * by fuzz_bib (an id of four raw NULs and text). */
static void a_csl_id_holding_a_nul_is_an_error_at_its_item(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/refs.json",
			 "[{\"id\": \"lie\\u00002023\", \"type\": \"article-journal\"}]\n"),
		E2E_TEXT("content/r/index.md", "---\nbibliography: [refs.json]\n---\n[@lie2023]\n")));
	struct proc r = RUN("build");
	assert_string_equal(r.err, "content/r/refs.json:1:2: error: a CSL-JSON item's \"id\" holds "
				   "a NUL character (\\u0000): a citation key is letters, digits "
				   "and punctuation\n"
				   "    1 | [{\"id\": \"lie\\u00002023\", \"type\": "
				   "\"article-journal\"}]\n"
				   "      |  ^\n"
				   "logdown: 1 error; the previous output was left as it was\n");
	assert_int_equal(r.status, 1);
}

static void real_bib_files_read_whole(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_COPY("content/r/a.bib", "tests/fixtures/bib/phd-thesis-excerpt.bib"),
		E2E_COPY("content/r/b.bib", "tests/fixtures/bib/roofline-readme.bib"),
		E2E_TEXT("content/r/index.md",
			 "---\nbibliography: [a.bib, b.bib]\n---\n"
			 "[@poller2017can; @findbugs2008; @li2017static; @chess2004static; "
			 "@armsrace; @securitytestingagile; @ESAPI; @10.1145/1498765.1498785]\n")));
	char *body = e2e_keep(e2e_build_body(project, ""));
	assert_contains(body, "Andreas Poller, Laura Kocksch, Sven Türpe, Felix Anand Epp and "
			      "Katharina Kinder-Kurlanda. Can Security Become a Routine?: A Study of "
			      "Organizational Change in an Agile Software Development Group. In CSCW, "
			      "2489–2503, 2017.</li>");
	assert_contains(body, "N. Ayewah, D. Hovemeyer, J. D. Morgenthaler, J. Penix and W. Pugh. "
			      "Using Static Analysis to Find Bugs. IEEE Software 25(5):22-29, 2008. "
			      "<a href=\"https://doi.org/10.1109/MS.2008.130\">");
	assert_contains(body, "Tegawendé F Bissyandé");
	assert_contains(body, "IEEE Security &amp; Privacy 2(6):76–79, IEEE, 2004.");
	assert_contains(body, "Per Larsen and Ahmad-Reza Sadeghi, editors. The Continuing Arms "
			      "Race: Code-Reuse Attacks and Defenses. Association for Computing "
			      "Machinery and Morgan &amp;#38; Claypool, 2018.");
	assert_contains(body, "Daniela Soares Cruzes, Michael Felderer, Tosin Daniel Oyetoyan, "
			      "Matthias Gander and Irdin Pekaric. How is Security Testing Done");
	assert_contains(body, "<li id=\"ref-ESAPI\"><span class=\"ref-label\">[7] </span>OWASP "
			      "Enterprise Security API Toolkits - Datasheet.</li>");
	assert_contains(body, "Commun. ACM 52(4):65–76, Association for Computing Machinery, "
			      "2009. <a href=\"https://doi.org/10.1145/1498765.1498785\">");
}

static void the_pdf_lists_and_links_the_references(void **state)
{
	(void)state;
	build(md, NULL);
	e2e_ok(project, "pdf");
	char *pdf = e2e_keep(path_join(project, "_site/r/report.pdf"));
	int st;
	char *text = e2e_keep(e2e_sh(&st, "pdftotext -enc UTF-8 '%s' - | tr -s ' \\n' ' '", pdf));
	assert_int_equal(st, 0);
	assert_contains(text, "Roofline [1], on p. 3 [1, p. 3]; both [2, 1].");
	assert_contains(text, "As [2] show, and [see 2, pp. 3–4; 1].");
	assert_contains(text, "References [1] Samuel Williams, Andrew Waterman and David Patterson.");
	assert_contains(text, "[2] Zhe Jia and Blake Tillman. Dissecting the Graphcore IPU. 2019.");
	/* each citation links to its entry, each entry's DOI and URL out,
	 * and the References are in the outline */
	struct buf raw = BUF_INIT;
	assert_true(file_read(pdf, &raw, NULL));
	static const char *const wanted[] = {
		"/Dest (ref-williams2009)", "/Dest (ref-jia2019)",
		"/URI (https://doi.org/10.1145/1498765.1498785)",
		"/URI (https://arxiv.org/abs/1912.03413)", "/Title (References)",
	};
	for (size_t i = 0; i < ARRAY_LEN(wanted); i++)
		if (!memmem(raw.data, raw.len, wanted[i], strlen(wanted[i])))
			fail_msg("the PDF has no %s", wanted[i]);
	buf_free(&raw);
}

/* A page's cache key covers its bibliography: an edited .bib is a new
 * References, not the page of the last build. */
static void an_edited_bib_rebuilds_the_page(void **state)
{
	(void)state;
	char *body = build(md, NULL);
	assert_contains(body, "Dissecting the Graphcore IPU.");
	char *path = e2e_keep(path_join(project, "content/r/refs.bib"));
	char *text = e2e_keep(e2e_read(project, "content/r/refs.bib"));
	char *at = strstr(text, "{IPU}");
	assert_non_null(at);
	memcpy(at, "{TPU}", 5);
	assert_true(file_write(path, text, strlen(text)));
	body = e2e_keep(e2e_build_body(project, ""));
	assert_contains(body, "Dissecting the Graphcore TPU.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(numeric_citations_link_to_their_entries, cleanup),
		cmocka_unit_test_teardown(author_year_names_authors_and_years, cleanup),
		cmocka_unit_test_teardown(front_matter_style_wins_and_years_are_told_apart, cleanup),
		cmocka_unit_test_teardown(what_is_no_citation_stays_text, cleanup),
		cmocka_unit_test_teardown(an_unknown_key_is_an_error_with_did_you_mean, cleanup),
		cmocka_unit_test_teardown(a_bib_syntax_error_is_at_its_line, cleanup),
		cmocka_unit_test_teardown(a_key_defined_twice_is_a_warning_and_the_first_wins, cleanup),
		cmocka_unit_test_teardown(a_missing_bibliography_is_an_error_at_its_key, cleanup),
		cmocka_unit_test_teardown(a_citation_without_bibliography_says_how_to_add_one, cleanup),
		cmocka_unit_test_teardown(an_unknown_style_is_an_error, cleanup),
		cmocka_unit_test_teardown(csl_json_is_read_too, cleanup),
		cmocka_unit_test_teardown(a_csl_id_holding_a_nul_is_an_error_at_its_item, cleanup),
		cmocka_unit_test_teardown(real_bib_files_read_whole, cleanup),
		cmocka_unit_test_teardown(the_pdf_lists_and_links_the_references, cleanup),
		cmocka_unit_test_teardown(an_edited_bib_rebuilds_the_page, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
