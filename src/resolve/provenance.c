/* provenance.c: the result files a report uses, and their pages.
 *
 * A report registers files as it links to them (provenance_href(),
 * provenance_use()); each file gets a name below the report's logs/
 * folder the first time, and remembers the lines that were linked to.
 * provenance_write() then copies every file and writes its page: all
 * lines for a log of ordinary size, an abridged view for a large one
 * (see provenance.h).  Files are read in chunks, never whole, so a
 * 1 GB log costs a few MiB of memory: one pass counts the lines, a
 * second writes the ones shown. */
#include "resolve/provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve/format.h"
#include "resolve/highlight.h"
#include "base/crline.h"
#include "base/fsutil.h"
#include "base/linereader.h"
#include "base/outdir.h"
#include "base/utf8.h"
#include "base/util.h"
#include "data/cache.h"
#include "parse/notebook.h"
#include "parse/tfevents.h"

/* Reading: a chunk holds many lines, and a whole log of the full-view
 * size, so that a page in full view never cuts a line. */
#define READ_CHUNK (4u << 20)
/* An abridged view cuts its lines at PROVENANCE_LINE_MAX bytes and
 * reads only near the lines it shows (a few hundred KiB from each
 * noted line start): a whole READ_CHUNK read for its first 200 lines
 * was 4 MiB read, and 4 MiB of fresh memory touched, on every build
 * that wrote the page of a big log. */
#define VIEW_CHUNK (256u << 10)
_Static_assert(VIEW_CHUNK > PROVENANCE_LINE_MAX, "an abridged view's line fits its chunk");

/* A string -> index map, open addressing, keys owned. */
struct strmap {
	char **keys;
	size_t *vals;
	size_t cap; /* a power of two, or 0 */
	size_t count;
};

/* A value the report links to inside a line: the text as the file
 * writes it, marked on the page with <mark id="L<line>.<k>">, k
 * counting the different texts linked to on that line (1, 2, ...). */
struct pmark {
	long line;
	char *text;
	size_t len;
	unsigned k;
};

struct pfile {
	char *shown;  /* the file as first given: for diagnostics */
	char *real;   /* canonical; NULL when it could not be resolved */
	char *name;   /* below logs/: "cerebras/bs512.log" */
	bool outside; /* not inside the project: never copied */
	long *lines;  /* lines linked to, unsorted, repeats allowed */
	size_t nlines;
	size_t caplines;
	struct pmark *marks; /* in registration order until the page sorts them */
	size_t nmarks;
	size_t capmarks;
	struct strmap mark_keys;  /* "line\x1ftext" -> index in marks */
	struct strmap line_marks; /* "line" -> the number of marks on it */
	/* A notebook's outputs as a log (parse/notebook.h), read on first
	 * need: its page shows them, by cell. */
	struct notebook *nb;
	bool nb_tried;
};

struct provenance {
	char *report_title; /* for the log pages' titles, or NULL */
	const struct provenance_keeper *keeper; /* or NULL: always copy */
	struct cache *cache;                    /* or NULL: lines counted each time */
	/* the report's folder as given, and canonical once a file asks
	 * (report_real()): most pages copy no file, and a path_resolve()
	 * is a getcwd() and an lstat() a folder on the way */
	char *report_dir;
	char *report_real;
	bool report_resolved;
	char *root_real;
	struct pfile *files;
	size_t nfiles;
	size_t capfiles;
	struct strmap by_given; /* the file as callers write it */
	struct strmap by_real;  /* and canonical: one page per file */
};

static uint64_t hash_str(const char *s)
{
	/* FNV-1a */
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot of key in m: where it is, or the empty slot where it goes. */
static size_t strmap_slot(const struct strmap *m, const char *key)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)hash_str(key) & mask;
	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & mask;
	return i;
}

static bool strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	if (m->cap == 0)
		return false;
	size_t i = strmap_slot(m, key);
	if (!m->keys[i])
		return false;
	*val = m->vals[i];
	return true;
}

/* Adds key (copied), which must not be there yet. */
static void strmap_put(struct strmap *m, const char *key, size_t val)
{
	if (2 * (m->count + 1) > m->cap) {
		/* Half full at most: probes stay short. */
		struct strmap old = *m;
		m->cap = old.cap ? old.cap * 2 : 16;
		m->keys = xcalloc(m->cap, sizeof *m->keys);
		m->vals = xcalloc(m->cap, sizeof *m->vals);
		for (size_t i = 0; i < old.cap; i++) {
			if (!old.keys[i])
				continue;
			size_t j = strmap_slot(m, old.keys[i]);
			m->keys[j] = old.keys[i];
			m->vals[j] = old.vals[i];
		}
		free(old.keys);
		free(old.vals);
	}
	size_t i = strmap_slot(m, key);
	m->keys[i] = xstrdup(key);
	m->vals[i] = val;
	m->count++;
}

static void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
}

struct provenance *provenance_new(const char *report_dir, const char *root_real)
{
	struct provenance *p = xcalloc(1, sizeof *p);
	p->report_dir = report_dir ? xstrdup(report_dir) : NULL;
	p->root_real = root_real ? xstrdup(root_real) : NULL;
	return p;
}

void provenance_set_title(struct provenance *p, const char *title)
{
	free(p->report_title);
	p->report_title = title && *title ? xstrdup(title) : NULL;
}

void provenance_set_keeper(struct provenance *p, const struct provenance_keeper *k)
{
	p->keeper = k;
}

void provenance_set_cache(struct provenance *p, struct cache *c)
{
	p->cache = c;
}

