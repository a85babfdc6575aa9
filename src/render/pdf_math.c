/* pdf_math.c: MathML laid out with the OpenType MATH table of the math
 * font through HarfBuzz (hb_ot_math_*), following MathML Core's layout
 * rules (https://w3c.github.io/mathml-core/), and drawn with cairo.
 *
 * A formula becomes a tree of boxes (struct mbox): a glyph, a rule, or
 * a list of boxes at offsets.  Sizes are in points; a box's h is its
 * extent above its baseline, d below.  The font's units become points
 * at the size of the box's script level.  The browser draws the same
 * MathML with the same font, and tests/e2e/test_mathpdf.c compares the
 * two renderings. */
#include "render/mathlayout.h"

#include <hb-ot.h>
#include <hb.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "mathml.h"

#define MATH_FAMILY "TeX Gyre DejaVu Math"
#define MAX_NEST 200 /* elements nested deeper are left out */

struct math_font {
	PangoFontMap *map;
	PangoContext *ctx;
	PangoFont *font;
	hb_font_t *hb; /* at the face's units per em */
	double upem;
	cairo_font_face_t *face;
};

struct math_font *math_font_new(PangoFontMap *fontmap)
{
	struct math_font *f = xcalloc(1, sizeof *f);
	f->map = fontmap ? g_object_ref(fontmap) : pango_cairo_font_map_new();
	f->ctx = pango_font_map_create_context(f->map);
	PangoFontDescription *d = pango_font_description_from_string(MATH_FAMILY " 10");
	f->font = pango_font_map_load_font(f->map, f->ctx, d);
	pango_font_description_free(d);
	hb_font_t *ph = f->font ? pango_font_get_hb_font(f->font) : NULL;
	hb_face_t *face = ph ? hb_font_get_face(ph) : NULL;
	if (!face || !hb_ot_math_has_data(face)) {
		math_font_free(f);
		return NULL;
	}
	f->upem = hb_face_get_upem(face);
	f->hb = hb_font_create(face);
	hb_font_set_scale(f->hb, (int)f->upem, (int)f->upem);
	cairo_scaled_font_t *sf = pango_cairo_font_get_scaled_font(PANGO_CAIRO_FONT(f->font));
	f->face = sf ? cairo_font_face_reference(cairo_scaled_font_get_font_face(sf)) : NULL;
	if (!f->face) {
		math_font_free(f);
		return NULL;
	}
	return f;
}

void math_font_free(struct math_font *f)
{
	if (!f)
		return;
	if (f->hb)
		hb_font_destroy(f->hb);
	if (f->face)
		cairo_font_face_destroy(f->face);
	if (f->font)
		g_object_unref(f->font);
	if (f->ctx)
		g_object_unref(f->ctx);
	if (f->map)
		g_object_unref(f->map);
	free(f);
}

static const struct {
	const char *name;
	hb_ot_math_constant_t c;
} constants[] = {
	{"script_percent_scale_down", HB_OT_MATH_CONSTANT_SCRIPT_PERCENT_SCALE_DOWN},
	{"script_script_percent_scale_down", HB_OT_MATH_CONSTANT_SCRIPT_SCRIPT_PERCENT_SCALE_DOWN},
	{"display_operator_min_height", HB_OT_MATH_CONSTANT_DISPLAY_OPERATOR_MIN_HEIGHT},
	{"axis_height", HB_OT_MATH_CONSTANT_AXIS_HEIGHT},
	{"accent_base_height", HB_OT_MATH_CONSTANT_ACCENT_BASE_HEIGHT},
	{"subscript_shift_down", HB_OT_MATH_CONSTANT_SUBSCRIPT_SHIFT_DOWN},
	{"superscript_shift_up", HB_OT_MATH_CONSTANT_SUPERSCRIPT_SHIFT_UP},
	{"superscript_shift_up_cramped", HB_OT_MATH_CONSTANT_SUPERSCRIPT_SHIFT_UP_CRAMPED},
	{"fraction_rule_thickness", HB_OT_MATH_CONSTANT_FRACTION_RULE_THICKNESS},
	{"fraction_numerator_shift_up", HB_OT_MATH_CONSTANT_FRACTION_NUMERATOR_SHIFT_UP},
	{"fraction_denominator_shift_down", HB_OT_MATH_CONSTANT_FRACTION_DENOMINATOR_SHIFT_DOWN},
	{"radical_rule_thickness", HB_OT_MATH_CONSTANT_RADICAL_RULE_THICKNESS},
	{"radical_vertical_gap", HB_OT_MATH_CONSTANT_RADICAL_VERTICAL_GAP},
};

static double K(const struct math_font *f, hb_ot_math_constant_t c)
{
	return hb_ot_math_get_constant(f->hb, c);
}

double math_font_constant(const struct math_font *f, const char *name, double size)
{
	for (size_t i = 0; i < sizeof constants / sizeof *constants; i++) {
		if (strcmp(constants[i].name, name) != 0)
			continue;
		double v = K(f, constants[i].c);
		return strstr(name, "percent") ? v : v * size / f->upem;
	}
	return NAN;
}

/* --- boxes --- */

enum { BX_LIST, BX_GLYPH, BX_RULE };

struct mbox {
	int kind;
	double w, h, d;
	double italic; /* italics correction of its last glyph */
	double accent; /* top accent attachment from its left; NaN: none */
	/* BX_GLYPH */
	unsigned glyph;
	double size;
	unsigned colour;
	/* BX_LIST */
	struct mbox **k;
	double *kx, *ky; /* offsets; ky down */
	size_t nk;
	/* what it came from, for math_layout_find() */
	const char *tag;
	double fa, fb;
	const char *href;
	bool phantom;
	bool largeop; /* a large operator (its scripts are limits) */
};

struct math_layout {
	struct mbox *root;
	struct mnode *tree;
	const struct math_font *f;
	bool display;
};

static struct mbox *box_new(int kind)
{
	struct mbox *b = xcalloc(1, sizeof *b);
	b->kind = kind;
	b->accent = NAN;
	return b;
}

static void box_add(struct mbox *l, struct mbox *k, double x, double y)
{
	l->k = xrealloc(l->k, (l->nk + 1) * sizeof *l->k);
	l->kx = xrealloc(l->kx, (l->nk + 1) * sizeof *l->kx);
	l->ky = xrealloc(l->ky, (l->nk + 1) * sizeof *l->ky);
	l->k[l->nk] = k;
	l->kx[l->nk] = x;
	l->ky[l->nk] = y;
	l->nk++;
	if (k->kind == BX_RULE && !k->h && !k->d && !k->w)
		return;
	if (l->nk == 1) {
		l->h = k->h - y;
		l->d = k->d + y;
	} else {
		l->h = fmax(l->h, k->h - y);
		l->d = fmax(l->d, k->d + y);
	}
	l->w = fmax(l->w, x + k->w);
}

static void box_free(struct mbox *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nk; i++)
		box_free(b->k[i]);
	free(b->k);
	free(b->kx);
	free(b->ky);
	free(b);
}

static struct mbox *rule(double w, double h, double d, unsigned colour)
{
	struct mbox *b = box_new(BX_RULE);
	b->w = w;
	b->h = h;
	b->d = d;
	b->colour = colour;
	return b;
}

/* --- the style a subtree is laid out in --- */

struct st {
	int level;    /* scriptlevel */
	bool display; /* displaystyle */
	bool cramped; /* math-shift: compact */
	unsigned colour;
	const char *href;
};

struct lay {
	struct math_font *f;
	double base; /* the size at script level 0 */
	const struct math_colours *c;
	/* a stretchy operator being stretched to this extent */
	const struct mnode *stretch;
	double sh, sd, sw;
};

static double size_of(const struct lay *L, const struct st *s)
{
	double a = K(L->f, HB_OT_MATH_CONSTANT_SCRIPT_PERCENT_SCALE_DOWN) / 100.0;
	double b = K(L->f, HB_OT_MATH_CONSTANT_SCRIPT_SCRIPT_PERCENT_SCALE_DOWN) / 100.0;
	if (a <= 0)
		a = 0.71;
	if (b <= 0)
		b = 0.5;
	double sz = L->base;
	if (s->level >= 1)
		sz *= a;
	if (s->level >= 2)
		sz *= b / a;
	for (int i = 2; i < s->level && i < 8; i++)
		sz *= 0.71;
	return sz;
}

