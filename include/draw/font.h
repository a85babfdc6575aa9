/* font.h: text on cairo through pango, shared by the charts (draw/) and
 * the PDF (render/): the lock every drawing of text takes, and the
 * pango context both set text with.
 *
 * pango, cairo and fontconfig keep the fonts they load until the
 * process exits; leak checkers are told about those caches in
 * tests/lsan.supp. */
#ifndef LOGDOWN_FONT_H
#define LOGDOWN_FONT_H

#include <cairo.h>
#include <pango/pangocairo.h>

/* The lock every drawing of text takes (chart_render() and chart_draw()
 * take it themselves; the PDF takes it around a whole document): the
 * font libraries under cairo and pango are not safe from two threads at
 * once.  Recursive: a thread holding it may take it again (a PDF page
 * draws charts), and releases it as often as it took it. */
void font_lock(void);
void font_unlock(void);

/* A pango context for setting text on cr, as cr is transformed now.
 * Metrics are unhinted and glyphs are not hinted, so that a text
 * measures the same at any scale and on every machine; the resolution
 * is `dpi` whatever fontconfig says (96: font sizes in CSS pixels, as
 * the charts use; 72: in points, as the PDF does); glyph positions are
 * not rounded to whole pixels.  `aa` is the antialiasing
 * (CAIRO_ANTIALIAS_DEFAULT leaves cairo's own).  Take font_lock()
 * while using it.  Caller frees with g_object_unref(). */
PangoContext *font_context_new(cairo_t *cr, double dpi, cairo_antialias_t aa);

#endif
