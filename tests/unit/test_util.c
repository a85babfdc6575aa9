/* test_util.c: buffers, spans and did-you-mean. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Each byte of the set at every place of buffers of 0 to 70 bytes (the
 * sixteen-byte steps, their last partial one and the tail), the other
 * bytes all the rest of 1..255: found at its place, and nothing else. */
static void mem_first_of_finds_each_byte_at_every_place(void **state)
{
	(void)state;
	const char *set = "${:@";
	char text[80] = {0};
	for (size_t len = 0; len <= 70; len++) {
		/* filler: every byte but the set's and NUL, the high ones too */
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)(1 + (i * 37) % 255);
			text[i] = strchr(set, c) ? 'x' : (char)c;
		}
		assert_ptr_equal(mem_first_of(text, text + len, set), text + len);
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < 4; k++) {
				char was = text[at];
				text[at] = set[k];
				assert_ptr_equal(mem_first_of(text, text + len, set), text + at);
				/* a later one does not hide it */
				if (at + 1 < len) {
					char next = text[at + 1];
					text[at + 1] = set[3 - k];
					assert_ptr_equal(mem_first_of(text, text + len, set), text + at);
					text[at + 1] = next;
				}
				text[at] = was;
			}
	}
}

static void mem_first_of_takes_sets_of_one_to_four_high_bytes(void **state)
{
	(void)state;
	const char text[] = "plain ascii text, then \xc3\xa9 and \xff at the end of it all";
	const char *end = text + sizeof text - 1;
	assert_ptr_equal(mem_first_of(text, end, "\xff"), strchr(text, '\xff'));
	assert_ptr_equal(mem_first_of(text, end, "\xa9\xff"), strchr(text, '\xa9'));
	assert_ptr_equal(mem_first_of(text, end, "zq"), end);
	assert_ptr_equal(mem_first_of(text, end, ","), strchr(text, ','));
	assert_ptr_equal(mem_first_of(text, text, "p"), text);
}

static void empty_buffer_data_is_empty_string(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_non_null(buf_data(&b));
	assert_string_equal(buf_data(&b), "");
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

static void put_keeps_nul(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "ab");
	assert_int_equal(b.len, 2);
	assert_int_equal(buf_data(&b)[2], '\0');
	assert_string_equal(buf_data(&b), "ab");
	buf_free(&b);
}

static void buffer_grows_past_its_first_allocation(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	/* 10,000 single bytes force several reallocations. */
	for (int i = 0; i < 10000; i++)
		buf_putc(&b, (char)('a' + i % 26));
	assert_int_equal(b.len, 10000);
	assert_true(b.cap > b.len);
	assert_int_equal(b.data[10000], '\0');
	assert_int_equal(b.data[0], 'a');
	assert_int_equal(b.data[25], 'z');
	assert_int_equal(b.data[9999], 'a' + 9999 % 26);
	assert_int_equal(strlen(b.data), 10000);
	buf_free(&b);
}

static void put_copies_embedded_nul_bytes(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_put(&b, "a\0b", 3);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "a\0b\0", 4);
	buf_free(&b);
}

static void put_of_nothing_still_terminates(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_put(&b, "", 0);
	assert_non_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.data[0], '\0');
	buf_free(&b);
}

static void grow_reserves_room_without_changing_length(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "xy");
	buf_grow(&b, 1000);
	assert_true(b.cap >= 2 + 1000 + 1);
	assert_int_equal(b.len, 2);
	assert_string_equal(b.data, "xy");
	buf_free(&b);
}

static void grow_of_a_new_buffer_leaves_an_empty_string(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	/* Reserving room must not break "always ends in NUL": file_read()
	 * of an empty file is exactly this. */
	buf_grow(&b, 100);
	assert_int_equal(b.len, 0);
	/* Byte compares: printing an unterminated buffer would overrun it. */
	char first = buf_data(&b)[0];
	char *s = buf_detach(&b);
	char detached = s[0];
	free(s);
	assert_int_equal(first, '\0');
	assert_int_equal(detached, '\0');
}

