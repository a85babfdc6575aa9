/* suggest_words.c: word slots for `logdown parse --suggest`, in the
 * manner of Drain: the templates of a log whose lines differ in a word
 * or two ("Epoch 3 phase=train loss=0.41", "Epoch 3 phase=val
 * loss=0.52"; "INFO step 10", "WARN step 10"), each seen twice or more,
 * are one template whose differing words are a slot each, a text
 * column of the series.  Guarded against free text: at most two word
 * slots a template, twice as many constant words (or one slot after a
 * key, "phase=", or of log levels), and each slot's words few (at most
 * eight) unless it follows a key. */
#include "suggest_mine.h"

#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"

#define SG_MAX_WSLOTS 2   /* word slots a template */
#define SG_MAX_WORDS 8    /* the words an unkeyed word slot may take */
#define SG_MAX_RUN 1000   /* templates of one shape compared */
#define SG_MAX_COMPARE 2000000 /* pairs of templates compared, in all */

/* May token k of x be a word slot: a word not glued to the number
 * before it (a unit: "3ms")? */
static bool may_vary(const struct sg_tmpl *x, size_t k)
{
	return x->toks[k].kind == SG_WORD && !(k > 0 && sg_is_slot(x->toks[k - 1].kind));
}

/* x's shape: its tokens with the words that may vary blanked. */
static char *shape_of(const struct sg_tmpl *x)
{
	struct buf b = BUF_INIT;
	for (size_t k = 0; k < x->ntok; k++) {
		const struct sg_tok *t = &x->toks[k];
		if (may_vary(x, k)) {
			buf_putc(&b, '\x03');
		} else if (t->kind == SG_SPACE) {
			buf_putc(&b, ' ');
		} else if (sg_is_slot(t->kind)) {
			buf_putc(&b, '\x01');
			buf_putc(&b, (char)('0' + t->kind));
		} else {
			buf_put(&b, t->s, t->n);
			buf_putc(&b, '\x02');
		}
	}
	return buf_detach(&b);
}

struct cand {
	struct sg_tmpl *x;
	char *shape;
	size_t idx;   /* in m->v */
	bool merged;  /* into an earlier template */
};

static int by_shape(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->shape, y->shape);
	if (c)
		return c;
	return x->x->order < y->x->order ? -1 : x->x->order > y->x->order;
}

