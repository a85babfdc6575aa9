/* memo.c: a report's memo, results kept by the keys of their inputs
 * (see memo.h).  Its file is one of the cache's, read and written
 * through cache.c (cache_memo_read(), cache_memo_write()), which seals
 * and checks it; here is only what is inside: a count, then per entry
 * its key (16 bytes) and its bytes, length-prefixed, sorted by key. */
#include "data/memo.h"

#include <stdlib.h>
#include <string.h>

struct memo_entry {
	struct cache_key key;
	const char *p; /* into the file read, or owned (fresh) */
	size_t n;
	bool used;
	bool fresh;
	bool gone; /* loaded, then replaced by a fresh one (memo_put()) */
};

struct memo {
	struct cache *c;
	char *report;
	struct buf file; /* the body read; the loaded entries point into it */
	struct memo_entry *e;
	size_t n, cap;
	size_t loaded; /* e[0 .. loaded) came from the file, sorted */
	size_t used;   /* of those, how many this render got */
};

void memo_put_str(struct buf *b, const char *s)
{
	wire_put_u64(b, s ? 1 : 0);
	if (s)
		wire_put_str(b, s);
}

char *memo_rd_str(struct wire_rd *r)
{
	if (!wire_u64(r))
		return NULL;
	char *s = wire_str(r);
	if (r->bad) {
		free(s);
		return NULL;
	}
	return s;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct memo_entry *x = a, *y = b;
	return memcmp(x->key.b, y->key.b, sizeof x->key.b);
}

static struct memo_entry *add(struct memo *m)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->e = xrealloc(m->e, m->cap * sizeof *m->e);
	}
	struct memo_entry *e = &m->e[m->n++];
	memset(e, 0, sizeof *e);
	return e;
}

struct memo *memo_open(struct cache *c, const char *report)
{
	if (!c)
		return NULL;
	struct memo *m = xcalloc(1, sizeof *m);
	m->c = c;
	m->report = xstrdup(report);
	if (!cache_memo_read(c, report, &m->file))
		return m;
	struct wire_rd r = {m->file.data, m->file.data + m->file.len, false};
	uint64_t n = wire_u64(&r);
	for (uint64_t i = 0; i < n && !r.bad; i++) {
		struct cache_key k;
		if (r.end - r.p < (ptrdiff_t)sizeof k.b) {
			r.bad = true;
			break;
		}
		memcpy(k.b, r.p, sizeof k.b);
		r.p += sizeof k.b;
		struct span s = wire_span(&r);
		if (r.bad)
			break;
		struct memo_entry *e = add(m);
		e->key = k;
		e->p = s.p;
		e->n = s.len;
		/* sorted as written: one out of order is a file not ours */
		if (m->n > 1 && cmp_entry(&m->e[m->n - 2], e) >= 0)
			r.bad = true;
	}
	if (r.bad || r.p != r.end)
		m->n = 0; /* sealed, so written by this user's logdown: never */
	m->loaded = m->n;
	return m;
}

/* The entry under key that is not gone, or NULL. */
static struct memo_entry *find(struct memo *m, const struct cache_key *key)
{
	struct memo_entry want = {.key = *key};
	struct memo_entry *e =
		m->loaded ? bsearch(&want, m->e, m->loaded, sizeof *m->e, cmp_entry) : NULL;
	if (e && e->gone)
		e = NULL;
	for (size_t i = m->loaded; !e && i < m->n; i++)
		if (cmp_entry(&m->e[i], &want) == 0)
			e = &m->e[i];
	return e;
}

bool memo_get(struct memo *m, const struct cache_key *key, struct span *out)
{
	struct memo_entry *e = m ? find(m, key) : NULL;
	if (!e)
		return false;
	if (!e->used && !e->fresh)
		m->used++;
	e->used = true;
	out->p = e->p;
	out->len = e->n;
	return true;
}

void memo_put(struct memo *m, const struct cache_key *key, const void *p, size_t n)
{
	if (!m)
		return;
	struct memo_entry *e = find(m, key);
	if (e && e->n == n && memcmp(e->p, p, n) == 0) {
		memo_get(m, key, &(struct span){NULL, 0});
		return; /* the same inputs gave the same bytes */
	}
	/* new, or replacing one its reader could not use: a loaded one is
	 * then gone (the loaded entries stay sorted for bsearch), a fresh
	 * one replaced where it is */
	if (e && !e->fresh) {
		if (e->used)
			m->used--;
		e->used = false;
		e->gone = true;
		e = NULL;
	}
	if (e)
		free((char *)e->p);
	else
		e = add(m);
	e->key = *key;
	char *copy = xmalloc(n ? n : 1);
	memcpy(copy, p, n);
	e->p = copy;
	e->n = n;
	e->fresh = e->used = true;
}

void memo_close(struct memo *m)
{
	if (!m)
		return;
	if (m->n > m->loaded || m->used != m->loaded) {
		/* only what this render used (never a gone one): the rest
		 * is for inputs gone */
		size_t keep = 0;
		for (size_t i = 0; i < m->n; i++)
			if (m->e[i].used)
				m->e[keep++] = m->e[i];
		qsort(m->e, keep, sizeof *m->e, cmp_entry);
		struct buf b = BUF_INIT;
		wire_put_u64(&b, keep);
		for (size_t i = 0; i < keep; i++) {
			buf_put(&b, (const char *)m->e[i].key.b, sizeof m->e[i].key.b);
			wire_put_bytes(&b, m->e[i].p, m->e[i].n);
		}
		cache_memo_write(m->c, m->report, b.data, b.len);
		buf_free(&b);
		m->n = keep;
	}
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].fresh)
			free((char *)m->e[i].p);
	free(m->e);
	buf_free(&m->file);
	free(m->report);
	free(m);
}
