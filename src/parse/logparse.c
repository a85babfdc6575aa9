/* logparse.c: parser definitions (SPEC section 7), detection, and the
 * streaming engine that runs them over result files.
 *
 * A definition is a YAML map, checked key by key; every pattern is
 * compiled once with PCRE2 (8-bit, never UTF, so that invalid UTF-8 in a
 * log is just bytes) and JIT-compiled.
 *
 * parser_run() reads the file in 4 MiB chunks with read(2) and holds at
 * most three chunks (plus the series it keeps).  Most lines of a big log
 * match nothing, so the engine avoids looking at them one by one: each
 * pattern carries a literal that every match must contain
 * (pattern_literal()), searched for over the whole chunk by its two
 * rarest bytes, 16 or 32 places at a time (lit_find()); the lines
 * between candidates are only counted.  A candidate line is normalised
 * (below) and matched with pcre2_jit_match().  For a log over 8 MiB, a
 * second thread types the cells of series rows and stores them (or
 * hands them to a struct row_sink) while the first reads and matches on
 * (struct pipe); with more than one core, and a parser whose state does
 * not run from line to line, chunks are also scanned on one thread per
 * core and put back in file order (struct pipe, struct scanner).
 *
 * Line normalisation, applied before any pattern sees a line:
 *
 *   - a line is what ends in '\n' (line numbers are those an editor
 *     shows); a last line without '\n' counts too;
 *   - a trailing CR (CRLF) and a literal "^M" (a log pasted from
 *     `cat -v`) are dropped;
 *   - MPI rank prefixes are removed: "[1,0]<stdout>:" always, srun's
 *     "0: " labels when most lines of the file's start carry one;
 *   - a line rewritten with CR (a tqdm bar: "\r 10%|...\r 20%|...") is
 *     its last segment with something in it, as a terminal shows it in
 *     the end; "^M" counts as a CR.  A definition that says `cr: keep`
 *     sees the whole line, CRs included (to read a progress bar's step
 *     printed before the CR that ends it);
 *   - leading blanks (Markdown indentation) and a glued Markdown fence
 *     ("```2024-03-30 ...") are dropped, so that '^' anchors at the
 *     first visible character;
 *   - bytes are bytes: invalid UTF-8 is never an error.
 *
 * A series with `more` keeps its row until the lines after it that go
 * on in one of its cells have been read (more_start(), more_line()); such
 * a parser reads its file on one thread.
 *
 * Patterns are unanchored, so a series line glued behind a progress bar
 * still matches.  Ranks: when a series (or table) row comes from a
 * rank-prefixed line and an earlier row of the same series, read from a
 * line of another rank, has exactly the same cell texts, the row is a
 * copy printed by every rank and is skipped.  Rows repeated by one rank,
 * and rows of lines without a rank prefix, are all kept. */
#define _GNU_SOURCE /* memmem, memrchr */
#include "parse/logparse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/embedded.h"
#include "expr/expr.h"
#include "base/fsutil.h"
#include "data/limit.h"
#include "parse/structured.h"
#include "base/util.h"
#include "data/value.h"
#include "data/yamldoc.h"

#define HEAD_BYTES ((size_t)1 << 20)     /* detection looks at this much */
#define BINARY_PROBE ((size_t)64 << 10)  /* a NUL byte here: binary */
#define CHUNK_BYTES ((size_t)4 << 20)
#define MAX_LINE ((size_t)64 << 20)      /* longer lines are cut */
#define QUOTE_LIMIT ((off_t)4 << 20)     /* bigger logs are not quoted */
#define PIPE_MIN ((off_t)8 << 20)        /* bigger logs build rows in a second thread */
#define NSLOTS 3                         /* chunk buffers in flight between the threads */
/* Backtracking budget of one match: a sane pattern needs a few hundred
 * steps per line; (a+)+$ on 30 a's needs billions.  JIT reaches the
 * limit in about 50 ms. */
/* The budget is limit pcre_match (default 5,000,000).  Detection
 * matches over 1 MiB at once, and may scan all of it: ten times that. */
#define MATCH_LIMIT ((uint32_t)limit_get(LIMIT_PCRE_MATCH))
#define DETECT_MATCH_LIMIT                                                                   \
	((uint32_t)(limit_get(LIMIT_PCRE_MATCH) > UINT32_MAX / 10 ? UINT32_MAX                \
								    : limit_get(LIMIT_PCRE_MATCH) * 10))
#define DEPTH_LIMIT ((uint32_t)limit_get(LIMIT_PCRE_DEPTH))
#define HEAP_LIMIT_KIB (256u * 1024u)

enum vtype { VT_AUTO, VT_NUMBER, VT_STRING, VT_DURATION, VT_TIMESTAMP };
static const char *const vtype_names[] = {"auto", "number", "string", "duration", "timestamp",
					  NULL};

enum pformat { FMT_TEXT, FMT_JSON, FMT_YAML, FMT_CSV };
static const char *const format_names[] = {"text", "json", "yaml", "csv", NULL};

struct pattern {
	char *src;
	size_t len;
	struct loc loc; /* the pattern's scalar in the definition */
	pcre2_code *code;
	bool jit;
	char *lit; /* bytes every match contains (the prefilter), or NULL */
	size_t litlen;
	size_t rare1, rare2; /* the offsets of lit's two rarest bytes */
	bool lit_prefix;     /* every match starts with lit */
};

struct pfield {
	char *name; /* "*": each match names its field with group "name" */
	struct loc loc;
	struct pattern pat;
	bool first;
	enum vtype type;
	int group; /* -1: the first group that took part (the whole match without groups) */
	int name_group, value_group;
	char *def; /* default: its text, or NULL */
	size_t def_len;
};

struct pseries {
	char *name;
	struct loc loc;
	struct pattern pat;
	char **cols;
	int *groups;
	enum vtype *types;
	size_t ncols;
	/* more: the lines after a row's line that go on in one of its cells
	 * (a GoogleTest failure's message). */
	int more_col;             /* the cell, or -1 */
	struct pattern more_until; /* a line that ends them (code NULL: none) */
	size_t more_max;          /* at most this many lines */
};

#define MORE_LINES 20    /* lines `more` takes by default */
#define MORE_LINES_MAX 10000

struct ptable {
	char *name;
	struct loc loc;
	struct pattern header;
};

struct pderive {
	char *name;
	struct loc loc;
	struct expr *e;
};

struct parser {
	char *name;
	char *description;
	char *file;   /* the definition, as diagnostics name it */
	char *origin; /* "built-in" or the path */
	const char *source; /* a built-in's text (static) */
	size_t source_len;
	char *own_text; /* a project parser's text, for parser_source() */
	size_t own_len;
	bool builtin;
	bool keep_cr; /* cr: keep -- lines are not cut at carriage returns */
	enum pformat format;
	struct pattern *detect;
	size_t ndetect;
	char **exts;
	size_t nexts;
	struct pfield *fields;
	size_t nfields;
	struct pseries *series;
	size_t nseries;
	struct ptable *tables;
	size_t ntables;
	struct pderive *derives;
	size_t nderives;
};

/* A definition that did not load: a run that names it is told so. */
struct broken_def {
	char *name;
	char *file;
};

struct parser_set {
	struct parser **v;
	size_t n, cap;
	struct broken_def *broken;
	size_t nbroken;
};

/* Small helpers. */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* How common a byte is in logs, roughly (0 rare .. 255 everywhere):
 * the literal search looks for a literal's rarest bytes first. */
static int byte_rank(unsigned char c)
{
	static const char common[] = "etaoinsrhldcumfpgwybvk";
	if (c == ' ')
		return 255;
	if (c >= '0' && c <= '9')
		return 200;
	const char *at = c ? strchr(common, c) : NULL;
	if (at)
		return 190 - (int)(at - common) * 4;
	if (c >= 'a' && c <= 'z')
		return 90;
	if (strchr(".,:-_/=()[]'\"", c) && c)
		return 150;
	if (c >= 'A' && c <= 'Z')
		return 70;
	if (c == '\t')
		return 60;
	return c < 0x80 ? 40 : 20;
}

/* Picks the offsets of the literal's two rarest bytes (distinct). */
static void literal_rare(struct pattern *pat)
{
	size_t a = 0, b = 0;
	for (size_t i = 1; i < pat->litlen; i++)
		if (byte_rank((unsigned char)pat->lit[i]) < byte_rank((unsigned char)pat->lit[a]))
			a = i;
	b = a == 0 ? (pat->litlen > 1 ? 1 : 0) : 0;
	for (size_t i = 0; i < pat->litlen; i++)
		if (i != a &&
		    byte_rank((unsigned char)pat->lit[i]) < byte_rank((unsigned char)pat->lit[b]))
			b = i;
	pat->rare1 = a;
	pat->rare2 = b;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Where the CPU has AVX2, the literal search tests 32 places at a time;
 * the function is compiled for AVX2 alone and chosen at run time. */
#define LIT_AVX2 1
__attribute__((target("avx2"))) static const char *
lit_block_avx2(const struct pattern *pat, const char **pp, const char *last, const char *end)
{
	const char *p = *pp, *lit = pat->lit;
	size_t n = pat->litlen, r1 = pat->rare1, r2 = pat->rare2;
	size_t rmax = r1 > r2 ? r1 : r2;
	const __m256i b1 = _mm256_set1_epi8(lit[r1]), b2 = _mm256_set1_epi8(lit[r2]);
	while (p + 31 + rmax < end && p + 31 <= last) {
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + r1));
		__m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *)(p + r2));
		unsigned mask = (unsigned)_mm256_movemask_epi8(
			_mm256_and_si256(_mm256_cmpeq_epi8(v1, b1), _mm256_cmpeq_epi8(v2, b2)));
		while (mask) {
			unsigned bit = (unsigned)__builtin_ctz(mask);
			if (memcmp(p + bit, lit, n) == 0)
				return p + bit;
			mask &= mask - 1;
		}
		p += 32;
	}
	*pp = p;
	return NULL;
}
#endif

#ifdef __SSE2__
static const char *lit_block_sse2(const struct pattern *pat, const char **pp, const char *last,
				  const char *end)
{
	const char *p = *pp, *lit = pat->lit;
	size_t n = pat->litlen, r1 = pat->rare1, r2 = pat->rare2;
	size_t rmax = r1 > r2 ? r1 : r2;
	const __m128i b1 = _mm_set1_epi8(lit[r1]), b2 = _mm_set1_epi8(lit[r2]);
	/* Sixteen starting places s..s+15, all <= last; the loads at
	 * s + r .. s + r + 15 stay below end. */
	while (p + 15 + rmax < end && p + 15 <= last) {
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + r1));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + r2));
		unsigned mask = (unsigned)_mm_movemask_epi8(
			_mm_and_si128(_mm_cmpeq_epi8(v1, b1), _mm_cmpeq_epi8(v2, b2)));
		while (mask) {
			unsigned bit = (unsigned)__builtin_ctz(mask);
			if (memcmp(p + bit, lit, n) == 0)
				return p + bit;
			mask &= mask - 1;
		}
		p += 16;
	}
	*pp = p;
	return NULL;
}
#endif

/* The first place of pat's literal in [p, end), or NULL.  Many
 * starting places are tested at once for the literal's two rarest
 * bytes, and only those that have both are compared in full: a byte
 * that is rare in logs makes this several times faster than memmem. */
static const char *lit_find(const struct pattern *pat, const char *p, const char *end)
{
	const char *lit = pat->lit;
	size_t n = pat->litlen;
	if (p >= end || (size_t)(end - p) < n)
		return NULL;
	if (n == 1)
		return memchr(p, lit[0], (size_t)(end - p));
	const char *last = end - n; /* the last starting place */
	const char *hit = NULL;
#ifdef LIT_AVX2
	/* Reports are parsed on several threads: asked once, atomically. */
	static _Atomic int avx2 = -1;
	int have = atomic_load_explicit(&avx2, memory_order_relaxed);
	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx2") ? 1 : 0;
		atomic_store_explicit(&avx2, have, memory_order_relaxed);
	}
	if (have && end - p >= 64 && (hit = lit_block_avx2(pat, &p, last, end)))
		return hit;
#endif
#ifdef __SSE2__
	if ((hit = lit_block_sse2(pat, &p, last, end)))
		return hit;
#endif
	/* The last places: jump from one rare byte to the next. */
	size_t r1 = pat->rare1, r2 = pat->rare2;
	while (p <= last) {
		const char *q = memchr(p + r1, lit[r1], (size_t)(last - p) + 1);
		if (!q)
			return NULL;
		p = q - r1;
		if (p[r2] == lit[r2] && memcmp(p, lit, n) == 0)
			return p;
		p++;
	}
	return NULL;
}

/* The number of '\n' in [p, e): sixteen bytes at a time where SSE2 is. */
static long count_nl(const char *p, const char *e)
{
	long n = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	while (e - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		n += __builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)));
		p += 16;
	}
#endif
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

static void trim(const char **s, size_t *n)
{
	while (*n && (is_blank(**s) || **s == '\r' || **s == '\n'))
		(*s)++, (*n)--;
	while (*n && (is_blank((*s)[*n - 1]) || (*s)[*n - 1] == '\r' || (*s)[*n - 1] == '\n'))
		(*n)--;
}

/* "a", "'a' and 'b'", "'a', 'b' and 'c'". */
static void put_quoted_list(struct buf *b, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_puts(b, i + 1 == n ? " and " : ", ");
		buf_printf(b, "'%s'", names[i]);
	}
}

/* Durations and timestamps. */

static bool digits_at(const char *s, size_t n, size_t *i, int min, int max, long *out)
{
	long v = 0;
	int k = 0;
	while (*i < n && isdigit((unsigned char)s[*i]) && k < max) {
		v = v * 10 + (s[*i] - '0');
		(*i)++;
		k++;
	}
	*out = v;
	return k >= min;
}

/* ".5" or ",663" after seconds: the fraction, as a number below 1. */
static double fraction_at(const char *s, size_t n, size_t *i)
{
	double f = 0, scale = 0.1;
	if (*i + 1 < n && (s[*i] == '.' || s[*i] == ',') && isdigit((unsigned char)s[*i + 1])) {
		for ((*i)++; *i < n && isdigit((unsigned char)s[*i]); (*i)++) {
			f += (s[*i] - '0') * scale;
			scale /= 10;
		}
	}
	return f;
}

static bool unit_seconds(const char *u, size_t n, double *mult)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{"ns", 1e-9},      {"us", 1e-6},      {"\xC2\xB5s", 1e-6}, {"ms", 1e-3},
		{"s", 1},          {"sec", 1},        {"secs", 1},         {"second", 1},
		{"seconds", 1},    {"m", 60},         {"min", 60},         {"mins", 60},
		{"minute", 60},    {"minutes", 60},   {"h", 3600},         {"hr", 3600},
		{"hrs", 3600},     {"hour", 3600},    {"hours", 3600},     {"d", 86400},
		{"day", 86400},    {"days", 86400},
	};
	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0) {
			*mult = units[i].mult;
			return true;
		}
	return false;
}

/* "01:49" (m:s), "1:02:03" (h:m:s), "1:49.5", "2 days, 1:02:03",
 * "10.99s", "1h 2m 3.5s", "150 ms", or a plain number of seconds. */
