/* test_chart.c: charts render to valid, repeatable files; big series are
 * reduced; every error says what is wrong; ticks are nice numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw/chart.h"
#include "base/util.h"

/* Cerebras BERT-Large loss per step for two batch sizes. */
static double steps[10] = {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000};
static double loss512[10] = {9.39062, 8.70312, 7.79688, 7.39062, 7.80469,
			     7.53125, 7.35156, 7.27344, 7.35938, 7.12500};
static double loss2048[10] = {9.48438, 8.48438, 7.77344, 7.64062, 7.37500,
			      7.42188, 7.25000, 7.12500, 7.25000, 7.14844};
static char lbl512[] = "bs=512", lbl2048[] = "bs=2048";
static char title[] = "Training loss", xlabel[] = "Step", ylabel[] = "Loss";

static double metis[4] = {4.987, 5.044, 4.465, 5.535};
static double sophia[4] = {1.621, 1.761, 0.597, 3.133};
static char cat_mean[] = "mean", cat_median[] = "median", cat_min[] = "min", cat_max[] = "max";
static char *cats[4] = {cat_mean, cat_median, cat_min, cat_max};
static char lbl_metis[] = "Metis", lbl_sophia[] = "Sophia";

static char pk_name[] = "FP32 peak", bw_hbm[] = "HBM", bw_pcie[] = "PCIe", bw_mpi[] = "MPI";
static char pt_tiled[] = "TiledMatMul", pt_naive[] = "NaiveMatMul";

static struct chart_series line_series[2];
static struct chart_series bar_series[2];
static struct chart_mark peaks[1];
static struct chart_mark bandwidths[3];
static struct chart_point points[2];

/* Charts over the static data above; nothing in them is freed. */
static struct chart make_chart(enum chart_type type)
{
	struct chart c;
	memset(&c, 0, sizeof c);
	c.type = type;
	c.title = title;
	c.x_label = xlabel;
	c.y_label = ylabel;
	line_series[0] = (struct chart_series){lbl512, steps, loss512, 10, 0, NULL, 0};
	line_series[1] = (struct chart_series){lbl2048, steps, loss2048, 10, 0, NULL, 0};
	bar_series[0] = (struct chart_series){lbl_metis, NULL, metis, 4, 0, NULL, 0};
	bar_series[1] = (struct chart_series){lbl_sophia, NULL, sophia, 4, 0, NULL, 0};
	switch (type) {
	case CHART_LINE:
	case CHART_SCATTER:
		c.series = line_series;
		c.nseries = 2;
		break;
	case CHART_BAR:
		c.series = bar_series;
		c.nseries = 2;
		c.categories = cats;
		c.ncategories = 4;
		break;
	case CHART_ROOFLINE:
		c.x_label = c.y_label = NULL;
		peaks[0] = (struct chart_mark){pk_name, 19.5e12};
		bandwidths[0] = (struct chart_mark){bw_hbm, 1.5e12};
		bandwidths[1] = (struct chart_mark){bw_mpi, 6.1e9};
		bandwidths[2] = (struct chart_mark){bw_pcie, 4.26e9};
		points[0] = (struct chart_point){pt_tiled, 140.37, 5.4e12};
		points[1] = (struct chart_point){pt_naive, 0.25, 2.9e11};
		c.peaks = peaks;
		c.npeaks = 1;
		c.bandwidths = bandwidths;
		c.nbandwidths = 3;
		c.points = points;
		c.npoints = 2;
		break;
	}
	return c;
}

static const enum chart_type all_types[] = {CHART_LINE, CHART_BAR, CHART_SCATTER, CHART_ROOFLINE};

static void render_ok(const struct chart *c, enum chart_format f, struct buf *out)
{
	char *err = NULL;
	bool ok = chart_render(c, f, out, &err);
	if (!ok)
		fail_msg("chart_render failed: %s", err ? err : "(no message)");
	assert_null(err);
	assert_true(out->len > 0);
}

/* The error message of a chart that must not render; out stays empty. */
static char *render_err(const struct chart *c)
{
	struct buf out = BUF_INIT;
	char *err = NULL;
	assert_false(chart_render(c, CHART_SVG, &out, &err));
	assert_non_null(err);
	assert_int_equal(out.len, 0);
	buf_free(&out);
	return err;
}

static void assert_render_err(const struct chart *c, const char *want)
{
	char *err = render_err(c);
	assert_string_equal(err, want);
	free(err);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void every_type_renders_svg(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(all_types); i++) {
		struct chart c = make_chart(all_types[i]);
		struct buf out = BUF_INIT;
		render_ok(&c, CHART_SVG, &out);
		assert_true(str_has_prefix(buf_data(&out), "<?xml"));
		assert_non_null(strstr(buf_data(&out), "<svg"));
		/* CSS pixels, not cairo 1.16's default points. */
		assert_non_null(strstr(buf_data(&out), "width=\"720px\" height=\"405px\""));
		assert_non_null(strstr(buf_data(&out), "</svg>"));
		buf_free(&out);
	}
}

static void every_type_renders_png_at_twice_the_size(void **state)
{
	(void)state;
	static const unsigned char magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	for (size_t i = 0; i < ARRAY_LEN(all_types); i++) {
		struct chart c = make_chart(all_types[i]);
		c.width = 600;
		c.height = 300;
		struct buf out = BUF_INIT;
		render_ok(&c, CHART_PNG, &out);
		assert_true(out.len > 24);
		const unsigned char *p = (const unsigned char *)out.data;
		assert_memory_equal(p, magic, 8);
		assert_memory_equal(p + 12, "IHDR", 4);
		assert_int_equal(be32(p + 16), 1200);
		assert_int_equal(be32(p + 20), 600);
		buf_free(&out);
	}
}