void provenance_free(struct provenance *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].shown);
		free(p->files[i].real);
		free(p->files[i].name);
		free(p->files[i].lines);
		for (size_t m = 0; m < p->files[i].nmarks; m++)
			free(p->files[i].marks[m].text);
		free(p->files[i].marks);
		strmap_free(&p->files[i].mark_keys);
		strmap_free(&p->files[i].line_marks);
		if (p->files[i].nb)
			notebook_free(p->files[i].nb);
		free(p->files[i].nb);
	}
	free(p->files);
	strmap_free(&p->by_given);
	strmap_free(&p->by_real);
	free(p->report_title);
	free(p->report_dir);
	free(p->report_real);
	free(p->root_real);
	free(p);
}

/* True when a is b, or a folder holding b: the two could not both be
 * written. */
static bool path_covers(const char *a, size_t na, const char *b, size_t nb)
{
	return na <= nb && memcmp(a, b, na) == 0 && (na == nb || b[na] == '/');
}

/* True when the outputs of names a and b (the raw copy and its .html)
 * would be the same file, or one a folder the other needs. */
static bool names_clash(const char *a, const char *b)
{
	char *ah = xasprintf("%s.html", a), *bh = xasprintf("%s.html", b);
	const char *as[] = {a, ah}, *bs[] = {b, bh};
	bool clash = false;
	for (size_t i = 0; i < 2 && !clash; i++) {
		for (size_t j = 0; j < 2 && !clash; j++) {
			size_t na = strlen(as[i]), nb = strlen(bs[j]);
			clash = path_covers(as[i], na, bs[j], nb) || path_covers(bs[j], nb, as[i], na);
		}
	}
	free(ah);
	free(bh);
	return clash;
}

static bool name_taken(const struct provenance *p, const char *name)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (names_clash(p->files[i].name, name))
			return true;
	return false;
}

/* name with "~n" before its extension: "cerebras/bs512~2.log". */
static char *name_numbered(const char *name, unsigned n)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - name) : strlen(name);
	return xasprintf("%.*s~%u%s", (int)stem, name, n, name + stem);
}

/* The name of a new file (see provenance.h): below the report's folder
 * its path there, without a leading logs/; elsewhere in the project
 * "_/" and its path from the project root.  A name some other file has
 * taken falls back to the project form, then to numbered forms. */
static const char *report_real(struct provenance *p)
{
	if (!p->report_resolved && p->report_dir)
		p->report_real = path_resolve(p->report_dir);
	p->report_resolved = true;
	return p->report_real;
}

static char *name_for(struct provenance *p, const char *real, const char *given, bool *outside)
{
	const char *in_report = real && report_real(p) ? path_under(real, p->report_real) : NULL;
	const char *in_root = real && p->root_real ? path_under(real, p->root_real) : NULL;
	char *name;
	*outside = false;
	if (in_report && *in_report) {
		if (str_has_prefix(in_report, "logs/") && in_report[5])
			in_report += 5;
		name = xstrdup(in_report);
	} else if (in_root && *in_root) {
		name = xasprintf("_/%s", in_root);
	} else {
		/* Never copied (provenance_write() says why); the name only
		 * keeps links well-formed. */
		const char *slash = strrchr(given, '/');
		name = xasprintf("_/%s", slash && slash[1] ? slash + 1 : given);
		*outside = true;
	}
	if (!name_taken(p, name))
		return name;
	if (in_root && *in_root && !str_has_prefix(name, "_/")) {
		char *alt = xasprintf("_/%s", in_root);
		if (!name_taken(p, alt)) {
			free(name);
			return alt;
		}
		free(alt);
	}
	for (unsigned n = 2;; n++) {
		char *alt = name_numbered(name, n);
		if (!name_taken(p, alt)) {
			free(name);
			return alt;
		}
		free(alt);
	}
}

/* The entry of file, registered on first sight. */
static struct pfile *lookup(struct provenance *p, const char *file)
{
	size_t i;
	if (strmap_get(&p->by_given, file, &i))
		return &p->files[i];
	char *real = path_resolve(file);
	if (real && strmap_get(&p->by_real, real, &i)) {
		/* Another spelling of a file already known. */
		strmap_put(&p->by_given, file, i);
		free(real);
		return &p->files[i];
	}
	if (p->nfiles == p->capfiles) {
		p->capfiles = p->capfiles ? p->capfiles * 2 : 8;
		p->files = xrealloc(p->files, p->capfiles * sizeof *p->files);
	}
	i = p->nfiles;
	struct pfile *f = &p->files[i];
	memset(f, 0, sizeof *f);
	f->shown = xstrdup(file);
	f->name = name_for(p, real, file, &f->outside);
	f->real = real;
	p->nfiles++;
	strmap_put(&p->by_given, file, i);
	if (real)
		strmap_put(&p->by_real, real, i);
	return f;
}

static int cmp_long(const void *pa, const void *pb)
{
	long a = *(const long *)pa, b = *(const long *)pb;
	return (a > b) - (a < b);
}

/* Sorts f's lines and drops repeats. */
static void lines_compact(struct pfile *f)
{
	if (f->nlines < 2)
		return;
	qsort(f->lines, f->nlines, sizeof *f->lines, cmp_long);
	size_t k = 1;
	for (size_t i = 1; i < f->nlines; i++)
		if (f->lines[i] != f->lines[k - 1])
			f->lines[k++] = f->lines[i];
	f->nlines = k;
}

