/* test_mathpdf.c: the PDF's math against the browser's.  A report of
 * formulas students write (homework in physics, numerics and HPC, and
 * expressions from KaTeX's own tests) is built; each formula's MathML,
 * as the page has it, is laid out and drawn by logdown as the PDF draws
 * it (render/mathlayout.h, one formula a page of a PDF, rasterised by
 * pdftoppm), and Chromium draws the page's <math> elements
 * (tests/browser/mathshots.mjs).  Each pair is cropped to its ink,
 * scaled to the same height, blurred, and compared: the soft
 * intersection over union of their ink must reach MIN_SIMILARITY, and
 * the mean over all of them MIN_MEAN.
 *
 * Where they differ on purpose (the notes of docs/internals.md): the PDF
 * draws \mathbb, \mathcal and \mathbf in their styled letters (Chromium
 * draws mathvariant other than "normal" as plain letters), and honours
 * a table's columnalign (\begin{aligned}, cases: Chromium centres every
 * column).  Those formulas are in the set and score lower.
 *
 * LOGDOWN_KEEP_MATHPDF=1 keeps the images to look at.
 *
 * It needs /usr/bin/chromium, node, tests/browser/node_modules and
 * pdftoppm; without them it says so and skips. */
#include "e2e.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <math.h>

#include "base/fsutil.h"
#include "draw/font.h"
#include "render/mathlayout.h"

#define MIN_SIMILARITY 0.15
#define MIN_MEAN 0.72
#define MAX_ASPECT 1.65 /* one's width at the other's height at most this times it */
#define HEIGHT 32 /* pixels both are scaled to */