static void every_type_renders_pdf(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(all_types); i++) {
		struct chart c = make_chart(all_types[i]);
		struct buf out = BUF_INIT;
		render_ok(&c, CHART_PDF, &out);
		assert_true(str_has_prefix(buf_data(&out), "%PDF-"));
		/* No creation date, or two runs would differ. */
		assert_null(strstr(buf_data(&out), "/CreationDate"));
		buf_free(&out);
	}
}

/* chart_draw() onto a cairo context of the caller's (the PDF's page):
 * inside its box only, with the series' colours, the context as it was
 * afterwards. */
static void every_type_draws_onto_a_given_context(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(all_types); i++) {
		struct chart c = make_chart(all_types[i]);
		cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400, 260);
		cairo_t *cr = cairo_create(s);
		cairo_set_source_rgb(cr, 1, 0, 0);
		cairo_paint(cr);
		char *err = NULL;
		assert_true(chart_draw(&c, cr, 20, 10, 0.5, &err));
		assert_null(err);
		cairo_matrix_t m;
		cairo_get_matrix(cr, &m);
		assert_true(m.xx == 1 && m.yy == 1 && m.x0 == 0 && m.y0 == 0);
		cairo_surface_flush(s);
		const unsigned char *d = cairo_image_surface_get_data(s);
		int stride = cairo_image_surface_get_stride(s);
		/* outside the 360 x 202.5 box: untouched red */
		uint32_t out = *(const uint32_t *)(const void *)(d + 5 * stride + 5 * 4);
		assert_int_equal(out & 0xffffff, 0xff0000);
		uint32_t below = *(const uint32_t *)(const void *)(d + 250 * stride + 200 * 4);
		assert_int_equal(below & 0xffffff, 0xff0000);
		/* inside: the white ground and the first series' blue */
		uint32_t ground = *(const uint32_t *)(const void *)(d + 12 * stride + 22 * 4);
		assert_int_equal(ground & 0xffffff, 0xffffff);
		long blue = 0;
		for (int y = 10; y < 212; y++)
			for (int x = 20; x < 380; x++) {
				uint32_t v = *(const uint32_t *)(const void *)(d + y * stride + x * 4);
				int r = (v >> 16) & 255, g = (v >> 8) & 255, b = v & 255;
				blue += r < 40 && g > 90 && g < 140 && b > 150 && b < 210;
			}
		if (all_types[i] != CHART_ROOFLINE)
			assert_true(blue > 10);
		cairo_destroy(cr);
		cairo_surface_destroy(s);
	}
	struct chart none = make_chart(CHART_LINE);
	none.nseries = 0;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10);
	cairo_t *cr = cairo_create(s);
	char *err = NULL;
	assert_false(chart_draw(&none, cr, 0, 0, 1, &err));
	assert_string_equal(err, "the chart has no series");
	free(err);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
}

static void same_chart_gives_same_bytes(void **state)
{
	(void)state;
	static const enum chart_format formats[] = {CHART_SVG, CHART_PNG, CHART_PDF};
	for (size_t i = 0; i < ARRAY_LEN(all_types); i++)
		for (size_t f = 0; f < ARRAY_LEN(formats); f++) {
			struct chart c = make_chart(all_types[i]);
			struct buf a = BUF_INIT, b = BUF_INIT;
			render_ok(&c, formats[f], &a);
			render_ok(&c, formats[f], &b);
			assert_int_equal(a.len, b.len);
			assert_memory_equal(a.data, b.data, a.len);
			buf_free(&a);
			buf_free(&b);
		}
}

static void render_appends_to_the_buffer(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	struct buf out = BUF_INIT;
	buf_puts(&out, "before:");
	render_ok(&c, CHART_SVG, &out);
	assert_true(str_has_prefix(buf_data(&out), "before:<?xml"));
	buf_free(&out);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void million_points_give_a_small_svg_quickly(void **state)
{
	(void)state;
	size_t n = 1000000;
	double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
	uint32_t seed = 12345;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = (double)i;
		y[i] = 2 + 5 * exp(-(double)i / 3e5) + (double)(seed >> 8) / (1 << 24) - 0.5;
	}
	static char label[] = "loss";
	struct chart_series s = {label, x, y, n, 0, NULL, 0};
	struct chart c;
	memset(&c, 0, sizeof c);
	c.type = CHART_LINE;
	c.series = &s;
	c.nseries = 1;
	struct buf out = BUF_INIT;
	double t0 = now();
	render_ok(&c, CHART_SVG, &out);
	double dt = now() - t0;
	assert_true(out.len < 200 * 1000);
	assert_true(dt < 2.0);
	buf_free(&out);

	/* A scatter of a million points is thinned as well. */
	c.type = CHART_SCATTER;
	t0 = now();
	render_ok(&c, CHART_SVG, &out);
	dt = now() - t0;
	assert_true(out.len < 2 * 1000 * 1000);
	assert_true(dt < 2.0);
	buf_free(&out);
	free(x);
	free(y);
}

static void a_chart_without_series_is_an_error(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	c.nseries = 0;
	assert_render_err(&c, "the chart has no series");
}

static void a_chart_of_empty_series_is_an_error(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	line_series[0].n = 0;
	line_series[1].n = 0;
	assert_render_err(&c, "the chart has no data: every series is empty");
	/* Only gaps is no data either. */
	double nan2[2] = {NAN, NAN};
	struct chart_series s = {lbl512, nan2, nan2, 2, 0, NULL, 0};
	c.series = &s;
	c.nseries = 1;
	assert_render_err(&c, "the chart has no data: every series is empty");
}

static void x_and_y_of_different_lengths_is_an_error(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	line_series[1].n = 9;
	line_series[1].nx = 10;
	assert_render_err(&c, "series 'bs=2048' has 10 x values but 9 y values");
	line_series[1].label = NULL;
	line_series[1].nx = 1;
	assert_render_err(&c, "series 2 has 1 x value but 9 y values");
}