static void add_line(struct pfile *f, long line)
{
	/* A table links many cells to one line: skip the obvious repeat. */
	if (f->nlines && f->lines[f->nlines - 1] == line)
		return;
	if (f->nlines == f->caplines) {
		/* Compact before growing: a report linking the same lines
		 * again and again keeps a small list. */
		lines_compact(f);
		if (f->nlines * 2 >= f->caplines) {
			f->caplines = f->caplines ? f->caplines * 2 : 16;
			f->lines = xrealloc(f->lines, f->caplines * sizeof *f->lines);
		}
	}
	f->lines[f->nlines++] = line;
}

/* Appends s percent-encoded for a URL path: everything but unreserved
 * characters and '/' is %XX, so that a name with spaces, '#', '?' or
 * ':' stays one relative path, and the result needs no HTML escaping. */
static void put_url(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			buf_putc(b, (char)c);
		} else {
			buf_putc(b, '%');
			buf_putc(b, hex[c >> 4]);
			buf_putc(b, hex[c & 15]);
		}
	}
}

/* Appends n in decimal: the line numbers of a log page, where a
 * buf_printf() for each line cost more than escaping the line. */
static void put_long(struct buf *b, long n)
{
	char digits[24];
	size_t i = sizeof digits;
	unsigned long v = n < 0 ? 0UL - (unsigned long)n : (unsigned long)n;
	do {
		digits[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (n < 0)
		digits[--i] = '-';
	buf_put(b, digits + i, sizeof digits - i);
}

void provenance_href(struct provenance *p, struct buf *b, const char *file, long line)
{
	struct pfile *f = lookup(p, file);
	buf_puts(b, "logs/");
	put_url(b, f->name);
	buf_puts(b, ".html");
	if (line > 0) {
		add_line(f, line);
		buf_puts(b, "#L");
		put_long(b, line);
	}
}

void provenance_href_text(struct provenance *p, struct buf *b, const char *file, long line,
			  const char *text, size_t len)
{
	provenance_href(p, b, file, line);
	/* A text over several lines (a message) is no span of one line. */
	if (line <= 0 || !text || len == 0 || memchr(text, '\n', len) || memchr(text, '\0', len))
		return;
	struct pfile *f = lookup(p, file);
	char *key = xasprintf("%ld\x1f%.*s", line, (int)len, text);
	size_t i;
	if (!strmap_get(&f->mark_keys, key, &i)) {
		char *lk = xasprintf("%ld", line);
		size_t count = 0;
		if (strmap_get(&f->line_marks, lk, &count))
			f->line_marks.vals[strmap_slot(&f->line_marks, lk)] = count + 1;
		else
			strmap_put(&f->line_marks, lk, 1);
		free(lk);
		if (f->nmarks == f->capmarks) {
			f->capmarks = f->capmarks ? f->capmarks * 2 : 16;
			f->marks = xrealloc(f->marks, f->capmarks * sizeof *f->marks);
		}
		i = f->nmarks++;
		f->marks[i] = (struct pmark){line, xstrndup(text, len), len, (unsigned)count + 1};
		strmap_put(&f->mark_keys, key, i);
	}
	free(key);
	buf_printf(b, ".%u", f->marks[i].k);
}

/* f's notebook, or NULL when f is not one (or does not read as one:
 * reading its runs said why, and its page then shows the raw JSON). */
static const struct notebook *file_notebook(struct pfile *f)
{
	if (f->nb_tried)
		return f->nb;
	f->nb_tried = true;
	if (!f->real || !notebook_is(f->real))
		return NULL;
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return NULL;
	struct diag *quiet = diag_new(null, DIAG_TEXT, false);
	struct notebook *nb = xmalloc(sizeof *nb);
	if (notebook_load(f->real, f->shown, nb, quiet)) {
		f->nb = nb;
	} else {
		notebook_free(nb);
		free(nb);
	}
	diag_free(quiet);
	fclose(null);
	return f->nb;
}

bool provenance_cell(struct provenance *p, const char *file, long line, int *cell,
		     long *cell_line)
{
	const struct notebook *nb = file_notebook(lookup(p, file));
	return nb && notebook_where(nb, line, cell, cell_line);
}

void provenance_use(struct provenance *p, const char *file)
{
	lookup(p, file);
}

const char *provenance_name(struct provenance *p, const char *file)
{
	return lookup(p, file)->name;
}

/* ------------------------------------------------------------ log text */

/* The length of the escape sequence at p[0] == ESC (n bytes left), as
 * ECMA-48 defines them, or 0 when ESC is all there is.  CSI (colours,
 * cursor moves) runs to its final byte; OSC, DCS and the other string
 * sequences (a terminal title, a hyperlink) to BEL or ESC \; the rest
 * are ESC, intermediates and one final byte.  A sequence cut short by
 * a byte that cannot be in it ends before that byte. */
static size_t escape_len(const unsigned char *p, size_t n)
{
	if (n < 2)
		return 0;
	size_t i = 1;
	unsigned char c = p[1];
	if (c == '[') {
		for (i = 2; i < n && p[i] >= 0x30 && p[i] <= 0x3F; i++)
			;
		for (; i < n && p[i] >= 0x20 && p[i] <= 0x2F; i++)
			;
		if (i < n && p[i] >= 0x40 && p[i] <= 0x7E)
			i++;
		return i;
	}
	if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
		for (i = 2; i < n; i++) {
			if (p[i] == 0x07)
				return i + 1;
			if (p[i] == 0x1B && i + 1 < n && p[i + 1] == '\\')
				return i + 2;
		}
		return n;
	}
	for (; i < n && p[i] >= 0x20 && p[i] <= 0x2F; i++)
		;
	if (i < n && p[i] >= 0x30 && p[i] <= 0x7E)
		return i + 1;
	return i > 1 ? i : 0;
}

/* Appends one line of a log as HTML text: & < > escaped, invalid UTF-8
 * as U+FFFD, terminal escape sequences (colours) dropped, a CR inside
 * the line (a progress bar redrawn) as ␍ and other control characters
 * as their control pictures (␀, ␈, ␛); tabs stay.  C1 controls, which
 * no log means to print, become U+FFFD. */
#define PLAIN_TEXT 1 /* printable ASCII that HTML text shows as it is */
#define PLAIN_ATTR 2 /* and that an attribute value shows as it is */

/* The PLAIN_* bits of every byte: 0x20 to 0x7E but & < > (and " ' in
 * an attribute). */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	3, 3, 1, 3, 3, 3, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 3, 0, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

void provenance_escape(struct buf *b, const char *text, size_t n, bool attr)
{
	const unsigned char *p = (const unsigned char *)text;
	const unsigned char mask = attr ? PLAIN_ATTR : PLAIN_TEXT;
	size_t i = 0;
	while (i < n) {
		/* Plain printable ASCII in one go: most of a log. */
		size_t run = i;
		while (run < n && (plain[p[run]] & mask))
			run++;
		buf_put(b, text + i, run - i);
		i = run;
		if (i == n)
			break;
		unsigned char c = p[i];
		if (c == '&') {
			buf_puts(b, "&amp;");
			i++;
		} else if (c == '<') {
			buf_puts(b, "&lt;");
			i++;
		} else if (c == '>') {
			buf_puts(b, "&gt;");
			i++;
		} else if (c == '"') {
			buf_puts(b, "&quot;");
			i++;
		} else if (c == '\'') {
			buf_puts(b, "&#39;");
			i++;
		} else if (c == '\t') {
			buf_putc(b, '\t');
			i++;
		} else if (c == 0x1B) {
			size_t k = escape_len(p + i, n - i);
			if (k == 0) {
				utf8_put(b, 0x241B);
				k = 1;
			}
			i += k;
		} else if (c < 0x20) {
			utf8_put(b, 0x2400u + c);
			i++;
		} else if (c == 0x7F) {
			utf8_put(b, 0x2421);
			i++;
		} else {
			size_t sub = 0;
			unsigned long cp = 0;
			size_t k = utf8_decode(p + i, n - i, &sub, &cp);
			if (k == 0) {
				utf8_put(b, UTF8_REPLACEMENT);
				i += sub;
			} else if (cp < 0xA0) {
				utf8_put(b, UTF8_REPLACEMENT);
				i += k;
			} else {
				buf_put(b, text + i, k);
				i += k;
			}
		}
	}
}

/* ---------------------------------------------------- log colours */

struct hl_matcher *provenance_log_matcher(void)
{
	bool on_purpose;
	return hl_matcher_new(hl_find("log", &on_purpose));
}

unsigned char *provenance_log_classes(struct hl_matcher *m, const char *text, size_t n)
{
	if (!m || !n)
		return NULL;
	unsigned char *cls = hl_matcher_classes(m, text, n);
	/* A terminal's escape sequence is dropped whole: a number inside
	 * one ("\e[31m") must not cut it in two. */
	for (const char *e = memchr(text, 0x1B, n); e; e = memchr(e, 0x1B, (size_t)(text + n - e))) {
		size_t k = escape_len((const unsigned char *)e, (size_t)(text + n - e));
		if (k == 0)
			k = 1;
		memset(cls + (e - text), HL_NONE, k);
		e += k;
		if (e >= text + n)
			break;
	}
	return cls;
}

void provenance_put_coloured(struct buf *b, const char *text, size_t n, const unsigned char *cls)
{
	if (!cls) {
		provenance_escape(b, text, n, false);
		return;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && cls[j] == cls[i])
			j++;
		if (cls[i]) {
			buf_puts(b, "<span class=\"hl-");
			buf_puts(b, hl_class_name(cls[i]));
			buf_puts(b, "\">");
			provenance_escape(b, text + i, j - i, false);
			buf_puts(b, "</span>");
		} else {
			provenance_escape(b, text + i, j - i, false);
		}
		i = j;
	}
}

