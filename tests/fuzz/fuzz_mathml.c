/* fuzz_mathml.c: MathML read, laid out and drawn as the PDF does it
 * (render/mathlayout.h): whatever the bytes, no crash, no leak, and a
 * formula that is laid out has finite extents.  Unknown elements are
 * rows, missing children are none, nesting past the limit is left out. */
#include "fuzz.h"

#include <cairo.h>
#include <math.h>

#include "draw/font.h"
#include "render/mathlayout.h"

static struct math_font *font;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	font_lock();
	if (!font)
		font = math_font_new(NULL);
	if (!font) {
		font_unlock();
		return 0;
	}
	const struct math_colours c = {0x1a1a1a, 0x1d3f66, 0xb3261e};
	struct math_layout *m = math_layout_new(font, (const char *)data, size, 10, &c);
	if (m) {
		double w, a, d;
		math_layout_extents(m, &w, &a, &d);
		if (!isfinite(w) || !isfinite(a) || !isfinite(d))
			abort();
		cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
		cairo_t *cr = cairo_create(s);
		math_layout_draw(m, cr, 0, 20, NULL, NULL);
		cairo_destroy(cr);
		cairo_surface_destroy(s);
		struct math_fact f;
		math_layout_find(m, "mo", 0, &f);
		math_layout_free(m);
	}
	font_unlock();
	return 0;
}
