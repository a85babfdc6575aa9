/* logparse.c: running a parser over one result file (parser_run()):
 * the file checked to be text, scanned (scan.c) or read by a structured
 * reader (structured.c), its fields typed and set in definition order,
 * then its derive entries evaluated.  The definitions are parserdef.c's
 * and detection detect.c's. */
#include "parse/logparse.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/limit.h"
#include "expr/expr.h"
#include "derivecarry.h"
#include "literal.h"
#include "parse/notebook.h"
#include "parse/dllogger.h"
#include "parse/structured.h"
#include "parse/xmlread.h"
#include "parse/tfevents.h"
#include "scan.h"

#define QUOTE_LIMIT ((off_t)4 << 20) /* bigger logs are not quoted */

static void set_typed_field(struct scan *sc, const struct pfield *f, const char *name,
			    const char *text, size_t len, long line)
{
	struct datum dt;
	switch (type_text(f->type, parser_style(sc->p), text, len, line, &dt)) {
	case TYPED_OK:
		break;
	case TYPED_NOT_TYPE:
		log_diag(sc, false, line, "field '%s' is a %s, but '%.*s' is not one; kept as text",
			 name, vtype_names[f->type], (int)dt.len, dt.text);
		break;
	case TYPED_NOT_STYLE:
		log_diag(sc, false, line,
			 "field '%s': '%.*s' is not a number in the %s number_style (%s); "
			 "kept as text",
			 name, (int)dt.len, dt.text, style_owner(sc->p),
			 numstyle_describe(&sc->p->style));
		break;
	}
	run_set_field(sc->r, name, &dt);
}

static bool is_star(const struct pfield *f)
{
	return f->name[0] == '*' && !f->name[1];
}

/* Did a '*' field find a value named `name`?  Then a field declared by
 * that name that found nothing leaves it, rather than its default or a
 * missing value. */
static bool star_found(const struct scan *sc, const char *name)
{
	for (size_t i = 0; i < sc->p->nfields; i++) {
		if (!is_star(&sc->p->fields[i]))
			continue;
		const struct fstate *fs = &sc->fs[i];
		for (size_t k = 0; k < fs->nnames; k++)
			if (strcmp(fs->names[k].name, name) == 0)
				return true;
	}
	return false;
}

/* A field that matched: its last (or first) match, or, with pick: sum
 * or count, every match.  A sum of one match keeps its text and line;
 * a sum of several, and a count, are computed. */
static void set_found_field(struct scan *sc, const struct pfield *f, const struct fstate *fs)
{
	if (f->agg == AGG_SUM && fs->bad_line)
		log_diag(sc, false, fs->bad_line,
			 "field '%s' adds up its matches, but '%.*s' is not a number; left out "
			 "of the sum",
			 f->name, (int)fs->bad.len, buf_data(&fs->bad));
	if (f->agg == AGG_NONE || (f->agg == AGG_SUM && fs->count == 1 && !fs->bad_line)) {
		set_typed_field(sc, f, f->name, buf_data(&fs->text), fs->text.len, fs->line);
		return;
	}
	struct datum dt = {DATUM_NUMBER, f->agg == AGG_SUM ? fs->sum : (double)fs->count, NULL,
			   0, 0};
	run_set_field(sc->r, f->name, &dt);
	char *inputs = fs->count == 1
			       ? xasprintf("%s of 1 match (line %ld)",
					   f->agg == AGG_SUM ? "the sum" : "the count", fs->line)
			       : xasprintf("%s of %zu matches (lines %ld to %ld)",
					   f->agg == AGG_SUM ? "the sum" : "the count", fs->count,
					   fs->first_line, fs->line);
	run_set_field_inputs(sc->r, f->name, inputs);
	free(inputs);
}

/* The fields, in the order of the definition, once the file is read.
 * Returns whether every declared field got a value. */