static void printf_appends_formatted_text(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "n=");
	buf_printf(&b, "%d, s=%s, %.2f", 42, "hi", 0.5);
	assert_string_equal(buf_data(&b), "n=42, s=hi, 0.50");
	assert_int_equal(b.len, strlen("n=42, s=hi, 0.50"));
	buf_free(&b);
}

static void printf_of_long_text_grows_the_buffer(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	char big[5001];
	memset(big, 'q', 5000);
	big[5000] = '\0';
	buf_printf(&b, "<%s>", big);
	assert_int_equal(b.len, 5002);
	assert_int_equal(b.data[0], '<');
	assert_int_equal(b.data[5001], '>');
	assert_int_equal(b.data[5002], '\0');
	buf_free(&b);
}

static void clear_empties_but_keeps_nul(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "hello");
	buf_clear(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(buf_data(&b), "");
	buf_puts(&b, "x");
	assert_string_equal(buf_data(&b), "x");
	buf_free(&b);
}

static void clear_of_a_new_buffer_does_nothing(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_clear(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(buf_data(&b), "");
	buf_free(&b);
}

static void html_escapes_the_five_special_characters(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	const char *s = "a&b<c>d\"e'f";
	buf_put_html(&b, s, strlen(s));
	assert_string_equal(buf_data(&b), "a&amp;b&lt;c&gt;d&quot;e&#39;f");
	buf_free(&b);
}

static void html_leaves_plain_text_and_utf8_alone(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	const char *s = "caf\xc3\xa9 \xe2\x80\x94 ok";
	buf_put_html(&b, s, strlen(s));
	assert_string_equal(buf_data(&b), s);
	buf_free(&b);
}

static void html_escapes_only_the_given_length(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "[");
	buf_put_html(&b, "<<>>", 2);
	buf_puts(&b, "]");
	assert_string_equal(buf_data(&b), "[&lt;&lt;]");
	buf_free(&b);
}

static void html_escapes_special_characters_at_both_ends(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_put_html(&b, "&x&", 3);
	assert_string_equal(buf_data(&b), "&amp;x&amp;");
	buf_free(&b);
}

static void detach_of_empty_buffer_gives_empty_string(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	char *s = buf_detach(&b);
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	free(s);
}

static void detach_hands_over_the_bytes_and_empties_the_buffer(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "report");
	char *s = buf_detach(&b);
	assert_string_equal(s, "report");
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	assert_string_equal(buf_data(&b), "");
	/* The buffer is usable again. */
	buf_puts(&b, "next");
	assert_string_equal(buf_data(&b), "next");
	buf_free(&b);
	free(s);
}

static void free_leaves_the_buffer_empty(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "abc");
	buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	buf_free(&b);
}

static void xasprintf_formats_into_a_new_string(void **state)
{
	(void)state;
	char *s = xasprintf("%s/%03d", "dir", 7);
	assert_string_equal(s, "dir/007");
	free(s);
	s = xasprintf("%s", "");
	assert_string_equal(s, "");
	free(s);
}

static void xstrndup_stops_at_n(void **state)
{
	(void)state;
	char *s = xstrndup("abcdef", 3);
	assert_string_equal(s, "abc");
	free(s);
}

static void span_eq_compares_length_and_bytes(void **state)
{
	(void)state;
	struct span s = {"title: x", 5};
	assert_true(span_eq(s, "title"));
	assert_false(span_eq(s, "titl"));
	assert_false(span_eq(s, "title:"));
	assert_false(span_eq(s, "Title"));
	struct span empty = {"", 0};
	assert_true(span_eq(empty, ""));
}

static void suffix_and_prefix_are_checked_exactly(void **state)
{
	(void)state;
	assert_true(str_has_suffix("hw07.md", ".md"));
	assert_true(str_has_suffix(".md", ".md"));
	assert_false(str_has_suffix("md", ".md"));
	assert_false(str_has_suffix("hw07.mdx", ".md"));
	assert_true(str_has_suffix("x", ""));
	assert_true(str_has_prefix("content/hw07", "content/"));
	assert_false(str_has_prefix("cont", "content/"));
	assert_true(str_has_prefix("x", ""));
}

