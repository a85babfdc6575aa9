/* diag.c: compiler-style diagnostics with the source line and a caret. */
#define _GNU_SOURCE /* open_memstream() */
#include "base/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/json.h"
#include "base/utf8.h"
#include "base/util.h"

struct source {
	char *file;
	uint64_t hash; /* str_hash(file) */
	const char *text; /* borrowed, or owned when owned is set */
	size_t len;
	bool owned;
	bool missing; /* could not be read: quote nothing */
	/* Where the last line quoted starts: diagnostics come mostly in
	 * order, so finding the next line scans on from there (100,000
	 * errors in a 200,000-line file would otherwise rescan it each). */
	int at_line; /* 0: none yet */
	size_t at_off;
};

/* A diagnostic a deferred sink keeps until diag_flush(). */
struct event {
	int sev;
	char *file;
	int line, col, len;
	char *msg;
	char *quote; /* the quoted line, or NULL */
	size_t quote_len;
	bool quote_borrowed; /* points into a source (diag_new_deferred_borrowing()) */
	/* the quote is the part of a long line it shows (cut_quote()): the
	 * line's bytes from quote_skip on, more of them after when
	 * quote_more */
	size_t quote_skip;
	bool quote_more;
};

struct diag {
	FILE *out;
	enum diag_format format;
	bool colour;
	bool strict;
	size_t errors;
	size_t warnings;
	struct source *sources;
	size_t nsources, sources_cap;
	/* the sources by file name: a hash table (linear probing) of their
	 * indexes + 1, 0 for none; nslots a power of two, at most half used */
	size_t *slots;
	size_t nslots;
	const struct diag *parent; /* a deferred sink: events go to parent */
	bool borrow;               /* quotes point into the sources */
	bool apart;                /* reads no parent's sources (diag_new_apart()) */
	struct event *events;
	size_t nevents;
};

enum severity { SEV_ERROR, SEV_WARNING, SEV_NOTE };

static const char *const sev_name[] = {"error", "warning", "note"};
static const char *const sev_colour[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};

struct diag *diag_new(FILE *out, enum diag_format format, bool colour)
{
	struct diag *d = xcalloc(1, sizeof *d);
	d->out = out ? out : stderr;
	d->format = format;
	d->colour = colour && format == DIAG_TEXT;
	return d;
}

struct diag *diag_new_deferred(const struct diag *parent)
{
	struct diag *d = xcalloc(1, sizeof *d);
	d->out = parent->out;
	d->format = parent->format;
	d->colour = parent->colour;
	d->strict = parent->strict;
	d->parent = parent;
	return d;
}

struct diag *diag_new_apart(const struct diag *parent)
{
	struct diag *d = diag_new_deferred(parent);
	d->apart = true;
	return d;
}

struct diag *diag_new_deferred_borrowing(const struct diag *parent)
{
	struct diag *d = diag_new_deferred(parent);
	d->borrow = true;
	return d;
}

static void event_release(struct event *e)
{
	free(e->file);
	free(e->msg);
	if (!e->quote_borrowed)
		free(e->quote);
}

static void source_release(struct source *s)
{
	free(s->file);
	if (s->owned)
		free((char *)s->text);
}

void diag_free(struct diag *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nsources; i++)
		source_release(&d->sources[i]);
	free(d->sources);
	free(d->slots);
	for (size_t i = 0; i < d->nevents; i++)
		event_release(&d->events[i]);
	free(d->events);
	free(d);
}

bool diag_want_colour(int fd)
{
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	return isatty(fd) == 1;
}

void diag_set_strict(struct diag *d, bool strict)
{
	d->strict = strict;
}

/* A build of 10,000 reports adds, looks up and forgets its sources
 * 10,000 times each: a hash table, not a walk of them all each time
 * (50 million compares, and an array copied on every addition). */
static size_t slot_of(const struct diag *d, const char *file, uint64_t h)
{
	size_t mask = d->nslots - 1, i = (size_t)h & mask;
	for (; d->slots[i]; i = (i + 1) & mask) {
		const struct source *s = &d->sources[d->slots[i] - 1];
		if (s->hash == h && strcmp(s->file, file) == 0)
			break;
	}
	return i;
}

