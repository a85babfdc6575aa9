/* rundump.h: everything a report can read of a run (its fields, the
 * implicit ones too, its series cell by cell with their lines, its
 * members), as one text: two runs that give the same text read the
 * same.  For the unit tests that compare a run read back (test_runstore)
 * or resumed (test_scanstate) with the one parsed; its parts for those
 * that compare what else they read (test_streamrun). */
#ifndef LOGDOWN_TEST_RUNDUMP_H
#define LOGDOWN_TEST_RUNDUMP_H

#include "base/util.h"
#include "data/run.h"

/* r's own fields: each with its kind, number, text, line and inputs. */
static inline void run_dump_fields(struct buf *b, const struct run *r)
{
	for (size_t i = 0; i < run_field_count(r); i++) {
		const char *name = run_field_name(r, i);
		const struct datum *d = run_field_at(r, i);
		const char *inputs = run_field_inputs(r, name);
		buf_printf(b, "field %s %d %.17g %s[%.*s] %ld {%s}\n", name, (int)d->kind, d->num,
			   d->text ? "" : "null", (int)d->len, d->text ? d->text : "", d->line,
			   inputs ? inputs : "-");
	}
}

/* A series' name, row count, dropped rows and columns. */
static inline void run_dump_series_head(struct buf *b, const struct series *s)
{
	long first;
	size_t dropped = series_dropped(s, &first);
	buf_printf(b, "series %s rows %zu dropped %zu at %ld:", series_name(s),
		   series_row_count(s), dropped, first);
	for (size_t j = 0; j < series_column_count(s); j++)
		buf_printf(b, " %s", series_column(s, j));
	buf_putc(b, '\n');
}

static inline void run_dump(struct buf *b, const struct run *r)
{
	static const char *const implicit[] = {"name", "file", "parser", "line_count"};
	buf_printf(b, "run %s first %ld\n", run_name(r), run_first_line(r));
	for (size_t i = 0; i < ARRAY_LEN(implicit); i++) {
		const struct datum *d = run_field(r, implicit[i]);
		buf_printf(b, "%s %d %.17g [%.*s] %ld\n", implicit[i], (int)d->kind, d->num,
			   (int)d->len, d->text ? d->text : "", d->line);
	}
	run_dump_fields(b, r);
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		run_dump_series_head(b, s);
		for (size_t row = 0; row < series_row_count(s); row++) {
			buf_printf(b, "%ld:", series_row_line(s, row));
			for (size_t j = 0; j < series_column_count(s); j++) {
				struct datum d;
				series_cell(s, row, j, &d);
				buf_printf(b, " %d/%.17g/%s[%.*s]/%ld", (int)d.kind, d.num,
					   d.text ? "" : "null", (int)d.len, d.text ? d.text : "",
					   d.line);
			}
			buf_putc(b, '\n');
		}
	}
	for (size_t i = 0; i < run_member_count(r); i++)
		run_dump(b, run_member_at(r, i));
}

#endif