/* A constant in points at s's size. */
static double C(const struct lay *L, const struct st *s, hb_ot_math_constant_t c)
{
	return K(L->f, c) * size_of(L, s) / L->f->upem;
}

static double U(const struct lay *L, const struct st *s, double units)
{
	return units * size_of(L, s) / L->f->upem;
}

/* A length attribute ("0.1667em", "-2pt", "1ex", "3px", "50%"), of
 * em at s's size; rel: 100% of it (for mpadded's "+0.5em", "100%"). */
static bool length(const struct lay *L, const struct st *s, const char *v, double rel,
		   double *out)
{
	if (!v)
		return false;
	while (*v == ' ')
		v++;
	int sign = 0;
	if (*v == '+' || *v == '-') {
		sign = *v == '+' ? 1 : -1;
		v++;
	}
	char *end;
	double x = strtod(v, &end);
	if (end == v || !isfinite(x))
		return false;
	double em = size_of(L, s);
	while (*end == ' ')
		end++;
	if (strcmp(end, "em") == 0)
		x *= em;
	else if (strcmp(end, "ex") == 0)
		x *= 0.5 * em;
	else if (strcmp(end, "px") == 0)
		x *= 0.75;
	else if (strcmp(end, "pt") == 0)
		;
	else if (strcmp(end, "mu") == 0)
		x *= em / 18;
	else if (strcmp(end, "%") == 0)
		x = x / 100 * rel;
	else if (*end)
		return false;
	x = fmin(fmax(x, -1000), 1000);
	if (sign == 1)
		x = rel + x;
	else if (sign == -1)
		x = rel - x;
	*out = x;
	return true;
}

/* --- the operator dictionary, as much of it as KaTeX's output uses:
 * spacing in 18ths of an em by form, and properties --- */

enum { F_PREFIX = 1, F_INFIX = 2, F_POSTFIX = 4 };
enum { P_STRETCHY = 1, P_SYMMETRIC = 2, P_LARGEOP = 4, P_MOVABLE = 8, P_FENCE = 16, P_ACCENT = 32 };

struct opdef {
	const char *s;
	int forms;
	int l, r;
	int props;
};

