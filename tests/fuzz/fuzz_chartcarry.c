/* fuzz_chartcarry.c: a chart's carry over appends (resolve/chartcarry.c,
 * draw/carry.c) read from bytes a forger made: the memo that holds it is
 * sealed (a memo without the seal is fuzz_cache's), so only the
 * reader's checks and the drawing's stand between the bytes and a
 * drawing that resumes from them.
 *
 * The first byte chooses how the carry is made.  Even: a genuine one,
 * kept by drawing a line (bit 1 of the byte: a scatter) of 3,000
 * points with a gap whose first 2,400 are carried, with the rest of the
 * input as edits, 5 bytes each (a 32-bit offset, taken modulo the
 * size, and a byte to xor there); odd: the rest of the input is the
 * carry.  Then:
 *
 *   - a carry refused is fine; one accepted is drawn from, with the 600
 *     new points, as an SVG and (bit 2 of the byte) a PNG (a drawing
 *     that finds no projection of its geometry fails: fine), and its
 *     digest taken;
 *   - a genuine carry without edits is accepted, and its drawing and
 *     digest are those of the drawing from every point.
 *
 * The genuine carry of each chart type is made once and kept (it
 * depends on nothing else), and the PNG, whose encoding is most of a
 * drawing's time, is drawn only when the input asks: about 10 inputs a
 * second were run before, when every input drew four charts. */
#include "fuzz.h"

#include <math.h>

#include "../../src/resolve/memoize.h"

enum { NPTS = 3000, BASE = 2400 };

static double xs[NPTS], ys[NPTS];

static void points(void)
{
	uint32_t seed = 7;
	for (size_t i = 0; i < NPTS; i++) {
		seed = seed * 1664525u + 1013904223u;
		xs[i] = (double)(i + 1);
		ys[i] = 2 + 5 * exp(-(double)i / 900) + (double)(seed >> 8) / (1 << 24) - 0.5;
	}
	ys[NPTS / 3] = NAN;
}

static void chart_of(struct chart *c, struct chart_series *s, enum chart_type t)
{
	memset(c, 0, sizeof *c);
	c->type = t;
	c->width = 720;
	c->height = 405;
	c->series = s;
	c->nseries = 1;
}

/* A genuine carry's bytes, and the SVG and digest of the drawing from
 * every point it was kept by. */
static void genuine(enum chart_type t, struct buf *bytes, struct buf *svg, struct cache_key *dg)
{
	static char label[] = "";
	struct series_carry sk = {.base = BASE, .points = BASE};
	struct chart_series s = {label, xs, ys, NPTS, 0, &sk.draw, 0};
	chart_carry_begin(&sk.draw, &s, BASE);
	struct chart c;
	chart_of(&c, &s, t);
	if (!chart_render(&c, CHART_SVG, svg, NULL))
		abort();
	struct buf png = BUF_INIT;
	if (!chart_render(&c, CHART_PNG, &png, NULL))
		abort();
	buf_free(&png);
	*dg = chartcarry_digest(&c, &s, &sk);
	chartcarry_write(&sk, bytes);
	chart_carry_clear(&sk.draw);
	buf_free(&sk.hash);
}

/* The genuine carry of each chart type, made once. */
static struct made {
	bool done;
	struct buf bytes, svg;
	struct cache_key dg;
} made[2];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static bool ready;
	if (!ready) {
		points();
		ready = true;
	}
	bool scatter = data[0] & 2, png = data[0] & 4;
	enum chart_type t = scatter ? CHART_SCATTER : CHART_LINE;
	struct buf bytes = BUF_INIT;
	const struct buf *want = NULL;
	struct cache_key want_dg = {{0}};
	bool edited = false;
	if (data[0] & 1) {
		buf_put(&bytes, (const char *)data + 1, size - 1);
	} else {
		struct made *m = &made[scatter];
		if (!m->done) {
			genuine(t, &m->bytes, &m->svg, &m->dg);
			m->done = true;
		}
		buf_put(&bytes, m->bytes.data, m->bytes.len);
		want = &m->svg;
		want_dg = m->dg;
		for (size_t i = 1; i + 5 <= size; i += 5) {
			uint32_t off;
			memcpy(&off, data + i, 4);
			if (bytes.len && data[i + 4]) {
				bytes.data[off % bytes.len] ^= (char)data[i + 4];
				edited = true;
			}
		}
	}
	struct series_carry sk = {.base = BASE};
	bool ok = chartcarry_read(bytes.data, bytes.len, BASE, &sk);
	if (want && !edited && !ok)
		abort(); /* a genuine carry refused */
	if (ok) {
		sk.resumed = true;
		static char label[] = "";
		struct chart_series s = {label, xs + sk.points, ys + sk.points, NPTS, 0, &sk.draw,
					 sk.points};
		struct chart c;
		chart_of(&c, &s, t);
		struct buf svg = BUF_INIT, raster = BUF_INIT;
		bool drawn = chart_render(&c, CHART_SVG, &svg, NULL);
		if (png)
			chart_render(&c, CHART_PNG, &raster, NULL);
		struct cache_key dg = chartcarry_digest(&c, &s, &sk);
		if (want && !edited &&
		    (!drawn || svg.len != want->len || memcmp(svg.data, want->data, want->len) != 0 ||
		     memcmp(dg.b, want_dg.b, sizeof dg.b) != 0))
			abort(); /* resumed, not the drawing from every point */
		buf_free(&svg);
		buf_free(&raster);
	}
	chart_carry_clear(&sk.draw);
	buf_free(&sk.hash);
	buf_free(&bytes);
	return 0;
}
