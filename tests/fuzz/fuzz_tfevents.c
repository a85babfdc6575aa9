/* fuzz_tfevents.c: the TensorBoard event-file reader on arbitrary bytes.
 * The first byte chooses a refill size: the file is read with the
 * reader's own 1 MiB refills and with refills of that many bytes
 * (LOGDOWN_TEST_CHUNK), and everything read and reported must be the
 * same, or the harness aborts; the content sniffer must agree with the
 * reader that a first record is an event file's, and the log page's
 * text (tfevents_text()) must be made of every file the reader reads. */
#include "fuzz.h"

#include <fcntl.h>

#include "parse/tfevents.h"

/* All one reading gives: ok, the diagnostics, the record count, the
 * fields and the series.  Caller frees. */
static char *read_all(const char *path, bool *ok)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	struct diag *d = diag_new(f, DIAG_TEXT, false);
	struct run *r = run_new("fuzz", "events.out.tfevents.fuzz", "tensorboard");
	*ok = tfevents_read(r, path, "events.out.tfevents.fuzz", d);
	fprintf(f, "ok %d, %ld records\n", *ok, run_line_count(r));
	for (size_t i = 0; i < run_field_count(r); i++) {
		const struct datum *v = run_field_at(r, i);
		fprintf(f, "%s: %d %.17g [%.*s] %ld\n", run_field_name(r, i), (int)v->kind, v->num,
			v->text ? (int)v->len : 0, v->text ? v->text : "", v->line);
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		fprintf(f, "series %s:", series_name(s));
		for (size_t row = 0; row < series_row_count(s); row++) {
			fprintf(f, "\n  %ld:", series_row_line(s, row));
			for (size_t k = 0; k < series_column_count(s); k++) {
				struct datum v;
				series_cell(s, row, k, &v);
				fprintf(f, " %.17g", v.num);
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
	static const char *const chunks[] = {"1", "2", "3", "7", "12", "64"};
	const char *path = fuzz_file(data + 1, size - 1);
	unsetenv("LOGDOWN_TEST_CHUNK");
	bool ok;
	char *want = read_all(path, &ok);
	/* The sniffer sees the first MiB, as detection does: a file it
	 * accepts has a first record the reader accepts. */
	if (tfevents_sniff((const char *)data + 1, size - 1) && !ok) {
		fprintf(stderr, "sniffed as an event file, but not read as one:\n%s\n", want);
		abort();
	}
	const char *chunk = chunks[data[0] % ARRAY_LEN(chunks)];
	setenv("LOGDOWN_TEST_CHUNK", chunk, 1);
	bool ok2;
	char *got = read_all(path, &ok2);
	unsetenv("LOGDOWN_TEST_CHUNK");
	if (strcmp(got, want) != 0 || ok != ok2) {
		fprintf(stderr, "refills of %s bytes read\n%s\ninstead of\n%s\n", chunk, got, want);
		abort();
	}
	/* The log page's text: a line a record, whatever the bytes. */
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		abort();
	int text = tfevents_text(fd);
	if (ok && text < 0 && size - 1 <= 65536) {
		fprintf(stderr, "read as an event file, but no text of it\n");
		abort();
	}
	if (text >= 0) {
		char buf[4096];
		while (read(text, buf, sizeof buf) > 0)
			;
		close(text);
	}
	close(fd);
	free(want);
	free(got);
	return 0;
}