static bool parse_duration(const char *s, size_t n, double *out)
{
	trim(&s, &n);
	if (!n)
		return false;
	double sign = 1;
	if (s[0] == '-' || s[0] == '+') {
		sign = s[0] == '-' ? -1 : 1;
		s++, n--;
	}
	double plain;
	if (number_parse(s, n, &plain)) {
		*out = sign * plain;
		return true;
	}
	double total = 0;
	size_t i = 0;
	/* Python's timedelta: "2 days, 1:02:03". */
	{
		size_t j = 0;
		long days;
		if (digits_at(s, n, &j, 1, 9, &days) && j < n && s[j] == ' ') {
			size_t k = j + 1;
			if (n - k >= 3 && memcmp(s + k, "day", 3) == 0) {
				k += 3;
				if (k < n && s[k] == 's')
					k++;
				if (k < n && s[k] == ',')
					k++;
				while (k < n && s[k] == ' ')
					k++;
				total = (double)days * 86400;
				i = k;
			}
		}
	}
	size_t colon = i;
	long part[3];
	int nparts = 0;
	while (nparts < 3) {
		long v;
		size_t before = colon;
		if (!digits_at(s, n, &colon, 1, 9, &v)) {
			colon = before;
			break;
		}
		part[nparts++] = v;
		if (colon < n && s[colon] == ':' && nparts < 3)
			colon++;
		else
			break;
	}
	if (nparts >= 2) {
		double frac = fraction_at(s, n, &colon);
		if (colon == n) {
			double v = nparts == 2 ? part[0] * 60.0 + part[1]
					       : part[0] * 3600.0 + part[1] * 60.0 + part[2];
			*out = sign * (total + v + frac);
			return true;
		}
		return false;
	}
	if (i != 0)
		return false;
	/* A sequence of number-unit pairs. */
	bool any = false;
	while (i < n) {
		size_t a = i;
		while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.'))
			i++;
		double v;
		if (i == a || !number_parse(s + a, i - a, &v))
			return false;
		while (i < n && s[i] == ' ')
			i++;
		size_t u = i;
		while (i < n && !isdigit((unsigned char)s[i]) && s[i] != ' ' && s[i] != ',')
			i++;
		double mult;
		if (!unit_seconds(s + u, i - u, &mult))
			return false;
		total += v * mult;
		any = true;
		while (i < n && (s[i] == ' ' || s[i] == ','))
			i++;
	}
	if (!any)
		return false;
	*out = sign * total;
	return true;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* HH:MM[:SS[.frac]] at s[*i]: seconds since midnight. */
static bool clock_at(const char *s, size_t n, size_t *i, double *out)
{
	long h, m, sec = 0;
	if (!digits_at(s, n, i, 1, 2, &h) || *i >= n || s[*i] != ':')
		return false;
	(*i)++;
	if (!digits_at(s, n, i, 2, 2, &m))
		return false;
	double frac = 0;
	if (*i < n && s[*i] == ':') {
		(*i)++;
		if (!digits_at(s, n, i, 2, 2, &sec))
			return false;
		frac = fraction_at(s, n, i);
	}
	if (h > 24 || m > 59 || sec > 60)
		return false;
	*out = h * 3600.0 + m * 60.0 + (double)sec + frac;
	return true;
}

/* A time zone at s[*i]: "Z", "UTC", "+02:00", "-0500"; seconds east. */
static bool zone_at(const char *s, size_t n, size_t *i, double *east)
{
	*east = 0;
	size_t j = *i;
	while (j < n && s[j] == ' ')
		j++;
	if (j < n && s[j] == 'Z') {
		*i = j + 1;
		return true;
	}
	if (n - j >= 3 && (memcmp(s + j, "UTC", 3) == 0 || memcmp(s + j, "GMT", 3) == 0)) {
		*i = j + 3;
		return true;
	}
	if (j < n && (s[j] == '+' || s[j] == '-')) {
		double sign = s[j] == '-' ? -1 : 1;
		size_t k = j + 1;
		long hh, mm = 0;
		if (!digits_at(s, n, &k, 2, 2, &hh))
			return false;
		if (k < n && s[k] == ':')
			k++;
		digits_at(s, n, &k, 0, 2, &mm);
		*east = sign * (hh * 3600.0 + mm * 60.0);
		*i = k;
		return true;
	}
	return false;
}

static int month_of(const char *s)
{
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	for (int i = 0; i < 12; i++)
		if (memcmp(s, months[i], 3) == 0)
			return i + 1;
	return 0;
}

/* "2024-03-30 14:09:43,663", "2024-04-08T09:03:33.195878Z", dates with
 * '/', "Mon Apr  8 09:03:33 2024" (seconds since the epoch, UTC unless
 * a zone is given); "09:01:59.258" or "[09:01:59.258]" (seconds since
 * midnight).  Differences of two give seconds. */
static bool parse_timestamp(const char *s, size_t n, double *out)
{
	trim(&s, &n);
	if (n >= 2 && ((s[0] == '[' && s[n - 1] == ']') || (s[0] == '(' && s[n - 1] == ')'))) {
		s++;
		n -= 2;
		trim(&s, &n);
	}
	size_t i = 0;
	long y, mo, d;
	double t = 0, east = 0;
	if (digits_at(s, n, &i, 4, 4, &y) && i < n && (s[i] == '-' || s[i] == '/')) {
		char sep = s[i++];
		if (!digits_at(s, n, &i, 1, 2, &mo) || i >= n || s[i] != sep)
			return false;
		i++;
		if (!digits_at(s, n, &i, 1, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
			return false;
		if (i < n && (s[i] == 'T' || s[i] == ' ' || s[i] == '_')) {
			i++;
			while (i < n && s[i] == ' ')
				i++;
			if (!clock_at(s, n, &i, &t))
				return false;
		}
		zone_at(s, n, &i, &east);
		if (i != n)
			return false;
		*out = (double)days_from_civil(y, mo, d) * 86400 + t - east;
		return true;
	}
	i = 0;
	if (clock_at(s, n, &i, &t) && i == n) {
		*out = t;
		return true;
	}
	/* ctime: "Mon Apr  8 09:03:33 2024", the weekday optional. */
	i = 0;
	if (n >= 4 && isalpha((unsigned char)s[0]) && s[3] == ' ' && !month_of(s))
		i = 4;
	while (i < n && s[i] == ' ')
		i++;
	if (n - i < 3 || !(mo = month_of(s + i)))
		return false;
	i += 3;
	while (i < n && s[i] == ' ')
		i++;
	if (!digits_at(s, n, &i, 1, 2, &d) || i >= n || s[i] != ' ')
		return false;
	while (i < n && s[i] == ' ')
		i++;
	if (!clock_at(s, n, &i, &t))
		return false;
	zone_at(s, n, &i, &east);
	while (i < n && s[i] == ' ')
		i++;
	if (!digits_at(s, n, &i, 4, 4, &y))
		return false;
	if (i != n)
		return false;
	*out = (double)days_from_civil(y, mo, d) * 86400 + t - east;
	return true;
}

/* The typed value of text as type says; false when it does not read as
 * that type (the datum is then the text typed as usual). */
static bool type_text(enum vtype type, const char *text, size_t len, long line, struct datum *out)
{
	*out = datum_from_text(text, len, line);
	switch (type) {
	case VT_AUTO:
		return true;
	case VT_NUMBER:
		return out->kind != DATUM_STRING;
	case VT_STRING:
		if (out->kind == DATUM_NUMBER)
			out->kind = DATUM_STRING;
		return true;
	case VT_DURATION:
	case VT_TIMESTAMP:
		if (out->kind == DATUM_MISSING)
			return true;
		if (type == VT_DURATION ? parse_duration(out->text, out->len, &out->num)
					: parse_timestamp(out->text, out->len, &out->num)) {
			out->kind = DATUM_NUMBER;
			return true;
		}
		return false;
	}
	return true;
}

/* Patterns. */

/* The index of the ']' that closes the class opening at re[i]. */
static size_t class_end(const char *re, size_t n, size_t i)
{
	size_t j = i + 1;
	if (j < n && re[j] == '^')
		j++;
	if (j < n && re[j] == ']')
		j++;
	for (; j < n && re[j] != ']'; j++) {
		if (re[j] == '\\') {
			j++;
		} else if (re[j] == '[' && j + 1 < n && re[j + 1] == ':') {
			const char *close = memmem(re + j, n - j, ":]", 2);
			if (close)
				j = (size_t)(close - re) + 1;
		}
	}
	return j;
}

/* The longest run of bytes that every match of the pattern contains,
 * read from its source: literal characters at the top level, outside
 * groups, classes and alternatives, not made optional by a quantifier.
 * Anything this reader does not follow gives no literal, which is
 * always safe: the pattern is then tried on every line. */
static void pattern_literal(const char *re, size_t n, struct buf *best)
{
	struct buf cur = BUF_INIT;
	buf_clear(best);
	int depth = 0;
	bool last_lit = false; /* the atom before a quantifier was cur's last byte */
	for (size_t i = 0; i < n; i++) {
		char c = re[i];
		if (depth > 0) {
			if (c == '\\')
				i++;
			else if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
			else if (c == '[')
				i = class_end(re, n, i);
			last_lit = false;
			continue;
		}
		bool quant = c == '*' || c == '+' || c == '?';
		size_t qend = i + 1;
		if (c == '{') {
			size_t j = i + 1;
			while (j < n && isdigit((unsigned char)re[j]))
				j++;
			if (j < n && re[j] == ',')
				for (j++; j < n && isdigit((unsigned char)re[j]);)
					j++;
			if (j < n && re[j] == '}' && j > i + 1) {
				quant = true;
				qend = j + 1;
			}
		}
		if (quant) {
			bool may_vanish = c == '*' || c == '?' || (c == '{' && (re[i + 1] == '0' ||
										 re[i + 1] == ','));
			if (last_lit && may_vanish && cur.len)
				cur.len--;
			if (cur.len > best->len)
				buf_put((buf_clear(best), best), cur.data, cur.len);
			buf_clear(&cur);
			last_lit = false;
			i = qend - 1;
			/* Lazy and possessive marks. */
			if (i + 1 < n && (re[i + 1] == '?' || re[i + 1] == '+'))
				i++;
			continue;
		}
		if (c == '|') {
			/* A top-level alternative: no byte is certain. */
			buf_clear(best);
			buf_free(&cur);
			return;
		}
		const char *lit = NULL;
		char one;
		if (c == '\\' && i + 1 < n) {
			char e = re[++i];
			if (e == 'Q' || e == 'E') {
				buf_clear(best);
				buf_free(&cur);
				return;
			}
			if (!isalnum((unsigned char)e)) {
				one = e;
				lit = &one;
			}
		} else if (c == '(') {
			/* Option settings change how what follows matches. */
			if (i + 2 < n && re[i + 1] == '?' && strchr("imnsxJU-^)", re[i + 2])) {
				buf_clear(best);
				buf_free(&cur);
				return;
			}
			depth = 1;
		} else if (c == '[') {
			i = class_end(re, n, i);
		} else if (c != '.' && c != '^' && c != '$' && c != '\n') {
			one = c;
			lit = &one;
		}
		if (lit) {
			buf_put(&cur, lit, 1);
			last_lit = true;
		} else {
			if (cur.len > best->len)
				buf_put((buf_clear(best), best), cur.data, cur.len);
			buf_clear(&cur);
			last_lit = false;
		}
	}
	if (cur.len > best->len)
		buf_put((buf_clear(best), best), cur.data, cur.len);
	buf_free(&cur);
}

/* The start of line `line` (1-based) of text, or NULL. */
static const char *text_line(const char *text, size_t len, int line)
{
	const char *p = text, *end = text + len;
	for (int i = 1; i < line; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	return p;
}

/* Where byte `off` of a scalar's value is in the definition's text:
 * quotes and escapes make the two differ. */
static struct loc scalar_offset_loc(const char *text, size_t len, const struct value *v, size_t off)
{
	struct loc at = v->loc;
	at.len = 1;
	const char *ls = at.line > 0 ? text_line(text, len, at.line) : NULL;
	if (!ls || at.col < 1)
		return at;
	const char *end = text + len;
	const char *p = ls + at.col - 1;
	if (p >= end)
		return at;
	char q = *p;
	if (q == '|' || q == '>')
		return at;
	if (q == '\'' || q == '"')
		p++;
	for (size_t k = 0; k < off && p < end && *p != '\n'; k++) {
		if (q == '\'' && p[0] == '\'' && p + 1 < end && p[1] == '\'')
			p += 2;
		else if (q == '"' && p[0] == '\\' && p + 1 < end)
			p += p[1] == 'x' ? 4 : p[1] == 'u' ? 6 : p[1] == 'U' ? 10 : 2;
		else
			p++;
	}
	if (p > end)
		p = end;
	at.col = (int)(p - ls) + 1;
	return at;
}

/* The definition being loaded. */
struct def {
	struct parser *p;
	const char *text;
	size_t len;
	struct diag *d;
	bool ok;
};

static bool pattern_compile(struct def *df, struct pattern *pat, const struct value *v,
			    const char *what)
{
	memset(pat, 0, sizeof *pat);
	pat->loc = v->loc;
	if (v->kind != VALUE_STRING && v->kind != VALUE_NUMBER) {
		diag_error(df->d, v->loc, "the pattern of %s must be a string, not %s", what,
			   value_kind_name(v->kind));
		df->ok = false;
		return false;
	}
	pat->src = xstrndup(v->text, v->len);
	pat->len = v->len;
	int err;
	PCRE2_SIZE erroff;
	pat->code = pcre2_compile((PCRE2_SPTR)pat->src, pat->len, PCRE2_NEVER_UTF, &err, &erroff,
				  NULL);
	if (!pat->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		diag_error(df->d, scalar_offset_loc(df->text, df->len, v, erroff),
			   "bad pattern for %s: %s (at offset %zu in the pattern)", what,
			   (const char *)msg, (size_t)erroff);
		df->ok = false;
		/* The caller keeps only the patterns that compiled. */
		free(pat->src);
		pat->src = NULL;
		return false;
	}
#ifdef LOGDOWN_NO_JIT
	pat->jit = false; /* valgrind cannot follow JIT code: make valgrind */
#else
	pat->jit = pcre2_jit_compile(pat->code, PCRE2_JIT_COMPLETE) == 0;
#endif
	struct buf lit = BUF_INIT;
	pattern_literal(pat->src, pat->len, &lit);
	if (lit.len) {
		pat->litlen = lit.len;
		pat->lit = buf_detach(&lit);
		literal_rare(pat);
		/* The source starts with the literal's bytes as written (no
		 * escape, no quantifier that could drop its last byte): a
		 * match can only start where the literal does. */
		char after = pat->len > pat->litlen ? pat->src[pat->litlen] : '\0';
		pat->lit_prefix = memcmp(pat->src, pat->lit, pat->litlen) == 0 &&
				  !(after && strchr("*?{", after));
	}

	buf_free(&lit);
	return true;
}

static void pattern_free(struct pattern *pat)
{
	free(pat->src);
	free(pat->lit);
	pcre2_code_free(pat->code);
}

static uint32_t pattern_groups(const struct pattern *pat)
{
	uint32_t n = 0;
	pcre2_pattern_info(pat->code, PCRE2_INFO_CAPTURECOUNT, &n);
	return n;
}

/* The named groups in group-number order: names[i] of group nums[i]. */
static size_t pattern_names(const struct pattern *pat, const char ***names, int **nums)
{
	uint32_t count = 0, size = 0;
	PCRE2_SPTR table = NULL;
	pcre2_pattern_info(pat->code, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(pat->code, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(pat->code, PCRE2_INFO_NAMETABLE, &table);
	*names = xcalloc(count + 1, sizeof **names);
	*nums = xcalloc(count + 1, sizeof **nums);
	size_t n = 0;
	for (uint32_t i = 0; i < count; i++) {
		PCRE2_SPTR e = table + (size_t)i * size;
		int num = (e[0] << 8) | e[1];
		const char *name = (const char *)(e + 2);
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= strcmp((*names)[k], name) == 0;
		if (dup)
			continue;
		/* Insertion sort by group number: the table is sorted by name. */
		size_t at = n;
		while (at > 0 && (*nums)[at - 1] > num) {
			(*nums)[at] = (*nums)[at - 1];
			(*names)[at] = (*names)[at - 1];
			at--;
		}
		(*nums)[at] = num;
		(*names)[at] = name;
		n++;
	}
	return n;
}

static int pattern_group_named(const struct pattern *pat, const char *name)
{
	int n = pcre2_substring_number_from_name(pat->code, (PCRE2_SPTR)name);
	if (n == PCRE2_ERROR_NOUNIQUESUBSTRING) {
		const char **names;
		int *nums;
		size_t k = pattern_names(pat, &names, &nums);
		n = -1;
		for (size_t i = 0; i < k && n < 0; i++)
			if (strcmp(names[i], name) == 0)
				n = nums[i];
		free(names);
		free(nums);
	}
	return n < 0 ? -1 : n;
}

/* Loading definitions. */

static void unknown_key(struct def *df, const struct value *map, size_t i, const char *where,
			const char *const *known)
{
	const char *close = closest_name(map->keys[i], known);
	struct buf b = BUF_INIT;
	buf_printf(&b, "unknown key '%s' %s", map->keys[i], where);
	if (close)
		buf_printf(&b, " (did you mean '%s'?)", close);
	else {
		buf_puts(&b, " (known keys: ");
		buf_put_names(&b, known);
		buf_puts(&b, ")");
	}
	diag_error(df->d, map->key_locs[i], "%s", buf_data(&b));
	buf_free(&b);
	df->ok = false;
}

static bool want_string(struct def *df, const struct value *v, const char *what)
{
	if (v->kind == VALUE_STRING || (v->kind == VALUE_NUMBER && v->text))
		return true;
	diag_error(df->d, v->loc, "%s must be a string, not %s", what, value_kind_name(v->kind));
	df->ok = false;
	return false;
}

static bool want_map(struct def *df, const struct value *v, const char *what)
{
	if (v->kind == VALUE_MAP)
		return true;
	diag_error(df->d, v->loc, "%s must be a map of names, not %s", what,
		   value_kind_name(v->kind));
	df->ok = false;
	return false;
}

static int word_index(const struct value *v, const char *const *words)
{
	if (v->kind != VALUE_STRING)
		return -1;
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == v->len && memcmp(words[i], v->text, v->len) == 0)
			return i;
	return -1;
}

/* One of words (the value's own spelling), or -1 after an error. */
static int want_word(struct def *df, const struct value *v, const char *what,
		     const char *const *words)
{
	int i = word_index(v, words);
	if (i >= 0)
		return i;
	struct buf b = BUF_INIT;
	if (v->kind == VALUE_STRING) {
		buf_printf(&b, "unknown %s '%s'", what, v->text);
		const char *close = closest_name(v->text, words);
		if (close)
			buf_printf(&b, " (did you mean '%s'?)", close);
		else {
			buf_puts(&b, " (one of: ");
			buf_put_names(&b, words);
			buf_puts(&b, ")");
		}
	} else {
		buf_printf(&b, "%s must be one of ", what);
		buf_put_names(&b, words);
		buf_printf(&b, ", not %s", value_kind_name(v->kind));
	}
	diag_error(df->d, v->loc, "%s", buf_data(&b));
	buf_free(&b);
	df->ok = false;
	return -1;
}

static const char *const type_words[] = {"number", "string", "duration", "timestamp", NULL};

static enum vtype want_type(struct def *df, const struct value *v)
{
	int i = want_word(df, v, "type", type_words);
	return i < 0 ? VT_AUTO : (enum vtype)(i + 1);
}

static void load_field(struct def *df, const char *name, struct loc key_loc, const struct value *v)
{
	struct parser *p = df->p;
	struct pfield *f = &p->fields[p->nfields++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	f->loc = key_loc;
	f->group = -1;
	bool star = strcmp(name, "*") == 0;
	char *what = star ? xstrdup("field '*'") : xasprintf("field '%s'", name);
	const struct value *pat = NULL, *group = NULL;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"pattern", "pick", "type", "group", "default",
						   NULL};
		for (size_t i = 0; i < v->count; i++) {
			const struct value *item = v->items[i];
			const char *k = v->keys[i];
			if (strcmp(k, "pattern") == 0) {
				pat = item;
			} else if (strcmp(k, "pick") == 0) {
				static const char *const picks[] = {"first", "last", NULL};
				f->first = want_word(df, item, "pick", picks) == 0;
			} else if (strcmp(k, "type") == 0) {
				f->type = want_type(df, item);
			} else if (strcmp(k, "group") == 0) {
				group = item;
			} else if (strcmp(k, "default") == 0) {
				if (item->kind == VALUE_STRING || item->kind == VALUE_NUMBER) {
					f->def = xstrndup(item->text, item->len);
					f->def_len = item->len;
				} else if (item->kind != VALUE_NULL) {
					diag_error(df->d, item->loc,
						   "the default of %s must be a number or a string, not %s",
						   what, value_kind_name(item->kind));
					df->ok = false;
				}
			} else {
				char *where = xasprintf("in %s", what);
				unknown_key(df, v, i, where, keys);
				free(where);
			}
		}
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no pattern", what);
			df->ok = false;
		}
	} else {
		pat = v;
	}
	if (!pat || !pattern_compile(df, &f->pat, pat, what))
		goto out;
	int ngroups = (int)pattern_groups(&f->pat);
	if (star) {
		f->name_group = pattern_group_named(&f->pat, "name");
		f->value_group = pattern_group_named(&f->pat, "value");
		if (f->name_group < 0 || f->value_group < 0) {
			diag_error(df->d, pat->loc,
				   "field '*' names each field with the pattern's group "
				   "(?<name>...) and reads (?<value>...): the pattern has no group "
				   "'%s'",
				   f->name_group < 0 ? "name" : "value");
			df->ok = false;
		}
	}
	if (group) {
		if (group->kind == VALUE_NUMBER && group->number == floor(group->number) &&
		    group->number >= 0) {
			f->group = (int)group->number;
			if (f->group > ngroups) {
				diag_error(df->d, group->loc,
					   "%s: the pattern has no group %d (it has %d)", what,
					   f->group, ngroups);
				df->ok = false;
			}
		} else if (group->kind == VALUE_STRING) {
			f->group = pattern_group_named(&f->pat, group->text);
			if (f->group < 0) {
				diag_error(df->d, group->loc, "%s: the pattern has no group named '%s'",
					   what, group->text);
				df->ok = false;
			}
		} else {
			diag_error(df->d, group->loc,
				   "the group of %s is a number or a group's name, not %s", what,
				   value_kind_name(group->kind));
			df->ok = false;
		}
	}
out:
	free(what);
}

/* The values of map's keys, in the order of keys (NULL-ended), into
 * got[] (NULL where a key is absent); any other key is an error
 * "unknown key ... <where>" with a did-you-mean. */
static void map_keys(struct def *df, const struct value *map, const char *const *keys,
		     const struct value **got, const char *where)
{
	for (size_t k = 0; keys[k]; k++)
		got[k] = NULL;
	for (size_t i = 0; i < map->count; i++) {
		size_t k = 0;
		while (keys[k] && strcmp(keys[k], map->keys[i]) != 0)
			k++;
		if (keys[k])
			got[k] = map->items[i];
		else
			unknown_key(df, map, i, where, keys);
	}
}

/* "series 's' has no column 'x' (did you mean 'y'?)" at `at`. */
static void no_column(struct def *df, struct pseries *s, const char *what, const char *name,
		      struct loc at)
{
	s->cols[s->ncols] = NULL; /* allocated one longer */
	const char *close = closest_name(name, (const char *const *)s->cols);
	if (close)
		diag_error(df->d, at, "%s has no column '%s' (did you mean '%s'?)", what, name,
			   close);
	else
		diag_error(df->d, at, "%s has no column '%s'", what, name);
	df->ok = false;
}

/* A series' `more: {into: COLUMN, until: 'pattern', lines: N}`. */
static void load_more(struct def *df, struct pseries *s, const char *what,
		      const struct value *v)
{
	if (!want_map(df, v, "more"))
		return;
	static const char *const keys[] = {"into", "until", "lines", NULL};
	const struct value *got[3];
	char *where = xasprintf("in the more of %s", what);
	map_keys(df, v, keys, got, where);
	free(where);
	const struct value *into = got[0], *until = got[1], *lines = got[2];
	if (!into) {
		diag_error(df->d, v->loc, "the more of %s needs into: the column its lines go to",
			   what);
		df->ok = false;
		return;
	}
	/* No columns: their error is reported already. */
	if (!want_string(df, into, "into") || !s->cols)
		return;
	for (size_t j = 0; j < s->ncols; j++)
		if (strcmp(s->cols[j], into->text) == 0)
			s->more_col = (int)j;
	if (s->more_col < 0) {
		no_column(df, s, what, into->text, into->loc);
		return;
	}
	s->more_max = MORE_LINES;
	if (lines) {
		if (lines->kind != VALUE_NUMBER || lines->number != floor(lines->number) ||
		    lines->number < 1 || lines->number > MORE_LINES_MAX) {
			diag_error(df->d, lines->loc,
				   "lines in the more of %s is a whole number from 1 to %d", what,
				   MORE_LINES_MAX);
			df->ok = false;
		} else {
			s->more_max = (size_t)lines->number;
		}
	}
	if (until) {
		char *uwhat = xasprintf("the more of %s (until)", what);
		pattern_compile(df, &s->more_until, until, uwhat);
		free(uwhat);
	}
}

static void load_series(struct def *df, const char *name, struct loc key_loc,
			const struct value *v)
{
	struct parser *p = df->p;
	struct pseries *s = &p->series[p->nseries++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->loc = key_loc;
	char *what = xasprintf("series '%s'", name);
	const struct value *pat = NULL, *cols = NULL, *types = NULL, *more = NULL;
	s->more_col = -1;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"pattern", "columns", "types", "more", NULL};
		const struct value *got[4];
		char *where = xasprintf("in %s", what);
		map_keys(df, v, keys, got, where);
		free(where);
		pat = got[0], cols = got[1], types = got[2], more = got[3];
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no pattern", what);
			df->ok = false;
		}
	} else {
		pat = v;
	}
	if (!pat || !pattern_compile(df, &s->pat, pat, what))
		goto out;
	const char **names;
	int *nums;
	size_t nnames = pattern_names(&s->pat, &names, &nums);
	if (cols) {
		if (cols->kind != VALUE_LIST) {
			diag_error(df->d, cols->loc, "the columns of %s are a list of group names, not %s",
				   what, value_kind_name(cols->kind));
			df->ok = false;
		} else {
			s->cols = xcalloc(cols->count + 1, sizeof *s->cols);
			s->groups = xcalloc(cols->count + 1, sizeof *s->groups);
			for (size_t i = 0; i < cols->count; i++) {
				const struct value *c = cols->items[i];
				if (!want_string(df, c, "a column"))
					continue;
				int g = pattern_group_named(&s->pat, c->text);
				if (g < 0) {
					names[nnames] = NULL;
					const char *close = closest_name(c->text, names);
					if (close)
						diag_error(df->d, c->loc,
							   "%s: the pattern has no group named '%s' "
							   "(did you mean '%s'?)",
							   what, c->text, close);
					else
						diag_error(df->d, c->loc,
							   "%s: the pattern has no group named '%s'",
							   what, c->text);
					df->ok = false;
					continue;
				}
				s->cols[s->ncols] = xstrdup(c->text);
				s->groups[s->ncols++] = g;
			}
		}
	} else if (nnames == 0) {
		diag_error(df->d, pat->loc,
			   "%s: name the pattern's groups, as in (?<step>\\d+): they become "
			   "the columns",
			   what);
		df->ok = false;
	} else {
		/* one more: a NULL end for closest_name() */
		s->cols = xcalloc(nnames + 1, sizeof *s->cols);
		s->groups = xcalloc(nnames + 1, sizeof *s->groups);
		for (size_t i = 0; i < nnames; i++) {
			s->cols[i] = xstrdup(names[i]);
			s->groups[i] = nums[i];
		}
		s->ncols = nnames;
	}
	free(names);
	free(nums);
	s->types = xcalloc(s->ncols + 1, sizeof *s->types);
	if (types && s->cols && want_map(df, types, "the types of a series")) {
		for (size_t i = 0; i < types->count; i++) {
			long j = -1;
			for (size_t k = 0; k < s->ncols; k++)
				if (strcmp(s->cols[k], types->keys[i]) == 0)
					j = (long)k;
			if (j < 0) {
				no_column(df, s, what, types->keys[i], types->key_locs[i]);
				continue;
			}
			s->types[j] = want_type(df, types->items[i]);
		}
	}
	if (more)
		load_more(df, s, what, more);
out:
	free(what);
}

static void load_table(struct def *df, const char *name, struct loc key_loc, const struct value *v)
{
	struct parser *p = df->p;
	struct ptable *t = &p->tables[p->ntables++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	t->loc = key_loc;
	char *what = xasprintf("table '%s'", name);
	const struct value *pat = NULL;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"header", NULL};
		char *where = xasprintf("in %s", what);
		map_keys(df, v, keys, &pat, where);
		free(where);
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no header pattern", what);
			df->ok = false;
		}
	} else {
		pat = v;
	}
	if (pat)
		pattern_compile(df, &t->header, pat, what);
	free(what);
}