static bool finish_fields(struct scan *sc)
{
	scan_finish_shared(sc);
	for (size_t i = 0; i < sc->p->nseries; i++) {
		const struct pseries *ps = &sc->p->series[i];
		const struct sstate *st = &sc->ss[i];
		for (size_t j = 0; j < ps->ncols; j++)
			if (st->warned[j] == TYPED_NOT_TYPE)
				log_diag(sc, false, st->warn_line[j],
					 "column '%s' of series '%s' is a %s, but '%s' is not one; kept "
					 "as text",
					 ps->cols[j], ps->name, vtype_names[ps->types[j]],
					 st->warn_text[j]);
			else if (st->warned[j] == TYPED_NOT_STYLE)
				log_diag(sc, false, st->warn_line[j],
					 "column '%s' of series '%s': '%s' is not a number in the "
					 "%s number_style (%s); kept as text",
					 ps->cols[j], ps->name, st->warn_text[j], style_owner(sc->p),
					 numstyle_describe(&sc->p->style));
	}
	bool complete = true;
	for (size_t i = 0; i < sc->p->nfields; i++) {
		const struct pfield *f = &sc->p->fields[i];
		struct fstate *fs = &sc->fs[i];
		if (is_star(f)) {
			for (size_t k = 0; k < fs->nnames; k++)
				set_typed_field(sc, f, fs->names[k].name, buf_data(&fs->names[k].text),
						fs->names[k].text.len, fs->names[k].line);
			continue;
		}
		if (f->alt)
			continue; /* with the first alternative */
		/* Of a field's alternatives, the one that matched latest in
		 * the file gives the value; on one line, the first listed. */
		size_t w = i;
		bool any = false;
		const struct pfield *def = NULL;
		for (size_t k = i; k < i + f->nalts; k++) {
			if (!def && sc->p->fields[k].def)
				def = &sc->p->fields[k];
			if (sc->fs[k].found && (!any || sc->fs[k].line > sc->fs[w].line)) {
				w = k;
				any = true;
			}
		}
		const struct pfield *wf = &sc->p->fields[w];
		/* A match of an alternative whose value is null: missing. */
		bool found = any && !(wf->has_value && !wf->value);
		/* Found by both, the later in the definition wins; found by
		 * the '*' field only, its value stands (set above or below)
		 * rather than this one's default or a missing value. */
		if (!found && star_found(sc, f->name))
			continue;
		if (found) {
			set_found_field(sc, wf, &sc->fs[w]);
		} else if (def) {
			struct datum dt;
			type_text(def->type, parser_style(sc->p), def->def, def->def_len, 0, &dt);
			run_set_field(sc->r, f->name, &dt);
		} else if (!any && f->nalts == 1 && f->agg == AGG_COUNT) {
			/* No match: a count of 0. */
			struct datum dt = {DATUM_NUMBER, 0, NULL, 0, 0};
			run_set_field(sc->r, f->name, &dt);
		} else {
			/* Declared but not in this file: missing, shown as —. */
			struct datum dt = {DATUM_MISSING, 0, NULL, 0, 0};
			run_set_field(sc->r, f->name, &dt);
			complete = false;
		}
	}
	/* A series and a table of one name: a file holds one of them. */
	for (size_t i = 0; i < sc->p->nseries; i++)
		complete &= (sc->ss[i].s && series_row_count(sc->ss[i].s) > 0) ||
			    (sc->p->series[i].table >= 0 && sc->ts[sc->p->series[i].table].found);
	for (size_t i = 0; i < sc->p->ntables; i++)
		complete &= sc->ts[i].found || sc->p->tables[i].series >= 0;
	return complete;
}

/* Evaluates the derive entries in order, a list of alternatives by its
 * first that can be computed.  When the file lacks some of the parser's
 * names (a run cut short), a derive that cannot be computed is quietly
 * missing; otherwise its error is reported. */
/* `logdown parse --json`'s streaming (parser_run_stream()): the
 * aggregations the derives take of each run's series, kept as the rows
 * pass. */
struct stream_agg {
	size_t series, col;
	struct expr_agg a;
};

struct streaming {
	const struct parser *p;
	const struct row_stream *out;
	struct row_sink sink; /* its typed() is stream_row() */
	struct stream_agg *aggs;
	size_t naggs;
};

static long stream_series(const struct parser *p, const char *name)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (p->series[i].table < 0 && strcmp(p->series[i].name, name) == 0)
			return (long)i;
	return -1;
}

static bool is_streamed(void *ctx, const char *name)
{
	const struct streaming *st = ctx;
	return stream_series(st->p, name) >= 0;
}

