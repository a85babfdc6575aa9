/* fuzz_scanstate.c: the scanner's resume state (parse/scanstate.c), read
 * back from bytes a forger holding the user's key could have sealed:
 * what stands between them and the scanner is scan_state_load()'s
 * checks.  The state is untrusted input.
 *
 * The first byte chooses one of the logs below, the second how the state
 * is made.  Even: the real state of that log cut after its line
 * (the third byte's share of its lines), taken by a parse of that
 * prefix, with the rest of the input as edits, 5 bytes each (a 32-bit
 * offset, taken modulo the state's size, and a byte to xor there); odd:
 * the rest of the input is the state.  The state is then resumed over
 * the whole log with the prefix's run as the rows before the point:
 *
 *   - a state that is refused is fine;
 *   - one accepted is scanned on over the rest of the log and its run
 *     read whole (out-of-bounds reads crash under ASan);
 *   - the real state without edits is accepted and gives the run of a
 *     full parse. */
#include "fuzz.h"

static const char *const logs[] = {
	"tests/fixtures/cerebras/bs512.log",
	"tests/fixtures/slurm/timeout.log",
	"tests/fixtures/mllog/resnet_closed.log",
	"tests/fixtures/hf-trainer/run_glue_mrpc.log",
	"tests/fixtures/carry/keras_epochs.log",
	"tests/fixtures/carry/nvprof_metrics.txt",
	"tests/corpus/likwid/ufpr-icc-edo-flops-dp-core3.txt",
};

static struct parser_set *set;

/* Everything a report reads of r, members included.  Caller frees. */
static void dump_to(FILE *f, const struct run *r)
{
	fprintf(f, "%s %s %ld\n", run_name(r), run_parser(r), run_line_count(r));
	for (size_t i = 0; i < run_field_count(r); i++) {
		const struct datum *d = run_field_at(r, i);
		fprintf(f, "%s %d %.17g [%.*s] %ld\n", run_field_name(r, i), (int)d->kind, d->num,
			(int)d->len, d->text ? d->text : "", d->line);
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		fprintf(f, "series %s %zu\n", series_name(s), series_row_count(s));
		for (size_t row = 0; row < series_row_count(s); row++) {
			fprintf(f, "%ld:", series_row_line(s, row));
			for (size_t j = 0; j < series_column_count(s); j++) {
				struct datum d;
				series_cell(s, row, j, &d);
				fprintf(f, " %d/%.17g/[%.*s]", (int)d.kind, d.num, (int)d.len,
					d.text ? d.text : "");
			}
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < run_member_count(r); i++)
		dump_to(f, run_member_at(r, i));
}

static char *dump(const struct run *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	dump_to(f, r);
	fclose(f);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	if (size < 3)
		return 0;
	struct diag *d = fuzz_diag();
	if (!set)
		set = parsers_load(NULL, NULL, d);
	const char *path = logs[in[0] % (sizeof logs / sizeof *logs)];
	const struct parser *p = parsers_detect(set, path, loc_line(path, 0), d);
	struct buf log = BUF_INIT;
	if (!p || !file_read(path, &log, NULL) || log.len < 2) {
		buf_free(&log);
		diag_free(d);
		return 0;
	}
	/* the prefix: up to a line boundary about in[2]/255 of the way */
	size_t cut = log.len * in[2] / 256;
	while (cut > 0 && log.data[cut - 1] != '\n')
		cut--;
	if (cut == 0)
		cut = log.len / 2;
	struct scan_point from = {BUF_INIT, 0, NULL, NULL, false, NULL, NULL};
	const char *prefix = fuzz_file(log.data, cut);
	struct run *prev = parser_run_from(p, prefix, path, "r", NULL, &from, NULL, d);
	if (!prev || run_member_count(prev) || !from.state.len) {
		run_free(prev);
		buf_free(&from.state);
		buf_free(&log);
		diag_free(d);
		return 0;
	}
	bool edited = in[1] % 2 == 1;
	if (edited) {
		buf_clear(&from.state);
		buf_put(&from.state, (const char *)in + 3, size - 3);
	} else {
		for (size_t i = 3; i + 5 <= size && from.state.len; i += 5) {
			uint32_t off;
			memcpy(&off, in + i, 4);
			from.state.data[off % from.state.len] ^= (char)in[i + 4];
			edited |= in[i + 4] != 0;
		}
	}
	from.prev = prev;
	const char *whole = fuzz_file(log.data, log.len);
	bool refused = false;
	struct run *r = parser_run_from(p, whole, path, "r", &from, NULL, &refused, d);
	if (r) {
		char *got = dump(r);
		if (!edited) {
			struct run *full = parser_run_from(p, whole, path, "r", NULL, NULL, NULL, d);
			char *want = full ? dump(full) : NULL;
			if (!want || strcmp(want, got) != 0)
				abort(); /* the real state resumed differently */
			free(want);
			run_free(full);
		}
		free(got);
	} else if (!edited && refused) {
		abort(); /* the real state refused */
	}
	run_free(r);
	buf_free(&from.state);
	buf_free(&log);
	diag_free(d);
	return 0;
}