static void non_positive_values_on_a_log_axis_are_an_error(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	double x[3] = {1, 0, 3}, y[3] = {1, 2, -1.5};
	line_series[0] = (struct chart_series){lbl512, x, y, 3, 0, NULL, 0};
	c.x_log = true;
	assert_render_err(&c, "series 'bs=512': x value 0 (point 2) cannot be shown on a log "
			      "axis; values must be > 0");
	c.x_log = false;
	c.y_log = true;
	assert_render_err(&c, "series 'bs=512': y value -1.5 (point 3) cannot be shown on a log "
			      "axis; values must be > 0");
	c = make_chart(CHART_LINE);
	c.y_log = true;
	c.has_y_min = true;
	c.y_min = 0;
	assert_render_err(&c, "y_min (0) must be > 0 on a log axis");
}

static void bars_need_categories(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_BAR);
	c.ncategories = 0;
	assert_render_err(&c, "a bar chart needs categories (the names along x)");
	c = make_chart(CHART_BAR);
	bar_series[0].n = 3;
	assert_render_err(&c, "series 'Metis' has 3 values for 4 categories");
}

static void roofline_needs_peaks_and_bandwidths(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_ROOFLINE);
	c.npeaks = 0;
	assert_render_err(&c, "a roofline needs at least one peak (FLOP/s)");
	c = make_chart(CHART_ROOFLINE);
	c.nbandwidths = 0;
	assert_render_err(&c, "a roofline needs at least one bandwidth (byte/s)");
	c = make_chart(CHART_ROOFLINE);
	bandwidths[1].value = 0;
	assert_render_err(&c, "roofline bandwidth 'MPI' must be > 0 byte/s (got 0)");
	c = make_chart(CHART_ROOFLINE);
	points[1].intensity = -2;
	assert_render_err(&c, "roofline point 'NaiveMatMul' needs intensity and performance > 0 "
			      "(got -2 FLOP/byte, 2.9e+11 FLOP/s)");
}

static void limits_and_size_are_checked(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	c.has_x_min = c.has_x_max = true;
	c.x_min = 5;
	c.x_max = 3;
	assert_render_err(&c, "x_min (5) must be less than x_max (3)");
	c = make_chart(CHART_LINE);
	c.width = 50;
	assert_render_err(&c, "chart width and height must be between 120 and 8000 pixels "
			      "(got 50x405)");
}

static void explicit_limits_and_gaps_render(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	double y[10];
	memcpy(y, loss512, sizeof y);
	y[4] = NAN;
	line_series[0].y = y;
	c.has_y_min = true;
	c.y_min = 7.5;
	c.has_x_max = true;
	c.x_max = 650;
	struct buf out = BUF_INIT;
	render_ok(&c, CHART_PNG, &out);
	buf_free(&out);
	/* x may be left out: the points are numbered. */
	line_series[0].x = NULL;
	line_series[1].x = NULL;
	c = make_chart(CHART_SCATTER);
	line_series[0].x = line_series[1].x = NULL;
	render_ok(&c, CHART_SVG, &out);
	buf_free(&out);
}

static void chart_clear_frees_everything(void **state)
{
	(void)state;
	struct chart c;
	memset(&c, 0, sizeof c);
	c.type = CHART_BAR;
	c.title = xstrdup("t");
	c.x_label = xstrdup("x");
	c.nseries = 1;
	c.series = xcalloc(1, sizeof *c.series);
	c.series[0].label = xstrdup("s");
	c.series[0].y = xcalloc(2, sizeof(double));
	c.series[0].n = 2;
	c.ncategories = 2;
	c.categories = xcalloc(2, sizeof *c.categories);
	c.categories[0] = xstrdup("a");
	c.categories[1] = xstrdup("b");
	c.npeaks = 1;
	c.peaks = xcalloc(1, sizeof *c.peaks);
	c.peaks[0].name = xstrdup("p");
	c.npoints = 1;
	c.points = xcalloc(1, sizeof *c.points);
	c.points[0].label = xstrdup("q");
	chart_clear(&c);
	assert_null(c.series);
	assert_int_equal(c.nseries, 0);
	chart_clear(&c);
}

/* Ticks */

static void assert_ticks(const struct chart_ticks *t, const double *values, const char *const *labels,
			 size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!t->tick[i].label[0])
			continue;
		assert_true(k < n);
		assert_true(fabs(t->tick[i].value - values[k]) <= 1e-9 * fmax(1, fabs(values[k])));
		assert_string_equal(t->tick[i].label, labels[k]);
		k++;
	}
	assert_int_equal(k, n);
}

static void linear_ticks_step_by_one_two_five(void **state)
{
	(void)state;
	struct chart_ticks t;
	assert_true(chart_ticks(0, 1, false, true, 6, &t));
	static const double v1[] = {0, 0.2, 0.4, 0.6, 0.8, 1};
	static const char *const l1[] = {"0", "0.2", "0.4", "0.6", "0.8", "1.0"};
	assert_ticks(&t, v1, l1, 6);
	assert_int_equal(t.n, 6);
	chart_ticks_free(&t);

	/* Widened to whole steps; plain numbers below 10,000. */
	assert_true(chart_ticks(0, 2924, false, true, 7, &t));
	assert_true(t.lo == 0 && t.hi == 3000);
	static const double v2[] = {0, 500, 1000, 1500, 2000, 2500, 3000};
	static const char *const l2[] = {"0", "500", "1000", "1500", "2000", "2500", "3000"};
	assert_ticks(&t, v2, l2, 7);
	chart_ticks_free(&t);

	/* Not widened: only ticks inside. */
	assert_true(chart_ticks(7.125, 9.484, false, false, 6, &t));
	static const double v3[] = {7.5, 8, 8.5, 9};
	static const char *const l3[] = {"7.5", "8.0", "8.5", "9.0"};
	assert_ticks(&t, v3, l3, 4);
	assert_true(t.lo == 7.125 && t.hi == 9.484);
	chart_ticks_free(&t);

	/* 2.5 steps when 2 would give too many. */
	assert_true(chart_ticks(0, 10, false, true, 5, &t));
	static const double v4[] = {0, 2.5, 5, 7.5, 10};
	static const char *const l4[] = {"0", "2.5", "5.0", "7.5", "10.0"};
	assert_ticks(&t, v4, l4, 5);
	chart_ticks_free(&t);
}