static void stream_need(void *ctx, const char *series, const char *column, int fn)
{
	struct streaming *st = ctx;
	long i = stream_series(st->p, series);
	const struct pseries *ps = &st->p->series[i];
	for (size_t c = 0; c < ps->ncols; c++) {
		if (strcmp(ps->cols[c], column) != 0)
			continue;
		for (size_t k = 0; k < st->naggs; k++)
			if (st->aggs[k].series == (size_t)i && st->aggs[k].col == c &&
			    st->aggs[k].a.fn == fn)
				return;
		st->aggs = xrealloc(st->aggs, (st->naggs + 1) * sizeof *st->aggs);
		struct stream_agg *g = &st->aggs[st->naggs++];
		g->series = (size_t)i;
		g->col = c;
		expr_agg_init(&g->a, fn);
		return;
	}
	/* no such column: the derive's error says so */
}

/* Fills st's aggregations for p's derives; false when one of them needs
 * a series' rows. */
static bool stream_plan(struct streaming *st, const struct parser *p)
{
	st->p = p;
	if (p->format != FMT_TEXT)
		return false;
	for (size_t i = 0; i < p->nderives; i++)
		if (!expr_streamable(p->derives[i].e, is_streamed, stream_need, st))
			return false;
	return true;
}

static void stream_free(struct streaming *st)
{
	for (size_t k = 0; k < st->naggs; k++)
		expr_agg_free(&st->aggs[k].a);
	free(st->aggs);
}

bool parser_streams(const struct parser *p)
{
	struct streaming st = {0};
	bool ok = stream_plan(&st, p);
	stream_free(&st);
	return ok;
}

static void stream_row(void *ctx, size_t idx, const struct series *s, const struct datum *cells,
		       uint64_t shortest, long line)
{
	struct streaming *st = ctx;
	for (size_t k = 0; k < st->naggs; k++) {
		struct stream_agg *g = &st->aggs[k];
		if (g->series != idx)
			continue;
		const struct datum *dt = &cells[g->col];
		/* marked as series_append_shortest() keeps the mark */
		bool sh = g->col < 64 && shortest >> g->col & 1 && dt->kind == DATUM_NUMBER &&
			  dt->text && dt->len;
		expr_agg_add(&g->a, dt, sh, -1);
	}
	st->out->row(st->out->ctx, s, cells, shortest, line);
}

/* scope.streamed: the aggregation of the run's series taken as its
 * rows passed. */
static const struct expr_agg *stream_lookup(const void *ctx, const struct series *s, size_t col,
					    int fn)
{
	const struct streaming *st = ctx;
	long i = stream_series(st->p, series_name(s));
	for (size_t k = 0; i >= 0 && k < st->naggs; k++)
		if (st->aggs[k].series == (size_t)i && st->aggs[k].col == col &&
		    st->aggs[k].a.fn == fn)
			return &st->aggs[k].a;
	assert(!series_counted(s));
	return NULL;
}