static const char *const formulas[] = {
	/* HPC and numerics homework */
	"D \\cdot H + H + H \\cdot C + C",
	"P = \\frac{2 N^3}{t}\\,\\text{FLOP/s}",
	"I = \\frac{\\text{FLOP}}{\\text{bytes}}",
	"P \\le \\min(\\pi, \\beta I)",
	"S(p) = \\frac{T_1}{T_p}",
	"E(p) = \\frac{S(p)}{p}",
	"S(p) = \\frac{1}{(1 - f) + \\frac{f}{p}}",
	"\\text{AI} = \\frac{2 N^3}{3 \\cdot 8 N^2}",
	"T = \\alpha + \\beta n",
	"T_{\\text{allreduce}} = 2 \\frac{p-1}{p} \\frac{n}{B}",
	"O(n \\log n)",
	"\\mathcal{O}(N^2)",
	"B = \\frac{3 \\cdot 8 \\cdot N^2}{t}",
	"W = 2 m n k",
	"\\eta = \\frac{P_{\\text{achieved}}}{P_{\\text{peak}}} \\times 100\\%",
	"t_{\\text{comm}} = \\frac{m}{B} + L",
	"\\lceil n / p \\rceil",
	"\\lfloor \\log_2 n \\rfloor + 1",
	"C_{ij} = \\sum_{k=1}^{n} A_{ik} B_{kj}",
	"y = A x + b",
	"\\|x\\|_2 = \\sqrt{\\sum_i x_i^2}",
	"\\|A\\|_F",
	"\\kappa(A) = \\|A\\| \\, \\|A^{-1}\\|",
	"x^{(k+1)} = x^{(k)} - \\alpha \\nabla f(x^{(k)})",
	"r_k = b - A x_k",
	"\\frac{\\|r_k\\|}{\\|b\\|} < 10^{-6}",
	"A = L U",
	"A = Q R",
	"\\lambda_{\\max}",
	"\\rho(A) = \\max_i |\\lambda_i|",
	"e = |x - \\hat{x}|",
	"\\epsilon_{\\text{mach}} \\approx 2.2 \\times 10^{-16}",
	"u_i^{n+1} = u_i^n + \\frac{\\Delta t}{\\Delta x^2}(u_{i+1}^n - 2u_i^n + u_{i-1}^n)",
	"\\Delta t \\le \\frac{\\Delta x^2}{2 D}",
	"f'(x) \\approx \\frac{f(x+h) - f(x-h)}{2h}",
	"\\int_a^b f(x)\\,dx \\approx \\frac{h}{2}\\left(f(a) + f(b)\\right)",
	"\\text{speedup} = \\frac{t_{\\text{serial}}}{t_{\\text{parallel}}}",
	"N_{\\text{params}} = 784 \\cdot 512 + 512",
	"\\text{loss} = -\\sum_{c=1}^{C} y_c \\log \\hat{y}_c",
	"\\sigma(x) = \\frac{1}{1 + e^{-x}}",
	"\\mathrm{ReLU}(x) = \\max(0, x)",
	"\\mathrm{softmax}(z)_i = \\frac{e^{z_i}}{\\sum_j e^{z_j}}",
	"\\theta \\leftarrow \\theta - \\eta \\nabla_\\theta L",
	"m_t = \\beta_1 m_{t-1} + (1 - \\beta_1) g_t",
	"\\hat{m}_t = \\frac{m_t}{1 - \\beta_1^t}",
	"\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}\\left(\\frac{Q K^T}{\\sqrt{d_k}}\\right) V",
	"\\bar{x} = \\frac{1}{n}\\sum_{i=1}^{n} x_i",
	"s^2 = \\frac{1}{n-1}\\sum_{i=1}^{n}(x_i - \\bar{x})^2",
	"\\mu \\pm 2\\sigma",
	"p(x) = \\frac{1}{\\sqrt{2\\pi\\sigma^2}} e^{-\\frac{(x-\\mu)^2}{2\\sigma^2}}",
	/* physics homework */
	"F = m a",
	"E = m c^2",
	"E_k = \\frac{1}{2} m v^2",
	"\\vec{F} = -\\nabla V",
	"F = G \\frac{m_1 m_2}{r^2}",
	"\\omega = 2 \\pi f",
	"T = 2\\pi \\sqrt{\\frac{L}{g}}",
	"x(t) = A \\cos(\\omega t + \\varphi)",
	"\\frac{d^2 x}{dt^2} + \\omega^2 x = 0",
	"\\nabla \\cdot \\vec{E} = \\frac{\\rho}{\\varepsilon_0}",
	"\\nabla \\times \\vec{B} = \\mu_0 \\vec{J} + \\mu_0 \\varepsilon_0 \\frac{\\partial \\vec{E}}{\\partial t}",
	"i\\hbar \\frac{\\partial}{\\partial t} \\Psi = \\hat{H} \\Psi",
	"\\langle x \\rangle = \\int_{-\\infty}^{\\infty} x |\\psi(x)|^2 \\, dx",
	"\\Delta x \\, \\Delta p \\ge \\frac{\\hbar}{2}",
	"p V = n R T",
	"\\Delta S \\ge 0",
	"Z = \\sum_i e^{-\\beta E_i}",
	"\\langle E \\rangle = -\\frac{\\partial \\ln Z}{\\partial \\beta}",
	"v = v_0 + a t",
	"x = x_0 + v_0 t + \\frac{1}{2} a t^2",
	"\\gamma = \\frac{1}{\\sqrt{1 - v^2/c^2}}",
	"\\lambda = \\frac{h}{p}",
	"\\oint_C \\vec{B} \\cdot d\\vec{l} = \\mu_0 I",
	"P = I^2 R",
	"\\tau = r \\times F",
	/* KaTeX's test expressions and the constructions they cover */
	"\\frac{a}{b}",
	"\\frac{1}{2}",
	"\\dfrac{x+1}{x-1}",
	"\\tfrac{1}{2}",
	"\\frac{\\frac{a}{b}}{\\frac{c}{d}}",
	"x^2",
	"x_i",
	"x_i^2",
	"x^{y^z}",
	"e^{i\\pi} + 1 = 0",
	"a_{n+1} = a_n + a_{n-1}",
	"\\sqrt{x}",
	"\\sqrt{x^2 + y^2}",
	"\\sqrt[3]{x}",
	"\\sqrt{\\frac{a}{b}}",
	"\\left( \\frac{a}{b} \\right)",
	"\\left[ x \\right]",
	"\\left\\{ \\frac{1}{2} \\right\\}",
	"\\left| \\frac{x}{y} \\right|",
	"\\binom{n}{k}",
	"\\binom{n}{k} = \\frac{n!}{k!(n-k)!}",
	"\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}",
	"\\prod_{i=1}^{n} x_i",
	"\\int_0^1 x^2 \\, dx = \\frac{1}{3}",
	"\\int_{-\\infty}^{\\infty} e^{-x^2} dx = \\sqrt{\\pi}",
	"\\iint_D f(x,y)\\,dA",
	"\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1",
	"\\lim_{n \\to \\infty} \\left(1 + \\frac{1}{n}\\right)^n = e",
	"\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}",
	"\\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}",
	"\\det \\begin{vmatrix} a & b \\\\ c & d \\end{vmatrix} = ad - bc",
	"\\begin{pmatrix} x_1 \\\\ x_2 \\\\ x_3 \\end{pmatrix}",
	"f(x) = \\begin{cases} x & x \\ge 0 \\\\ -x & x < 0 \\end{cases}",
	"\\begin{aligned} a &= b + c \\\\ &= d \\end{aligned}",
	"\\hat{x}",
	"\\bar{y}",
	"\\vec{v}",
	"\\dot{x}",
	"\\tilde{n}",
	"\\overline{AB}",
	"\\underbrace{a + b + c}_{3}",
	"\\mathbb{R}^n",
	"\\mathbf{F} = m \\mathbf{a}",
	"\\alpha \\beta \\gamma \\delta \\epsilon",
	"\\Gamma \\Delta \\Theta \\Lambda \\Sigma \\Omega",
	"a \\le b \\ge c \\ne d",
	"A \\subseteq B \\cup C",
	"x \\in \\mathbb{Z}",
	"\\forall x \\exists y",
	"a \\to b \\Rightarrow c",
	"f: X \\to Y",
	"\\cdots \\ldots",
	"\\pm \\mp \\times \\div",
	"x \\equiv y \\pmod{n}",
	"\\text{if } x > 0",
	"\\sin^2 \\theta + \\cos^2 \\theta = 1",
	"\\log_{10} x",
	"\\arg\\max_x f(x)",
	"a + b - c",
	"-x",
	"3.14159",
};

