/* scan.c: the scanner, which runs a text parser's patterns over a log.
 *
 * scan_file() reads the file in 4 MiB chunks with read(2) and holds at
 * most three chunks (plus the series it keeps).  Most lines of a big
 * log match nothing, so the scanner jumps from one
 * candidate line to the next with the literal prefilter (literal.c) and
 * only counts the lines between.  A candidate line is normalised
 * (below) and matched with pcre2_jit_match().  For a log over 8 MiB, a
 * second thread types the cells of series rows and stores them (or
 * hands them to a struct row_sink) while the first reads and matches
 * on; with more than one core, and a parser whose state does not run
 * from line to line, chunks are also scanned on one thread per core and
 * put back in file order (scanpipe.c).  Tables are read in scantable.c.
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
 *     the end (base/crline.h); "^M" counts as a CR.  A definition that
 *     says `cr: keep` sees the whole line, CRs included (to read a
 *     progress bar's step printed before the CR that ends it);
 *   - leading blanks (Markdown indentation) and a glued Markdown fence
 *     ("```2024-03-30 ...") are dropped, so that '^' anchors at the
 *     first visible character;
 *   - bytes are bytes: invalid UTF-8 is never an error.
 *
 * A series with `more` keeps its row until the lines after it that go
 * on in one of its cells have been read (more_start(), more_line()); such
 * a parser reads its file on one thread.  So does a parser with `carry`:
 * a carry's line sets values (carry_line(), reset_line()) that every row
 * after it takes as its last cells (carried_row()); carries are tried
 * before the other patterns of a line, so that a line that carries and
 * is a row gets the new value.
 *
 * Patterns are unanchored, so a series line glued behind a progress bar
 * still matches.  Ranks: when a series (or table) row comes from a
 * rank-prefixed line and an earlier row of the same series, read from a
 * line of another rank, has exactly the same cell texts, the row is a
 * copy printed by every rank and is skipped.  Rows repeated by one rank,
 * and rows of lines without a rank prefix, are all kept.
 *
 * This file stays large because it is one concept, a line's way through
 * the scanner: normalised, tried by each pattern whose literal it holds,
 * and turned into a field, a row (held back for its more lines, checked
 * against other ranks' copies) or a table's start. */
#define _GNU_SOURCE /* memrchr */
#include "scan.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/crline.h"
#include "blank.h"
#include "literal.h"
#include "parse/structured.h"

void log_diag(struct scan *sc, bool error, long line, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	struct loc at = loc_line(sc->shown, (int)line);
	int cell;
	long cell_line;
	if (sc->nb && notebook_where(sc->nb, line, &cell, &cell_line)) {
		/* The notebook's own lines are JSON: name the cell instead. */
		char *m = xasprintf("cell %d, line %ld of its output: %s", cell, cell_line,
				    buf_data(&msg));
		buf_clear(&msg);
		buf_puts(&msg, m);
		free(m);
		at.line = 0;
	}
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

void pattern_failed(struct scan *sc, struct act *a, const char *what, int rc, long line)
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
	char hint[RE_HINT_SIZE];
	diag_error(sc->d, a->pat->loc,
		   "pattern '%s' of %s hit %s on %s:%ld: it backtracks too much; make it more "
		   "specific%s",
		   a->pat->src, what, re_error(rc), sc->shown, line, re_hint(rc, hint, sizeof hint));
	a->off = true;
	sc->failed = true;
}