static struct source *find_source(struct diag *d, const char *file)
{
	if (!d->nslots)
		return NULL;
	size_t i = slot_of(d, file, str_hash(file));
	return d->slots[i] ? &d->sources[d->slots[i] - 1] : NULL;
}

static void slots_rebuild(struct diag *d, size_t nslots)
{
	free(d->slots);
	d->slots = xcalloc(nslots, sizeof *d->slots);
	d->nslots = nslots;
	for (size_t k = 0; k < d->nsources; k++) {
		size_t i = (size_t)d->sources[k].hash & (nslots - 1);
		while (d->slots[i])
			i = (i + 1) & (nslots - 1);
		d->slots[i] = k + 1;
	}
}

static struct source *push_source(struct diag *d, const char *file)
{
	if (d->nsources == d->sources_cap) {
		d->sources_cap = d->sources_cap ? 2 * d->sources_cap : 16;
		d->sources = xrealloc(d->sources, d->sources_cap * sizeof *d->sources);
	}
	struct source *s = &d->sources[d->nsources++];
	memset(s, 0, sizeof *s);
	s->file = xstrdup(file);
	s->hash = str_hash(file);
	if (2 * d->nsources > d->nslots) {
		slots_rebuild(d, d->nslots ? 2 * d->nslots : 64);
	} else {
		size_t i = slot_of(d, s->file, s->hash);
		d->slots[i] = d->nsources;
	}
	return s;
}

/* Empties slot i, moving the entries after it that may move back
 * (deletion in linear probing, without markers). */
static void slot_clear(struct diag *d, size_t i)
{
	size_t mask = d->nslots - 1;
	for (size_t j = (i + 1) & mask; d->slots[j]; j = (j + 1) & mask) {
		size_t home = (size_t)d->sources[d->slots[j] - 1].hash & mask;
		/* the entry at j stays when its home lies in (i, j], cyclically */
		bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!stays) {
			d->slots[i] = d->slots[j];
			i = j;
		}
	}
	d->slots[i] = 0;
}

/* The slot holding source k. */
static size_t slot_at(const struct diag *d, size_t k)
{
	size_t mask = d->nslots - 1, i = (size_t)d->sources[k].hash & mask;
	while (d->slots[i] != k + 1)
		i = (i + 1) & mask;
	return i;
}

void diag_add_source(struct diag *d, const char *file, const char *text, size_t len)
{
	struct source *s = find_source(d, file);
	if (s) {
		if (s->owned)
			free((char *)s->text);
		s->at_line = 0;
	} else {
		s = push_source(d, file);
	}
	s->text = text;
	s->len = len;
	s->owned = false;
	/* NULL: a file too big to hold, whose lines are not quoted */
	s->missing = text == NULL;
}

void diag_forget_source(struct diag *d, const char *file)
{
	struct source *s = find_source(d, file);
	if (!s)
		return;
	size_t k = (size_t)(s - d->sources), last = d->nsources - 1;
	slot_clear(d, slot_at(d, k));
	if (k != last) /* the last source takes its place */
		d->slots[slot_at(d, last)] = k + 1;
	source_release(s);
	*s = d->sources[last];
	d->nsources--;
}

static bool line_of(const char *text, const char *end, int line, int *at_line, size_t *at_off,
		    struct span *out);

/* The text of line `line` (1-based) of file, without its line ending. */
static bool source_line(struct diag *d, const char *file, int line, struct span *out)
{
	if (!file || line <= 0)
		return false;
	struct source *s = find_source(d, file);
	/* A deferred sink reads its parent's sources, never changing them. */
	for (const struct diag *p = d->apart ? NULL : d->parent; !s && p; p = p->parent) {
		const struct source *ps = find_source((struct diag *)p, file);
		if (ps && !ps->missing) {
			/* borrowed, with a cursor of our own: lines looked up
			 * in order stay linear */
			s = push_source(d, file);
			s->text = ps->text;
			s->len = ps->len;
			s->owned = false;
		}
	}
	if (!s) {
		s = push_source(d, file);
		struct buf b = BUF_INIT;
		if (file_read(file, &b, NULL)) {
			s->len = b.len;
			s->text = buf_detach(&b);
			s->owned = true;
		} else {
			buf_free(&b);
			s->missing = true;
		}
	}
	if (s->missing)
		return false;
	return line_of(s->text, s->text + s->len, line, &s->at_line, &s->at_off, out);
}

