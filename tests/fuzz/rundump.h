/* rundump.h: for the reader harnesses, all that reading a file gives
 * (ok, the diagnostics, the line count, the fields, the series) as one
 * text, to compare two readings of the same bytes. */
#ifndef LOGDOWN_FUZZ_RUNDUMP_H
#define LOGDOWN_FUZZ_RUNDUMP_H

#include "fuzz.h"

/* Reads path (shown as name) with read(r, path, name, d, ctx) and dumps
 * what it gave.  Caller frees. */
static char *fuzz_read_dump(bool (*read)(struct run *, const char *, const char *,
					 struct diag *, const void *),
			    const char *path, const char *name, const void *ctx)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	struct diag *d = diag_new(f, DIAG_TEXT, false);
	struct run *r = run_new("fuzz", name, "fuzz");
	bool ok = read(r, path, name, d, ctx);
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

/* Reads the file twice, with the reader's own refills and with refills
 * of `chunk` bytes (LOGDOWN_TEST_CHUNK): anything different aborts. */
static void fuzz_same_in_chunks(bool (*read)(struct run *, const char *, const char *,
					     struct diag *, const void *),
				const char *path, const char *name, const void *ctx,
				const char *chunk)
{
	unsetenv("LOGDOWN_TEST_CHUNK");
	char *want = fuzz_read_dump(read, path, name, ctx);
	setenv("LOGDOWN_TEST_CHUNK", chunk, 1);
	char *got = fuzz_read_dump(read, path, name, ctx);
	unsetenv("LOGDOWN_TEST_CHUNK");
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "refills of %s bytes read\n%s\ninstead of\n%s\n", chunk, got, want);
		abort();
	}
	free(got);
	free(want);
}

#endif
