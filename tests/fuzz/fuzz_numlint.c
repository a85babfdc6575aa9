/* fuzz_numlint.c: the hand-typed number lint on arbitrary bytes.  The
 * first byte chooses: even, the bytes are prose for the scanner, each
 * number it keeps checked (inside the text, in order, a normal form
 * of digits) and matched against a run's values; odd, the bytes are a
 * Markdown body, parsed by cmark-gfm and walked whole (comments,
 * columns in the source line).  Every warning is an outcome. */
#include "fuzz.h"

#include <cmark-gfm.h>

#include "parse/valuetype.h"
#include "resolve/numlint.h"

static struct run *values(void)
{
	struct run *r = run_new("a", "a.log", "fuzz");
	static const struct {
		const char *name, *text;
		double num;
	} f[] = {
		{"loss", "2.3147", 2.3147}, {"acc", "0.934", 0.934},   {"n", "12345", 12345},
		{"util", "98.07%", 98.07},  {"t", "1.5e-3", 1.5e-3}, {"neg", "-0.25", -0.25},
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		struct datum d = {DATUM_NUMBER, f[i].num, f[i].text, strlen(f[i].text), (long)i + 1};
		run_set_field(r, f[i].name, &d);
	}
	/* a series whose middle rows are matched by their digits, keyed by
	 * step: a repeated step (row 3) and a string key (row 4) too */
	static const char *const cols[] = {"step", "loss"};
	static const struct {
		const char *step, *loss;
	} rows[] = {{"100", "9.39062"}, {"200", "7.80469"}, {"300", "7.79688"},
		    {"200", "7.53125"}, {"end", "2,946.17"}, {"600", "7.125"}};
	struct series *s = run_add_series(r, "train", cols, 2);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct datum c[2] = {datum_from_text(rows[i].step, strlen(rows[i].step), 0),
				     datum_from_text(rows[i].loss, strlen(rows[i].loss), 0)};
		series_append(s, c, (long)i + 10);
	}
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *s = (const char *)data + 1;
	size_t n = size - 1;
	struct run *r = values();
	const struct run *runs[] = {r};
	struct numlint *nl = numlint_new(runs, 1);
	if (data[0] % 2 == 0) {
		size_t pos = 0, last = 0;
		struct numlint_token t;
		while (numlint_next(s, n, &pos, &t)) {
			if (t.at < last || t.at + t.len > n || t.at + t.len > pos || !t.norm[0] ||
			    t.sig > (int)strlen(t.norm))
				abort();
			last = t.at + t.len;
			struct numlint_match m;
			if (numlint_match(nl, &t, &m) && (!m.expr || !m.file))
				abort();
		}
		if (pos != n)
			abort();
	} else {
		struct diag *d = fuzz_diag();
		cmark_parser *p = cmark_parser_new(CMARK_OPT_SOURCEPOS | CMARK_OPT_UNSAFE);
		cmark_parser_feed(p, s, n);
		cmark_node *root = cmark_parser_finish(p);
		numlint_doc(nl, root, s, n, "fuzz.md", 0, d);
		cmark_node_free(root);
		cmark_parser_free(p);
		diag_free(d);
	}
	numlint_free(nl);
	run_free(r);
	return 0;
}