static void edit_distance_counts_insertions_deletions_substitutions(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("kitten", "sitting", 10), 3);
	assert_int_equal(edit_distance("title", "title", 10), 0);
	assert_int_equal(edit_distance("", "abc", 10), 3);
	assert_int_equal(edit_distance("abc", "", 10), 3);
	assert_int_equal(edit_distance("title", "titl", 10), 1);
	assert_int_equal(edit_distance("title", "tXtle", 10), 1);
	/* A transposition is two edits in Levenshtein distance. */
	assert_int_equal(edit_distance("titel", "title", 10), 2);
	assert_int_equal(edit_distance("outptu", "output", 10), 2);
}

static void edit_distance_above_the_cap_is_cap_plus_one(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("abc", "xyz", 1), 2);
	assert_int_equal(edit_distance("kitten", "sitting", 2), 3);
	assert_int_equal(edit_distance("a", "abcdefgh", 3), 4);
	assert_int_equal(edit_distance("abc", "abd", 1), 1);
	assert_int_equal(edit_distance("abc", "abc", 0), 0);
	assert_int_equal(edit_distance("abc", "abd", 0), 1);
}

static void edit_distance_is_symmetric(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("summary", "sumary", 5), edit_distance("sumary", "summary", 5));
	assert_int_equal(edit_distance("base_url", "baseurl", 5), 1);
	assert_int_equal(edit_distance("baseurl", "base_url", 5), 1);
}

static const char *const front_keys[] = {"title", "author", "date", "summary", "draft", "runs", NULL};
static const char *const site_keys[] = {"title", "author", "base_url", "output", "paper", "parsers", NULL};

static void closest_name_suggests_title_for_titel(void **state)
{
	(void)state;
	assert_string_equal(closest_name("titel", front_keys), "title");
}

static void closest_name_suggests_output_for_outptu(void **state)
{
	(void)state;
	assert_string_equal(closest_name("outptu", site_keys), "output");
}

static void closest_name_suggests_on_one_missing_letter(void **state)
{
	(void)state;
	assert_string_equal(closest_name("sumary", front_keys), "summary");
	assert_string_equal(closest_name("baseurl", site_keys), "base_url");
	assert_string_equal(closest_name("auther", front_keys), "author");
}

static void closest_name_is_null_when_nothing_is_close(void **state)
{
	(void)state;
	assert_null(closest_name("colour", front_keys));
	assert_null(closest_name("stylesheet", site_keys));
	assert_null(closest_name("zzzzz", front_keys));
}

static void closest_name_of_no_candidates_is_null(void **state)
{
	(void)state;
	static const char *const none[] = {NULL};
	assert_null(closest_name("title", none));
}

static void closest_name_returns_the_candidate_pointer(void **state)
{
	(void)state;
	assert_ptr_equal(closest_name("draf", front_keys), front_keys[4]);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* str_sort() gives qsort()'s strcmp order on n strings made by gen. */
static void check_sort(size_t n, char *(*gen)(size_t i, size_t n))
{
	char **a = xcalloc(n + 1, sizeof *a), **b = xcalloc(n + 1, sizeof *b);
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] = gen(i, n);
	str_sort(a, n);
	qsort(b, n, sizeof *b, cmp_str);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(a[i], b[i]);
	for (size_t i = 0; i < n; i++)
		free(a[i]);
	free(a);
	free(b);
}

/* words of every length around 8, sharing long prefixes, with bytes
 * above 0x7F (unsigned, as strcmp compares them) */
static char *gen_mixed(size_t i, size_t n)
{
	(void)n;
	static const char *const stem[] = {"", "a", "accelerat", "accelerate", "\xc3\xa9t\xc3\xa9",
					   "zz", "loss_0000", "0.412"};
	unsigned x = (unsigned)(i * 2654435761u);
	return xasprintf("%s%u%s", stem[x % 8], x % 97, (x >> 8) % 3 ? "" : "tail\xff");
}

