/* searchtext.c: a report's sections, headings, words and values for the
 * site's search (searchtext.h), read from the resolved tree after the
 * page was rendered from it. */
#include "render/searchtext.h"

#include <cmark-gfm.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/htmltag.h"
#include "base/utf8.h"
#include "base/util.h"
#include "resolve/doc.h"
#include "resolve/show.h"

/* --- terms --- */

static bool word_cp(unsigned long c)
{
	if (c < 0x80)
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	if (c < 0xC0 || c == 0xD7 || c == 0xF7)
		return false;
	if ((c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F))
		return false;
	return c < 0xE000;
}

static bool digit_at(const char *s, size_t len, size_t i)
{
	return i < len && s[i] >= '0' && s[i] <= '9';
}

#define FNV_BASIS 1469598103934665603u
#define FNV_PRIME 1099511628211u

/* An ASCII byte as a term's byte: a letter lowercased, a digit as it
 * is, 0 for any other (word_cp()'s ASCII answer and the lowercasing in
 * one load, for the bytes of most text) */
#define W(c) ((c) >= 'A' && (c) <= 'Z' ? (c) - 'A' + 'a' : \
	      ((c) >= 'a' && (c) <= 'z') || ((c) >= '0' && (c) <= '9') ? (c) : 0)
#define W8(c) W(c), W(c + 1), W(c + 2), W(c + 3), W(c + 4), W(c + 5), W(c + 6), W(c + 7)
static const unsigned char ascii_term[128] = {
	W8(0),	W8(8),	W8(16), W8(24), W8(32), W8(40),	 W8(48),  W8(56),
	W8(64), W8(72), W8(80), W8(88), W8(96), W8(104), W8(112), W8(120),
};
#undef W8
#undef W

/* The tokenizer of search_tokens(), giving fn each term with its length
 * and its str_hash(), taken as its bytes come; inlined into its two
 * callers, each with its own fn. */
static inline void scan_terms(const char *text, size_t len,
			      void (*fn)(void *ctx, const char *term, size_t n, uint64_t h),
			      void *ctx)
{
	char t[SEARCH_TERM_MAX + 1];
	size_t n = 0;
	uint64_t h = FNV_BASIS;
	for (size_t i = 0; i < len;) {
		unsigned long c = (unsigned char)text[i];
		if (c < 0x80 && ascii_term[c]) {
			/* a run of ASCII letters and digits, most of any text */
			do {
				if (n < SEARCH_TERM_MAX) {
					t[n++] = (char)ascii_term[c];
					h = (h ^ ascii_term[c]) * FNV_PRIME;
				}
				if (++i == len)
					break;
				c = (unsigned char)text[i];
			} while (c < 0x80 && ascii_term[c]);
			continue;
		}
		/* ASCII, most of any text, without the decoder's call */
		size_t k = c < 0x80 ? 1
				    : utf8_decode((const unsigned char *)text + i, len - i, NULL, &c);
		if (k == 0) {
			k = 1;
			c = UTF8_REPLACEMENT; /* separates words */
		}
		if (word_cp(c)) {
			if (k == 1 && n < SEARCH_TERM_MAX) {
				char b = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : (char)c;
				t[n++] = b;
				h = (h ^ (unsigned char)b) * FNV_PRIME;
			} else if (n + k <= SEARCH_TERM_MAX) {
				for (size_t m = 0; m < k; m++) {
					t[n++] = text[i + m];
					h = (h ^ (unsigned char)text[i + m]) * FNV_PRIME;
				}
			}
			i += k;
			continue;
		}
		if (n && (c == '.' || c == ',') && t[n - 1] >= '0' && t[n - 1] <= '9' &&
		    digit_at(text, len, i + 1)) {
			if (c == '.') {
				if (n < SEARCH_TERM_MAX) {
					t[n++] = '.';
					h = (h ^ (unsigned char)'.') * FNV_PRIME;
				}
				i++;
				continue;
			}
			if (digit_at(text, len, i + 2) && digit_at(text, len, i + 3) &&
			    !digit_at(text, len, i + 4)) {
				i++;
				continue;
			}
		}
		if (n) {
			t[n] = '\0';
			fn(ctx, t, n, h);
			n = 0;
			h = FNV_BASIS;
		}
		i += k;
	}
	if (n) {
		t[n] = '\0';
		fn(ctx, t, n, h);
	}
}

