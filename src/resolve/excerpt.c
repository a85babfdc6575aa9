/* excerpt.c: the {log} directive (SPEC section 6): lines of a run's log,
 * resolved to a list of lines (directive.h) that render/html.c and the
 * PDF show.
 *
 * A {log} streams the run's file line by line (a log may be far bigger
 * than memory), holding only the `context` lines before the current
 * one.  Lines are read as the parsers read them (base/crline.h: the CRs
 * a line ends in dropped, a line redrawn with CRs taken as its last
 * segment) and matched as they match (data/re.h); the page escapes them
 * as provenance.c escapes a log page. */
#include "resolve/directive.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crline.h"
#include "base/linereader.h"
#include "body.h"
#include "data/re.h"
#include "data/keys.h"
#include "resolve/provenance.h"
#include "data/run.h"
#include "base/util.h"
#include "parse/notebook.h"

#define ELLIPSIS "\xE2\x80\xA6"    /* U+2026 */

#define DEFAULT_MAX_LINES 40

static const char *const log_keys[] = {"from",      "match", "lines", "context",
				       "max_lines", "label", NULL};

/* One line kept for the context before a match. */
struct held {
	char *text;
	size_t len;
	size_t cap;
	long no;
};

/* The excerpt being written. */
struct excerpt {
	struct directive_ctx *c;
	struct directive_result *r; /* the lines shown go to r->lines */
	const char *file;
	long last;   /* the last line shown; 0 before the first */
	long shown;
	long max;    /* lines shown at most; 0: no limit */
	bool cut;    /* max reached: nothing more is shown */
	long more;   /* what was left out: lines (lines:) or matches (match:) */
	const struct notebook *nb; /* the run's file is a notebook: its log */
	int cell;                  /* the cell of the last line shown */
	struct held *ring; /* the context before the current line */
	size_t nring;
	size_t ring_cap;
	size_t ring_head;
};

/* A line of the excerpt (no 0: a gap) into the result. */
static void log_capture(struct excerpt *x, long no, const char *s, size_t n, bool hit, bool cut)
{
	struct directive_result *r = x->r;
	r->lines = xrealloc(r->lines, (r->nlines + 1) * sizeof *r->lines);
	struct directive_line *l = &r->lines[r->nlines++];
	l->no = no;
	l->shown_no = no;
	/* the bytes as they are: a NUL in a log shows as a symbol */
	l->text = xmalloc(n + 1);
	memcpy(l->text, s, n);
	l->text[n] = '\0';
	l->len = n;
	l->href = NULL;
	l->hit = hit;
	l->cut = cut;
	if (no > 0) {
		struct buf href = BUF_INIT;
		provenance_href(x->c->prov, &href, x->file, no);
		l->href = buf_detach(&href);
	}
}

/* Shows line `no`; false when the excerpt is already full. */
static bool excerpt_line(struct excerpt *x, long no, const char *s, size_t n, bool hit)
{
	if (x->cut || (x->max > 0 && x->shown >= x->max)) {
		x->cut = true;
		return false;
	}
	if (x->last && no > x->last + 1)
		log_capture(x, 0, ELLIPSIS, strlen(ELLIPSIS), false, false);
	const struct nb_span *sp = x->nb ? notebook_span(x->nb, no) : NULL;
	if (sp && sp->cell != x->cell) {
		/* A notebook's lines are numbered in their cell, named first. */
		char *head = sp->exec > 0 ? xasprintf("cell %d · In [%ld]", sp->cell, sp->exec)
					  : xasprintf("cell %d", sp->cell);
		log_capture(x, 0, head, strlen(head), false, false);
		free(head);
		x->cell = sp->cell;
	}
	/* A long line is cut as on the log page (at a character start):
	 * one 100 MB line must not make a 100 MB report. */
	bool cut = n > PROVENANCE_LINE_MAX;
	if (cut) {
		n = PROVENANCE_LINE_MAX;
		for (int k = 0; k < 3 && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; k++)
			n--;
	}
	log_capture(x, no, s, n, hit, cut);
	if (sp)
		x->r->lines[x->r->nlines - 1].shown_no = no - sp->first + 1;
	x->last = no;
	x->shown++;
	return true;
}

