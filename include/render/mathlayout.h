/* mathlayout.h: MathML laid out for the PDF by logdown itself, with the
 * OpenType MATH table of the math font (TeX Gyre DejaVu Math) through
 * HarfBuzz, following MathML Core's layout rules, and drawn on cairo.
 * The page's browser draws the same MathML with the same font. */
#ifndef LOGDOWN_MATHLAYOUT_H
#define LOGDOWN_MATHLAYOUT_H

#include <cairo.h>
#include <pango/pango.h>
#include <stdbool.h>
#include <stddef.h>

/* The math font, found through fontmap (NULL: pango's default one);
 * NULL when no font with a MATH table is installed. */
struct math_font;
struct math_font *math_font_new(PangoFontMap *fontmap);
void math_font_free(struct math_font *f);
/* A constant of the font's MATH table (HarfBuzz's name without its
 * prefix, lower case: "axis_height", "fraction_rule_thickness") in
 * points at size; a percent constant as its percent; NaN for a name
 * it does not know. */
double math_font_constant(const struct math_font *f, const char *name, double size);

/* A laid-out formula.  Values: an <mn> with data-ld-href="URL" is
 * drawn in the value colour and linked; data-ld-missing="1" in the
 * missing colour. */
struct math_layout;
struct math_colours {
	unsigned text, value, missing; /* 0xRRGGBB */
};
/* NULL when xml is not well-formed.  Elements it does not know are
 * rows; nesting deeper than a limit is left out. */
struct math_layout *math_layout_new(struct math_font *f, const char *xml, size_t len, double size,
				    const struct math_colours *c);
void math_layout_free(struct math_layout *m);
/* Its width and its extent above and below the baseline, in points;
 * display: <math display="block">. */
void math_layout_extents(const struct math_layout *m, double *w, double *ascent,
			 double *descent);
bool math_layout_display(const struct math_layout *m);

typedef void (*math_link_fn)(void *ctx, const char *href, double x, double y, double w, double h);
/* Draws m with its baseline's left at (x, baseline); link (may be NULL)
 * is called with each value's box (x, y: its top left). */
void math_layout_draw(const struct math_layout *m, cairo_t *cr, double x, double baseline,
		      math_link_fn link, void *ctx);

/* For tests: the box of the nth (from 0, in the order the boxes are
 * drawn: a base before its scripts, an overscript before an underscript) element
 * named tag, x and baseline from the formula's origin (baseline: down
 * is positive), and what its layout measured: for mfrac the bar's
 * middle above the baseline (a) and its thickness (b); for msup,
 * msub, msubsup the superscript's shift up (a) and the subscript's
 * down (b); for mo its stretched height + depth (a). */
struct math_fact {
	double x, baseline, w, ascent, descent;
	double a, b;
};
bool math_layout_find(const struct math_layout *m, const char *tag, int nth,
		      struct math_fact *out);

#endif
