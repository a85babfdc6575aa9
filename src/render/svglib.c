/* svglib.c: librsvg's functions the PDF calls, opened at the first SVG
 * it draws rather than at every start of logdown (base/lazylib.h). */
#include <assert.h>

#include "base/lazylib.h"
#include "pdf_int.h"

static struct svglib fns;

static const struct lazysym syms[] = {
	{"rsvg_handle_new_from_data", &fns.new_from_data},
	{"rsvg_handle_new_from_file", &fns.new_from_file},
	{"rsvg_handle_set_dpi", &fns.set_dpi},
	{"rsvg_handle_get_intrinsic_size_in_pixels", &fns.get_intrinsic_size_in_pixels},
	{"rsvg_handle_get_intrinsic_dimensions", &fns.get_intrinsic_dimensions},
	{"rsvg_handle_render_document", &fns.render_document},
	{NULL, NULL},
};

#ifndef RSVG_SONAME
#define RSVG_SONAME "librsvg-2.so.2"
#endif

static struct lazylib lib = {.soname = RSVG_SONAME, .package = "librsvg2-2", .syms = syms};

const struct svglib *svglib(const char **why)
{
	return lazylib_load(&lib, why) ? &fns : NULL;
}

const struct svglib *svglib_loaded(void)
{
	const char *why;
	const struct svglib *l = svglib(&why);
	assert(l);
	return l;
}