static void linear_ticks_use_si_suffixes_and_minus_signs(void **state)
{
	(void)state;
	struct chart_ticks t;
	assert_true(chart_ticks(0, 2.4e9, false, true, 6, &t));
	static const double v1[] = {0, 0.5e9, 1e9, 1.5e9, 2e9, 2.5e9};
	static const char *const l1[] = {"0", "0.5G", "1.0G", "1.5G", "2.0G", "2.5G"};
	assert_ticks(&t, v1, l1, 6);
	chart_ticks_free(&t);

	assert_true(chart_ticks(0, 48000, false, true, 6, &t));
	static const double v2[] = {0, 10000, 20000, 30000, 40000, 50000};
	static const char *const l2[] = {"0", "10k", "20k", "30k", "40k", "50k"};
	assert_ticks(&t, v2, l2, 6);
	chart_ticks_free(&t);

	assert_true(chart_ticks(-1, 1, false, true, 5, &t));
	static const double v3[] = {-1, -0.5, 0, 0.5, 1};
	static const char *const l3[] = {"\xe2\x88\x92" "1.0", "\xe2\x88\x92" "0.5", "0", "0.5",
					 "1.0"};
	assert_ticks(&t, v3, l3, 5);
	chart_ticks_free(&t);

	assert_true(chart_ticks(0, 2.9e-5, false, true, 7, &t));
	static const double v4[] = {0, 5e-6, 1e-5, 1.5e-5, 2e-5, 2.5e-5, 3e-5};
	static const char *const l4[] = {"0", "5\xc2\xb5", "10\xc2\xb5", "15\xc2\xb5",
					 "20\xc2\xb5", "25\xc2\xb5", "30\xc2\xb5"};
	assert_ticks(&t, v4, l4, 7);
	chart_ticks_free(&t);
}

/* Every label of a linear axis has the step's decimals: 0, 0.5, 1.0. */
static void linear_tick_labels_share_their_decimals(void **state)
{
	(void)state;
	struct chart_ticks t;
	assert_true(chart_ticks(0, 1.5, false, true, 4, &t));
	static const double v[] = {0, 0.5, 1, 1.5};
	static const char *const l[] = {"0", "0.5", "1.0", "1.5"};
	assert_ticks(&t, v, l, 4);
	chart_ticks_free(&t);
}