/* Line `line` of [text, end) into *out.  *at_line and *at_off (may be
 * NULL) remember where the last line looked up starts, so that looking
 * up lines mostly in order scans on from there. */
static bool line_of(const char *text, const char *end, int line, int *at_line, size_t *at_off,
		    struct span *out)
{
	const char *p = text;
	int n = 1;
	if (at_line && *at_line > 0 && *at_line <= line) {
		n = *at_line;
		p += *at_off;
	}
	for (; n < line; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		p = nl + 1;
	}
	if (at_line) {
		*at_line = line;
		*at_off = (size_t)(p - text);
	}
	/* A byte-order mark is invisible in an editor: columns skip it. */
	if (line == 1 && end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	if (e > p && e[-1] == '\r')
		e--;
	out->p = p;
	out->len = (size_t)(e - p);
	return true;
}

/* GitHub's workflow commands need %, CR and LF escaped in the message
 * (and ':' and ',' in a property).  Other control characters (C1 ones
 * too), from a file's name or a log line, become '?' as on a terminal
 * (a log's escape sequences would reach the job's log), and invalid
 * UTF-8 U+FFFD. */
void diag_put_github(FILE *out, const char *s, bool property)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c >= 0x80) {
			unsigned long cp = 0;
			size_t len = utf8_decode(p + i, n - i, NULL, &cp);
			if (len == 0) {
				fputs("\xEF\xBF\xBD", out); /* a stray byte */
				i++;
			} else if (cp <= 0x9F) {
				fputc('?', out); /* a C1 control: 0x9B is CSI */
				i += len;
			} else {
				fwrite(p + i, 1, len, out);
				i += len;
			}
			continue;
		}
		if (c == '%')
			fputs("%25", out);
		else if (c == '\r')
			fputs("%0D", out);
		else if (c == '\n')
			fputs("%0A", out);
		else if (property && c == ':')
			fputs("%3A", out);
		else if (property && c == ',')
			fputs("%2C", out);
		else if (c < 0x20 || c == 0x7F)
			fputc('?', out);
		else
			fputc(c, out);
		i++;
	}
}

/* A quoted line longer than this shows a window around the caret. */
#define QUOTE_WIDTH 160

/* Writes s[0..n) for a terminal: control characters (a log's escape
 * sequences, a stray CR, a C1 control) become '?', so that quoting a
 * hostile file cannot move the cursor, retitle the window or hide
 * text. */
static void put_terminal_text(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9F) {
			/* a C1 control in UTF-8 (U+009B is CSI): one column,
			 * one '?' */
			fputc('?', out);
			i++;
			continue;
		}
		fputc((c < 0x20 && c != '\t') || c == 0x7F ? '?' : (int)c, out);
	}
}