void provenance_put_text(struct buf *b, const char *text, size_t n)
{
	/* A CRLF line, or a progress bar's last redraw, ends in CRs that
	 * show nothing. */
	n = (size_t)(crline_end(text, text + n, false) - text);
	provenance_escape(b, text, n, false);
}

/* --------------------------------------------------------------- pages */

/* A span of lines shown, first to last. */
struct range {
	long first;
	long last;
};

static int cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;
	return (a->first > b->first) - (a->first < b->first);
}

/* The lines an abridged view of a log of `total` lines shows, as sorted
 * disjoint ranges with a gap between each two; *n is their count.
 * Linked lines (sorted, unique) get `context` lines around them.
 * Caller frees. */
static struct range *abridged_ranges(long total, const long *linked, size_t nlinked,
				     long context, size_t *n)
{
	struct range *r = xmalloc((nlinked + 2) * sizeof *r);
	size_t k = 0;
	r[k++] = (struct range){1, total < PROVENANCE_HEAD ? total : PROVENANCE_HEAD};
	for (size_t i = 0; i < nlinked; i++) {
		if (linked[i] < 1 || linked[i] > total)
			continue;
		long lo = linked[i] - context, hi = linked[i] + context;
		r[k++] = (struct range){lo < 1 ? 1 : lo, hi > total ? total : hi};
	}
	r[k++] = (struct range){total > PROVENANCE_TAIL ? total - PROVENANCE_TAIL + 1 : 1, total};
	qsort(r, k, sizeof *r, cmp_range);
	/* Merge what overlaps or touches: a gap is at least one line. */
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m > 0 && r[i].first <= r[m - 1].last + 1) {
			if (r[i].last > r[m - 1].last)
				r[m - 1].last = r[i].last;
		} else {
			r[m++] = r[i];
		}
	}
	*n = m;
	return r;
}

