/* describe.c: what a parser reads, how it is detected and what it
 * extracts, from its loaded definition (parser_describe()): the page
 * `logdown parsers NAME` prints and, as Markdown, the section of
 * docs/builtin-parsers.md (`logdown parsers --markdown`).  Everything
 * shown comes from the definition itself, so the page cannot drift
 * from what the parser does. */
#include "parser.h"

#include <string.h>

#include "base/util.h"

/* What a file of this format becomes without fields or series. */
static const char *format_gist(enum pformat f)
{
	switch (f) {
	case FMT_JSON:
		return "JSON: every key of the file (nested keys joined with dots), lists of "
		       "objects as series named by their key path";
	case FMT_YAML:
		return "YAML: every key of the file, read like JSON";
	case FMT_CSV:
		return "CSV: the series rows, its columns the header's cells in snake_case";
	case FMT_XML:
		return "XML: the root's attributes as fields, every other element with attributes "
		       "as a row of the series named after it (docs/parsers.md, XML files)";
	case FMT_JUNIT:
		return "JUnit XML: the totals as fields, the series testcases and testsuites";
	case FMT_TFEVENTS:
		return "TensorBoard event files: one series per scalar tag (step, wall_time, value), "
		       "a row's line its record number";
	case FMT_DLLOGGER:
		return "DLLogger: every `DLLL {json}` line; the series log, the PARAMETER and "
		       "summary events' data as fields";
	case FMT_TEXT:
		break;
	}
	return "text: lines matched by the patterns below";
}

/* Text of a description with its line breaks (and the blanks around
 * them) made one space: a YAML folded scalar already is so, a literal
 * one is not.  Runs of spaces inside a line ("[  PASSED  ]") stay. */
static void put_flat(struct buf *b, const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t')
		s++;
	while (*s) {
		size_t run = strspn(s, " \t\n");
		if (run) {
			bool nl = memchr(s, '\n', run) != NULL;
			if (s[run])
				nl ? buf_putc(b, ' ') : buf_put(b, s, run);
			s += run;
			continue;
		}
		buf_putc(b, *s++);
	}
}

/* Words of s wrapped to width columns, each line after indent spaces. */
static void put_wrapped(struct buf *b, const char *s, size_t indent, size_t width)
{
	struct buf flat = BUF_INIT;
	put_flat(&flat, s);
	const char *p = buf_data(&flat);
	size_t col = 0;
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strlen(p);
		if (col && col + 1 + n > width) {
			buf_putc(b, '\n');
			col = 0;
		}
		if (col == 0) {
			for (size_t i = 0; i < indent; i++)
				buf_putc(b, ' ');
			col = indent;
		} else {
			buf_putc(b, ' ');
			col++;
		}
		buf_put(b, p, n);
		col += n;
		p += n;
		if (*p == ' ')
			p++; /* one space between words; more stay */
	}
	if (col)
		buf_putc(b, '\n');
	buf_free(&flat);
}

/* A column's name, with its declared type when it has one: "time_ms
 * (duration_ms)". */
static void put_column(struct buf *b, const char *name, enum vtype type, bool md)
{
	buf_printf(b, md ? "`%s`" : "%s", name);
	if (type != VT_AUTO)
		buf_printf(b, " (%s)", vtype_names[type]);
}

static void put_carried(struct buf *b, const struct parser *p, const size_t *carried, size_t n,
			bool md)
{
	for (size_t k = 0; k < n; k++) {
		buf_puts(b, ", ");
		put_column(b, p->carry_cols[carried[k]], VT_AUTO, md);
	}
}

/* One labelled item: "  fields    a, b, c" in text, "- **Fields**: ..."
 * in Markdown; body already formatted. */
static void put_item(struct buf *b, const char *label, const char *body, bool md)
{
	if (md) {
		buf_printf(b, "- **%s**: %s\n", label, body);
		return;
	}
	/* The body wraps under itself, after the label's column. */
	enum { LABEL = 10 };
	buf_printf(b, "%-*s", LABEL, label);
	struct buf w = BUF_INIT;
	put_wrapped(&w, body, LABEL, 78);
	buf_puts(b, buf_data(&w) + (w.len > LABEL ? LABEL : 0));
	buf_free(&w);
}

static void put_fields(struct buf *b, const struct parser *p, bool md)
{
	struct buf list = BUF_INIT;
	for (size_t i = 0; i < p->nfields; i++) {
		const struct pfield *f = &p->fields[i];
		if (f->alt)
			continue;
		if (list.len)
			buf_puts(&list, ", ");
		if (strcmp(f->name, "*") == 0) {
			buf_printf(&list, md ? "every name its `%.*s` finds, in snake_case"
					     : "every name its '%.*s' finds, in snake_case",
				   (int)f->pat.len, f->pat.src);
			continue;
		}
		put_column(&list, f->name, f->type, md);
	}
	for (size_t i = 0; i < p->nderives; i++) {
		if (p->derives[i].alt)
			continue;
		if (list.len)
			buf_puts(&list, ", ");
		put_column(&list, p->derives[i].name, VT_AUTO, md);
		buf_puts(&list, " (computed)");
	}
	if (p->split.pat.code)
		for (size_t i = 0; i < p->split.nfields; i++) {
			if (list.len)
				buf_puts(&list, ", ");
			put_column(&list, p->split.fields[i], VT_AUTO, md);
			buf_puts(&list, " (of each run)");
		}
	if (list.len)
		put_item(b, md ? "Fields" : "fields", buf_data(&list), md);
	buf_free(&list);
}