static void log_ticks_label_decades(void **state)
{
	(void)state;
	struct chart_ticks t;
	assert_true(chart_ticks(1.5, 8e5, true, true, 10, &t));
	assert_true(t.lo == 1 && t.hi == 1e6);
	static const double v1[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
	static const char *const l1[] = {"1", "10", "100", "1k", "10k", "100k", "1M"};
	assert_ticks(&t, v1, l1, 7);
	/* Minor ticks at 2..9 of each decade: 6 decades x 8 + 7 decades. */
	assert_int_equal(t.n, 6 * 8 + 7);
	assert_true(t.tick[1].value == 2 && !t.tick[1].major && t.tick[1].label[0] == '\0');
	chart_ticks_free(&t);

	assert_true(chart_ticks(0.001, 0.1, true, false, 10, &t));
	static const double v2[] = {0.001, 0.01, 0.1};
	static const char *const l2[] = {"0.001", "0.01", "0.1"};
	assert_ticks(&t, v2, l2, 3);
	chart_ticks_free(&t);
}

static void log_ticks_thin_labels_over_many_decades(void **state)
{
	(void)state;
	struct chart_ticks t;
	/* 15 decades, room for 5 labels: every third decade, from 1; no
	 * minor ticks over so many decades. */
	assert_true(chart_ticks(0.01, 1e12, true, true, 5, &t));
	static const double v[] = {1, 1e3, 1e6, 1e9, 1e12};
	static const char *const l[] = {"1", "1k", "1M", "1G", "1T"};
	assert_ticks(&t, v, l, 5);
	assert_int_equal(t.n, 15);
	chart_ticks_free(&t);

	assert_true(chart_ticks(1e-6, 1e-4, true, false, 5, &t));
	static const double v2[] = {1e-6, 1e-5, 1e-4};
	static const char *const l2[] = {"10\xe2\x81\xbb\xe2\x81\xb6", "10\xe2\x81\xbb\xe2\x81\xb5",
					 "10\xe2\x81\xbb\xe2\x81\xb4"};
	assert_ticks(&t, v2, l2, 3);
	chart_ticks_free(&t);
}

static void narrow_log_axes_label_minor_ticks(void **state)
{
	(void)state;
	struct chart_ticks t;
	assert_true(chart_ticks(3, 7.5, true, true, 10, &t));
	assert_true(t.lo == 3 && t.hi == 8);
	static const double v[] = {3, 4, 5, 6, 7, 8};
	static const char *const l[] = {"3", "4", "5", "6", "7", "8"};
	assert_ticks(&t, v, l, 6);
	chart_ticks_free(&t);

	/* 2 and 5 are labelled when they give two labels or more. */
	assert_true(chart_ticks(15, 60, true, false, 10, &t));
	static const double v2[] = {20, 50};
	static const char *const l2[] = {"20", "50"};
	assert_ticks(&t, v2, l2, 2);
	chart_ticks_free(&t);
}

static void bad_tick_ranges_are_refused(void **state)
{
	(void)state;
	struct chart_ticks t;
	assert_false(chart_ticks(1, 1, false, true, 5, &t));
	assert_int_equal(t.n, 0);
	assert_false(chart_ticks(0, 10, true, true, 5, &t));
	assert_false(chart_ticks(NAN, 1, false, true, 5, &t));
	assert_false(chart_ticks(0, INFINITY, false, true, 5, &t));
	/* a span a double cannot hold: refused at once (it looped for 10 s) */
	assert_false(chart_ticks(-1e308, 1.7e308, false, true, 5, &t));
	assert_null(t.tick);
}

/* Data from -1e308 to 1.7e308 has no scale: an error naming the axis and
 * what to do, not cairo's "invalid matrix" ten seconds later; with
 * limits set, the chart draws. */
static void a_range_too_wide_for_a_double_is_an_error(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	double x[3] = {1, 2, 3}, y[3] = {-1e308, 1e308, 1.7e308};
	line_series[0] = (struct chart_series){lbl512, x, y, 3, 0, NULL, 0};
	c.nseries = 1;
	assert_render_err(&c, "the y values span -1e+308 to 1.7e+308, a range too wide to draw; "
			      "set y_min and y_max, or leave the outliers out");
	c.has_y_min = c.has_y_max = true;
	c.y_min = -10;
	c.y_max = 10;
	struct buf svg = BUF_INIT;
	render_ok(&c, CHART_SVG, &svg);
	assert_non_null(strstr(buf_data(&svg), "<svg"));
	buf_free(&svg);
	double wx[2] = {-1.5e308, 1.5e308}, wy[2] = {1, 2};
	c = make_chart(CHART_LINE);
	line_series[0] = (struct chart_series){lbl512, wx, wy, 2, 2, NULL, 0};
	c.nseries = 1;
	assert_render_err(&c, "the x values span -1.5e+308 to 1.5e+308, a range too wide to "
			      "draw; set x_min and x_max, or leave the outliers out");
}

/* Layout, as chart_inspect() records it */

/* The roofline of the mpi-cuda-training example: one measured peak, two
 * slow roofs whose ridges sit close, three points below. */
static char ex_peak[] = "TiledMatMul (measured)", ex_pcie[] = "PCIe host to device",
	    ex_mpi[] = "MPI_Allreduce", ex_p1[] = "TiledMatMul, per byte copied",
	    ex_p2[] = "Whole step, per byte copied", ex_p3[] = "Whole step, per byte allreduced";
static struct chart_mark ex_peaks[1], ex_bws[2];
static struct chart_point ex_points[3];

static struct chart example_roofline(void)
{
	struct chart c = make_chart(CHART_ROOFLINE);
	c.title = NULL;
	ex_peaks[0] = (struct chart_mark){ex_peak, 5.4e12};
	ex_bws[0] = (struct chart_mark){ex_pcie, 4.26e9};
	ex_bws[1] = (struct chart_mark){ex_mpi, 6.14e9};
	ex_points[0] = (struct chart_point){ex_p1, 1500, 5.4e12};
	ex_points[1] = (struct chart_point){ex_p2, 1500, 1.75e12};
	ex_points[2] = (struct chart_point){ex_p3, 750, 1.75e12};
	c.peaks = ex_peaks;
	c.npeaks = 1;
	c.bandwidths = ex_bws;
	c.nbandwidths = 2;
	c.points = ex_points;
	c.npoints = 3;
	return c;
}

static bool segment_hits_quad(const struct chart_segment *s, const double *qx, const double *qy)
{
	/* A point of the segment inside the (convex) box, or an edge
	 * crossing; each by the sign of cross products. */
	double px[2] = {s->x0, s->x1}, py[2] = {s->y0, s->y1};
	for (int e = 0; e < 2; e++) {
		int pos = 0, neg = 0;
		for (int i = 0; i < 4; i++) {
			int j = (i + 1) % 4;
			double cr = (qx[j] - qx[i]) * (py[e] - qy[i]) - (qy[j] - qy[i]) * (px[e] - qx[i]);
			pos += cr > 0;
			neg += cr < 0;
		}
		if (pos == 0 || neg == 0)
			return true;
	}
	for (int i = 0; i < 4; i++) {
		int j = (i + 1) % 4;
		double d1 = (s->x1 - s->x0) * (qy[i] - s->y0) - (s->y1 - s->y0) * (qx[i] - s->x0);
		double d2 = (s->x1 - s->x0) * (qy[j] - s->y0) - (s->y1 - s->y0) * (qx[j] - s->x0);
		double d3 = (qx[j] - qx[i]) * (s->y0 - qy[i]) - (qy[j] - qy[i]) * (s->x0 - qx[i]);
		double d4 = (qx[j] - qx[i]) * (s->y1 - qy[i]) - (qy[j] - qy[i]) * (s->x1 - qx[i]);
		if (((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)))
			return true;
	}
	return false;
}

static bool quads_hit(const struct chart_text *a, const struct chart_text *b)
{
	for (int i = 0; i < 4; i++) {
		struct chart_segment e = {a->x[i], a->y[i], a->x[(i + 1) % 4], a->y[(i + 1) % 4]};
		if (segment_hits_quad(&e, b->x, b->y))
			return true;
	}
	return false;
}

/* No label beside the data (bar values, ceilings, ridges, points) nor
 * any legend entry touches a line, bar or marker, or another text. */
static void assert_labels_clear(const struct chart *c, const char *what)
{
	struct chart_layout l;
	char *err = NULL;
	if (!chart_inspect(c, &l, &err))
		fail_msg("%s: %s", what, err);
	assert_true(l.ntexts > 0);
	for (size_t i = 0; i < l.ntexts; i++) {
		const struct chart_text *t = &l.texts[i];
		if (t->kind != CHART_TEXT_MARK && t->kind != CHART_TEXT_LEGEND)
			continue;
		for (size_t k = 0; k < l.nsegs; k++)
			if (segment_hits_quad(&l.segs[k], t->x, t->y))
				fail_msg("%s at %dx%d: '%s' at (%.1f, %.1f) hits the mark (%.1f, %.1f)-(%.1f, %.1f)",
					 what, l.width, l.height, t->text, t->x[0], t->y[0], l.segs[k].x0,
					 l.segs[k].y0, l.segs[k].x1, l.segs[k].y1);
		for (size_t k = 0; k < l.ntexts; k++)
			if (k != i && quads_hit(t, &l.texts[k]))
				fail_msg("%s at %dx%d: '%s' overlaps '%s'", what, l.width, l.height, t->text,
					 l.texts[k].text);
	}
	chart_layout_free(&l);
}

static const int sizes[][2] = {{720, 405}, {360, 354}, {480, 300}, {1000, 500}};

static void labels_never_overlap_lines_or_labels(void **state)
{
	(void)state;
	/* the test itself: a line through a box, one beside it, one inside */
	static const double bx[4] = {10, 50, 50, 10}, by[4] = {10, 10, 20, 20};
	assert_true(segment_hits_quad(&(struct chart_segment){0, 0, 60, 30}, bx, by));
	assert_false(segment_hits_quad(&(struct chart_segment){0, 25, 60, 25}, bx, by));
	assert_true(segment_hits_quad(&(struct chart_segment){20, 15, 30, 16}, bx, by));
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		for (size_t i = 0; i < sizeof all_types / sizeof all_types[0]; i++) {
			struct chart c = make_chart(all_types[i]);
			c.width = sizes[k][0];
			c.height = sizes[k][1];
			assert_labels_clear(&c, "test chart");
		}
		struct chart c = example_roofline();
		c.width = sizes[k][0];
		c.height = sizes[k][1];
		assert_labels_clear(&c, "example roofline");
	}
}