char *act_what(const struct scan *sc, const struct act *a)
{
	switch (a->what) {
	case A_FIELD:
		return xasprintf("field '%s'", sc->p->fields[a->idx].name);
	case A_SERIES:
		return xasprintf("series '%s'", sc->p->series[a->idx].name);
	case A_SPLIT:
		return xstrdup("split");
	case A_CARRY:
		return xasprintf("carry %zu", a->idx + 1);
	case A_RESET:
		return xasprintf("the reset of carry %zu", a->idx + 1);
	case A_FRESET:
		return xasprintf("the reset of field '%s'", sc->p->fields[a->idx].name);
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
	int rc = re_match(pat->code, pat->jit, ln->p, ln->n, from, sc->m.md, sc->m.mctx);
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

struct named *named_get(struct fstate *fs, const char *name, size_t n, bool *fresh)
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

/* The field name a '*' field gives the name its match captured: each
 * dot-separated part in snake_case, as a table's header cells are
 * ("Mean TTFT (ms)" is mean_ttft_ms, "tracked_stats.Throughput" is
 * tracked_stats.throughput), so that an expression can write it.
 * Empty parts are left out; "" when nothing is left.  Caller frees. */
static char *star_name(const char *name, size_t n)
{
	struct buf b = BUF_INIT;
	size_t from = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && name[i] != '.')
			continue;
		char *part = snake_case(name + from, i - from);
		if (*part) {
			if (b.len)
				buf_putc(&b, '.');
			buf_puts(&b, part);
		}
		free(part);
		from = i + 1;
	}
	return buf_detach(&b);
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
			char *snake = star_name(name, name_n);
			if (!*snake) {
				free(snake);
				continue;
			}
			bool fresh;
			struct named *e = named_get(fs, snake, strlen(snake), &fresh);
			free(snake);
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
		if (f->has_value)
			s = f->value ? f->value : "", n = f->value_len;
		if (f->agg == AGG_SUM) {
			struct datum dt;
			enum vtype t = f->type == VT_AUTO ? VT_NUMBER : f->type;
			if (type_text(t, parser_style(sc->p), s, n, line, &dt) == TYPED_OK &&
			    dt.kind == DATUM_NUMBER) {
				fs->sum += dt.num;
			} else if (!fs->bad_line) {
				fs->bad_line = line;
				buf_put(&fs->bad, s, n);
			}
		}
		if (!fs->count++)
			fs->first_line = line;
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

/* A sum or count field's reset line: what it found so far is gone. */
static void field_reset(struct fstate *fs)
{
	fs->count = 0;
	fs->sum = 0;
	fs->first_line = 0;
	fs->bad_line = 0;
	buf_clear(&fs->bad);
	buf_clear(&fs->text);
	fs->found = false;
	fs->line = 0;
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

void dedup_insert(struct dedup *dd, struct dent e)
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
bool add_row(struct series *s, struct dedup *dd, const struct datum *cells, uint64_t shortest,
	     bool ranked, uint64_t line_rank, long line, const signed char *dec)
{
	size_t ncols = series_column_count(s);
	if (!ranked) {
		series_append_fixed(s, cells, line, shortest, dec);
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
	series_append_fixed(s, cells, line, shortest, dec);
	if (!same_rank)
		dedup_insert(dd, (struct dent){h, rank, series_row_count(s) - 1});
	return true;
}

struct datum *row_scratch(struct scan *sc, size_t n)
{
	if (n > sc->row_cap) {
		sc->row_cap = n;
		sc->row = xrealloc(sc->row, n * sizeof *sc->row);
	}
	return sc->row;
}

#define REC_HEAD 6 /* words before a row record's cells */

/* A series that shares its name with a table takes the name at its
 * first row, unless the table did first: then its rows are left out,
 * said once.  (Such a parser builds its rows on the scanning thread,
 * scan_file(), so the run is not touched by two threads.) */
static bool shared_claim(struct scan *sc, size_t idx, long line)
{
	const struct pseries *ps = &sc->p->series[idx];
	struct sstate *st = &sc->ss[idx];
	const struct tstate *ts = &sc->ts[ps->table];
	if (ts->found) {
		if (!st->shared_warned)
			log_diag(sc, false, line,
				 "series '%s' matches this line, but table '%s' (line %ld) filled "
				 "'%s' already: a file holds one or the other, so these rows are "
				 "left out",
				 ps->name, ps->name, ts->header_line, ps->name);
		st->shared_warned = true;
		return false;
	}
	if (!st->s) {
		st->s = run_add_series(sc->r, ps->name, (const char *const *)ps->cols, ps->ncols);
		st->first_line = line;
	}
	return st->s != NULL;
}

/* A row of a series whose rows a typed sink takes (parser_run_stream()):
 * counted in the series, not kept, and handed on; unless it is another
 * rank's copy of a row taken before (the rows of rank-prefixed lines are
 * kept aside, in st->ranked, to be compared with). */
static void stream_row(struct scan *sc, size_t idx, uint64_t shortest, bool ranked,
		       uint64_t rank, long line)
{
	struct sstate *st = &sc->ss[idx];
	const struct pseries *ps = &sc->p->series[idx];
	if (ranked && !st->ranked) {
		st->ranked_run = run_new("", "", "");
		st->ranked = run_add_series(st->ranked_run, ps->name, (const char *const *)ps->cols,
					    ps->ncols);
	}
	if (ranked && !add_row(st->ranked, &st->dd, st->cells, shortest, true, rank, line, NULL))
		return;
	size_t before = series_row_count(st->s);
	if (before == 0 && !series_counted(st->s))
		series_set_counted(st->s);
	series_append_shortest(st->s, st->cells, line, shortest);
	if (series_row_count(st->s) > before)
		st->sink->typed(st->sink->ctx, idx, st->s, st->cells, shortest, line);
}

/* Types the cells of one row record and stores the row (the builder's
 * side: see struct pipe).  Returns the words the record took. */
size_t build_row(struct scan *sc, const uint32_t *w, const char *base)
{
	size_t idx = w[0];
	long line = (long)((uint64_t)w[1] | (uint64_t)w[2] << 32) + sc->line_base;
	bool ranked = w[3] != 0;
	uint64_t rank = (uint64_t)w[4] | (uint64_t)w[5] << 32;
	const struct pseries *ps = &sc->p->series[idx];
	struct sstate *st = &sc->ss[idx];
	if (ps->table >= 0 && !shared_claim(sc, idx, line))
		return REC_HEAD + 2 * ps->ncols;
	const uint32_t *cell = w + REC_HEAD;
	/* the cells whose text is number_put()'s for their number */
	uint64_t shortest = 0;
	for (size_t j = 0; j < ps->ncols; j++, cell += 2) {
		const char *text = base + cell[0];
		if (st->sink && !st->sink->typed && ps->types[j] == VT_AUTO) {
			/* passed on as written: reading the number is wasted */
			st->cells[j] = datum_from_text_only(text, cell[1], line);
			continue;
		}
		st->dec[j] = -2; /* (not known) */
		if (ps->types[j] == VT_AUTO && !parser_style(sc->p)) {
			/* type_text()'s way for these, which also tells
			 * whether the text is the number's shortest, and its
			 * decimals (the store's survey, series_survey()) */
			bool sh;
			int dec;
			st->cells[j] = datum_from_text_fixed(text, cell[1], line, &sh, &dec);
			shortest |= (uint64_t)(sh && j < 64) << (j & 63);
			st->dec[j] = (signed char)dec;
			continue;
		}
		enum typed t = type_text(ps->types[j], parser_style(sc->p), text, cell[1], line,
					 &st->cells[j]);
		if (t != TYPED_OK && !st->warned[j]) {
			st->warned[j] = (unsigned char)t;
			st->warn_line[j] = line;
			st->warn_text[j] = xstrndup(st->cells[j].text, st->cells[j].len);
		}
	}
	if (!st->sink) {
		size_t before = series_row_count(st->s);
		add_row(st->s, &st->dd, st->cells, shortest, ranked, rank, line, st->dec);
		if (sc->row_added && series_row_count(st->s) == before + 1)
			sc->row_added(sc->state_ctx, idx, st->s, st->cells, line);
	} else if (st->sink->typed)
		stream_row(sc, idx, shortest, ranked, rank, line);
	else if (!ranked || add_row(st->s, &st->dd, st->cells, 0, ranked, rank, line, NULL))
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

void update_every_line(struct scan *sc)
{
	bool every = sc->tc.table >= 0 || sc->more.on;
	for (size_t i = 0; i < sc->nacts && !every; i++)
		every = !sc->acts[i].off && !sc->acts[i].pat->lit;
	sc->every_line = every;
}

/* Builds the row that waited for its more lines. */
void more_end(struct scan *sc)
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
		if (j >= ps->nown) {
			const struct buf *v = &sc->carry[ps->carried[j - ps->nown]];
			buf_put(&m->cells[j], buf_data(v), v->len);
		} else if (group_text(sc, ln, ps->groups[j], &t, &n)) {
			buf_put(&m->cells[j], t, n);
		}
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
		int rc = re_match(ps->more_until.code, ps->more_until.jit, ln->p, ln->n, 0, sc->m.md,
				  sc->m.mctx);
		if (rc < 0) {
			struct act a = {&ps->more_until, A_SERIES, m->series, NULL, false, 0};
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
	if (re_match(ps->pat.code, ps->pat.jit, ln->p, ln->n, 0, sc->m.md, sc->m.mctx) != 0) {
		more_end(sc);
		return;
	}
	if (c->len)
		buf_putc(c, '\n');
	buf_put(c, t, n);
	if (++m->taken >= ps->more_max)
		more_end(sc);
}

/* A row of series idx with carried columns: its own cells and the
 * carried values are copied one after another and the row is built at
 * once (a parser with `carry` has no builder thread: its values change
 * from line to line). */
static void carried_row(struct scan *sc, size_t idx, const struct line *ln, long line)
{
	assert(!sc->slot);
	const struct pseries *ps = &sc->p->series[idx];
	uint32_t *w = row_record(sc, ps->ncols);
	w[0] = (uint32_t)idx;
	w[1] = (uint32_t)(uint64_t)line;
	w[2] = (uint32_t)((uint64_t)line >> 32);
	w[3] = ln->ranked;
	w[4] = (uint32_t)ln->rank;
	w[5] = (uint32_t)(ln->rank >> 32);
	struct buf *b = &sc->carry_row;
	buf_clear(b);
	uint32_t *cell = w + REC_HEAD;
	for (size_t j = 0; j < ps->ncols; j++, cell += 2) {
		const char *s = NULL;
		size_t n = 0;
		if (j >= ps->nown) {
			const struct buf *v = &sc->carry[ps->carried[j - ps->nown]];
			s = buf_data(v), n = v->len;
		} else if (!group_text(sc, ln, ps->groups[j], &s, &n)) {
			n = 0;
		}
		cell[0] = (uint32_t)b->len;
		cell[1] = (uint32_t)n;
		if (n)
			buf_put(b, s, n);
	}
	build_row(sc, w, buf_data(b));
}

static void series_line(struct scan *sc, struct act *a, const struct line *ln, long line)
{
	const struct pseries *ps = &sc->p->series[a->idx];
	size_t start = 0;
	while (next_match(sc, a, ln, &start, line) > 0) {
		sc->hits++;
		/* A row held for its more lines, or one with carried cells:
		 * off the common path. */
		if (__builtin_expect(ps->slow, 0)) {
			if (ps->more_col >= 0)
				more_start(sc, a->idx, ln, line);
			else
				carried_row(sc, a->idx, ln, line);
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

/* A line of a carry: its groups are the values carried from now on (a
 * group that took no part carries nothing). */
static void carry_line(struct scan *sc, struct act *a, const struct line *ln, long line)
{
	const struct pcarry *cr = &sc->p->carries[a->idx];
	size_t start = 0;
	if (next_match(sc, a, ln, &start, line) <= 0)
		return;
	sc->hits++;
	for (size_t k = 0; k < cr->ncols; k++) {
		struct buf *v = &sc->carry[cr->first + k];
		const char *t;
		size_t n;
		buf_clear(v);
		if (group_text(sc, ln, cr->groups[k], &t, &n))
			buf_put(v, t, n);
	}
}

/* A line of a carry's reset: its values are dropped. */
static void reset_line(struct scan *sc, struct act *a, const struct line *ln, long line);

/* A line that a carry's pattern or its reset looks at: kept out of
 * scan_line(), whose other patterns are the common case. */
static __attribute__((noinline)) void carry_act(struct scan *sc, struct act *a,
						const struct line *ln, long line)
{
	if (a->what == A_CARRY)
		carry_line(sc, a, ln, line);
	else
		reset_line(sc, a, ln, line);
}

/* A line of a carry's reset: its values are dropped. */
static void reset_line(struct scan *sc, struct act *a, const struct line *ln, long line)
{
	const struct pcarry *cr = &sc->p->carries[a->idx];
	size_t start = 0;
	if (next_match(sc, a, ln, &start, line) <= 0)
		return;
	for (size_t k = 0; k < cr->ncols; k++)
		buf_clear(&sc->carry[cr->first + k]);
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
	e = crline_end(s, e, sc->has_caret);
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
		crline_last(&s, &e, sc->has_caret);
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

/* A line the split pattern matched: it starts the next run, unless it
 * is the file's first split line (the lines before it, a command and
 * its settings, are the first run's) or the run being read found
 * nothing since its own split line (a run announced by two lines, srun's
 * and the script's, is one run).  Its named groups are fields of the
 * run it starts or joins (a field already set there stays). */
static void split_restart(struct scan *sc, long line)
{
	if (sc->pipe)
		pipe_drain(sc->pipe, sc);
	if (sc->more.on)
		more_end(sc);
	table_finish(sc); /* a table ends with its run */
	sc->runs_done++;
	scan_restart(sc, sc->next_run(sc, line));
}

static void split_fields(struct scan *sc, const struct buf *texts, const bool *took, char *name,
			 long line);

static void split_line(struct scan *sc, const struct line *ln, long line)
{
	const struct psplit *sp = &sc->p->split;
	/* An end line belongs to the run it ends; the next run starts on
	 * the next line that is read (split_pending). */
	bool fresh = !sp->end && sc->splits > 0 && sc->hits > sc->split_mark;
	sc->splits++;
	if (sp->end) {
		sc->split_pending = true;
	} else {
		sc->split_now = true;
	}
	/* The groups' texts, before the run ends (typing may match). */
	struct buf *texts = xcalloc(sp->nfields + 1, sizeof *texts);
	bool *took = xcalloc(sp->nfields + 1, sizeof *took);
	for (size_t i = 0; i < sp->nfields; i++) {
		const char *t;
		size_t n;
		took[i] = group_text(sc, ln, sp->groups[i], &t, &n);
		if (took[i])
			buf_put(&texts[i], t, n);
	}
	const char *nm;
	size_t nm_n;
	char *name = group_text(sc, ln, sp->name_group, &nm, &nm_n) && nm_n ? xstrndup(nm, nm_n)
									      : NULL;
	if (sc->defer) {
		/* a parallel scanner: the builder, which has the run, takes
		 * the line's texts where it meets the line (split_replay()) */
		scanner_split(sc, texts, took, name, line);
		return;
	}
	if (fresh)
		split_restart(sc, line);
	split_fields(sc, texts, took, name, line);
	for (size_t i = 0; i < sp->nfields; i++)
		buf_free(&texts[i]);
	free(texts);
	free(took);
}

/* The split line's name and named groups (texts, when took), into the
 * run being read; takes name. */
static void split_fields(struct scan *sc, const struct buf *texts, const bool *took, char *name,
			 long line)
{
	const struct psplit *sp = &sc->p->split;
	if (name && !sc->split_name)
		sc->split_name = name;
	else
		free(name);
	for (size_t i = 0; i < sp->nfields; i++) {
		const struct datum *had = run_field(sc->r, sp->fields[i]);
		if (took[i] && !(had && had->line > 0)) {
			struct datum dt;
			type_text(VT_AUTO, parser_style(sc->p), buf_data(&texts[i]), texts[i].len, line,
				  &dt);
			run_set_field(sc->r, sp->fields[i], &dt);
		}
	}
}

void split_replay(struct scan *sc, const struct buf *texts, const bool *took, char *name,
		  long line)
{
	assert(sc->p->split.end);
	sc->splits++;
	split_fields(sc, texts, took, name, line);
	split_restart(sc, line + 1);
	sc->split_mark = sc->hits;
}

/* Act i's next literal at or after pos.  Acts are looked at in order, so
 * an earlier act with the same literal, unless switched off, has just
 * found it: the place is shared rather than searched for again (a
 * parser's patterns may share one, as cerebras's eval patterns do). */
static void lit_next(struct scan *sc, size_t i, const char *pos, const char *end)
{
	struct act *a = &sc->acts[i];
	const struct act *l = &sc->acts[a->lead];
	if (a->lead != i && !l->off && l->next && l->next >= pos) {
		a->next = l->next;
		return;
	}
	a->next = lit_find(a->pat, pos, end);
	if (!a->next)
		a->next = end;
}

static void scan_line(struct scan *sc, const char *ls, const char *le, const char *end)
{
	long line = sc->nl + 1;
	struct line ln;
	bool have = false;
	struct act *sa = sc->split;
	if (sa && !sa->off) {
		if (sa->pat->lit && (!sa->next || sa->next < ls)) {
			sa->next = lit_find(sa->pat, ls, end);
			if (!sa->next)
				sa->next = end;
		}
		if (!sa->pat->lit || sa->next < le) {
			normalize(sc, ls, le, &ln);
			have = true;
			size_t start = 0;
			if (next_match(sc, sa, &ln, &start, line) > 0)
				split_line(sc, &ln, line);
		}
	}
	bool was_table = sc->tc.table >= 0;
	if (was_table) {
		if (!have)
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
		if ((a->next && a->next >= le) || a->off || a == sa)
			continue;
		if (a->pat->lit) {
			if (!a->next || a->next < ls)
				lit_next(sc, i, ls, end);
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
		case A_CARRY:
		case A_RESET:
			carry_act(sc, a, &ln, line);
			changed |= a->off;
			break;
		case A_FRESET: {
			size_t start = 0;
			if (next_match(sc, a, &ln, &start, line) > 0)
				field_reset(&sc->fs[a->idx]);
			break;
		}
		case A_TABLE: {
			size_t start = 0;
			int rc = next_match(sc, a, &ln, &start, line);
			if (rc > 0)
				table_start(sc, a->idx, &ln, line);
			changed = true;
			break;
		}
		case A_SPLIT:
			break;
		}
	}
	if (sc->split_now) {
		/* what the split line itself holds is the new run's start */
		sc->split_now = false;
		sc->split_mark = sc->hits;
		changed = true;
	}
	if (sc->split_pending) {
		/* an end line ended its run: the next starts on the next line
		 * (one that finds nothing is dropped at the end of the file);
		 * a parallel scanner starts the chunk's next part */
		sc->split_pending = false;
		if (sc->defer) {
			scanner_cut(sc);
		} else {
			split_restart(sc, line + 1);
			sc->split_mark = sc->hits;
		}
		changed = true;
	}
	if (changed)
		update_every_line(sc);
}

void scan_chunk(struct scan *sc, const char *buf, const char *end)
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
				if (a->off || (a->lead != i && !sc->acts[a->lead].off))
					continue; /* off, or its lead's place is its own */
				if (!a->next || a->next < pos)
					lit_next(sc, i, pos, end);
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

/* The state of the run being read: what its fields found, its series
 * (declared ones exist, rows or not, so that an expression on an empty
 * one finds it) and tables. */
static void run_state_init(struct scan *sc)
{
	const struct parser *p = sc->p;
	sc->fs = xcalloc(p->nfields + 1, sizeof *sc->fs);
	sc->ss = xcalloc(p->nseries + 1, sizeof *sc->ss);
	sc->ts = xcalloc(p->ntables + 1, sizeof *sc->ts);
	for (size_t i = 0; i < p->nseries; i++) {
		const struct pseries *ps = &p->series[i];
		struct sstate *st = &sc->ss[i];
		/* One that shares its name with a table is made once the
		 * file is read: scan_finish_shared(). */
		if (ps->table < 0)
			st->s = run_add_series(sc->r, ps->name, (const char *const *)ps->cols,
					       ps->ncols);
		st->cells = xcalloc(ps->ncols + 1, sizeof *st->cells);
		st->dec = xcalloc(ps->ncols + 1, sizeof *st->dec);
		st->warned = xcalloc(ps->ncols + 1, sizeof *st->warned);
		st->warn_line = xcalloc(ps->ncols + 1, sizeof *st->warn_line);
		st->warn_text = xcalloc(ps->ncols + 1, sizeof *st->warn_text);
	}
}

static void run_state_free(struct scan *sc)
{
	for (size_t i = 0; i < sc->p->nfields; i++) {
		struct fstate *fs = &sc->fs[i];
		buf_free(&fs->text);
		buf_free(&fs->bad);
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
		run_free(st->ranked_run);
		free(st->cells);
		free(st->dec);
		free(st->warned);
		free(st->warn_line);
		for (size_t j = 0; j < sc->p->series[i].ncols; j++)
			free(st->warn_text[j]);
		free(st->warn_text);
	}
	for (size_t i = 0; sc->ts && i < sc->p->ntables; i++) {
		free(sc->ts[i].dd.v);
		free(sc->ts[i].warned);
	}
	free(sc->fs);
	free(sc->ss);
	free(sc->ts);
	sc->fs = NULL;
	sc->ss = NULL;
	sc->ts = NULL;
}

/* Appends an act for pat; *groups grows to the most groups a pattern
 * of the scan has (its matcher's size). */
static void add_act(struct scan *sc, const struct pattern *pat, enum act_kind what, size_t idx,
		    uint32_t *groups)
{
	sc->acts[sc->nacts++] = (struct act){pat, what, idx, NULL, false, 0};
	uint32_t g = pattern_groups(pat);
	*groups = g > *groups ? g : *groups;
}

void scan_init(struct scan *sc, const struct parser *p, struct run *r, struct diag *d,
		      const char *shown)
{
	memset(sc, 0, sizeof *sc);
	sc->p = p;
	sc->r = r;
	sc->d = d;
	sc->shown = shown;
	sc->tc.table = -1;
	uint32_t groups = 0;
	sc->acts = xcalloc(2 * p->nfields + p->nseries + p->ntables + 2 * p->ncarries + 2,
			   sizeof *sc->acts);
	if (p->split.pat.code) {
		add_act(sc, &p->split.pat, A_SPLIT, 0, &groups);
		sc->split = &sc->acts[0];
		sc->ever_rows = xcalloc(p->nseries + 1, sizeof *sc->ever_rows);
		sc->ever_found = xcalloc(p->ntables + 1, sizeof *sc->ever_found);
	}
	/* Carries next: a line that carries a value and is a row too (an
	 * epoch's header with its first step) gives the row its value. */
	for (size_t i = 0; i < p->ncarries; i++) {
		add_act(sc, &p->carries[i].pat, A_CARRY, i, &groups);
		if (p->carries[i].reset.code)
			add_act(sc, &p->carries[i].reset, A_RESET, i, &groups);
	}
	sc->carry = xcalloc(p->ncarry_cols + 1, sizeof *sc->carry);
	/* Resets before the fields: a line that resets a sum and is one of
	 * its matches counts in the new sum. */
	for (size_t i = 0; i < p->nfields; i++)
		if (p->fields[i].reset.code)
			add_act(sc, &p->fields[i].reset, A_FRESET, i, &groups);
	for (size_t i = 0; i < p->nfields; i++)
		add_act(sc, &p->fields[i].pat, A_FIELD, i, &groups);
	for (size_t i = 0; i < p->nseries; i++) {
		add_act(sc, &p->series[i].pat, A_SERIES, i, &groups);
		if (p->series[i].more_until.code) {
			/* matched by the act's matcher too */
			uint32_t g = pattern_groups(&p->series[i].more_until);
			groups = g > groups ? g : groups;
		}
	}
	for (size_t i = 0; i < p->ntables; i++)
		add_act(sc, &p->tables[i].header, A_TABLE, i, &groups);
	/* Acts whose patterns need the same literal share its search
	 * (lit_next()). */
	for (size_t i = 0; i < sc->nacts; i++) {
		const struct pattern *pi = sc->acts[i].pat;
		sc->acts[i].lead = i;
		for (size_t j = 0; j < i && pi->lit; j++) {
			const struct pattern *pj = sc->acts[j].pat;
			if (pj->lit && pj->litlen == pi->litlen &&
			    memcmp(pj->lit, pi->lit, pi->litlen) == 0) {
				sc->acts[i].lead = j;
				break;
			}
		}
	}
	run_state_init(sc);
	re_matcher_init(&sc->m, groups, re_line_limit());
	update_every_line(sc);
}

void scan_restart(struct scan *sc, struct run *r)
{
	for (size_t i = 0; i < sc->p->nseries; i++)
		sc->ever_rows[i] |= sc->ss[i].s && series_row_count(sc->ss[i].s) > 0;
	for (size_t i = 0; i < sc->p->ntables; i++)
		sc->ever_found[i] |= sc->ts[i].found;
	const struct row_sink **sinks = xcalloc(sc->p->nseries + 1, sizeof *sinks);
	for (size_t i = 0; i < sc->p->nseries; i++)
		sinks[i] = sc->ss[i].sink;
	run_state_free(sc);
	sc->r = r;
	run_state_init(sc);
	for (size_t i = 0; i < sc->p->nseries; i++)
		sc->ss[i].sink = sinks[i];
	free(sinks);
	free(sc->split_name);
	sc->split_name = NULL;
	/* a run carries nothing from the one before it */
	for (size_t i = 0; i < sc->p->ncarry_cols; i++)
		buf_free(&sc->carry[i]);
	/* first-pick fields look again; what only a sink's rows need
	 * stays off */
	for (size_t i = 0; i < sc->nacts; i++)
		sc->acts[i].off = sc->sink_off ? sc->sink_off[i] : false;
	update_every_line(sc);
}

void scan_free(struct scan *sc)
{
	run_state_free(sc);
	free(sc->rec);
	for (size_t i = 0; i < sc->more.ncells; i++)
		buf_free(&sc->more.cells[i]);
	free(sc->more.cells);
	buf_free(&sc->more.joined);
	for (size_t i = 0; sc->carry && i < sc->p->ncarry_cols; i++)
		buf_free(&sc->carry[i]);
	free(sc->carry);
	buf_free(&sc->carry_row);
	free(sc->acts);
	free(sc->cells);
	free(sc->row);
	free(sc->tc.ext);
	free(sc->tc.types);
	free(sc->ever_rows);
	free(sc->ever_found);
	free(sc->split_name);
	free(sc->sink_off);
	for (size_t k = 0; k < sc->tc.nfill; k++)
		buf_free(&sc->tc.fill_prev[k]);
	free(sc->tc.fill_prev);
	free(sc->tc.fill);
	free(sc->tc.carried);
	buf_free(&sc->tc.pend);
	buf_free(&sc->tc.dcells);
	re_matcher_free(&sc->m);
}

void scan_finish_shared(struct scan *sc)
{
	const struct parser *p = sc->p;
	for (size_t i = 0; p->shared && i < p->nseries; i++) {
		const struct pseries *ps = &p->series[i];
		if (ps->table >= 0 && !sc->ss[i].s && !sc->ts[ps->table].found)
			sc->ss[i].s = run_add_series(sc->r, ps->name, (const char *const *)ps->cols,
						     ps->ncols);
	}
}

void scan_warn_silent(struct scan *sc)
{
	const struct parser *p = sc->p;
	if (p->builtin || sc->hits == 0)
		return;
	for (size_t i = 0; i < p->nseries; i++) {
		const struct sstate *st = &sc->ss[i];
		/* Rows streamed to a sink are not kept in the series (a
		 * typed sink's are counted). */
		if ((st->sink && !st->sink->typed) || !st->s || series_row_count(st->s) > 0 || p->series[i].pat.never ||
		    p->series[i].optional || (sc->ever_rows && sc->ever_rows[i]) ||
		    (p->series[i].table >= 0 && (sc->ts[p->series[i].table].found ||
						 (sc->ever_found && sc->ever_found[p->series[i].table]))))
			continue;
		log_diag(sc, false, 0, "series '%s' has no rows: its pattern '%s' matched no line",
			 p->series[i].name, p->series[i].pat.src);
	}
	for (size_t i = 0; i < p->ntables; i++) {
		const struct tstate *ts = &sc->ts[i];
		if (ts->found || p->tables[i].header.never || p->tables[i].optional ||
		    (sc->ever_found && sc->ever_found[i]) ||
		    (p->tables[i].series >= 0 &&
		     ((sc->ss[p->tables[i].series].s &&
		       series_row_count(sc->ss[p->tables[i].series].s) > 0) ||
		      (sc->ever_rows && sc->ever_rows[p->tables[i].series]))))
			continue;
		if (ts->header_line)
			log_diag(sc, false, ts->header_line,
				 "table '%s' was not found: its header pattern '%s' matched this "
				 "line, but no table followed (rows of cells split by '|' or by two "
				 "spaces)",
				 p->tables[i].name, p->tables[i].header.src);
		else
			log_diag(sc, false, 0,
				 "table '%s' was not found: its header pattern '%s' matched no line",
				 p->tables[i].name, p->tables[i].header.src);
	}
}


bool scan_resume_ok(const struct scan *sc, int fd, off_t size, uint64_t point)
{
	/* The first buffer scan_file() would read, which the binary probe
	 * and srun's labels look at. */
	size_t cap = CHUNK_BYTES;
	if ((size_t)size + 1 < cap)
		cap = (size_t)size + 1 < 4096 ? 4096 : (size_t)size + 1;
	size_t want = (size_t)size < cap ? (size_t)size : cap;
	/* A first buffer that ends at or before the point is the first
	 * buffer of the scan that took the state (size was at least the
	 * point then too, so it read a whole CHUNK_BYTES): bytes the state
	 * was taken on, which the caller has checked against its digest.
	 * Nothing to read back: 4 MiB not read on every build that
	 * continues a big log (a prose edit while the job runs). */
	if ((uint64_t)want <= point)
		return true;
	char *buf = xmalloc(want + 1);
	size_t have = 0;
	while (have < want) {
		ssize_t n = pread(fd, buf + have, want - have, (off_t)have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	size_t probe = have < BINARY_PROBE ? have : BINARY_PROBE;
	bool ok = have == want &&
		  !(point < probe && memchr(buf + point, '\0', probe - (size_t)point)) &&
		  looks_labelled(buf, buf + have) == sc->srun_labels;
	free(buf);
	return ok;
}

/* The state is taken at the end of the last whole line (every thread
 * done with what came before), then the rest of the file is read: a
 * last line without its '\n'. */
static void scan_capture(struct scan *sc, const char *tail, size_t n)
{
	/* Parallel scanners left the fields to the builder: a field
	 * picked first and found is off, as on one thread. */
	for (size_t i = 0; i < sc->nacts; i++) {
		struct act *a = &sc->acts[i];
		const struct pfield *f = a->what == A_FIELD ? &sc->p->fields[a->idx] : NULL;
		if (f && f->first && !(f->name[0] == '*' && !f->name[1]) && sc->fs[a->idx].found)
			a->off = true;
	}
	update_every_line(sc);
	/* A split file whose first run has ended is several runs, which
	 * the cache does not keep: no state either. */
	if (!sc->runs_done) {
		scan_state_save(sc, sc->capture);
		sc->captured = true;
	}
	if (n) {
		sc->slot = NULL;
		sc->base = tail;
		scan_chunk(sc, tail, tail + n);
	}
}

/* The bytes read at a time for a sink: well inside a core's second-level
 * cache (1 to 2 MiB on the machines of docs/performance.md). */
#define SINK_READ ((size_t)512 << 10)

/* Reads the file in chunks and scans each; false after an error. */
bool scan_file(struct scan *sc, int fd, off_t size)
{
	size_t cap = CHUNK_BYTES;
	if (size >= 0 && (size_t)size + 1 < cap)
		cap = (size_t)size + 1 < 4096 ? 4096 : (size_t)size + 1;
	struct pipe *pp = NULL;
	/* A split parser's runs follow one another.  When each split line
	 * ends its run (`split: {end: ...}`), scanners find them as any
	 * match and the builder, taking the chunks in order, ends the runs
	 * there (split_replay()).  A split line that starts a run starts it
	 * only if the run before found something since its own split line,
	 * which a scanner of a later chunk cannot know: such a log is
	 * scanned in order on this thread, and the builder is waited for at
	 * each split line (pipe_drain()). */
	if (size > PIPE_MIN) {
		bool apart = (!sc->split || sc->p->split.end) && parallel_ok(sc->p);
		size_t nscan = apart ? scan_threads() : 0;
		/* A row with more lines is built where it ends: at once; so
		 * is one of a series that shares its name with a table
		 * (shared_claim()), and one with carried values while they
		 * hold. */
		if ((sc->p->nseries && !has_more(sc->p) && !sc->p->shared && !sc->p->ncarries) ||
		    nscan)
			pp = pipe_start(sc, nscan);
	}
	bool par = pp && pp->nscanners;
	sc->pipe = par ? NULL : pp;
	if (par)
		sc->line_base = sc->nl; /* lines before the scan's start (resumed) */
	bool grab = sc->capture != NULL;
	char *tail = NULL;
	size_t tail_n = 0;
	struct slot single = {0};
	size_t k = 0; /* the slot being filled, when there is a builder */
	struct slot *cur = pp ? pipe_acquire(pp, 0) : &single;
	slot_reserve(cur, cap);
	size_t have = 0;
	unsigned long long total = 0;
	bool first = !sc->resumed, eof = false, ok = true, skipping = false, cut = false;
	long pending_nl = 0; /* parallel: '\n' passed over, for the next slot */
	int read_errno = 0;
	char last = '\n';
	while (!eof) {
		char *buf = cur->buf;
		cap = cur->cap;
		while (have < cap) {
			/* with a sink, a read at a time that the sink and the
			 * count then find in the CPU's cache */
			size_t want = cap - have;
			if (sc->sink && want > SINK_READ)
				want = SINK_READ;
			ssize_t n = read(fd, buf + have, want);
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
			if (sc->sink)
				sc->sink(sc->sink_ctx, buf + have, (size_t)n);
			if (sc->count)
				line_count_feed(sc->count, buf + have, (size_t)n);
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
					 "binary file (a NUL byte on line %ld): " FORMATS_READ,
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
			grab = false; /* a cut line: no state */
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
		} else if (grab) {
			/* A last line without its '\n' is read after the state
			 * is taken: it may yet go on. */
			const char *nl = memrchr(start, '\n', (size_t)(end - start));
			end = nl ? nl + 1 : start;
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
	if (grab) {
		tail = xmalloc(have + 1);
		memcpy(tail, cur->buf, have);
		tail_n = have;
		sc->point_read = total - have;
	}
out:
	sc->slot = NULL;
	sc->pipe = NULL;
	if (pp)
		pipe_finish(pp);
	slot_free(&single, sc->p);
	if (par) {
		sc->nl = sc->line_base + pending_nl;
		sc->line_base = 0;
	}
	if (read_errno)
		log_diag(sc, true, 0, "cannot read: %s", strerror(read_errno));
	if (ok && grab && tail)
		scan_capture(sc, tail, tail_n);
	free(tail);
	if (ok)
		run_set_line_count(sc->r, sc->nl + (last != '\n' ? 1 : 0));
	return ok;
}
