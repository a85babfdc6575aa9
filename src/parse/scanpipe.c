/* scanpipe.c: the scanner's threads for a big log (struct pipe in
 * scan.h): the row builder, which types and stores series rows while the
 * reading thread goes on, and the scanners, which scan chunks apart on
 * one thread per core and whose findings the builder puts back in file
 * order. */
#include "scan.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void names_free(struct named *v, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(v[k].name);
		buf_free(&v[k].text);
	}
	free(v);
}

static void fields_free(struct slot_field *f, size_t nfields)
{
	for (size_t i = 0; f && i < nfields; i++) {
		buf_free(&f[i].text);
		names_free(f[i].names, f[i].nnames);
	}
	free(f);
}

/* The end lines a slot holds (nsplits back to 0); nfields and ntexts:
 * the parser's fields and its split's named groups. */
static void splits_clear(struct slot *sl, size_t nfields, size_t ntexts)
{
	for (size_t k = 0; k < sl->nsplits; k++) {
		struct slot_split *e = &sl->splits[k];
		fields_free(e->fields, nfields);
		for (size_t i = 0; e->texts && i < ntexts; i++)
			buf_free(&e->texts[i]);
		free(e->texts);
		free(e->took);
		free(e->name);
	}
	sl->nsplits = 0;
}

void slot_free(struct slot *sl, const struct parser *p)
{
	free(sl->buf);
	free(sl->rows);
	fields_free(sl->fields, p->nfields);
	free(sl->fails);
	splits_clear(sl, p->nfields, p->split.nfields);
	free(sl->splits);
}

void slot_reserve(struct slot *sl, size_t cap)
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
size_t scan_threads(void)
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
bool has_more(const struct parser *p)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (p->series[i].more_col >= 0)
			return true;
	return false;
}

/* Can chunks of a log be scanned apart?  Not when a table, a series'
 * more lines or a carry's values hold state from one line to the next,
 * nor with a field that sums or counts its matches.  A '*' field's names
 * found in a chunk are merged in file order, as a field's match is. */
bool parallel_ok(const struct parser *p)
{
	if (p->ntables || has_more(p) || p->ncarries)
		return false;
	for (size_t i = 0; i < p->nfields; i++)
		if (p->fields[i].agg != AGG_NONE)
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
	re_matcher_init(&w->m, groups, re_line_limit());
	if (sc->split)
		w->split = w->acts + (sc->split - sc->acts);
}

/* What the scanner's fields found, into f (the fields of a slot or of
 * one of its end lines); its fields then start afresh. */
static void take_fields(struct scan *w, struct slot_field *f)
{
	for (size_t i = 0; i < w->p->nfields; i++) {
		struct fstate *fs = &w->fs[i];
		f[i].found = fs->found;
		f[i].line = fs->line;
		buf_clear(&f[i].text);
		buf_put(&f[i].text, buf_data(&fs->text), fs->text.len);
		fs->found = false;
		buf_clear(&fs->text);
		/* A '*' field's names go too. */
		names_free(f[i].names, f[i].nnames);
		f[i].names = fs->names;
		f[i].nnames = fs->nnames;
		fs->names = NULL;
		fs->nnames = fs->names_cap = 0;
		free(fs->index);
		fs->index = NULL;
		fs->index_cap = 0;
	}
}

void scanner_split(struct scan *w, struct buf *texts, bool *took, char *name, long line)
{
	struct slot *sl = w->slot;
	if (sl->nsplits == sl->splits_cap) {
		sl->splits_cap = sl->splits_cap ? sl->splits_cap * 2 : 4;
		sl->splits = xrealloc(sl->splits, sl->splits_cap * sizeof *sl->splits);
	}
	sl->splits[sl->nsplits++] = (struct slot_split){line, 0, 0, 0, NULL, texts, took, name};
}

void scanner_cut(struct scan *w)
{
	struct slot *sl = w->slot;
	assert(sl->nsplits > 0);
	struct slot_split *e = &sl->splits[sl->nsplits - 1];
	e->words = sl->nwords;
	e->nfails = sl->nfails;
	e->hits = w->hits;
	w->hits = 0;
	e->fields = xcalloc(w->p->nfields + 1, sizeof *e->fields);
	take_fields(w, e->fields);
	/* The next run looks for its first-pick fields again, and tries
	 * a pattern that failed again, as scan_restart() has it. */
	for (size_t i = 0; i < w->nacts; i++)
		w->acts[i].off = false;
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
	assert(sl->nsplits == 0);
	update_every_line(w);
	scan_chunk(w, sl->buf + sl->from, sl->buf + sl->to);
	sl->nl = w->nl;
	sl->hits = w->hits;
	if (p->nfields && !sl->fields)
		sl->fields = xcalloc(p->nfields, sizeof *sl->fields);
	/* the next chunk starts with no field found */
	take_fields(w, sl->fields);
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
		 * picked first is found, a failed pattern is reported.  Not
		 * with split, whose next run (in a chunk taken later, or one
		 * taken before but after this one in the file) looks again. */
		for (size_t i = 0; !w->sc.split && i < sl->nfails; i++)
			pp->act_over[sl->fails[i].act] = true;
		for (size_t k = 0; !w->sc.split && k < w->sc.nacts; k++) {
			const struct act *a = &w->sc.acts[k];
			if (a->what == A_FIELD && p->fields[a->idx].first && sl->fields[a->idx].found)
				pp->act_over[k] = true;
		}
		sl->scanned = true;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
}

/* The failed patterns of a chunk scanned apart from *from up to to,
 * each reported once a run (scan_restart() tries them again). */