struct plain_fn {
	void (*fn)(void *ctx, const char *term);
	void *ctx;
};

static void plain_cb(void *ctx, const char *term, size_t n, uint64_t h)
{
	(void)n;
	(void)h;
	struct plain_fn *p = ctx;
	p->fn(p->ctx, term);
}

void search_tokens(const char *text, size_t len, void (*fn)(void *ctx, const char *term),
		   void *ctx)
{
	struct plain_fn p = {fn, ctx};
	scan_terms(text, len, plain_cb, &p);
}

/* A section's terms are kept once each as they come (a hash set of
 * their indexes beside them): a term repeats in a section many times,
 * and copying and sorting every repeat cost more than the page's
 * Markdown parse. */
static size_t seen_slot(const struct search_section *s, const char *term, uint64_t h)
{
	/* a slot holds the term's hash's upper half and its index + 1:
	 * most probes that miss compare no string */
	uint32_t hi = (uint32_t)(h >> 32);
	size_t i = (size_t)h & (s->seen_cap - 1);
	while (s->seen[i] && ((uint32_t)(s->seen[i] >> 32) != hi ||
			      strcmp(s->terms[(uint32_t)s->seen[i] - 1], term) != 0))
		i = (i + 1) & (s->seen_cap - 1);
	return i;
}

/* The str_hash() a pool's term carries before it. */
static uint64_t pooled_hash(const char *term)
{
	uint64_t h;
	memcpy(&h, term - sizeof h, sizeof h);
	return h;
}

static void seen_grow(struct search_section *s)
{
	free(s->seen);
	/* at most half full; a finished section has no set, but may be
	 * given more terms (add_report_terms() on section 0) */
	s->seen_cap = s->seen_cap ? 2 * s->seen_cap : 64;
	while (s->seen_cap < 2 * (s->nterms + 1))
		s->seen_cap *= 2;
	s->seen = xcalloc(s->seen_cap, sizeof *s->seen);
	for (size_t t = 0; t < s->nterms; t++) {
		uint64_t h = pooled_hash(s->terms[t]); /* not hashed again */
		s->seen[seen_slot(s, s->terms[t], h)] = (h >> 32) << 32 | (uint32_t)(t + 1);
	}
}

/* A copy of term (n bytes and its NUL) in s's pool, after h, its
 * str_hash() (a set that grows, and the site's table of terms, read it
 * there rather than hash the term again): one allocation for many
 * terms, and freeing a section frees its few blocks, not every term
 * (10,000 pages hold millions). */
static char *pool_dup(struct search_section *s, const char *term, size_t n, uint64_t h)
{
	n += 1 + sizeof h;
	if (n > s->pool_left) {
		size_t size = n > 1024 ? n : 1024;
		char *block = xmalloc(sizeof(char *) + size);
		memcpy(block, &s->pool, sizeof(char *)); /* the block before */
		s->pool = block;
		s->pool_at = block + sizeof(char *);
		s->pool_left = size;
	}
	char *p = s->pool_at;
	memcpy(p, &h, sizeof h);
	memcpy(p + sizeof h, term, n - sizeof h);
	s->pool_at += n;
	s->pool_left -= n;
	return p + sizeof h;
}

uint32_t search_term_hash(const char *term)
{
	uint64_t h = pooled_hash(term);
	return (uint32_t)(h ^ (h >> 32));
}

/* term, n bytes long, of hash h (str_hash()), into s unless there. */
static void add_term(struct search_section *s, const char *term, size_t n, uint64_t h)
{
	if (2 * (s->nterms + 1) > s->seen_cap)
		seen_grow(s);
	size_t i = seen_slot(s, term, h);
	if (s->seen[i])
		return;
	if (s->nterms == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->terms = xrealloc(s->terms, s->cap * sizeof *s->terms);
	}
	s->terms[s->nterms++] = pool_dup(s, term, n, h);
	s->seen[i] = (h >> 32) << 32 | (uint32_t)s->nterms;
}