static const struct opdef ops[] = {
	{"(", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{")", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{"[", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{"]", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{"{", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{"}", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{"|", F_PREFIX | F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},
	{"\xE2\x80\x96", F_PREFIX | F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE}, /* ‖ */
	{"\xE2\x88\xA5", F_PREFIX | F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE}, /* ∥ */
	{"\xE2\x9F\xA8", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},             /* ⟨ */
	{"\xE2\x9F\xA9", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},            /* ⟩ */
	{"\xE2\x8C\x88", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},             /* ⌈ */
	{"\xE2\x8C\x89", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},            /* ⌉ */
	{"\xE2\x8C\x8A", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},             /* ⌊ */
	{"\xE2\x8C\x8B", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},            /* ⌋ */
	{"\xE2\x9F\xA6", F_PREFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},             /* ⟦ */
	{"\xE2\x9F\xA7", F_POSTFIX, 0, 0, P_STRETCHY | P_SYMMETRIC | P_FENCE},            /* ⟧ */
	{"\xE2\x88\xA3", F_INFIX, 5, 5, P_STRETCHY | P_SYMMETRIC},                        /* ∣ */
	{"/", F_INFIX, 4, 4, P_STRETCHY},
	{"\\", F_INFIX, 4, 4, P_STRETCHY},
	{"+", F_INFIX, 4, 4, 0},
	{"+", F_PREFIX, 0, 0, 0},
	{"-", F_INFIX, 4, 4, 0},
	{"\xE2\x88\x92", F_INFIX, 4, 4, 0},  /* − */
	{"\xE2\x88\x92", F_PREFIX, 0, 0, 0}, /* − */
	{"-", F_PREFIX, 0, 0, 0},
	{"\xC2\xB1", F_INFIX, 4, 4, 0},      /* ± */
	{"\xC2\xB1", F_PREFIX, 0, 0, 0},
	{"\xE2\x88\x93", F_INFIX, 4, 4, 0},  /* ∓ */
	{"\xC3\x97", F_INFIX, 4, 4, 0},      /* × */
	{"\xC3\xB7", F_INFIX, 4, 4, 0},      /* ÷ */
	{"\xC2\xB7", F_INFIX, 4, 4, 0},      /* · */
	{"\xE2\x8B\x85", F_INFIX, 4, 4, 0},  /* ⋅ */
	{"\xE2\x88\x97", F_INFIX, 4, 4, 0},  /* ∗ */
	{"*", F_INFIX, 4, 4, 0},
	{"\xE2\x88\x98", F_INFIX, 4, 4, 0},  /* ∘ */
	{"\xE2\x88\x99", F_INFIX, 4, 4, 0},  /* ∙ */
	{"\xE2\x8A\x95", F_INFIX, 4, 4, 0},  /* ⊕ */
	{"\xE2\x8A\x97", F_INFIX, 4, 4, 0},  /* ⊗ */
	{"\xE2\x88\xAA", F_INFIX, 4, 4, 0},  /* ∪ */
	{"\xE2\x88\xA9", F_INFIX, 4, 4, 0},  /* ∩ */
	{"\xE2\x88\xA7", F_INFIX, 4, 4, 0},  /* ∧ */
	{"\xE2\x88\xA8", F_INFIX, 4, 4, 0},  /* ∨ */
	{"\xE2\x88\x96", F_INFIX, 4, 4, 0},  /* ∖ */
	{"\xE2\x8B\x86", F_INFIX, 4, 4, 0},  /* ⋆ */
	{",", F_INFIX, 0, 3, 0},
	{";", F_INFIX, 0, 3, 0},
	{"!", F_POSTFIX, 0, 0, 0},
	{"\xE2\x80\xB2", F_POSTFIX, 0, 0, 0}, /* ′ */
	{"\xE2\x80\xB3", F_POSTFIX, 0, 0, 0}, /* ″ */
	{".", F_INFIX, 3, 3, 0},
	{"\xE2\x80\xA6", F_INFIX, 0, 0, 0},   /* … */
	{"\xE2\x8B\xAF", F_INFIX, 0, 0, 0},   /* ⋯ */
	{"\xE2\x8B\xAE", F_INFIX, 0, 0, 0},   /* ⋮ */
	{"\xE2\x8B\xB1", F_INFIX, 0, 0, 0},   /* ⋱ */
	{"\xE2\x81\xA1", F_INFIX, 0, 0, 0},   /* function application */
	{"\xE2\x81\xA2", F_INFIX, 0, 0, 0},   /* invisible times */
	{"\xE2\x81\xA3", F_INFIX, 0, 0, 0},   /* invisible separator */
	{"\xE2\x88\x82", F_PREFIX, 0, 0, 0},  /* ∂ */
	{"\xE2\x88\x87", F_PREFIX, 0, 0, 0},  /* ∇ */
	{"\xC2\xAC", F_PREFIX, 0, 0, 0},      /* ¬ */
	{"\xE2\x88\x91", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ∑ */
	{"\xE2\x88\x8F", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ∏ */
	{"\xE2\x88\x90", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ∐ */
	{"\xE2\x8B\x83", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ⋃ */
	{"\xE2\x8B\x82", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ⋂ */
	{"\xE2\x8B\x80", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ⋀ */
	{"\xE2\x8B\x81", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ⋁ */
	{"\xE2\xA8\x81", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ⨁ */
	{"\xE2\xA8\x82", F_PREFIX, 3, 3, P_LARGEOP | P_MOVABLE | P_SYMMETRIC}, /* ⨂ */
	{"\xE2\x88\xAB", F_PREFIX, 3, 3, P_LARGEOP | P_SYMMETRIC},             /* ∫ */
	{"\xE2\x88\xAC", F_PREFIX, 3, 3, P_LARGEOP | P_SYMMETRIC},             /* ∬ */
	{"\xE2\x88\xAD", F_PREFIX, 3, 3, P_LARGEOP | P_SYMMETRIC},             /* ∭ */
	{"\xE2\x88\xAE", F_PREFIX, 3, 3, P_LARGEOP | P_SYMMETRIC},             /* ∮ */
	{"lim", F_PREFIX, 0, 3, P_MOVABLE},
	{"max", F_PREFIX, 0, 3, P_MOVABLE},
	{"min", F_PREFIX, 0, 3, P_MOVABLE},
	{"sup", F_PREFIX, 0, 3, P_MOVABLE},
	{"inf", F_PREFIX, 0, 3, P_MOVABLE},
	{"\xE2\x80\xBE", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT}, /* ‾ */
	{"\xC2\xAF", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT},     /* ¯ */
	{"_", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT},
	{"^", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT},
	{"~", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT},
	{"\xCB\x86", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT},     /* ˆ */
	{"\xCB\x9C", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT},     /* ˜ */
	{"\xCB\x87", F_POSTFIX, 0, 0, P_ACCENT},                  /* ˇ */
	{"\xCB\x99", F_POSTFIX, 0, 0, P_ACCENT},                  /* ˙ */
	{"\xC2\xA8", F_POSTFIX, 0, 0, P_ACCENT},                  /* ¨ */
	{"\xE2\x8F\x9E", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT}, /* ⏞ */
	{"\xE2\x8F\x9F", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT}, /* ⏟ */
	{"\xE2\x8E\xB4", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT}, /* ⎴ */
	{"\xE2\x8E\xB5", F_POSTFIX, 0, 0, P_STRETCHY | P_ACCENT}, /* ⎵ */
};

/* Relations and arrows: 5/18 on each side, arrows stretchy. */
static bool is_relation(unsigned c)
{
	return c == '=' || c == '<' || c == '>' || c == ':' || (c >= 0x2190 && c <= 0x21FF) ||
	       (c >= 0x27F0 && c <= 0x27FF) || (c >= 0x2260 && c <= 0x22A5 && c != 0x2295 &&
						  c != 0x2297 && c != 0x2299) ||
	       c == 0x2208 || c == 0x2209 || c == 0x220B || c == 0x220C || c == 0x221D ||
	       c == 0x2223 || c == 0x2225 || c == 0x2236 || c == 0x223C || c == 0x2243 ||
	       c == 0x2245 || c == 0x2248 || c == 0x224D || c == 0x2250 || c == 0x22A2 ||
	       c == 0x22A8 || c == 0x22B2 || c == 0x22B3 || c == 0x2254 || c == 0x225C;
}

struct opinfo {
	double l, r; /* in 18ths of an em */
	int props;
};

static struct opinfo op_lookup(const char *s, int form)
{
	const struct opdef *any = NULL;
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
		if (strcmp(ops[i].s, s) != 0)
			continue;
		if (ops[i].forms & form)
			return (struct opinfo){ops[i].l, ops[i].r, ops[i].props};
		if (!any)
			any = &ops[i];
	}
	if (any)
		return (struct opinfo){any->l, any->r, any->props};
	gunichar c = g_utf8_get_char_validated(s, -1);
	if ((gint)c > 0 && s[(unsigned char)g_utf8_skip[(unsigned char)*s]] == '\0' && is_relation(c)) {
		bool arrow = (c >= 0x2190 && c <= 0x21FF) || (c >= 0x27F0 && c <= 0x27FF);
		return (struct opinfo){5, 5, arrow ? P_STRETCHY : 0};
	}
	return (struct opinfo){5, 5, 0};
}

/* --- text: tokens shaped by HarfBuzz --- */

static unsigned styled(unsigned c, const char *variant)
{
	static const struct {
		const char *name;
		unsigned latin, digit, greek_upper, greek_lower;
	} v[] = {
		{"bold", 0x1D400, 0x1D7CE, 0x1D6A8, 0x1D6C2},
		{"italic", 0x1D434, 0, 0x1D6E2, 0x1D6FC},
		{"bold-italic", 0x1D468, 0, 0x1D71C, 0x1D736},
		{"script", 0x1D49C, 0, 0, 0},
		{"bold-script", 0x1D4D0, 0, 0, 0},
		{"fraktur", 0x1D504, 0, 0, 0},
		{"double-struck", 0x1D538, 0x1D7D8, 0, 0},
		{"bold-fraktur", 0x1D56C, 0, 0, 0},
		{"sans-serif", 0x1D5A0, 0x1D7E2, 0, 0},
		{"bold-sans-serif", 0x1D5D4, 0x1D7EC, 0x1D756, 0x1D770},
		{"sans-serif-italic", 0x1D608, 0, 0, 0},
		{"sans-serif-bold-italic", 0x1D63C, 0, 0x1D790, 0x1D7AA},
		{"monospace", 0x1D670, 0x1D7F6, 0, 0},
	};
	static const struct {
		const char *name;
		unsigned c, to;
	} holes[] = {
		{"italic", 'h', 0x210E},         {"script", 'B', 0x212C},
		{"script", 'E', 0x2130},         {"script", 'F', 0x2131},
		{"script", 'H', 0x210B},         {"script", 'I', 0x2110},
		{"script", 'L', 0x2112},         {"script", 'M', 0x2133},
		{"script", 'R', 0x211B},         {"script", 'e', 0x212F},
		{"script", 'g', 0x210A},         {"script", 'o', 0x2134},
		{"fraktur", 'C', 0x212D},        {"fraktur", 'H', 0x210C},
		{"fraktur", 'I', 0x2111},        {"fraktur", 'R', 0x211C},
		{"fraktur", 'Z', 0x2128},        {"double-struck", 'C', 0x2102},
		{"double-struck", 'H', 0x210D},  {"double-struck", 'N', 0x2115},
		{"double-struck", 'P', 0x2119},  {"double-struck", 'Q', 0x211A},
		{"double-struck", 'R', 0x211D},  {"double-struck", 'Z', 0x2124},
	};
	for (size_t i = 0; i < sizeof holes / sizeof *holes; i++)
		if (holes[i].c == c && strcmp(holes[i].name, variant) == 0)
			return holes[i].to;
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		if (strcmp(v[i].name, variant) != 0)
			continue;
		if (c >= 'A' && c <= 'Z')
			return v[i].latin + (c - 'A');
		if (c >= 'a' && c <= 'z')
			return v[i].latin + 26 + (c - 'a');
		if (c >= '0' && c <= '9' && v[i].digit)
			return v[i].digit + (c - '0');
		if (c >= 0x391 && c <= 0x3A9 && v[i].greek_upper)
			return v[i].greek_upper + (c - 0x391);
		if (c >= 0x3B1 && c <= 0x3C9 && v[i].greek_lower)
			return v[i].greek_lower + (c - 0x3B1);
		if (strcmp(variant, "italic") == 0) {
			static const unsigned from[] = {0x3F5, 0x3D1, 0x3F0, 0x3D5, 0x3F1, 0x3D6,
							0x131, 0x237, 0x2202, 0x2207};
			static const unsigned to[] = {0x1D716, 0x1D717, 0x1D718, 0x1D719, 0x1D71A,
						      0x1D71B, 0x1D6A4, 0x1D6A5, 0x1D715, 0x1D6FB};
			for (size_t j = 0; j < sizeof from / sizeof *from; j++)
				if (from[j] == c)
					return to[j];
		}
		return c;
	}
	return c;
}

/* Token text as the browser shows it: white space at the ends dropped,
 * runs of it one space; each character in its math variant. */
static char *token_text(const struct lay *L, const struct mnode *n, bool auto_italic)
{
	const char *t = n->text ? n->text : "";
	while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
		t++;
	const char *variant = mnode_attr(n, "mathvariant");
	size_t nchars = (size_t)g_utf8_strlen(t, -1);
	if (!variant && auto_italic && nchars == 1)
		variant = "italic";
	struct buf b = BUF_INIT;
	bool space = false;
	for (const char *p = t; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = true;
			continue;
		}
		if (space)
			buf_putc(&b, ' ');
		space = false;
		if ((c >= 0x2061 && c <= 0x2064) || c == 0x200B)
			continue; /* invisible operators: nothing to see */
		unsigned u = variant && strcmp(variant, "normal") != 0 ? styled(c, variant) : c;
		hb_codepoint_t g;
		if (u != c && !hb_font_get_nominal_glyph(L->f->hb, u, &g))
			u = c;
		char tmp[8];
		int k = g_unichar_to_utf8(u, tmp);
		buf_put(&b, tmp, (size_t)k);
	}
	return buf_detach(&b);
}

static struct mbox *glyph_box(const struct lay *L, const struct st *s, hb_codepoint_t g)
{
	struct mbox *b = box_new(BX_GLYPH);
	hb_glyph_extents_t e;
	double sz = size_of(L, s);
	b->glyph = g;
	b->size = sz;
	b->colour = s->colour;
	b->w = U(L, s, hb_font_get_glyph_h_advance(L->f->hb, g));
	if (hb_font_get_glyph_extents(L->f->hb, g, &e)) {
		b->h = U(L, s, e.y_bearing);
		b->d = -U(L, s, e.y_bearing + e.height);
	}
	b->italic = U(L, s, hb_ot_math_get_glyph_italics_correction(L->f->hb, g));
	hb_position_t adv = hb_font_get_glyph_h_advance(L->f->hb, g);
	hb_position_t att = hb_ot_math_get_glyph_top_accent_attachment(L->f->hb, g);
	/* none given: the middle of its ink (a combining accent has no
	 * advance, its ink is left of its origin) */
	if (att == adv / 2 && hb_font_get_glyph_extents(L->f->hb, g, &e))
		att = e.x_bearing + e.width / 2;
	b->accent = U(L, s, att);
	return b;
}

static struct mbox *text_box(const struct lay *L, const struct st *s, const char *text)
{
	struct mbox *l = box_new(BX_LIST);
	hb_buffer_t *buf = hb_buffer_create();
	hb_buffer_add_utf8(buf, text, -1, 0, -1);
	hb_buffer_guess_segment_properties(buf);
	hb_buffer_set_direction(buf, HB_DIRECTION_LTR);
	hb_shape(L->f->hb, buf, NULL, 0);
	unsigned n;
	hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &n);
	hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buf, &n);
	double x = 0;
	struct mbox *last = NULL;
	for (unsigned i = 0; i < n; i++) {
		if (info[i].codepoint == 0) {
			/* a character the font lacks (U+2061 function
			 * application, invisible times): nothing */
			continue;
		}
		struct mbox *g = glyph_box(L, s, info[i].codepoint);
		box_add(l, g, x + U(L, s, pos[i].x_offset), -U(L, s, pos[i].y_offset));
		x += U(L, s, pos[i].x_advance);
		last = g;
	}
	l->w = fmax(l->w, x);
	if (last) {
		l->italic = last->italic;
		if (n == 1)
			l->accent = last->accent;
	}
	hb_buffer_destroy(buf);
	return l;
}

/* --- stretchy glyphs --- */

/* The glyph of the one character of text, or 0. */
static hb_codepoint_t single_glyph(const struct lay *L, const char *text)
{
	if (!*text)
		return 0;
	gunichar c = g_utf8_get_char(text);
	if (text[(unsigned char)g_utf8_skip[(unsigned char)*text]])
		return 0;
	hb_codepoint_t g;
	return hb_font_get_nominal_glyph(L->f->hb, c, &g) ? g : 0;
}

/* Glyph g grown along dir to at least target points: the first variant
 * that reaches it, else built from the font's assembly, else the
 * largest variant. */
static struct mbox *stretch_glyph(const struct lay *L, const struct st *s, hb_codepoint_t g,
				  hb_direction_t dir, double target)
{
	bool vert = dir == HB_DIRECTION_BTT;
	hb_ot_math_glyph_variant_t var[64];
	unsigned nv = 64;
	hb_ot_math_get_glyph_variants(L->f->hb, g, dir, 0, &nv, var);
	hb_codepoint_t best = g;
	for (unsigned i = 0; i < nv; i++) {
		best = var[i].glyph;
		if (U(L, s, var[i].advance) >= target)
			return glyph_box(L, s, best);
	}
	hb_ot_math_glyph_part_t parts[32];
	unsigned np = 32;
	hb_position_t ic;
	unsigned total = hb_ot_math_get_glyph_assembly(L->f->hb, g, dir, 0, &np, parts, &ic);
	if (!np || total > 32)
		return glyph_box(L, s, best);
	double overlap = U(L, s, hb_ot_math_get_min_connector_overlap(L->f->hb, dir));
	/* repeats of the extenders until the assembly reaches target */
	int reps = 0;
	double len = 0;
	unsigned count = 0;
	for (; reps < 100; reps++) {
		len = 0;
		count = 0;
		for (unsigned i = 0; i < np; i++) {
			int times = parts[i].flags & HB_OT_MATH_GLYPH_PART_FLAG_EXTENDER ? reps : 1;
			for (int t = 0; t < times; t++) {
				len += U(L, s, parts[i].full_advance);
				count++;
			}
		}
		len -= overlap * (count ? count - 1 : 0);
		if (len >= target)
			break;
	}
	if (count < 2)
		return glyph_box(L, s, best);
	/* the overlaps spread so that the whole is target (not shorter
	 * than the connectors allow) */
	double shrink = 0;
	if (len > target) {
		double maxo = 1e9;
		for (unsigned i = 0; i < np; i++) {
			maxo = fmin(maxo, U(L, s, parts[i].start_connector_length));
			maxo = fmin(maxo, U(L, s, parts[i].end_connector_length));
		}
		shrink = fmin((len - target) / (count - 1), fmax(0, maxo - overlap));
	}
	struct mbox *l = box_new(BX_LIST);
	double at = 0;
	struct mbox *first = NULL;
	for (unsigned i = 0; i < np; i++) {
		int times = parts[i].flags & HB_OT_MATH_GLYPH_PART_FLAG_EXTENDER ? reps : 1;
		for (int t = 0; t < times; t++) {
			struct mbox *pg = glyph_box(L, s, parts[i].glyph);
			if (!first)
				first = pg;
			if (vert)
				box_add(l, pg, 0, -at);
			else
				box_add(l, pg, at, 0);
			at += U(L, s, parts[i].full_advance) - overlap - shrink;
		}
	}
	(void)first;
	return l;
}

/* --- the layout of each element --- */

static struct mbox *layout(struct lay *L, const struct mnode *n, const struct st *s, int depth);

static bool is(const struct mnode *n, const char *tag)
{
	return n && strcmp(n->tag, tag) == 0;
}

static bool is_token(const struct mnode *n)
{
	return is(n, "mi") || is(n, "mn") || is(n, "mo") || is(n, "mtext") || is(n, "ms");
}

static bool in_flow(const struct mnode *n)
{
	return !is(n, "annotation") && !is(n, "annotation-xml");
}

/* The core <mo> of an embellished operator, or NULL. */
static const struct mnode *core_mo(const struct mnode *n, int depth)
{
	if (!n || depth > MAX_NEST)
		return NULL;
	if (is(n, "mo"))
		return n;
	if ((is(n, "msub") || is(n, "msup") || is(n, "msubsup") || is(n, "munder") ||
	     is(n, "mover") || is(n, "munderover") || is(n, "mfrac") || is(n, "semantics")) &&
	    n->nkids)
		return core_mo(n->kids[0], depth + 1);
	if (is(n, "mrow") || is(n, "mstyle") || is(n, "mphantom") || is(n, "mpadded")) {
		const struct mnode *only = NULL;
		for (size_t i = 0; i < n->nkids; i++) {
			if (is(n->kids[i], "mspace"))
				continue;
			if (only)
				return NULL;
			only = n->kids[i];
		}
		return core_mo(only, depth + 1);
	}
	return NULL;
}

static bool attr_true(const struct mnode *n, const char *name, bool dflt)
{
	const char *v = n ? mnode_attr(n, name) : NULL;
	return v ? strcmp(v, "true") == 0 : dflt;
}

static int mo_form(const struct mnode *n)
{
	const char *f = mnode_attr(n, "form");
	if (f && strcmp(f, "prefix") == 0)
		return F_PREFIX;
	if (f && strcmp(f, "postfix") == 0)
		return F_POSTFIX;
	if (f && strcmp(f, "infix") == 0)
		return F_INFIX;
	return 0;
}

static char *mo_text(const struct mnode *mo)
{
	const char *t = mo->text ? mo->text : "";
	while (*t == ' ' || *t == '\n')
		t++;
	char *s = xstrdup(t);
	size_t k = strlen(s);
	while (k && (s[k - 1] == ' ' || s[k - 1] == '\n'))
		s[--k] = 0;
	return s;
}

static struct opinfo mo_info(const struct mnode *mo, int form)
{
	char *t = mo_text(mo);
	int f = mo_form(mo);
	struct opinfo o = op_lookup(t, f ? f : form ? form : F_INFIX);
	free(t);
	static const char *const flags[] = {"stretchy", "symmetric", "largeop", "movablelimits",
					    "fence", "accent"};
	for (int i = 0; i < 6; i++) {
		const char *v = mnode_attr(mo, flags[i]);
		if (v)
			o.props = strcmp(v, "true") == 0 ? o.props | (1 << i) : o.props & ~(1 << i);
	}
	return o;
}

static struct mbox *layout_mo(struct lay *L, const struct mnode *n, const struct st *s)
{
	struct opinfo o = mo_info(n, 0);
	char *t = token_text(L, n, false);
	/* accents KaTeX writes as characters that the font has blank or
	 * not at all (the browser falls back to another font): the
	 * combining ones, which the font stretches */
	if (strcmp(t, "\xCB\x89") == 0 || strcmp(t, "\xC2\xAF") == 0) { /* ˉ ¯ */
		free(t);
		t = xstrdup("\xCC\x84"); /* U+0304 */
	} else if (strcmp(t, "\xE2\x80\xBE") == 0) { /* ‾ */
		free(t);
		t = xstrdup("\xCC\x85"); /* U+0305 */
	}
	hb_codepoint_t g = single_glyph(L, t);
	struct mbox *b = NULL;
	double axis = C(L, s, HB_OT_MATH_CONSTANT_AXIS_HEIGHT);
	if (g && (o.props & P_LARGEOP) && s->display) {
		double min = C(L, s, HB_OT_MATH_CONSTANT_DISPLAY_OPERATOR_MIN_HEIGHT);
		b = stretch_glyph(L, s, g, HB_DIRECTION_BTT, min);
	} else if (g && (o.props & P_STRETCHY) && L->stretch == n && L->sw > 0) {
		b = stretch_glyph(L, s, g, HB_DIRECTION_LTR, L->sw);
	} else if (g && (o.props & P_STRETCHY) && L->stretch == n) {
		double th = L->sh, td = L->sd;
		if (o.props & P_SYMMETRIC) {
			double half = fmax(th - axis, td + axis);
			th = axis + half;
			td = half - axis;
		}
		b = stretch_glyph(L, s, g, HB_DIRECTION_BTT, th + td);
		/* its middle where the target's is (on the axis when symmetric) */
		double mid = (b->h - b->d) / 2, want = (th - td) / 2;
		struct mbox *l = box_new(BX_LIST);
		box_add(l, b, 0, mid - want);
		l->italic = b->italic;
		b = l;
	} else {
		b = text_box(L, s, t);
	}
	if (g && (o.props & P_LARGEOP) && (o.props & P_SYMMETRIC)) {
		/* centred on the axis */
		double shift = (b->h - b->d) / 2 - axis;
		struct mbox *l = box_new(BX_LIST);
		box_add(l, b, 0, shift);
		l->italic = b->italic;
		b = l;
	}
	b->largeop = (o.props & P_LARGEOP) != 0;
	free(t);
	return b;
}

static struct mbox *layout_token(struct lay *L, const struct mnode *n, const struct st *s)
{
	struct st ts = *s;
	const char *href = mnode_attr(n, "data-ld-href");
	if (href) {
		ts.colour = L->c->value;
		ts.href = href;
	}
	if (mnode_attr(n, "data-ld-missing"))
		ts.colour = L->c->missing;
	if (is(n, "mo"))
		return layout_mo(L, n, &ts);
	char *t = token_text(L, n, is(n, "mi"));
	struct mbox *b = text_box(L, &ts, t);
	free(t);
	b->href = href;
	return b;
}

/* A row: its children side by side, an operator's spacing around it,
 * stretchy operators grown to the tallest other child. */
static struct mbox *layout_row(struct lay *L, const struct mnode *n, size_t from,
			       const struct st *s, int depth)
{
	size_t nk = n->nkids;
	struct mbox **kb = xcalloc(nk + 1, sizeof *kb);
	const struct mnode **cm = xcalloc(nk + 1, sizeof *cm);
	size_t count = 0;
	for (size_t i = from; i < nk; i++)
		if (in_flow(n->kids[i]))
			count++;
	double th = 0, td = 0;
	bool any = false;
	for (size_t i = from; i < nk; i++) {
		if (!in_flow(n->kids[i]))
			continue;
		cm[i] = core_mo(n->kids[i], 0);
		bool stretchy = false;
		if (cm[i]) {
			struct opinfo o = mo_info(cm[i], 0);
			char *t = mo_text(cm[i]);
			hb_codepoint_t g = single_glyph(L, t);
			free(t);
			unsigned nv = 0;
			hb_ot_math_glyph_variant_t v;
			nv = 1;
			bool vert = g && (hb_ot_math_get_glyph_variants(L->f->hb, g, HB_DIRECTION_BTT,
									0, &nv, &v) > 0);
			stretchy = (o.props & P_STRETCHY) && vert;
		}
		if (stretchy)
			continue;
		cm[i] = NULL;
		kb[i] = layout(L, n->kids[i], s, depth + 1);
		th = any ? fmax(th, kb[i]->h) : kb[i]->h;
		td = any ? fmax(td, kb[i]->d) : kb[i]->d;
		any = true;
	}
	for (size_t i = from; i < nk; i++) {
		if (!in_flow(n->kids[i]) || kb[i])
			continue;
		const struct mnode *save = L->stretch;
		double sh = L->sh, sd = L->sd, sw = L->sw;
		if (any) {
			L->stretch = cm[i];
			L->sh = th;
			L->sd = td;
			L->sw = 0;
		}
		kb[i] = layout(L, n->kids[i], s, depth + 1);
		L->stretch = save;
		L->sh = sh;
		L->sd = sd;
		L->sw = sw;
	}
	struct mbox *row = box_new(BX_LIST);
	double x = 0;
	size_t pos = 0;
	struct mbox *last = NULL;
	for (size_t i = from; i < nk; i++) {
		if (!kb[i])
			continue;
		const struct mnode *mo = core_mo(n->kids[i], 0);
		double l = 0, r = 0;
		if (mo) {
			int form = count > 1 && pos == 0 ? F_PREFIX
				   : count > 1 && pos == count - 1 ? F_POSTFIX
								 : F_INFIX;
			struct opinfo o = mo_info(mo, form);
			double em = size_of(L, s);
			l = o.l * em / 18;
			r = o.r * em / 18;
			length(L, s, mnode_attr(mo, "lspace"), l, &l);
			length(L, s, mnode_attr(mo, "rspace"), r, &r);
		}
		x += l;
		box_add(row, kb[i], x, 0);
		x += kb[i]->w + r;
		last = kb[i];
		pos++;
	}
	row->w = fmax(row->w, x);
	if (last && pos == 1) {
		row->italic = last->italic;
		row->accent = last->accent + row->kx[0];
		row->largeop = last->largeop;
	}
	free(kb);
	free(cm);
	return row;
}

static struct st script_style(const struct st *s, int up)
{
	struct st t = *s;
	t.display = false;
	t.level += up;
	return t;
}

static struct mbox *layout_frac(struct lay *L, const struct mnode *n, const struct st *s,
				int depth)
{
	if (n->nkids < 2)
		return layout_row(L, n, 0, s, depth);
	struct st ks = script_style(s, s->display ? 0 : 1);
	struct st ds = ks;
	ds.cramped = true;
	struct mbox *num = layout(L, n->kids[0], &ks, depth + 1);
	struct mbox *den = layout(L, n->kids[1], &ds, depth + 1);
	double t = C(L, s, HB_OT_MATH_CONSTANT_FRACTION_RULE_THICKNESS);
	const char *lt = mnode_attr(n, "linethickness");
	if (lt) {
		double v;
		if (length(L, s, lt, t, &v))
			t = fmax(0, v);
		else if (strspn(lt, "0.") == strlen(lt))
			t = 0;
	}
	double axis = C(L, s, HB_OT_MATH_CONSTANT_AXIS_HEIGHT);
	double up, down;
	if (t > 0) {
		up = C(L, s, s->display ? HB_OT_MATH_CONSTANT_FRACTION_NUMERATOR_DISPLAY_STYLE_SHIFT_UP
					: HB_OT_MATH_CONSTANT_FRACTION_NUMERATOR_SHIFT_UP);
		down = C(L, s,
			 s->display ? HB_OT_MATH_CONSTANT_FRACTION_DENOMINATOR_DISPLAY_STYLE_SHIFT_DOWN
				    : HB_OT_MATH_CONSTANT_FRACTION_DENOMINATOR_SHIFT_DOWN);
		double ng = C(L, s, s->display ? HB_OT_MATH_CONSTANT_FRACTION_NUM_DISPLAY_STYLE_GAP_MIN
					       : HB_OT_MATH_CONSTANT_FRACTION_NUMERATOR_GAP_MIN);
		double dg = C(L, s, s->display
					? HB_OT_MATH_CONSTANT_FRACTION_DENOM_DISPLAY_STYLE_GAP_MIN
					: HB_OT_MATH_CONSTANT_FRACTION_DENOMINATOR_GAP_MIN);
		up = fmax(up, axis + t / 2 + ng + num->d);
		down = fmax(down, t / 2 + dg + den->h - axis);
	} else {
		up = C(L, s, s->display ? HB_OT_MATH_CONSTANT_STACK_TOP_DISPLAY_STYLE_SHIFT_UP
					: HB_OT_MATH_CONSTANT_STACK_TOP_SHIFT_UP);
		down = C(L, s, s->display ? HB_OT_MATH_CONSTANT_STACK_BOTTOM_DISPLAY_STYLE_SHIFT_DOWN
					  : HB_OT_MATH_CONSTANT_STACK_BOTTOM_SHIFT_DOWN);
		double gap = C(L, s, s->display ? HB_OT_MATH_CONSTANT_STACK_DISPLAY_STYLE_GAP_MIN
						: HB_OT_MATH_CONSTANT_STACK_GAP_MIN);
		double delta = (gap - ((up - num->d) - (den->h - down))) / 2;
		if (delta > 0) {
			up += delta;
			down += delta;
		}
	}
	double pad = 0.75; /* the browser's 1px on each side */
	double w = fmax(num->w, den->w);
	struct mbox *b = box_new(BX_LIST);
	box_add(b, num, pad + (w - num->w) / 2, -up);
	box_add(b, den, pad + (w - den->w) / 2, down);
	if (t > 0)
		box_add(b, rule(w, axis + t / 2, t / 2 - axis, s->colour), pad, 0);
	b->w = w + 2 * pad;
	b->fa = axis;
	b->fb = t;
	return b;
}

/* Scripts: base, sub (may be NULL), sup (may be NULL). */
static struct mbox *attach_scripts(struct lay *L, const struct st *s, struct mbox *base,
				   const struct mnode *subn, const struct mnode *supn, int depth)
{
	struct st sub_s = script_style(s, 1), sup_s = script_style(s, 1);
	sub_s.cramped = true;
	struct mbox *sub = subn ? layout(L, subn, &sub_s, depth + 1) : NULL;
	struct mbox *sup = supn ? layout(L, supn, &sup_s, depth + 1) : NULL;
	double sub_shift = 0, sup_shift = 0;
	if (sub) {
		sub_shift = fmax(C(L, s, HB_OT_MATH_CONSTANT_SUBSCRIPT_SHIFT_DOWN),
				 base->d + C(L, s, HB_OT_MATH_CONSTANT_SUBSCRIPT_BASELINE_DROP_MIN));
		sub_shift = fmax(sub_shift,
				 sub->h - C(L, s, HB_OT_MATH_CONSTANT_SUBSCRIPT_TOP_MAX));
	}
	if (sup) {
		sup_shift = C(L, s, s->cramped ? HB_OT_MATH_CONSTANT_SUPERSCRIPT_SHIFT_UP_CRAMPED
					       : HB_OT_MATH_CONSTANT_SUPERSCRIPT_SHIFT_UP);
		sup_shift = fmax(sup_shift,
				 base->h - C(L, s, HB_OT_MATH_CONSTANT_SUPERSCRIPT_BASELINE_DROP_MAX));
		sup_shift = fmax(sup_shift,
				 sup->d + C(L, s, HB_OT_MATH_CONSTANT_SUPERSCRIPT_BOTTOM_MIN));
	}
	if (sub && sup) {
		double gap = (sup_shift - sup->d) - (sub->h - sub_shift);
		double min = C(L, s, HB_OT_MATH_CONSTANT_SUB_SUPERSCRIPT_GAP_MIN);
		if (gap < min) {
			sub_shift += min - gap;
			double delta = C(L, s, HB_OT_MATH_CONSTANT_SUPERSCRIPT_BOTTOM_MAX_WITH_SUBSCRIPT) -
				       (sup_shift - sup->d);
			if (delta > 0) {
				sup_shift += delta;
				sub_shift -= delta;
			}
		}
	}
	double after = C(L, s, HB_OT_MATH_CONSTANT_SPACE_AFTER_SCRIPT);
	struct mbox *b = box_new(BX_LIST);
	box_add(b, base, 0, 0);
	double w = base->w;
	double ic = base->italic;
	if (sub) {
		double x = base->w - (base->largeop ? ic : 0);
		box_add(b, sub, x, sub_shift);
		w = fmax(w, x + sub->w);
	}
	if (sup) {
		double x = base->w + (base->largeop ? 0 : ic);
		box_add(b, sup, x, -sup_shift);
		w = fmax(w, x + sup->w);
	}
	b->w = w + after;
	b->fa = sup_shift;
	b->fb = sub_shift;
	return b;
}

static struct mbox *layout_scripts(struct lay *L, const struct mnode *n, const struct st *s,
				   int depth)
{
	if (n->nkids < 2 || (is(n, "msubsup") && n->nkids < 3))
		return layout_row(L, n, 0, s, depth);
	struct mbox *base = layout(L, n->kids[0], s, depth + 1);
	const struct mnode *sub = NULL, *sup = NULL;
	if (is(n, "msub"))
		sub = n->kids[1];
	else if (is(n, "msup"))
		sup = n->kids[1];
	else {
		sub = n->kids[1];
		sup = n->kids[2];
	}
	return attach_scripts(L, s, base, sub, sup, depth);
}

/* A script of munder/mover, stretched across width when it is a
 * stretchy operator. */
static struct mbox *under_over_script(struct lay *L, const struct mnode *n, const struct st *s,
				      double width, int depth)
{
	const struct mnode *mo = core_mo(n, 0);
	const struct mnode *save = L->stretch;
	double sw = L->sw;
	if (mo && (mo_info(mo, F_POSTFIX).props & P_STRETCHY)) {
		L->stretch = mo;
		L->sw = width;
	}
	struct mbox *b = layout(L, n, s, depth + 1);
	L->stretch = save;
	L->sw = sw;
	return b;
}

static struct mbox *layout_underover(struct lay *L, const struct mnode *n, const struct st *s,
				     int depth)
{
	if (n->nkids < 2 || (is(n, "munderover") && n->nkids < 3))
		return layout_row(L, n, 0, s, depth);
	const struct mnode *under = NULL, *over = NULL;
	if (is(n, "munder"))
		under = n->kids[1];
	else if (is(n, "mover"))
		over = n->kids[1];
	else {
		under = n->kids[1];
		over = n->kids[2];
	}
	const struct mnode *bmo = core_mo(n->kids[0], 0);
	struct opinfo bo = bmo ? mo_info(bmo, F_PREFIX) : (struct opinfo){0, 0, 0};
	if (bmo && (bo.props & P_MOVABLE) && !s->display) {
		struct mbox *base = layout(L, n->kids[0], s, depth + 1);
		return attach_scripts(L, s, base, under, over, depth);
	}
	bool acc = attr_true(n, "accent", false), accu = attr_true(n, "accentunder", false);
	if (over && !mnode_attr(n, "accent") && core_mo(over, 0))
		acc = (mo_info(core_mo(over, 0), F_POSTFIX).props & P_ACCENT) != 0;
	if (under && !mnode_attr(n, "accentunder") && core_mo(under, 0))
		accu = (mo_info(core_mo(under, 0), F_POSTFIX).props & P_ACCENT) != 0;
	struct st bs = *s;
	if (acc)
		bs.cramped = true;
	struct mbox *base = layout(L, n->kids[0], &bs, depth + 1);
	struct st os = acc ? *s : script_style(s, 1), us = accu ? *s : script_style(s, 1);
	if (acc)
		os.display = false;
	if (accu)
		us.display = false;
	us.cramped = true;
	struct mbox *ov = over ? under_over_script(L, over, &os, base->w, depth) : NULL;
	struct mbox *un = under ? under_over_script(L, under, &us, base->w, depth) : NULL;
	bool large = base->largeop;
	double w = base->w;
	if (ov)
		w = fmax(w, ov->w);
	if (un)
		w = fmax(w, un->w);
	struct mbox *b = box_new(BX_LIST);
	double ic = large ? base->italic : 0;
	box_add(b, base, (w - base->w) / 2, 0);
	if (ov) {
		double rise;
		if (large)
			rise = fmax(C(L, s, HB_OT_MATH_CONSTANT_UPPER_LIMIT_BASELINE_RISE_MIN),
				    C(L, s, HB_OT_MATH_CONSTANT_UPPER_LIMIT_GAP_MIN) + ov->d);
		else if (acc)
			rise = fmax(0, base->h - C(L, s, HB_OT_MATH_CONSTANT_ACCENT_BASE_HEIGHT)) -
			       base->h;
		else
			rise = C(L, s, HB_OT_MATH_CONSTANT_OVERBAR_VERTICAL_GAP) + ov->d;
		double x = (w - ov->w) / 2 + ic / 2;
		if (acc && !isnan(base->accent) && !isnan(ov->accent))
			x = (w - base->w) / 2 + base->accent - ov->accent;
		box_add(b, ov, x, -(base->h + rise));
		if (!acc && !large)
			b->h += C(L, s, HB_OT_MATH_CONSTANT_OVERBAR_EXTRA_ASCENDER);
	}
	if (un) {
		double drop;
		if (large)
			drop = fmax(C(L, s, HB_OT_MATH_CONSTANT_LOWER_LIMIT_BASELINE_DROP_MIN),
				    C(L, s, HB_OT_MATH_CONSTANT_LOWER_LIMIT_GAP_MIN) + un->h);
		else
			drop = C(L, s, HB_OT_MATH_CONSTANT_UNDERBAR_VERTICAL_GAP) + un->h;
		box_add(b, un, (w - un->w) / 2 - ic / 2, base->d + drop);
		if (!accu && !large)
			b->d += C(L, s, HB_OT_MATH_CONSTANT_UNDERBAR_EXTRA_DESCENDER);
	}
	b->w = fmax(b->w, w);
	b->largeop = large;
	if (!ov && !un)
		b->italic = base->italic;
	return b;
}

static struct mbox *layout_radical(struct lay *L, const struct mnode *n, const struct st *s,
				   int depth)
{
	bool root = is(n, "mroot");
	if (root && n->nkids < 2)
		return layout_row(L, n, 0, s, depth);
	struct st cs = *s;
	cs.cramped = true;
	struct mbox *body;
	if (root) {
		body = layout(L, n->kids[0], &cs, depth + 1);
	} else {
		body = layout_row(L, n, 0, &cs, depth);
	}
	double gap = C(L, s, s->display ? HB_OT_MATH_CONSTANT_RADICAL_DISPLAY_STYLE_VERTICAL_GAP
					: HB_OT_MATH_CONSTANT_RADICAL_VERTICAL_GAP);
	double t = C(L, s, HB_OT_MATH_CONSTANT_RADICAL_RULE_THICKNESS);
	double extra = C(L, s, HB_OT_MATH_CONSTANT_RADICAL_EXTRA_ASCENDER);
	hb_codepoint_t g = single_glyph(L, "\xE2\x88\x9A");
	double target = body->h + body->d + gap + t;
	struct mbox *rad = g ? stretch_glyph(L, s, g, HB_DIRECTION_BTT, target) : rule(0, 0, 0, 0);
	double total = rad->h + rad->d;
	if (total - t > body->h + body->d + gap)
		gap += (total - t - (body->h + body->d + gap)) / 2;
	double top = body->h + gap + t; /* the radical's top above the baseline */
	struct mbox *b = box_new(BX_LIST);
	double x = 0;
	if (root) {
		struct st is_ = script_style(s, 2);
		struct mbox *idx = layout(L, n->kids[1], &is_, depth + 1);
		double before = C(L, s, HB_OT_MATH_CONSTANT_RADICAL_KERN_BEFORE_DEGREE);
		double after = C(L, s, HB_OT_MATH_CONSTANT_RADICAL_KERN_AFTER_DEGREE);
		double raise = K(L->f, HB_OT_MATH_CONSTANT_RADICAL_DEGREE_BOTTOM_RAISE_PERCENT) / 100.0;
		double bottom = top - total;
		/* the degree's bottom raised by a percent of the radical */
		box_add(b, idx, before, -(bottom + raise * total) - idx->d);
		x = fmax(0, before + idx->w + after);
	}
	box_add(b, rad, x, top - rad->h);
	x += rad->w;
	box_add(b, rule(body->w, top, t - top, s->colour), x, 0);
	box_add(b, body, x, 0);
	b->h = fmax(b->h, top + extra);
	return b;
}

static const char *nth_word(const char *list, size_t i, char *out, size_t cap)
{
	if (!list)
		return NULL;
	const char *p = list, *last = NULL;
	size_t lastn = 0;
	for (size_t k = 0;; k++) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		last = p;
		lastn = (size_t)(e - p);
		if (k == i)
			break;
		p = e;
	}
	if (!last || lastn >= cap)
		return NULL;
	memcpy(out, last, lastn);
	out[lastn] = 0;
	return out;
}

static struct mbox *layout_table(struct lay *L, const struct mnode *n, const struct st *s,
				 int depth)
{
	size_t nr = 0, nc = 0;
	for (size_t i = 0; i < n->nkids; i++) {
		if (!is(n->kids[i], "mtr") && !is(n->kids[i], "mlabeledtr"))
			continue;
		nr++;
		size_t c = 0;
		for (size_t j = 0; j < n->kids[i]->nkids; j++)
			c += is(n->kids[i]->kids[j], "mtd");
		nc = c > nc ? c : nc;
	}
	if (!nr || !nc || nr * nc > 100000)
		return layout_row(L, n, 0, s, depth);
	struct mbox **cell = xcalloc(nr * nc, sizeof *cell);
	const struct mnode **cn = xcalloc(nr * nc, sizeof *cn);
	double *cw = xcalloc(nc, sizeof *cw), *rh = xcalloc(nr, sizeof *rh),
	       *rd = xcalloc(nr, sizeof *rd);
	size_t r = 0;
	for (size_t i = 0; i < n->nkids; i++) {
		const struct mnode *tr = n->kids[i];
		if (!is(tr, "mtr") && !is(tr, "mlabeledtr"))
			continue;
		size_t c = 0;
		for (size_t j = 0; j < tr->nkids; j++) {
			if (!is(tr->kids[j], "mtd"))
				continue;
			struct mbox *b = layout_row(L, tr->kids[j], 0, s, depth + 2);
			cell[r * nc + c] = b;
			cn[r * nc + c] = tr->kids[j];
			cw[c] = fmax(cw[c], b->w);
			rh[r] = fmax(rh[r], b->h);
			rd[r] = fmax(rd[r], b->d);
			c++;
		}
		r++;
	}
	double em = size_of(L, s), padx = 0.4 * em, pady = 0.25 * em;
	double total = 0;
	for (size_t i = 0; i < nr; i++)
		total += rh[i] + rd[i] + 2 * pady;
	double axis = C(L, s, HB_OT_MATH_CONSTANT_AXIS_HEIGHT);
	double top = total / 2 + axis; /* the table's top above the baseline */
	struct mbox *b = box_new(BX_LIST);
	double y = -top;
	const char *colalign = mnode_attr(n, "columnalign");
	for (size_t i = 0; i < nr; i++) {
		y += pady + rh[i];
		double x = 0;
		for (size_t j = 0; j < nc; j++) {
			x += padx;
			struct mbox *c = cell[i * nc + j];
			if (c) {
				char word[16];
				const char *al = mnode_attr(cn[i * nc + j], "columnalign");
				if (!al)
					al = nth_word(colalign, j, word, sizeof word);
				double off = (cw[j] - c->w) / 2;
				if (al && strcmp(al, "left") == 0)
					off = 0;
				else if (al && strcmp(al, "right") == 0)
					off = cw[j] - c->w;
				box_add(b, c, x + off, y);
			}
			x += cw[j] + padx;
		}
		b->w = fmax(b->w, x);
		y += rd[i] + pady;
	}
	b->h = fmax(b->h, top);
	b->d = fmax(b->d, total - top);
	free(cell);
	free(cn);
	free(cw);
	free(rh);
	free(rd);
	return b;
}

static struct mbox *layout_padded(struct lay *L, const struct mnode *n, const struct st *s,
				  int depth)
{
	struct mbox *in = layout_row(L, n, 0, s, depth);
	double w = in->w, h = in->h, d = in->d, ls = 0, vo = 0;
	length(L, s, mnode_attr(n, "width"), in->w, &w);
	length(L, s, mnode_attr(n, "height"), in->h, &h);
	length(L, s, mnode_attr(n, "depth"), in->d, &d);
	length(L, s, mnode_attr(n, "lspace"), 0, &ls);
	length(L, s, mnode_attr(n, "voffset"), 0, &vo);
	struct mbox *b = box_new(BX_LIST);
	box_add(b, in, ls, -vo);
	b->w = fmax(0, w);
	b->h = h;
	b->d = d;
	return b;
}

static struct mbox *layout(struct lay *L, const struct mnode *n, const struct st *s, int depth)
{
	struct st ns = *s;
	const char *col = mnode_attr(n, "mathcolor");
	if (col && *col == '#' && (strlen(col) == 7 || strlen(col) == 4)) {
		unsigned v = (unsigned)strtoul(col + 1, NULL, 16);
		if (strlen(col) == 4)
			v = ((v >> 8) & 15) * 0x110000 + ((v >> 4) & 15) * 0x1100 + (v & 15) * 0x11;
		ns.colour = v;
	}
	const char *ds = mnode_attr(n, "displaystyle");
	if (ds)
		ns.display = strcmp(ds, "true") == 0;
	const char *sl = mnode_attr(n, "scriptlevel");
	if (sl) {
		long v = strtol(sl, NULL, 10);
		v = v < -8 ? -8 : v > 8 ? 8 : v;
		if (*sl == '+' || *sl == '-')
			ns.level += (int)v;
		else
			ns.level = (int)v;
		ns.level = ns.level < 0 ? 0 : ns.level > 8 ? 8 : ns.level;
	}
	struct mbox *b;
	if (depth > MAX_NEST)
		b = box_new(BX_LIST);
	else if (is_token(n))
		b = layout_token(L, n, &ns);
	else if (is(n, "mfrac"))
		b = layout_frac(L, n, &ns, depth);
	else if (is(n, "msub") || is(n, "msup") || is(n, "msubsup"))
		b = layout_scripts(L, n, &ns, depth);
	else if (is(n, "munder") || is(n, "mover") || is(n, "munderover"))
		b = layout_underover(L, n, &ns, depth);
	else if (is(n, "msqrt") || is(n, "mroot"))
		b = layout_radical(L, n, &ns, depth);
	else if (is(n, "mtable"))
		b = layout_table(L, n, &ns, depth);
	else if (is(n, "mpadded"))
		b = layout_padded(L, n, &ns, depth);
	else if (is(n, "mspace")) {
		b = box_new(BX_LIST);
		double v = 0;
		if (length(L, &ns, mnode_attr(n, "width"), 0, &v))
			b->w = fmax(0, v);
		if (length(L, &ns, mnode_attr(n, "height"), 0, &v))
			b->h = v;
		if (length(L, &ns, mnode_attr(n, "depth"), 0, &v))
			b->d = v;
	} else if (is(n, "semantics")) {
		b = n->nkids ? layout(L, n->kids[0], &ns, depth + 1) : box_new(BX_LIST);
	} else if (!in_flow(n)) {
		b = box_new(BX_LIST);
	} else {
		/* mrow, mstyle, mphantom, math and anything unknown */
		b = layout_row(L, n, 0, &ns, depth);
	}
	if (is(n, "mphantom"))
		b->phantom = true;
	if (!b->tag)
		b->tag = n->tag;
	else {
		/* a box for each element: wrapped when the child's box is
		 * passed up as is */
		struct mbox *w = box_new(BX_LIST);
		box_add(w, b, 0, 0);
		w->w = b->w;
		w->h = b->h;
		w->d = b->d;
		w->italic = b->italic;
		w->accent = b->accent;
		w->largeop = b->largeop;
		w->tag = n->tag;
		b = w;
	}
	return b;
}

struct math_layout *math_layout_new(struct math_font *f, const char *xml, size_t len, double size,
				    const struct math_colours *c)
{
	if (!f)
		return NULL;
	struct mnode *tree = mathml_read(xml, len, MAX_NEST);
	if (!tree)
		return NULL;
	struct math_layout *m = xcalloc(1, sizeof *m);
	m->tree = tree;
	m->f = f;
	const char *disp = mnode_attr(tree, "display");
	m->display = disp && strcmp(disp, "block") == 0;
	struct lay L = {.f = f, .base = size, .c = c};
	struct st s = {.display = m->display, .colour = c->text};
	m->root = layout(&L, tree, &s, 0);
	return m;
}

void math_layout_free(struct math_layout *m)
{
	if (!m)
		return;
	box_free(m->root);
	mathml_tree_free(m->tree);
	free(m);
}

void math_layout_extents(const struct math_layout *m, double *w, double *ascent, double *descent)
{
	*w = m->root->w;
	*ascent = m->root->h;
	*descent = m->root->d;
}

bool math_layout_display(const struct math_layout *m)
{
	return m->display;
}

struct drawing {
	const struct math_font *f;
	cairo_t *cr;
	math_link_fn link;
	void *ctx;
};

static void set_colour(cairo_t *cr, unsigned c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
			     (c & 255) / 255.0);
}

static void draw(const struct drawing *dr, const struct mbox *b, double x, double y)
{
	if (b->phantom)
		return;
	if (b->kind == BX_GLYPH) {
		cairo_glyph_t g = {b->glyph, x, y};
		cairo_set_font_face(dr->cr, dr->f->face);
		cairo_set_font_size(dr->cr, b->size);
		set_colour(dr->cr, b->colour);
		cairo_show_glyphs(dr->cr, &g, 1);
		return;
	}
	if (b->kind == BX_RULE) {
		if (b->w > 0 && b->h + b->d > 0) {
			set_colour(dr->cr, b->colour);
			cairo_rectangle(dr->cr, x, y - b->h, b->w, b->h + b->d);
			cairo_fill(dr->cr);
		}
		return;
	}
	for (size_t i = 0; i < b->nk; i++)
		draw(dr, b->k[i], x + b->kx[i], y + b->ky[i]);
	if (b->href && dr->link)
		dr->link(dr->ctx, b->href, x, y - b->h, b->w, b->h + b->d);
}

void math_layout_draw(const struct math_layout *m, cairo_t *cr, double x, double baseline,
		      math_link_fn link, void *ctx)
{
	struct drawing dr = {m->f, cr, link, ctx};
	cairo_save(cr);
	draw(&dr, m->root, x, baseline);
	cairo_restore(cr);
}

struct finding {
	const char *tag;
	int nth;
	struct math_fact *out;
	bool found;
};

static void find(struct finding *fd, const struct mbox *b, double x, double y)
{
	if (fd->found)
		return;
	if (b->tag && strcmp(b->tag, fd->tag) == 0 && fd->nth-- == 0) {
		*fd->out = (struct math_fact){x, y, b->w, b->h, b->d, b->fa, b->fb};
		if (strcmp(fd->tag, "mo") == 0)
			fd->out->a = b->h + b->d;
		fd->found = true;
		return;
	}
	for (size_t i = 0; i < b->nk; i++)
		find(fd, b->k[i], x + b->kx[i], y + b->ky[i]);
}

bool math_layout_find(const struct math_layout *m, const char *tag, int nth,
		      struct math_fact *out)
{
	struct finding fd = {tag, nth, out, false};
	find(&fd, m->root, 0, 0);
	return fd.found;
}
