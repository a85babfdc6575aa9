/* test_linereader.c: the lines of a file in chunks, memory bounded by
 * the chunk. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/linereader.h"
#include "base/util.h"

/* A file holding n bytes of text, read from its start. */
static FILE *file_of(const char *text, size_t n)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fflush(f);
	rewind(f);
	return f;
}

/* The next line must be want (a string), with `more` bytes left out. */
static void next_is(struct linereader *r, size_t keep, const char *want, unsigned long long more)
{
	const char *t;
	size_t n;
	unsigned long long m;
	assert_int_equal(linereader_next(r, keep, &t, &n, &m), 1);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(t, want, n);
	assert_int_equal(m, more);
}

static void at_end(struct linereader *r)
{
	const char *t;
	size_t n;
	unsigned long long m;
	assert_int_equal(linereader_next(r, SIZE_MAX, &t, &n, &m), 0);
}

static void lines_come_without_their_newline(void **state)
{
	(void)state;
	FILE *f = file_of("one\ntwo\r\n\nlast", 14);
	struct linereader r;
	linereader_init(&r, fileno(f), 64);
	next_is(&r, SIZE_MAX, "one", 0);
	next_is(&r, SIZE_MAX, "two\r", 0);
	next_is(&r, SIZE_MAX, "", 0);
	next_is(&r, SIZE_MAX, "last", 0);
	at_end(&r);
	linereader_free(&r);
	fclose(f);
}

static void an_empty_file_has_no_line(void **state)
{
	(void)state;
	FILE *f = file_of("", 0);
	struct linereader r;
	linereader_init(&r, fileno(f), 64);
	at_end(&r);
	linereader_free(&r);
	fclose(f);
}

static void lines_go_on_across_chunks(void **state)
{
	(void)state;
	FILE *f = file_of("abcdef\nghijkl\nmn\n", 17);
	struct linereader r;
	linereader_init(&r, fileno(f), 8);
	next_is(&r, SIZE_MAX, "abcdef", 0);
	next_is(&r, SIZE_MAX, "ghijkl", 0);
	next_is(&r, SIZE_MAX, "mn", 0);
	at_end(&r);
	linereader_free(&r);
	fclose(f);
}

static void keep_cuts_a_line_and_counts_the_rest(void **state)
{
	(void)state;
	FILE *f = file_of("abcdefgh\nab\n", 12);
	struct linereader r;
	linereader_init(&r, fileno(f), 64);
	next_is(&r, 5, "abcde", 3);
	next_is(&r, 5, "ab", 0);
	linereader_free(&r);
	fclose(f);
}

static void a_cut_never_splits_a_character(void **state)
{
	(void)state;
	/* "aé" is 61 C3 A9: a cut after two bytes would split é. */
	FILE *f = file_of("a\xC3\xA9z\n", 5);
	struct linereader r;
	linereader_init(&r, fileno(f), 64);
	next_is(&r, 2, "a", 3);
	linereader_free(&r);
	fclose(f);
}

static void a_line_longer_than_the_chunk_keeps_its_start(void **state)
{
	(void)state;
	char text[100];
	memset(text, 'x', 90);
	memcpy(text + 90, "\nnext\n", 6);
	FILE *f = file_of(text, 96);
	struct linereader r;
	linereader_init(&r, fileno(f), 16);
	next_is(&r, SIZE_MAX, "xxxxxxxxxxxxxxxx", 74);
	next_is(&r, SIZE_MAX, "next", 0);
	at_end(&r);
	linereader_free(&r);
	fclose(f);
}

static void a_long_last_line_without_newline_ends_the_file(void **state)
{
	(void)state;
	char text[40];
	memset(text, 'y', sizeof text);
	FILE *f = file_of(text, sizeof text);
	struct linereader r;
	linereader_init(&r, fileno(f), 16);
	next_is(&r, 4, "yyyy", 36);
	at_end(&r);
	linereader_free(&r);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_come_without_their_newline),
		cmocka_unit_test(an_empty_file_has_no_line),
		cmocka_unit_test(lines_go_on_across_chunks),
		cmocka_unit_test(keep_cuts_a_line_and_counts_the_rest),
		cmocka_unit_test(a_cut_never_splits_a_character),
		cmocka_unit_test(a_line_longer_than_the_chunk_keeps_its_start),
		cmocka_unit_test(a_long_last_line_without_newline_ends_the_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
