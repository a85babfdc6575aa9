/* logparse.c: running a parser over one result file (parser_run()):
 * the file checked to be text, scanned (scan.c) or read by a structured
 * reader (structured.c), its fields typed and set in definition order,
 * then its derive entries evaluated.  The definitions are parserdef.c's
 * and detection detect.c's. */
#include "parse/logparse.h"

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
#include "literal.h"
#include "parse/structured.h"
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
			 "field '%s': '%.*s' is not a number in the parser's number_style (%s); "
			 "kept as text",
			 name, (int)dt.len, dt.text, numstyle_describe(&sc->p->style));
		break;
	}
	run_set_field(sc->r, name, &dt);
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
					 "parser's number_style (%s); kept as text",
					 ps->cols[j], ps->name, st->warn_text[j],
					 numstyle_describe(&sc->p->style));
	}
	bool complete = true;
	for (size_t i = 0; i < sc->p->nfields; i++) {
		const struct pfield *f = &sc->p->fields[i];
		struct fstate *fs = &sc->fs[i];
		if (f->name[0] == '*' && !f->name[1]) {
			for (size_t k = 0; k < fs->nnames; k++)
				set_typed_field(sc, f, fs->names[k].name, buf_data(&fs->names[k].text),
						fs->names[k].text.len, fs->names[k].line);
			continue;
		}
		if (fs->found) {
			set_typed_field(sc, f, f->name, buf_data(&fs->text), fs->text.len, fs->line);
		} else if (f->def) {
			struct datum dt;
			type_text(f->type, parser_style(sc->p), f->def, f->def_len, 0, &dt);
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

/* Evaluates the derive entries in order.  When the file lacks some of
 * the parser's names (a run cut short), a derive that cannot be
 * computed is quietly missing; otherwise its error is reported. */
static void derive_all(const struct parser *p, struct run *r, bool complete, struct diag *d)
{
	for (size_t i = 0; i < p->nderives; i++) {
		const struct pderive *dv = &p->derives[i];
		struct scope scope;
		memset(&scope, 0, sizeof scope);
		scope.run = r;
		struct eval ev;
		memset(&ev, 0, sizeof ev);
		char *sink_text = NULL;
		size_t sink_len = 0;
		FILE *sink = open_memstream(&sink_text, &sink_len);
		bool ok = false;
		if (sink) {
			struct diag *quiet = diag_new(sink, DIAG_TEXT, false);
			ok = expr_eval(dv->e, &scope, &ev, quiet);
			diag_free(quiet);
			fclose(sink);
		}
		free(sink_text);
		if (!ok) {
			struct datum missing = {DATUM_MISSING, 0, NULL, 0, 0};
			if (complete || !sink) {
				if (p->builtin)
					diag_add_source(d, p->file, p->source, p->source_len);
				memset(&ev, 0, sizeof ev);
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

struct run *parser_run_sink(const struct parser *p, const char *path, const char *shown,
			    const char *run_name, const struct row_sink *sink, struct diag *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s",
			   S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
		close(fd);
		return NULL;
	}
	struct run *r = run_new(run_name, shown, p->name);
	struct scan sc;
	scan_init(&sc, p, r, d, shown);
	sc.quote = st.st_size <= QUOTE_LIMIT;
	for (size_t i = 0; sink && i < p->nseries; i++)
		if (strcmp(p->series[i].name, sink->series) == 0)
			sc.ss[i].sink = sink;
	bool ok;
	if (p->format == FMT_TEXT) {
		ok = scan_file(&sc, fd, st.st_size);
		if (ok && sc.more.on)
			more_end(&sc); /* the file ended the row */
		if (ok)
			table_finish(&sc);
	} else {
		/* The structured readers want the whole text; check it is
		 * text first, with the same words as for a log. */
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
		else if (memchr(probe, '\0', (size_t)n)) {
			log_diag(&sc, true, 0, "binary file (a NUL byte on line %ld); parsers read text",
				 count_nl(probe, (const char *)memchr(probe, '\0', (size_t)n)) + 1);
			ok = false;
		}
		if (ok) {
			ok = p->format == FMT_JSON   ? structured_read_json(r, path, shown, d)
			     : p->format == FMT_YAML ? structured_read_yaml(r, path, shown, d)
						     : structured_read_csv(r, path, shown, d);
		}
		if (ok && run_line_count(r) == 0 && lseek(fd, 0, SEEK_SET) == 0) {
			long lines;
			char buf[65536];
			if (fd_count_lines(fd, buf, sizeof buf, &lines, NULL))
				run_set_line_count(r, lines);
		}
	}
	close(fd);
	for (size_t i = 0; ok && i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		long first;
		size_t dropped = series_dropped(s, &first);
		if (dropped) {
			diag_error(d, loc_line(shown, (int)first),
				   "series '%s' has more than %lu rows: %zu more were not read (%s)",
				   series_name(s), limit_get(LIMIT_SERIES_ROWS), dropped,
				   limit_hint(LIMIT_SERIES_ROWS));
			ok = false;
		}
	}
	if (!ok || sc.failed) {
		scan_free(&sc);
		run_free(r);
		return NULL;
	}
	bool complete = p->format == FMT_TEXT ? finish_fields(&sc) : true;
	if (p->format == FMT_TEXT && sc.hits == 0 && sc.nacts > 0)
		log_diag(&sc, false, 0, "parser '%s' matched nothing in %s", p->name, shown);
	else if (p->format == FMT_TEXT)
		scan_warn_silent(&sc);
	scan_free(&sc);
	derive_all(p, r, complete, d);
	return r;
}

