/* fuzz_xml.c: the XML reader (both mappings) on arbitrary bytes; the
 * first byte chooses the mapping (its low bit: generic or JUnit) and a
 * chunk size (the rest): the file is read twice, in the reader's own
 * chunks and in chunks of that many bytes (LOGDOWN_TEST_CHUNK), and what
 * is read and reported must be the same, or the harness aborts. */
#include "fuzz.h"

#include "parse/xmlread.h"

/* All that reading path gives: ok, the diagnostics, the fields and the
 * series.  Caller frees. */
static char *read_all(bool junit, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	struct diag *d = diag_new(f, DIAG_TEXT, false);
	struct run *r = run_new("fuzz", "fuzz.xml", "fuzz");
	bool ok = junit ? xmlread_junit(r, path, "fuzz.xml", d)
			: xmlread_generic(r, path, "fuzz.xml", d);
	fprintf(f, "ok %d\n", ok);
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
	static const char *const chunks[] = {"1", "2", "3", "7", "64", "5"};
	bool junit = data[0] & 1;
	const char *chunk = chunks[(data[0] >> 1) % ARRAY_LEN(chunks)];
	const char *path = fuzz_file(data + 1, size - 1);
	unsetenv("LOGDOWN_TEST_CHUNK");
	char *want = read_all(junit, path);
	setenv("LOGDOWN_TEST_CHUNK", chunk, 1);
	char *got = read_all(junit, path);
	unsetenv("LOGDOWN_TEST_CHUNK");
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "chunks of %s bytes read\n%s\ninstead of\n%s\n", chunk, got, want);
		abort();
	}
	free(got);
	free(want);
	return 0;
}
