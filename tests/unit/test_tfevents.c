/* test_tfevents.c: TensorBoard event files into runs, CRC-32C against
 * its published check values, and what a user sees of a file cut short
 * or corrupt.
 *
 * The fixtures in tests/fixtures/tensorboard/ are written by
 * tools/gen_tfevents.py from the format's specification (its own
 * CRC-32C, so a wrong table here would not agree with it); the corpus
 * files in tests/corpus/tensorboard/ are real bytes from published
 * tests (see their SOURCES). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "parse/tfevents.h"
#include "capture.h"

#define FIX "tests/fixtures/tensorboard/"
#define TF1 FIX "events.out.tfevents.1700000000.node01"
#define TF2 FIX "events.out.tfevents.1712345678.gpu-node-3.51234.0.v2"
#define TORCH FIX "events.out.tfevents.1721000000.workstation.4242.0"
#define REAL "tests/corpus/tensorboard/events.out.tfevents.tensorboard_logger.0"

static char *tmpdir;

static int group_setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/logdown-test-tfevents-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	tmpdir = xstrdup(tmpl);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	remove_tree(tmpdir);
	free(tmpdir);
	return 0;
}

/* The bytes of a file.  Caller frees. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *p = NULL;
	size_t n = 0, cap = 0;
	int c;
	while ((c = fgetc(f)) != EOF) {
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 1024;
			p = xrealloc(p, cap);
		}
		p[n++] = (char)c;
	}
	fclose(f);
	*len = n;
	return p;
}

/* Writes len bytes to tmpdir/name; returns its path.  Caller frees. */
static char *put(const char *name, const char *bytes, size_t len)
{
	char *path = path_join(tmpdir, name);
	assert_true(file_write(path, bytes, len));
	return path;
}

/* Reads path, shown as `shown`, into a new run: *ok what the reader
 * returned, the diagnostics in c.  Caller frees with run_free(). */
static struct run *load(const char *path, const char *shown, struct capture *c, bool *ok)
{
	struct run *r = run_new("tb", shown, "tensorboard");
	*ok = tfevents_read(r, path, shown, c->d);
	return r;
}

static double cell(const struct series *s, size_t row, const char *col)
{
	long c = series_column_index(s, col);
	if (c < 0)
		fail_msg("no column '%s'", col);
	struct datum d;
	series_cell(s, row, (size_t)c, &d);
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_null(d.text);
	return d.num;
}

static const struct series *series(const struct run *r, const char *name, size_t rows)
{
	const struct series *s = run_series(r, name);
	if (!s)
		fail_msg("no series '%s'", name);
	assert_int_equal(series_row_count(s), rows);
	assert_int_equal(series_column_count(s), 3);
	assert_string_equal(series_column(s, 0), "step");
	assert_string_equal(series_column(s, 1), "wall_time");
	assert_string_equal(series_column(s, 2), "value");
	return s;
}

static double field(const struct run *r, const char *name)
{
	const struct datum *d = run_field(r, name);
	if (!d)
		fail_msg("no field '%s'", name);
	return d->num;
}

/* RFC 3720 appendix B.4's check values, and "123456789". */
static void crc32c_gives_the_rfc_3720_check_values(void **state)
{
	(void)state;
	unsigned char b[32];
	memset(b, 0, sizeof b);
	assert_int_equal(crc32c(0, b, 32), 0x8a9136aa);
	memset(b, 0xff, sizeof b);
	assert_int_equal(crc32c(0, b, 32), 0x62a8ab43);
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)i;
	assert_int_equal(crc32c(0, b, 32), 0x46dd794e);
	for (int i = 0; i < 32; i++)
		b[i] = (unsigned char)(31 - i);
	assert_int_equal(crc32c(0, b, 32), 0x113fdb5c);
	assert_int_equal(crc32c(0, "123456789", 9), 0xe3069283);
	/* in pieces of every split, as in one go */
	for (size_t k = 0; k <= 9; k++)
		assert_int_equal(crc32c(crc32c(0, "123456789", k), "123456789" + k, 9 - k),
				 0xe3069283);
	assert_int_equal(crc32c(0, "", 0), 0);
}

/* The masked CRC of a length as tensorboard_logger wrote it: the real
 * header 18 00 00 00 00 00 00 00 a3 7f 4b 22. */
static void masked_crc_is_tfrecords(void **state)
{
	(void)state;
	static const unsigned char len[8] = {0x18};
	assert_int_equal(crc32c_mask(crc32c(0, len, 8)), 0x224b7fa3);
}

