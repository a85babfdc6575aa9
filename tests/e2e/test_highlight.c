/* test_highlight.c: code blocks coloured as a reader sees them.
 *
 * One report holds a short sample of each language logdown colours
 * (tests/highlight/NAME.txt, fenced as ```NAME); the page must hold
 * each block exactly as tests/highlight/NAME.html says (UPDATE_GOLDEN=1
 * rewrites those: read the diff).  The PDF of the same report must
 * draw the keyword and string colours of the light theme; an unknown
 * language is plain text with one warning at the fence; the aliases
 * colour as their language does. */
#include "e2e.h"

#define MD "content/r/index.md"

static const char *const langs[] = {"bash",   "console", "python", "c",	   "cpp",      "cuda",
				    "fortran", "julia",	  "yaml",   "json", "toml",     "makefile",
				    "cmake",  "diff",	  "sql",    "log",  NULL};

static char *project;
static struct proc build;
static char *page;

static char *sample(const char *name, const char *ext)
{
	char *rel = xasprintf("tests/highlight/%s.%s", name, ext);
	struct buf b = BUF_INIT;
	bool ok = file_read(rel, &b, NULL);
	free(rel);
	if (!ok) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

static int setup(void **state)
{
	(void)state;
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: Code\n---\n");
	for (size_t i = 0; langs[i]; i++) {
		char *s = sample(langs[i], "txt");
		assert_non_null(s);
		buf_printf(&md, "```%s\n%s```\n\n", langs[i], s);
		free(s);
	}
	/* line 4 + the samples: the fence of an unknown language */
	buf_puts(&md, "```pyhton\nx = 1\n```\n\n```text\nplain on purpose\n```\n\n"
		      "```py\nreturn None\n```\n\n```yml\nk: 1\n```\n");
	project = e2e_project(E2E_FILES(E2E_TEXT(MD, buf_data(&md))));
	buf_free(&md);
	build = e2e_run(project, "pdf");
	page = e2e_read(project, "_site/r/index.html");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(page);
	proc_free(&build);
	remove_tree(project);
	free(project);
	return 0;
}

/* The block of language name on the page, from <pre> to </pre>. */
static char *block(const char *name)
{
	char *open = xasprintf("<pre><code class=\"language-%s\">", name);
	const char *a = strstr(page, open);
	free(open);
	if (!a)
		return NULL;
	const char *b = strstr(a, "</code></pre>\n");
	return b ? xstrndup(a, (size_t)(b + 14 - a)) : NULL;
}

static void each_language_is_coloured_exactly(void **state)
{
	(void)state;
	assert_int_equal(build.status, 0);
	assert_non_null(page);
	bool update = getenv("UPDATE_GOLDEN") && *getenv("UPDATE_GOLDEN") == '1';
	for (size_t i = 0; langs[i]; i++) {
		char *got = block(langs[i]);
		if (!got)
			fail_msg("no ```%s block on the page", langs[i]);
		if (update) {
			char *rel = xasprintf("tests/highlight/%s.html", langs[i]);
			FILE *f = fopen(rel, "w");
			assert_non_null(f);
			fputs(got, f);
			fclose(f);
			free(rel);
		}
		char *want = sample(langs[i], "html");
		if (!want || strcmp(got, want) != 0)
			fail_msg("```%s on the page:\n%s\nwant (tests/highlight/%s.html):\n%s", langs[i],
				 got, langs[i], want ? want : "(missing)");
		/* every sample shows at least two kinds of token */
		size_t kinds = 0;
		const char *const cls[] = {"hl-keyword", "hl-string", "hl-comment", "hl-number",
					   "hl-type",	 "hl-function", "hl-preprocessor", "hl-special",
					   "hl-builtin", "hl-constant", "hl-variable", "hl-error",
					   "hl-warning", "hl-inserted", "hl-deleted", NULL};
		for (size_t k = 0; cls[k]; k++)
			kinds += strstr(got, cls[k]) != NULL;
		if (kinds < 2)
			fail_msg("```%s shows %zu kinds of token", langs[i], kinds);
		free(want);
		free(got);
	}
}

static void an_unknown_language_is_plain_with_one_warning(void **state)
{
	(void)state;
	/* the fence of ```pyhton: after the front matter (3 lines) and
	 * each sample's fences and lines */
	int line = 4;
	for (size_t i = 0; langs[i]; i++) {
		char *s = sample(langs[i], "txt");
		for (const char *p = s; *p; p++)
			line += *p == '\n';
		line += 3; /* the fences and the blank line */
		free(s);
	}
	char *want = xasprintf("%s/" MD ":%d:4: warning: unknown language 'pyhton': shown as "
			       "plain text (did you mean 'python'?)\n",
			       project, line);
	char *rel = xasprintf(MD ":%d:4: warning: unknown language 'pyhton'", line);
	if (!strstr(build.err, want) && !strstr(build.err, rel))
		fail_msg("want a warning at %s, got:\n%s", rel, build.err);
	free(rel);
	free(want);
	/* one warning: ```text is plain on purpose */
	const char *w = strstr(build.err, "warning:");
	assert_non_null(w);
	assert_null(strstr(w + 1, "warning:"));
	assert_contains(page, "<pre><code class=\"language-pyhton\">x = 1\n</code></pre>");
	assert_contains(page, "<pre><code class=\"language-text\">plain on purpose\n</code></pre>");
}

static void aliases_colour_as_their_language(void **state)
{
	(void)state;
	assert_contains(page, "<pre><code class=\"language-py\"><span class=\"hl-keyword\">return"
			      "</span> <span class=\"hl-constant\">None</span>\n</code></pre>");
	assert_contains(page, "<pre><code class=\"language-yml\"><span class=\"hl-keyword\">k"
			      "</span>: <span class=\"hl-number\">1</span>\n</code></pre>");
}

/* Pixels of the PDF's first page within 24 of rgb in each channel. */
static long pdf_pixels(unsigned rgb)
{
	char *pdf = path_join(project, "_site/r/report.pdf");
	long n = e2e_pdf_pixels(pdf, project, 150, rgb, 24);
	free(pdf);
	return n;
}

static void the_pdf_draws_the_light_colours(void **state)
{
	(void)state;
	/* page 1 holds the bash and console samples: #SBATCH (directive,
	 * green), keywords (red) and strings (navy) */
	long keyword = pdf_pixels(0xcf222e), directive = pdf_pixels(0x116329),
	     string = pdf_pixels(0x0a3069);
	if (keyword < 20 || directive < 20 || string < 20)
		fail_msg("page 1's pixels: %ld keyword red, %ld directive green, %ld string navy",
			 keyword, directive, string);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_language_is_coloured_exactly),
		cmocka_unit_test(an_unknown_language_is_plain_with_one_warning),
		cmocka_unit_test(aliases_colour_as_their_language),
		cmocka_unit_test(the_pdf_draws_the_light_colours),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
