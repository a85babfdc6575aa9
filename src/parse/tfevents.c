/* tfevents.c: TensorBoard event files, read record by record.
 *
 * The format (tensorflow/tensorboard, tensorboard/compat/proto/
 * event.proto, summary.proto, tensor.proto):
 *
 *   record   uint64 length, uint32 masked crc32c(length),
 *            data[length], uint32 masked crc32c(data)   (little-endian)
 *   Event    1 wall_time double, 2 step int64, 3 file_version string,
 *            5 summary Summary (the other members of its oneof: skipped)
 *   Summary  1 value repeated Value
 *   Value    1 tag string, 2 simple_value float, 8 tensor TensorProto,
 *            9 metadata SummaryMetadata (1 plugin_data: 1 plugin_name);
 *            3 to 6 (histograms, images, audio): skipped and counted
 *   Tensor   1 dtype, 4 tensor_content bytes, 5 float_val, 6 double_val,
 *            7 int_val, 10 int64_val (packed or not)
 *
 * TF1 and PyTorch's SummaryWriter write a scalar as simple_value; TF2's
 * tf.summary.scalar writes a one-element tensor whose tag's first value
 * carries the metadata of the plugin "scalars" (the writer keeps the
 * metadata on the first value of a tag only), so a tensor is a scalar
 * when its tag's plugin is "scalars".  Other tensors (text, TF2
 * histograms, hparams) are skipped and counted.
 *
 * The protobuf decoding is the few wire types these messages use: a
 * varint, 64-bit, length-delimited and 32-bit field; a group (wire
 * types 3 and 4, which no TensorBoard message has) is malformed.
 *
 * The file is read through a buffer of READ_CHUNK bytes that grows only
 * for a record bigger than it (a graph, an image), so memory is the
 * series kept; a record's length is checked against what is left of the
 * file before any of it is read. */
#include "parse/tfevents.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "base/util.h"
#include "data/value.h"
#include "parse/structured.h"

#define READ_CHUNK ((size_t)1 << 20)
#define HEADER_BYTES 12 /* length and its checksum */
#define TEXT_HEAD 65536 /* tfevents_text() looks at this much first */

/* Protobuf wire format. */

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

struct pb {
	const unsigned char *p, *end;
};

struct pb_field {
	uint32_t num;
	int wire;
	uint64_t v;                 /* a varint, or a fixed 64 or 32 bits */
	const unsigned char *data; /* WIRE_LEN: the bytes */
	size_t len;
};