/* Drawn 360 pixels wide for a phone, every text keeps its size: the
 * smallest, 8 pt at 96 dpi, is 10.7 px, which the page shows at 9 px or
 * more down to 0.84 of the chart's size; the SVG's root says how small. */
static void narrow_charts_keep_their_text_size(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof all_types / sizeof all_types[0]; i++) {
		struct chart c = make_chart(all_types[i]);
		c.width = 360;
		c.height = 354;
		struct chart_layout l;
		assert_true(chart_inspect(&c, &l, NULL));
		double least = INFINITY;
		for (size_t k = 0; k < l.ntexts; k++)
			least = fmin(least, l.texts[k].size);
		assert_true(least > 10.66);
		chart_layout_free(&l);
		struct buf svg = BUF_INIT;
		render_ok(&c, CHART_SVG, &svg);
		char want[64];
		snprintf(want, sizeof want, " data-text-min=\"%.1f\">", least);
		assert_non_null(strstr(buf_data(&svg), want));
		buf_free(&svg);
	}
}

/* On a narrow chart a legend that fits no corner goes below the plot,
 * in rows, not beside it; on a wide one beside it. */
static void a_crowded_narrow_legend_goes_below(void **state)
{
	(void)state;
	static char n1[] = "a rather long series name one", n2[] = "another long series name";
	static double y1[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, y2[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
	static double y3[10] = {5, 6, 5, 6, 5, 6, 5, 6, 5, 6};
	static struct chart_series s[3];
	s[0] = (struct chart_series){n1, steps, y1, 10, 0, NULL, 0};
	s[1] = (struct chart_series){n2, steps, y2, 10, 0, NULL, 0};
	s[2] = (struct chart_series){lbl512, steps, y3, 10, 0, NULL, 0};
	struct chart c = make_chart(CHART_LINE);
	c.series = s;
	c.nseries = 3;
	c.width = 360;
	c.height = 354;
	struct chart_layout l;
	assert_true(chart_inspect(&c, &l, NULL));
	assert_true(l.legend_below);
	double axis_bottom = 0;
	for (size_t k = 0; k < l.ntexts; k++)
		if (l.texts[k].kind == CHART_TEXT_AXIS && l.texts[k].x[0] < l.texts[k].x[1])
			axis_bottom = fmax(axis_bottom, l.texts[k].y[2]);
	for (size_t k = 0; k < l.ntexts; k++)
		if (l.texts[k].kind == CHART_TEXT_LEGEND)
			assert_true(l.texts[k].y[0] > axis_bottom);
	chart_layout_free(&l);
	assert_labels_clear(&c, "legend below");
	c.width = 1000;
	assert_true(chart_inspect(&c, &l, NULL));
	assert_false(l.legend_below);
	chart_layout_free(&l);
}

/* A dark chart is painted on the dark ground; the light one on white. */
static void a_dark_chart_has_a_dark_ground(void **state)
{
	(void)state;
	for (int dark = 0; dark < 2; dark++) {
		struct chart c = make_chart(CHART_LINE);
		c.dark = dark;
		struct buf png = BUF_INIT;
		render_ok(&c, CHART_PNG, &png);
		/* the SVG names its ground's colour as cairo writes it */
		struct buf svg = BUF_INIT;
		render_ok(&c, CHART_SVG, &svg);
		const char *ground = dark ? "rgb(9.019608%,10.588235%,13.333333%)" : "rgb(100%,100%,100%)";
		if (!strstr(buf_data(&svg), ground))
			fail_msg("the %s SVG has no %s", dark ? "dark" : "light", ground);
		buf_free(&svg);
		buf_free(&png);
	}
}

/* n points of a noisy falling line (a training loss), x 1, 2, ... */
static void loss_points(double *x, double *y, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		x[i] = (double)(i + 1);
		y[i] = 2 + 5 * exp(-(double)i / 3e3) + (double)(seed >> 8) / (1 << 24) - 0.5;
	}
	/* a gap, a line breaks there */
	y[n / 3] = NAN;
}

/* c drawn as SVG at its width, as a narrow SVG and as a PNG, into
 * out[0..3). */
static void render_three(struct chart *c, struct buf out[3])
{
	int w = c->width;
	render_ok(c, CHART_SVG, &out[0]);
	c->width = 360;
	render_ok(c, CHART_SVG, &out[1]);
	c->width = w;
	render_ok(c, CHART_PNG, &out[2]);
}

/* A series that grew, drawn from its new points and what the drawing
 * of its first points carried, gives the bytes of a drawing from every
 * point: line (reduced, with a gap) and scatter, in each geometry the
 * first drawings noted. */
static void a_grown_series_drawn_from_its_carry_is_the_same_drawing(void **state)
{
	(void)state;
	enum chart_type types[] = {CHART_LINE, CHART_SCATTER};
	for (size_t t = 0; t < 2; t++) {
		size_t n = 9000, base = 8000;
		double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
		loss_points(x, y, n, 777);
		static char label[] = "loss";
		struct chart_carry k;
		/* drawn from every point, each drawing noting what it made of
		 * the first base ones (a store's rows) */
		struct chart_series all = {label, x, y, n, 0, &k, 0};
		chart_carry_begin(&k, &all, base);
		struct chart c;
		memset(&c, 0, sizeof c);
		c.type = types[t];
		c.width = 720;
		c.series = &all;
		c.nseries = 1;
		struct buf want[3] = {BUF_INIT, BUF_INIT, BUF_INIT};
		render_three(&c, want);
		assert_int_equal(k.nproj, 3);
		/* then from the carry and the points after base */
		struct chart_series grown = {label, x + base, y + base, n, 0, &k, base};
		c.series = &grown;
		struct buf got[3] = {BUF_INIT, BUF_INIT, BUF_INIT};
		render_three(&c, got);
		assert_false(k.missed);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(got[i].len, want[i].len);
			assert_memory_equal(got[i].data, want[i].data, want[i].len);
			buf_free(&want[i]);
			buf_free(&got[i]);
		}
		chart_carry_clear(&k);
		free(x);
		free(y);
	}
}

