/* test_scanstate.c: appends (parse/scanstate.c, parser_run_from()): a
 * log cut anywhere, parsed, its state and run stored, then parsed on
 * from that state over the whole log, gives exactly the run, the
 * diagnostics and the next state of a full parse, for every file of
 * tests/corpus and tests/fixtures that a built-in text parser reads, cut
 * at its line boundaries (at most LINE_CUTS of them, spread evenly) and
 * at random bytes (a last line without its newline), as written, with
 * CRLF line ends and without the final newline.  A state that is not
 * the parser's, or damaged, is refused without a word. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/runstore.h"
#include "data/seal.h"
#include "builtincheck.h"
#include "rundump.h"
#define TMPDIR_TAG "scanstate"
#include "tmpdirs.h"

#define LINE_CUTS 40
#define BYTE_CUTS 6

static struct seal_key mine;
static char *dir;

static int setup(void **state)
{
	unsigned char raw[SEAL_KEY_BYTES];
	memset(raw, 0x42, sizeof raw);
	seal_key_from(&mine, raw);
	dir = make_tmpdir();
	return load_builtins(state);
}

static int teardown(void **state)
{
	drop_tmpdir(dir);
	drop_leftovers(state);
	return free_builtins(state);
}

static char *in_dir(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void write_all(const char *path, const char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}


/* The run as the cache stores it: its run store's bytes (every field,
 * series, cell, line and shortest mark); a run of several (split), which
 * the cache does not store, as everything a report reads of it. */
static char *stored(const struct run *r, size_t *len)
{
	if (run_member_count(r)) {
		struct buf d = BUF_INIT;
		run_dump(&d, r);
		*len = d.len;
		return buf_detach(&d);
	}
	char *path = in_dir("store");
	struct cache_key key = cache_hash_bytes("k", 1);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_true(runstore_write(fd, &mine, &key, r));
	close(fd);
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	free(path);
	*len = b.len;
	return buf_detach(&b);
}

/* The run stored and mapped back, as a later build has it. */
static struct run *mapped(const struct run *r)
{
	char *path = in_dir("prev");
	struct cache_key key = cache_hash_bytes("p", 1);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_true(runstore_write(fd, &mine, &key, r));
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	enum runstore_verdict v;
	struct run *back = runstore_map(fd, (size_t)st.st_size, &mine, &key, false, &v);
	close(fd);
	free(path);
	assert_non_null(back);
	return back;
}

static struct run *parse_capturing(const struct parser *p, const char *path, const char *shown,
				   const struct scan_point *from, struct scan_point *to,
				   bool *refused, char **diags)
{
	struct capture c;
	cap_open(&c);
	struct run *r = parser_run_from(p, path, shown, "r", from, to, refused, c.d);
	*diags = cap_take(&c);
	return r;
}

static size_t resumed_total, skipped_total, refused_total;

/* content cut at `cut`, parsed, then resumed over content: as a full
 * parse of content. */
static void check_cut(const struct parser *p, const char *shown, const char *content, size_t n,
		      size_t cut, const char *full, size_t full_len, const char *full_diags,
		      const struct scan_point *full_to)
{
	char *prefix_path = in_dir("prefix"), *whole_path = in_dir("whole");
	write_all(prefix_path, content, cut);
	struct scan_point st1 = {BUF_INIT, 0, NULL, NULL, false, NULL, NULL};
	bool refused = false;
	char *diags1;
	struct run *r1 = parse_capturing(p, prefix_path, shown, NULL, &st1, &refused, &diags1);
	/* Only a parse that said nothing is stored, with its state. */
	if (!r1 || *diags1 || !st1.state.len) {
		skipped_total++;
		goto out;
	}
	/* the prefix's run as a later build maps it; the resume takes it */
	st1.prev = mapped(r1);
	struct scan_point st2 = {BUF_INIT, 0, NULL, NULL, false, NULL, NULL};
	char *diags2;
	struct run *r2 = parse_capturing(p, whole_path, shown, &st1, &st2, &refused, &diags2);
	if (refused) {
		/* The grown file's start tells otherwise (srun's labels
		 * over more lines): a full parse then. */
		refused_total++;
		goto refused;
	}
	if (!r2)
		fail_msg("%s cut at %zu of %zu: %s", shown, cut, n, diags2);
	size_t lb;
	char *b;
	b = stored(r2, &lb);
	if (full_len != lb || memcmp(full, b, lb) != 0)
		fail_msg("%s cut at %zu of %zu (point %llu): the resumed run differs from a full "
			 "parse",
			 shown, cut, n, (unsigned long long)st1.point);
	if (strcmp(diags2, full_diags) != 0)
		fail_msg("%s cut at %zu: said\n%s\ninstead of\n%s", shown, cut, diags2, full_diags);
	if (st2.point != full_to->point || st2.state.len != full_to->state.len ||
	    (st2.state.len && memcmp(st2.state.data, full_to->state.data, st2.state.len) != 0)) {
		size_t at = 0;
		while (at < st2.state.len && at < full_to->state.len &&
		       st2.state.data[at] == full_to->state.data[at])
			at++;
		if (getenv("SCANSTATE_DUMP")) {
			write_all("/tmp/st_resumed", st2.state.data, st2.state.len);
			write_all("/tmp/st_full", full_to->state.data, full_to->state.len);
		}
		fail_msg("%s cut at %zu: the state after resuming (point %llu, %zu bytes) is not "
			 "a full parse's (point %llu, %zu bytes): they differ from byte %zu",
			 shown, cut, (unsigned long long)st2.point, st2.state.len,
			 (unsigned long long)full_to->point, full_to->state.len, at);
	}
	resumed_total++;
	free(b);
refused:
	free(diags2);
	run_free(r2);
	buf_free(&st2.state);
out:
	run_free(r1);
	free(diags1);
	buf_free(&st1.state);
	free(prefix_path);
	free(whole_path);
}

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Every cut of content (at most line_cuts line boundaries, byte_cuts
 * random bytes). */