void search_add_term(struct search_section *s, const char *term)
{
	add_term(s, term, strlen(term), str_hash(term));
}

static void add_term_cb(void *ctx, const char *term, size_t n, uint64_t h)
{
	add_term(ctx, term, n, h);
}

void search_add_text(struct search_section *s, const char *text, size_t len)
{
	scan_terms(text, len, add_term_cb, s);
}

void search_section_finish(struct search_section *s)
{
	/* the terms stay in the order met: the index's writer puts each
	 * section's numbers in order (integers, not strings: sorting every
	 * section's terms by strcmp() was a sixth of the search's work) */
	free(s->seen);
	s->seen = NULL;
	s->seen_cap = 0;
}

/* The largest set a section hands to the next (search_section_add()),
 * in slots: zeroing it costs at most 8 KiB of stores, against a
 * calloc() and a rehash at each doubling from 64 slots. */
#define SEEN_PASS_MAX 1024

struct search_section *search_section_add(struct search_doc *d, const char *heading,
					  const char *id)
{
	/* the section before is done with its set (one more term for it
	 * makes it again from its terms, seen_grow()): this one takes it */
	uint64_t *seen = NULL;
	size_t seen_cap = 0;
	if (d->n && d->s[d->n - 1].seen) {
		struct search_section *before = &d->s[d->n - 1];
		if (before->seen_cap <= SEEN_PASS_MAX) {
			seen = before->seen;
			seen_cap = before->seen_cap;
			memset(seen, 0, seen_cap * sizeof *seen);
		} else {
			free(before->seen);
		}
		before->seen = NULL;
		before->seen_cap = 0;
	}
	d->s = xrealloc(d->s, (d->n + 1) * sizeof *d->s);
	struct search_section *s = &d->s[d->n++];
	memset(s, 0, sizeof *s);
	s->seen = seen;
	s->seen_cap = seen_cap;
	s->heading = heading ? xstrdup(heading) : NULL;
	s->id = id ? xstrdup(id) : NULL;
	return s;
}

static void pool_free(char *pool)
{
	for (char *block = pool, *before; block; block = before) {
		memcpy(&before, block, sizeof before);
		free(block);
	}
}

void search_section_drop_terms(struct search_section *s)
{
	pool_free(s->pool);
	s->pool = s->pool_at = NULL;
	s->pool_left = 0;
	free(s->terms);
	s->terms = NULL;
	s->cap = 0;
}

void search_doc_free(struct search_doc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct search_section *s = &d->s[i];
		pool_free(s->pool);
		free(s->terms);
		for (size_t j = 0; j < s->nvalues; j++) {
			free(s->values[j].expr);
			free(s->values[j].shown);
		}
		free(s->values);
		free(s->seen);
		free(s->ids);
		free(s->id);
		free(s->heading);
	}
	free(d->s);
	d->s = NULL;
	d->n = 0;
}

/* --- the headings' ids, from the rendered page --- */

/* Does a heading's start tag begin at p ("<h2>", "<H3 id=...")? */
static bool heading_tag(const char *p)
{
	return p[0] == '<' && (p[1] == 'h' || p[1] == 'H') && p[2] >= '1' && p[2] <= '6' &&
	       (p[3] == '>' || p[3] == ' ' || p[3] == '\t' || p[3] == '\n' || p[3] == '/');
}

/* The first '<' in [p, end) followed by 'h' or 'H', or with sections
 * by "se" too (where heading_tag() or the References may begin), or
 * end.  A page's HTML is mostly tags ("<span" in highlighted code, "<p",
 * "<code"): stopping at every '<' cost more than the rest of the search's
 * walk; sixteen bytes are tried at once where SSE2 is. */