/* New points that move an axis's bounds leave the carried projections
 * without their geometry: the drawing fails, says why, and marks the
 * carry missed (the caller then draws from every point). */
static void a_grown_series_whose_axes_moved_is_not_drawn_from_its_carry(void **state)
{
	(void)state;
	size_t n = 9000, base = 8000;
	double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
	loss_points(x, y, n, 99);
	static char label[] = "loss";
	struct chart_carry k;
	struct chart_series s = {label, x, y, n, 0, &k, 0};
	chart_carry_begin(&k, &s, base);
	assert_true(k.any);
	assert_true(k.x_lo == 1 && k.x_hi == (double)base);
	struct chart c;
	memset(&c, 0, sizeof c);
	c.type = CHART_LINE;
	c.series = &s;
	c.nseries = 1;
	struct buf b = BUF_INIT;
	render_ok(&c, CHART_SVG, &b);
	buf_free(&b);
	y[n - 1] = 1000; /* far above the y axis's top */
	struct chart_series grown = {label, x + base, y + base, n, 0, &k, base};
	c.series = &grown;
	char *err = NULL;
	assert_false(chart_render(&c, CHART_SVG, &b, &err));
	assert_true(k.missed);
	assert_string_equal(err, "the carried drawing of a grown series does not fit its new axes");
	assert_int_equal(b.len, 0);
	free(err);
	chart_carry_clear(&k);
	free(x);
	free(y);
}

/* The drawings of one chart (the page's, the dark one, the narrow ones,
 * the PNG) share what the first found of its points: their range, and
 * their pixel points in each geometry (the dark theme at the same size
 * copies the light one's).  Each gives the bytes a drawing that found
 * them itself gives. */
static void drawings_of_one_chart_share_their_points_range_and_pixels(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	double y[10];
	memcpy(y, loss2048, sizeof y);
	y[4] = NAN; /* a gap is left out of the range */
	line_series[1].y = y;
	struct chart_shared sh = {0};
	struct chart shared = c;
	shared.shared = &sh;
	struct buf alone = BUF_INIT, with = BUF_INIT;
	render_ok(&c, CHART_SVG, &alone);
	render_ok(&shared, CHART_SVG, &with);
	assert_true(sh.known);
	assert_true(sh.any);
	assert_true(sh.x_lo == 100 && sh.x_hi == 1000);
	assert_true(sh.y_lo == 7.125 && sh.y_hi == 9.48438);
	assert_int_equal(sh.nproj, 2); /* the two series in one geometry */
	assert_int_equal(with.len, alone.len);
	assert_memory_equal(buf_data(&with), buf_data(&alone), alone.len);
	/* the dark one at the same size: the same geometry */
	static const struct {
		bool dark;
		int w, h;
		enum chart_format f;
		size_t nproj;
	} next[] = {
		{true, 0, 0, CHART_SVG, 2},
		{false, 360, 300, CHART_SVG, 4},
		{true, 360, 300, CHART_SVG, 4},
		{false, 0, 0, CHART_PNG, 6}, /* twice the scale */
	};
	for (size_t k = 0; k < sizeof next / sizeof *next; k++) {
		c.dark = shared.dark = next[k].dark;
		c.width = shared.width = next[k].w;
		c.height = shared.height = next[k].h;
		struct buf a = BUF_INIT, b = BUF_INIT;
		render_ok(&c, next[k].f, &a);
		render_ok(&shared, next[k].f, &b);
		assert_int_equal(sh.nproj, next[k].nproj);
		assert_int_equal(b.len, a.len);
		assert_memory_equal(buf_data(&b), buf_data(&a), a.len);
		buf_free(&a);
		buf_free(&b);
	}
	chart_shared_clear(&sh);
	assert_int_equal(sh.nproj, 0);
	assert_false(sh.known);
	buf_free(&alone);
	buf_free(&with);
}