static void check_content(const struct parser *p, const char *shown, const char *content,
			  size_t n, size_t line_cuts, size_t byte_cuts)
{
	char *whole_path = in_dir("whole");
	write_all(whole_path, content, n);
	struct scan_point full_to = {BUF_INIT, 0, NULL, NULL, false, NULL, NULL};
	char *full_diags;
	bool refused = false;
	struct run *full =
		parse_capturing(p, whole_path, shown, NULL, &full_to, &refused, &full_diags);
	/* A parse that takes no state computes its derives by the loop
	 * over every row; one that takes a state folds their aggregates
	 * (derivecarry.c): the same run, the same words. */
	char *plain_diags;
	struct run *plain = parse_capturing(p, whole_path, shown, NULL, NULL, &refused, &plain_diags);
	free(whole_path);
	if (!full != !plain || strcmp(full_diags, plain_diags) != 0)
		fail_msg("%s: with a state taken it said\n%s\ninstead of\n%s", shown, full_diags,
			 plain_diags);
	free(plain_diags);
	if (!full) {
		free(full_diags);
		buf_free(&full_to.state);
		return;
	}
	size_t full_len, plain_len;
	char *full_bytes = stored(full, &full_len);
	char *plain_bytes = stored(plain, &plain_len);
	if (full_len != plain_len || memcmp(full_bytes, plain_bytes, full_len) != 0)
		fail_msg("%s: the run of a parse taking a state differs from a plain parse's", shown);
	free(plain_bytes);
	run_free(plain);
	size_t nlines = 0;
	for (size_t i = 0; i + 1 < n; i++)
		nlines += content[i] == '\n';
	size_t step = nlines > line_cuts ? (nlines + line_cuts - 1) / line_cuts : 1;
	size_t k = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (content[i] == '\n' && k++ % step == 0)
			check_cut(p, shown, content, n, i + 1, full_bytes, full_len, full_diags,
				  &full_to);
	for (size_t j = 0; j < byte_cuts && n > 1; j++)
		check_cut(p, shown, content, n, 1 + (size_t)(next_rand() % (n - 1)), full_bytes,
			  full_len, full_diags, &full_to);
	run_free(full);
	free(full_bytes);
	free(full_diags);
	buf_free(&full_to.state);
}

static size_t files_seen;