static void load_derive(struct def *df, const char *name, struct loc key_loc, const struct value *v)
{
	struct parser *p = df->p;
	if (!want_string(df, v, "a derive expression"))
		return;
	struct pderive *dv = &p->derives[p->nderives++];
	dv->name = xstrdup(name);
	dv->loc = key_loc;
	/* The expression's own columns start after a quote. */
	struct loc at = scalar_offset_loc(df->text, df->len, v, 0);
	at.len = 0;
	dv->e = expr_parse(v->text, v->len, at, df->d);
	if (!dv->e)
		df->ok = false;
}

static void load_patterns(struct def *df, const struct value *v, const char *what,
			  struct pattern **out, size_t *n)
{
	if (v->kind == VALUE_LIST) {
		*out = xcalloc(v->count + 1, sizeof **out);
		for (size_t i = 0; i < v->count; i++)
			if (pattern_compile(df, &(*out)[*n], v->items[i], what))
				(*n)++;
	} else {
		*out = xcalloc(1, sizeof **out);
		if (pattern_compile(df, &(*out)[0], v, what))
			*n = 1;
	}
}

static void parser_free(struct parser *p)
{
	if (!p)
		return;
	free(p->own_text);
	for (size_t i = 0; i < p->ndetect; i++)
		pattern_free(&p->detect[i]);
	free(p->detect);
	for (size_t i = 0; i < p->nexts; i++)
		free(p->exts[i]);
	free(p->exts);
	for (size_t i = 0; i < p->nfields; i++) {
		free(p->fields[i].name);
		free(p->fields[i].def);
		pattern_free(&p->fields[i].pat);
	}
	free(p->fields);
	for (size_t i = 0; i < p->nseries; i++) {
		struct pseries *s = &p->series[i];
		free(s->name);
		pattern_free(&s->pat);
		for (size_t j = 0; j < s->ncols; j++)
			free(s->cols[j]);
		free(s->cols);
		free(s->groups);
		free(s->types);
		pattern_free(&s->more_until);
	}
	free(p->series);
	for (size_t i = 0; i < p->ntables; i++) {
		free(p->tables[i].name);
		pattern_free(&p->tables[i].header);
	}
	free(p->tables);
	for (size_t i = 0; i < p->nderives; i++) {
		free(p->derives[i].name);
		expr_free(p->derives[i].e);
	}
	free(p->derives);
	free(p->name);
	free(p->description);
	free(p->file);
	free(p->origin);
	free(p);
}

/* The file's name without folders and extension. */
static char *file_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* Parses and checks one definition; NULL after reporting its errors,
 * with *name (the caller frees it) the name it would have had. */
static struct parser *parser_load(const char *file, const char *origin, const char *text,
				  size_t len, bool builtin, struct diag *d, char **name)
{
	static const char *const keys[] = {"name",   "description", "detect", "extensions",
					   "format", "cr",          "fields", "series",
					   "tables", "derive",      NULL};
	struct parser *p = xcalloc(1, sizeof *p);
	p->file = xstrdup(file);
	p->origin = xstrdup(origin);
	p->builtin = builtin;
	if (builtin) {
		p->source = text;
		p->source_len = len;
	} else {
		p->own_text = xmalloc(len + 1);
		memcpy(p->own_text, text, len);
		p->own_text[len] = '\0';
		p->own_len = len;
	}
	struct def df = {p, text, len, d, true};
	struct value *root = yamldoc_parse(text, len, p->file, 0, d);
	if (!root)
		goto fail;
	if (root->kind != VALUE_MAP) {
		diag_error(d, root->loc.line ? root->loc : loc_line(p->file, 0),
			   "a parser definition is a map with name, detect, fields, series, "
			   "tables and derive; this is %s",
			   value_kind_name(root->kind));
		goto fail;
	}
	const struct value *fields = NULL, *series = NULL, *tables = NULL, *derive = NULL;
	bool have_exts = false;
	for (size_t i = 0; i < root->count; i++) {
		const char *k = root->keys[i];
		const struct value *v = root->items[i];
		if (strcmp(k, "name") == 0) {
			if (want_string(&df, v, "name")) {
				free(p->name);
				p->name = xstrndup(v->text, v->len);
			}
		} else if (strcmp(k, "description") == 0) {
			if (v->kind != VALUE_NULL && want_string(&df, v, "description"))
				p->description = xstrndup(v->text, v->len);
		} else if (strcmp(k, "detect") == 0) {
			load_patterns(&df, v, "detect", &p->detect, &p->ndetect);
		} else if (strcmp(k, "extensions") == 0) {
			have_exts = true;
			const struct value *const *items = (const struct value *const *)&v;
			size_t n = 1;
			if (v->kind == VALUE_LIST) {
				items = (const struct value *const *)v->items;
				n = v->count;
			}
			p->exts = xcalloc(n + 1, sizeof *p->exts);
			for (size_t j = 0; j < n; j++)
				if (want_string(&df, items[j], "an extension"))
					p->exts[p->nexts++] = xstrndup(items[j]->text, items[j]->len);
		} else if (strcmp(k, "format") == 0) {
			int f = want_word(&df, v, "format", format_names);
			p->format = f < 0 ? FMT_TEXT : (enum pformat)f;
		} else if (strcmp(k, "cr") == 0) {
			static const char *const crs[] = {"last", "keep", NULL};
			p->keep_cr = want_word(&df, v, "cr", crs) == 1;
		} else if (strcmp(k, "fields") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "fields"))
				fields = v;
		} else if (strcmp(k, "series") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "series"))
				series = v;
		} else if (strcmp(k, "tables") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "tables"))
				tables = v;
		} else if (strcmp(k, "derive") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "derive"))
				derive = v;
		} else {
			unknown_key(&df, root, i, "in a parser definition", keys);
		}
	}
	if (!p->name)
		p->name = file_stem(file);
	if (fields) {
		p->fields = xcalloc(fields->count + 1, sizeof *p->fields);
		for (size_t i = 0; i < fields->count; i++)
			load_field(&df, fields->keys[i], fields->key_locs[i], fields->items[i]);
	}
	if (series) {
		p->series = xcalloc(series->count + 1, sizeof *p->series);
		for (size_t i = 0; i < series->count; i++)
			load_series(&df, series->keys[i], series->key_locs[i], series->items[i]);
	}
	if (tables) {
		p->tables = xcalloc(tables->count + 1, sizeof *p->tables);
		for (size_t i = 0; i < tables->count; i++)
			load_table(&df, tables->keys[i], tables->key_locs[i], tables->items[i]);
	}
	if (derive) {
		p->derives = xcalloc(derive->count + 1, sizeof *p->derives);
		for (size_t i = 0; i < derive->count; i++)
			load_derive(&df, derive->keys[i], derive->key_locs[i], derive->items[i]);
	}
	/* A table fills a series of its name: one name, one thing. */
	for (size_t i = 0; i < p->ntables; i++)
		for (size_t j = 0; j < p->nseries; j++)
			if (strcmp(p->tables[i].name, p->series[j].name) == 0) {
				diag_error(d, p->tables[i].loc,
					   "table '%s' has the name of a series; name it differently",
					   p->tables[i].name);
				df.ok = false;
			}
	if (p->format != FMT_TEXT && (p->nfields || p->nseries || p->ntables)) {
		diag_error(d, loc_line(p->file, 0),
			   "parser '%s' reads %s: its fields and series come from the file's "
			   "structure, so it takes no fields, series or tables patterns (derive "
			   "is fine)",
			   p->name, format_names[p->format]);
		df.ok = false;
	}
	/* A structured format claims its usual extensions unless told. */
	if (!have_exts && p->format != FMT_TEXT) {
		static const char *const exts[][3] = {
			{NULL}, {".json", NULL}, {".yaml", ".yml", NULL}, {".csv", NULL}};
		p->exts = xcalloc(3, sizeof *p->exts);
		for (size_t j = 0; exts[p->format][j]; j++)
			p->exts[p->nexts++] = xstrdup(exts[p->format][j]);
	}
	if (!df.ok)
		goto fail;
	value_free(root);
	return p;
