/* fuzz_csv.c: the CSV reader on arbitrary bytes, with every delimiter
 * and header option.  The first byte chooses the options (its low bits:
 * ',', tab, '|' or ';'; then a header row, none with c1, c2, ..., named
 * columns, or named columns over a header) and a refill size: the file
 * is read with the reader's own refills and with refills of that many
 * bytes, and everything read and reported must be the same, or the
 * harness aborts. */
#include "rundump.h"

#include "parse/structured.h"

static bool read_csv(struct run *r, const char *path, const char *name, struct diag *d,
		     const void *ctx)
{
	return structured_read_csv_with(r, path, name, ctx, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char delims[] = {',', '\t', '|', ';'};
	static const char *const chunks[] = {"1", "2", "3", "7", "64", "5"};
	static char a[] = "a", b[] = "b", c[] = "c";
	static char *names[] = {a, b, c, NULL};
	struct csv_options o = CSV_OPTIONS_INIT;
	o.delimiter = delims[data[0] & 3];
	switch ((data[0] >> 2) & 3) {
	case 1:
		o.header = false;
		break;
	case 2:
	case 3:
		o.columns = names;
		o.ncolumns = 3;
		o.header = ((data[0] >> 2) & 3) == 3;
		break;
	}
	const char *path = fuzz_file(data + 1, size - 1);
	struct diag *d = fuzz_diag();
	struct run *r = run_new("fuzz", "fuzz.csv", "fuzz");
	structured_read_csv_with(r, path, "fuzz.csv", &o, d);
	run_free(r);
	diag_free(d);
	fuzz_same_in_chunks(read_csv, path, "fuzz.csv", &o, chunks[(data[0] >> 4) % ARRAY_LEN(chunks)]);
	return 0;
}