static char *gen_ascending(size_t i, size_t n)
{
	(void)n;
	return xasprintf("term%08zu", i);
}

static char *gen_descending(size_t i, size_t n)
{
	return xasprintf("%08zu", n - i);
}

static char *gen_same_prefix(size_t i, size_t n)
{
	(void)n;
	return xasprintf("abcdefgh%zu", (i * 7919) % 1000);
}

static void str_sort_orders_as_strcmp(void **state)
{
	(void)state;
	check_sort(0, gen_mixed);
	check_sort(1, gen_mixed);
	for (size_t n = 2; n < 40; n++)
		check_sort(n, gen_mixed);
	check_sort(5000, gen_mixed);
	check_sort(3000, gen_ascending);
	check_sort(3000, gen_descending);
	check_sort(1000, gen_same_prefix);
}

static void str_sort_order_gives_the_indexes_in_order(void **state)
{
	(void)state;
	char w0[] = "loss", w1[] = "accuracy", w2[] = "step", w3[] = "a", w4[] = "accuracy_top5",
	     w5[] = "rate";
	char *v[] = {w0, w1, w2, w3, w4, w5};
	uint32_t order[6];
	str_sort_order(v, 6, order);
	static const uint32_t want[] = {3, 1, 4, 0, 5, 2};
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(order[i], want[i]);
	assert_string_equal(v[0], "loss"); /* v itself unmoved */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_buffer_data_is_empty_string),
		cmocka_unit_test(put_keeps_nul),
		cmocka_unit_test(str_sort_orders_as_strcmp),
		cmocka_unit_test(str_sort_order_gives_the_indexes_in_order),
		cmocka_unit_test(buffer_grows_past_its_first_allocation),
		cmocka_unit_test(put_copies_embedded_nul_bytes),
		cmocka_unit_test(put_of_nothing_still_terminates),
		cmocka_unit_test(grow_reserves_room_without_changing_length),
		cmocka_unit_test(grow_of_a_new_buffer_leaves_an_empty_string),
		cmocka_unit_test(printf_appends_formatted_text),
		cmocka_unit_test(printf_of_long_text_grows_the_buffer),
		cmocka_unit_test(clear_empties_but_keeps_nul),
		cmocka_unit_test(clear_of_a_new_buffer_does_nothing),
		cmocka_unit_test(html_escapes_the_five_special_characters),
		cmocka_unit_test(html_leaves_plain_text_and_utf8_alone),
		cmocka_unit_test(html_escapes_only_the_given_length),
		cmocka_unit_test(html_escapes_special_characters_at_both_ends),
		cmocka_unit_test(detach_of_empty_buffer_gives_empty_string),
		cmocka_unit_test(detach_hands_over_the_bytes_and_empties_the_buffer),
		cmocka_unit_test(free_leaves_the_buffer_empty),
		cmocka_unit_test(xasprintf_formats_into_a_new_string),
		cmocka_unit_test(xstrndup_stops_at_n),
		cmocka_unit_test(span_eq_compares_length_and_bytes),
		cmocka_unit_test(suffix_and_prefix_are_checked_exactly),
		cmocka_unit_test(edit_distance_counts_insertions_deletions_substitutions),
		cmocka_unit_test(edit_distance_above_the_cap_is_cap_plus_one),
		cmocka_unit_test(edit_distance_is_symmetric),
		cmocka_unit_test(closest_name_suggests_title_for_titel),
		cmocka_unit_test(closest_name_suggests_output_for_outptu),
		cmocka_unit_test(closest_name_suggests_on_one_missing_letter),
		cmocka_unit_test(closest_name_is_null_when_nothing_is_close),
		cmocka_unit_test(closest_name_of_no_candidates_is_null),
		cmocka_unit_test(closest_name_returns_the_candidate_pointer),
		cmocka_unit_test(mem_first_of_finds_each_byte_at_every_place),
		cmocka_unit_test(mem_first_of_takes_sets_of_one_to_four_high_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
