/* suggest_yaml.c: the parser definition `logdown parse --suggest`
 * writes from the templates suggest.c mined: series (templates seen
 * twice or more, by rows), fields (the numbers of templates seen once),
 * tables, and a detect pattern that claims this file and no built-in
 * parser's example; a comment above each entry gives its first line and
 * an example, so the user can keep, rename or delete it. */
#include "suggest_mine.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fsutil.h"
#include "base/utf8.h"
#include "data/re.h"
#include "parse/logparse.h"

/* The slots as patterns: a number (sign, thousands, decimals,
 * exponent), a duration, a timestamp. */
#define NUM_RE "[-+]?\\d+(?:,\\d{3})*(?:\\.\\d+)?(?:[eE][-+]?\\d+)?"
#define DUR_RE "\\d+:\\d{2}(?::\\d{2})?(?:[.,]\\d+)?"
#define TIME_RE "\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?)?(?:Z|[+-]\\d{2}:?\\d{2})?"

#define MAX_SERIES 24
#define MAX_FIELDS 80

void suggest_put_literal(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			unsigned long cp = 0;
			size_t k = utf8_decode((const unsigned char *)s + i, n - i, NULL, &cp);
			/* the characters YAML refuses (C1 controls, U+FFFE,
			 * U+FFFF) as their bytes: patterns match bytes */
			if (k && !(cp <= 0x9F || cp == 0xFFFE || cp == 0xFFFF)) {
				buf_put(b, s + i, k);
				i += k;
				continue;
			}
			buf_printf(b, "\\x%02X", c);
		} else if (c < 0x20 || c == 0x7F) {
			buf_printf(b, "\\x%02X", c);
		} else {
			if (strchr("\\^$.|?*+()[]{}", c))
				buf_putc(b, '\\');
			buf_putc(b, (char)c);
		}
		i++;
	}
}

void suggest_put_quoted(struct buf *b, const char *s)
{
	buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_putc(b, '\'');
		buf_putc(b, *s);
	}
	buf_putc(b, '\'');
}

enum mode {
	M_SERIES, /* every slot a named group */
	M_FIELD,  /* one slot a group */
	M_DETECT, /* no groups */
	M_INDENT, /* no groups, blanks allowed before the line (detect reads
		   * the file as written, indented lines too) */
};

/* The pattern of tokens [from, to) of template x: anchored at the
 * line's start when it starts there (the scanner drops leading
 * blanks), at its end (trailing blanks allowed) when it ends there. */
static void put_range(struct buf *b, const struct sg_tmpl *x, enum mode mode, size_t which,
		      size_t from, size_t to)
{
	size_t slot = 0;
	for (size_t k = 0; k < from; k++)
		slot += sg_slot_at(x, k);
	if (from == 0)
		buf_puts(b, mode == M_INDENT ? "^[ \\t]*" : "^");
	for (size_t k = from; k < to; k++) {
		const struct sg_tok *t = &x->toks[k];
		const char *re = t->kind == SG_NUM ? NUM_RE : t->kind == SG_DUR ? DUR_RE : TIME_RE;
		if (x->wslot && x->wslot[k]) {
			/* a word slot: up to a blank, or to the punctuation
			 * after it ("phase=train," stops at the comma) */
			if (mode == M_SERIES)
				buf_printf(b, "(?<%s>", x->names[slot]);
			if (k + 1 < x->ntok && x->toks[k + 1].kind == SG_PUNCT) {
				buf_puts(b, "[^\\s");
				char c = x->toks[k + 1].s[0];
				if (strchr("\\]^-[", c))
					buf_putc(b, '\\');
				buf_putc(b, c);
				buf_puts(b, "]+");
			} else {
				buf_puts(b, "\\S+");
			}
			if (mode == M_SERIES)
				buf_putc(b, ')');
			slot++;
			continue;
		}
		switch (t->kind) {
		case SG_SPACE:
			buf_puts(b, "\\s+");
			break;
		case SG_WORD:
		case SG_PUNCT:
			suggest_put_literal(b, t->s, t->n);
			break;
		default: {
			/* a unit glued to the number is part of its text
			 * ("4.61ms", "18.8MiB/s"), as the tool printed it */
			size_t u = k + 1;
			if (t->kind == SG_NUM && u < to && x->toks[u].kind == SG_WORD && x->toks[u].n <= 5) {
				u++;
				if (u + 1 < to && x->toks[u].kind == SG_PUNCT && x->toks[u].n == 1 &&
				    x->toks[u].s[0] == '/' && x->toks[u + 1].kind == SG_WORD &&
				    x->toks[u + 1].n <= 3)
					u += 2;
			}
			bool group = mode == M_SERIES || (mode == M_FIELD && slot == which);
			if (mode == M_SERIES)
				buf_printf(b, "(?<%s>%s", x->names[slot], re);
			else if (group)
				buf_printf(b, "(%s", re);
			else
				buf_puts(b, re);
			for (size_t v = k + 1; v < u; v++)
				suggest_put_literal(b, x->toks[v].s, x->toks[v].n);
			if (group)
				buf_putc(b, ')');
			k = u - 1;
			slot++;
		}
		}
	}
	if (to == x->ntok)
		buf_puts(b, "\\s*$");
}