#define NF (sizeof formulas / sizeof *formulas)

static bool have_tools(void)
{
	return is_file("/usr/bin/chromium") && is_dir("tests/browser/node_modules/playwright-core") &&
	       system("command -v node >/dev/null 2>&1") == 0 &&
	       system("command -v pdftoppm >/dev/null 2>&1") == 0;
}

/* --- images: darkness, cropped to the ink --- */

struct img {
	int w, h;
	double *v; /* darkness 0..1 */
};

static bool load(const char *path, struct img *out)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(path);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return false;
	}
	cairo_surface_flush(s);
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	cairo_format_t fmt = cairo_image_surface_get_format(s);
	const unsigned char *data = cairo_image_surface_get_data(s);
	int x0 = w, y0 = h, x1 = -1, y1 = -1;
	double *dark = xcalloc((size_t)w * (size_t)h, sizeof *dark);
	for (int y = 0; y < h; y++) {
		const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
		for (int x = 0; x < w; x++) {
			uint32_t p = row[x];
			double a = fmt == CAIRO_FORMAT_ARGB32 ? ((p >> 24) & 255) / 255.0 : 1;
			/* premultiplied, over white */
			double r = ((p >> 16) & 255) / 255.0 + (1 - a), g = ((p >> 8) & 255) / 255.0 + (1 - a),
			       b = (p & 255) / 255.0 + (1 - a);
			double d = 1 - (0.299 * r + 0.587 * g + 0.114 * b);
			d = d < 0 ? 0 : d;
			dark[(size_t)y * (size_t)w + (size_t)x] = d;
			if (d > 0.35) {
				x0 = x < x0 ? x : x0;
				x1 = x > x1 ? x : x1;
				y0 = y < y0 ? y : y0;
				y1 = y > y1 ? y : y1;
			}
		}
	}
	cairo_surface_destroy(s);
	if (x1 < 0) {
		free(dark);
		return false;
	}
	out->w = x1 - x0 + 1;
	out->h = y1 - y0 + 1;
	out->v = xcalloc((size_t)out->w * (size_t)out->h, sizeof *out->v);
	for (int y = 0; y < out->h; y++)
		memcpy(out->v + (size_t)y * (size_t)out->w, dark + (size_t)(y0 + y) * (size_t)w + x0,
		       (size_t)out->w * sizeof *dark);
	free(dark);
	return true;
}

/* im area-averaged to W x H, with a margin of 2, blurred by two passes
 * of a 3x3 box. */
static double *canvas(const struct img *im, int W, int H)
{
	int CW = W + 4, CH = H + 4;
	double *c = xcalloc((size_t)CW * CH, sizeof *c), *n = xcalloc((size_t)CW * CH, sizeof *n);
	for (int y = 0; y < im->h; y++)
		for (int x = 0; x < im->w; x++) {
			int ty = (int)((y + 0.5) * H / im->h) + 2, tx = (int)((x + 0.5) * W / im->w) + 2;
			c[ty * CW + tx] += im->v[(size_t)y * (size_t)im->w + (size_t)x];
			n[ty * CW + tx] += 1;
		}
	for (int i = 0; i < CW * CH; i++)
		c[i] = n[i] ? c[i] / n[i] : 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < CW * CH; i++)
			n[i] = 0;
		for (int y = 1; y < CH - 1; y++)
			for (int x = 1; x < CW - 1; x++) {
				double s = 0;
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++)
						s += c[(y + dy) * CW + x + dx];
				n[y * CW + x] = s / 9;
			}
		double *t = c;
		c = n;
		n = t;
	}
	free(n);
	return c;
}

/* Both scaled to HEIGHT pixels high and to the mean of their widths at
 * that height (so that a small difference of spacing does not shift
 * everything after it), blurred: the soft intersection over union of
 * their ink.  *aspect: the ratio of their widths at the same height. */
