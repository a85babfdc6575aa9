/* test_wire.c: the cache files' byte layout (data/wire.h): what is put
 * reads back the same, in little-endian bytes whatever the machine, and
 * a cursor given too few bytes, or a length larger than what is left,
 * turns bad and yields zeros and empty views, never a read past its
 * end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/wire.h"

static void what_is_put_reads_back_in_little_endian_bytes(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	wire_put_u32(&b, 0x01020304u);
	wire_put_u64(&b, 0x1122334455667788ull);
	wire_put_f64(&b, -2.5);
	wire_put_bytes(&b, "a\0b", 3);
	wire_put_str(&b, "loss");
	wire_put_str(&b, NULL);
	static const unsigned char head[] = {4, 3, 2, 1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
	assert_memory_equal(b.data, head, sizeof head);
	assert_int_equal(b.len, 4 + 8 + 8 + (8 + 3) + (8 + 4) + 8);
	struct wire_rd r = {b.data, b.data + b.len, false};
	assert_int_equal(wire_u32(&r), 0x01020304u);
	assert_true(wire_u64(&r) == 0x1122334455667788ull);
	assert_true(wire_f64(&r) == -2.5);
	struct span s = wire_span(&r);
	assert_int_equal(s.len, 3);
	assert_memory_equal(s.p, "a\0b", 3);
	char *t = wire_str(&r);
	assert_string_equal(t, "loss");
	free(t);
	t = wire_str(&r);
	assert_string_equal(t, "");
	free(t);
	assert_false(r.bad);
	assert_true(r.p == r.end);
	/* one more read: past the end */
	assert_true(wire_u64(&r) == 0);
	assert_true(r.bad);
	buf_free(&b);
}

static void short_or_lying_bytes_turn_the_cursor_bad(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	wire_put_u64(&b, 1000); /* a length of 1000, then 3 bytes */
	buf_put(&b, "abc", 3);
	struct wire_rd r = {b.data, b.data + b.len, false};
	struct span s = wire_span(&r);
	assert_true(r.bad);
	assert_int_equal(s.len, 0);
	/* once bad, every read is zero, and the cursor does not move */
	const char *at = r.p;
	char out[4] = "xyz";
	assert_false(wire_get(&r, out, 3));
	assert_memory_equal(out, "\0\0\0", 3);
	assert_int_equal(wire_u32(&r), 0);
	assert_true(r.p == at);
	/* a count of 8-byte things larger than the bytes left is a lie */
	r = (struct wire_rd){b.data, b.data + b.len, false};
	assert_int_equal(wire_count(&r, 1), 0);
	assert_true(r.bad);
	/* a string with a NUL byte in it */
	buf_clear(&b);
	wire_put_bytes(&b, "a\0", 2);
	r = (struct wire_rd){b.data, b.data + b.len, false};
	char *t = wire_str(&r);
	free(t);
	assert_true(r.bad);
	/* a truncated integer */
	r = (struct wire_rd){b.data, b.data + 5, false};
	assert_true(wire_u64(&r) == 0);
	assert_true(r.bad);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(what_is_put_reads_back_in_little_endian_bytes),
		cmocka_unit_test(short_or_lying_bytes_turn_the_cursor_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