static bool same_tok(const struct sg_tok *a, const struct sg_tok *b)
{
	return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

/* The positions where y's words differ from x's (of one shape), into
 * d; how many (cap + 1 when more differ). */
static size_t differ(const struct sg_tmpl *x, const struct sg_tmpl *y, size_t *d, size_t cap)
{
	size_t n = 0;
	for (size_t k = 0; k < x->ntok; k++)
		if (may_vary(x, k) && !same_tok(&x->toks[k], &y->toks[k])) {
			if (n == cap)
				return cap + 1;
			d[n++] = k;
		}
	return n;
}

/* Does token k of x follow a key ("phase=", "model:")? */
static bool keyed(const struct sg_tmpl *x, size_t k)
{
	size_t j = k;
	while (j > 0 && x->toks[j - 1].kind == SG_SPACE)
		j--;
	if (j < 2 || x->toks[j - 1].kind != SG_PUNCT || x->toks[j - 1].n != 1 ||
	    !strchr("=:", x->toks[j - 1].s[0]))
		return false;
	j--;
	while (j > 0 && x->toks[j - 1].kind == SG_SPACE)
		j--;
	return j > 0 && x->toks[j - 1].kind == SG_WORD;
}

static bool punct_is(const struct sg_tok *t, const char *set)
{
	return t->kind == SG_PUNCT && t->n == 1 && strchr(set, t->s[0]);
}

/* Is token w of x a word of a number's name: one of the words before
 * it ("Train-accuracy=0.95", "val loss 0.52"; as slot_name() reads
 * them), or the noun after it ("3 epochs")?  Such a word names a
 * column: lines that differ in it are different series. */
static bool names_a_number(const struct sg_tmpl *x, size_t w)
{
	const struct sg_tok *t = x->toks;
	for (size_t k = 0; k < x->ntok; k++) {
		if (t[k].kind != SG_NUM && t[k].kind != SG_DUR)
			continue;
		if (k + 2 == w && t[k + 1].kind == SG_SPACE)
			return true;
		size_t j = k;
		if (j > 0 && punct_is(&t[j - 1], "(["))
			j--;
		while (j > 0 && t[j - 1].kind == SG_SPACE)
			j--;
		bool sep = j > 0 && t[j - 1].kind == SG_PUNCT &&
			   (punct_is(&t[j - 1], "=:|") || (t[j - 1].n == 2 && strchr(":=-", t[j - 1].s[0])));
		if (sep) {
			j--;
			while (j > 0 && t[j - 1].kind == SG_SPACE)
				j--;
		}
		size_t words = 0, cap = sep ? 3 : 2;
		while (j > 0 && words < cap) {
			const struct sg_tok *p = &t[j - 1];
			if (p->kind == SG_WORD) {
				if (j - 1 == w)
					return true;
				words++;
			} else if (p->kind != SG_SPACE && !punct_is(p, "()-./%")) {
				break;
			}
			j--;
		}
	}
	return false;
}

/* The cluster c[0..n) of word slots p[0..np): when the guards hold,
 * merged into its first-seen template (the others marked merged). */
static void merge_cluster(struct cand **c, size_t n, const size_t *p, size_t np)
{
	size_t keep = 0;
	for (size_t i = 1; i < n; i++)
		if (c[i]->x->order < c[keep]->x->order)
			keep = i;
	struct sg_tmpl *x = c[keep]->x;
	size_t constant = 0;
	for (size_t k = 0; k < x->ntok; k++)
		constant += x->toks[k].kind == SG_WORD;
	constant -= np;
	unsigned char kind[SG_MAX_WSLOTS];
	char **vals = xcalloc(np + 1, sizeof *vals);
	bool ok = true;
	size_t loose = 0; /* slots neither after a key nor of log levels */
	for (size_t s = 0; s < np && ok; s++) {
		/* the words the slot takes, in first-seen order */
		const struct sg_tok **w = xcalloc(n, sizeof *w);
		size_t nw = 0;
		bool levels = true;
		for (size_t i = 0; i < n; i++) {
			const struct sg_tok *t = &c[i]->x->toks[p[s]];
			bool seen = false;
			for (size_t j = 0; j < nw && !seen; j++)
				seen = same_tok(w[j], t);
			if (!seen)
				w[nw++] = t;
			levels = levels && sg_log_level(t->s, t->n);
		}
		bool key = keyed(x, p[s]);
		ok = (nw <= SG_MAX_WORDS || key) && (key || levels || !names_a_number(x, p[s]));
		loose += !key && !levels;
		kind[s] = levels ? SG_WLEVEL : SG_WSLOT;
		struct buf b = BUF_INIT;
		for (size_t j = 0; j < nw && j < 6; j++) {
			if (j)
				buf_puts(&b, ", ");
			buf_put(&b, w[j]->s, w[j]->n);
		}
		if (nw > 6)
			buf_puts(&b, ", ...");
		vals[s] = buf_detach(&b);
		free(w);
	}
	/* free text ("Loaded model weights", "Saved model config") has
	 * few constant words for its changing ones */
	if (!ok || loose > 1 || constant < 2 * loose) {
		strv_free(vals);
		return;
	}
	x->wslot = xcalloc(x->ntok, 1);
	for (size_t s = 0; s < np; s++)
		x->wslot[p[s]] = kind[s];
	x->wvals = vals;
	x->nslots += np;
	for (size_t i = 0; i < n; i++)
		if (i != keep) {
			x->count += c[i]->x->count;
			c[i]->merged = true;
		}
}

/* The templates of one shape, c[0..n) in first-seen order: each seen
 * twice or more, not merged yet, the base of a cluster of those that
 * differ from it in the same word or two (seen once too: a WARN line
 * among INFO ones). */
static void cluster_run(struct cand *c, size_t n, size_t *budget)
{
	if (n > SG_MAX_RUN)
		n = SG_MAX_RUN;
	struct cand **cl = xcalloc(n, sizeof *cl);
	bool *taken = xcalloc(n, sizeof *taken);
	for (size_t i = 0; i < n; i++) {
		if (taken[i] || c[i].x->count < 2)
			continue;
		size_t p[SG_MAX_WSLOTS], np = 0, nc = 0;
		cl[nc++] = &c[i];
		taken[i] = true;
		for (size_t j = 0; j < n && *budget; j++) {
			if (taken[j])
				continue;
			--*budget;
			size_t d[SG_MAX_WSLOTS];
			size_t nd = differ(c[i].x, c[j].x, d, SG_MAX_WSLOTS);
			if (nd == 0 || nd > SG_MAX_WSLOTS)
				continue;
			/* the slots so far and d's: at most two */
			size_t u[2 * SG_MAX_WSLOTS], nu = np;
			memcpy(u, p, np * sizeof *p);
			for (size_t a = 0; a < nd; a++) {
				bool in = false;
				for (size_t b = 0; b < np && !in; b++)
					in = d[a] == p[b];
				if (!in)
					u[nu++] = d[a];
			}
			if (nu > SG_MAX_WSLOTS)
				continue;
			memcpy(p, u, nu * sizeof *u);
			np = nu;
			cl[nc++] = &c[j];
			taken[j] = true;
		}
		/* the slots in line order, as their columns */
		for (size_t a = 1; a < np; a++)
			if (p[a] < p[a - 1]) {
				size_t v = p[a];
				p[a] = p[a - 1];
				p[a - 1] = v;
			}
		/* a cluster the guards refuse stays apart, every template
		 * of it: a part of it is no better (eight hosts of twenty) */
		if (nc >= 2)
			merge_cluster(cl, nc, p, np);
	}
	free(taken);
	free(cl);
}

void sg_merge_words(struct sg_mine *m)
{
	struct cand *c = xcalloc(m->n ? m->n : 1, sizeof *c);
	size_t nc = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct sg_tmpl *x = m->v[i];
		if (!x->nnum)
			continue;
		c[nc++] = (struct cand){x, shape_of(x), i, false};
	}
	qsort(c, nc, sizeof *c, by_shape);
	/* a bound on the work, in the order of the shapes: the same file,
	 * the same merges */
	size_t budget = SG_MAX_COMPARE;
	for (size_t i = 0; i < nc;) {
		size_t j = i + 1;
		while (j < nc && strcmp(c[j].shape, c[i].shape) == 0)
			j++;
		if (j - i >= 2)
			cluster_run(c + i, j - i, &budget);
		i = j;
	}
	bool any = false;
	for (size_t i = 0; i < nc; i++) {
		if (c[i].merged) {
			struct sg_tmpl *x = c[i].x;
			m->v[c[i].idx] = NULL;
			free(x->key);
			free(x->example);
			free(x->above);
			free(x->toks);
			free(x);
			any = true;
		}
		free(c[i].shape);
	}
	free(c);
	if (!any)
		return;
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i])
			m->v[k++] = m->v[i];
	m->n = k;
	/* the lookup is stale: mining is over */
	free(m->slot);
	m->slot = NULL;
	m->hcap = 0;
}