static void ring_push(struct excerpt *x, long no, const char *s, size_t n)
{
	if (!x->ring_cap)
		return;
	struct held *h;
	if (x->nring < x->ring_cap) {
		h = &x->ring[(x->ring_head + x->nring++) % x->ring_cap];
	} else {
		h = &x->ring[x->ring_head];
		x->ring_head = (x->ring_head + 1) % x->ring_cap;
	}
	if (h->cap < n + 1) {
		h->cap = n + 1;
		h->text = xrealloc(h->text, h->cap);
	}
	memcpy(h->text, s, n);
	h->len = n;
	h->no = no;
}

/* Shows the held lines, oldest first, and forgets them. */
static void ring_flush(struct excerpt *x)
{
	for (size_t i = 0; i < x->nring; i++) {
		struct held *h = &x->ring[(x->ring_head + i) % x->ring_cap];
		if (h->no > x->last)
			excerpt_line(x, h->no, h->text, h->len, false);
	}
	x->nring = 0;
	x->ring_head = 0;
}

/* "lines: 40-55" or "lines: 40" into [*a, *b]; false after an error. */
static bool parse_lines(struct diag *d, const struct value *v, long *a, long *b)
{
	const char *what = "a line number or a range of lines A-B with 1 <= A <= B (40-55)";
	if (v->kind == VALUE_NUMBER) {
		if (v->number >= 1 && v->number <= 1e15 && v->number == floor(v->number)) {
			*a = *b = (long)v->number;
			return true;
		}
		bad_value(d, v, "lines", what);
		return false;
	}
	if (v->kind != VALUE_STRING) {
		bad_value(d, v, "lines", what);
		return false;
	}
	const char *s = v->text;
	long n[2] = {0, 0};
	int got = 0;
	for (int k = 0; k < 2; k++) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s < '0' || *s > '9')
			break;
		while (*s >= '0' && *s <= '9' && n[k] < 1000000000000000L)
			n[k] = n[k] * 10 + (*s++ - '0');
		got++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (k == 0 && *s == '-')
			s++;
		else
			break;
	}
	if (*s || got != 2 || n[0] < 1 || n[1] < n[0]) {
		bad_value(d, v, "lines", what);
		return false;
	}
	*a = n[0];
	*b = n[1];
	return true;
}

/* The run that from: names; NULL after an error. */
static const struct run *log_from(struct directive_ctx *c, const struct value *v)
{
	if (!is_text(v)) {
		diag_error(c->d, v->loc, "from must name a run, not %s", value_kind_name(v->kind));
		return NULL;
	}
	const struct run *r = find_run(c, v->text);
	if (r)
		return r;
	long set = find_set(c, v->text);
	if (set >= 0) {
		if (c->set_counts[set])
			diag_error(c->d, v->loc,
				   "'%s' is a run set: {log} quotes one run, such as '%s'", v->text,
				   run_name(c->set_runs[set][0]));
		else
			diag_error(c->d, v->loc, "'%s' is a run set: {log} quotes one run",
				   v->text);
		return NULL;
	}
	unknown_run(c, v->loc, v->text, false);
	return NULL;
}

static pcre2_code *log_pattern(struct diag *d, const struct value *v, bool *jit)
{
	if (!is_text(v)) {
		diag_error(d, v->loc, "match must be a pattern, not %s", value_kind_name(v->kind));
		return NULL;
	}
	char msg[256];
	size_t off;
	/* Bytes, as the parsers match: invalid UTF-8 in a log is no error. */
	pcre2_code *re = re_compile(v->text, v->len, jit, msg, sizeof msg, &off);
	if (!re)
		diag_error(d, scalar_at(v, off, 1), "bad pattern: %s (at offset %zu in the pattern)",
			   msg, off);
	return re;
}

