/* searchindex.c: the site's search index, search-index.js: every
 * report's sections (render/searchtext.h) with their terms numbered in
 * one sorted list of the site's terms, each written once.  A script
 * that defines a global, loaded by static/search.js with a plain
 * <script src>, so that search works from file:// where nothing can be
 * fetched.  A page reused from the previous output (reuse.c) takes its
 * sections back from the previous index.
 *
 *   var LD_SEARCH = {
 *   "terms": "0.412 accelerators batch cs ...",
 *   "reports": [
 *   ["hw07","Homework 7"],
 *   ...],
 *   "sections": [
 *   [0,"","","0,2,1,a",[]],
 *   [0,"results","Results","1,4,13",["cs.final_loss","0.412"]],
 *   ...]};
 *
 * A section is its report's number, its heading's id and text ("" for
 * the part before the first heading), its terms' numbers ascending,
 * each after the first as the difference from the one before, in base
 * 36, and its values: expression, shown, expression, shown... .  One
 * report or section a line: the reader below reads it back a line at a
 * time. */
#include "site_int.h"

#include <assert.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/utf8.h"
#include "base/util.h"
#include "render/searchtext.h"

#define INDEX_FILE "search-index.js"

/* A JSON string that is also a JavaScript one: quotes, backslashes,
 * control characters, U+2028 and U+2029 escaped, and '<' too (the text
 * may be pasted into a page); each byte that is not UTF-8 a U+FFFD. */
static void put_str(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		/* a run of plain ASCII in one piece */
		size_t run = i;
		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x80 &&
		       s[run] != '"' && s[run] != '\\' && s[run] != '<')
			run++;
		if (run > i) {
			buf_put(b, s + i, run - i);
			i = run;
			continue;
		}
		unsigned long c;
		size_t sub, k = utf8_decode((const unsigned char *)s + i, n - i, &sub, &c);
		if (k == 0) {
			buf_puts(b, "\\ufffd");
			i += sub;
			continue;
		}
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", (char)c);
		else if (c < 0x20 || c == '<' || c == 0x2028 || c == 0x2029)
			buf_printf(b, "\\u%04lx", c);
		else
			buf_put(b, s + i, k);
		i += k;
	}
	buf_putc(b, '"');
}

/* The base-36 digits of n, as the section lines write their terms'
 * numbers, into d (room for 14); their count. */
static size_t base36(size_t n, char *d)
{
	char rev[16];
	size_t nd = 0;
	do {
		rev[nd++] = "0123456789abcdefghijklmnopqrstuvwxyz"[n % 36];
		n /= 36;
	} while (n);
	for (size_t i = 0; i < nd; i++)
		d[i] = rev[nd - 1 - i];
	return nd;
}

/* --- reading a previous index back --- */

struct prev_report {
	char *slug;
	struct search_doc doc;
};

struct prev_index {
	char **terms;
	size_t nterms;
	struct prev_report *reports;
	size_t nreports;
};

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == ',' || *p == '\n')
		p++;
	return p;
}

/* The JSON string at *p (after blanks and commas), or NULL. */
static char *get_str(const char **p)
{
	const char *s = skip_ws(*p);
	if (*s != '"')
		return NULL;
	struct buf b = BUF_INIT;
	for (s++; *s && *s != '"'; s++) {
		if (*s != '\\') {
			buf_putc(&b, *s);
			continue;
		}
		s++;
		if (*s == 'u') {
			unsigned long c = 0;
			int k = 0;
			for (; k < 4 && isxdigit((unsigned char)s[1]); k++, s++)
				c = c * 16 + (unsigned long)(isdigit((unsigned char)*(s + 1))
								 ? s[1] - '0'
								 : (tolower((unsigned char)s[1]) - 'a' + 10));
			if (k < 4 || (c >= 0xD800 && c <= 0xDFFF))
				break; /* not as this file writes it */
			utf8_put(&b, c);
		} else if (*s) {
			buf_putc(&b, *s == 'n' ? '\n' : *s == 't' ? '\t' : *s);
		} else {
			break;
		}
	}
	if (*s != '"') {
		buf_free(&b);
		return NULL;
	}
	*p = s + 1;
	return buf_detach(&b);
}