static void derive_all(const struct parser *p, struct run *r, bool complete,
		       const struct streaming *stream, struct derive_carry *carry, struct diag *d)
{
	/* The aggregates carried with a resume state (derivecarry.c), for
	 * the run they were folded over: the rows since folded in. */
	bool carried = !stream && carry && carry->n && carry->run == r;
	if (carried)
		derive_carry_fold(carry);
	for (size_t i = 0; i < p->nderives; i++) {
		if (p->derives[i].alt)
			continue; /* with the first alternative */
		const struct pderive *dv = &p->derives[i];
		struct scope scope;
		memset(&scope, 0, sizeof scope);
		scope.run = r;
		if (stream) {
			scope.streamed = stream_lookup;
			scope.streamed_ctx = stream;
		} else if (carried) {
			scope.streamed = derive_carry_lookup;
			scope.streamed_ctx = carry;
		}
		struct eval ev;
		memset(&ev, 0, sizeof ev);
		bool ok = false, sink = true;
		/* Of a derive's alternatives, the first that gives a value
		 * wins; when none can be computed, the last one's error is
		 * reported (or the value is quietly missing). */
		for (size_t k = i; k < i + p->derives[i].nalts && !(ok && ev.kind != EVAL_MISSING);
		     k++) {
			dv = &p->derives[k];
			eval_clear(&ev);
			memset(&ev, 0, sizeof ev);
			char *sink_text = NULL;
			size_t sink_len = 0;
			FILE *f = open_memstream(&sink_text, &sink_len);
			sink = f != NULL;
			if (f) {
				struct diag *quiet = diag_new(f, DIAG_TEXT, false);
				ok = expr_eval(dv->e, &scope, &ev, quiet);
				diag_free(quiet);
				fclose(f);
			}
			free(sink_text);
		}
		if (!ok) {
			struct datum missing = {DATUM_MISSING, 0, NULL, 0, 0};
			if (complete || !sink) {
				if (p->builtin)
					diag_add_source(d, p->file, p->source, p->source_len);
				eval_clear(&ev);
				ok = expr_eval(dv->e, &scope, &ev, d);
			}
			if (!ok) {
				run_set_field(r, dv->name, &missing);
				continue;
			}
		}
		struct datum dt = {DATUM_MISSING, 0, ev.text, ev.len, ev.line};
		switch (ev.kind) {
		case EVAL_NUMBER:
			dt.kind = DATUM_NUMBER;
			dt.num = ev.num;
			break;
		case EVAL_STRING:
			dt.kind = DATUM_STRING;
			break;
		case EVAL_BOOL:
			dt.kind = DATUM_STRING;
			dt.text = ev.boolean ? "true" : "false";
			dt.len = strlen(dt.text);
			dt.line = 0;
			break;
		case EVAL_MISSING:
			break;
		case EVAL_LIST:
			if (p->builtin)
				diag_add_source(d, p->file, p->source, p->source_len);
			diag_error(d, dv->loc,
				   "derive '%s' gives a whole column; pick one value with first, "
				   "last, min, max, mean, median, sum, count, std or percentile",
				   dv->name);
			dt.text = NULL;
			break;
		}
		if (dt.kind == DATUM_NUMBER || dt.kind == DATUM_STRING || ev.kind == EVAL_MISSING) {
			if (!dt.text)
				dt.line = 0;
			run_set_field(r, dv->name, &dt);
			if (dt.line == 0 && ev.inputs)
				run_set_field_inputs(r, dv->name, ev.inputs);
		}
		eval_clear(&ev);
	}
}

/* The runs of a file a split parser reads, before the last one (which
 * the scan is still reading). */
struct split_runs {
	const struct parser *p;
	const char *shown, *run_name;
	struct diag *d;
	struct run **runs;
	char **names; /* the name group's text, or NULL */
	size_t n;
	struct streaming *stream; /* parser_run_stream(), or NULL */
	struct derive_carry *carry; /* appends: the first run's, or NULL */
};

static void split_push(struct split_runs *sr, struct run *r, char *name)
{
	sr->runs = xrealloc(sr->runs, (sr->n + 1) * sizeof *sr->runs);
	sr->names = xrealloc(sr->names, (sr->n + 1) * sizeof *sr->names);
	sr->runs[sr->n] = r;
	sr->names[sr->n++] = name;
}

/* A split line ends sc->r: its fields are set and its derive computed,
 * and the next run starts at `line`. */
static struct run *split_next(struct scan *sc, long line)
{
	struct split_runs *sr = sc->split_ctx;
	bool complete = finish_fields(sc);
	derive_all(sr->p, sc->r, complete, sr->stream, sr->carry, sr->d);
	/* the next run's aggregations start afresh */
	for (size_t k = 0; sr->stream && k < sr->stream->naggs; k++)
		expr_agg_reset(&sr->stream->aggs[k].a);
	split_push(sr, sc->r, sc->split_name);
	sc->split_name = NULL;
	struct run *r = run_new(sr->run_name, sr->shown, sr->p->name);
	run_set_first_line(r, line);
	return r;
}

static void split_free(struct split_runs *sr)
{
	for (size_t i = 0; i < sr->n; i++) {
		run_free(sr->runs[i]);
		free(sr->names[i]);
	}
	free(sr->runs);
	free(sr->names);
}

/* The runs of a split file into one that holds them, each named
 * "NAME.MEMBER": by its name group made an identifier, else run1,
 * run2, ...  NULL after an error (two runs of one name). */