/* A series whose carry is being recorded (a first build's, over every
 * point) is mapped to pixels once per geometry: a second drawing in the
 * same geometry goes on from the state the first recorded at the
 * carry's last point and reads none of the points before it (a point
 * changed in between shows in neither drawing), and gives the bytes of
 * a drawing from every point; its extents are the carry's. */
static void a_carried_series_is_mapped_once_per_geometry(void **state)
{
	(void)state;
	enum chart_type types[] = {CHART_LINE, CHART_SCATTER};
	for (size_t t = 0; t < 2; t++) {
		size_t n = 9000;
		double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
		loss_points(x, y, n, 4242);
		static char label[] = "loss";
		struct chart_carry k;
		struct chart_series s = {label, x, y, n, 0, &k, 0};
		chart_carry_begin(&k, &s, n);
		struct chart c;
		memset(&c, 0, sizeof c);
		c.type = types[t];
		c.width = 720;
		c.series = &s;
		c.nseries = 1;
		struct buf first = BUF_INIT, again = BUF_INIT, fresh = BUF_INIT;
		render_ok(&c, CHART_SVG, &first);
		assert_int_equal(k.nproj, 1);
		/* a point inside the extents, moved: a drawing that reads it
		 * draws it elsewhere */
		double kept = y[n / 2];
		y[n / 2] = (k.y_lo + k.y_hi) / 2 + (kept > (k.y_lo + k.y_hi) / 2 ? -1 : 1) *
							   (k.y_hi - k.y_lo) / 3;
		render_ok(&c, CHART_SVG, &again);
		assert_int_equal(k.nproj, 1);
		assert_int_equal(again.len, first.len);
		assert_memory_equal(again.data, first.data, first.len);
		/* and a drawing from every point, without the carry, of the
		 * points as they were */
		y[n / 2] = kept;
		s.carry = NULL;
		render_ok(&c, CHART_SVG, &fresh);
		assert_int_equal(fresh.len, first.len);
		assert_memory_equal(fresh.data, first.data, first.len);
		buf_free(&first);
		buf_free(&again);
		buf_free(&fresh);
		chart_carry_clear(&k);
		free(x);
		free(y);
	}
}

/* Points that fail the check leave the range unknown: the next drawing
 * checks them again and says the same. */
static void points_refused_leave_the_range_unknown(void **state)
{
	(void)state;
	struct chart c = make_chart(CHART_LINE);
	double x[3] = {1, 2, 3}, y[3] = {1, 2, -1.5};
	line_series[0] = (struct chart_series){lbl512, x, y, 3, 0, NULL, 0};
	c.y_log = true;
	struct chart_shared sh = {0};
	c.shared = &sh;
	for (int k = 0; k < 2; k++) {
		assert_render_err(&c, "series 'bs=512': y value -1.5 (point 3) cannot be shown on "
				      "a log axis; values must be > 0");
		assert_false(sh.known);
		assert_int_equal(sh.nproj, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_type_renders_svg),
		cmocka_unit_test(every_type_renders_png_at_twice_the_size),
		cmocka_unit_test(every_type_renders_pdf),
		cmocka_unit_test(every_type_draws_onto_a_given_context),
		cmocka_unit_test(same_chart_gives_same_bytes),
		cmocka_unit_test(render_appends_to_the_buffer),
		cmocka_unit_test(million_points_give_a_small_svg_quickly),
		cmocka_unit_test(a_chart_without_series_is_an_error),
		cmocka_unit_test(a_chart_of_empty_series_is_an_error),
		cmocka_unit_test(x_and_y_of_different_lengths_is_an_error),
		cmocka_unit_test(non_positive_values_on_a_log_axis_are_an_error),
		cmocka_unit_test(bars_need_categories),
		cmocka_unit_test(roofline_needs_peaks_and_bandwidths),
		cmocka_unit_test(limits_and_size_are_checked),
		cmocka_unit_test(explicit_limits_and_gaps_render),
		cmocka_unit_test(chart_clear_frees_everything),
		cmocka_unit_test(linear_ticks_step_by_one_two_five),
		cmocka_unit_test(linear_ticks_use_si_suffixes_and_minus_signs),
		cmocka_unit_test(log_ticks_label_decades),
		cmocka_unit_test(log_ticks_thin_labels_over_many_decades),
		cmocka_unit_test(narrow_log_axes_label_minor_ticks),
		cmocka_unit_test(bad_tick_ranges_are_refused),
		cmocka_unit_test(a_range_too_wide_for_a_double_is_an_error),
		cmocka_unit_test(linear_tick_labels_share_their_decimals),
		cmocka_unit_test(labels_never_overlap_lines_or_labels),
		cmocka_unit_test(narrow_charts_keep_their_text_size),
		cmocka_unit_test(a_crowded_narrow_legend_goes_below),
		cmocka_unit_test(a_dark_chart_has_a_dark_ground),
		cmocka_unit_test(a_grown_series_drawn_from_its_carry_is_the_same_drawing),
		cmocka_unit_test(a_grown_series_whose_axes_moved_is_not_drawn_from_its_carry),
		cmocka_unit_test(drawings_of_one_chart_share_their_points_range_and_pixels),
		cmocka_unit_test(points_refused_leave_the_range_unknown),
		cmocka_unit_test(a_carried_series_is_mapped_once_per_geometry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
