/* fuzz_dllogger.c: the DLLogger reader (parse/dllogger.h) on arbitrary
 * bytes.  Whatever it reads must hold together, or the harness aborts:
 * it reads any readable file (malformed lines are warnings, never
 * errors), every field and row comes from a line of the file, and the
 * rows are in the file's order. */
#include "fuzz.h"

#include "parse/dllogger.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "dllogger: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct diag *d = fuzz_diag();
	struct run *r = run_new("fuzz", "fuzz.json", "dllogger");
	check(dllogger_read(r, path, "fuzz.json", d), "a readable file was refused");
	check(diag_errors(d) == 0, "an error (malformed lines are warnings)");
	long lines = run_line_count(r);
	for (size_t i = 0; i < run_field_count(r); i++) {
		const struct datum *v = run_field_at(r, i);
		check(v->line >= 1 && v->line <= lines, "a field from no line of the file");
	}
	const struct series *s = run_series(r, "log");
	check(run_series_count(r) == (s ? 1u : 0u), "a series other than log");
	long last = 0;
	for (size_t row = 0; s && row < series_row_count(s); row++) {
		long l = series_row_line(s, row);
		check(l > last && l <= lines, "rows out of the file's order");
		last = l;
		for (size_t k = 0; k < series_column_count(s); k++) {
			struct datum v;
			series_cell(s, row, k, &v);
			check(v.kind != DATUM_NUMBER || v.text != NULL, "a number without its text");
		}
	}
	run_free(r);
	diag_free(d);
	return 0;
}