/* One section line into r's doc; false when it is not one. */
static bool read_section(struct prev_index *pi, const char *line)
{
	char *end;
	const char *p = line + 1;
	unsigned long r = strtoul(p, &end, 10);
	if (end == p || r >= pi->nreports)
		return false;
	p = end;
	char *id = get_str(&p), *heading = id ? get_str(&p) : NULL;
	char *deltas = heading ? get_str(&p) : NULL;
	bool ok = deltas != NULL;
	struct search_section *s = NULL;
	if (ok) {
		s = search_section_add(&pi->reports[r].doc, *heading ? heading : NULL,
				       *id ? id : NULL);
		unsigned long t = 0;
		for (const char *d = deltas; ok && *d;) {
			unsigned long k = strtoul(d, &end, 36);
			ok = end != d && (d == deltas || k > 0);
			t += k;
			ok = ok && t < pi->nterms;
			if (ok)
				search_add_term(s, pi->terms[t]);
			d = *end == ',' ? end + 1 : end;
		}
		p = skip_ws(p);
		ok = ok && *p == '[';
		p++;
		char *e, *v;
		while (ok && (e = get_str(&p)) != NULL) {
			v = get_str(&p);
			if (!v) {
				free(e);
				ok = false;
				break;
			}
			s->values = xrealloc(s->values, (s->nvalues + 1) * sizeof *s->values);
			s->values[s->nvalues++] = (struct search_value){e, v};
		}
	}
	free(id);
	free(heading);
	free(deltas);
	return ok;
}

static void prev_free(struct prev_index *pi)
{
	for (size_t i = 0; i < pi->nterms; i++)
		free(pi->terms[i]);
	free(pi->terms);
	for (size_t i = 0; i < pi->nreports; i++) {
		free(pi->reports[i].slug);
		search_doc_free(&pi->reports[i].doc);
	}
	free(pi->reports);
}

/* The previous output's index, as this file writes it; empty when
 * there is none or it is not one. */
static void prev_load(struct prev_index *pi, const char *path)
{
	memset(pi, 0, sizeof *pi);
	struct buf text = BUF_INIT;
	if (!file_read(path, &text, NULL)) {
		buf_free(&text);
		return;
	}
	enum { NONE, REPORTS, SECTIONS } part = NONE;
	bool ok = true;
	char *save = NULL;
	for (char *line = strtok_r(text.data, "\n", &save); ok && line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (str_has_prefix(line, "\"terms\": ")) {
			const char *p = line + 9;
			char *terms = get_str(&p);
			ok = terms != NULL;
			char *ts = NULL;
			for (char *t = terms ? strtok_r(terms, " ", &ts) : NULL; t;
			     t = strtok_r(NULL, " ", &ts)) {
				pi->terms = xrealloc(pi->terms, (pi->nterms + 1) * sizeof *pi->terms);
				pi->terms[pi->nterms++] = xstrdup(t);
			}
			free(terms);
		} else if (strcmp(line, "\"reports\": [") == 0) {
			part = REPORTS;
		} else if (strcmp(line, "\"sections\": [") == 0) {
			part = SECTIONS;
		} else if (part == REPORTS && line[0] == '[') {
			const char *p = line + 1;
			char *slug = get_str(&p);
			ok = slug != NULL;
			pi->reports = xrealloc(pi->reports, (pi->nreports + 1) * sizeof *pi->reports);
			pi->reports[pi->nreports++] = (struct prev_report){slug, {0}};
		} else if (part == SECTIONS && line[0] == '[') {
			ok = read_section(pi, line);
		}
	}
	buf_free(&text);
	if (!ok) {
		prev_free(pi);
		memset(pi, 0, sizeof *pi);
	}
}

/* --- the site's terms --- */

/* The site's terms, each once, in the order first met: a hash table of
 * them that the render turns fill as each report's sections are made
 * (under a lock, each turn a report at a time), so that the one thread
 * writing the index only sorts the distinct terms and looks each
 * section's terms up by number.  A site of 10,000 pages has 4.5 million
 * terms in its sections and 144,000 distinct: sorting every one, then a
 * binary search for each, was a third of its build, on one thread. */