fail:
	value_free(root);
	*name = p->name ? xstrdup(p->name) : file_stem(file);
	parser_free(p);
	return NULL;
}

/* The parser set. */

struct parser_set *parsers_new(void)
{
	return xcalloc(1, sizeof(struct parser_set));
}

/* Adds p, replacing a parser of the same name in its place. */
static void set_put(struct parser_set *set, struct parser *p, struct diag *d)
{
	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->v[i]->name, p->name) != 0)
			continue;
		/* Overriding a built-in, or a folder loaded earlier, is what
		 * the order is for; two files of one name in one folder is a
		 * slip. */
		char *dir_old = path_dirname(set->v[i]->file), *dir_new = path_dirname(p->file);
		if (!set->v[i]->builtin && strcmp(dir_old, dir_new) == 0)
			diag_warning(d, loc_line(p->file, 0),
				     "parser '%s' is also defined in %s; this definition replaces it",
				     p->name, set->v[i]->file);
		free(dir_old);
		free(dir_new);
		parser_free(set->v[i]);
		set->v[i] = p;
		return;
	}
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 16;
		set->v = xrealloc(set->v, set->cap * sizeof *set->v);
	}
	set->v[set->n++] = p;
}

bool parsers_add(struct parser_set *set, const char *file, const char *text, size_t len,
		 bool builtin, struct diag *d)
{
	char *name = NULL;
	struct parser *p = parser_load(file, builtin ? "built-in" : file, text, len, builtin, d,
				       &name);
	if (!p) {
		set->broken = xrealloc(set->broken, (set->nbroken + 1) * sizeof *set->broken);
		set->broken[set->nbroken++] = (struct broken_def){name, xstrdup(file)};
		return false;
	}
	set_put(set, p, d);
	return true;
}

/* Loads every .yaml file of dir; a missing dir is fine unless `named`
 * (a folder the user listed).  A definition must lie inside `root` (the
 * project), or for a named folder inside that folder: a link leading
 * elsewhere is refused. */
static void load_dir(struct parser_set *set, const char *dir, bool named, const char *root,
		     struct diag *d)
{
	size_t n;
	char **names = dir_list(dir, &n);
	if (!names) {
		if (errno != ENOENT || named)
			diag_error(d, loc_line(dir, 0), "cannot read the parsers folder: %s",
				   strerror(errno));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!str_has_suffix(names[i], ".yaml") && !str_has_suffix(names[i], ".yml"))
			continue;
		char *path = path_join(dir, names[i]);
		struct buf b = BUF_INIT;
		if (!is_file(path)) {
			/* A folder named x.yaml: not a definition. */
		} else if (!path_inside(path, root) && !(named && path_inside(path, dir))) {
			diag_error(d, loc_line(path, 0),
				   "a link leading outside the project: logdown reads nothing there "
				   "(copy what you need into the project)");
		} else if (!file_read(path, &b, NULL)) {
			diag_error(d, loc_line(path, 0), "cannot read: %s", strerror(errno));
		} else {
			diag_add_source(d, path, buf_data(&b), b.len);
			parsers_add(set, path, buf_data(&b), b.len, false, d);
			diag_forget_source(d, path);
		}
		buf_free(&b);
		free(path);
	}
	strv_free(names);
}

struct parser_set *parsers_load(const char *root, char *const *extra_dirs, struct diag *d)
{
	struct parser_set *set = parsers_new();
	for (const struct embedded_file *f = embedded_files; f->path; f++) {
		if (!str_has_prefix(f->path, "parsers/") || !str_has_suffix(f->path, ".yaml"))
			continue;
		char *file = xasprintf("(built-in) %s", f->path);
		/* The text is static: diagnostics may quote it at any time. */
		diag_add_source(d, file, f->data, f->len);
		parsers_add(set, file, f->data, f->len, true, d);
		free(file);
	}
	if (root) {
		char *dir = path_join(root, "parsers");
		load_dir(set, dir, false, root, d);
		free(dir);
	}
	for (size_t i = 0; extra_dirs && extra_dirs[i]; i++)
		load_dir(set, extra_dirs[i], true, root ? root : ".", d);
	return set;
}

void parsers_free(struct parser_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		parser_free(set->v[i]);
	free(set->v);
	for (size_t i = 0; i < set->nbroken; i++) {
		free(set->broken[i].name);
		free(set->broken[i].file);
	}
	free(set->broken);
	free(set);
}

size_t parsers_count(const struct parser_set *set)
{
	return set->n;
}

const struct parser *parsers_at(const struct parser_set *set, size_t i)
{
	return i < set->n ? set->v[i] : NULL;
}

const struct parser *parsers_find(const struct parser_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i]->name, name) == 0)
			return set->v[i];
	return NULL;
}

/* The parsers' names, NULL-terminated; caller frees the array. */
static const char **set_names(const struct parser_set *set)
{
	const char **names = xcalloc(set->n + 1, sizeof *names);
	for (size_t i = 0; i < set->n; i++)
		names[i] = set->v[i]->name;
	return names;
}

static const struct broken_def *broken_find(const struct parser_set *set, const char *name)
{
	for (size_t i = 0; i < set->nbroken; i++)
		if (strcmp(set->broken[i].name, name) == 0)
			return &set->broken[i];
	return NULL;
}

bool parsers_broken(const struct parser_set *set, const char *name)
{
	return broken_find(set, name) != NULL;
}

const struct parser *parsers_lookup(const struct parser_set *set, const char *name,
				    struct loc at, struct diag *d)
{
	const struct parser *p = parsers_find(set, name);
	if (p)
		return p;
	const struct broken_def *broken = broken_find(set, name);
	if (broken) {
		diag_error(d, at, "parser '%s' is not loaded: its definition %s has errors (above)",
			   name, broken->file);
		return NULL;
	}
	const char **names = set_names(set);
	const char *close = closest_name(name, names);
	struct buf b = BUF_INIT;
	if (close)
		buf_printf(&b, "unknown parser '%s' (did you mean '%s'?)", name, close);
	else {
		buf_printf(&b, "unknown parser '%s' (available: ", name);
		buf_put_names(&b, names);
		buf_puts(&b, ")");
	}
	diag_error(d, at, "%s", buf_data(&b));
	buf_free(&b);
	free(names);
	return NULL;
}

const char *parser_name(const struct parser *p)
{
	return p->name;
}

const char *parser_description(const struct parser *p)
{
	return p->description ? p->description : "";
}

const char *parser_origin(const struct parser *p)
{
	return p->origin;
}

const char *parser_source(const struct parser *p, size_t *len)
{
	*len = p->source ? p->source_len : p->own_len;
	return p->source ? p->source : p->own_text ? p->own_text : "";
}

/* Matching. */

/* One match of pat in subj[0..n) from start; 1 on a match, 0 on none,
 * negative for a PCRE2 error (the match or depth limit). */
static int re_match(const struct pattern *pat, const char *subj, size_t n, size_t start,
		    pcre2_match_data *md, pcre2_match_context *mctx)
{
	int rc = pat->jit ? pcre2_jit_match(pat->code, (PCRE2_SPTR)subj, n, start, 0, md, mctx)
			  : pcre2_match(pat->code, (PCRE2_SPTR)subj, n, start, 0, md, mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return rc;
}

static const char *re_error(int rc)
{
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
		return "the match limit";
	case PCRE2_ERROR_DEPTHLIMIT:
		return "the depth limit";
	case PCRE2_ERROR_HEAPLIMIT:
		return "the heap limit";
	case PCRE2_ERROR_JIT_STACKLIMIT:
		return "the JIT stack limit";
	default:
		return "an error";
	}
}

/* " (limit pcre_match: raise it ...)" when rc is a limit one can raise,
 * else "". */
static const char *re_hint(int rc)
{
	static char text[2][160];
	enum limit_id id;
	if (rc == PCRE2_ERROR_MATCHLIMIT)
		id = LIMIT_PCRE_MATCH;
	else if (rc == PCRE2_ERROR_DEPTHLIMIT)
		id = LIMIT_PCRE_DEPTH;
	else
		return "";
	char *t = text[id == LIMIT_PCRE_DEPTH];
	snprintf(t, sizeof text[0], " (%s)", limit_hint(id));
	return t;
}

struct matcher {
	pcre2_match_data *md;
	PCRE2_SIZE *ov;   /* md's ovector, which stays where it is */
	uint32_t ov_pairs;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack;
};

static void matcher_init(struct matcher *m, uint32_t groups, uint32_t limit)
{
	m->md = pcre2_match_data_create(groups + 1, NULL);
	m->mctx = pcre2_match_context_create(NULL);
	m->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (!m->md || !m->mctx) {
		fprintf(stderr, "logdown: out of memory (PCRE2 match data)\n");
		abort();
	}
	m->ov = pcre2_get_ovector_pointer(m->md);
	m->ov_pairs = pcre2_get_ovector_count(m->md);
	if (m->jstack)
		pcre2_jit_stack_assign(m->mctx, NULL, m->jstack);
	pcre2_set_match_limit(m->mctx, limit);
	pcre2_set_depth_limit(m->mctx, DEPTH_LIMIT);
	pcre2_set_heap_limit(m->mctx, HEAP_LIMIT_KIB);
}

static void matcher_free(struct matcher *m)
{
	pcre2_match_data_free(m->md);
	pcre2_match_context_free(m->mctx);
	pcre2_jit_stack_free(m->jstack);
}

/* Detection. */

static bool has_extension(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);
	if (e > n)
		return false;
	for (size_t i = 0; i < e; i++)
		if (tolower((unsigned char)path[n - e + i]) != tolower((unsigned char)ext[i]))
			return false;
	return true;
}

/* Reads up to max bytes of the file at path into b. */
static bool read_head(const char *path, size_t max, struct buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = e;
		return false;
	}
	buf_grow(b, max);
	while (b->len < max) {
		ssize_t n = read(fd, b->data + b->len, max - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return false;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	b->data[b->len] = '\0';
	close(fd);
	return true;
}

const struct parser *parsers_detect(const struct parser_set *set, const char *path,
				    struct loc at, struct diag *d)
{
	struct buf head = BUF_INIT;
	if (!read_head(path, HEAD_BYTES, &head)) {
		diag_error(d, at, "cannot read %s: %s", path, strerror(errno));
		buf_free(&head);
		return NULL;
	}
	struct matcher m;
	matcher_init(&m, 0, DETECT_MATCH_LIMIT);
	/* A claim's strength: a project parser beats a built-in, and a
	 * claim by content beats one by extension alone. */
	int *score = xcalloc(set->n + 1, sizeof *score);
	int best = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct parser *p = set->v[i];
		bool ext = false, content = false;
		for (size_t j = 0; j < p->nexts; j++)
			ext |= has_extension(path, p->exts[j]);
		for (size_t j = 0; j < p->ndetect && !content && head.len; j++) {
			int rc = re_match(&p->detect[j], head.data, head.len, 0, m.md, m.mctx);
			if (rc < 0) {
				if (p->builtin)
					diag_add_source(d, p->file, p->source, p->source_len);
				diag_warning(d, p->detect[j].loc,
					     "the detect pattern of parser '%s' hit %s on the first "
					     "MiB of %s: it claims nothing%s",
					     p->name, re_error(rc), path, re_hint(rc));
			}
			content = rc > 0;
		}
		bool claims = p->nexts && p->ndetect ? ext && content : ext || content;
		if (!claims)
			continue;
		score[i] = (p->builtin ? 1 : 3) + (content ? 1 : 0);
		if (score[i] > best)
			best = score[i];
	}
	matcher_free(&m);
	const char **cands = xcalloc(set->n + 1, sizeof *cands);
	size_t n = 0;
	const struct parser *winner = NULL;
	for (size_t i = 0; i < set->n; i++)
		if (best && score[i] == best) {
			cands[n++] = set->v[i]->name;
			winner = set->v[i];
		}
	struct buf b = BUF_INIT;
	if (n == 0) {
		const char **names = set_names(set);
		buf_printf(&b, "cannot tell which parser reads %s: ", path);
		buf_puts(&b, head.len ? "none recognises it" : "it is empty and none claims its name");
		buf_puts(&b, "; name one with {file: ..., parser: NAME} (available: ");
		buf_put_names(&b, names);
		buf_puts(&b, ")");
		free(names);
		diag_error(d, at, "%s", buf_data(&b));
		winner = NULL;
	} else if (n > 1) {
		buf_printf(&b, "cannot tell which parser reads %s: %s", path, n == 2 ? "both " : "");
		put_quoted_list(&b, cands, n);
		buf_printf(&b, " %smatch; name one with {file: ..., parser: NAME}", n > 2 ? "all " : "");
		diag_error(d, at, "%s", buf_data(&b));
		winner = NULL;
	}
	buf_free(&b);
	free(cands);
	free(score);
	buf_free(&head);
	return winner;
}

/* Running a parser over a file. */

/* A line as the patterns see it (see the top of this file). */
struct line {
	const char *p; /* without leading blanks and fence */
	size_t n;
	const char *full; /* with leading blanks: columns of aligned tables */
	size_t full_n;
	bool ranked;
	uint64_t rank;
};

/* Rows already taken from rank-prefixed lines, by their cells' hash. */
struct dent {
	uint64_t hash, rank;
	size_t row;
};

struct dedup {
	struct dent *v;
	size_t n, cap; /* cap is 0 or a power of two */
};

/* Names a '*' field found, in first-seen order. */
struct named {
	char *name;
	struct buf text;
	long line;
};

struct fstate {
	bool found;
	long line;
	struct buf text;
	struct named *names;
	size_t nnames, names_cap;
	size_t *index; /* open addressing over names + 1 */
	size_t index_cap;
};

/* A series' state, used by the row builder (a thread of its own for a
 * big log): nothing here is touched by the scanner. */
struct sstate {
	struct series *s;
	struct dedup dd;
	struct datum *cells; /* a row being built */
	/* Per column, the first value that did not read as the column's
	 * type, warned about once the file is read. */
	bool *warned;
	long *warn_line;
	char **warn_text;
	const struct row_sink *sink; /* where its rows go, or NULL */
};