static long ranges_lines(const struct range *r, size_t n)
{
	long sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += r[i].last - r[i].first + 1;
	return sum;
}

/* Appends a count with thousands separators: "1,048,576". */
static void put_count(struct buf *b, unsigned long long n)
{
	struct format f = {true, -1, 'd'};
	format_number(b, (double)n, &f);
}

/* Appends a size for people: "812 bytes", "2.0 MiB". */
static void put_size(struct buf *b, unsigned long long bytes)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	if (bytes < 1024) {
		buf_printf(b, "%llu byte%s", bytes, bytes == 1 ? "" : "s");
		return;
	}
	double v = (double)bytes / 1024;
	size_t u = 0;
	while (v >= 1024 && u + 1 < ARRAY_LEN(units)) {
		v /= 1024;
		u++;
	}
	buf_printf(b, "%.1f %s", v, units[u]);
}

static int cmp_mark(const void *pa, const void *pb)
{
	const struct pmark *a = pa, *b = pb;
	if (a->line != b->line)
		return (a->line > b->line) - (a->line < b->line);
	return (a->k > b->k) - (a->k < b->k);
}

/* Whether c may stand beside a value and end it: "Loss=7.125," holds
 * 7.125, "17.1250" and "x7.125" do not. */
static bool word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || (unsigned char)c >= 0x80;
}

/* Where m's text stands in the line s[0..n), looking at the places
 * from..to (to: where the text may end): the first place with no
 * letter, digit or point on either side ("512" is not the start of
 * "512000"), else the first place at all; -1 when it is not there (a
 * value the parser rewrote). */
static long mark_at(const struct pmark *m, const char *s, size_t n, size_t from, size_t to)
{
	long loose = -1;
	if (m->len == 0 || to > n || to < from + m->len)
		return -1;
	for (size_t i = from; i + m->len <= to;) {
		const char *hit = memchr(s + i, m->text[0], to - m->len + 1 - i);
		if (!hit)
			break;
		i = (size_t)(hit - s);
		if (memcmp(s + i, m->text, m->len) == 0) {
			bool before = i == 0 || !word_char(s[i - 1]) || !word_char(m->text[0]);
			bool after = i + m->len == n || !word_char(s[i + m->len]) ||
				     !word_char(m->text[m->len - 1]);
			if (before && after)
				return (long)i;
			if (loose < 0)
				loose = (long)i;
		}
		i++;
	}
	return loose;
}

/* Up to this many values in a line, each is looked for in the whole
 * line; beyond, each within MARK_WINDOW bytes after the one before. */
#define MARKS_SEARCHED_WHOLE 16
#define MARK_WINDOW 4096

/* A mark placed in a line: bytes [at, at + len), or an empty one at
 * the line's start when its text is not there, so that the link still
 * lands on the line. */
struct placed {
	size_t at, len;
	unsigned k;
};

static int cmp_placed(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;
	if (a->at != b->at)
		return (a->at > b->at) - (a->at < b->at);
	return (a->len > b->len) - (a->len < b->len);
}

/* Appends the text of a line with its marks: each value the report
 * links to in <mark class="ld-mark" id="L<no>.<k>">, escaped as
 * provenance_escape() does. */
static void put_marked(struct buf *b, long no, const char *text, size_t n,
		       const unsigned char *cls, const struct pmark *marks, size_t nmarks)
{
	struct placed *pl = xmalloc(nmarks * sizeof *pl);
	size_t np = 0;
	/* A line of a few values: each is looked for in the whole line.
	 * A line of many (a JSON file on one line): each after the one
	 * before, in the order the parser read them, within a window, so
	 * that the line costs its length, not its length times its
	 * values; one not found there anchors at the line's start. */
	bool few = nmarks <= MARKS_SEARCHED_WHOLE;
	size_t cursor = 0;
	for (size_t i = 0; i < nmarks; i++) {
		size_t len = marks[i].len;
		long at;
		if (few) {
			at = mark_at(&marks[i], text, n, 0, n);
			/* Two values overlapping (one text inside another's):
			 * the later one only anchors. */
			for (size_t j = 0; at >= 0 && j < np; j++)
				if ((size_t)at < pl[j].at + pl[j].len && pl[j].at < (size_t)at + len)
					at = -1;
		} else {
			size_t to = n - cursor > MARK_WINDOW + len ? cursor + MARK_WINDOW + len : n;
			at = mark_at(&marks[i], text, n, cursor, to);
			if (at >= 0)
				cursor = (size_t)at + len;
		}
		if (at < 0) {
			at = 0;
			len = 0;
		}
		pl[np++] = (struct placed){(size_t)at, len, marks[i].k};
	}
	qsort(pl, np, sizeof *pl, cmp_placed);
	size_t from = 0;
	for (size_t i = 0; i < np; i++) {
		provenance_put_coloured(b, text + from, pl[i].at - from, cls ? cls + from : NULL);
		buf_puts(b, "<mark class=\"ld-mark\" id=\"L");
		put_long(b, no);
		buf_printf(b, ".%u\">", pl[i].k);
		provenance_put_coloured(b, text + pl[i].at, pl[i].len, cls ? cls + pl[i].at : NULL);
		buf_puts(b, "</mark>");
		from = pl[i].at + pl[i].len;
	}
	provenance_put_coloured(b, text + from, n - from, cls ? cls + from : NULL);
	free(pl);
}

