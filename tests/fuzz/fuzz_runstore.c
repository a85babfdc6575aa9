/* fuzz_runstore.c: the run store's reader (data/runstore.c) on files a
 * forger holding the user's key made: every input is sealed again with
 * the harness's key and gets its header checksum fixed up, so that only
 * the structural checks stand between the bytes and the reader (that a
 * store without the seal is refused is fuzz_cache's and test_cache's).
 *
 * The first byte chooses how the file is made.  Even: from a store of
 * one of the fixtures below (the second byte chooses which), written by
 * runstore_write(), with the rest of the input as edits, 5 bytes each
 * (a 32-bit offset, taken modulo the size, and a byte to xor there);
 * odd: the rest of the input is the file.  Then:
 *
 *   - a store that is refused is fine; one that is accepted must be for
 *     the key it was mapped with (a store of another key, or of another
 *     format, accepted is a bug), and every field and cell of it is read
 *     (out-of-bounds reads crash under ASan, or fault past the mapping);
 *   - an accepted run written again and mapped back reads the same;
 *   - a fixture's store without edits is accepted and reads as the run
 *     parsed. */
#include "fuzz.h"

#include <xxhash.h>

#include "data/runstore.h"
#include "data/seal.h"

static struct seal_key sk;

static const char *const fixtures[] = {
	"tests/fixtures/cerebras/bs512.log",
	"tests/fixtures/json/metis_vs_sophia_results.json",
	"tests/fixtures/csv/llama7b_sweep.csv",
	"tests/fixtures/hf-trainer/run_glue_mrpc.log",
	"tests/fixtures/mllog/resnet_closed.log",
	"tests/fixtures/slurm/timeout.log",
};

/* Everything a report can read of r.  Caller frees. */
static char *dump(const struct run *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	fprintf(f, "%s %s %s %ld %ld\n", run_name(r), run_file(r), run_parser(r),
		run_line_count(r), run_first_line(r));
	for (size_t i = 0; i < run_field_count(r); i++) {
		const char *name = run_field_name(r, i);
		const struct datum *d = run_field_at(r, i);
		const char *inputs = run_field_inputs(r, name);
		fprintf(f, "%s %d %.17g %d[%.*s] %ld {%s}\n", name, (int)d->kind, d->num, !!d->text,
			(int)d->len, d->text ? d->text : "", d->line, inputs ? inputs : "-");
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		long first;
		size_t dropped = series_dropped(s, &first);
		fprintf(f, "series %s %zu %zu %ld:", series_name(s), series_row_count(s), dropped,
			first);
		for (size_t j = 0; j < series_column_count(s); j++)
			fprintf(f, " %s", series_column(s, j));
		for (size_t row = 0; row < series_row_count(s); row++) {
			fprintf(f, "\n%ld:", series_row_line(s, row));
			for (size_t j = 0; j < series_column_count(s); j++) {
				struct datum d;
				series_cell(s, row, j, &d);
				fprintf(f, " %d/%.17g/%d[%.*s]/%ld", (int)d.kind, d.num, !!d.text,
					(int)d.len, d.text ? d.text : "", d.line);
			}
		}
		fputc('\n', f);
	}
	fclose(f);
	return text;
}

static int memfd(void)
{
	int fd = memfd_create("logdown-fuzz-runstore", 0);
	if (fd < 0)
		abort();
	return fd;
}

/* The store of r under key, as bytes.  Caller frees. */
static unsigned char *store_of(const struct run *r, const struct cache_key *key, size_t *len)
{
	int fd = memfd();
	if (!runstore_write(fd, &sk, key, r))
		abort();
	off_t end = lseek(fd, 0, SEEK_END);
	unsigned char *data = malloc((size_t)end + 1);
	if (!data || pread(fd, data, (size_t)end, 0) != end)
		abort();
	close(fd);
	*len = (size_t)end;
	return data;
}

static struct run *map_bytes(const unsigned char *data, size_t len, const struct cache_key *key,
			     enum runstore_verdict *v)
{
	int fd = memfd();
	if (len && pwrite(fd, data, len, 0) != (ssize_t)len)
		abort();
	struct run *r = runstore_map(fd, len, &sk, key, false, v);
	close(fd);
	return r;
}

static void fix_sums(unsigned char *data, size_t len)
{
	if (len < 128)
		return;
	/* the key's id at 72, the seal at 88 (over the 88 bytes before
	 * it and the body after the 128-byte header), the sum at 120 */
	memcpy(data + 72, sk.id, SEAL_ID_BYTES);
	seal_make(&sk, data, 88, data + 128, len - 128, data + 88);
	uint64_t sum = XXH3_64bits(data, 120);
	memcpy(data + 120, &sum, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	if (size < 2)
		return 0;
	static bool keyed;
	if (!keyed) {
		keyed = true;
		unsigned char raw[SEAL_KEY_BYTES];
		memset(raw, 0x42, sizeof raw);
		seal_key_from(&sk, raw);
	}
	struct cache_key key = cache_hash_bytes("fuzz", 4);
	unsigned char *data;
	size_t len;
	char *parsed = NULL;
	bool edited = false;
	if (in[0] % 2 == 0) {
		const char *path = fixtures[in[1] % ARRAY_LEN(fixtures)];
		struct diag *d = fuzz_diag();
		const struct parser *p = parsers_detect(fuzz_parsers(), path, loc_line(path, 0), d);
		struct run *r = p ? parser_run(p, path, path, "fuzz", d) : NULL;
		diag_free(d);
		if (!r || run_member_count(r) > 0)
			abort(); /* the fixtures are plain runs */
		data = store_of(r, &key, &len);
		parsed = dump(r);
		run_free(r);
		for (size_t at = 2; at + 5 <= size; at += 5) {
			uint32_t off;
			memcpy(&off, in + at, 4);
			data[off % len] ^= in[at + 4];
			edited = edited || in[at + 4] != 0;
		}
	} else {
		len = size - 1;
		data = malloc(len + 1);
		if (!data)
			abort();
		memcpy(data, in + 1, len);
	}
	fix_sums(data, len);
	enum runstore_verdict v;
	struct run *r = map_bytes(data, len, &key, &v);
	if ((r != NULL) != (v == RUNSTORE_OK))
		abort();
	if (parsed && !edited) {
		/* the store as written: accepted, and the run as parsed */
		char *got = r ? dump(r) : NULL;
		if (!got || strcmp(got, parsed) != 0)
			abort();
		free(got);
	}
	if (r) {
		uint32_t format;
		memcpy(&format, data + 16, 4);
		if (memcmp(data + 24, key.b, sizeof key.b) != 0 || format != RUNSTORE_FORMAT)
			abort(); /* another key's or format's store accepted */
		char *first = dump(r);
		size_t len2;
		unsigned char *again = store_of(r, &key, &len2);
		enum runstore_verdict v2;
		struct run *r2 = map_bytes(again, len2, &key, &v2);
		if (!r2)
			abort();
		char *second = dump(r2);
		if (strcmp(first, second) != 0) {
			if (getenv("FUZZ_VERBOSE"))
				fprintf(stderr, "--- accepted\n%s\n--- again\n%s\n", first, second);
			abort();
		}
		free(first);
		free(second);
		free(again);
		run_free(r2);
		run_free(r);
	}
	free(parsed);
	free(data);
	return 0;
}