/* The start of the UTF-8 character at or before p[i]. */
static size_t char_start(const char *p, size_t i)
{
	while (i > 0 && ((unsigned char)p[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* A quoted line, or the part of one a long line's quote shows: the
 * line's bytes [skip, skip + len) at p, more of them after when `more`. */
struct quote {
	const char *p;
	size_t len, skip;
	bool more;
};

/* The caret's place in a line of len bytes, for a column (0: none). */
static size_t caret_of(int col, size_t len)
{
	size_t caret = col > 0 ? (size_t)col - 1 : 0;
	return caret > len ? len : caret;
}

/* The bytes [*from, *to) of line (p, len) that a quote with the caret
 * at `caret` shows: a long line (a minified file, a log with no
 * newlines) from a little before the caret to a little after. */
static void quote_window(const char *p, size_t len, size_t caret, size_t *from, size_t *to)
{
	*from = 0;
	*to = len;
	if (len > QUOTE_WIDTH) {
		*from = caret > QUOTE_WIDTH / 2 ? char_start(p, caret - QUOTE_WIDTH / 2) : 0;
		*to = *from + QUOTE_WIDTH < len ? char_start(p, *from + QUOTE_WIDTH) : len;
		if (*to < caret)
			*to = caret;
	}
}

/* Quotes line at.line (given as q, or looked up when q is NULL). */
static void print_quote(struct diag *d, FILE *o, struct loc at, const struct quote *q)
{
	struct quote line;
	if (q) {
		line = *q;
	} else {
		struct span whole;
		if (!source_line(d, at.file, at.line, &whole))
			return;
		line = (struct quote){whole.p, whole.len, 0, false};
	}
	/* the line's byte i is p[i - skip] */
	size_t caret, from, to;
	if (line.skip == 0 && !line.more) {
		caret = caret_of(at.col, line.len);
		quote_window(line.p, line.len, caret, &from, &to);
	} else {
		/* cut to its window already (cut_quote()) */
		from = line.skip;
		to = line.skip + line.len;
		caret = caret_of(at.col, to);
	}
	const char *p = line.p + (from - line.skip); /* the line's byte `from` */
	const char *pre = from > 0 ? "..." : "";
	fprintf(o, "%5d | %s", at.line, pre);
	put_terminal_text(o, p, to - from);
	fputs(to < line.skip + line.len || line.more ? "...\n" : "\n", o);
	if (at.col <= 0)
		return;
	/* Pad to the caret with the line's own tabs, and one space per
	 * UTF-8 character, so the caret lines up in a terminal. */
	fprintf(o, "      | %s", from > 0 ? "   " : "");
	for (size_t i = from; i < caret; i++) {
		unsigned char c = (unsigned char)p[i - from];
		if ((c & 0xC0) == 0x80)
			continue;
		fputc(c == '\t' ? '\t' : ' ', o);
	}
	if (d->colour)
		fputs("\033[1;32m", o);
	fputc('^', o);
	/* One mark per character of the span, as for the padding: a span
	 * past the window's end runs on under its "..." */
	size_t end = caret + (size_t)(at.len > 1 ? at.len : 1), over = 0;
	if (end > to) {
		over = end - to < 3 ? end - to : 3;
		end = to;
	}
	size_t marks = over;
	for (size_t i = caret; i < end; i++)
		marks += ((unsigned char)p[i - from] & 0xC0) != 0x80;
	for (size_t i = 1; i < marks; i++)
		fputc('~', o);
	if (d->colour)
		fputs("\033[0m", o);
	fputc('\n', o);
}

/* Writes one diagnostic (sev already made strict) to d->out, made in
 * memory first and written with one call: stderr is unbuffered, and a
 * byte a call made 10,000 warnings 1.4 million system calls. */
static void write_one(struct diag *d, enum severity sev, struct loc at, const char *text,
		      const struct quote *quote, bool have_quote)
{
	struct buf msg = BUF_INIT;
	buf_puts(&msg, text);
	char *made = NULL;
	size_t made_len = 0;
	FILE *o = open_memstream(&made, &made_len);
	if (!o)
		o = d->out;

	switch (d->format) {
	case DIAG_GITHUB:
		fprintf(o, "::%s", sev == SEV_NOTE ? "notice" : sev_name[sev]);
		if (at.file) {
			fputs(" file=", o);
			diag_put_github(o, at.file, true);
			if (at.line > 0)
				fprintf(o, ",line=%d", at.line);
			if (at.col > 0)
				fprintf(o, ",col=%d", at.col);
		}
		fputs("::", o);
		diag_put_github(o, buf_data(&msg), false);
		fputc('\n', o);
		break;
	case DIAG_JSON:
		fputs("{\"severity\":", o);
		json_put_cstr(o, sev_name[sev]);
		fputs(",\"file\":", o);
		if (at.file)
			json_put_cstr(o, at.file);
		else
			fputs("null", o);
		fprintf(o, ",\"line\":%d,\"col\":%d,\"message\":", at.line, at.col);
		json_put_cstr(o, buf_data(&msg));
		fputs("}\n", o);
		break;
	case DIAG_TEXT:
		if (d->colour)
			fputs("\033[1m", o);
		if (at.file) {
			put_terminal_text(o, at.file, strlen(at.file));
			if (at.line > 0)
				fprintf(o, ":%d", at.line);
			if (at.line > 0 && at.col > 0)
				fprintf(o, ":%d", at.col);
			fputs(": ", o);
		} else {
			fputs("logdown: ", o);
		}
		if (d->colour)
			fprintf(o, "%s%s:\033[0m\033[1m ", sev_colour[sev], sev_name[sev]);
		else
			fprintf(o, "%s: ", sev_name[sev]);
		put_terminal_text(o, buf_data(&msg), msg.len);
		fputs(d->colour ? "\033[0m\n" : "\n", o);
		if (!have_quote || quote)
			print_quote(d, o, at, quote);
		break;
	}
	if (o != d->out) {
		fclose(o);
		fwrite(made, 1, made_len, d->out);
		free(made);
	}
	fflush(d->out);
	buf_free(&msg);
}

static void emit(struct diag *d, enum severity sev, struct loc at, const char *fmt, va_list ap)
{
	if (sev == SEV_WARNING && d->strict)
		sev = SEV_ERROR;
	if (sev == SEV_ERROR)
		d->errors++;
	else if (sev == SEV_WARNING)
		d->warnings++;
	struct buf msg = BUF_INIT;
	buf_vprintf(&msg, fmt, ap);
	if (!d->parent) {
		write_one(d, sev, at, buf_data(&msg), NULL, false);
		buf_free(&msg);
		return;
	}
	/* Deferred: keep it, with the line it quotes, which may be gone by
	 * the time it is written. */
	d->events = xrealloc(d->events, (d->nevents + 1) * sizeof *d->events);
	struct event *e = &d->events[d->nevents++];
	memset(e, 0, sizeof *e);
	e->sev = (int)sev;
	e->file = at.file ? xstrdup(at.file) : NULL;
	e->line = at.line;
	e->col = at.col;
	e->len = at.len;
	e->msg = buf_detach(&msg);
	struct span q;
	if (d->format != DIAG_TEXT || !source_line(d, at.file, at.line, &q))
		return;
	if (d->borrow) {
		/* a line of a 200 MB report is not copied */
		e->quote = (char *)q.p;
		e->quote_len = q.len;
		e->quote_borrowed = true;
	} else {
		e->quote = xmalloc(q.len + 1);
		memcpy(e->quote, q.p, q.len);
		e->quote[q.len] = '\0';
		e->quote_len = q.len;
	}
}

/* A borrowed quote of e copied, and of a long line only the part
 * print_quote() shows: a line of a 200 MB report is not copied. */
static void cut_quote(struct event *e)
{
	size_t from, to;
	quote_window(e->quote, e->quote_len, caret_of(e->col, e->quote_len), &from, &to);
	char *q = xmalloc(to - from + 1);
	memcpy(q, e->quote + from, to - from);
	q[to - from] = '\0';
	e->quote_skip = from;
	e->quote_more = to < e->quote_len;
	e->quote = q;
	e->quote_len = to - from;
	e->quote_borrowed = false;
}

void diag_flush(struct diag *child, struct diag *parent)
{
	if (parent->parent) {
		/* Into a deferred sink: kept there, in order, until it is
		 * flushed in turn (a quote borrowed from a source is copied:
		 * the source may be gone by then). */
		parent->events = xrealloc(parent->events,
					  (parent->nevents + child->nevents + 1) * sizeof *parent->events);
		for (size_t i = 0; i < child->nevents; i++) {
			struct event *e = &child->events[i];
			if (e->sev == SEV_ERROR)
				parent->errors++;
			else if (e->sev == SEV_WARNING)
				parent->warnings++;
			if (e->quote_borrowed)
				cut_quote(e);
			parent->events[parent->nevents++] = *e;
		}
		child->nevents = 0;
		child->errors = child->warnings = 0;
		return;
	}
	for (size_t i = 0; i < child->nevents; i++) {
		struct event *e = &child->events[i];
		struct loc at = {e->file, e->line, e->col, e->len};
		struct quote q = {e->quote, e->quote_len, e->quote_skip, e->quote_more};
		if (e->sev == SEV_ERROR)
			parent->errors++;
		else if (e->sev == SEV_WARNING)
			parent->warnings++;
		write_one(parent, (enum severity)e->sev, at, e->msg, e->quote ? &q : NULL, true);
		event_release(e);
	}
	child->nevents = 0;
	child->errors = child->warnings = 0;
}

void diag_error(struct diag *d, struct loc at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(d, SEV_ERROR, at, fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, struct loc at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(d, SEV_WARNING, at, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag *d, struct loc at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(d, SEV_NOTE, at, fmt, ap);
	va_end(ap);
}

size_t diag_errors(const struct diag *d)
{
	return d->errors;
}

size_t diag_warnings(const struct diag *d)
{
	return d->warnings;
}