/* One line of the view: its anchor, its number linking to itself, and
 * its text, with the values linked to in it marked. */
static void put_line(struct buf *b, long no, long shown_no, const char *text, size_t n,
		     unsigned long long more, bool complete, struct hl_matcher *lang,
		     const struct pmark *marks, size_t nmarks)
{
	buf_puts(b, "<span class=\"ld-line\" id=\"L");
	put_long(b, no);
	buf_puts(b, "\"><a class=\"ld-lineno\" href=\"#L");
	put_long(b, no);
	buf_puts(b, "\">");
	put_long(b, shown_no);
	buf_puts(b, "</a>");
	/* A line cut short keeps its CRs: they were not its end. */
	if (complete)
		n = (size_t)(crline_end(text, text + n, false) - text);
	unsigned char *cls = provenance_log_classes(lang, text, n);
	if (nmarks)
		put_marked(b, no, text, n, cls, marks, nmarks);
	else
		provenance_put_coloured(b, text, n, cls);
	free(cls);
	if (more) {
		buf_puts(b, "<span class=\"ld-cut\">… (");
		put_count(b, more);
		buf_puts(b, " more bytes in the raw file)</span>");
	}
	buf_puts(b, "</span>");
}

void provenance_put_digits(struct buf *b, long widest)
{
	int digits = 1;
	for (long n = widest; n >= 10; n /= 10)
		digits++;
	if (digits > 3)
		buf_printf(b, " style=\"--ld-digits:%d\"", digits);
}

/* The line that starts a notebook cell's output on its page: the cell
 * (counting every cell, as editors do) and its execution count. */
static void put_cell_head(struct buf *b, const struct nb_span *s)
{
	buf_puts(b, "<span class=\"ld-line ld-cell\" id=\"cell-");
	put_long(b, s->cell);
	buf_puts(b, "\"><span class=\"ld-lineno\">#</span>cell ");
	put_long(b, s->cell);
	if (s->exec > 0) {
		buf_puts(b, " · In [");
		put_long(b, s->exec);
		buf_puts(b, "]");
	}
	buf_puts(b, "</span>");
}

/* The marker for lines first..last left out of an abridged view. */
static void put_gap(struct buf *b, long first, long last, const char *raw_href)
{
	buf_puts(b, "<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">…</span><a href=\"");
	buf_puts(b, raw_href);
	if (first == last)
		buf_printf(b, "\">line %ld is in the raw file</a></span>", first);
	else
		buf_printf(b, "\">lines %ld–%ld are in the raw file</a></span>", first, last);
}

/* "../" once for each folder between the page of logs/<name> and the
 * report's page. */
static void put_up(struct buf *b, const char *name)
{
	buf_puts(b, "../");
	for (const char *s = name; (s = strchr(s, '/')); s++)
		buf_puts(b, "../");
}

static bool is_absolute_url(const char *s)
{
	return s[0] == '/' || strstr(s, "://") != NULL;
}

/* The page's head and header, up to the opening of the log: the title
 * and heading name the report and the file (its path in the project),
 * the bar links back to the report and to the raw copy. */
static void put_page_start(struct buf *b, const struct provenance *p, const struct pfile *f,
			   const char *site_root, const char *raw_href)
{
	const char *path = f->real && p->root_real ? path_under(f->real, p->root_real) : NULL;
	if (!path || !*path)
		path = f->name;
	const char *report = p->report_title;
	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
	buf_put_html(b, path, strlen(path));
	if (report) {
		buf_puts(b, " — ");
		buf_put_html(b, report, strlen(report));
	}
	buf_puts(b, "</title>\n<link rel=\"stylesheet\" href=\"");
	if (!is_absolute_url(site_root))
		put_up(b, f->name);
	buf_put_html(b, site_root, strlen(site_root));
	buf_puts(b, "static/logdown.css\">\n</head>\n<body class=\"ld-page ld-log-page\">\n"
		    "<header class=\"ld-site-header\">\n<nav class=\"ld-nav\" aria-label=\"Log\">\n"
		    "<a class=\"ld-site-title\" href=\"");
	put_up(b, f->name);
	buf_puts(b, "index.html\">← Back to the report</a>\n<a class=\"ld-nav-link\" href=\"");
	buf_puts(b, raw_href);
	buf_puts(b, "\">Raw file</a>\n</nav>\n</header>\n<main id=\"ld-main\" class=\"ld-main\">\n"
		    "<h1 class=\"ld-title\">");
	if (report) {
		buf_puts(b, "<span class=\"ld-log-report\">");
		buf_put_html(b, report, strlen(report));
		buf_puts(b, "</span> ");
	}
	/* A long path breaks after a '/' on a phone, not inside a name. */
	buf_puts(b, "<span class=\"ld-log-path\">");
	for (const char *s = path, *slash; *s; s = slash + 1) {
		slash = strchr(s, '/');
		if (!slash) {
			buf_put_html(b, s, strlen(s));
			break;
		}
		buf_put_html(b, s, (size_t)(slash - s) + 1);
		if (slash[1])
			buf_puts(b, "<wbr>");
	}
	buf_puts(b, "</span></h1>\n");
}

