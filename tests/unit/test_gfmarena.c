/* test_gfmarena.c: cmark-gfm's memory for one document
 * (resolve/gfmarena.c): blocks from the current arena or the heap, each
 * freed and grown as what it is, and a parse through it giving the HTML
 * the library's own allocator gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/doc.h"
#include "../../src/resolve/gfmarena.h"

static void blocks_are_zeroed_and_aligned(void **state)
{
	(void)state;
	cmark_mem *mem = gfm_arena_mem();
	struct gfm_arena *a = gfm_arena_new();
	struct gfm_arena *was = gfm_arena_use(a);
	for (size_t n = 1; n < 300; n += 7) {
		unsigned char *p = mem->calloc(n, 3);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < 3 * n; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xAB, 3 * n); /* the next block must not see it */
		mem->free(p);	/* an arena's: nothing */
	}
	assert_ptr_equal(gfm_arena_use(was), a); /* gives back the one it replaces */
	gfm_arena_free(a);
}

/* A buffer grown a byte at a time keeps its bytes, in place or moved,
 * with other blocks taken in between; one bigger than a chunk too. */
static void realloc_keeps_the_bytes(void **state)
{
	(void)state;
	cmark_mem *mem = gfm_arena_mem();
	struct gfm_arena *a = gfm_arena_new();
	struct gfm_arena *was = gfm_arena_use(a);
	char *buf = NULL;
	for (size_t n = 1; n <= 300000; n += 1 + n / 3) {
		buf = mem->realloc(buf, n);
		buf[n - 1] = (char)(n % 251);
		if (n % 5 == 0)
			mem->calloc(1, 40); /* buf is no longer the newest */
	}
	for (size_t n = 1; n <= 300000; n += 1 + n / 3)
		assert_int_equal(buf[n - 1], (char)(n % 251));
	mem->free(buf);
	gfm_arena_use(was);
	gfm_arena_free(a);
}

/* With no arena current a block is the heap's: freed, grown, and freed
 * again as such (ASan and valgrind see a leak or a bad free). */
static void without_an_arena_blocks_are_the_heaps(void **state)
{
	(void)state;
	cmark_mem *mem = gfm_arena_mem();
	char *p = mem->calloc(10, 1);
	memcpy(p, "abcdefghi", 10);
	p = mem->realloc(p, 100000);
	assert_string_equal(p, "abcdefghi");
	mem->free(p);
	/* a block of an arena grown when none is current stays its arena's */
	struct gfm_arena *a = gfm_arena_new();
	gfm_arena_use(a);
	char *q = mem->calloc(1, 8);
	gfm_arena_use(NULL);
	q = mem->realloc(q, 70000);
	q[69999] = 'x';
	mem->free(q);
	gfm_arena_free(a);
}

static char *html_of(const char *md, cmark_mem *mem, struct gfm_arena *a)
{
	static const char *const exts[] = {"table", "strikethrough", "autolink", "tasklist"};
	cmark_parser *p = cmark_parser_new_with_mem(CMARK_OPT_FOOTNOTES, mem);
	for (size_t i = 0; i < ARRAY_LEN(exts); i++)
		cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension(exts[i]));
	struct gfm_arena *was = gfm_arena_use(a);
	cmark_parser_feed(p, md, strlen(md));
	cmark_node *root = cmark_parser_finish(p);
	gfm_arena_use(was);
	char *html = cmark_render_html_with_mem(root, 0, cmark_parser_get_syntax_extensions(p),
						cmark_get_default_mem_allocator());
	cmark_node_free(root);
	cmark_parser_free(p);
	return html;
}

static void a_parse_in_an_arena_reads_the_same(void **state)
{
	(void)state;
	doc_init();
	struct buf md = BUF_INIT;
	for (int i = 0; i < 400; i++)
		buf_printf(&md, "# H%d\n\nSome *text* ~~%d~~ www.e.org[^%d]\n\n| a | b |\n|---|---|\n"
				"| %d | x |\n\n- [ ] t\n\n```c\nint x = %d;\n```\n\n[^%d]: note\n\n",
			   i, i, i, i, i, i);
	struct gfm_arena *a = gfm_arena_new();
	char *want = html_of(buf_data(&md), cmark_get_default_mem_allocator(), NULL);
	char *got = html_of(buf_data(&md), gfm_arena_mem(), a);
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "<del>399</del>"));
	free(want);
	free(got);
	gfm_arena_free(a);
	buf_free(&md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_are_zeroed_and_aligned),
		cmocka_unit_test(realloc_keeps_the_bytes),
		cmocka_unit_test(without_an_arena_blocks_are_the_heaps),
		cmocka_unit_test(a_parse_in_an_arena_reads_the_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