struct term_table {
	const char **terms; /* copies, in pool */
	size_t n, terms_cap;
	uint64_t *slot; /* a term's index + 1 in the low half, its hash high */
	size_t cap;
	/* the terms' bytes, in blocks each after a pointer to the block
	 * before: the table keeps the text of each distinct term, so that
	 * a rendered report's sections keep only their terms' numbers
	 * (search_section_drop_terms(); 10,000 pages' sections held 4.5
	 * million copies of 144,000 terms to the end of the build) */
	char *pool, *pool_at;
	size_t pool_left;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void table_grow(struct term_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 4096;
	uint64_t *slot = xcalloc(cap, sizeof *slot);
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i])
			continue;
		size_t h = (size_t)(t->slot[i] >> 32) & (cap - 1);
		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
}

static const char *table_dup(struct term_table *t, const char *term)
{
	size_t n = strlen(term) + 1;
	if (n > t->pool_left) {
		size_t size = n > 64 * 1024 ? n : 64 * 1024;
		char *block = xmalloc(sizeof(char *) + size);
		memcpy(block, &t->pool, sizeof(char *)); /* the block before */
		t->pool = block;
		t->pool_at = block + sizeof(char *);
		t->pool_left = size;
	}
	char *p = t->pool_at;
	memcpy(p, term, n);
	t->pool_at += n;
	t->pool_left -= n;
	return p;
}

/* Gives each term of d's sections its number in t (s->ids), adding the
 * terms t has not met (copied).  The caller holds table_lock or is
 * alone. */
static void table_add(struct term_table *t, struct search_doc *d)
{
	for (size_t k = 0; k < d->n; k++) {
		struct search_section *s = &d->s[k];
		free(s->ids);
		s->ids = xcalloc(s->nterms + 1, sizeof *s->ids);
		for (size_t j = 0; j < s->nterms; j++) {
			const char *term = s->terms[j];
			if (2 * (t->n + 1) > t->cap)
				table_grow(t);
			/* hashed as the section read it, not again */
			uint32_t h = search_term_hash(term);
			size_t i = h & (t->cap - 1);
			while (t->slot[i] && ((uint32_t)(t->slot[i] >> 32) != h ||
					      strcmp(t->terms[(uint32_t)t->slot[i] - 1], term) != 0))
				i = (i + 1) & (t->cap - 1);
			if (!t->slot[i]) {
				/* a term is a string of its own: 4 G of them would
				 * not fit in memory before this */
				assert(t->n < UINT32_MAX);
				if (t->n == t->terms_cap) {
					t->terms_cap = t->terms_cap ? 2 * t->terms_cap : 4096;
					t->terms = xrealloc(t->terms, t->terms_cap * sizeof *t->terms);
				}
				t->terms[t->n++] = table_dup(t, term);
				t->slot[i] = (uint64_t)h << 32 | (uint32_t)t->n;
			}
			s->ids[j] = (uint32_t)t->slot[i] - 1;
		}
	}
}

static void table_free(struct term_table *t)
{
	if (!t)
		return;
	for (char *block = t->pool, *before; block; block = before) {
		memcpy(&before, block, sizeof before);
		free(block);
	}
	free(t->terms);
	free(t->slot);
	free(t);
}

/* The table's terms sorted (strcmp), and for each term's number in the
 * table its place among them, which the index calls its number.
 * Caller frees both. */
static void table_sort(const struct term_table *t, const char ***sorted, uint32_t **rank)
{
	uint32_t *order = xcalloc(t->n + 1, sizeof *order);
	/* str_sort_order() reads the strings only */
	str_sort_order((char *const *)t->terms, t->n, order);
	*sorted = xcalloc(t->n + 1, sizeof **sorted);
	*rank = xcalloc(t->n + 1, sizeof **rank);
	for (size_t i = 0; i < t->n; i++) {
		(*sorted)[i] = t->terms[order[i]];
		(*rank)[order[i]] = (uint32_t)i;
	}
	free(order);
}