/* A field's match in one chunk (parallel scanning). */
struct slot_field {
	bool found;
	long line; /* in the chunk */
	struct buf text;
};

/* A pattern that failed in one chunk (parallel scanning). */
struct slot_fail {
	size_t act;
	int rc;
	long line; /* in the chunk */
};

/* A chunk buffer, and the series rows found in it: for each row, the
 * words [series, line lo, line hi, ranked, rank lo, rank hi] and an
 * (offset, length) pair per column, offsets from buf.  When chunks are
 * scanned in parallel, line numbers count from the chunk's start and
 * the rest of what the scan found waits here for the builder, which
 * takes the chunks in file order. */
struct slot {
	char *buf;
	size_t cap;
	uint32_t *rows;
	size_t nwords, words_cap;
	/* Parallel scanning only: */
	size_t from, to;   /* the lines to scan: buf[from, to) */
	long nl_before;    /* '\n' passed over before from (the end of a cut line) */
	bool cut;          /* its first line is longer than MAX_LINE */
	bool scanned;      /* a scanner is done with it */
	long nl;           /* '\n' in buf[from, to) */
	size_t hits;
	struct slot_field *fields;
	struct slot_fail *fails;
	size_t nfails;
};

/* A big log is read by two threads: the scanner (the caller: reading,
 * finding lines, matching, fields and tables) and the row builder
 * (typing series cells and storing rows, which is where the memory of
 * millions of rows is first touched).  Chunk buffers go round NSLOTS
 * slots; a slot handed to the builder is read-only until it comes back.
 *
 * With more than one core and a parser without tables or '*' fields
 * (whose state runs from line to line), the caller only reads, and
 * scanning goes to one thread per core (struct scanner): each takes the
 * next chunk read, scans it with its own matcher, and leaves what it
 * found in the slot, line numbers counted from the chunk's start.  The
 * builder takes the chunks in file order, so it knows where each
 * starts: it numbers the lines, merges the fields (a first-pick field
 * from the first chunk that has it, a last-pick one from the last),
 * reports failed patterns and builds the rows, exactly as one thread
 * reading the file from the start would. */
struct pipe {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots;
	size_t nslots;
	size_t published, consumed;
	size_t next_scan;      /* the next chunk for a scanner */
	bool done;
	struct scan *sc;
	struct scanner *scanners;
	size_t nscanners;
	bool *act_over;        /* per act: a first-pick field found, or a failed
				* pattern, in a chunk taken before */
	unsigned char *reported; /* per act: its failure was reported */
};

struct tstate {
	struct series *s;
	struct dedup dd;
	bool found;
	bool clash_warned;
};

enum act_kind { A_FIELD, A_SERIES, A_TABLE };

/* A pattern looked for during a run. */
struct act {
	const struct pattern *pat;
	enum act_kind what;
	size_t idx;
	/* The next place of the pattern's literal in the chunk, at or after
	 * the line being looked at; NULL when not looked for yet, the
	 * chunk's end when there is none. */
	const char *next;
	bool off; /* a first-pick field that has matched, or a broken pattern */
};

enum table_mode { TM_SEEK, TM_PIPE, TM_SPACE };

/* The table being read. */
struct tcur {
	long table; /* its index, or -1 */
	enum table_mode mode;
	int seek_left;
	bool after_header; /* a space-aligned table's ruler may come next */
	size_t *ext;       /* a space-aligned table's column starts, from its ruler */
	size_t next;
	size_t ncols;
};

/* A row of a series with `more`, kept until the lines after it that go
 * on in its cell have been read.  Its cells are copies: those lines may
 * be in the next chunk. */
struct more {
	bool on;
	size_t series;
	long line;
	bool ranked;
	uint64_t rank;
	size_t taken;      /* lines after the row's line looked at */
	bool until_failed; /* the until pattern failed (reported once) */
	struct buf *cells; /* per column */
	size_t ncells;
	struct buf joined; /* the cells one after another, to build the row */
};

struct scan {
	const struct parser *p;
	struct run *r;
	struct diag *d;
	const char *shown;
	bool quote; /* small enough for diagnostics to quote its lines */
	struct matcher m;
	struct act *acts;
	size_t nacts;
	bool every_line;
	bool has_cr, has_caret; /* in the chunk being read */
	bool srun_labels;
	long nl; /* '\n' before the scan position */
	struct fstate *fs;
	struct sstate *ss;
	struct tstate *ts;
	struct tcur tc;
	struct span *cells;
	size_t cells_cap;
	struct datum *row;
	size_t row_cap;
	bool failed;
	size_t hits;
	/* Where series rows go: the slot being scanned (its rows are built
	 * by the builder thread) or, without one, built at once. */
	struct slot *slot;
	const char *base; /* the buffer that row offsets count from */
	uint32_t *rec;    /* a row record, when built at once */
	size_t rec_cap;
	bool defer;       /* a parallel scanner: failures wait in the slot */
	long line_base;   /* the builder: lines before the chunk being built */
	struct more more; /* a row waiting for its more lines */
};

/* A thread scanning chunks of a big log (see struct pipe). */
struct scanner {
	pthread_t thread;
	struct pipe *pp;
	struct scan sc;
};

/* A place in the log.  diag quotes a line by reading the whole file,
 * which a big log must not cost: its lines are left unquoted. */
static void log_diag(struct scan *sc, bool error, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void log_diag(struct scan *sc, bool error, long line, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	struct loc at = loc_line(sc->shown, (int)line);
	if (!sc->quote)
		diag_add_source(sc->d, sc->shown, NULL, 0);
	if (error)
		diag_error(sc->d, at, "%s", buf_data(&msg));
	else
		diag_warning(sc->d, at, "%s", buf_data(&msg));
	if (!sc->quote)
		diag_forget_source(sc->d, sc->shown);
	buf_free(&msg);
}

static void pattern_failed(struct scan *sc, struct act *a, const char *what, int rc, long line)
{
	const struct parser *p = sc->p;
	if (sc->defer) {
		struct slot *sl = sc->slot;
		sl->fails = xrealloc(sl->fails, (sl->nfails + 1) * sizeof *sl->fails);
		sl->fails[sl->nfails++] = (struct slot_fail){(size_t)(a - sc->acts), rc, line};
		a->off = true;
		return;
	}
	if (p->builtin)
		diag_add_source(sc->d, p->file, p->source, p->source_len);
	diag_error(sc->d, a->pat->loc,
		   "pattern '%s' of %s hit %s on %s:%ld: it backtracks too much; make it more "
		   "specific%s",
		   a->pat->src, what, re_error(rc), sc->shown, line, re_hint(rc));
	a->off = true;
	sc->failed = true;
}

static char *act_what(const struct scan *sc, const struct act *a)
{
	switch (a->what) {
	case A_FIELD:
		return xasprintf("field '%s'", sc->p->fields[a->idx].name);
	case A_SERIES:
		return xasprintf("series '%s'", sc->p->series[a->idx].name);
	case A_TABLE:
		break;
	}
	return xasprintf("table '%s'", sc->p->tables[a->idx].name);
}

/* The next match of a's pattern in the line from *start: 1, 0 for none,
 * or -1 after reporting an error. */
static int next_match(struct scan *sc, struct act *a, const struct line *ln, size_t *start,
		      long line)
{
	const struct pattern *pat = a->pat;
	if (*start > ln->n)
		return 0;
	size_t from = *start;
	if (*start > 0 && pat->lit) {
		/* After a first match, look again only if the literal comes
		 * again. */
		const char *again = lit_find(pat, ln->p + *start, ln->p + ln->n);
		if (!again)
			return 0;
		if (pat->lit_prefix)
			from = (size_t)(again - ln->p);
	} else if (pat->lit_prefix && a->next >= ln->p && a->next < ln->p + ln->n) {
		/* The first place of the literal in the line (scan_line found
		 * it): no match starts before it. */
		from = (size_t)(a->next - ln->p);
	}
	int rc = re_match(pat, ln->p, ln->n, from, sc->m.md, sc->m.mctx);
	if (rc < 0) {
		char *what = act_what(sc, a);
		pattern_failed(sc, a, what, rc, line);
		free(what);
		return -1;
	}
	if (rc == 0)
		return 0;
	const PCRE2_SIZE *ov = sc->m.ov;
	/* An empty match moves on by one, or the next one is the same. */
	*start = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
	return 1;
}

/* Group g of the last match: false when it took no part. */
static bool group_text(const struct scan *sc, const struct line *ln, int g, const char **s,
		       size_t *n)
{
	const PCRE2_SIZE *ov = sc->m.ov;
	uint32_t count = sc->m.ov_pairs;
	if (g < 0 || (uint32_t)g >= count || ov[2 * g] == PCRE2_UNSET)
		return false;
	*s = ln->p + ov[2 * g];
	*n = ov[2 * g + 1] - ov[2 * g];
	return true;
}

static size_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return (size_t)h;
}

static struct named *named_get(struct fstate *fs, const char *name, size_t n, bool *fresh)
{
	*fresh = false;
	size_t mask = fs->index_cap - 1;
	if (fs->index_cap) {
		for (size_t h = hash_bytes(name, n) & mask; fs->index[h]; h = (h + 1) & mask) {
			struct named *e = &fs->names[fs->index[h] - 1];
			if (strlen(e->name) == n && memcmp(e->name, name, n) == 0)
				return e;
		}
	}
	if (fs->nnames == fs->names_cap) {
		fs->names_cap = fs->names_cap ? fs->names_cap * 2 : 8;
		fs->names = xrealloc(fs->names, fs->names_cap * sizeof *fs->names);
	}
	struct named *e = &fs->names[fs->nnames++];
	e->name = xstrndup(name, n);
	e->text = (struct buf)BUF_INIT;
	e->line = 0;
	if (fs->nnames * 2 > fs->index_cap) {
		free(fs->index);
		fs->index_cap = fs->index_cap ? fs->index_cap * 2 : 16;
		fs->index = xcalloc(fs->index_cap, sizeof *fs->index);
		mask = fs->index_cap - 1;
		for (size_t i = 0; i < fs->nnames; i++) {
			size_t h = hash_bytes(fs->names[i].name, strlen(fs->names[i].name)) & mask;
			while (fs->index[h])
				h = (h + 1) & mask;
			fs->index[h] = i + 1;
		}
	} else {
		size_t h = hash_bytes(name, n) & mask;
		while (fs->index[h])
			h = (h + 1) & mask;
		fs->index[h] = fs->nnames;
	}
	*fresh = true;
	return e;
}

static void field_line(struct scan *sc, struct act *a, const struct line *ln, long line)
{
	const struct pfield *f = &sc->p->fields[a->idx];
	struct fstate *fs = &sc->fs[a->idx];
	bool star = f->name[0] == '*' && !f->name[1];
	int ngroups = (int)pattern_groups(&f->pat);
	size_t start = 0;
	int rc;
	while ((rc = next_match(sc, a, ln, &start, line)) > 0) {
		const char *s = NULL;
		size_t n = 0;
		sc->hits++;
		if (star) {
			const char *name;
			size_t name_n;
			if (!group_text(sc, ln, f->name_group, &name, &name_n) || !name_n)
				continue;
			bool fresh;
			struct named *e = named_get(fs, name, name_n, &fresh);
			if (f->first && !fresh)
				continue;
			if (!group_text(sc, ln, f->value_group, &s, &n))
				s = "", n = 0;
			buf_clear(&e->text);
			buf_put(&e->text, s, n);
			e->line = line;
			continue;
		}
		if (f->group >= 0) {
			if (!group_text(sc, ln, f->group, &s, &n))
				s = "", n = 0;
		} else {
			bool got = false;
			for (int g = 1; g <= ngroups && !got; g++)
				got = group_text(sc, ln, g, &s, &n);
			if (!got && !group_text(sc, ln, ngroups ? 1 : 0, &s, &n))
				s = "", n = 0;
		}
		buf_clear(&fs->text);
		buf_put(&fs->text, s, n);
		fs->found = true;
		fs->line = line;
		if (f->first) {
			a->off = true;
			break;
		}
	}
}

static uint64_t row_hash(const struct datum *cells, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; i < cells[j].len; i++)
			h = (h ^ (unsigned char)cells[j].text[i]) * 1099511628211u;
		h = (h ^ 0x1F) * 1099511628211u; /* a cell boundary */
	}
	return h;
}

static bool row_equal(const struct series *s, size_t row, const struct datum *cells)
{
	for (size_t j = 0; j < series_column_count(s); j++) {
		struct datum c;
		series_cell(s, row, j, &c);
		if (c.len != cells[j].len || (c.len && memcmp(c.text, cells[j].text, c.len) != 0))
			return false;
	}
	return true;
}

static void dedup_insert(struct dedup *dd, struct dent e)
{
	if ((dd->n + 1) * 2 > dd->cap) {
		size_t cap = dd->cap ? dd->cap * 2 : 64;
		struct dent *v = xcalloc(cap, sizeof *v);
		for (size_t i = 0; i < dd->cap; i++) {
			if (!dd->v[i].rank)
				continue;
			size_t h = (size_t)dd->v[i].hash & (cap - 1);
			while (v[h].rank)
				h = (h + 1) & (cap - 1);
			v[h] = dd->v[i];
		}
		free(dd->v);
		dd->v = v;
		dd->cap = cap;
	}
	size_t h = (size_t)e.hash & (dd->cap - 1);
	while (dd->v[h].rank)
		h = (h + 1) & (dd->cap - 1);
	dd->v[h] = e;
	dd->n++;
}

/* Appends a row, unless it is another rank's copy of a row already taken
 * (the rule at the top of this file).  Returns whether it was taken. */
static bool add_row(struct series *s, struct dedup *dd, const struct datum *cells, bool ranked,
		    uint64_t line_rank, long line)
{
	size_t ncols = series_column_count(s);
	if (!ranked) {
		series_append(s, cells, line);
		return true;
	}
	uint64_t h = row_hash(cells, ncols);
	/* rank is stored plus one: zero marks an empty slot. */
	uint64_t rank = line_rank + 1;
	bool same_rank = false;
	if (dd->cap) {
		for (size_t i = (size_t)h & (dd->cap - 1); dd->v[i].rank; i = (i + 1) & (dd->cap - 1)) {
			if (dd->v[i].hash != h || !row_equal(s, dd->v[i].row, cells))
				continue;
			if (dd->v[i].rank != rank)
				return false;
			same_rank = true;
		}
	}
	series_append(s, cells, line);
	if (!same_rank)
		dedup_insert(dd, (struct dent){h, rank, series_row_count(s) - 1});
	return true;
}

static struct datum *row_scratch(struct scan *sc, size_t n)
{
	if (n > sc->row_cap) {
		sc->row_cap = n;
		sc->row = xrealloc(sc->row, n * sizeof *sc->row);
	}
	return sc->row;
}

#define REC_HEAD 6 /* words before a row record's cells */

/* Types the cells of one row record and stores the row (the builder's
 * side: see struct pipe).  Returns the words the record took. */
static size_t build_row(struct scan *sc, const uint32_t *w, const char *base)
{
	size_t idx = w[0];
	long line = (long)((uint64_t)w[1] | (uint64_t)w[2] << 32) + sc->line_base;
	bool ranked = w[3] != 0;
	uint64_t rank = (uint64_t)w[4] | (uint64_t)w[5] << 32;
	const struct pseries *ps = &sc->p->series[idx];
	struct sstate *st = &sc->ss[idx];
	const uint32_t *cell = w + REC_HEAD;
	for (size_t j = 0; j < ps->ncols; j++, cell += 2) {
		const char *text = base + cell[0];
		if (st->sink && ps->types[j] == VT_AUTO) {
			/* passed on as written: reading the number is wasted */
			st->cells[j] = datum_from_text_only(text, cell[1], line);
			continue;
		}
		if (!type_text(ps->types[j], text, cell[1], line, &st->cells[j]) && !st->warned[j]) {
			st->warned[j] = true;
			st->warn_line[j] = line;
			st->warn_text[j] = xstrndup(st->cells[j].text, st->cells[j].len);
		}
	}
	if (!st->sink)
		add_row(st->s, &st->dd, st->cells, ranked, rank, line);
	else if (!ranked || add_row(st->s, &st->dd, st->cells, ranked, rank, line))
		st->sink->row(st->sink->ctx, st->cells, ps->ncols, line);
	return REC_HEAD + 2 * ps->ncols;
}

/* Room for a row record of ncols cells: in the slot for the builder, or
 * in sc->rec to be built at once. */