static struct run *split_whole(struct split_runs *sr, struct scan *sc)
{
	struct run *whole = run_new(sr->run_name, sr->shown, sr->p->name);
	long lines = run_line_count(sr->runs[sr->n - 1]);
	run_set_line_count(whole, lines);
	char **short_names = xcalloc(sr->n + 1, sizeof *short_names);
	bool ok = true;
	for (size_t i = 0; i < sr->n; i++) {
		short_names[i] = sr->names[i] ? identifier_of(sr->names[i]) : xasprintf("run%zu", i + 1);
		for (size_t k = 0; k < i && ok; k++)
			if (strcmp(short_names[k], short_names[i]) == 0) {
				log_diag(sc, true, run_first_line(sr->runs[i]),
					 "this run and the one at line %ld are both named '%s' (by "
					 "split's name group): a report could not tell them apart",
					 run_first_line(sr->runs[k]), short_names[i]);
				ok = false;
			}
	}
	for (size_t i = 0; i < sr->n; i++) {
		struct run *m = sr->runs[i];
		char *full = xasprintf("%s.%s", sr->run_name, short_names[i]);
		run_set_name(m, full);
		free(full);
		run_set_line_count(m, lines);
		run_add_member(whole, m);
		free(short_names[i]);
		free(sr->names[i]);
	}
	free(short_names);
	free(sr->runs);
	free(sr->names);
	sr->runs = NULL;
	sr->names = NULL;
	sr->n = 0;
	if (!ok) {
		run_free(whole);
		return NULL;
	}
	return whole;
}

const char *const *parser_series_columns(const struct parser *p, const char *name,
					 size_t *ncols)
{
	if (p->format != FMT_TEXT)
		return NULL;
	/* A series that shares its name with a table may be filled by the
	 * table, whose columns are known once it is read. */
	for (size_t i = 0; i < p->nseries; i++)
		if (strcmp(p->series[i].name, name) == 0 && p->series[i].table < 0) {
			*ncols = p->series[i].ncols;
			return (const char *const *)p->series[i].cols;
		}
	return NULL;
}

struct run *parser_run(const struct parser *p, const char *path, const char *shown,
		       const char *run_name, struct diag *d)
{
	return parser_run_sink(p, path, shown, run_name, NULL, d);
}

/* A scan of the file into r, the runs of a split file into sr, the
 * rows of the sink's series to it. */
static void scan_setup(struct scan *sc, struct split_runs *sr, struct run *r,
		       const struct row_sink *sink, off_t size)
{
	const struct parser *p = sr->p;
	scan_init(sc, p, r, sr->d, sr->shown);
	sc->quote = size <= QUOTE_LIMIT;
	sc->next_run = split_next;
	sc->split_ctx = sr;
	if (sr->stream) {
		/* every series lines fill: typed, counted, handed on */
		for (size_t i = 0; i < p->nseries; i++)
			if (p->series[i].table < 0)
				sc->ss[i].sink = &sr->stream->sink;
		return;
	}
	if (!sink)
		return;
	for (size_t i = 0; i < p->nseries; i++)
		if (strcmp(p->series[i].name, sink->series) == 0)
			sc->ss[i].sink = sink;
	/* Only the sink's rows go out: the fields, the other series and
	 * the tables that do not fill it are not looked for.  What shapes
	 * its rows (carry, split) is. */
	for (size_t i = 0; i < sc->nacts; i++) {
		struct act *a = &sc->acts[i];
		bool keep = true;
		switch (a->what) {
		case A_FIELD:
		case A_FRESET:
			keep = false;
			break;
		case A_SERIES:
			keep = strcmp(p->series[a->idx].name, sink->series) == 0;
			break;
		case A_TABLE:
			keep = strcmp(p->tables[a->idx].name, sink->series) == 0;
			break;
		case A_SPLIT:
			/* Rows come out in file order whatever the runs; a
			 * parser without line-to-line state is then read on
			 * several threads, as without split. */
			keep = !parallel_ok(p);
			if (!keep)
				sc->split = NULL;
			break;
		case A_CARRY:
		case A_RESET:
			break;
		}
		if (!keep)
			a->off = true;
	}
	sc->sink_only = true;
	sc->sink_off = xcalloc(sc->nacts + 1, sizeof *sc->sink_off);
	for (size_t i = 0; i < sc->nacts; i++)
		sc->sink_off[i] = sc->acts[i].off;
	update_every_line(sc);
}

/* The number style of the file open at fd, from the first line among
 * its first STYLE_PROBE bytes that p's number_style from: pattern
 * matches (without its leading blanks, as patterns see lines): the last '.' or ',' in what its first group (else the whole
 * match) captures is the decimal mark, the other one the thousands
 * separator.  False when no line tells (none matches, or its number
 * has neither): the parser's own style stays. */