/* Sorts v[0..n) ascending, n at most 16: by insertion. */
static void insert_numbers(uint32_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;
		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sift_numbers(uint32_t *v, size_t at, size_t n)
{
	for (size_t child; (child = 2 * at + 1) < n; at = child) {
		if (child + 1 < n && v[child] < v[child + 1])
			child++;
		if (v[at] >= v[child])
			return;
		uint32_t t = v[at];
		v[at] = v[child];
		v[child] = t;
	}
}

/* Sorts v[0..n) ascending, a section's terms' places: introsort
 * (quicksort with the median of three, insertion below 17, heapsort
 * where the partitions go too deep), as str_sort() sorts strings.  A
 * radix sort by bytes cost more: 3 passes of 256 counters for a few
 * dozen numbers below 2^18. */
static void sort_numbers(uint32_t *v, size_t n, unsigned depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			for (size_t i = n / 2; i-- > 0;)
				sift_numbers(v, i, n);
			for (size_t end = n; end-- > 1;) {
				uint32_t t = v[0];
				v[0] = v[end];
				v[end] = t;
				sift_numbers(v, 0, end);
			}
			return;
		}
		size_t mid = (n - 1) / 2;
		uint32_t a = v[0], b = v[mid], c = v[n - 1], t;
		if (b < a)
			t = a, a = b, b = t;
		if (c < b) {
			t = b, b = c, c = t;
			if (b < a)
				t = a, a = b, b = t;
		}
		v[0] = a;
		v[mid] = b;
		v[n - 1] = c;
		uint32_t pivot = b;
		size_t i = 0, j = n - 1;
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
		/* [0, j] <= pivot <= [j + 1, n): the smaller side recursively */
		size_t left = j + 1;
		if (left < n - left) {
			sort_numbers(v, left, depth);
			v += left;
			n -= left;
		} else {
			sort_numbers(v + left, n - left, depth);
			n = left;
		}
	}
	insert_numbers(v, n);
}

/* Reports [from, to) of docs (the index's order): their section lines,
 * into out (each but the index's first after a comma and a newline). */
struct sections_part {
	struct search_doc **docs;
	size_t from, to;
	const uint32_t *rank;
	struct buf out;
};

static void sections_write(struct sections_part *p)
{
	struct buf *out = &p->out;
	const uint32_t *rank = p->rank;
	uint32_t *nums = NULL; /* a section's numbers */
	size_t nums_cap = 0;
	for (size_t i = p->from; i < p->to; i++) {
		for (size_t k = 0; k < p->docs[i]->n; k++) {
			const struct search_section *s = &p->docs[i]->s[k];
			/* the report's place in decimal, without snprintf()'s
			 * 700 instructions (75,000 sections on 10,000 pages) */
			char num[24];
			size_t nn = sizeof num;
			size_t place = i;
			do
				num[--nn] = (char)('0' + place % 10);
			while (place /= 10);
			buf_puts(out, i == 0 && k == 0 ? "[" : ",\n[");
			buf_put(out, num + nn, sizeof num - nn);
			buf_putc(out, ',');
			put_str(out, s->id ? s->id : "");
			buf_putc(out, ',');
			put_str(out, s->heading ? s->heading : "");
			buf_puts(out, ",\"");
			size_t prev_id = 0;
			/* the section's terms in the index's order: their
			 * places among the sorted terms, ascending */
			if (s->nterms > nums_cap) {
				nums_cap = 2 * s->nterms;
				free(nums);
				nums = xcalloc(nums_cap, sizeof *nums);
			}
			for (size_t k2 = 0; k2 < s->nterms; k2++)
				nums[k2] = rank[s->ids[k2]];
			unsigned depth = 0;
			for (size_t m = s->nterms; m; m >>= 1)
				depth += 2;
			sort_numbers(nums, s->nterms, depth);
			/* the digits straight into the buffer: a comma and at
			 * most 13 base-36 digits a term (455,000 buf_put()
			 * calls on 1,000 pages) */
			buf_grow(out, s->nterms * 14);
			char *at = out->data + out->len;
			for (size_t k2 = 0; k2 < s->nterms; k2++) {
				size_t id = nums[k2];
				if (k2)
					*at++ = ',';
				at += base36(id - prev_id, at);
				prev_id = id;
			}
			out->len = (size_t)(at - out->data);
			out->data[out->len] = '\0';
			buf_puts(out, "\",[");
			for (size_t v = 0; v < s->nvalues; v++) {
				if (v)
					buf_putc(out, ',');
				put_str(out, s->values[v].expr);
				buf_putc(out, ',');
				put_str(out, s->values[v].shown);
			}
			buf_puts(out, "]]");
		}
	}
	free(nums);
}