static void merge_fails(struct pipe *pp, const struct slot *sl, size_t *from, size_t to)
{
	struct scan *sc = pp->sc;
	for (; *from < to; ++*from) {
		const struct slot_fail *f = &sl->fails[*from];
		if (pp->reported[f->act])
			continue;
		pp->reported[f->act] = 1;
		struct act *a = &sc->acts[f->act];
		char *what = act_what(sc, a);
		pattern_failed(sc, a, what, f->rc, sc->line_base + f->line);
		free(what);
	}
}

/* What the fields found in a chunk scanned apart (or in the part of it
 * before an end line), merged into the run's: a field picked first
 * from the first chunk that has it, one picked last from the last. */
static void merge_fields(struct pipe *pp, struct slot_field *fields, size_t hits)
{
	struct scan *sc = pp->sc;
	const struct parser *p = sc->p;
	long base = sc->line_base;
	for (size_t i = 0; i < p->nfields; i++) {
		struct slot_field *f = &fields[i];
		struct fstate *fs = &sc->fs[i];
		for (size_t k = 0; k < f->nnames; k++) {
			bool fresh;
			struct named *e = named_get(fs, f->names[k].name, strlen(f->names[k].name),
						    &fresh);
			if (p->fields[i].first && !fresh)
				continue;
			buf_clear(&e->text);
			buf_put(&e->text, buf_data(&f->names[k].text), f->names[k].text.len);
			e->line = base + f->names[k].line;
		}
		names_free(f->names, f->nnames);
		f->names = NULL;
		f->nnames = 0;
		if (!f->found || (p->fields[i].first && fs->found))
			continue;
		buf_clear(&fs->text);
		buf_put(&fs->text, buf_data(&f->text), f->text.len);
		fs->found = true;
		fs->line = base + f->line;
	}
	sc->hits += hits;
}

/* The builder's side of a chunk scanned apart: where its lines start,
 * its cut line, then, part by part up to each end line it holds, failed
 * patterns, fields and rows, the run ended at the end line; then the
 * rest.  The same calls in the same order as one thread reading the
 * file from its start makes. */
static void build_apart(struct pipe *pp, struct slot *sl)
{
	struct scan *sc = pp->sc;
	sc->line_base += sl->nl_before;
	if (sl->cut)
		log_diag(sc, false, sc->line_base + 1,
			 "this line is longer than %zu MiB: only its start is read", MAX_LINE >> 20);
	size_t fail = 0, w = 0;
	for (size_t k = 0; k < sl->nsplits; k++) {
		struct slot_split *e = &sl->splits[k];
		merge_fails(pp, sl, &fail, e->nfails);
		merge_fields(pp, e->fields, e->hits);
		while (w < e->words)
			w += build_row(sc, sl->rows + w, sl->buf);
		split_replay(sc, e->texts, e->took, e->name, sc->line_base + e->line);
		e->name = NULL; /* taken */
		memset(pp->reported, 0, sc->nacts);
	}
	splits_clear(sl, sc->p->nfields, sc->p->split.nfields);
	merge_fails(pp, sl, &fail, sl->nfails);
	merge_fields(pp, sl->fields, sl->hits);
	while (w < sl->nwords)
		w += build_row(sc, sl->rows + w, sl->buf);
	sc->line_base += sl->nl;
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
		if (pp->nscanners) {
			build_apart(pp, sl);
			/* the builder alone touches the run meanwhile */
			if (pp->sc->rows_built)
				pp->sc->rows_built(pp->sc->state_ctx);
		} else
			for (size_t w = 0; w < sl->nwords;)
				w += build_row(pp->sc, sl->rows + w, sl->buf);
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
		slot_free(&pp->slots[i], pp->sc->p);
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
struct pipe *pipe_start(struct scan *sc, size_t nscanners)
{
	struct pipe *pp = xcalloc(1, sizeof *pp);
	pp->sc = sc;
	pp->nslots = nscanners ? nscanners + 2 : NSLOTS;
	pp->slots = xcalloc(pp->nslots, sizeof *pp->slots);
	pp->act_over = xcalloc(sc->nacts + 1, sizeof *pp->act_over);
	/* acts the scan switched off before it began (a sink's) */
	for (size_t i = 0; i < sc->nacts; i++)
		pp->act_over[i] = sc->acts[i].off;
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
struct slot *pipe_acquire(struct pipe *pp, size_t k)
{
	pthread_mutex_lock(&pp->mu);
	while (k >= pp->consumed + pp->nslots)
		pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
	return &pp->slots[k % pp->nslots];
}

/* Hands slot k (the next in order) to the scanners or the builder. */
void pipe_publish(struct pipe *pp)
{
	pthread_mutex_lock(&pp->mu);
	pp->published++;
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
}

void pipe_drain(struct pipe *pp, struct scan *sc)
{
	assert(!pp->nscanners);
	pthread_mutex_lock(&pp->mu);
	while (pp->consumed < pp->published)
		pthread_cond_wait(&pp->cv, &pp->mu);
	pthread_mutex_unlock(&pp->mu);
	struct slot *sl = sc->slot;
	for (size_t w = 0; w < sl->nwords;)
		w += build_row(sc, sl->rows + w, sl->buf);
	sl->nwords = 0;
}

/* Waits for the threads to finish every slot handed to them. */
void pipe_finish(struct pipe *pp)
{
	pipe_stop_scanners(pp);
	pthread_join(pp->thread, NULL);
	pthread_cond_destroy(&pp->cv);
	pthread_mutex_destroy(&pp->mu);
	pipe_free(pp);
}