#define STYLE_PROBE (1 << 20)
static bool style_sniff(const struct parser *p, int fd, struct numstyle *out)
{
	char *buf = xmalloc(STYLE_PROBE);
	ssize_t n;
	do
		n = pread(fd, buf, STYLE_PROBE, 0);
	while (n < 0 && errno == EINTR);
	bool told = false;
	struct re_matcher m;
	re_matcher_init(&m, 1, re_line_limit());
	for (size_t at = 0; n > 0 && at < (size_t)n && !told;) {
		const char *line = buf + at;
		const char *nl = memchr(line, '\n', (size_t)n - at);
		size_t len = nl ? (size_t)(nl - line) : (size_t)n - at;
		at += len + 1;
		while (len && (*line == ' ' || *line == '\t'))
			line++, len--;
		if (len && line[len - 1] == '\r')
			len--;
		for (size_t j = 0; j < p->nstyle_from && !told; j++) {
			const struct pattern *pat = &p->style_from[j];
			if (re_match(pat->code, pat->jit, line, len, 0, m.md, m.mctx) != 1)
				continue;
			size_t g = m.ov_pairs > 1 && m.ov[2] != PCRE2_UNSET ? 1 : 0;
			char mark = 0;
			for (size_t k = m.ov[2 * g]; k < m.ov[2 * g + 1]; k++)
				if (line[k] == '.' || line[k] == ',')
					mark = line[k];
			if (mark) {
				out->decimal = mark;
				out->thousands = mark == '.' ? ',' : '.';
				told = true;
			}
		}
	}
	re_matcher_free(&m);
	free(buf);
	return told;
}

/* A file whose number style no line told: the first field that reads as
 * a number only in the other style says so, at its line. */
static void style_untold(struct scan *sc, const struct run *r)
{
	const struct parser *p = sc->p;
	struct numstyle other = {',', '.'};
	if (p->styled && p->style.decimal == ',')
		other = (struct numstyle){'.', ','};
	for (size_t i = 0; i < run_field_count(r); i++) {
		const struct datum *d = run_field_at(r, i);
		double x;
		if (d->kind != DATUM_STRING || !d->text ||
		    !number_parse_style(&other, d->text, d->len, &x))
			continue;
		log_diag(sc, false, d->line,
			 "field '%s': '%.*s' is a number only with '%c' decimals, and no line "
			 "tells this file's number style (number_style from: '%s' matched "
			 "none); kept as text",
			 run_field_name(r, i), (int)d->len, d->text, other.decimal,
			 p->style_from[0].src);
		return;
	}
}

/* scan.rows_built: the rows built so far folded into the derives'
 * aggregates, on the builder's thread while the next chunks are read
 * and scanned (the same steps in the same order as after the parse). */
static void carry_fold(void *ctx)
{
	derive_carry_fold(ctx);
}

/* scan.row_added: the row just built folded as it is. */
static void carry_row(void *ctx, size_t series, const struct series *s,
		      const struct datum *cells, long line)
{
	derive_carry_row(ctx, series, s, cells, line);
}

static struct run *parse_file(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct row_sink *sink,
			    struct streaming *stream, const struct scan_point *from,
			    struct scan_point *to, bool *refused, struct diag *d);

struct run *parser_run_sink(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct row_sink *sink, struct diag *d)
{
	return parse_file(p, path, shown, run_name, sink, NULL, NULL, NULL, NULL, d);
}

struct run *parser_run_stream(const struct parser *p, const char *path, const char *shown,
			      const char *run_name, const struct row_stream *rs,
			      struct diag *d)
{
	struct streaming st = {0};
	bool ok = stream_plan(&st, p);
	assert(ok);
	(void)ok;
	st.out = rs;
	st.sink.typed = stream_row;
	st.sink.ctx = &st;
	struct run *r = parse_file(p, path, shown, run_name, NULL, &st, NULL, NULL, NULL, d);
	stream_free(&st);
	return r;
}

struct run *parser_run_from(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct scan_point *from,
			    struct scan_point *to, bool *refused, struct diag *d)
{
	bool dummy = false;
	return parse_file(p, path, shown, run_name, NULL, NULL, from, to, refused ? refused : &dummy,
			  d);
}

/* Can the scanner's state of p over this file be carried to a later,
 * longer version of it? */
static bool state_carries(const struct parser *p, bool is_nb, const struct row_sink *sink)
{
	return p->format == FMT_TEXT && !is_nb && !sink && !p->nstyle_from;
}