static void *sections_thread(void *arg)
{
	sections_write(arg);
	return NULL;
}

/* --- writing --- */

/* What the report adds to its section 0: its title, summary, author,
 * date and slug, and the names of its runs. */
static void add_report_terms(struct search_section *s, const struct report *r)
{
	const char *fields[] = {r->title, r->summary, r->author, r->date, r->slug};
	for (size_t i = 0; i < ARRAY_LEN(fields); i++)
		search_add_text(s, fields[i], strlen(fields[i]));
	const struct value *runs = value_get(r->meta, "runs");
	for (size_t i = 0; runs && runs->kind == VALUE_MAP && i < runs->count; i++)
		search_add_text(s, runs->keys[i], strlen(runs->keys[i]));
	search_section_finish(s);
}

void search_report(struct build *b, const struct report *r, struct doc *doc, struct job *job)
{
	if (!b->writing)
		return;
	search_collect(doc, r->html, &job->search);
	add_report_terms(&job->search.s[0], r);
	pthread_mutex_lock(&table_lock);
	if (!b->terms)
		b->terms = xcalloc(1, sizeof *b->terms);
	table_add(b->terms, &job->search);
	pthread_mutex_unlock(&table_lock);
	/* numbered: the index needs the numbers, the table the text */
	for (size_t k = 0; k < job->search.n; k++)
		search_section_drop_terms(&job->search.s[k]);
}

/* Newest first, undated last, then by slug: the site index's order. */
static int cmp_newest(const void *pa, const void *pb)
{
	const struct report *a = *(const struct report *const *)pa;
	const struct report *b = *(const struct report *const *)pb;
	int c = strcmp(b->date, a->date);
	return c ? c : strcmp(a->slug, b->slug);
}

/* A previous report's slug and place in the previous index. */
struct slug_at {
	const char *slug;
	size_t k;
};

/* By slug, then by place (qsort() is not stable). */
static int cmp_slug_at(const void *pa, const void *pb)
{
	const struct slug_at *a = pa, *b = pb;
	int c = strcmp(a->slug, b->slug);
	return c ? c : (a->k > b->k) - (a->k < b->k);
}