/* The tokens a template's pattern keeps, [*from, *to): from three
 * tokens before its first number to the word after its last, when
 * that matches no other template's example line; else the whole line.
 * A short pattern reads as one written by hand. */
static void choose_range(const struct sg_mine *m, const struct sg_tmpl *x, size_t *from,
			 size_t *to)
{
	size_t f = SIZE_MAX, l = 0;
	for (size_t k = 0; k < x->ntok; k++)
		if (x->toks[k].kind == SG_NUM || x->toks[k].kind == SG_DUR ||
		    (x->wslot && x->wslot[k])) {
			if (f == SIZE_MAX)
				f = k;
			l = k;
		}
	*from = 0;
	*to = x->ntok;
	if (f == SIZE_MAX)
		return;
	/* back over two words, then to the blank before them */
	size_t a = f, seen = 0;
	while (a > 0 && x->toks[a - 1].kind != SG_TIME) {
		if (x->toks[a - 1].kind == SG_SPACE && seen >= 2)
			break;
		seen += x->toks[a - 1].kind == SG_WORD;
		a--;
	}
	while (a < f && x->toks[a].kind == SG_SPACE)
		a++;
	size_t e = l + 1;
	if (e < x->ntok && (x->toks[e].kind == SG_WORD || x->toks[e].kind == SG_PUNCT))
		e++;
	if (e + 1 < x->ntok && x->toks[e - 1].kind == SG_WORD && x->toks[e].kind == SG_PUNCT &&
	    x->toks[e].n == 1 && x->toks[e].s[0] == '/' && x->toks[e + 1].kind == SG_WORD)
		e += 2; /* "MiB/s" */
	if (e + 1 < x->ntok && x->toks[e].kind == SG_SPACE && x->toks[e + 1].kind == SG_WORD)
		e += 2;
	if (a == 0 && e == x->ntok)
		return;
	struct buf b = BUF_INIT;
	put_range(&b, x, M_DETECT, 0, a, e);
	char msg[128];
	size_t erroff;
	bool jit = false;
	pcre2_code *code = re_compile(buf_data(&b), b.len, &jit, msg, sizeof msg, &erroff);
	buf_free(&b);
	if (!code)
		return;
	struct re_matcher rm;
	re_matcher_init(&rm, 1, re_line_limit());
	bool clash = false;
	for (size_t i = 0; i < m->n && i < 4000 && !clash; i++)
		if (m->v[i] != x)
			clash = re_match(code, jit, m->v[i]->example, strlen(m->v[i]->example), 0,
					 rm.md, rm.mctx) != 0;
	re_matcher_free(&rm);
	pcre2_code_free(code);
	if (!clash) {
		*from = a;
		*to = e;
	}
}

/* A line for a comment: control characters (C0, DEL and C1: YAML
 * takes none of them, not even in a comment), U+FFFE and U+FFFF and
 * bytes of invalid UTF-8 as '?', cut at about 100 bytes. */