static void release_run(void *r)
{
	run_free(r);
}

/* scan.state_more: the derives' aggregates, after the state. */
static void carry_save(void *ctx, struct buf *out)
{
	derive_carry_save(ctx, out);
}

static struct run *parse_file(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct row_sink *sink,
			    struct streaming *stream, const struct scan_point *from,
			    struct scan_point *to, bool *refused, struct diag *d)
{
	parser_jit(p); /* before the copy below, which carries its flags */
	struct stat st;
	int fd = open_regular(path, &st);
	if (fd < 0) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s", open_error(errno));
		run_free(from ? from->prev : NULL); /* taken */
		return NULL;
	}
	/* A notebook's text parsers read the log its cells printed. */
	struct notebook nb = {0};
	bool is_nb = p->format == FMT_TEXT && notebook_is_named(path, shown);
	if (is_nb) {
		close(fd);
		if (!notebook_load(path, shown, &nb, d)) {
			notebook_free(&nb);
			run_free(from ? from->prev : NULL);
			return NULL;
		}
		fd = notebook_fd(&nb);
		if (fd < 0) {
			diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
			notebook_free(&nb);
			run_free(from ? from->prev : NULL);
			return NULL;
		}
		st.st_size = (off_t)nb.len;
	}
	/* number_style: {from: ...}: this file's own style, unless the
	 * report gave the run one. */
	struct parser styled;
	bool untold = false;
	if (p->nstyle_from && !p->run_style && p->format == FMT_TEXT) {
		styled = *p;
		if (style_sniff(p, fd, &styled.style)) {
			styled.styled = true;
			p = &styled;
		} else {
			untold = true;
		}
	}
	struct run *r = run_new(run_name, shown, p->name);
	struct scan sc;
	struct split_runs sr = {p, shown, run_name, d, NULL, NULL, 0, stream, NULL};
	scan_setup(&sc, &sr, r, sink, st.st_size);
	if (is_nb) {
		sc.nb = &nb;
		sc.quote = false;
	}
	bool ok;
	bool carries = state_carries(p, is_nb, sink);
	if (to && carries)
		sc.capture = &to->state;
	/* A state taken or resumed: the derives' aggregates that read every
	 * row go with it, so that a resumed parse folds only the new rows. */
	struct derive_carry dc;
	memset(&dc, 0, sizeof dc);
	if (carries && !stream && (sc.capture || from))
		derive_carry_init(&dc, p, r);
	if (dc.n) {
		sr.carry = &dc;
		sc.state_more = carry_save;
		sc.state_ctx = &dc;
		sc.rows_built = carry_fold;
		sc.row_added = carry_row;
	}
	/* The resumed run reads its first rows where the stored one does:
	 * it holds it (and frees it with itself, refused or not). */
	if (from)
		run_hold(r, from->prev, release_run);
	if (from && (!carries || (off_t)from->point >= st.st_size ||
		     !scan_state_load(&sc, buf_data(&from->state), from->state.len, from->prev) ||
		     !scan_resume_ok(&sc, fd, st.st_size, from->point) ||
		     lseek(fd, (off_t)from->point, SEEK_SET) != (off_t)from->point)) {
		*refused = true;
		close(fd);
		scan_free(&sc);
		derive_carry_free(&dc);
		run_free(r);
		notebook_free(&nb);
		return NULL;
	}
	/* (not carried, or not these derives': each from the first row) */
	if (from && dc.n)
		derive_carry_load(&dc, sc.state_more_in.p, sc.state_more_in.len);
	if (p->format == FMT_TEXT) {
		sc.resumed = from != NULL;
		/* the file's own lines, from its start (a notebook's text is
		 * not the file's) */
		if (to && to->count && !from && !is_nb) {
			line_count_start(to->count, to->count->ix.every);
			sc.count = to->count;
		}
		if (to && to->sink && !from && !is_nb) {
			sc.sink = to->sink;
			sc.sink_ctx = to->sink_ctx;
		}
		ok = scan_file(&sc, fd, from ? st.st_size - (off_t)from->point : st.st_size);
		if (sc.count)
			to->counted = ok;
		if (to && sc.captured)
			to->point = (from ? from->point : 0) + sc.point_read;
		if (ok && sc.more.on)
			more_end(&sc); /* the file ended the row */
		if (ok)
			table_finish(&sc);
	} else if (p->format == FMT_TFEVENTS) {
		ok = tfevents_read(r, path, shown, d); /* binary: no text to probe */
	} else {
		/* The structured readers want text (but a format of binary
		 * records); check it is, with the same words as for a log. */
		char probe[4096];
		ssize_t n;
		do
			n = read(fd, probe, sizeof probe);
		while (n < 0 && errno == EINTR);
		ok = n > 0;
		if (n < 0)
			log_diag(&sc, true, 0, "cannot read: %s", strerror(errno));
		else if (n == 0)
			log_diag(&sc, true, 0, "empty file");
		else if (!format_reads_binary(p->format) && memchr(probe, '\0', (size_t)n)) {
			log_diag(&sc, true, 0, "binary file (a NUL byte on line %ld): " FORMATS_READ,
				 count_nl(probe, (const char *)memchr(probe, '\0', (size_t)n)) + 1);
			ok = false;
		}
		if (ok) {
			ok = p->format == FMT_JSON    ? structured_read_json_leaving(r, path, shown, d,
										  p->leave_out,
										  p->nleave_out)
			     : p->format == FMT_YAML  ? structured_read_yaml(r, path, shown, d)
			     : p->format == FMT_XML   ? xmlread_generic(r, path, shown, d)
			     : p->format == FMT_JUNIT ? xmlread_junit(r, path, shown, d)
			     : p->format == FMT_DLLOGGER ? dllogger_read(r, path, shown, d)
						      : structured_read_csv_with(r, path, shown, &p->csv, d);
		}
		if (ok && run_line_count(r) == 0 && lseek(fd, 0, SEEK_SET) == 0) {
			long lines;
			char buf[65536];
			if (fd_count_lines(fd, buf, sizeof buf, &lines, NULL))
				run_set_line_count(r, lines);
		}
	}
	close(fd);
	r = sc.r; /* the last run, when the file was split */
	for (size_t k = 0; k <= sr.n; k++) {
		const struct run *rk = k < sr.n ? sr.runs[k] : r;
		for (size_t i = 0; ok && i < run_series_count(rk); i++) {
			const struct series *s = run_series_at(rk, i);
			long first;
			size_t dropped = series_dropped(s, &first);
			if (dropped) {
				diag_error(d, loc_line(shown, (int)first),
					   "series '%s' has more than %lu rows: %zu more were not "
					   "read (%s)",
					   series_name(s), limit_get(LIMIT_SERIES_ROWS), dropped,
					   limit_hint(LIMIT_SERIES_ROWS));
				ok = false;
			}
		}
	}
	if (!ok || sc.failed) {
		scan_free(&sc);
		derive_carry_free(&dc);
		split_free(&sr);
		run_free(r);
		notebook_free(&nb);
		return NULL;
	}
	/* After a split end line, a run that found nothing (the file's
	 * last lines, a closing fence) is no run: the one it ended is the
	 * last. */
	char *last_name = NULL;
	if (p->split.end && sr.n && sc.hits == sc.split_mark) {
		scan_warn_silent(&sc); /* before the empty run's series go */
		long lines = run_line_count(r);
		run_free(r);
		r = sr.runs[--sr.n];
		run_set_line_count(r, lines);
		last_name = sr.names[sr.n];
	} else {
		bool complete = p->format == FMT_TEXT ? finish_fields(&sc) : true;
		if (sc.sink_only)
			; /* only the sink's rows were looked for */
		else if (p->format == FMT_TEXT && sc.hits == 0 && sc.nacts > 0)
			log_diag(&sc, false, 0, "parser '%s' matched nothing in %s", p->name,
				 shown);
		else if (p->format == FMT_TEXT)
			scan_warn_silent(&sc);
		if (untold && !sc.sink_only)
			style_untold(&sc, r);
		derive_all(p, r, complete, sr.stream, sr.carry, d);
		if (dc.n && dc.run == r)
			derive_carry_note(&dc);
		last_name = sc.split_name;
		sc.split_name = NULL;
	}
	if (sr.n) {
		/* a file of several runs */
		split_push(&sr, r, last_name);
		r = split_whole(&sr, &sc);
	} else {
		/* one run after all (what followed its end line found nothing) */
		free(last_name);
		free(sr.runs);
		free(sr.names);
	}
	scan_free(&sc);
	derive_carry_free(&dc);
	notebook_free(&nb);
	return r;
}