static bool pb_varint(struct pb *b, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64 && b->p < b->end; shift += 7) {
		unsigned char c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double f64_of(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

/* A float32 as the double of the shortest decimal that reads back as
 * it: 0.001f is 0.0010000000474974513 as a double, but was written as
 * 0.001 (as numpy and TensorBoard show it), and a report compares and
 * prints 0.001. */
static double f32_of(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	if (!isfinite(f) || f == 0)
		return f;
	/* p significant digits: round f * 10^k (k = p - 1 - exponent) to
	 * an integer below 10^9, exact in a double, and divide by 10^k
	 * (exact too for k up to 22), which rounds once as strtod() does;
	 * printf() and strtod() cost ten times as much. */
	int e = (int)floor(log10(fabs((double)f)));
	for (int prec = 6; prec < 9; prec++) {
		int k = prec - 1 - e;
		if (k < -22 || k > 22)
			break;
		double scaled = k >= 0 ? nearbyint((double)f * number_pow10[k])
				       : nearbyint((double)f / number_pow10[-k]);
		double v = k >= 0 ? scaled / number_pow10[k] : scaled * number_pow10[-k];
		if ((float)v == f)
			return v;
	}
	char text[32];
	for (int prec = 6; prec < 9; prec++) {
		snprintf(text, sizeof text, "%.*g", prec, (double)f);
		if (strtof(text, NULL) == f)
			return strtod(text, NULL);
	}
	return f; /* nine digits always read back */
}

/* The next field of b into *f: 1, or 0 at the end, or -1 when the bytes
 * are no protobuf message (*why says how). */
static int pb_next(struct pb *b, struct pb_field *f, const char **why)
{
	if (b->p >= b->end)
		return 0;
	uint64_t key;
	if (!pb_varint(b, &key)) {
		*why = "a field's key runs past the end";
		return -1;
	}
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	if (f->num == 0 || key >> 3 > 0x1fffffff) {
		*why = "a field numbered 0 or past 2^29";
		return -1;
	}
	size_t left = (size_t)(b->end - b->p);
	switch (f->wire) {
	case WIRE_VARINT:
		if (!pb_varint(b, &f->v)) {
			*why = "a varint runs past the end";
			return -1;
		}
		return 1;
	case WIRE_I64:
		if (left < 8)
			break;
		f->v = le64(b->p);
		b->p += 8;
		return 1;
	case WIRE_I32:
		if (left < 4)
			break;
		f->v = le32(b->p);
		b->p += 4;
		return 1;
	case WIRE_LEN:
		if (!pb_varint(b, &f->v)) {
			*why = "a length runs past the end";
			return -1;
		}
		if (f->v > (uint64_t)(b->end - b->p))
			break;
		f->data = b->p;
		f->len = (size_t)f->v;
		b->p += f->len;
		return 1;
	default:
		*why = "a field of an unknown wire type";
		return -1;
	}
	*why = "a field runs past the end";
	return -1;
}

static struct pb pb_of(const unsigned char *p, size_t len)
{
	struct pb b = {p, p + len};
	return b;
}

/* The event of one record. */

struct event {
	double wall_time;
	int64_t step;
	bool has_version;
	const unsigned char *version;
	size_t version_len;
	bool has_summary;
	const unsigned char *summary;
	size_t summary_len;
};

static bool event_decode(const unsigned char *p, size_t len, struct event *ev, const char **why)
{
	memset(ev, 0, sizeof *ev); /* proto3: an absent number is 0 */
	struct pb b = pb_of(p, len);
	struct pb_field f;
	int rc;
	while ((rc = pb_next(&b, &f, why)) > 0) {
		if (f.num == 1 && f.wire == WIRE_I64)
			ev->wall_time = f64_of(f.v);
		else if (f.num == 2 && f.wire == WIRE_VARINT)
			ev->step = (int64_t)f.v;
		else if (f.num == 3 && f.wire == WIRE_LEN) {
			ev->has_version = true;
			ev->version = f.data;
			ev->version_len = f.len;
		} else if (f.num == 5 && f.wire == WIRE_LEN) {
			ev->has_summary = true;
			ev->summary = f.data;
			ev->summary_len = f.len;
		}
	}
	return rc == 0;
}

static bool is_event_version(const struct event *ev)
{
	static const char prefix[] = "brain.Event:";
	return ev->has_version && ev->version_len >= sizeof prefix - 1 &&
	       memcmp(ev->version, prefix, sizeof prefix - 1) == 0;
}

/* The one number of a TensorProto, if it holds exactly one of a
 * numeric dtype. */
enum { DT_FLOAT = 1, DT_DOUBLE = 2, DT_INT32 = 3, DT_INT64 = 9 };

static bool tensor_scalar(const unsigned char *p, size_t len, double *out)
{
	struct pb b = pb_of(p, len);
	struct pb_field f;
	const char *why;
	uint64_t dtype = 0;
	size_t n = 0; /* numbers seen */
	double v = 0;
	int rc;
	while ((rc = pb_next(&b, &f, &why)) > 0) {
		if (f.num == 1 && f.wire == WIRE_VARINT) {
			dtype = f.v;
		} else if (f.num == 4 && f.wire == WIRE_LEN) {
			/* raw content: its width comes from dtype, read after */
			if (f.len == 4 && (dtype == DT_FLOAT || dtype == DT_INT32)) {
				uint32_t bits = le32(f.data);
				v = dtype == DT_FLOAT ? f32_of(bits) : (double)(int32_t)bits;
				n++;
			} else if (f.len == 8 && (dtype == DT_DOUBLE || dtype == DT_INT64)) {
				uint64_t bits = le64(f.data);
				v = dtype == DT_DOUBLE ? f64_of(bits) : (double)(int64_t)bits;
				n++;
			} else if (f.len) {
				return false;
			}
		} else if (f.num == 5 || f.num == 6 || f.num == 7 || f.num == 10) {
			/* float_val, double_val, int_val, int64_val: packed (one
			 * length-delimited run) or one field a number */
			if (f.wire == WIRE_LEN) {
				struct pb in = pb_of(f.data, f.len);
				while (in.p < in.end) {
					uint64_t x;
					if (f.num == 5) {
						if (in.end - in.p < 4)
							return false;
						v = f32_of(le32(in.p));
						in.p += 4;
					} else if (f.num == 6) {
						if (in.end - in.p < 8)
							return false;
						v = f64_of(le64(in.p));
						in.p += 8;
					} else if (pb_varint(&in, &x)) {
						v = f.num == 7 ? (double)(int32_t)x : (double)(int64_t)x;
					} else {
						return false;
					}
					n++;
				}
			} else if (f.num == 5 && f.wire == WIRE_I32) {
				v = f32_of((uint32_t)f.v);
				n++;
			} else if (f.num == 6 && f.wire == WIRE_I64) {
				v = f64_of(f.v);
				n++;
			} else if ((f.num == 7 || f.num == 10) && f.wire == WIRE_VARINT) {
				v = f.num == 7 ? (double)(int32_t)f.v : (double)(int64_t)f.v;
				n++;
			}
		}
	}
	if (rc < 0 || n != 1)
		return false;
	*out = v;
	return true;
}

/* The tags seen: each one's series and plugin, found by hash. */

struct tag {
	char *name; /* the tag as written (not NUL-free: len) */
	size_t len;
	uint64_t hash;
	struct series *s;
	bool scalars; /* its metadata named the plugin "scalars" */
};

struct reader {
	struct run *r;
	FILE *text; /* tfevents_text(): each record as a line, no run */
	const char *shown;
	struct diag *d;
	struct tag *tags; /* open addressing, cap a power of two */
	size_t ntags, cap;
	size_t skipped; /* values that are no scalar */
	size_t bad_crc, bad_event;
	long first_bad_crc, first_bad_event;
	/* the file */
	int fd;
	size_t chunk;
	unsigned char *buf;
	size_t bufcap, pos, len;
	uint64_t left; /* bytes of the file not yet in buf */
};

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

/* The series name of a tag: snake_case, made a name an expression can
 * write ("1/loss" gives _1_loss, a tag of no letters "_"), with _2, _3,
 * ... after a name another tag took.  Caller frees. */
static char *series_name_of(struct reader *rd, const unsigned char *tag, size_t len)
{
	char *snake = snake_case((const char *)tag, len);
	char *name = identifier_of(snake);
	free(snake);
	for (int k = 2; run_series(rd->r, name); k++) {
		char *next = xasprintf("%s_%d", name, k);
		if (!run_series(rd->r, next)) {
			free(name);
			return next;
		}
		free(next);
	}
	return name;
}

static struct tag *tag_get(struct reader *rd, const unsigned char *name, size_t len)
{
	uint64_t h = hash_bytes(name, len);
	if (rd->ntags * 2 >= rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 16;
		struct tag *t = xcalloc(cap, sizeof *t);
		for (size_t i = 0; i < rd->cap; i++)
			if (rd->tags[i].name) {
				size_t j = rd->tags[i].hash & (cap - 1);
				while (t[j].name)
					j = (j + 1) & (cap - 1);
				t[j] = rd->tags[i];
			}
		free(rd->tags);
		rd->tags = t;
		rd->cap = cap;
	}
	size_t j = h & (rd->cap - 1);
	for (; rd->tags[j].name; j = (j + 1) & (rd->cap - 1))
		if (rd->tags[j].hash == h && rd->tags[j].len == len &&
		    memcmp(rd->tags[j].name, name, len) == 0)
			return &rd->tags[j];
	struct tag *t = &rd->tags[j];
	t->name = xmalloc(len + 1);
	memcpy(t->name, name, len);
	t->name[len] = '\0';
	t->len = len;
	t->hash = h;
	rd->ntags++;
	return t;
}

/* v in the fewest digits that read back as it. */
static void put_number(FILE *f, double v)
{
	char text[32];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(text, sizeof text, "%.*g", prec, v);
		if (strtod(text, NULL) == v || isnan(v))
			break;
	}
	fputs(text, f);
}

/* "  TAG = VALUE" or "  TAG (what)" on a record's line of the text. */
static void put_value(FILE *f, const unsigned char *tag, size_t len, const char *what,
		      double value)
{
	fputs("  ", f);
	for (size_t i = 0; i < len; i++)
		fputc(tag[i] < 0x20 || tag[i] == 0x7f ? '?' : tag[i], f);
	if (what) {
		fprintf(f, " (%s)", what);
	} else {
		fputs(" = ", f);
		put_number(f, value);
	}
}

static void add_row(struct reader *rd, struct tag *t, const struct event *ev, double value,
		    long rec)
{
	if (rd->text) {
		put_value(rd->text, (const unsigned char *)t->name, t->len, NULL, value);
		return;
	}
	if (!t->s) {
		static const char *const cols[] = {"step", "wall_time", "value"};
		char *name = series_name_of(rd, (const unsigned char *)t->name, t->len);
		t->s = run_add_series(rd->r, name, cols, 3);
		free(name);
	}
	/* No text: the numbers were never written as text. */
	struct datum cells[3] = {
		{DATUM_NUMBER, (double)ev->step, NULL, 0, rec},
		{DATUM_NUMBER, ev->wall_time, NULL, 0, rec},
		{DATUM_NUMBER, value, NULL, 0, rec},
	};
	series_append(t->s, cells, rec);
}

/* The values of one event's summary into rows.  False when the summary
 * is malformed (*why): the rows of the values before stay. */
static bool read_summary(struct reader *rd, const struct event *ev, long rec, const char **why)
{
	struct pb b = pb_of(ev->summary, ev->summary_len);
	struct pb_field f;
	int rc;
	while ((rc = pb_next(&b, &f, why)) > 0) {
		if (f.num != 1 || f.wire != WIRE_LEN)
			continue;
		struct pb vb = pb_of(f.data, f.len);
		struct pb_field g;
		const unsigned char *tag = (const unsigned char *)"", *tensor = NULL;
		const unsigned char *plugin = NULL;
		size_t tag_len = 0, tensor_len = 0, plugin_len = 0;
		bool simple = false, other = false;
		double value = 0;
		while ((rc = pb_next(&vb, &g, why)) > 0) {
			if (g.num == 1 && g.wire == WIRE_LEN) {
				tag = g.data;
				tag_len = g.len;
			} else if (g.num == 2 && g.wire == WIRE_I32) {
				simple = true;
				value = f32_of((uint32_t)g.v);
			} else if (g.num == 8 && g.wire == WIRE_LEN) {
				tensor = g.data;
				tensor_len = g.len;
			} else if (g.num >= 3 && g.num <= 6) {
				other = true;
			} else if (g.num == 9 && g.wire == WIRE_LEN) {
				/* metadata: plugin_data (1), its plugin_name (1) */
				struct pb mb = pb_of(g.data, g.len);
				struct pb_field m;
				while ((rc = pb_next(&mb, &m, why)) > 0)
					if (m.num == 1 && m.wire == WIRE_LEN) {
						struct pb pd = pb_of(m.data, m.len);
						struct pb_field n;
						while ((rc = pb_next(&pd, &n, why)) > 0)
							if (n.num == 1 && n.wire == WIRE_LEN) {
								plugin = n.data;
								plugin_len = n.len;
							}
						if (rc < 0)
							return false;
					}
				if (rc < 0)
					return false;
			}
		}
		if (rc < 0)
			return false;
		if (simple) {
			add_row(rd, tag_get(rd, tag, tag_len), ev, value, rec);
			continue;
		}
		if (!tensor || other) {
			rd->skipped++;
			if (rd->text)
				put_value(rd->text, tag, tag_len,
					  other ? "an image, histogram or audio: skipped" : "no value",
					  0);
			continue;
		}
		struct tag *t = tag_get(rd, tag, tag_len);
		if (plugin)
			t->scalars = plugin_len == 7 && memcmp(plugin, "scalars", 7) == 0;
		if (t->scalars && tensor_scalar(tensor, tensor_len, &value)) {
			add_row(rd, t, ev, value, rec);
		} else {
			rd->skipped++;
			if (rd->text)
				put_value(rd->text, tag, tag_len, "a tensor, not a scalar: skipped", 0);
		}
	}
	return rc == 0;
}

/* The file. */

/* The bytes one read asks for: READ_CHUNK, or, for tests only, the
 * environment's LOGDOWN_TEST_CHUNK (1 to READ_CHUNK), so that every
 * record can be made to straddle a refill. */
static size_t read_chunk(void)
{
	const char *e = getenv("LOGDOWN_TEST_CHUNK");
	if (!e || !*e)
		return READ_CHUNK;
	char *end;
	unsigned long n = strtoul(e, &end, 10);
	return *end || n < 1 || n > READ_CHUNK ? READ_CHUNK : (size_t)n;
}

/* Makes the next `need` bytes be in the buffer from rd->pos; the caller
 * has checked that the file holds them.  False after a read error
 * (errno) or a file that shrank. */
static bool fill(struct reader *rd, size_t need)
{
	if (rd->len - rd->pos >= need)
		return true;
	memmove(rd->buf, rd->buf + rd->pos, rd->len - rd->pos);
	rd->len -= rd->pos;
	rd->pos = 0;
	if (need > rd->bufcap) {
		rd->bufcap = need;
		rd->buf = xrealloc(rd->buf, rd->bufcap);
	}
	while (rd->len < need) {
		size_t want = rd->bufcap - rd->len;
		if (want > rd->chunk)
			want = rd->chunk;
		ssize_t n = read(rd->fd, rd->buf + rd->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return false;
		}
		rd->len += (size_t)n;
		rd->left -= (uint64_t)n < rd->left ? (uint64_t)n : rd->left;
	}
	return true;
}

static int clamp_line(long rec)
{
	return rec > INT_MAX ? INT_MAX : (int)rec;
}

static void set_number(struct run *r, const char *name, double v)
{
	struct datum d = {DATUM_NUMBER, v, NULL, 0, 0};
	run_set_field(r, name, &d);
}

bool tfevents_sniff(const char *head, size_t len)
{
	const unsigned char *p = (const unsigned char *)head;
	if (len < HEADER_BYTES + 4)
		return false;
	uint64_t n = le64(p);
	if (le32(p + 8) != crc32c_mask(crc32c(0, p, 8)) || n > len - HEADER_BYTES - 4)
		return false;
	if (le32(p + HEADER_BYTES + n) != crc32c_mask(crc32c(0, p + HEADER_BYTES, (size_t)n)))
		return false;
	struct event ev;
	const char *why;
	return event_decode(p + HEADER_BYTES, (size_t)n, &ev, &why) && is_event_version(&ev);
}

/* A damaged record: a warning at it, or in the text, its line. */
static void damage(struct reader *rd, long rec, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void damage(struct reader *rd, long rec, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (rd->text) {
		vfprintf(rd->text, fmt, ap);
		fputc('\n', rd->text);
	} else {
		struct buf b = BUF_INIT;
		buf_vprintf(&b, fmt, ap);
		diag_warning(rd->d, loc_line(rd->shown, clamp_line(rec)), "%s", buf_data(&b));
		buf_free(&b);
	}
	va_end(ap);
}

/* The records of the file open as rd->fd, into rd->r or rd->text.
 * False when the file is no event file or cannot be read (reported,
 * unless writing the text). */
static bool read_records(struct reader *rd)
{
	struct diag *d = rd->text ? NULL : rd->d;
	long rec = 0;
	struct stat st;
	if (fstat(rd->fd, &st) != 0) {
		if (d)
			diag_error(d, loc_line(rd->shown, 0), "cannot read: %s", strerror(errno));
		return false;
	}
	rd->left = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	rd->bufcap = READ_CHUNK;
	rd->buf = xmalloc(rd->bufcap);
	if (rd->left == 0) {
		if (d)
			diag_error(d, loc_line(rd->shown, 0),
				   "empty file: a TensorBoard event file starts with a record "
				   "holding its file_version");
		return false;
	}
	for (;;) {
		uint64_t avail = rd->left + (rd->len - rd->pos);
		if (avail == 0)
			break;
		rec++;
		const char *why = NULL;
		if (avail < HEADER_BYTES) {
			if (rec == 1)
				goto not_events;
			damage(rd, rec,
			       "record %ld is cut short: the file ends %u bytes into its 12-byte "
			       "header; the records before it are read",
			       rec, (unsigned)avail);
			break;
		}
		if (!fill(rd, HEADER_BYTES))
			goto read_error;
		const unsigned char *h = rd->buf + rd->pos;
		uint64_t n = le64(h);
		if (le32(h + 8) != crc32c_mask(crc32c(0, h, 8))) {
			/* The length cannot be trusted, so neither can where
			 * the next record starts: stop. */
			if (rec == 1)
				goto not_events;
			damage(rd, rec,
			       "record %ld is corrupt: the checksum of its length is wrong, so "
			       "where the next record starts is unknown; the records before it "
			       "are read",
			       rec);
			break;
		}
		if (n > avail - HEADER_BYTES || avail - HEADER_BYTES - n < 4) {
			if (rec == 1)
				goto not_events;
			damage(rd, rec,
			       "record %ld is cut short: it holds %llu bytes and their checksum, "
			       "the file ends %llu bytes into them; the records before it are read",
			       rec, (unsigned long long)n,
			       (unsigned long long)(avail - HEADER_BYTES));
			break;
		}
		if (!fill(rd, HEADER_BYTES + (size_t)n + 4))
			goto read_error;
		const unsigned char *data = rd->buf + rd->pos + HEADER_BYTES;
		uint32_t want = le32(data + n);
		rd->pos += HEADER_BYTES + (size_t)n + 4;
		if (want != crc32c_mask(crc32c(0, data, (size_t)n))) {
			if (rec == 1)
				goto not_events;
			if (rd->bad_crc++ == 0)
				rd->first_bad_crc = rec;
			if (rd->bad_crc == 1 || rd->text)
				damage(rd, rec,
				       "record %ld is corrupt: the checksum of its data is wrong; it "
				       "is skipped",
				       rec);
			continue;
		}
		struct event ev;
		bool good = event_decode(data, (size_t)n, &ev, &why);
		if (rec == 1) {
			if (!good || !is_event_version(&ev))
				goto not_events;
			if (!rd->text) {
				struct datum v = {DATUM_STRING, 0, (const char *)ev.version,
						  ev.version_len, 1};
				run_set_field(rd->r, "file_version", &v);
			}
		}
		if (rd->text && good) {
			fprintf(rd->text, "step %lld  wall_time ", (long long)ev.step);
			put_number(rd->text, ev.wall_time);
			if (ev.has_version) {
				fputs("  file_version ", rd->text);
				for (size_t i = 0; i < ev.version_len; i++) {
					unsigned char c = ev.version[i];
					fputc(c < 0x20 || c == 0x7f ? '?' : c, rd->text);
				}
			}
		}
		if (good && ev.has_summary)
			good = read_summary(rd, &ev, rec, &why);
		if (rd->text && good)
			fputc('\n', rd->text);
		if (!good) {
			if (rd->bad_event++ == 0)
				rd->first_bad_event = rec;
			if (rd->bad_event == 1 || rd->text)
				damage(rd, rec,
				       "%srecord %ld holds no event that can be read (%s); it is "
				       "skipped",
				       rd->text && ev.has_summary ? "  " : "", rec, why);
		}
	}
	/* One warning a kind of damage, then the count: a file damaged
	 * throughout should not give a warning a record. */
	if (rd->bad_crc > 1 && d) {
		bool one = rd->bad_crc == 2;
		diag_warning(d, loc_line(rd->shown, clamp_line(rd->first_bad_crc)),
			     "%zu more record%s after record %ld %s corrupt (the checksum of "
			     "%s data is wrong); %s skipped",
			     rd->bad_crc - 1, one ? "" : "s", rd->first_bad_crc, one ? "is" : "are",
			     one ? "its" : "their", one ? "it is" : "they are");
	}
	if (rd->bad_event > 1 && d) {
		bool one = rd->bad_event == 2;
		diag_warning(d, loc_line(rd->shown, clamp_line(rd->first_bad_event)),
			     "%zu more record%s after record %ld hold%s no event that can be "
			     "read; %s skipped",
			     rd->bad_event - 1, one ? "" : "s", rd->first_bad_event, one ? "s" : "",
			     one ? "it is" : "they are");
	}
	if (!rd->text) {
		set_number(rd->r, "records", (double)rec);
		set_number(rd->r, "skipped_values", (double)rd->skipped);
		run_set_line_count(rd->r, rec);
	}
	return true;
not_events:
	if (d)
		diag_error(d, loc_line(rd->shown, 0),
			   "not a TensorBoard event file: its first record is not a whole "
			   "TFRecord holding an event with a file_version \"brain.Event:N\"");
	return false;
read_error:
	if (d)
		diag_error(d, loc_line(rd->shown, clamp_line(rec)), "cannot read record %ld: %s",
			   rec, strerror(errno));
	return false;
}

static void reader_free(struct reader *rd)
{
	for (size_t i = 0; i < rd->cap; i++)
		free(rd->tags[i].name);
	free(rd->tags);
	free(rd->buf);
}

bool tfevents_read(struct run *r, const char *path, const char *shown, struct diag *d)
{
	struct reader rd = {.r = r, .shown = shown, .d = d, .chunk = read_chunk()};
	/* Its "lines" are records: a diagnostic quotes none of its bytes. */
	diag_add_source(d, shown, NULL, 0);
	rd.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (rd.fd < 0) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
		return false;
	}
	bool ok = read_records(&rd);
	close(rd.fd);
	reader_free(&rd);
	return ok;
}

int tfevents_text(int fd)
{
	/* A first record bigger than the head is no event file's: it holds
	 * a file_version and perhaps the writer's name. */
	char *head = xmalloc(TEXT_HEAD);
	ssize_t n = pread(fd, head, TEXT_HEAD, 0);
	bool events = n > 0 && tfevents_sniff(head, (size_t)n);
	free(head);
	if (n < 0)
		return -1;
	if (!events) {
		errno = EINVAL;
		return -1;
	}
	FILE *out = tmpfile();
	if (!out)
		return -1;
	struct reader rd = {.text = out, .fd = fd, .chunk = read_chunk()};
	bool ok = lseek(fd, 0, SEEK_SET) == 0 && read_records(&rd);
	reader_free(&rd);
	int copy = -1;
	if (ok && fflush(out) == 0 && !ferror(out)) {
		copy = dup(fileno(out));
		if (copy >= 0 && lseek(copy, 0, SEEK_SET) != 0) {
			close(copy);
			copy = -1;
		}
	}
	int e = errno;
	fclose(out);
	errno = ok ? e : EINVAL;
	return copy;
}