static uint32_t *row_record(struct scan *sc, size_t ncols)
{
	size_t need = REC_HEAD + 2 * ncols;
	if (!sc->slot) {
		if (need > sc->rec_cap) {
			sc->rec_cap = need;
			sc->rec = xrealloc(sc->rec, need * sizeof *sc->rec);
		}
		return sc->rec;
	}
	struct slot *sl = sc->slot;
	if (sl->nwords + need > sl->words_cap) {
		sl->words_cap = sl->words_cap ? sl->words_cap * 2 : 1 << 16;
		if (sl->words_cap < sl->nwords + need)
			sl->words_cap = sl->nwords + need;
		sl->rows = xrealloc(sl->rows, sl->words_cap * sizeof *sl->rows);
	}
	uint32_t *w = sl->rows + sl->nwords;
	sl->nwords += need;
	return w;
}

static void update_every_line(struct scan *sc)
{
	bool every = sc->tc.table >= 0 || sc->more.on;
	for (size_t i = 0; i < sc->nacts && !every; i++)
		every = !sc->acts[i].off && !sc->acts[i].pat->lit;
	sc->every_line = every;
}

/* Builds the row that waited for its more lines. */
static void more_end(struct scan *sc)
{
	struct more *m = &sc->more;
	const struct pseries *ps = &sc->p->series[m->series];
	buf_clear(&m->joined);
	uint32_t *w = row_record(sc, ps->ncols);
	w[0] = (uint32_t)m->series;
	w[1] = (uint32_t)(uint64_t)m->line;
	w[2] = (uint32_t)((uint64_t)m->line >> 32);
	w[3] = m->ranked;
	w[4] = (uint32_t)m->rank;
	w[5] = (uint32_t)(m->rank >> 32);
	uint32_t *cell = w + REC_HEAD;
	for (size_t j = 0; j < ps->ncols; j++, cell += 2) {
		cell[0] = (uint32_t)m->joined.len;
		cell[1] = (uint32_t)m->cells[j].len;
		buf_put(&m->joined, buf_data(&m->cells[j]), m->cells[j].len);
	}
	m->on = false;
	build_row(sc, w, buf_data(&m->joined));
	update_every_line(sc);
}

/* A row of a series with `more`: kept, its cells copied, until the
 * lines after it are read (more_line()). */
static void more_start(struct scan *sc, size_t idx, const struct line *ln, long line)
{
	struct more *m = &sc->more;
	const struct pseries *ps = &sc->p->series[idx];
	if (m->on)
		more_end(sc);
	if (m->ncells < ps->ncols) {
		m->cells = xrealloc(m->cells, ps->ncols * sizeof *m->cells);
		for (size_t j = m->ncells; j < ps->ncols; j++)
			m->cells[j] = (struct buf)BUF_INIT;
		m->ncells = ps->ncols;
	}
	for (size_t j = 0; j < ps->ncols; j++) {
		const char *t;
		size_t n;
		buf_clear(&m->cells[j]);
		if (group_text(sc, ln, ps->groups[j], &t, &n))
			buf_put(&m->cells[j], t, n);
	}
	m->on = true;
	m->series = idx;
	m->line = line;
	m->ranked = ln->ranked;
	m->rank = ln->rank;
	m->taken = 0;
	sc->every_line = true;
}

/* A line after a row that waits for its more lines: the line goes on in
 * the row's cell, or ends the row (and is then read as any line is).
 * Blank lines before the first one are passed over (logs pasted into
 * Markdown come with a blank line after each); a blank line after it,
 * a line the `until` pattern matches, a line that starts another row of
 * the series, or the last of `lines`, ends the row. */
static void more_line(struct scan *sc, const struct line *ln, long line)
{
	struct more *m = &sc->more;
	const struct pseries *ps = &sc->p->series[m->series];
	struct buf *c = &m->cells[ps->more_col];
	const char *t = c->len ? ln->full : ln->p;
	size_t n = c->len ? ln->full_n : ln->n;
	while (n && is_blank(t[n - 1]))
		n--;
	if (n == 0) {
		if (c->len || ++m->taken >= ps->more_max)
			more_end(sc);
		return;
	}
	if (ps->more_until.code && !m->until_failed) {
		int rc = re_match(&ps->more_until, ln->p, ln->n, 0, sc->m.md, sc->m.mctx);
		if (rc < 0) {
			struct act a = {&ps->more_until, A_SERIES, m->series, NULL, false};
			char *what = xasprintf("the more of series '%s' (until)", ps->name);
			pattern_failed(sc, &a, what, rc, line);
			free(what);
			m->until_failed = true;
		}
		if (rc != 0) {
			more_end(sc);
			return;
		}
	}
	/* Another row of the series (or a pattern that fails, which the
	 * series then reports). */
	if (re_match(&ps->pat, ln->p, ln->n, 0, sc->m.md, sc->m.mctx) != 0) {
		more_end(sc);
		return;
	}
	if (c->len)
		buf_putc(c, '\n');
	buf_put(c, t, n);
	if (++m->taken >= ps->more_max)
		more_end(sc);
}

static void series_line(struct scan *sc, struct act *a, const struct line *ln, long line)
{
	const struct pseries *ps = &sc->p->series[a->idx];
	size_t start = 0;
	while (next_match(sc, a, ln, &start, line) > 0) {
		sc->hits++;
		if (ps->more_col >= 0) {
			more_start(sc, a->idx, ln, line);
			continue;
		}
		uint32_t *w = row_record(sc, ps->ncols);
		w[0] = (uint32_t)a->idx;
		w[1] = (uint32_t)(uint64_t)line;
		w[2] = (uint32_t)((uint64_t)line >> 32);
		w[3] = ln->ranked;
		w[4] = (uint32_t)ln->rank;
		w[5] = (uint32_t)(ln->rank >> 32);
		uint32_t *cell = w + REC_HEAD;
		for (size_t j = 0; j < ps->ncols; j++, cell += 2) {
			const char *s;
			size_t n;
			if (!group_text(sc, ln, ps->groups[j], &s, &n))
				s = ln->p, n = 0;
			cell[0] = (uint32_t)(s - sc->base);
			cell[1] = (uint32_t)n;
		}
		if (!sc->slot)
			build_row(sc, w, sc->base);
	}
}

/* Tables. */

/* The UTF-8 box-drawing characters U+2500..U+257F are E2 94 xx and
 * E2 95 xx. */
static bool is_box(const char *s, size_t n, size_t i)
{
	return i + 2 < n && (unsigned char)s[i] == 0xE2 &&
	       ((unsigned char)s[i + 1] == 0x94 || (unsigned char)s[i + 1] == 0x95);
}

/* A vertical bar: '|', or one of │ ┃ ║ (E2 94 82, E2 94 83, E2 95 91).
 * Returns its length, 0 when there is none at s[i]. */
static size_t bar_at(const char *s, size_t n, size_t i)
{
	if (s[i] == '|')
		return 1;
	if (i + 2 < n && (unsigned char)s[i] == 0xE2) {
		unsigned char b = (unsigned char)s[i + 1], c = (unsigned char)s[i + 2];
		if ((b == 0x94 && (c == 0x82 || c == 0x83)) || (b == 0x95 && c == 0x91))
			return 3;
	}
	return 0;
}

/* A ruler: +---+---+, |:---|---:|, ├───┼───┤, ═══ and the like. */
static bool is_ruler(const char *s, size_t n)
{
	size_t marks = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '-' || c == '=' || c == '_') {
			marks++;
		} else if (is_box(s, n, i)) {
			marks++;
			i += 2;
		} else if (!(c == '+' || c == '|' || c == ':' || is_blank(c))) {
			return false;
		}
	}
	return marks >= 3;
}

static void push_cell(struct scan *sc, size_t *k, const char *s, size_t n)
{
	if (*k == sc->cells_cap) {
		sc->cells_cap = sc->cells_cap ? sc->cells_cap * 2 : 16;
		sc->cells = xrealloc(sc->cells, sc->cells_cap * sizeof *sc->cells);
	}
	trim(&s, &n);
	sc->cells[(*k)++] = (struct span){s, n};
}

/* The cells of a |-separated row into sc->cells; 0 without a bar. */
static size_t split_bars(struct scan *sc, const char *s, size_t n)
{
	size_t k = 0, from = 0, bars = 0;
	bool lead = true;
	for (size_t i = 0; i < n;) {
		size_t b = bar_at(s, n, i);
		if (!b) {
			if (!is_blank(s[i]))
				lead = false;
			i++;
			continue;
		}
		/* A leading bar opens the row rather than ending a cell. */
		if (!(lead && bars == 0))
			push_cell(sc, &k, s + from, i - from);
		bars++;
		i += b;
		from = i;
		lead = false;
	}
	if (!bars)
		return 0;
	const char *rest = s + from;
	size_t rest_n = n - from;
	trim(&rest, &rest_n);
	if (rest_n) /* no closing bar */
		push_cell(sc, &k, rest, rest_n);
	return k;
}

/* The cells of a space-aligned row: two blanks or a tab separate them. */
static size_t split_wide(struct scan *sc, const char *s, size_t n)
{
	size_t k = 0, i = 0;
	while (i < n && is_blank(s[i]))
		i++;
	size_t from = i;
	while (i < n) {
		if (s[i] == '\t' || (s[i] == ' ' && i + 1 < n && s[i + 1] == ' ')) {
			size_t gap = i;
			while (i < n && is_blank(s[i]))
				i++;
			if (gap > from)
				push_cell(sc, &k, s + from, gap - from);
			from = i;
			continue;
		}
		i++;
	}
	if (from < n)
		push_cell(sc, &k, s + from, n - from);
	return k;
}

/* A space-aligned table's ruler ("--------  -------"): the starts of
 * its dash groups into tc->ext. */
static bool space_ruler(struct scan *sc, const char *s, size_t n)
{
	size_t groups = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c != '-' && c != '=' && !is_blank(c))
			return false;
	}
	free(sc->tc.ext);
	sc->tc.ext = xcalloc(n / 2 + 2, sizeof *sc->tc.ext);
	for (size_t i = 0; i < n; i++)
		if (!is_blank(s[i]) && (i == 0 || is_blank(s[i - 1])))
			sc->tc.ext[groups++] = i;
	sc->tc.next = groups;
	return groups > 0;
}

/* The cells of a space-aligned row sliced at the ruler's columns. */
static size_t split_ext(struct scan *sc, const char *s, size_t n)
{
	size_t k = 0;
	for (size_t j = 0; j < sc->tc.next; j++) {
		size_t a = sc->tc.ext[j];
		size_t b = j + 1 < sc->tc.next ? sc->tc.ext[j + 1] : n;
		if (a > n)
			a = n;
		if (b > n)
			b = n;
		push_cell(sc, &k, s + a, b - a);
	}
	return k;
}

static void table_end(struct scan *sc)
{
	sc->tc.table = -1;
	free(sc->tc.ext);
	sc->tc.ext = NULL;
	sc->tc.next = 0;
}

/* Starts the table's columns from the header cells in sc->cells. */
static void table_header(struct scan *sc, size_t ncells, enum table_mode mode, long line)
{
	const struct ptable *pt = &sc->p->tables[sc->tc.table];
	struct tstate *ts = &sc->ts[sc->tc.table];
	char **cols = xcalloc(ncells + 1, sizeof *cols);
	for (size_t j = 0; j < ncells; j++) {
		char *c = snake_case(sc->cells[j].p, sc->cells[j].len);
		if (!*c) {
			free(c);
			c = xasprintf("column_%zu", j + 1);
		}
		/* Two cells of one name: the later ones get _2, _3, ... */
		char *base = c;
		for (int k = 2;; k++) {
			bool dup = false;
			for (size_t i = 0; i < j && !dup; i++)
				dup = strcmp(cols[i], c) == 0;
			if (!dup)
				break;
			if (c != base)
				free(c);
			c = xasprintf("%s_%d", base, k);
		}
		if (c != base)
			free(base);
		cols[j] = c;
	}
	struct series *s = run_add_series(sc->r, pt->name, (const char *const *)cols, ncells);
	if (!s) {
		if (!ts->clash_warned) {
			ts->clash_warned = true;
			log_diag(sc, false, line,
				 "table '%s' is here again with other columns; this one is left out",
				 pt->name);
		}
		table_end(sc);
	} else {
		ts->s = s;
		ts->found = true;
		sc->tc.mode = mode;
		sc->tc.ncols = ncells;
		sc->tc.after_header = mode == TM_SPACE;
		sc->hits++;
	}
	for (size_t j = 0; j < ncells; j++)
		free(cols[j]);
	free(cols);
}

static void table_row(struct scan *sc, size_t ncells, const struct line *ln, long line)
{
	struct tstate *ts = &sc->ts[sc->tc.table];
	size_t ncols = sc->tc.ncols;
	struct datum *cells = row_scratch(sc, ncols ? ncols : 1);
	/* Short rows are padded with missing cells, long ones cut. */
	for (size_t j = 0; j < ncols; j++)
		cells[j] = j < ncells ? datum_from_text(sc->cells[j].p, sc->cells[j].len, line)
				      : datum_from_text(ln->p, 0, line);
	add_row(ts->s, &ts->dd, cells, ln->ranked, ln->rank, line);
	sc->hits++;
}

/* The header pattern of table t matched this line. */
static void table_start(struct scan *sc, size_t t, const struct line *ln, long line)
{
	table_end(sc);
	sc->tc.table = (long)t;
	size_t k = split_bars(sc, ln->p, ln->n);
	if (k >= 2 && !is_ruler(ln->p, ln->n)) {
		table_header(sc, k, TM_PIPE, line);
		return;
	}
	k = split_wide(sc, ln->full, ln->full_n);
	if (k >= 2) {
		table_header(sc, k, TM_SPACE, line);
		return;
	}
	/* A title line: the header row is among the next lines. */
	sc->tc.mode = TM_SEEK;
	sc->tc.seek_left = 3;
	sc->hits++;
}

/* A line after a table's header: a row, a ruler, or the end. */
static void table_line(struct scan *sc, const struct line *ln, long line)
{
	struct tcur *tc = &sc->tc;
	size_t k;
	switch (tc->mode) {
	case TM_SEEK:
		if (ln->n == 0 || is_ruler(ln->p, ln->n)) {
			if (--tc->seek_left <= 0)
				table_end(sc);
			return;
		}
		if ((k = split_bars(sc, ln->p, ln->n)) >= 2)
			table_header(sc, k, TM_PIPE, line);
		else if ((k = split_wide(sc, ln->full, ln->full_n)) >= 2)
			table_header(sc, k, TM_SPACE, line);
		else
			table_end(sc);
		return;
	case TM_PIPE:
		if (is_ruler(ln->p, ln->n))
			return;
		if ((k = split_bars(sc, ln->p, ln->n)) == 0) {
			table_end(sc);
			return;
		}
		table_row(sc, k, ln, line);
		return;
	case TM_SPACE:
		if (ln->n == 0) {
			table_end(sc);
			return;
		}
		if (tc->after_header) {
			tc->after_header = false;
			if (space_ruler(sc, ln->full, ln->full_n))
				return;
		}
		k = split_wide(sc, ln->full, ln->full_n);
		/* One cell: the text after the table, not a row of it. */
		if (k < 2 && tc->ncols >= 2) {
			table_end(sc);
			return;
		}
		if (k != tc->ncols && tc->next)
			k = split_ext(sc, ln->full, ln->full_n);
		table_row(sc, k, ln, line);
		return;
	}
}

/* Normalising a line. */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Open MPI's --tag-output prefix "[1,0]<stdout>:" at s: its end, or s. */
static const char *mpi_prefix(const char *s, const char *e, uint64_t *rank)
{
	const char *q = s;
	if (q >= e || *q != '[')
		return s;
	uint64_t job = 0, r = 0;
	for (q++; q < e && is_digit(*q); q++)
		job = job * 10 + (uint64_t)(*q - '0');
	if (q >= e || *q != ',' || q == s + 1)
		return s;
	const char *d0 = ++q;
	for (; q < e && is_digit(*q); q++)
		r = r * 10 + (uint64_t)(*q - '0');
	if (q == d0 || e - q < 3 || q[0] != ']' || q[1] != '<')
		return s;
	q += 2;
	const char *close = memchr(q, '>', (size_t)(e - q));
	if (!close || close - q > 8 || close + 1 >= e || close[1] != ':')
		return s;
	*rank = job << 32 | r;
	return close + 2;
}

/* srun's --label prefix "0: " or " 12: " at s: its end, or s. */
static const char *srun_prefix(const char *s, const char *e, uint64_t *rank)
{
	const char *q = s;
	while (q < e && *q == ' ')
		q++;
	uint64_t r = 0;
	const char *d0 = q;
	for (; q < e && is_digit(*q) && q - d0 < 6; q++)
		r = r * 10 + (uint64_t)(*q - '0');
	if (q == d0 || e - q < 1 || *q != ':' || (q + 1 < e && q[1] != ' '))
		return s;
	*rank = r;
	return q + 1 < e ? q + 2 : q + 1;
}

