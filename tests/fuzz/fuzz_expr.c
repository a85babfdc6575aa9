/* fuzz_expr.c: an expression (SPEC section 4) and a format spec (section
 * 5), as an inline value {{ expr :spec }} gives them: the bytes before
 * the first NUL are the expression, those after it the spec.  The
 * expression is evaluated against the fixture runs (fuzz.h) as a report
 * would, inside cs512 as a parser's derive would, and inside a row of
 * cs512.train as a table's column would. */
#include "fuzz.h"

#include "resolve/format.h"

static void eval_in(const struct expr *e, const struct scope *sc, const struct format *f,
		    bool have_format, struct diag *d)
{
	struct eval v;
	if (expr_eval(e, sc, &v, d)) {
		if (have_format && v.kind == EVAL_NUMBER) {
			struct buf b = BUF_INIT;
			format_number(&b, v.num, f);
			buf_free(&b);
		}
		eval_clear(&v);
	}
	if (expr_eval_one(e, sc, &v, d))
		eval_clear(&v);
	const struct series *s;
	const struct run *r;
	expr_eval_series(e, sc, &s, &r, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fuzz_runs *fr = fuzz_runs();
	const char *text, *spec;
	size_t ntext, nspec;
	fuzz_split(data, size, &text, &ntext, &spec, &nspec);
	struct diag *d = fuzz_diag();
	/* The whole input is the "file" its locations point into. */
	char *src = xmalloc(size ? size : 1);
	memcpy(src, data, size);
	diag_add_source(d, "fuzz.md", src, size);
	struct loc at = {"fuzz.md", 1, 1, 0};

	struct format f = {false, -1, 'g'};
	bool have_format = false;
	if (nspec) {
		struct loc sat = {"fuzz.md", 1, (int)ntext + 2, 0};
		have_format = format_parse(src + ntext + 1, nspec, sat, &f, d);
	}
	struct expr *e = expr_parse(src, ntext, at, d);
	if (e) {
		expr_is_reference(e);
		eval_in(e, &fr->scope, &f, have_format, d);
		struct scope in_run = fr->scope;
		in_run.run = fr->runs[2];
		eval_in(e, &in_run, &f, have_format, d);
		struct scope in_row = in_run;
		in_row.series = run_series(fr->runs[2], "train");
		if (in_row.series && series_row_count(in_row.series) > 1) {
			in_row.row = 1;
			eval_in(e, &in_row, &f, have_format, d);
		}
		eval_in(e, NULL, &f, have_format, d);
	}
	expr_free(e);
	diag_free(d);
	free(src);
	return 0;
}