/* What a {log} asks for, checked. */
struct log_req {
	const struct run *run;
	const struct value *from_v, *match_v, *lines_v;
	pcre2_code *re;
	bool jit;         /* re_compile() JIT-compiled re */
	long first, last; /* lines: */
	long context;
	long max;         /* 0: no limit */
};

/* A log is read in chunks of this size: a line that fits comes whole, a
 * longer one as its first PROVENANCE_LINE_MAX + 1 bytes (the one more
 * lets excerpt_line() see the cut), so that memory stays at the chunk
 * whatever the log holds. */
#define LOG_CHUNK ((size_t)1 << 20)

/* Reads the log and writes the excerpt into x; false after an error. */
static bool log_excerpt(struct directive_ctx *c, const struct log_req *q, struct excerpt *x)
{
	struct notebook nb = {0};
	bool is_nb = notebook_is(x->file);
	if (is_nb && !notebook_load(x->file, x->file, &nb, c->d)) {
		notebook_free(&nb);
		return false;
	}
	x->nb = is_nb ? &nb : NULL;
	int fd = is_nb ? notebook_fd(&nb) : open(x->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		notebook_free(&nb);
		diag_error(c->d, q->from_v->loc, "cannot read %s: %s", x->file, strerror(errno));
		return false;
	}
	bool ok = true;
	/* The budget of a {log} match is the one a parser's pattern gets
	 * on one line. */
	struct re_matcher m = {0};
	if (q->re)
		re_matcher_init(&m, 0, re_line_limit());
	struct linereader rd;
	linereader_init(&rd, fd, LOG_CHUNK);
	const char *line;
	size_t got;
	unsigned long long left;
	int more_lines;
	long no = 0, matches = 0, after = 0;
	while ((more_lines = linereader_next(&rd, SIZE_MAX, &line, &got, &left)) == 1) {
		no++;
		if (got + left >= LOG_CHUNK)
			got = PROVENANCE_LINE_MAX + 1;
		const char *s = line, *e = line + got;
		crline_view(&s, &e, false);
		size_t n = (size_t)(e - s);
		if (!q->re) {
			/* With context, the range grows by that much each way
			 * and the lines asked for are highlighted. */
			if (no + q->context < q->first)
				continue;
			bool hit = q->context > 0 && no >= q->first && no <= q->last;
			if (!excerpt_line(x, no, s, n, hit))
				x->more++;
			if (no >= q->last + q->context)
				break;
			continue;
		}
		int rc = re_match(q->re, q->jit, s, n, 0, m.md, m.mctx);
		if (rc < 0) {
			char hint[RE_HINT_SIZE];
			diag_error(c->d, q->match_v->loc,
				   "the pattern hits %s on line %ld of %s: make it simpler%s",
				   re_error(rc), no, x->file, re_hint(rc, hint, sizeof hint));
			ok = false;
			break;
		}
		if (rc == 1) {
			matches++;
			ring_flush(x);
			if (!excerpt_line(x, no, s, n, true))
				x->more++;
			after = q->context;
		} else if (after > 0) {
			excerpt_line(x, no, s, n, false);
			after--;
		} else if (!x->cut) {
			ring_push(x, no, s, n);
		}
	}
	if (ok && more_lines < 0) {
		diag_error(c->d, q->from_v->loc, "cannot read %s: %s", x->file, strerror(errno));
		ok = false;
	}
	linereader_free(&rd);
	close(fd);
	x->nb = NULL;
	notebook_free(&nb);
	if (q->re)
		re_matcher_free(&m);
	if (!ok)
		return false;
	if (!q->re && no < q->last) {
		if (q->first == q->last)
			diag_error(c->d, q->lines_v->loc, "line %ld is past the end of %s (%ld lines)",
				   q->first, x->file, no);
		else
			diag_error(c->d, q->lines_v->loc,
				   "lines %ld-%ld go past the end of %s (%ld lines)", q->first,
				   q->last, x->file, no);
		return false;
	}
	if (q->re && matches == 0) {
		diag_error(c->d, q->match_v->loc, "the pattern matches no line of %s (%ld lines)",
			   x->file, no);
		return false;
	}
	if (x->more > 0) {
		char *gap = xasprintf(ELLIPSIS " %ld more %s%s", x->more,
				      q->re ? "matching line" : "line", x->more == 1 ? "" : "s");
		log_capture(x, 0, gap, strlen(gap), false, false);
		free(gap);
	}
	return true;
}