/* The real file: v/1 = 1.5 at step 1, v/22 = 16 at step 2, wall time
 * 256.5, the file version in record 1. */
static void real_tensorboard_logger_file_is_read(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(REAL, "tb.0", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	const struct datum *v = run_field(r, "file_version");
	assert_non_null(v);
	assert_int_equal(v->kind, DATUM_STRING);
	assert_int_equal(v->len, 13);
	assert_memory_equal(v->text, "brain.Event:2", 13);
	assert_int_equal(v->line, 1);
	assert_true(field(r, "records") == 3);
	assert_int_equal(run_line_count(r), 3);
	const struct series *s = series(r, "v_1", 1);
	assert_true(cell(s, 0, "step") == 1);
	assert_true(cell(s, 0, "wall_time") == 256.5);
	assert_true(cell(s, 0, "value") == 1.5);
	assert_int_equal(series_row_line(s, 0), 2);
	s = series(r, "v_22", 1);
	assert_true(cell(s, 0, "value") == 16);
	assert_int_equal(series_row_line(s, 0), 3);
	run_free(r);
	cap_close(&c);
}

/* TF1: simple_value scalars, a histogram skipped (counted), the graph
 * and session-start records read past. */
static void tf1_simple_values_are_series(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(TF1, "tf1", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_series_count(r), 2);
	const struct series *s = series(r, "loss", 6);
	assert_true(cell(s, 0, "step") == 0);
	assert_true(cell(s, 0, "wall_time") == 1700000010.0);
	assert_true(cell(s, 0, "value") == 2.5);
	assert_int_equal(series_row_line(s, 0), 4);
	assert_true(cell(s, 5, "step") == 500);
	assert_true(cell(s, 5, "value") == 0.5);
	assert_int_equal(series_row_line(s, 5), 9);
	s = series(r, "accuracy", 6);
	assert_true(cell(s, 5, "value") == 0.8125);
	assert_null(run_series(r, "conv1_weights"));
	assert_true(field(r, "skipped_values") == 6);
	assert_true(field(r, "records") == 9);
	run_free(r);
	cap_close(&c);
}

/* TF2: tensors of the "scalars" plugin, whose metadata only the first
 * value of a tag carries; a float32 reads as its shortest decimal; a
 * text summary is skipped. */
static void tf2_scalar_tensors_are_series(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(TF2, "tf2", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	const struct series *s = series(r, "epoch_loss", 4);
	assert_true(cell(s, 0, "value") == 0.6931472);
	assert_true(cell(s, 3, "value") == 0.22314355);
	assert_true(cell(s, 3, "step") == 3);
	assert_true(cell(s, 3, "wall_time") == 1712345692.5);
	assert_int_equal(series_row_line(s, 3), 11);
	s = series(r, "epoch_learning_rate", 4);
	assert_true(cell(s, 1, "value") == 0.001);
	s = series(r, "epoch_accuracy", 4);
	assert_true(cell(s, 3, "value") == 0.875);
	assert_null(run_series(r, "notes"));
	assert_true(field(r, "skipped_values") == 1);
	run_free(r);
	cap_close(&c);
}

/* PyTorch: one event an add_scalar; "Loss/train" is loss_train; an
 * image skipped; new_style scalars as a packed float_val. */
static void pytorch_tags_become_snake_case_series(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(TORCH, "pt", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_series_count(r), 4);
	assert_string_equal(series_name(run_series_at(r, 0)), "loss_train");
	assert_string_equal(series_name(run_series_at(r, 1)), "loss_test");
	assert_string_equal(series_name(run_series_at(r, 2)), "accuracy_test");
	assert_string_equal(series_name(run_series_at(r, 3)), "lr");
	const struct series *s = series(r, "loss_train", 5);
	assert_true(cell(s, 4, "value") == 0.2);
	assert_true(cell(s, 4, "step") == 5);
	assert_int_equal(series_row_line(s, 4), 19);
	s = series(r, "lr", 5);
	assert_true(cell(s, 0, "value") == 0.5);
	assert_true(cell(s, 4, "value") == 0.03125);
	s = series(r, "accuracy_test", 5);
	assert_true(cell(s, 4, "value") == 90);
	assert_true(field(r, "skipped_values") == 1);
	run_free(r);
	cap_close(&c);
}

/* Record 9 of the TF1 fixture starts at byte 629 and holds 90 bytes. */
static void file_cut_mid_record_warns_at_it_and_keeps_the_rest(void **state)
{
	(void)state;
	size_t n;
	char *bytes = slurp(TF1, &n);
	assert_int_equal(n, 735);
	char *path = put("events.out.tfevents.cut", bytes, 629 + 12 + 40);
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(path, "logs/events.out.tfevents.cut", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "logs/events.out.tfevents.cut:9: warning: record 9 is cut short: it "
			    "holds 90 bytes and their checksum, the file ends 40 bytes into "
			    "them; the records before it are read\n");
	series(r, "loss", 5);
	assert_true(field(r, "records") == 9);
	run_free(r);
	cap_close(&c);

	/* cut inside the 12-byte header */
	free(path);
	path = put("events.out.tfevents.cut2", bytes, 629 + 5);
	cap_open(&c);
	r = load(path, "cut2", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "cut2:9: warning: record 9 is cut short: the file ends 5 bytes "
			    "into its 12-byte header; the records before it are read\n");
	series(r, "loss", 5);
	run_free(r);
	cap_close(&c);
	free(path);
	free(bytes);
}

/* A wrong checksum of the data: that record is skipped, the next read.
 * A wrong checksum of a length: the reading stops there. */
static void corrupt_records_are_warned_about(void **state)
{
	(void)state;
	size_t n;
	char *bytes = slurp(TF1, &n);
	bytes[206 + 12 + 30] ^= 0x40; /* the data of record 5 */
	bytes[523 + 12 + 30] ^= 0x40; /* and of record 8 */
	char *path = put("events.out.tfevents.crc", bytes, n);
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(path, "crc", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "crc:5: warning: record 5 is corrupt: the checksum of its data is "
			    "wrong; it is skipped\n"
			    "crc:5: warning: 1 more record after record 5 is corrupt (the "
			    "checksum of its data is wrong); it is skipped\n");
	const struct series *s = series(r, "loss", 4);
	assert_int_equal(series_row_line(s, 0), 4);
	assert_int_equal(series_row_line(s, 1), 6);
	assert_int_equal(series_row_line(s, 3), 9);
	run_free(r);
	cap_close(&c);
	free(path);
	free(bytes);

	bytes = slurp(TF1, &n);
	bytes[417 + 9] ^= 0x01; /* the length checksum of record 7 */
	path = put("events.out.tfevents.len", bytes, n);
	cap_open(&c);
	r = load(path, "len", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "len:7: warning: record 7 is corrupt: the checksum of its length is "
			    "wrong, so where the next record starts is unknown; the records "
			    "before it are read\n");
	series(r, "loss", 3);
	run_free(r);
	cap_close(&c);
	free(path);
	free(bytes);
}

static void not_an_event_file_is_an_error(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"step 1 loss 0.5\n",
		"0123456789ab", /* a header whose checksum is wrong */
	};
	for (size_t i = 0; i < 2; i++) {
		char *path = put("events.out.tfevents.text", texts[i], strlen(texts[i]));
		struct capture c;
		cap_open(&c);
		bool ok;
		struct run *r = load(path, "t", &c, &ok);
		assert_false(ok);
		assert_string_equal(cap_text(&c),
				    "t: error: not a TensorBoard event file: its first record is "
				    "not a whole TFRecord holding an event with a file_version "
				    "\"brain.Event:N\"\n");
		run_free(r);
		cap_close(&c);
		free(path);
	}
	/* the first record of the real file, cut short */
	size_t n;
	char *bytes = slurp(REAL, &n);
	char *path = put("events.out.tfevents.first", bytes, 20);
	assert_false(tfevents_sniff(bytes, 20));
	assert_true(tfevents_sniff(bytes, n));
	/* a head of a whole header and less than a checksum more (found by
	 * fuzz_tfevents: it was read past) */
	for (size_t k = 12; k < 16; k++) {
		char *head = xmalloc(k);
		memcpy(head, bytes, k);
		assert_false(tfevents_sniff(head, k));
		free(head);
	}
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(path, "first", &c, &ok);
	assert_false(ok);
	run_free(r);
	cap_close(&c);
	free(path);
	path = put("events.out.tfevents.empty", "", 0);
	cap_open(&c);
	r = load(path, "empty", &c, &ok);
	assert_false(ok);
	assert_string_equal(cap_text(&c), "empty: error: empty file: a TensorBoard event file "
					  "starts with a record holding its file_version\n");
	run_free(r);
	cap_close(&c);
	free(path);
	free(bytes);
}

/* Builds an event file in memory: the file version, then one event of
 * simple values with the given tags. */
static void put_le(struct buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		buf_putc(b, (char)(v >> (8 * i)));
}

static void put_record(struct buf *file, const struct buf *data)
{
	struct buf h = BUF_INIT;
	put_le(&h, data->len, 8);
	buf_put(file, h.data, 8);
	put_le(file, crc32c_mask(crc32c(0, h.data, 8)), 4);
	buf_put(file, data->data, data->len);
	put_le(file, crc32c_mask(crc32c(0, data->data, data->len)), 4);
	buf_free(&h);
}

/* Tags that give the same snake_case name, or none, or a digit first:
 * each its own series, numbered after the first. */
static void tags_become_distinct_names(void **state)
{
	(void)state;
	static const char *const tags[] = {"a/b", "a_b", "A-B", "1/acc", "%"};
	struct buf file = BUF_INIT, ev = BUF_INIT, sum = BUF_INIT;
	/* wall_time 1 (field 1, fixed64), file_version (field 3) */
	buf_putc(&ev, 0x09);
	put_le(&ev, 0x3ff0000000000000u, 8);
	buf_putc(&ev, 0x1a);
	buf_putc(&ev, 13);
	buf_puts(&ev, "brain.Event:2");
	put_record(&file, &ev);
	buf_clear(&ev);
	for (size_t i = 0; i < ARRAY_LEN(tags); i++) {
		/* Value: tag (1), simple_value (2) = i */
		struct buf v = BUF_INIT;
		buf_putc(&v, 0x0a);
		buf_putc(&v, (char)strlen(tags[i]));
		buf_puts(&v, tags[i]);
		buf_putc(&v, 0x15);
		float f = (float)i;
		uint32_t bits;
		memcpy(&bits, &f, 4);
		put_le(&v, bits, 4);
		buf_putc(&sum, 0x0a);
		buf_putc(&sum, (char)v.len);
		buf_put(&sum, v.data, v.len);
		buf_free(&v);
	}
	buf_putc(&ev, 0x10); /* step 7 */
	buf_putc(&ev, 7);
	buf_putc(&ev, 0x2a); /* summary (5) */
	buf_putc(&ev, (char)sum.len);
	buf_put(&ev, sum.data, sum.len);
	put_record(&file, &ev);
	char *path = put("events.out.tfevents.tags", file.data, file.len);
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(path, "tags", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	static const char *const names[] = {"a_b", "a_b_2", "a_b_3", "_1_acc", "pct"};
	assert_int_equal(run_series_count(r), ARRAY_LEN(names));
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		const struct series *s = series(r, names[i], 1);
		assert_true(cell(s, 0, "value") == (double)i);
		assert_true(cell(s, 0, "step") == 7);
		assert_int_equal(series_row_line(s, 0), 2);
	}
	run_free(r);
	cap_close(&c);
	free(path);
	buf_free(&file);
	buf_free(&ev);
	buf_free(&sum);
}

/* A record whose checksums hold but whose bytes are no Event: skipped
 * with a warning naming what is wrong; the records around it read. */
static void malformed_event_is_skipped_with_a_warning(void **state)
{
	(void)state;
	size_t n;
	char *real = slurp(REAL, &n);
	struct buf file = BUF_INIT, ev = BUF_INIT;
	buf_put(&file, real, 40); /* its file-version record */
	buf_put(&ev, "\x2a\x05\x0a\x03v", 5); /* a summary of 5 bytes, 3 there */
	put_record(&file, &ev);
	buf_put(&file, real + 40, n - 40); /* v/1 and v/22 */
	char *path = put("events.out.tfevents.bad", file.data, file.len);
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(path, "bad", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "bad:2: warning: record 2 holds no event that can be "
					  "read (a field runs past the end); it is skipped\n");
	assert_int_equal(series_row_line(series(r, "v_1", 1), 0), 3);
	assert_int_equal(series_row_line(series(r, "v_22", 1), 0), 4);
	assert_true(field(r, "records") == 4);
	run_free(r);
	cap_close(&c);
	free(path);
	free(real);
	buf_free(&file);
	buf_free(&ev);
}

/* The text of a log page: a line a record, damage included. */
static void text_is_a_line_a_record(void **state)
{
	(void)state;
	size_t n;
	char *bytes = slurp(TF1, &n);
	bytes[206 + 12 + 30] ^= 0x40; /* the data of record 5 */
	char *path = put("events.out.tfevents.text", bytes, 629 + 12 + 40);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int t = tfevents_text(fd);
	close(fd);
	assert_true(t >= 0);
	char got[2048];
	ssize_t len = read(t, got, sizeof got - 1);
	close(t);
	assert_true(len > 0);
	got[len] = '\0';
	assert_string_equal(
		got,
		"step 0  wall_time 1700000000  file_version brain.Event:2\n"
		"step 0  wall_time 1700000000.25\n"
		"step 0  wall_time 1700000000.5\n"
		"step 0  wall_time 1700000010  loss = 2.5  accuracy = 0.125  conv1/weights (an "
		"image, histogram or audio: skipped)\n"
		"record 5 is corrupt: the checksum of its data is wrong; it is skipped\n"
		"step 200  wall_time 1700000030  loss = 1.25  accuracy = 0.5  conv1/weights (an "
		"image, histogram or audio: skipped)\n"
		"step 300  wall_time 1700000040  loss = 0.875  accuracy = 0.625  conv1/weights (an "
		"image, histogram or audio: skipped)\n"
		"step 400  wall_time 1700000050  loss = 0.625  accuracy = 0.75  conv1/weights (an "
		"image, histogram or audio: skipped)\n"
		"record 9 is cut short: it holds 90 bytes and their checksum, the file ends 40 "
		"bytes into them; the records before it are read\n");
	free(path);
	free(bytes);
	/* not an event file: no text, the raw file is shown */
	path = put("notes.log", "step 1 loss 0.5\n", 16);
	fd = open(path, O_RDONLY);
	assert_int_equal(tfevents_text(fd), -1);
	close(fd);
	free(path);
}

/* Refills of one byte give what the 1 MiB buffer gives. */
static void tiny_refills_read_the_same(void **state)
{
	(void)state;
	static const char *const files[] = {TF1, TF2, TORCH, REAL};
	for (size_t i = 0; i < 4; i++) {
		struct capture c;
		cap_open(&c);
		bool ok;
		struct run *a = load(files[i], "f", &c, &ok);
		assert_true(ok);
		setenv("LOGDOWN_TEST_CHUNK", "1", 1);
		struct run *b = load(files[i], "f", &c, &ok);
		unsetenv("LOGDOWN_TEST_CHUNK");
		assert_true(ok);
		assert_string_equal(cap_text(&c), "");
		assert_int_equal(run_series_count(a), run_series_count(b));
		for (size_t k = 0; k < run_series_count(a); k++) {
			const struct series *sa = run_series_at(a, k), *sb = run_series_at(b, k);
			assert_string_equal(series_name(sa), series_name(sb));
			assert_int_equal(series_row_count(sa), series_row_count(sb));
			for (size_t row = 0; row < series_row_count(sa); row++)
				assert_true(cell(sa, row, "value") == cell(sb, row, "value"));
		}
		run_free(a);
		run_free(b);
		cap_close(&c);
	}
}

/* Built-in detection: by name and content; by content alone when the
 * file was renamed; a text log is not claimed by content. */
static void detection_by_name_and_content(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_load(NULL, NULL, c.d);
	assert_non_null(set);
	static const char *const files[] = {TF1, TF2, TORCH, REAL};
	for (size_t i = 0; i < 4; i++) {
		const struct parser *p = parsers_detect(set, files[i], loc_line("r.md", 1), c.d);
		assert_non_null(p);
		assert_string_equal(parser_name(p), "tensorboard");
	}
	size_t n;
	char *bytes = slurp(TORCH, &n);
	char *path = put("run3.bin", bytes, n);
	const struct parser *p = parsers_detect(set, path, loc_line("r.md", 1), c.d);
	assert_non_null(p);
	assert_string_equal(parser_name(p), "tensorboard");
	/* through the engine: the run and its record count */
	struct run *r = parser_run(p, path, "run3.bin", "run3", c.d);
	assert_non_null(r);
	assert_int_equal(run_line_count(r), 22);
	assert_non_null(run_series(r, "loss_test"));
	run_free(r);
	assert_string_equal(cap_text(&c), "");
	free(path);
	free(bytes);
	parsers_free(set);
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc32c_gives_the_rfc_3720_check_values),
		cmocka_unit_test(masked_crc_is_tfrecords),
		cmocka_unit_test(real_tensorboard_logger_file_is_read),
		cmocka_unit_test(tf1_simple_values_are_series),
		cmocka_unit_test(tf2_scalar_tensors_are_series),
		cmocka_unit_test(pytorch_tags_become_snake_case_series),
		cmocka_unit_test(file_cut_mid_record_warns_at_it_and_keeps_the_rest),
		cmocka_unit_test(corrupt_records_are_warned_about),
		cmocka_unit_test(not_an_event_file_is_an_error),
		cmocka_unit_test(tags_become_distinct_names),
		cmocka_unit_test(malformed_event_is_skipped_with_a_warning),
		cmocka_unit_test(text_is_a_line_a_record),
		cmocka_unit_test(tiny_refills_read_the_same),
		cmocka_unit_test(detection_by_name_and_content),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
