/* fuzz_structured.c: the JSON, YAML and CSV readers on arbitrary bytes;
 * the first byte chooses the reader (its value modulo 3) and, for JSON
 * and CSV, a refill size (the rest): the file is read twice, with the
 * reader's own refills and with refills of that many bytes
 * (LOGDOWN_TEST_CHUNK), and everything read and reported must be the
 * same, or the harness aborts. */
#include "fuzz.h"

#include "parse/structured.h"

/* All that reading path gives: ok, the diagnostics, the line count, the
 * fields and the series.  Caller frees. */
static char *read_all(bool (*read)(struct run *, const char *, const char *, struct diag *),
		      const char *path, const char *name)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	struct diag *d = diag_new(f, DIAG_TEXT, false);
	struct run *r = run_new("fuzz", name, "fuzz");
	bool ok = read(r, path, name, d);
	fprintf(f, "ok %d, %ld lines\n", ok, run_line_count(r));
	for (size_t i = 0; i < run_field_count(r); i++) {
		const struct datum *v = run_field_at(r, i);
		fprintf(f, "%s: %d %.17g [%.*s] %ld\n", run_field_name(r, i), (int)v->kind, v->num,
			v->text ? (int)v->len : 0, v->text ? v->text : "", v->line);
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		fprintf(f, "series %s:", series_name(s));
		for (size_t k = 0; k < series_column_count(s); k++)
			fprintf(f, " %s", series_column(s, k));
		for (size_t row = 0; row < series_row_count(s); row++) {
			fprintf(f, "\n  %ld:", series_row_line(s, row));
			for (size_t k = 0; k < series_column_count(s); k++) {
				struct datum v;
				series_cell(s, row, k, &v);
				fprintf(f, " %d %.17g [%.*s]", (int)v.kind, v.num,
					v.text ? (int)v.len : 0, v.text ? v.text : "-");
			}
		}
		fputc('\n', f);
	}
	run_free(r);
	diag_free(d);
	fclose(f);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static bool (*const read[])(struct run *, const char *, const char *, struct diag *) = {
		structured_read_json,
		structured_read_yaml,
		structured_read_csv,
	};
	static const char *const names[] = {"fuzz.json", "fuzz.yaml", "fuzz.csv"};
	static const char *const chunks[] = {"1", "2", "3", "7", "64", "5"};
	unsigned k = data[0] % 3;
	const char *path = fuzz_file(data + 1, size - 1);
	struct diag *d = fuzz_diag();
	struct run *r = run_new("fuzz", names[k], "fuzz");
	read[k](r, path, names[k], d);
	run_free(r);
	free(snake_case((const char *)data + 1, size - 1));
	diag_free(d);
	if (k != 1) {
		unsetenv("LOGDOWN_TEST_CHUNK");
		char *want = read_all(read[k], path, names[k]);
		setenv("LOGDOWN_TEST_CHUNK", chunks[data[0] / 3 % ARRAY_LEN(chunks)], 1);
		char *got = read_all(read[k], path, names[k]);
		unsetenv("LOGDOWN_TEST_CHUNK");
		if (strcmp(got, want) != 0) {
			fprintf(stderr, "refills of %s bytes read\n%s\ninstead of\n%s\n",
				chunks[data[0] / 3 % ARRAY_LEN(chunks)], got, want);
			abort();
		}
		free(got);
		free(want);
	}
	return 0;
}