static void put_page_end(struct buf *b)
{
	buf_puts(b, "</code></pre>\n</main>\n</body>\n</html>\n");
}

/* Before reading line *no + 1 of an abridged view: when the next range
 * it shows (ranges from at) starts more than LINE_INDEX_EVERY lines
 * further, moves the reader to the noted start at or before it, and *no
 * to the line before that start.  On a file that cannot seek (a decoded
 * event file's pipe), reads on. */
static void skip_to_range(struct linereader *r, int fd, const struct line_index *ix,
			  const struct range *ranges, size_t nranges, size_t at, long *no)
{
	long next = *no + 1;
	while (at < nranges && next > ranges[at].last)
		at++;
	if (at == nranges || ranges[at].first - next < ix->every)
		return;
	size_t k = (size_t)((ranges[at].first - 1) / ix->every);
	if (k >= ix->n || lseek(fd, ix->starts[k], SEEK_SET) != ix->starts[k])
		return;
	linereader_reset(r);
	*no = (long)k * ix->every;
}

/* Writes the view of f's lines (the file open as fd, read from its
 * start; is_file when fd reads f itself, not a text made of it, whose
 * lines the cache may know) into page.  False on a read error, errno
 * set. */
static bool render_page(struct buf *page, const struct provenance *p, struct pfile *f, int fd,
			bool is_file, const char *site_root, const struct notebook *nb)
{
	struct linereader r;
	linereader_init(&r, fd, READ_CHUNK);
	long total;
	unsigned long long bytes;
	/* One read of the whole file, to count its lines and note where
	 * every LINE_INDEX_EVERY-th starts; an abridged view then reads only
	 * near the lines it shows. */
	struct line_index ix = {LINE_INDEX_EVERY, NULL, 0};
	/* or counted before, for this very content (the cache's row of the
	 * file, while it has the signature its hash was taken with) */
	bool counted = is_file && p->cache
			       ? cache_fd_lines_count(p->cache, f->real, fd, r.buf, r.cap, &total,
						      &bytes, &ix)
			       : fd_count_lines_indexed(fd, r.buf, r.cap, &total, &bytes, &ix);
	if (!counted) {
		free(ix.starts);
		linereader_free(&r);
		return false;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		free(ix.starts);
		linereader_free(&r);
		return false;
	}
	const char *slash = strrchr(f->name, '/');
	struct buf raw = BUF_INIT;
	put_url(&raw, slash ? slash + 1 : f->name);

	put_page_start(page, p, f, site_root, buf_data(&raw));
	bool full = bytes <= PROVENANCE_FULL_BYTES && total <= PROVENANCE_FULL_LINES;
	struct range *ranges = NULL;
	size_t nranges = 0;
	size_t keep = SIZE_MAX;
	buf_puts(page, "<p class=\"ld-log-meta\">");
	put_count(page, (unsigned long long)total);
	buf_printf(page, " line%s · ", total == 1 ? "" : "s");
	put_size(page, bytes);
	if (nb) {
		buf_puts(page, " · the text output of ");
		put_count(page, nb->nspans);
		buf_printf(page, " of the notebook's %d cells, each line numbered in its cell",
			   nb->ncells);
	}
	buf_puts(page, "</p>\n");
	if (!full) {
		linereader_free(&r);
		linereader_init(&r, fd, VIEW_CHUNK);
		lines_compact(f);
		/* Context shrinks until the view stays small; the linked
		 * lines themselves are always there. */
		static const long contexts[] = {PROVENANCE_CONTEXT, 5, 1, 0};
		long context = 0;
		for (size_t i = 0; i < ARRAY_LEN(contexts); i++) {
			free(ranges);
			context = contexts[i];
			ranges = abridged_ranges(total, f->lines, f->nlines, context, &nranges);
			if (ranges_lines(ranges, nranges) <= PROVENANCE_SHOWN_MAX)
				break;
		}
		keep = PROVENANCE_LINE_MAX;
		bool linked = false;
		for (size_t i = 0; i < f->nlines && !linked; i++)
			linked = f->lines[i] >= 1 && f->lines[i] <= total;
		buf_puts(page, "<p class=\"ld-note\">This log is too large to show in full. ");
		if (nranges == 1) {
			/* Few lines, but long ones: every line is there. */
			buf_puts(page, "Lines are cut after ");
			put_count(page, PROVENANCE_LINE_MAX);
			buf_puts(page, " bytes.");
		} else {
			buf_puts(page, "Shown: its first ");
			put_count(page, PROVENANCE_HEAD);
			buf_puts(page, " lines, ");
			if (linked) {
				buf_puts(page, "the lines the report links to");
				if (context > 0)
					buf_printf(page, " with %ld line%s around each", context,
						   context == 1 ? "" : "s");
				buf_puts(page, ", ");
			}
			buf_puts(page, "and the last ");
			put_count(page, PROVENANCE_TAIL);
			buf_puts(page, ".");
		}
		buf_puts(page, " <a href=\"");
		buf_puts(page, buf_data(&raw));
		buf_puts(page, "\">The raw file</a> has all of it.</p>\n");
	}
	buf_puts(page, "<pre class=\"ld-log\"");
	provenance_put_digits(page, total);
	buf_puts(page, "><code>");

	bool ok = true;
	size_t at = 0; /* the range of the next line shown */
	long no = 0;
	int last_cell = 0;
	/* The marks in line order, a copy: mark_keys indexes f->marks. */
	struct pmark *marks = xmalloc((f->nmarks + 1) * sizeof *marks);
	if (f->nmarks)
		memcpy(marks, f->marks, f->nmarks * sizeof *marks);
	qsort(marks, f->nmarks, sizeof *marks, cmp_mark);
	size_t mi = 0; /* the first mark not on a line before this one */
	struct hl_matcher *lang = provenance_log_matcher();
	for (;;) {
		if (!full)
			skip_to_range(&r, fd, &ix, ranges, nranges, at, &no);
		const char *text;
		size_t n;
		unsigned long long more;
		int got = linereader_next(&r, keep, &text, &n, &more);
		if (got < 0)
			ok = false;
		if (got <= 0)
			break;
		/* A log still being written: the page shows the lines
		 * counted, as its header says. */
		if (++no > total)
			break;
		if (!full) {
			while (at < nranges && no > ranges[at].last)
				at++;
			if (at == nranges)
				break; /* the last range ends at the last line */
			if (no < ranges[at].first)
				continue;
			if (no == ranges[at].first && at > 0) {
				buf_putc(page, '\n');
				put_gap(page, ranges[at - 1].last + 1, no - 1, buf_data(&raw));
			}
		}
		if (no > 1)
			buf_putc(page, '\n');
		const struct nb_span *sp = nb ? notebook_span(nb, no) : NULL;
		if (sp && sp->cell != last_cell) {
			put_cell_head(page, sp);
			buf_putc(page, '\n');
			last_cell = sp->cell;
		}
		while (mi < f->nmarks && marks[mi].line < no)
			mi++;
		size_t mk = mi;
		while (mk < f->nmarks && marks[mk].line == no)
			mk++;
		put_line(page, no, sp ? no - sp->first + 1 : no, text, n, more, more == 0, lang,
			 marks + mi, mk - mi);
	}
	put_page_end(page);
	int e = errno;
	hl_matcher_free(lang);
	free(ix.starts);
	free(marks);
	free(ranges);
	buf_free(&raw);
	linereader_free(&r);
	errno = e;
	return ok;
}

