/* fuzz_jsonl.c: the JSON Lines reader on arbitrary bytes, read as a
 * .jsonl file (every line a row, a malformed line a warning and left
 * out).  The first byte chooses a refill size: the file is read with
 * the reader's own refills and with refills of that many bytes, and
 * everything read and reported must be the same, or the harness
 * aborts.  Whatever the lines, the rows are never more than the lines. */
#include "rundump.h"

#include "parse/structured.h"

static bool read_jsonl(struct run *r, const char *path, const char *name, struct diag *d,
		       const void *ctx)
{
	(void)ctx;
	return structured_read_json(r, path, name, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char *const chunks[] = {"1", "2", "3", "7", "64", "5"};
	const char *path = fuzz_file(data + 1, size - 1);
	struct diag *d = fuzz_diag();
	struct run *r = run_new("fuzz", "fuzz.jsonl", "fuzz");
	bool ok = structured_read_json(r, path, "fuzz.jsonl", d);
	/* Only a read error fails a JSON Lines file. */
	if (!ok)
		abort();
	const struct series *s = run_series(r, "rows");
	if (s && series_row_count(s) > (size_t)run_line_count(r))
		abort();
	run_free(r);
	diag_free(d);
	fuzz_same_in_chunks(read_jsonl, path, "fuzz.jsonl", NULL, chunks[data[0] % ARRAY_LEN(chunks)]);
	return 0;
}