bool search_index_write(struct build *b, struct job *jobs, struct diag *d)
{
	if (!b->writing)
		return true;
	/* the reused reports' sections, from the previous index */
	struct prev_index prev = {0};
	bool any_reused = false;
	for (size_t i = 0; i < b->nreports; i++)
		any_reused |= jobs[i].reused;
	if (any_reused) {
		char *path = path_join(b->out.final, INDEX_FILE);
		prev_load(&prev, path);
		free(path);
	}
	struct search_doc **docs = xcalloc(b->nreports + 1, sizeof *docs);
	const struct report **order = xcalloc(b->nreports + 1, sizeof *order);
	/* the previous reports by slug, each slug's in the index's order:
	 * a reused report's are found by a binary search, not a walk of
	 * them all (half a million strcmp() for 1,000 reports) */
	struct slug_at *by_slug = xcalloc(prev.nreports + 1, sizeof *by_slug);
	for (size_t k = 0; k < prev.nreports; k++)
		by_slug[k] = (struct slug_at){prev.reports[k].slug, k};
	if (prev.nreports > 1)
		qsort(by_slug, prev.nreports, sizeof *by_slug, cmp_slug_at);
	for (size_t i = 0; i < b->nreports; i++) {
		struct job *job = &jobs[i];
		const struct report *r = &b->reports[i];
		size_t lo = 0, hi = job->reused ? prev.nreports : 0;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(by_slug[mid].slug, r->slug) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t m = lo; job->reused && !job->search.n && m < prev.nreports &&
				    strcmp(by_slug[m].slug, r->slug) == 0;
		     m++) {
			job->search = prev.reports[by_slug[m].k].doc;
			prev.reports[by_slug[m].k].doc = (struct search_doc){0};
		}
		if (!job->search.n) /* not in the previous index: its title at least */
			add_report_terms(search_section_add(&job->search, NULL, NULL), r);
		order[i] = r;
	}
	free(by_slug);
	prev_free(&prev);
	if (b->nreports > 1)
		qsort(order, b->nreports, sizeof *order, cmp_newest);
	for (size_t i = 0; i < b->nreports; i++)
		docs[i] = &jobs[order[i] - b->reports].search;

	/* every term once, sorted: a term's number is its place; the
	 * sections made by the render turns are in the table already, the
	 * reused ones are added here */
	if (!b->terms)
		b->terms = xcalloc(1, sizeof *b->terms);
	for (size_t i = 0; i < b->nreports; i++)
		if (docs[i]->n && !docs[i]->s[0].ids)
			table_add(b->terms, docs[i]);
	const char **sorted;
	uint32_t *rank;
	table_sort(b->terms, &sorted, &rank);
	size_t nterms = b->terms->n;

	struct buf out = BUF_INIT;
	buf_puts(&out, "/* logdown's search index: static/search.js reads it */\n"
		       "var LD_SEARCH = {\n\"terms\": \"");
	for (size_t i = 0; i < nterms; i++) {
		if (i)
			buf_putc(&out, ' ');
		buf_puts(&out, sorted[i]); /* terms hold no quote, backslash or blank */
	}
	buf_puts(&out, "\",\n\"reports\": [\n");
	for (size_t i = 0; i < b->nreports; i++) {
		buf_putc(&out, '[');
		put_str(&out, order[i]->slug);
		buf_putc(&out, ',');
		put_str(&out, *order[i]->title ? order[i]->title : order[i]->slug);
		buf_puts(&out, i + 1 < b->nreports ? "],\n" : "]\n");
	}
	buf_puts(&out, "],\n\"sections\": [\n");
	/* the sections in two parts of about as many terms, the second on
	 * a thread of its own: each section's numbers are sorted here, and
	 * this thread runs after the last render turn while the other
	 * writes the manifest (a tenth of a second on 10,000 pages) */
	size_t total = 0, half = 0, mid = 0;
	for (size_t i = 0; i < b->nreports; i++)
		for (size_t k = 0; k < docs[i]->n; k++)
			total += docs[i]->s[k].nterms + 1;
	while (mid < b->nreports && 2 * half < total) {
		for (size_t k = 0; k < docs[mid]->n; k++)
			half += docs[mid]->s[k].nterms + 1;
		mid++;
	}
	/* the first part straight after what is written, the second in
	 * a buffer of its own, written after it */
	struct sections_part parts[2] = {{docs, 0, mid, rank, out},
					 {docs, mid, b->nreports, rank, BUF_INIT}};
	pthread_t tid;
	size_t threads = b->opts->jobs ? b->opts->jobs : site_default_jobs();
	bool started = threads > 1 && mid < b->nreports &&
		       pthread_create(&tid, NULL, sections_thread, &parts[1]) == 0;
	sections_write(&parts[0]);
	if (started)
		pthread_join(tid, NULL);
	else
		sections_write(&parts[1]);
	out = parts[0].out;
	/* the second part written after the first, not copied after it
	 * (7 MB on 10,000 pages, held twice) */
	buf_puts(&parts[1].out, "\n]};\n");
	struct span pieces[2] = {{out.data, out.len}, {parts[1].out.data, parts[1].out.len}};
	bool ok = outdir_write_spans(&b->out, INDEX_FILE, pieces, 2, d);
	buf_free(&parts[1].out);
	buf_free(&out);
	free(sorted);
	free(rank);
	table_free(b->terms);
	b->terms = NULL;
	free(docs);
	free(order);
	return ok;
}
