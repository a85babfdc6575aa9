/* font.c: the font lock and the pango context that the charts and the
 * PDF share (see font.h).
 *
 * pango, cairo and fontconfig keep the fonts they loaded until exit.
 * Releasing them at exit raced pango's own threads (a cairo assertion
 * now and then), so they are left to the exit; the tests' leak checker
 * is told about those caches in tests/lsan.supp. */
#include "draw/font.h"

#include <pthread.h>

/* Fonts: FreeType faces, which cairo shares between threads, and
 * fontconfig are not safe to use from two threads at once (seen as
 * crashes in libfreetype and libcairo under -j), so everything that
 * draws text takes this lock.  Recursive: a PDF page draws charts. */
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

static void lock_init(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&lock, &a);
	pthread_mutexattr_destroy(&a);
}

void font_lock(void)
{
	pthread_once(&lock_once, lock_init);
	pthread_mutex_lock(&lock);
}

void font_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

PangoContext *font_context_new(cairo_t *cr, double dpi, cairo_antialias_t aa)
{
	/* Unhinted metrics: text measures the same at 1x and 2x and on
	 * every machine; fixed resolution, whatever fontconfig says. */
	PangoContext *pc = pango_cairo_create_context(cr);
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_antialias(fo, aa);
	pango_cairo_context_set_font_options(pc, fo);
	cairo_font_options_destroy(fo);
	pango_cairo_context_set_resolution(pc, dpi);
	pango_context_set_round_glyph_positions(pc, FALSE);
	return pc;
}
