/* test_font.c: the font lock is recursive and released as often as it
 * is taken; the shared pango context measures text the same at any
 * scale, at the resolution it was given. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>

#include "draw/font.h"

static void *lock_and_unlock(void *arg)
{
	font_lock();
	*(bool *)arg = true;
	font_unlock();
	return NULL;
}

static void lock_is_recursive_and_released_as_often_as_taken(void **state)
{
	(void)state;
	font_lock();
	font_lock(); /* a PDF page drawing a chart: no deadlock */
	font_unlock();
	font_unlock();
	/* Another thread gets it now, or join would wait forever. */
	bool got = false;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, lock_and_unlock, &got), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(got);
}

/* The logical width and height, in units of cr's user space, of s in
 * DejaVu Sans 10 set with a context from font_context_new(). */
static void measure(double scale, double dpi, double *w, double *h)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400, 100);
	cairo_t *cr = cairo_create(s);
	cairo_scale(cr, scale, scale);
	font_lock();
	PangoContext *pc = font_context_new(cr, dpi, CAIRO_ANTIALIAS_GRAY);
	PangoLayout *l = pango_layout_new(pc);
	PangoFontDescription *f = pango_font_description_from_string("DejaVu Sans 10");
	pango_layout_set_font_description(l, f);
	pango_layout_set_text(l, "Training loss, bs=2048 (tokens/s)", -1);
	PangoRectangle r;
	pango_layout_get_extents(l, NULL, &r);
	*w = r.width / (double)PANGO_SCALE;
	*h = r.height / (double)PANGO_SCALE;
	pango_font_description_free(f);
	g_object_unref(l);
	g_object_unref(pc);
	font_unlock();
	cairo_destroy(cr);
	cairo_surface_destroy(s);
}

static void text_measures_the_same_at_1x_and_2x(void **state)
{
	(void)state;
	double w1, h1, w2, h2;
	measure(1, 96, &w1, &h1);
	measure(2, 96, &w2, &h2);
	assert_true(w1 > 0 && h1 > 0);
	assert_float_equal(w1, w2, 1e-9);
	assert_float_equal(h1, h2, 1e-9);
}

static void size_follows_the_given_resolution(void **state)
{
	(void)state;
	double w96, h96, w72, h72;
	measure(1, 96, &w96, &h96);
	measure(1, 72, &w72, &h72);
	/* 10 points at 96 dpi are 13.3 pixels: a third wider than at 72. */
	assert_float_equal(w96 / w72, 96.0 / 72.0, 0.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_is_recursive_and_released_as_often_as_taken),
		cmocka_unit_test(text_measures_the_same_at_1x_and_2x),
		cmocka_unit_test(size_follows_the_given_resolution),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