static const char *next_tag(const char *p, const char *end, bool sections)
{
#ifdef __SSE2__
	const __m128i lt = _mm_set1_epi8('<'), h = _mm_set1_epi8('h'), low = _mm_set1_epi8(0x20);
	const __m128i sc = _mm_set1_epi8(sections ? 's' : '<'), e = _mm_set1_epi8('e');
	while (end - p >= 18) {
		__m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 2));
		/* a byte | 0x20 is 'h' for 'h' and 'H' alone */
		__m128i tag = _mm_or_si128(_mm_cmpeq_epi8(_mm_or_si128(v1, low), h),
					   _mm_and_si128(_mm_cmpeq_epi8(v1, sc), _mm_cmpeq_epi8(v2, e)));
		unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(v0, lt), tag));
		if (mask)
			return p + __builtin_ctz(mask);
		p += 16;
	}
#endif
	for (; p < end; p++)
		if (p[0] == '<' && p + 1 < end &&
		    (p[1] == 'h' || p[1] == 'H' || (sections && p[1] == 's' && p + 2 < end && p[2] == 'e')))
			return p;
	return end;
}

static size_t count_heading_tags(const char *s)
{
	size_t n = 0;
	const char *end = s ? s + strlen(s) : NULL;
	for (const char *p = s ? next_tag(s, end, false) : NULL; p < end; p = next_tag(p + 1, end, false))
		n += heading_tag(p);
	return n;
}

/* The id attribute of the tag at p, its character references
 * decoded, or NULL (none, or empty). */
static char *tag_id(const char *p, const char *end)
{
	char *id = html_attr(p, end, "id", NULL);
	if (id && !*id) {
		free(id);
		id = NULL;
	}
	return id;
}

/* Every heading tag of html in order: its id, or NULL.  The References
 * that html.c adds after the report's own blocks (its heading is in no
 * tree) end the search. */
static char **heading_ids(const char *html, size_t *n)
{
	char **ids = NULL;
	*n = 0;
	const char *end = html + strlen(html);
	for (const char *p = next_tag(html, end, true); p < end; p = next_tag(p + 1, end, true)) {
		/* the first letters before the whole prefix: every tag of the
		 * page comes here, the highlighting's many "<span" among them */
		if (p[1] == 's' && p[2] == 'e' && str_has_prefix(p, "<section class=\"references\">"))
			break;
		if (!heading_tag(p))
			continue;
		ids = xrealloc(ids, (*n + 1) * sizeof *ids);
		ids[(*n)++] = tag_id(p, end);
	}
	return ids;
}

/* --- the walk --- */

struct walk {
	struct doc *doc;
	struct search_doc *out;
	struct search_section *cur;
	size_t tags;      /* heading tags met so far, the author's HTML's too */
	char **ids;       /* the page's heading tags' ids */
	size_t nids;
	size_t *heading_at; /* for each section after 0: its heading's tag number */
};

/* The text of a literal as the page shows it: each placeholder's value
 * or reference ("Table 2") in its place; math left out.  With values,
 * each inline value is recorded in s with its expression. */
static void shown_text(struct walk *w, const char *lit, struct buf *out,
		       struct search_section *values)
{
	size_t len = strlen(lit), at, mlen, index;
	while (doc_next_value(lit, len, &at, &mlen, &index)) {
		buf_put(out, lit, at);
		const struct directive_text *t = doc_value(w->doc, index);
		for (size_t i = 0; t && i < t->n; i++) {
			const struct directive_piece *p = &t->p[i];
			if (p->math)
				continue;
			buf_put(out, p->text, strlen(p->text));
			size_t slen, elen, spec;
			const char *src = doc_value_source(w->doc, index, &slen);
			if (!values || !p->value || !src)
				continue;
			show_split_spec(src, slen, &elen, &spec);
			while (elen && (*src == ' ' || *src == '\t'))
				src++, elen--;
			while (elen && (src[elen - 1] == ' ' || src[elen - 1] == '\t'))
				elen--;
			values->values = xrealloc(values->values,
						  (values->nvalues + 1) * sizeof *values->values);
			struct search_value *v = &values->values[values->nvalues++];
			v->expr = xstrndup(src, elen);
			v->shown = p->missing ? xstrdup(SHOW_MISSING) : xstrdup(p->text);
			search_add_text(values, v->expr, elen);
		}
		lit += at + mlen;
		len -= at + mlen;
	}
	buf_put(out, lit, len);
}

