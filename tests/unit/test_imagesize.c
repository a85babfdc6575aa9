/* test_imagesize.c: an image's size read from its header (PNG, JPEG,
 * GIF, WebP), never decoded; anything else, or a header cut short, is
 * not known. */
#define _GNU_SOURCE /* fmemopen() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/imagesize.h"

/* The kind image_size() reads from the len bytes b, with the size. */
static const char *size_of(const char *b, size_t len, unsigned long *w, unsigned long *h)
{
	FILE *f = fmemopen((void *)b, len, "rb");
	assert_non_null(f);
	*w = *h = 0;
	const char *kind = image_size(f, w, h);
	fclose(f);
	return kind;
}

static void assert_kind(const char *got, const char *want)
{
	assert_non_null(got);
	assert_string_equal(got, want);
}

#define SIZE_OF(lit, w, h) size_of((lit), sizeof(lit) - 1, (w), (h))

static void formats(void **state)
{
	(void)state;
	unsigned long w, h;
	/* PNG: IHDR's width and height, big-endian */
	assert_kind(SIZE_OF("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x75\x30\0\0\x75\x31"
				    "\x08\0\0\0\0",
				    &w, &h),
			    "PNG");
	assert_int_equal(w, 30000);
	assert_int_equal(h, 30001);
	/* JPEG: an APP0 segment, then SOF2 (progressive): height, width */
	assert_kind(SIZE_OF("\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
				    "\xff\xff\xc2\0\x11\x08\x30\x39\x75\x30\x03",
				    &w, &h),
			    "JPEG");
	assert_int_equal(w, 30000);
	assert_int_equal(h, 12345);
	/* DHT (0xC4) is no frame: the SOF0 after it is */
	assert_kind(SIZE_OF("\xff\xd8\xff\xc4\0\x04\0\0\xff\xc0\0\x0b\x08\0\x02\0\x03\x01",
				    &w, &h),
			    "JPEG");
	assert_int_equal(w, 3);
	assert_int_equal(h, 2);
	/* GIF: the logical screen, little-endian */
	assert_kind(SIZE_OF("GIF89a\xff\xff\x01\x02\0\0\0", &w, &h), "GIF");
	assert_int_equal(w, 65535);
	assert_int_equal(h, 513);
	/* WebP: VP8X's canvas, VP8L's and VP8's frame, each minus one or
	 * in 14 bits */
	assert_kind(SIZE_OF("RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0\x2f\x75\0\x2f\x75\0",
				    &w, &h),
			    "WebP");
	assert_int_equal(w, 30000);
	assert_int_equal(h, 30000);
	/* VP8L: 14 bits of width-1 (9), then 14 of height-1 (4) */
	assert_kind(SIZE_OF("RIFF\0\0\0\0WEBPVP8L\x0a\0\0\0\x2f\x09\x00\x01\x00\0\0",
				    &w, &h),
			    "WebP");
	assert_int_equal(w, 10);
	assert_int_equal(h, 5);
	assert_kind(SIZE_OF("RIFF\0\0\0\0WEBPVP8 \x0a\0\0\0\0\0\0\x9d\x01\x2a\x40\x01\xf0"
				    "\x00",
				    &w, &h),
			    "WebP");
	assert_int_equal(w, 320);
	assert_int_equal(h, 240);
}

static void unknown_or_cut_short(void **state)
{
	(void)state;
	unsigned long w, h;
	assert_null(SIZE_OF("<svg xmlns=\"http://www.w3.org/2000/svg\"/>", &w, &h));
	assert_null(SIZE_OF("BM\0\0\0\0", &w, &h));
	assert_null(SIZE_OF("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0", &w, &h));
	/* a JPEG whose segment lengths lead past its end, or to the scan
	 * before any frame */
	assert_null(SIZE_OF("\xff\xd8\xff\xe0\xff\xff", &w, &h));
	assert_null(SIZE_OF("\xff\xd8\xff\xda\0\x04\0\0", &w, &h));
	assert_null(SIZE_OF("\xff\xd8\xff\xe0\0\x01", &w, &h));
	assert_null(image_size_path("/nonexistent/x.png", &w, &h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats),
		cmocka_unit_test(unknown_or_cut_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