static void put_series(struct buf *b, const struct parser *p, bool md)
{
	for (size_t i = 0; i < p->nseries; i++) {
		const struct pseries *s = &p->series[i];
		if (s->table >= 0)
			continue; /* shown with its table */
		struct buf body = BUF_INIT;
		buf_printf(&body, md ? "`%s`: " : "%s: ", s->name);
		for (size_t j = 0; j < s->nown; j++) {
			if (j)
				buf_puts(&body, ", ");
			put_column(&body, s->cols[j], s->types[j], md);
		}
		put_carried(&body, p, s->carried, s->ncols - s->nown, md);
		if (s->optional)
			buf_puts(&body, " (may be absent)");
		put_item(b, md ? "Series" : "series", buf_data(&body), md);
		buf_free(&body);
	}
}

static void put_tables(struct buf *b, const struct parser *p, bool md)
{
	for (size_t i = 0; i < p->ntables; i++) {
		const struct ptable *t = &p->tables[i];
		struct buf body = BUF_INIT;
		buf_printf(&body, md ? "`%s`: " : "%s: ", t->name);
		if (t->nnames) {
			for (size_t j = 0; j < t->nnames; j++) {
				if (j)
					buf_puts(&body, ", ");
				enum vtype type = VT_AUTO;
				for (size_t k = 0; k < t->ntypes; k++)
					if (strcmp(t->type_cols[k], t->names[j]) == 0)
						type = t->types[k];
				put_column(&body, t->names[j], type, md);
			}
			buf_puts(&body, ", and any other header cell in snake_case");
		} else {
			buf_puts(&body, "a column per header cell, in snake_case");
			for (size_t k = 0; k < t->ntypes; k++) {
				buf_puts(&body, k ? ", " : " (");
				put_column(&body, t->type_cols[k], t->types[k], md);
			}
			if (t->ntypes)
				buf_puts(&body, ")");
		}
		put_carried(&body, p, t->carried, t->ncarried, md);
		if (t->series >= 0)
			buf_puts(&body, "; or the rows of the series of its name");
		if (t->optional)
			buf_puts(&body, " (may be absent)");
		put_item(b, md ? "Table" : "table", buf_data(&body), md);
		buf_free(&body);
	}
}

/* The detect patterns and extensions, as a sentence. */
static void put_detection(struct buf *b, const struct parser *p, bool md)
{
	struct buf body = BUF_INIT;
	if (p->ndetect) {
		buf_puts(&body, "by content, a match of ");
		for (size_t i = 0; i < p->ndetect; i++) {
			if (i)
				buf_puts(&body, i + 1 == p->ndetect ? " or " : ", ");
			buf_printf(&body, md ? "`%.*s`" : "'%.*s'", (int)p->detect[i].len,
				   p->detect[i].src);
		}
		buf_puts(&body, " in the first MiB");
	}
	if (p->nexts) {
		buf_puts(&body, p->ndetect ? "; by name, " : "by name, ");
		for (size_t i = 0; i < p->nexts; i++) {
			if (i)
				buf_puts(&body, i + 1 == p->nexts ? " or " : ", ");
			buf_printf(&body, md ? "`%s`" : "%s", p->exts[i]);
		}
	}
	if (!body.len)
		buf_puts(&body, "only when a run names it (parser: NAME)");
	put_item(b, md ? "Detected" : "detected", buf_data(&body), md);
	buf_free(&body);
}

void parser_describe(const struct parser *p, bool markdown, struct buf *b)
{
	bool md = markdown;
	if (md)
		buf_printf(b, "## %s\n\n", p->name);
	else
		buf_printf(b, "%s (%s)\n\n", p->name, p->origin);
	if (p->description && *p->description) {
		if (md) {
			put_flat(b, p->description);
			buf_puts(b, "\n\n");
		} else {
			put_wrapped(b, p->description, 0, 78);
			buf_putc(b, '\n');
		}
	}
	put_item(b, md ? "Reads" : "reads", format_gist(p->format), md);
	put_detection(b, p, md);
	if (p->split.pat.code)
		put_item(b, md ? "Runs" : "runs",
			 p->split.end ? "several in one file, each ended by a line of its split pattern"
				      : "several in one file, each started by a line of its split pattern",
			 md);
	put_fields(b, p, md);
	put_series(b, p, md);
	put_tables(b, p, md);
	const char *ex = p->example;
	if (ex && *ex) {
		size_t n = strlen(ex);
		while (n && ex[n - 1] == '\n')
			n--;
		if (md) {
			buf_puts(b, "\n```text\n");
			buf_put(b, ex, n);
			buf_puts(b, "\n```\n");
		} else {
			buf_puts(b, "\nexample (as the tool prints it)\n");
			const char *line = ex, *end = ex + n;
			while (line < end) {
				const char *nl = memchr(line, '\n', (size_t)(end - line));
				size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
				buf_puts(b, "  ");
				buf_put(b, line, len);
				buf_putc(b, '\n');
				line += len + (nl ? 1 : 0);
			}
		}
	}
}