static void normalize(const struct scan *sc, const char *s, const char *e, struct line *ln)
{
	for (;;) {
		if (e > s && e[-1] == '\r')
			e--;
		else if (sc->has_caret && e - s >= 2 && e[-2] == '^' && e[-1] == 'M')
			e -= 2;
		else
			break;
	}
	ln->ranked = false;
	const char *q = s;
	while (q < e && is_blank(*q))
		q++;
	const char *after = mpi_prefix(q, e, &ln->rank);
	if (after == q && sc->srun_labels)
		after = srun_prefix(s, e, &ln->rank);
	if (after != q && after != s) {
		ln->ranked = true;
		s = after;
	}
	if ((sc->has_cr || sc->has_caret) && !sc->p->keep_cr) {
		/* The last segment with something in it, as a terminal ends up
		 * showing a line that a progress bar kept rewriting. */
		const char *seg_end = e;
		for (;;) {
			const char *sep = NULL, *sep_end = NULL;
			for (const char *p = seg_end; p > s; p--) {
				if (p[-1] == '\r') {
					sep = p - 1, sep_end = p;
					break;
				}
				if (sc->has_caret && p - s >= 2 && p[-2] == '^' && p[-1] == 'M') {
					sep = p - 2, sep_end = p;
					break;
				}
			}
			if (!sep) {
				e = seg_end;
				break;
			}
			const char *p = sep_end;
			while (p < seg_end && is_blank(*p))
				p++;
			if (p < seg_end) {
				s = sep_end;
				e = seg_end;
				break;
			}
			seg_end = sep;
		}
	}
	ln->full = s;
	ln->full_n = (size_t)(e - s);
	while (s < e && is_blank(*s))
		s++;
	if (e - s >= 3 && s[0] == '`' && s[1] == '`' && s[2] == '`') {
		while (s < e && *s == '`')
			s++;
		while (s < e && is_blank(*s))
			s++;
	}
	ln->p = s;
	ln->n = (size_t)(e - s);
}

/* srun --label output: most of the first lines start with "N: ", and
 * some of them with more than a number after it (a list of "0: 12.5"
 * values is not labelled output). */
