/* test_gfmchars.c: cmark-gfm parses on several threads at once
 * (resolve/gfmchars.c): the self-check passes with Debian's shared
 * libcmark-gfm, and pages parsed on four threads at once, with the
 * extensions and without, give the HTML a lone thread gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/doc.h"
#include "../../src/resolve/gfmchars.h"

/* doc.c's set (the one gfmchars_init() was given first, by doc_init()) */
static const char *const exts[] = {
	"table", "strikethrough", "autolink", "tagfilter", "tasklist",
};

#define NPAGES 48
#define NTHREADS 4
#define ROUNDS 6

static char *pages[NPAGES];
static char *want_ext[NPAGES];	 /* HTML with the extensions, one thread */
static char *want_plain[NPAGES]; /* and without any */

/* The HTML of text, parsed with the extensions or without. */
static char *to_html(const char *text, bool with_ext)
{
	cmark_parser *p = cmark_parser_new(CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES);
	for (size_t i = 0; with_ext && i < ARRAY_LEN(exts); i++)
		cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension(exts[i]));
	cmark_parser_feed(p, text, strlen(text));
	cmark_node *root = cmark_parser_finish(p);
	char *html = cmark_render_html(root, CMARK_OPT_UNSAFE,
				       with_ext ? cmark_parser_get_syntax_extensions(p) : NULL);
	cmark_node_free(root);
	cmark_parser_free(p);
	return html;
}

/* Strikethrough, autolinks, tables, tasks, and emphasis next to '~'
 * (the character cmark-gfm also skips when it judges a delimiter's
 * flanks), different on every page. */
static char *page(int i)
{
	struct buf b = BUF_INIT;
	for (int k = 0; k < 20; k++)
		buf_printf(&b,
			   "Line %d ~~struck %d~~ and www.example.org/%d, *a*~b~ _c_~~d~~ "
			   "https://e.org/%d x@y.org\n\n| a | b~ |\n|---|:-:|\n| ~~c%d~~ | www.x.org |\n\n"
			   "- [x] done %d\n- [ ] w~w %d\n\n",
			   k, i, k, i, k, i, k);
	return buf_detach(&b);
}

static int setup(void **state)
{
	(void)state;
	doc_init();
	for (int i = 0; i < NPAGES; i++) {
		pages[i] = page(i);
		want_ext[i] = to_html(pages[i], true);
		want_plain[i] = to_html(pages[i], false);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NPAGES; i++) {
		free(pages[i]);
		free(want_ext[i]);
		free(want_plain[i]);
	}
	return 0;
}

static void self_check_passes_with_the_shared_library(void **state)
{
	(void)state;
	assert_true(doc_parallel_parse());
	assert_true(gfmchars_init(exts, ARRAY_LEN(exts)));
}

/* What a lone thread gives, with the extensions: the table and the
 * strikethrough are there (so the reference itself is right). */
static void one_thread_reads_the_extensions(void **state)
{
	(void)state;
	assert_non_null(strstr(want_ext[3], "<del>struck 3</del>"));
	assert_non_null(strstr(want_ext[3], "<td><del>c3</del></td>"));
	assert_non_null(strstr(want_ext[3], "<a href=\"http://www.example.org/0\">"));
	assert_non_null(strstr(want_ext[3], "<a href=\"mailto:x@y.org\">x@y.org</a>"));
	assert_non_null(strstr(want_ext[3], "<input type=\"checkbox\" checked=\"\" disabled=\"\" /> done 3"));
	assert_null(strstr(want_plain[3], "<del>"));
	assert_null(strstr(want_plain[3], "<table>"));
}

struct worker {
	int id;
	int mismatches;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	for (int round = 0; round < ROUNDS; round++) {
		for (int k = 0; k < NPAGES; k++) {
			int i = (k * 7 + w->id * 11 + round) % NPAGES;
			/* every other thread mixes in parses without extensions,
			 * as find_code_lines() does while pages render */
			bool with_ext = (w->id + k) % 3 != 0;
			char *html = to_html(pages[i], with_ext);
			w->mismatches += strcmp(html, with_ext ? want_ext[i] : want_plain[i]) != 0;
			free(html);
		}
	}
	return NULL;
}

static void four_threads_at_once_read_what_one_reads(void **state)
{
	(void)state;
	pthread_t tid[NTHREADS];
	struct worker w[NTHREADS];
	for (int t = 0; t < NTHREADS; t++) {
		w[t] = (struct worker){t, 0};
		assert_int_equal(pthread_create(&tid[t], NULL, work, &w[t]), 0);
	}
	for (int t = 0; t < NTHREADS; t++) {
		pthread_join(tid[t], NULL);
		assert_int_equal(w[t].mismatches, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_check_passes_with_the_shared_library),
		cmocka_unit_test(one_thread_reads_the_extensions),
		cmocka_unit_test(four_threads_at_once_read_what_one_reads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