static int each_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	const char *base = path + ftw->base;
	if (type != FTW_F || strcmp(base, "SOURCES") == 0 || strcmp(base, "README.md") == 0 ||
	    strcmp(base, "SCORE") == 0 || (strlen(base) > 6 && strcmp(base + strlen(base) - 6, ".facts") == 0))
		return 0;
	const struct parser *p = parsers_detect(builtins, path, loc_line(path, 0), quiet.d);
	if (!p)
		return 0;
	struct buf cb = BUF_INIT;
	if (!file_read(path, &cb, NULL) || cb.len == 0) {
		buf_free(&cb);
		return 0;
	}
	size_t n = cb.len;
	char *content = buf_detach(&cb);
	files_seen++;
	check_content(p, path, content, n, LINE_CUTS, BYTE_CUTS);
	/* Every third file also with CRLF line ends, and without its
	 * last newline. */
	if (files_seen % 3 == 0) {
		struct buf crlf = BUF_INIT;
		for (size_t i = 0; i < n; i++) {
			if (content[i] == '\n' && (i == 0 || content[i - 1] != '\r'))
				buf_putc(&crlf, '\r');
			buf_putc(&crlf, content[i]);
		}
		check_content(p, path, crlf.data, crlf.len, LINE_CUTS / 3, BYTE_CUTS / 2);
		buf_free(&crlf);
		size_t m = n;
		while (m > 1 && content[m - 1] == '\n')
			m--;
		check_content(p, path, content, m, LINE_CUTS / 3, BYTE_CUTS / 2);
	}
	free(content);
	return 0;
}

static void every_cut_of_every_log_resumes_as_a_full_parse(void **state)
{
	(void)state;
	resumed_total = skipped_total = refused_total = files_seen = 0;
	assert_int_equal(nftw("tests/corpus", each_file, 16, FTW_PHYS), 0);
	assert_int_equal(nftw("tests/fixtures", each_file, 16, FTW_PHYS), 0);
	print_message("%zu files, %zu cuts resumed, %zu refused, %zu prefixes not stored (said "
		      "something)\n",
		      files_seen, resumed_total, refused_total, skipped_total);
	if (resumed_total < 2000 || refused_total * 20 > resumed_total)
		fail_msg("only %zu cuts resumed, %zu refused", resumed_total, refused_total);
}

#define TRAIN(step, rate)                                                                   \
	"| Train Device=CSX, Step=" step ", Loss=9.00000, Rate=" rate " samples/sec, "       \
	"GlobalRate=1.00 samples/sec\n"

/* A resumed parse folds only the rows after the point into its derives'
 * aggregates (derivecarry.c): given as the rows before the point a
 * stored run whose rates are not those the state's aggregates covered,
 * the Cerebras parser's mean_rate is the carried mean's (the loop over
 * every row would read the other rates: (5000 + 7000 + 2000) / 3). */
static void a_resumed_derive_folds_only_the_new_rows(void **state)
{
	(void)state;
	const struct parser *p = parsers_find(builtins, "cerebras");
	assert_non_null(p);
	const char *head = TRAIN("100", "1000.00") TRAIN("200", "3000.00");
	const char *other = TRAIN("100", "5000.00") TRAIN("200", "7000.00");
	const char *tail = TRAIN("300", "2000.00");
	char *prefix_path = in_dir("prefix"), *whole_path = in_dir("whole");
	write_all(prefix_path, head, strlen(head));
	struct scan_point st1 = {BUF_INIT, 0, NULL, NULL, false, NULL, NULL};
	bool refused = false;
	char *diags;
	struct run *r1 = parse_capturing(p, prefix_path, "job.log", NULL, &st1, &refused, &diags);
	assert_non_null(r1);
	assert_string_equal(diags, "");
	free(diags);
	assert_int_equal(st1.point, strlen(head));
	write_all(prefix_path, other, strlen(other));
	struct run *r_other = parse_capturing(p, prefix_path, "job.log", NULL, NULL, &refused, &diags);
	assert_non_null(r_other);
	free(diags);
	st1.prev = mapped(r_other);
	char *whole = xasprintf("%s%s", head, tail);
	write_all(whole_path, whole, strlen(whole));
	struct run *r2 = parse_capturing(p, whole_path, "job.log", &st1, NULL, &refused, &diags);
	assert_false(refused);
	assert_non_null(r2);
	free(diags);
	const struct datum *mean = run_field(r2, "mean_rate");
	assert_non_null(mean);
	assert_int_equal(mean->kind, DATUM_NUMBER);
	if (mean->num != 2000)
		fail_msg("mean_rate is %.17g after the resume, not the carried 2000", mean->num);
	/* the rows themselves are the stored run's (the prefix check, in
	 * runs.c, is what keeps them the log's) */
	assert_int_equal(series_row_count(run_series(r2, "train")), 3);
	run_free(r2);
	run_free(r1);
	run_free(r_other);
	buf_free(&st1.state);
	free(whole);
	free(prefix_path);
	free(whole_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_resumed_derive_folds_only_the_new_rows),
		cmocka_unit_test(every_cut_of_every_log_resumes_as_a_full_parse),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