static void put_comment_line(struct buf *b, const char *s)
{
	size_t n = strlen(s), i = 0;
	while (i < n && i < 100) {
		unsigned char c = (unsigned char)s[i];
		unsigned long cp = c;
		size_t k = c >= 0x80 ? utf8_decode((const unsigned char *)s + i, n - i, NULL, &cp) : 1;
		if (c < 0x20 || c == 0x7F || k == 0 || (cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE ||
		    cp == 0xFFFF) {
			buf_putc(b, '?'); /* one for a character, one a bad byte */
			i += k ? k : 1;
		} else {
			buf_put(b, s + i, k);
			i += k;
		}
	}
	if (i < n)
		buf_puts(b, " ...");
}

static void put_where(struct buf *b, long line, unsigned long long off)
{
	if (line)
		buf_printf(b, "line %ld", line);
	else
		buf_printf(b, "byte %llu", off);
}

/* A table's comment lines: "  # N <what> at WHERE: HEADER" and its
 * first row. */
static void put_table_comment(struct buf *y, const struct sg_table *tb, const char *what)
{
	buf_printf(y, "  # %zu %s at ", tb->rows, what);
	put_where(y, tb->line, tb->off);
	buf_puts(y, ": ");
	put_comment_line(y, tb->header);
	buf_puts(y, "\n  #   first row: ");
	put_comment_line(y, tb->row);
	buf_putc(y, '\n');
}

/* name made unique among used (appended to it).  Returns a copy. */
static char *unique(char ***used, size_t *nused, const char *name)
{
	char *v = xstrdup(name);
	for (int k = 2;; k++) {
		bool clash = false;
		for (size_t i = 0; i < *nused && !clash; i++)
			clash = strcmp((*used)[i], v) == 0;
		if (!clash)
			break;
		free(v);
		v = xasprintf("%s_%d", name, k);
	}
	*used = xrealloc(*used, (*nused + 2) * sizeof **used);
	(*used)[(*nused)++] = xstrdup(v);
	(*used)[*nused] = NULL;
	return v;
}

/* A name that says nothing of the value: no word was next to it. */
static bool blank_name(const char *n)
{
	return strcmp(n, "number") == 0 || strncmp(n, "number_", 7) == 0 ||
	       strcmp(n, "numbers") == 0 || strncmp(n, "n_", 2) == 0;
}

/* A series' name: its first column named by a word, else its first
 * word of three letters or more that is not a log level. */
static char *tmpl_series_name(const struct sg_tmpl *x)
{
	size_t slot = 0;
	for (size_t k = 0; k < x->ntok; k++) {
		if (!sg_slot_at(x, k))
			continue;
		const char *n = x->names[slot++];
		if (sg_is_slot(x->toks[k].kind) && x->toks[k].kind != SG_TIME && !blank_name(n) &&
		    strcmp(n, "time") != 0)
			return xstrdup(n);
	}
	for (size_t k = 0; k < x->ntok; k++) {
		const struct sg_tok *t = &x->toks[k];
		if (t->kind == SG_WORD && t->n >= 3 && !sg_stopword(t->s, t->n) &&
		    !sg_log_level(t->s, t->n) && !(x->wslot && x->wslot[k])) {
			char *v = xstrndup(t->s, t->n);
			char *id = identifier_of(v);
			free(v);
			for (char *p = id; *p; p++)
				*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
			return id;
		}
	}
	return xstrdup("rows");
}

/* Constant letters of x: how distinctive its text is. */
static size_t letters(const struct sg_tmpl *x)
{
	size_t n = 0;
	for (size_t k = 0; k < x->ntok; k++)
		if (x->toks[k].kind == SG_WORD && !(x->wslot && x->wslot[k]))
			n += x->toks[k].n;
	return n;
}

static int by_rows(const void *a, const void *b)
{
	const struct sg_tmpl *x = *(const struct sg_tmpl *const *)a;
	const struct sg_tmpl *y = *(const struct sg_tmpl *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_letters(const void *a, const void *b)
{
	const struct sg_tmpl *x = *(const struct sg_tmpl *const *)a;
	const struct sg_tmpl *y = *(const struct sg_tmpl *const *)b;
	size_t lx = letters(x), ly = letters(y);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Does pattern src match text[0..n)? */
static bool matches(pcre2_code *code, bool jit, struct re_matcher *m, const char *text, size_t n)
{
	return re_match(code, jit, text, n, 0, m->md, m->mctx) == 1;
}

/* How a detect pattern fares: it does not compile or misses the file's
 * head, claims a parser's example too, or claims the head alone. */
enum fit { FIT_NONE, FIT_EXAMPLE, FIT_GOOD };

static enum fit detect_fit(const struct buf *b, const struct sg_mine *m,
			   const struct parser_set *set, struct re_matcher *rm)
{
	char msg[128];
	size_t erroff;
	bool jit = false;
	pcre2_code *code = re_compile(buf_data(b), b->len, &jit, msg, sizeof msg, &erroff);
	if (!code)
		return FIT_NONE;
	enum fit fit = matches(code, jit, rm, m->head, m->head_len) ? FIT_GOOD : FIT_NONE;
	for (size_t k = 0; fit == FIT_GOOD && set && k < parsers_count(set); k++) {
		const char *ex = parser_example(parsers_at(set, k));
		if (ex && *ex && matches(code, jit, rm, ex, strlen(ex)))
			fit = FIT_EXAMPLE;
	}
	pcre2_code_free(code);
	return fit;
}

/* The file's first non-blank line, literally, from its start: up to 120
 * bytes, cut before a carriage return and at a character's end. */
static void put_first_line(struct buf *b, const struct sg_mine *m)
{
	const char *s = m->head, *end = m->head + m->head_len;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		const char *k = s;
		while (k < e && (*k == ' ' || *k == '\t' || *k == '\r'))
			k++;
		if (k < e)
			break;
		s = e + 1;
	}
	size_t n = 0;
	while (s + n < end && n < 120 && s[n] != '\n' && s[n] != '\r')
		n++;
	if (s + n < end && n == 120)
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	buf_puts(b, "(?m)^");
	suggest_put_literal(b, s, n);
}

/* The detect pattern.  First the start (up to its eighth word) of the
 * template of the most constant letters, among those in the file's
 * first MiB, that claims the file and no example of a parser of set;
 * then a template's whole line; each as the miner saw it, else with
 * blanks before it (an indented log).  Failing those, the file's first
 * non-blank line as written, or a pattern that claims an example too
 * (a project's parser beats a built-in): every proposal detects the
 * file it was made from.  Caller frees. */
static char *choose_detect(struct sg_mine *m, const struct parser_set *set)
{
	const struct sg_tmpl **c = xcalloc(m->n ? m->n : 1, sizeof *c);
	size_t nc = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i]->first_line && m->v[i]->first_off < m->head_len && letters(m->v[i]) >= 1)
			c[nc++] = m->v[i];
	qsort(c, nc, sizeof *c, by_letters);
	struct re_matcher rm;
	re_matcher_init(&rm, 1, re_line_limit());
	char *found = NULL, *shared = NULL;
	for (int whole = 0; whole < 2 && !found; whole++) {
		for (size_t i = 0; i < nc && i < (whole ? 200 : 40) && !found; i++) {
			if (!whole && letters(c[i]) < 4)
				continue;
			size_t e = c[i]->ntok, words = 0;
			if (!whole)
				for (e = 0; e < c[i]->ntok && words < 8;)
					words += c[i]->toks[e++].kind == SG_WORD;
			for (int indent = 0; indent < 2 && !found; indent++) {
				struct buf b = BUF_INIT;
				buf_puts(&b, "(?m)");
				put_range(&b, c[i], indent ? M_INDENT : M_DETECT, 0, 0, e);
				enum fit fit = detect_fit(&b, m, set, &rm);
				if (fit == FIT_GOOD)
					found = buf_detach(&b);
				else if (fit == FIT_EXAMPLE && !shared)
					shared = buf_detach(&b);
				buf_free(&b);
				if (fit != FIT_NONE)
					break;
			}
		}
	}
	if (!found) {
		struct buf b = BUF_INIT;
		put_first_line(&b, m);
		enum fit fit = detect_fit(&b, m, set, &rm);
		if (fit == FIT_GOOD || !shared)
			found = buf_detach(&b);
		else
			found = xstrdup(shared);
		buf_free(&b);
	}
	free(shared);
	re_matcher_free(&rm);
	free(c);
	return found;
}

/* The words of x's word slots, a comment line each ("  #   phase:
 * train, val"). */
static void put_word_slots(struct buf *y, const struct sg_tmpl *x)
{
	if (!x->wslot)
		return;
	size_t slot = 0, w = 0;
	for (size_t k = 0; k < x->ntok; k++) {
		if (!sg_slot_at(x, k))
			continue;
		const char *col = x->names[slot++];
		if (!x->wslot[k])
			continue;
		buf_printf(y, "  #   %s: ", col);
		put_comment_line(y, x->wvals[w++]);
		buf_putc(y, '\n');
	}
}

static void add_item(struct suggestion *out, const char *name, const struct sg_tok *t, long line,
		     size_t rows)
{
	out->items = xrealloc(out->items, (out->nitems + 1) * sizeof *out->items);
	out->items[out->nitems++] =
		(struct sg_item){xstrdup(name), xstrndup(t->s, t->n), line, rows};
}

void sg_write(struct sg_mine *m, const char *shown, const char *name,
	      const struct parser_set *set, struct suggestion *out)
{
	memset(out, 0, sizeof *out);
	struct buf y = BUF_INIT;
	char **used = NULL;
	size_t nused = 0;
	const struct sg_tmpl **series = xcalloc(m->n ? m->n : 1, sizeof *series);
	size_t ns = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i]->count >= 2 && m->v[i]->nnum)
			series[ns++] = m->v[i];
	qsort(series, ns, sizeof *series, by_rows);
	/* what the caps leave out is named in a comment, not dropped
	 * silently */
	struct buf more_series = BUF_INIT;
	if (ns > MAX_SERIES) {
		buf_printf(&more_series,
			   "  # %zu more series not proposed (at most %d are, the most rows first):",
			   ns - MAX_SERIES, MAX_SERIES);
		for (size_t i = MAX_SERIES; i < ns && i < MAX_SERIES + 6; i++) {
			char *sn = tmpl_series_name(series[i]);
			buf_printf(&more_series, "%s %s (%zu rows, ", i > MAX_SERIES ? "," : "", sn,
				   series[i]->count);
			put_where(&more_series, series[i]->first_line, series[i]->first_off);
			buf_putc(&more_series, ')');
			free(sn);
		}
		buf_puts(&more_series, ns > MAX_SERIES + 6 ? ", ...\n" : "\n");
		ns = MAX_SERIES;
	}

	buf_printf(&y, "# Proposed by `logdown parse %s --suggest` from the line templates of\n", shown);
	buf_printf(&y, "# %s%s: keep, rename or delete what you need (docs/suggest.md).\n",
		   m->sampled ? "a sample of " : "", shown);
	buf_puts(&y, "name: ");
	suggest_put_quoted(&y, name);
	buf_puts(&y, "\ndescription: ");
	char *desc = xasprintf("proposed by logdown parse --suggest from %s", shown);
	suggest_put_quoted(&y, desc);
	free(desc);
	buf_putc(&y, '\n');
	char *detect = choose_detect(m, set);
	if (detect) {
		buf_puts(&y, "detect: ");
		suggest_put_quoted(&y, detect);
		buf_putc(&y, '\n');
		free(detect);
	}

	/* names: series first (the ones a report charts), then fields */
	char **snames = xcalloc(ns + 1, sizeof *snames);
	for (size_t i = 0; i < ns; i++) {
		char *base = tmpl_series_name(series[i]);
		snames[i] = unique(&used, &nused, base);
		free(base);
	}

	struct buf f = BUF_INIT;
	size_t nf = 0, nmore = 0;
	struct buf more = BUF_INIT;
	for (size_t i = 0; i < m->n; i++) {
		const struct sg_tmpl *x = m->v[i];
		if (x->count != 1 || !x->nnum)
			continue;
		if (nf >= MAX_FIELDS) {
			/* every number is in the range choose_range() keeps */
			size_t slot = 0;
			for (size_t k = 0; k < x->ntok; k++) {
				if (!sg_slot_at(x, k))
					continue;
				const char *fn = x->names[slot++];
				if (x->toks[k].kind == SG_TIME || !sg_is_slot(x->toks[k].kind) ||
				    blank_name(fn))
					continue;
				if (nmore < 6)
					buf_printf(&more, "%s %s", nmore ? "," : "", fn);
				nmore++;
			}
			continue;
		}
		bool commented = false;
		size_t slot = 0, from, to;
		choose_range(m, x, &from, &to);
		for (size_t k = 0; k < x->ntok; k++) {
			const struct sg_tok *t = &x->toks[k];
			if (!sg_slot_at(x, k))
				continue;
			size_t s = slot++;
			if (t->kind == SG_TIME || !sg_is_slot(t->kind) || blank_name(x->names[s]) ||
			    k < from || k >= to)
				continue;
			if (nf >= MAX_FIELDS) {
				if (nmore < 6)
					buf_printf(&more, "%s %s", nmore ? "," : "", x->names[s]);
				nmore++;
				continue;
			}
			if (!commented) {
				buf_puts(&f, "  # ");
				put_where(&f, x->first_line, x->first_off);
				buf_puts(&f, ": ");
				put_comment_line(&f, x->example);
				buf_putc(&f, '\n');
				commented = true;
			}
			char *fname = unique(&used, &nused, x->names[s]);
			buf_printf(&f, "  %s: ", fname);
			struct buf p = BUF_INIT;
			put_range(&p, x, M_FIELD, s, from, to);
			if (t->kind == SG_DUR) {
				buf_puts(&f, "{ pattern: ");
				suggest_put_quoted(&f, buf_data(&p));
				buf_puts(&f, ", type: duration }");
			} else {
				suggest_put_quoted(&f, buf_data(&p));
			}
			buf_putc(&f, '\n');
			buf_free(&p);
			add_item(out, fname, t, x->first_line, 0);
			free(fname);
			nf++;
		}
	}

	/* the series' items go before the fields' */
	size_t nfield_items = out->nitems;
	struct sg_item *field_items = out->items;
	out->items = NULL;
	out->nitems = 0;

	if (nf) {
		buf_puts(&y, "fields:\n");
		buf_put(&y, f.data, f.len);
	}
	if (nmore)
		buf_printf(&y, "  # %zu more field%s not proposed (at most %d are, in line order):%s%s\n",
			   nmore, nmore == 1 ? "" : "s", MAX_FIELDS, buf_data(&more),
			   nmore > 6 ? ", ..." : "");
	buf_free(&more);
	buf_free(&f);
	size_t nplain = 0;
	for (size_t i = 0; i < m->ntables; i++)
		nplain += m->tables[i].shape != NULL;
	if (ns || nplain)
		buf_puts(&y, "series:\n");
	for (size_t i = 0; i < ns; i++) {
		const struct sg_tmpl *x = series[i];
		buf_printf(&y, "  # %zu rows%s, the first at ", x->count, m->sampled ? " in the sample" : "");
		put_where(&y, x->first_line, x->first_off);
		buf_puts(&y, ": ");
		put_comment_line(&y, x->example);
		buf_putc(&y, '\n');
		put_word_slots(&y, x);
		struct buf p = BUF_INIT;
		size_t from, to;
		choose_range(m, x, &from, &to);
		put_range(&p, x, M_SERIES, 0, from, to);
		struct buf types = BUF_INIT;
		size_t slot = 0, shown_items = 0;
		for (size_t k = 0; k < x->ntok; k++) {
			const struct sg_tok *t = &x->toks[k];
			if (!sg_slot_at(x, k))
				continue;
			const char *col = x->names[slot++];
			if (k < from || k >= to || !sg_is_slot(t->kind))
				continue;
			if (t->kind != SG_NUM)
				buf_printf(&types, "%s%s: %s", types.len ? ", " : "", col,
					   t->kind == SG_DUR ? "duration" : "timestamp");
			else if (shown_items < 2 && !blank_name(col)) {
				char *in = xasprintf("%s.%s", snames[i], col);
				add_item(out, in, t, x->first_line, x->count);
				free(in);
				shown_items++;
			}
		}
		buf_printf(&y, "  %s: ", snames[i]);
		if (types.len) {
			buf_puts(&y, "{ pattern: ");
			suggest_put_quoted(&y, buf_data(&p));
			buf_printf(&y, ", types: { %s } }", buf_data(&types));
		} else {
			suggest_put_quoted(&y, buf_data(&p));
		}
		buf_putc(&y, '\n');
		buf_free(&types);
		buf_free(&p);
	}
	buf_put(&y, more_series.data, more_series.len);
	buf_free(&more_series);
	/* tables aligned with single blanks: a series each, its columns
	 * the header's cells */
	for (size_t i = 0; i < m->ntables; i++) {
		const struct sg_table *tb = &m->tables[i];
		if (!tb->shape)
			continue;
		char *tname = unique(&used, &nused, *tb->name ? tb->name : "table");
		put_table_comment(&y, tb, "rows of a table, its header");
		struct buf p = BUF_INIT;
		buf_putc(&p, '^');
		for (size_t k = 0; tb->shape[k]; k++)
			buf_printf(&p, "%s(?<%s>%s)", k ? "\\s+" : "", tb->cols[k],
				   tb->shape[k] == 'n' ? NUM_RE : "\\S+");
		buf_puts(&p, "\\s*$");
		buf_printf(&y, "  %s: ", tname);
		suggest_put_quoted(&y, buf_data(&p));
		buf_putc(&y, '\n');
		buf_free(&p);
		free(tname);
	}
	if (m->ntables > nplain)
		buf_puts(&y, "tables:\n");
	for (size_t i = 0; i < m->ntables; i++) {
		const struct sg_table *tb = &m->tables[i];
		if (tb->shape)
			continue;
		char *tname = unique(&used, &nused, *tb->name ? tb->name : "table");
		put_table_comment(&y, tb, "rows, the header");
		/* the header's words, blanks as \s* */
		struct buf p = BUF_INIT;
		buf_putc(&p, '^');
		struct sg_tok t[SG_MAX_TOKENS];
		size_t nt = suggest_tokenise(tb->header, strlen(tb->header), t, SG_MAX_TOKENS);
		for (size_t k = 0; k < nt && k < SG_MAX_TOKENS; k++) {
			if (t[k].kind == SG_SPACE)
				buf_puts(&p, "\\s*");
			else if (t[k].kind == SG_WORD || t[k].kind == SG_PUNCT)
				suggest_put_literal(&p, t[k].s, t[k].n);
			else
				buf_puts(&p, t[k].kind == SG_NUM ? NUM_RE : t[k].kind == SG_DUR ? DUR_RE : TIME_RE);
		}
		buf_printf(&y, "  %s: { header: ", tname);
		suggest_put_quoted(&y, buf_data(&p));
		buf_puts(&y, " }\n");
		buf_free(&p);
		free(tname);
	}
	/* the items: series, then fields, then tables */
	out->items = xrealloc(out->items, (out->nitems + nfield_items + 1) * sizeof *out->items);
	if (nfield_items)
		memcpy(out->items + out->nitems, field_items, nfield_items * sizeof *field_items);
	out->nitems += nfield_items;
	free(field_items);
	out->nfields = nf;
	out->nseries = ns + nplain;
	out->ntables = m->ntables - nplain;
	out->yaml = buf_detach(&y);
	for (size_t i = 0; i < ns; i++)
		free(snames[i]);
	free(snames);
	free(series);
	if (used)
		strv_free(used);
}