static int cmp_name(const void *pa, const void *pb)
{
	const struct pfile *const *a = pa, *const *b = pb;
	return strcmp((*a)->name, (*b)->name);
}

/* Copies f and writes its page below <slug>/logs/. */
static bool write_file(const struct provenance *p, struct pfile *f, struct outdir *o,
		       const char *slug,
		       const char *site_root, struct diag *d)
{
	char *rel = xasprintf("%s/logs/%s", slug, f->name);
	char *rel_html = xasprintf("%s.html", rel);
	struct buf page = BUF_INIT;
	bool ok = false;
	/* One descriptor, opened confined to the project and checked
	 * there, for the copy and the page: a log swapped for a link out
	 * of the project since it was parsed gives neither a byte. */
	int fd = p->root_real ? open_confined(f->real, p->root_real, NULL)
			      : open_regular(f->real, NULL); /* no project: nothing to confine to */
	if (fd < 0) {
		/* a link out is the content's error (exit 1), not an I/O
		 * failure (exit 3) */
		ok = errno == EXDEV || errno == ELOOP;
		if (ok)
			diag_error(d, loc_line(f->shown, 0),
				   "leads outside the project: logdown reads nothing there (copy "
				   "the file into the project)");
		else
			diag_error(d, loc_line(f->shown, 0), "cannot read: %s", open_error(errno));
		goto out;
	}
	ok = (p->keeper && p->keeper->keep(p->keeper->ctx, rel, fd, f->real)) ||
	     outdir_copy_fd(o, rel, fd, f->real, d);
	if (!ok)
		goto out;
	const struct notebook *nb = file_notebook(f);
	bool raw = !nb; /* fd reads the file itself, not a text made of it */
	if (nb) {
		close(fd);
		fd = notebook_fd(nb);
	}
	if (fd >= 0 && !nb) {
		/* A TensorBoard event file is binary: its page shows its
		 * records decoded, a line each, as its rows' lines count. */
		int text = tfevents_text(fd);
		if (text >= 0) {
			close(fd);
			fd = text;
			raw = false;
		} else if (lseek(fd, 0, SEEK_SET) != 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0 || !render_page(&page, p, f, fd, raw, site_root, nb)) {
		diag_error(d, loc_line(f->shown, 0), "cannot read: %s", strerror(errno));
		ok = false;
		goto out;
	}
	ok = outdir_write(o, rel_html, page.data, page.len, d);
out:
	if (fd >= 0)
		close(fd);
	buf_free(&page);
	free(rel_html);
	free(rel);
	return ok;
}

bool provenance_write(struct provenance *p, struct outdir *o, const char *slug,
		      const char *site_root, struct diag *d)
{
	bool ok = true;
	/* Name order: the same files give the same output, whatever order
	 * the report used them in. */
	struct pfile **sorted = xmalloc((p->nfiles + 1) * sizeof *sorted);
	for (size_t i = 0; i < p->nfiles; i++)
		sorted[i] = &p->files[i];
	qsort(sorted, p->nfiles, sizeof *sorted, cmp_name);
	for (size_t i = 0; i < p->nfiles; i++) {
		struct pfile *f = sorted[i];
		if (f->outside) {
			/* runs.c confines result files; this is the last
			 * line of that defence, not a user's usual error. */
			diag_error(d, loc_line(f->shown, 0),
				   "lies outside the project: logdown copies nothing from there");
			continue;
		}
		if (o && !write_file(p, f, o, slug, site_root ? site_root : "", d))
			ok = false;
	}
	free(sorted);
	return ok;
}