static void add_literal(struct walk *w, const char *lit)
{
	/* most text holds no placeholder: its terms are read in place,
	 * not from a copy (a malloc and a free a text node) */
	size_t len = strlen(lit);
	if (!memchr(lit, DOC_MARK, len)) {
		search_add_text(w->cur, lit, len);
		return;
	}
	struct buf b = BUF_INIT;
	shown_text(w, lit, &b, w->cur);
	search_add_text(w->cur, buf_data(&b), b.len);
	buf_free(&b);
}

static void add_pieces(struct walk *w, const struct directive_text *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->p[i].math)
			search_add_text(w->cur, t->p[i].text, strlen(t->p[i].text));
}

static void add_directive(struct walk *w, const struct directive_result *r)
{
	if (r->has_caption)
		add_pieces(w, &r->caption);
	if (r->kind == DIRECTIVE_TABLE)
		for (size_t i = 0; i < r->rows * r->cols; i++)
			add_pieces(w, &r->cells[i].text);
}

/* The heading's text as shown: its inline descendants' literals. */
static char *heading_text(struct walk *w, cmark_node *h)
{
	struct buf b = BUF_INIT;
	cmark_iter *it = cmark_iter_new(h);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(n);
		if (ev != CMARK_EVENT_ENTER)
			continue;
		if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)
			shown_text(w, cmark_node_get_literal(n), &b, NULL);
		else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
			buf_putc(&b, ' ');
		else if (t == CMARK_NODE_HTML_INLINE)
			w->tags += count_heading_tags(cmark_node_get_literal(n));
	}
	cmark_iter_free(it);
	return buf_detach(&b);
}

void search_collect(struct doc *doc, const char *html, struct search_doc *out)
{
	struct walk w = {.doc = doc, .out = out};
	size_t first = out->n;
	w.cur = search_section_add(out, NULL, NULL);
	w.ids = heading_ids(html, &w.nids);
	size_t nh = 0;
	cmark_iter *it = cmark_iter_new(doc_root(doc));
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (ev != CMARK_EVENT_ENTER)
			continue;
		switch (cmark_node_get_type(n)) {
		case CMARK_NODE_HEADING: {
			size_t tag = w.tags++;
			char *text = heading_text(&w, n);
			w.cur = search_section_add(out, text, NULL);
			search_add_text(w.cur, text, strlen(text));
			free(text);
			w.heading_at = xrealloc(w.heading_at, (nh + 1) * sizeof *w.heading_at);
			w.heading_at[nh++] = tag;
			/* its text is read: on past its inlines */
			cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			break;
		}
		case CMARK_NODE_TEXT:
		case CMARK_NODE_CODE:
			add_literal(&w, cmark_node_get_literal(n));
			break;
		case CMARK_NODE_HTML_BLOCK: {
			const struct directive_result *r = doc_directive(n);
			if (r && r->ok)
				add_directive(&w, r);
			else if (!r)
				w.tags += count_heading_tags(cmark_node_get_literal(n));
			break;
		}
		case CMARK_NODE_HTML_INLINE:
			w.tags += count_heading_tags(cmark_node_get_literal(n));
			break;
		default:
			break;
		}
	}
	cmark_iter_free(it);
	/* the tags line up with the tree's headings only when every tag was
	 * counted: else no ids (the sections link to the report) */
	for (size_t i = 0; w.tags == w.nids && i < nh; i++) {
		char *id = w.ids[w.heading_at[i]];
		out->s[first + 1 + i].id = id;
		w.ids[w.heading_at[i]] = NULL;
	}
	for (size_t i = 0; i < w.nids; i++)
		free(w.ids[i]);
	free(w.ids);
	free(w.heading_at);
	for (size_t i = first; i < out->n; i++)
		search_section_finish(&out->s[i]);
}