static bool looks_labelled(const char *buf, const char *end)
{
	size_t lines = 0, labelled = 0, texts = 0;
	for (const char *p = buf; p < end && lines < 1000;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;
		while (q < le && is_blank(*q))
			q++;
		if (q < le) {
			lines++;
			uint64_t rank;
			const char *after = srun_prefix(p, le, &rank);
			if (after != p) {
				labelled++;
				double v;
				const char *r = after;
				size_t rn = (size_t)(le - after);
				trim(&r, &rn);
				if (rn && !number_parse(r, rn, &v))
					texts++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return labelled >= 2 && labelled * 2 > lines && texts > 0;
}

static void scan_line(struct scan *sc, const char *ls, const char *le, const char *end)
{
	long line = sc->nl + 1;
	struct line ln;
	bool have = false;
	bool was_table = sc->tc.table >= 0;
	if (was_table) {
		normalize(sc, ls, le, &ln);
		have = true;
		table_line(sc, &ln, line);
	}
	bool changed = was_table != (sc->tc.table >= 0);
	if (sc->more.on) {
		if (!have) {
			normalize(sc, ls, le, &ln);
			have = true;
		}
		more_line(sc, &ln, line);
	}
	for (size_t i = 0; i < sc->nacts; i++) {
		struct act *a = &sc->acts[i];
		if (a->off)
			continue;
		if (a->pat->lit) {
			if (!a->next || a->next < ls) {
				a->next = lit_find(a->pat, ls, end);
				if (!a->next)
					a->next = end;
			}
			if (a->next >= le)
				continue;
		}
		if (!have) {
			normalize(sc, ls, le, &ln);
			have = true;
		}
		switch (a->what) {
		case A_FIELD:
			field_line(sc, a, &ln, line);
			changed |= a->off;
			break;
		case A_SERIES:
			series_line(sc, a, &ln, line);
			changed |= a->off;
			break;
		case A_TABLE: {
			size_t start = 0;
			int rc = next_match(sc, a, &ln, &start, line);
			if (rc > 0)
				table_start(sc, a->idx, &ln, line);
			changed = true;
			break;
		}
		}
	}
	if (changed)
		update_every_line(sc);
}

static void scan_chunk(struct scan *sc, const char *buf, const char *end)
{
	sc->has_cr = memchr(buf, '\r', (size_t)(end - buf)) != NULL;
	sc->has_caret = false;
	for (const char *c = buf; (c = memchr(c, '^', (size_t)(end - c))) && !sc->has_caret; c++)
		sc->has_caret = c + 1 < end && c[1] == 'M';
	for (size_t i = 0; i < sc->nacts; i++)
		sc->acts[i].next = NULL;
	const char *pos = buf;
	while (pos < end) {
		const char *ls = pos;
		if (!sc->every_line) {
			/* Jump to the next line holding some pattern's literal,
			 * counting the lines passed over. */
			const char *cand = end;
			for (size_t i = 0; i < sc->nacts; i++) {
				struct act *a = &sc->acts[i];
				if (a->off)
					continue;
				if (!a->next || a->next < pos) {
					a->next = lit_find(a->pat, pos, end);
					if (!a->next)
						a->next = end;
				}
				if (a->next < cand)
					cand = a->next;
			}
			if (cand == end) {
				sc->nl += count_nl(pos, end);
				return;
			}
			const char *back = cand > pos ? memrchr(pos, '\n', (size_t)(cand - pos)) : NULL;
			ls = back ? back + 1 : pos;
			sc->nl += count_nl(pos, ls);
		}
		const char *nl = memchr(ls, '\n', (size_t)(end - ls));
		const char *le = nl ? nl : end;
		scan_line(sc, ls, le, end);
		if (!nl)
			break;
		sc->nl++;
		pos = nl + 1;
	}
}

static void scan_init(struct scan *sc, const struct parser *p, struct run *r, struct diag *d,
		      const char *shown)
{
	memset(sc, 0, sizeof *sc);
	sc->p = p;
	sc->r = r;
	sc->d = d;
	sc->shown = shown;
	sc->tc.table = -1;
	uint32_t groups = 0;
	sc->acts = xcalloc(p->nfields + p->nseries + p->ntables + 1, sizeof *sc->acts);
	sc->fs = xcalloc(p->nfields + 1, sizeof *sc->fs);
	sc->ss = xcalloc(p->nseries + 1, sizeof *sc->ss);
	sc->ts = xcalloc(p->ntables + 1, sizeof *sc->ts);
	for (size_t i = 0; i < p->nfields; i++) {
		sc->acts[sc->nacts++] = (struct act){&p->fields[i].pat, A_FIELD, i, NULL, false};
		uint32_t g = pattern_groups(&p->fields[i].pat);
		groups = g > groups ? g : groups;
	}
	for (size_t i = 0; i < p->nseries; i++) {
		const struct pseries *ps = &p->series[i];
		sc->acts[sc->nacts++] = (struct act){&ps->pat, A_SERIES, i, NULL, false};
		uint32_t g = pattern_groups(&ps->pat);
		groups = g > groups ? g : groups;
		if (ps->more_until.code) {
			g = pattern_groups(&ps->more_until);
			groups = g > groups ? g : groups;
		}
		/* Declared series exist, rows or not, so that an expression
		 * on an empty one finds it. */
		struct sstate *st = &sc->ss[i];
		st->s = run_add_series(r, ps->name, (const char *const *)ps->cols, ps->ncols);
		st->cells = xcalloc(ps->ncols + 1, sizeof *st->cells);
		st->warned = xcalloc(ps->ncols + 1, sizeof *st->warned);
		st->warn_line = xcalloc(ps->ncols + 1, sizeof *st->warn_line);
		st->warn_text = xcalloc(ps->ncols + 1, sizeof *st->warn_text);
	}
	for (size_t i = 0; i < p->ntables; i++) {
		sc->acts[sc->nacts++] = (struct act){&p->tables[i].header, A_TABLE, i, NULL, false};
		uint32_t g = pattern_groups(&p->tables[i].header);
		groups = g > groups ? g : groups;
	}
	matcher_init(&sc->m, groups, MATCH_LIMIT);
	update_every_line(sc);
}

static void scan_free(struct scan *sc)
{
	for (size_t i = 0; i < sc->p->nfields; i++) {
		struct fstate *fs = &sc->fs[i];
		buf_free(&fs->text);
		for (size_t k = 0; k < fs->nnames; k++) {
			free(fs->names[k].name);
			buf_free(&fs->names[k].text);
		}
		free(fs->names);
		free(fs->index);
	}
	/* a scanner's scan (scanner_init()) has no series or tables */
	for (size_t i = 0; sc->ss && i < sc->p->nseries; i++) {
		struct sstate *st = &sc->ss[i];
		free(st->dd.v);
		free(st->cells);
		free(st->warned);
		free(st->warn_line);
		for (size_t j = 0; j < sc->p->series[i].ncols; j++)
			free(st->warn_text[j]);
		free(st->warn_text);
	}
	free(sc->rec);
	for (size_t i = 0; i < sc->more.ncells; i++)
		buf_free(&sc->more.cells[i]);
	free(sc->more.cells);
	buf_free(&sc->more.joined);
	for (size_t i = 0; sc->ts && i < sc->p->ntables; i++)
		free(sc->ts[i].dd.v);
	free(sc->fs);
	free(sc->ss);
	free(sc->ts);
	free(sc->acts);
	free(sc->cells);
	free(sc->row);
	free(sc->tc.ext);
	matcher_free(&sc->m);
}

static void set_typed_field(struct scan *sc, const struct pfield *f, const char *name,
			    const char *text, size_t len, long line)
{
	struct datum dt;
	if (!type_text(f->type, text, len, line, &dt))
		log_diag(sc, false, line, "field '%s' is a %s, but '%.*s' is not one; kept as text",
			 name, vtype_names[f->type], (int)dt.len, dt.text);
	run_set_field(sc->r, name, &dt);
}

/* The fields, in the order of the definition, once the file is read.
 * Returns whether every declared field got a value. */
static bool finish_fields(struct scan *sc)
{
	for (size_t i = 0; i < sc->p->nseries; i++) {
		const struct pseries *ps = &sc->p->series[i];
		const struct sstate *st = &sc->ss[i];
		for (size_t j = 0; j < ps->ncols; j++)
			if (st->warned[j])
				log_diag(sc, false, st->warn_line[j],
					 "column '%s' of series '%s' is a %s, but '%s' is not one; kept "
					 "as text",
					 ps->cols[j], ps->name, vtype_names[ps->types[j]],
					 st->warn_text[j]);
	}
	bool complete = true;
	for (size_t i = 0; i < sc->p->nfields; i++) {
		const struct pfield *f = &sc->p->fields[i];
		struct fstate *fs = &sc->fs[i];
		if (f->name[0] == '*' && !f->name[1]) {
			for (size_t k = 0; k < fs->nnames; k++)
				set_typed_field(sc, f, fs->names[k].name, buf_data(&fs->names[k].text),
						fs->names[k].text.len, fs->names[k].line);
			continue;
		}
		if (fs->found) {
			set_typed_field(sc, f, f->name, buf_data(&fs->text), fs->text.len, fs->line);
		} else if (f->def) {
			struct datum dt;
			type_text(f->type, f->def, f->def_len, 0, &dt);
			run_set_field(sc->r, f->name, &dt);
		} else {
			/* Declared but not in this file: missing, shown as —. */
			struct datum dt = {DATUM_MISSING, 0, NULL, 0, 0};
			run_set_field(sc->r, f->name, &dt);
			complete = false;
		}
	}
	for (size_t i = 0; i < sc->p->nseries; i++)
		complete &= sc->ss[i].s && series_row_count(sc->ss[i].s) > 0;
	for (size_t i = 0; i < sc->p->ntables; i++)
		complete &= sc->ts[i].found;
	return complete;
}

/* Evaluates the derive entries in order.  When the file lacks some of
 * the parser's names (a run cut short), a derive that cannot be
 * computed is quietly missing; otherwise its error is reported. */
static void derive_all(const struct parser *p, struct run *r, bool complete, struct diag *d)
{
	for (size_t i = 0; i < p->nderives; i++) {
		const struct pderive *dv = &p->derives[i];
		struct scope scope;
		memset(&scope, 0, sizeof scope);
		scope.run = r;
		struct eval ev;
		memset(&ev, 0, sizeof ev);
		char *sink_text = NULL;
		size_t sink_len = 0;
		FILE *sink = open_memstream(&sink_text, &sink_len);
		bool ok = false;
		if (sink) {
			struct diag *quiet = diag_new(sink, DIAG_TEXT, false);
			ok = expr_eval(dv->e, &scope, &ev, quiet);
			diag_free(quiet);
			fclose(sink);
		}
		free(sink_text);
		if (!ok) {
			struct datum missing = {DATUM_MISSING, 0, NULL, 0, 0};
			if (complete || !sink) {
				if (p->builtin)
					diag_add_source(d, p->file, p->source, p->source_len);
				memset(&ev, 0, sizeof ev);
				ok = expr_eval(dv->e, &scope, &ev, d);
			}
			if (!ok) {
				run_set_field(r, dv->name, &missing);
				continue;
			}
		}
		struct datum dt = {DATUM_MISSING, 0, ev.text, ev.len, ev.line};
		switch (ev.kind) {
		case EVAL_NUMBER:
			dt.kind = DATUM_NUMBER;
			dt.num = ev.num;
			break;
		case EVAL_STRING:
			dt.kind = DATUM_STRING;
			break;
		case EVAL_BOOL:
			dt.kind = DATUM_STRING;
			dt.text = ev.boolean ? "true" : "false";
			dt.len = strlen(dt.text);
			dt.line = 0;
			break;
		case EVAL_MISSING:
			break;
		case EVAL_LIST:
			if (p->builtin)
				diag_add_source(d, p->file, p->source, p->source_len);
			diag_error(d, dv->loc,
				   "derive '%s' gives a whole column; pick one value with first, "
				   "last, min, max, mean, median, sum, count, std or percentile",
				   dv->name);
			dt.text = NULL;
			break;
		}
		if (dt.kind == DATUM_NUMBER || dt.kind == DATUM_STRING || ev.kind == EVAL_MISSING) {
			if (!dt.text)
				dt.line = 0;
			run_set_field(r, dv->name, &dt);
			if (dt.line == 0 && ev.inputs)
				run_set_field_inputs(r, dv->name, ev.inputs);
		}
		eval_clear(&ev);
	}
}

static void slot_free(struct slot *sl, size_t nfields)
{
	free(sl->buf);
	free(sl->rows);
	for (size_t i = 0; sl->fields && i < nfields; i++)
		buf_free(&sl->fields[i].text);
	free(sl->fields);
	free(sl->fails);
}

static void slot_reserve(struct slot *sl, size_t cap)
{
	if (sl->cap < cap) {
		sl->buf = xrealloc(sl->buf, cap);
		sl->cap = cap;
	}
}

/* The threads that scan a big log's chunks: one per core, at most 4
 * (the builder, one thread, keeps up with about that many; each holds a
 * 4 MiB chunk), or LOGDOWN_SCAN_THREADS, at most 8.  Under 2, the
 * reading thread scans. */
static size_t scan_threads(void)
{
	const char *env = getenv("LOGDOWN_SCAN_THREADS");
	long n;
	if (env && *env) {
		char *end;
		n = strtol(env, &end, 10);
		if (*end || n < 0)
			n = 1;
		n = n > 8 ? 8 : n;
	} else {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		n = n > 4 ? 4 : n;
	}
	return n < 2 ? 0 : (size_t)n;
}

/* Does a series of p read the lines after its rows (`more`)? */
static bool has_more(const struct parser *p)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (p->series[i].more_col >= 0)
			return true;
	return false;
}

/* Can chunks of a log be scanned apart?  Not when a table, a '*' field
 * or a series' more lines carry state from one line to the next. */
static bool parallel_ok(const struct parser *p)
{
	if (p->ntables || has_more(p))
		return false;
	for (size_t i = 0; i < p->nfields; i++)
		if (p->fields[i].name[0] == '*' && !p->fields[i].name[1])
			return false;
	return true;
}

/* A scanner's own scan: the parser's acts and a matcher of its own,
 * nothing of the run, which only the builder touches (scan_free()
 * frees it). */
static void scanner_init(struct scan *w, const struct scan *sc)
{
	memset(w, 0, sizeof *w);
	w->p = sc->p;
	w->shown = sc->shown;
	w->defer = true;
	w->tc.table = -1;
	w->nacts = sc->nacts;
	w->acts = xcalloc(sc->nacts + 1, sizeof *w->acts);
	memcpy(w->acts, sc->acts, sc->nacts * sizeof *w->acts);
	w->fs = xcalloc(sc->p->nfields + 1, sizeof *w->fs);
	uint32_t groups = 0;
	for (size_t i = 0; i < w->nacts; i++) {
		uint32_t g = pattern_groups(w->acts[i].pat);
		groups = g > groups ? g : groups;
	}
	matcher_init(&w->m, groups, MATCH_LIMIT);
}

/* Scans one chunk into its slot (a scanner's side of struct pipe); the
 * acts that are over were switched off by the caller. */
static void scanner_scan(struct scan *w, struct slot *sl)
{
	const struct parser *p = w->p;
	for (size_t i = 0; i < p->nfields; i++) {
		w->fs[i].found = false;
		buf_clear(&w->fs[i].text);
	}
	w->slot = sl;
	w->base = sl->buf;
	w->nl = 0;
	w->hits = 0;
	sl->nfails = 0;
	update_every_line(w);
	scan_chunk(w, sl->buf + sl->from, sl->buf + sl->to);
	sl->nl = w->nl;
	sl->hits = w->hits;
	if (p->nfields && !sl->fields)
		sl->fields = xcalloc(p->nfields, sizeof *sl->fields);
	for (size_t i = 0; i < p->nfields; i++) {
		struct slot_field *f = &sl->fields[i];
		f->found = w->fs[i].found;
		f->line = w->fs[i].line;
		buf_clear(&f->text);
		buf_put(&f->text, buf_data(&w->fs[i].text), w->fs[i].text.len);
	}
	w->slot = NULL;
}

static void *scanner_main(void *arg)
{
	struct scanner *w = arg;
	struct pipe *pp = w->pp;
	const struct parser *p = w->sc.p;
	for (;;) {
		pthread_mutex_lock(&pp->mu);
		while (pp->next_scan == pp->published && !pp->done)
			pthread_cond_wait(&pp->cv, &pp->mu);
		if (pp->next_scan == pp->published) {
			pthread_mutex_unlock(&pp->mu);
			return NULL;
		}
		struct slot *sl = &pp->slots[pp->next_scan++ % pp->nslots];
		for (size_t i = 0; i < w->sc.nacts; i++)
			w->sc.acts[i].off = pp->act_over[i];
		w->sc.srun_labels = pp->sc->srun_labels;
		pthread_mutex_unlock(&pp->mu);
		scanner_scan(&w->sc, sl);
		pthread_mutex_lock(&pp->mu);
		/* Chunks taken from now on come later in the file: a field
		 * picked first is found, a failed pattern is reported. */
		for (size_t i = 0; i < sl->nfails; i++)
			pp->act_over[sl->fails[i].act] = true;
		for (size_t i = 0; i < p->nfields; i++)
			if (p->fields[i].first && sl->fields[i].found)
				pp->act_over[i] = true;
		sl->scanned = true;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
}

/* The builder's side of a chunk scanned apart, before its rows: where
 * its lines start, its cut line, failed patterns and fields. */
static void merge_slot(struct pipe *pp, struct slot *sl)
{
	struct scan *sc = pp->sc;
	const struct parser *p = sc->p;
	sc->line_base += sl->nl_before;
	long base = sc->line_base;
	if (sl->cut)
		log_diag(sc, false, base + 1, "this line is longer than %zu MiB: only its start is read",
			 MAX_LINE >> 20);
	for (size_t i = 0; i < sl->nfails; i++) {
		const struct slot_fail *f = &sl->fails[i];
		if (pp->reported[f->act])
			continue;
		pp->reported[f->act] = 1;
		struct act *a = &sc->acts[f->act];
		char *what = act_what(sc, a);
		pattern_failed(sc, a, what, f->rc, base + f->line);
		free(what);
	}
	for (size_t i = 0; i < p->nfields; i++) {
		const struct slot_field *f = &sl->fields[i];
		struct fstate *fs = &sc->fs[i];
		if (!f->found || (p->fields[i].first && fs->found))
			continue;
		buf_clear(&fs->text);
		buf_put(&fs->text, buf_data(&f->text), f->text.len);
		fs->found = true;
		fs->line = base + f->line;
	}
	sc->hits += sl->hits;
}

/* The row builder's thread: builds the rows of each slot in turn. */
static void *builder_main(void *arg)
{
	struct pipe *pp = arg;
	for (;;) {
		pthread_mutex_lock(&pp->mu);
		struct slot *sl = NULL;
		for (;;) {
			if (pp->consumed < pp->published) {
				sl = &pp->slots[pp->consumed % pp->nslots];
				if (!pp->nscanners || sl->scanned)
					break;
				sl = NULL;
			} else if (pp->done) {
				break;
			}
			pthread_cond_wait(&pp->cv, &pp->mu);
		}
		pthread_mutex_unlock(&pp->mu);
		if (!sl)
			return NULL;
		if (pp->nscanners)
			merge_slot(pp, sl);
		for (size_t w = 0; w < sl->nwords;)
			w += build_row(pp->sc, sl->rows + w, sl->buf);
		if (pp->nscanners)
			pp->sc->line_base += sl->nl;
		sl->nwords = 0;
		pthread_mutex_lock(&pp->mu);
		sl->scanned = false;
		pp->consumed++;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
}

static void pipe_free(struct pipe *pp)
{
	for (size_t i = 0; i < pp->nscanners; i++)
		scan_free(&pp->scanners[i].sc);
	for (size_t i = 0; i < pp->nslots; i++)
		slot_free(&pp->slots[i], pp->sc->p->nfields);
	free(pp->scanners);
	free(pp->slots);
	free(pp->act_over);
	free(pp->reported);
	free(pp);
}

/* Tells the threads that no slot will come any more and waits for the
 * scanners, once they have scanned every slot handed to them. */
static void pipe_stop_scanners(struct pipe *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->done = true;
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
	for (size_t i = 0; i < pp->nscanners; i++)
		pthread_join(pp->scanners[i].thread, NULL);
}

/* Starts the builder, and nscanners scanners (as many as start), or
 * returns NULL (the caller then builds rows itself). */
static struct pipe *pipe_start(struct scan *sc, size_t nscanners)
{
	struct pipe *pp = xcalloc(1, sizeof *pp);
	pp->sc = sc;
	pp->nslots = nscanners ? nscanners + 2 : NSLOTS;
	pp->slots = xcalloc(pp->nslots, sizeof *pp->slots);
	pp->act_over = xcalloc(sc->nacts + 1, sizeof *pp->act_over);
	pp->reported = xcalloc(sc->nacts + 1, 1);
	if (pthread_mutex_init(&pp->mu, NULL) != 0) {
		pipe_free(pp);
		return NULL;
	}
	if (pthread_cond_init(&pp->cv, NULL) != 0) {
		pthread_mutex_destroy(&pp->mu);
		pipe_free(pp);
		return NULL;
	}
	pp->scanners = xcalloc(nscanners + 1, sizeof *pp->scanners);
	for (size_t i = 0; i < nscanners; i++) {
		struct scanner *w = &pp->scanners[pp->nscanners];
		scanner_init(&w->sc, sc);
		w->pp = pp;
		if (pthread_create(&w->thread, NULL, scanner_main, w) != 0) {
			scan_free(&w->sc);
			break;
		}
		pp->nscanners++;
	}
	if (pp->nscanners == 1) {
		/* One scanner would only take turns with the reader. */
		pipe_stop_scanners(pp);
		scan_free(&pp->scanners[0].sc);
		pp->nscanners = 0;
		pp->done = false;
	}
	if (pthread_create(&pp->thread, NULL, builder_main, pp) != 0) {
		pipe_stop_scanners(pp);
		pthread_cond_destroy(&pp->cv);
		pthread_mutex_destroy(&pp->mu);
		pipe_free(pp);
		return NULL;
	}
	return pp;
}

/* Slot k, once the builder is done with what it held. */
static struct slot *pipe_acquire(struct pipe *pp, size_t k)
{
	pthread_mutex_lock(&pp->mu);
	while (k >= pp->consumed + pp->nslots)
		pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
	return &pp->slots[k % pp->nslots];
}

/* Hands slot k (the next in order) to the scanners or the builder. */
static void pipe_publish(struct pipe *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->published++;
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
}

/* Waits for the threads to finish every slot handed to them. */
static void pipe_finish(struct pipe *pp)
{
	pipe_stop_scanners(pp);
	pthread_join(pp->thread, NULL);
	pthread_cond_destroy(&pp->cv);
	pthread_mutex_destroy(&pp->mu);
	pipe_free(pp);
}

/* Reads the file in chunks and scans each; false after an error. */
static bool scan_file(struct scan *sc, int fd, off_t size)
{
	size_t cap = CHUNK_BYTES;
	if (size >= 0 && (size_t)size + 1 < cap)
		cap = (size_t)size + 1 < 4096 ? 4096 : (size_t)size + 1;
	struct pipe *pp = NULL;
	if (size > PIPE_MIN) {
		size_t nscan = parallel_ok(sc->p) ? scan_threads() : 0;
		/* A row with more lines is built where it ends: at once. */
		if ((sc->p->nseries && !has_more(sc->p)) || nscan)
			pp = pipe_start(sc, nscan);
	}
	bool par = pp && pp->nscanners;
	struct slot single = {0};
	size_t k = 0; /* the slot being filled, when there is a builder */
	struct slot *cur = pp ? pipe_acquire(pp, 0) : &single;
	slot_reserve(cur, cap);
	size_t have = 0;
	unsigned long long total = 0;
	bool first = true, eof = false, ok = true, skipping = false, cut = false;
	long pending_nl = 0; /* parallel: '\n' passed over, for the next slot */
	int read_errno = 0;
	char last = '\n';
	while (!eof) {
		char *buf = cur->buf;
		cap = cur->cap;
		while (have < cap) {
			ssize_t n = read(fd, buf + have, cap - have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				/* reported once the threads are done */
				read_errno = errno;
				ok = false;
				goto out;
			}
			if (n == 0) {
				eof = true;
				break;
			}
			have += (size_t)n;
			total += (unsigned long long)n;
		}
		if (have)
			last = buf[have - 1];
		if (first) {
			first = false;
			if (total == 0) {
				log_diag(sc, true, 0, "empty file");
				ok = false;
				goto out;
			}
			size_t probe = have < BINARY_PROBE ? have : BINARY_PROBE;
			const char *nul = memchr(buf, '\0', probe);
			if (nul) {
				log_diag(sc, true, 0,
					 "binary file (a NUL byte on line %ld); parsers read text",
					 count_nl(buf, nul) + 1);
				ok = false;
				goto out;
			}
			sc->srun_labels = looks_labelled(buf, buf + have);
		}
		const char *start = buf, *end = buf + have;
		if (skipping) {
			/* The rest of a line too long to keep. */
			const char *nl = memchr(buf, '\n', have);
			if (!nl) {
				have = 0;
				continue;
			}
			skipping = false;
			if (par)
				pending_nl++;
			else
				sc->nl++;
			start = nl + 1;
		}
		if (!eof) {
			const char *nl = memrchr(start, '\n', (size_t)(end - start));
			if (!nl && start == buf && cap < MAX_LINE) {
				/* A line longer than the buffer: no row points
				 * into it yet, so it may move. */
				slot_reserve(cur, cap * 2);
				continue;
			}
			if (!nl && start == buf) {
				if (par)
					cut = true; /* the builder says it, at its line */
				else
					log_diag(sc, false, sc->nl + 1,
						 "this line is longer than %zu MiB: only its start "
						 "is read",
						 MAX_LINE >> 20);
				skipping = true;
			} else {
				end = nl ? nl + 1 : start;
			}
		}
		sc->slot = pp ? cur : NULL;
		sc->base = buf;
		if (par) {
			cur->from = (size_t)(start - buf);
			cur->to = (size_t)(end - buf);
			cur->nl_before = pending_nl;
			cur->cut = cut;
			pending_nl = 0;
			cut = false;
		} else {
			scan_chunk(sc, start, end);
		}
		size_t rest = (size_t)(buf + have - end);
		if (pp) {
			/* The unfinished line moves to the next slot, and this
			 * one goes on (to the scanners or the builder). */
			struct slot *next = pipe_acquire(pp, ++k);
			slot_reserve(next, cap > rest ? cap : rest + 1);
			memcpy(next->buf, end, rest);
			pipe_publish(pp);
			cur = next;
		} else {
			memmove(buf, end, rest);
			/* A big first buffer for a big file; a small file keeps
			 * its small one. */
			if (cap < CHUNK_BYTES && !eof && rest == cap)
				slot_reserve(cur, CHUNK_BYTES);
		}
		have = rest;
	}
out:
	sc->slot = NULL;
	if (pp)
		pipe_finish(pp);
	slot_free(&single, 0);
	if (par) {
		sc->nl = sc->line_base + pending_nl;
		sc->line_base = 0;
	}
	if (read_errno)
		log_diag(sc, true, 0, "cannot read: %s", strerror(read_errno));
	if (ok)
		run_set_line_count(sc->r, sc->nl + (last != '\n' ? 1 : 0));
	return ok;
}

const char *const *parser_series_columns(const struct parser *p, const char *name,
					 size_t *ncols)
{
	if (p->format != FMT_TEXT)
		return NULL;
	for (size_t i = 0; i < p->nseries; i++)
		if (strcmp(p->series[i].name, name) == 0) {
			*ncols = p->series[i].ncols;
			return (const char *const *)p->series[i].cols;
		}
	return NULL;
}

struct run *parser_run(const struct parser *p, const char *path, const char *shown,
		       const char *run_name, struct diag *d)
{
	return parser_run_sink(p, path, shown, run_name, NULL, d);
}

struct run *parser_run_sink(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct row_sink *sink, struct diag *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s",
			   S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
		close(fd);
		return NULL;
	}
	struct run *r = run_new(run_name, shown, p->name);
	struct scan sc;
	scan_init(&sc, p, r, d, shown);
	sc.quote = st.st_size <= QUOTE_LIMIT;
	for (size_t i = 0; sink && i < p->nseries; i++)
		if (strcmp(p->series[i].name, sink->series) == 0)
			sc.ss[i].sink = sink;
	bool ok;
	if (p->format == FMT_TEXT) {
		ok = scan_file(&sc, fd, st.st_size);
		if (ok && sc.more.on)
			more_end(&sc); /* the file ended the row */
	} else {
		/* The structured readers want the whole text; check it is
		 * text first, with the same words as for a log. */
		char probe[4096];
		ssize_t n;
		do
			n = read(fd, probe, sizeof probe);
		while (n < 0 && errno == EINTR);
		ok = n > 0;
		if (n < 0)
			log_diag(&sc, true, 0, "cannot read: %s", strerror(errno));
		else if (n == 0)
			log_diag(&sc, true, 0, "empty file");
		else if (memchr(probe, '\0', (size_t)n)) {
			log_diag(&sc, true, 0, "binary file (a NUL byte on line %ld); parsers read text",
				 count_nl(probe, (const char *)memchr(probe, '\0', (size_t)n)) + 1);
			ok = false;
		}
		if (ok) {
			ok = p->format == FMT_JSON   ? structured_read_json(r, path, shown, d)
			     : p->format == FMT_YAML ? structured_read_yaml(r, path, shown, d)
						     : structured_read_csv(r, path, shown, d);
		}
		if (ok && run_line_count(r) == 0 && lseek(fd, 0, SEEK_SET) == 0) {
			long lines;
			char buf[65536];
			if (fd_count_lines(fd, buf, sizeof buf, &lines, NULL))
				run_set_line_count(r, lines);
		}
	}
	close(fd);
	for (size_t i = 0; ok && i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		long first;
		size_t dropped = series_dropped(s, &first);
		if (dropped) {
			diag_error(d, loc_line(shown, (int)first),
				   "series '%s' has more than %lu rows: %zu more were not read (%s)",
				   series_name(s), limit_get(LIMIT_SERIES_ROWS), dropped,
				   limit_hint(LIMIT_SERIES_ROWS));
			ok = false;
		}
	}
	if (!ok || sc.failed) {
		scan_free(&sc);
		run_free(r);
		return NULL;
	}
	bool complete = p->format == FMT_TEXT ? finish_fields(&sc) : true;
	if (p->format == FMT_TEXT && sc.hits == 0 && sc.nacts > 0)
		log_diag(&sc, false, 0, "parser '%s' matched nothing in %s", p->name, shown);
	scan_free(&sc);
	derive_all(p, r, complete, d);
	return r;
}