static double similarity(const struct img *a, const struct img *b, double *aspect)
{
	double wa = (double)a->w * HEIGHT / a->h, wb = (double)b->w * HEIGHT / b->h;
	*aspect = wa > wb ? wa / wb : wb / wa;
	int W = (int)lround((wa + wb) / 2);
	W = W < 1 ? 1 : W;
	double *ca = canvas(a, W, HEIGHT), *cb = canvas(b, W, HEIGHT);
	double inter = 0, uni = 0;
	for (int i = 0; i < (W + 4) * (HEIGHT + 4); i++) {
		inter += fmin(ca[i], cb[i]);
		uni += fmax(ca[i], cb[i]);
	}
	free(ca);
	free(cb);
	return uni > 0 ? inter / uni : 0;
}

static void pdf_matches_the_browser(void **state)
{
	(void)state;
	if (!have_tools()) {
		printf("math PDF/browser comparison: /usr/bin/chromium, node, "
		       "tests/browser/node_modules or pdftoppm missing "
		       "(LOGDOWN_BROWSER_TESTS=1 make test installs them); skipped\n");
		skip();
	}
	assert_true(NF >= 100);
	alarm(300); /* never hang CI */
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: Formulas\n---\n");
	for (size_t i = 0; i < NF; i++)
		buf_printf(&md, "$$\n%s\n$$\n\n", formulas[i]);
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", buf_data(&md))));
	buf_free(&md);
	e2e_ok(dir, "pdf");
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_non_null(page);

	/* the PDF side: each formula's MathML, one a page */
	font_lock();
	struct math_font *f = math_font_new(NULL);
	assert_non_null(f);
	char *pdf = path_join(dir, "math.pdf");
	cairo_surface_t *surf = cairo_pdf_surface_create(pdf, 100, 100);
	const struct math_colours colours = {0x1a1a1a, 0x1d3f66, 0xb3261e};
	size_t n = 0;
	for (const char *p = strstr(page, "<math"); p; p = strstr(p, "<math")) {
		const char *e = strstr(p, "</math>");
		assert_non_null(e);
		e += strlen("</math>");
		struct math_layout *m = math_layout_new(f, p, (size_t)(e - p), 10, &colours);
		assert_non_null(m);
		double w, a, d;
		math_layout_extents(m, &w, &a, &d);
		cairo_pdf_surface_set_size(surf, w + 8, a + d + 8);
		cairo_t *cr = cairo_create(surf);
		math_layout_draw(m, cr, 4, 4 + a, NULL, NULL);
		cairo_show_page(cr);
		cairo_destroy(cr);
		math_layout_free(m);
		n++;
		p = e;
	}
	cairo_surface_destroy(surf);
	math_font_free(f);
	font_unlock();
	assert_int_equal(n, NF);
	char *ppm = xasprintf("cd '%s' && pdftoppm -r 432 -gray -png math.pdf pdf", dir);
	assert_int_equal(system(ppm), 0);
	free(ppm);

	/* the browser's */
	char *shots = path_join(dir, "shots");
	assert_int_equal(mkdir(shots, 0755), 0);
	char *cmd = xasprintf("node tests/browser/mathshots.mjs 'file://%s/_site/r/index.html' '%s' "
			      ">/dev/null",
			      dir, shots);
	assert_int_equal(system(cmd), 0);
	alarm(0);

	double sum = 0, worst = 1;
	size_t worst_i = 0, bad = 0;
	for (size_t i = 0; i < NF; i++) {
		char *pp = xasprintf("%s/pdf-%03zu.png", dir, i + 1);
		char *bp = xasprintf("%s/%03zu.png", shots, i);
		struct img a = {0}, b = {0};
		assert_true(load(pp, &a));
		assert_true(load(bp, &b));
		double aspect;
		double s = similarity(&a, &b, &aspect);
		printf("%3zu %.3f %.2f  %s\n", i, s, aspect, formulas[i]);
		sum += s;
		if (s < worst) {
			worst = s;
			worst_i = i;
		}
		if (s < MIN_SIMILARITY || aspect > MAX_ASPECT) {
			printf("    below %.2f or wider by %.2f: %s\n", MIN_SIMILARITY, MAX_ASPECT,
			       formulas[i]);
			bad++;
		}
		free(a.v);
		free(b.v);
		free(pp);
		free(bp);
	}
	if (getenv("LOGDOWN_KEEP_MATHPDF"))
		printf("images kept in %s (pdf-NNN.png, shots/NNN.png)\n", dir); /* to look at */
	printf("math PDF/browser: %zu formulas, mean similarity %.3f, worst %.3f (%s)\n", NF,
	       sum / NF, worst, formulas[worst_i]);
	assert_int_equal(bad, 0);
	assert_true(sum / NF >= MIN_MEAN);
	free(cmd);
	free(shots);
	free(pdf);
	free(page);
	if (!getenv("LOGDOWN_KEEP_MATHPDF"))
		e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pdf_matches_the_browser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