bool directive_log(struct directive_ctx *c, const struct value *body,
		   struct directive_result *out)
{
	if (!body || body->kind != VALUE_MAP) {
		struct loc at = body ? body->loc : loc_line(NULL, 0);
		diag_error(c->d, at, "the body of {log} is a YAML map of settings (key: value)");
		return false;
	}
	bool ok = true;
	struct log_req q = {.max = -1};
	for (size_t i = 0; i < body->count; i++) {
		const char *key = body->keys[i];
		const struct value *v = body->items[i];
		if (!keys_check_one(body, i, log_keys, "in {log}", NULL, c->d)) {
			ok = false;
		} else if (strcmp(key, "from") == 0) {
			q.from_v = v;
			q.run = log_from(c, v);
			ok = ok && q.run;
		} else if (strcmp(key, "match") == 0) {
			q.match_v = v;
			q.re = log_pattern(c->d, v, &q.jit);
			ok = ok && q.re;
		} else if (strcmp(key, "lines") == 0) {
			q.lines_v = v;
			ok = parse_lines(c->d, v, &q.first, &q.last) && ok;
		} else if (strcmp(key, "context") == 0) {
			ok = want_count(c->d, v, "context", 0, &q.context) && ok;
		} else if (strcmp(key, "max_lines") == 0) {
			ok = want_count(c->d, v, "max_lines", 1, &q.max) && ok;
		}
		if (q.match_v && q.lines_v && (v == q.match_v || v == q.lines_v)) {
			diag_error(c->d, body->key_locs[i], "{log} takes match or lines, not both");
			ok = false;
		}
	}
	if (!q.from_v) {
		diag_error(c->d, body->loc, "{log} needs from: the run whose log to quote");
		ok = false;
	}
	if (!q.match_v && !q.lines_v) {
		diag_error(c->d, body->loc,
			   "{log} needs match: (a pattern) or lines: (a range such as 40-55)");
		ok = false;
	}
	if (!ok) {
		pcre2_code_free(q.re);
		return false;
	}
	/* A range says which lines it wants; only a pattern has a default
	 * cap, since it may match thousands. */
	if (q.max < 0)
		q.max = q.re ? DEFAULT_MAX_LINES : 0;

	struct excerpt x = {.c = c, .r = out, .file = run_file(q.run), .max = q.max};
	/* Lines held back for a match to come: no more than the excerpt
	 * can show (a pattern always has a cap). */
	x.ring_cap = q.re ? (size_t)(q.context > q.max ? q.max : q.context) : 0;
	x.ring = xcalloc(x.ring_cap + 1, sizeof *x.ring);
	provenance_use(c->prov, x.file);
	ok = log_excerpt(c, &q, &x);
	if (ok) {
		out->kind = DIRECTIVE_LOG;
		out->ok = true;
		const struct value *label = value_get(body, "label");
		if (label && label->kind == VALUE_STRING)
			out->label = xstrdup(label->text);
	}
	for (size_t i = 0; i < x.ring_cap; i++)
		free(x.ring[i].text);
	free(x.ring);
	pcre2_code_free(q.re);
	return ok;
}

