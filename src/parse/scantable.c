/* scantable.c: tables printed in a log, read from the line their header
 * pattern matches (or the title line right before it): +---+ and
 * | a | b | rows, box drawing (│ ┃ ║ ─ ┼ ...), Markdown, or columns
 * aligned with spaces under a "--- ---" ruler (a rule under the rows
 * ends such a table), or cells apart by a delimiter (CSV quoting).
 * Columns are the header
 * cells in snake_case(); each row goes into the series of the table's
 * name, rank copies skipped as for any series (scan.c). */
#include "scan.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "blank.h"
#include "parse/structured.h"
#include "parse/valuetype.h"

/* The UTF-8 box-drawing characters U+2500..U+257F are E2 94 xx and
 * E2 95 xx. */
static bool is_box(const char *s, size_t n, size_t i)
{
	return i + 2 < n && (unsigned char)s[i] == 0xE2 &&
	       ((unsigned char)s[i + 1] == 0x94 || (unsigned char)s[i + 1] == 0x95);
}

/* A vertical bar: '|', or one of │ ┃ ║ (E2 94 82, E2 94 83, E2 95 91).
 * Returns its length, 0 when there is none at s[i]. */
static size_t bar_at(const char *s, size_t n, size_t i)
{
	if (s[i] == '|')
		return 1;
	if (i + 2 < n && (unsigned char)s[i] == 0xE2) {
		unsigned char b = (unsigned char)s[i + 1], c = (unsigned char)s[i + 2];
		if ((b == 0x94 && (c == 0x82 || c == 0x83)) || (b == 0x95 && c == 0x91))
			return 3;
	}
	return 0;
}

/* A ruler: +---+---+, |:---|---:|, ├───┼───┤, ═══ and the like. */
static bool is_ruler(const char *s, size_t n)
{
	size_t marks = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '-' || c == '=' || c == '_') {
			marks++;
		} else if (is_box(s, n, i)) {
			marks++;
			i += 2;
		} else if (!(c == '+' || c == '|' || c == ':' || is_blank(c))) {
			return false;
		}
	}
	return marks >= 3;
}

/* A piece of a ruler a terminal wrapped ("-----+---", "+"): only ruler
 * characters, one of them a dash, '+' or box drawing. */
static bool ruler_piece(const char *s, size_t n)
{
	size_t marks = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '-' || c == '=' || c == '_' || c == '+') {
			marks++;
		} else if (is_box(s, n, i)) {
			marks++;
			i += 2;
		} else if (!(c == '|' || c == ':' || is_blank(c))) {
			return false;
		}
	}
	return marks > 0;
}

/* A ruler that cannot be a row: is_ruler() with a '+', '=', ':', box
 * drawing or three dashes in a row ("|  --  |  --  |" is a row of
 * missing cells). */
static bool strong_ruler(const char *s, size_t n)
{
	if (!is_ruler(s, n))
		return false;
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+' || s[i] == '=' || s[i] == ':' || is_box(s, n, i) || run >= 3)
			return true;
		run = s[i] == '-' ? run + 1 : 0;
	}
	return run >= 3;
}

/* A line that starts a row or a ruler: a bar, '+' or box drawing. */
static bool opens(const char *s, size_t n)
{
	return n && (bar_at(s, n, 0) || s[0] == '+' || is_box(s, n, 0));
}

/* A line that ends with a border: a bar, '+' or box drawing. */
static bool closes(const char *s, size_t n)
{
	while (n && is_blank(s[n - 1]))
		n--;
	if (!n)
		return false;
	return s[n - 1] == '|' || s[n - 1] == '+' || (n >= 3 && is_box(s, n, n - 3));
}

/* A table pasted behind a Markdown quote or a comment ("> | a | b |",
 * "# +---+"): the text after the '>' or '#' marks and their blanks.
 * The header line is unquoted when a border follows the marks; the
 * lines after a quoted header lose their marks whatever follows. */
static void unquote(const struct tcur *tc, const char **s, size_t *n, bool head)
{
	size_t i = 0;
	while (i < *n && ((*s)[i] == '>' || (*s)[i] == '#'))
		i++;
	if (!i)
		return;
	size_t j = i;
	while (j < *n && is_blank((*s)[j]))
		j++;
	if (head ? !opens(*s + j, *n - j) : !tc->quoted)
		return;
	*s += j;
	*n -= j;
}

static void push_cell(struct scan *sc, size_t *k, const char *s, size_t n)
{
	if (*k == sc->cells_cap) {
		sc->cells_cap = sc->cells_cap ? sc->cells_cap * 2 : 16;
		sc->cells = xrealloc(sc->cells, sc->cells_cap * sizeof *sc->cells);
	}
	trim(&s, &n);
	sc->cells[(*k)++] = (struct span){s, n};
}

/* The cells of a |-separated row into sc->cells; 0 without a bar. */
static size_t split_bars(struct scan *sc, const char *s, size_t n)
{
	size_t k = 0, from = 0, bars = 0;
	bool lead = true;
	for (size_t i = 0; i < n;) {
		size_t b = bar_at(s, n, i);
		if (!b) {
			if (!is_blank(s[i]))
				lead = false;
			i++;
			continue;
		}
		/* A leading bar opens the row rather than ending a cell. */
		if (!(lead && bars == 0))
			push_cell(sc, &k, s + from, i - from);
		bars++;
		i += b;
		from = i;
		lead = false;
	}
	if (!bars)
		return 0;
	const char *rest = s + from;
	size_t rest_n = n - from;
	trim(&rest, &rest_n);
	if (rest_n) /* no closing bar */
		push_cell(sc, &k, rest, rest_n);
	return k;
}

/* The cells of a space-aligned row: two blanks or a tab separate them. */
static size_t split_wide(struct scan *sc, const char *s, size_t n)
{
	size_t k = 0, i = 0;
	while (i < n && is_blank(s[i]))
		i++;
	size_t from = i;
	while (i < n) {
		if (s[i] == '\t' || (s[i] == ' ' && i + 1 < n && s[i + 1] == ' ')) {
			size_t gap = i;
			while (i < n && is_blank(s[i]))
				i++;
			if (gap > from)
				push_cell(sc, &k, s + from, gap - from);
			from = i;
			continue;
		}
		i++;
	}
	if (from < n)
		push_cell(sc, &k, s + from, n - from);
	return k;
}

/* The cells of a delimited row (delimiter: in the table): apart by the
 * delimiter, a cell in double quotes may hold it, and "" in one is a
 * quote (RFC 4180, within the line).  A quote left open takes the rest
 * of the line. */
static size_t split_delim(struct scan *sc, char delim, const char *s, size_t n)
{
	struct buf *dc = &sc->tc.dcells;
	buf_clear(dc);
	buf_grow(dc, n + 1); /* unquoted cells are never longer: no moves */
	size_t k = 0, i = 0;
	for (;;) {
		size_t from = i;
		while (i < n && is_blank(s[i]) && s[i] != delim)
			i++;
		if (i < n && s[i] == '"') {
			size_t at = dc->len;
			bool copied = false;
			size_t q = ++i;
			while (i < n) {
				if (s[i] == '"' && i + 1 < n && s[i + 1] == '"') {
					if (!copied) {
						buf_put(dc, s + q, i - q);
						copied = true;
					}
					buf_putc(dc, '"');
					i += 2;
					continue;
				}
				if (s[i] == '"')
					break;
				if (copied)
					buf_putc(dc, s[i]);
				i++;
			}
			size_t end = i;
			if (i < n)
				i++; /* the closing quote */
			while (i < n && s[i] != delim)
				i++; /* text after it: not CSV; left out */
			if (copied)
				push_cell(sc, &k, dc->data + at, dc->len - at);
			else
				push_cell(sc, &k, s + q, end - q);
		} else {
			i = from;
			while (i < n && s[i] != delim)
				i++;
			push_cell(sc, &k, s + from, i - from);
		}
		if (i >= n)
			break;
		i++; /* the delimiter */
	}
	return k;
}

/* A space-aligned table's ruler ("--------  -------"): the starts of
 * its dash groups into tc->ext. */
static bool space_ruler(struct scan *sc, const char *s, size_t n)
{
	size_t groups = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c != '-' && c != '=' && !is_blank(c))
			return false;
	}
	free(sc->tc.ext);
	sc->tc.ext = xcalloc(n / 2 + 2, sizeof *sc->tc.ext);
	for (size_t i = 0; i < n; i++)
		if (!is_blank(s[i]) && (i == 0 || is_blank(s[i - 1])))
			sc->tc.ext[groups++] = i;
	sc->tc.next = groups;
	return groups > 0;
}

/* A rule under a space-aligned table's rows: groups of three or more
 * '-' or '=' apart by blanks ("-- --" may be a row of missing cells). */
static bool closing_rule(const char *s, size_t n)
{
	size_t run = 0, groups = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && (s[i] == '-' || s[i] == '=')) {
			run++;
			continue;
		}
		if (i < n && !is_blank(s[i]))
			return false;
		if (run && run < 3)
			return false;
		groups += run > 0;
		run = 0;
	}
	return groups > 0;
}

/* The cells of a space-aligned row sliced at the ruler's columns. */
static size_t split_ext(struct scan *sc, const char *s, size_t n)
{
	size_t k = 0;
	for (size_t j = 0; j < sc->tc.next; j++) {
		size_t a = sc->tc.ext[j];
		size_t b = j + 1 < sc->tc.next ? sc->tc.ext[j + 1] : n;
		if (a > n)
			a = n;
		if (b > n)
			b = n;
		push_cell(sc, &k, s + a, b - a);
	}
	return k;
}

static void pend_drop(struct scan *sc);

static void table_end(struct scan *sc)
{
	if (sc->tc.row_open)
		pend_drop(sc);
	sc->tc.row_open = sc->tc.head_open = sc->tc.ruled = false;
	sc->tc.bordered = sc->tc.quoted = false;
	sc->tc.table = -1;
	free(sc->tc.ext);
	sc->tc.ext = NULL;
	sc->tc.next = 0;
	free(sc->tc.types);
	sc->tc.types = NULL;
	for (size_t k = 0; k < sc->tc.nfill; k++)
		buf_free(&sc->tc.fill_prev[k]);
	free(sc->tc.fill_prev);
	free(sc->tc.fill);
	sc->tc.fill_prev = NULL;
	sc->tc.fill = NULL;
	sc->tc.nfill = 0;
	free(sc->tc.carried);
	sc->tc.carried = NULL;
	sc->tc.ncarried = 0;
}

/* A name a table's key gives (fill_down, types) that no column of its
 * header has: a warning at the header, with the nearest column or the
 * list of them. */
static void warn_no_column(struct scan *sc, const struct ptable *pt, const char *name,
			   const char *what, char **cols, long line)
{
	const char *close = closest_name(name, (const char *const *)cols);
	if (close) {
		log_diag(sc, false, line, "table '%s' has no column '%s' %s (did you mean '%s'?)",
			 pt->name, name, what, close);
		return;
	}
	struct buf b = BUF_INIT;
	buf_put_names(&b, (const char *const *)cols);
	log_diag(sc, false, line, "table '%s' has no column '%s' %s (its columns: %s)", pt->name,
		 name, what, buf_data(&b));
	buf_free(&b);
}

/* The columns of fill_down, from the header's (a name no column has is
 * warned about, once, as a type's is). */
static void table_fill(struct scan *sc, const struct ptable *pt, struct tstate *ts, char **cols,
		       size_t ncols, long line)
{
	sc->tc.fill = xcalloc(pt->nfill + 1, sizeof *sc->tc.fill);
	sc->tc.fill_prev = xcalloc(pt->nfill + 1, sizeof *sc->tc.fill_prev);
	for (size_t k = 0; k < pt->nfill; k++) {
		size_t j = 0;
		while (j < ncols && strcmp(cols[j], pt->fill[k]) != 0)
			j++;
		if (j < ncols) {
			sc->tc.fill_prev[sc->tc.nfill] = (struct buf)BUF_INIT;
			sc->tc.fill[sc->tc.nfill++] = j;
			continue;
		}
		if (ts->fill_checked)
			continue;
		warn_no_column(sc, pt, pt->fill[k], "to fill down", cols, line);
	}
	ts->fill_checked = true;
}

/* A name the table's columns: declares: a column some releases of the
 * tool print and others do not, so typing it is no typo. */
static bool declared_column(const struct ptable *pt, const char *name)
{
	for (size_t k = 0; k < pt->nnames; k++)
		if (strcmp(pt->names[k], name) == 0)
			return true;
	return false;
}

/* The types of the table's columns, from its types: (a name no
 * column has, nor columns: declares, is warned about once). */
static void table_types(struct scan *sc, const struct ptable *pt, struct tstate *ts, char **cols,
			size_t ncols, long line)
{
	sc->tc.types = xrealloc(sc->tc.types, (ncols + 1) * sizeof *sc->tc.types);
	for (size_t j = 0; j < ncols; j++)
		sc->tc.types[j] = VT_AUTO;
	for (size_t k = 0; k < pt->ntypes; k++) {
		size_t j = 0;
		while (j < ncols && strcmp(cols[j], pt->type_cols[k]) != 0)
			j++;
		if (j < ncols) {
			sc->tc.types[j] = pt->types[k];
		} else if (!ts->types_checked && !declared_column(pt, pt->type_cols[k])) {
			warn_no_column(sc, pt, pt->type_cols[k], "to type", cols, line);
		}
	}
	ts->types_checked = true;
	if (ts->nwarned < ncols) {
		ts->warned = xrealloc(ts->warned, ncols);
		memset(ts->warned + ts->nwarned, 0, ncols - ts->nwarned);
		ts->nwarned = ncols;
	}
}

/* One cell of a typed table (see table_types()), warned about once a
 * column when it is not of its type. */
static void table_cell(struct scan *sc, size_t j, const struct span *cell, long line,
		       struct datum *out)
{
	const struct ptable *pt = &sc->p->tables[sc->tc.table];
	struct tstate *ts = &sc->ts[sc->tc.table];
	enum vtype type = sc->tc.types[j];
	enum typed t = type_text(type, parser_style(sc->p), cell->p, cell->len, line, out);
	if (t == TYPED_OK || ts->warned[j])
		return;
	ts->warned[j] = 1;
	/* The column's name, as the series has it. */
	const char *col = series_column(ts->s, j);
	if (t == TYPED_NOT_TYPE)
		log_diag(sc, false, line,
			 "column '%s' of table '%s' is a %s, but '%.*s' is not one; kept as text",
			 col, pt->name, vtype_names[type], (int)out->len, out->text);
	else
		log_diag(sc, false, line,
			 "column '%s' of table '%s': '%.*s' is not a number in the %s "
			 "number_style (%s); kept as text",
			 col, pt->name, (int)out->len, out->text, style_owner(sc->p),
			 numstyle_describe(&sc->p->style));
}

/* Starts the table's columns from the header cells in sc->cells. */
static void table_header(struct scan *sc, size_t ncells, enum table_mode mode, long line)
{
	const struct ptable *pt = &sc->p->tables[sc->tc.table];
	struct tstate *ts = &sc->ts[sc->tc.table];
	char **cols = xcalloc(ncells + 1, sizeof *cols);
	for (size_t j = 0; j < ncells; j++) {
		char *c = snake_case(sc->cells[j].p, sc->cells[j].len);
		if (!*c) {
			free(c);
			c = xasprintf("column_%zu", j + 1);
		}
		/* columns: gives the cell its stable name. */
		for (size_t k = 0; k < pt->nalias; k++)
			if (strcmp(pt->alias[k], c) == 0) {
				free(c);
				c = xstrdup(pt->alias_to[k]);
				break;
			}
		/* Two cells of one name: the later ones get _2, _3, ... */
		char *base = c;
		for (int k = 2;; k++) {
			bool dup = false;
			for (size_t i = 0; i < j && !dup; i++)
				dup = strcmp(cols[i], c) == 0;
			if (!dup)
				break;
			if (c != base)
				free(c);
			c = xasprintf("%s_%d", base, k);
		}
		if (c != base)
			free(base);
		cols[j] = c;
	}
	/* Carried columns follow the header's, unless it has one of that
	 * name: the table's own cell wins. */
	size_t nall = ncells;
	if (pt->ncarried) {
		cols = xrealloc(cols, (ncells + pt->ncarried + 1) * sizeof *cols);
		sc->tc.carried = xcalloc(pt->ncarried + 1, sizeof *sc->tc.carried);
		for (size_t k = 0; k < pt->ncarried; k++) {
			const char *name = sc->p->carry_cols[pt->carried[k]];
			bool own = false;
			for (size_t j = 0; j < ncells && !own; j++)
				own = strcmp(cols[j], name) == 0;
			if (own)
				continue;
			sc->tc.carried[sc->tc.ncarried++] = pt->carried[k];
			cols[nall++] = xstrdup(name);
		}
		cols[nall] = NULL;
	}
	struct series *s = NULL;
	const struct sstate *sst = pt->series >= 0 ? &sc->ss[pt->series] : NULL;
	if (sst && sst->s) {
		/* The series of its name took it first (scan.c shared_claim()). */
		if (!ts->clash_warned)
			log_diag(sc, false, line,
				 "table '%s' is here, but series '%s' filled '%s' already (line "
				 "%ld): a file holds one or the other, so the table is left out",
				 pt->name, pt->name, pt->name, sst->first_line);
		ts->clash_warned = true;
		table_end(sc);
	} else if (!(s = run_add_series(sc->r, pt->name, (const char *const *)cols, nall))) {
		if (!ts->clash_warned) {
			ts->clash_warned = true;
			log_diag(sc, false, line,
				 "table '%s' is here again with other columns; this one is left out",
				 pt->name);
		}
		table_end(sc);
	} else {
		ts->s = s;
		ts->found = true;
		sc->tc.mode = mode;
		sc->tc.ncols = ncells;
		sc->tc.after_header = mode == TM_SPACE;
		sc->hits++;
	}
	/* Carried columns are typed too: a number_style reads them as well. */
	if (s && (pt->ntypes || sc->p->styled))
		table_types(sc, pt, ts, cols, nall, line);
	if (s && pt->nfill)
		table_fill(sc, pt, ts, cols, ncells, line);
	for (size_t j = 0; j < nall; j++)
		free(cols[j]);
	free(cols);
}

static void table_row(struct scan *sc, size_t ncells, const struct line *ln, long line)
{
	struct tstate *ts = &sc->ts[sc->tc.table];
	size_t ncols = sc->tc.ncols;
	struct datum *cells = row_scratch(sc, ncols + sc->tc.ncarried + 1);
	/* fill_down: a blank cell (or one the row is short of) is the one
	 * above it; a written one is kept for the rows below. */
	for (size_t k = 0; k < sc->tc.nfill; k++) {
		size_t j = sc->tc.fill[k];
		struct buf *prev = &sc->tc.fill_prev[k];
		while (ncells <= j) {
			size_t at = ncells;
			push_cell(sc, &at, ln->p, 0);
			ncells = at;
		}
		if (sc->cells[j].len == 0) {
			sc->cells[j] = (struct span){buf_data(prev), prev->len};
		} else {
			buf_clear(prev);
			buf_put(prev, sc->cells[j].p, sc->cells[j].len);
		}
	}
	/* Short rows are padded with missing cells, long ones cut. */
	if (!sc->tc.types) {
		for (size_t j = 0; j < ncols; j++)
			cells[j] = j < ncells ? datum_from_text(sc->cells[j].p, sc->cells[j].len, line)
					      : datum_from_text(ln->p, 0, line);
	} else {
		for (size_t j = 0; j < ncols; j++) {
			if (j < ncells)
				table_cell(sc, j, &sc->cells[j], line, &cells[j]);
			else
				cells[j] = datum_from_text(ln->p, 0, line);
		}
	}
	for (size_t k = 0; k < sc->tc.ncarried; k++) {
		const struct buf *v = &sc->carry[sc->tc.carried[k]];
		struct span cell = {buf_data(v), v->len};
		if (sc->tc.types)
			table_cell(sc, ncols + k, &cell, line, &cells[ncols + k]);
		else
			cells[ncols + k] = datum_from_text(cell.p, cell.len, line);
	}
	add_row(ts->s, &ts->dd, cells, 0, ln->ranked, ln->rank, line, NULL);
	sc->hits++;
}

/* Rows and headers a terminal wrapped.  A terminal narrower than a
 * table folds each of its lines into pieces on consecutive lines
 * ("| Source | ... | on-chip latency" then "(ms) | on-chip IPS |"),
 * cut at a fixed width or where a word ends.  A |-table whose header
 * starts with its border is read a line at a time into tc->pend: a
 * header takes the next lines while they do not start a row or a ruler
 * (and, while it does not end with its border, the next rows too); a row of a table whose header starts and ends with its
 * border takes them until it ends with its border and has the header's
 * number of cells.  A row that cannot get there is left out with a
 * warning at its first line: cells counted wrong are numbers put in the
 * wrong columns, read without a word. */

static void pend_set(struct tcur *tc, const char *s, size_t n, const struct line *ln, long line)
{
	buf_clear(&tc->pend);
	buf_put(&tc->pend, s, n);
	tc->pend_line = line;
	tc->pend_ranked = ln->ranked;
	tc->pend_rank = ln->rank;
}

/* Appends the next piece of a wrapped line.  A piece whose line began
 * with blanks is joined with one (a header cell's words stay apart;
 * cells are trimmed), other pieces go on where the cut was. */
static void pend_add(struct tcur *tc, const struct line *ln, const char *s, size_t n)
{
	if (s > ln->full && is_blank(s[-1]) &&
	    !(tc->quoted && s - ln->full >= 2 && (s[-2] == '>' || s[-2] == '#')))
		buf_putc(&tc->pend, ' ');
	buf_put(&tc->pend, s, n);
}

/* A row from the joined text in tc->pend. */
static void pend_row(struct scan *sc, size_t k)
{
	struct tcur *tc = &sc->tc;
	struct line ln = {buf_data(&tc->pend), tc->pend.len, buf_data(&tc->pend), tc->pend.len,
			  tc->pend_ranked, tc->pend_rank};
	tc->row_open = false;
	table_row(sc, k, &ln, tc->pend_line);
}

static void pend_drop(struct scan *sc)
{
	struct tcur *tc = &sc->tc;
	const struct ptable *pt = &sc->p->tables[tc->table];
	size_t k = split_bars(sc, tc->pend.data, tc->pend.len);
	tc->row_open = false;
	if (closes(tc->pend.data, tc->pend.len) || k > tc->ncols)
		log_diag(sc, false, tc->pend_line,
			 "table '%s': this row has %zu cell%s but its header has %zu; the row is "
			 "left out",
			 pt->name, k, k == 1 ? "" : "s", tc->ncols);
	else
		log_diag(sc, false, tc->pend_line,
			 "table '%s': this row does not end with the table's border and the lines "
			 "after it do not complete it; the row is left out",
			 pt->name);
}

/* The row joined so far: a row once whole, left out when it has too
 * many cells, else kept for the next line. */
static void pend_check(struct scan *sc)
{
	struct tcur *tc = &sc->tc;
	size_t k = split_bars(sc, tc->pend.data, tc->pend.len);
	if (k > tc->ncols)
		pend_drop(sc);
	else if (k == tc->ncols && closes(tc->pend.data, tc->pend.len))
		pend_row(sc, k);
}

/* A |-header that starts with its border waits for the wrapped rest of
 * its line (see above); other headers start the table at once. */
static void pipe_header(struct scan *sc, const char *s, size_t n, size_t k, const struct line *ln,
			long line)
{
	struct tcur *tc = &sc->tc;
	if (!opens(s, n)) {
		table_header(sc, k, TM_PIPE, line);
		return;
	}
	tc->mode = TM_PIPE;
	tc->head_open = true;
	pend_set(tc, s, n, ln, line);
	sc->hits++;
}

static void head_close(struct scan *sc)
{
	struct tcur *tc = &sc->tc;
	tc->head_open = false;
	const char *s = buf_data(&tc->pend);
	size_t n = tc->pend.len;
	bool bordered = closes(s, n);
	size_t k = split_bars(sc, s, n);
	table_header(sc, k, TM_PIPE, tc->pend_line);
	if (tc->table >= 0)
		tc->bordered = bordered;
}

/* A line of a table whose rows start and end with its border. */
static void bordered_line(struct scan *sc, const char *t, size_t n, const struct line *ln,
			  long line)
{
	struct tcur *tc = &sc->tc;
	if (tc->row_open) {
		if (n == 0 || strong_ruler(t, n)) {
			pend_drop(sc);
			if (n == 0)
				table_end(sc);
			return;
		}
		size_t was = tc->pend.len;
		bool whole = closes(tc->pend.data, was);
		pend_add(tc, ln, t, n);
		/* A piece that starts with a bar goes on a row cut before
		 * one, if the cells still fit. */
		if (!opens(t, n) ||
		    (!whole && split_bars(sc, tc->pend.data, tc->pend.len) <= tc->ncols)) {
			pend_check(sc);
			return;
		}
		tc->pend.len = was;
		tc->pend.data[was] = '\0';
		pend_drop(sc);
	}
	if (n == 0) {
		table_end(sc);
		return;
	}
	/* Two whole +---+ rulers in a row are one table's bottom border
	 * and the top border of the next, stacked without a blank line
	 * between them (likwid-perfctr prints its tables so): this table
	 * ends.  The pieces of a wrapped ruler never both start and end
	 * with '+' (a '+' is in one piece or the other); box drawing is
	 * left alone, its pieces start and end with a box character. */
	size_t m = n;
	while (m && is_blank(t[m - 1]))
		m--;
	bool whole_rule = m > 1 && t[0] == '+' && t[m - 1] == '+' && strong_ruler(t, n);
	if (whole_rule && tc->ruled) {
		table_end(sc);
		return;
	}
	tc->ruled = whole_rule;
	/* A piece of a wrapped ruler starts with '+', a dash or a corner,
	 * not with a bar as a row does. */
	if (strong_ruler(t, n) || (ruler_piece(t, n) && !bar_at(t, n, 0)))
		return;
	if (!opens(t, n)) {
		table_end(sc);
		return;
	}
	pend_set(tc, t, n, ln, line);
	tc->row_open = true;
	pend_check(sc);
}

void table_start(struct scan *sc, size_t t, const struct line *ln, long line)
{
	table_end(sc);
	sc->tc.table = (long)t;
	if (!sc->ts[t].header_line)
		sc->ts[t].header_line = line;
	const char *s = ln->p;
	size_t n = ln->n;
	unquote(&sc->tc, &s, &n, true);
	sc->tc.quoted = s != ln->p;
	/* A header line with the table's delimiter starts a delimited
	 * table; one without it is read as the other kinds are (a tool's
	 * text and CSV output, read by one table). */
	char delim = sc->p->tables[t].delim;
	if (delim) {
		size_t k = split_delim(sc, delim, ln->p, ln->n);
		if (k >= 2) {
			table_header(sc, k, TM_DELIM, line);
			return;
		}
	}
	size_t k = split_bars(sc, s, n);
	if (k >= 2 && !is_ruler(s, n)) {
		pipe_header(sc, s, n, k, ln, line);
		return;
	}
	k = split_wide(sc, ln->full, ln->full_n);
	if (k >= 2) {
		table_header(sc, k, TM_SPACE, line);
		return;
	}
	/* A title line: the header row is among the next lines. */
	sc->tc.mode = TM_SEEK;
	sc->tc.seek_left = 3;
	sc->hits++;
}

void table_line(struct scan *sc, const struct line *ln, long line)
{
	struct tcur *tc = &sc->tc;
	size_t k;
	const char *s = ln->p;
	size_t n = ln->n;
	switch (tc->mode) {
	case TM_SEEK:
		if (n && sc->p->tables[tc->table].delim &&
		    (k = split_delim(sc, sc->p->tables[tc->table].delim, s, n)) >= 2) {
			table_header(sc, k, TM_DELIM, line);
			return;
		}
		unquote(tc, &s, &n, true);
		tc->quoted = s != ln->p;
		if (n == 0 || is_ruler(s, n)) {
			if (--tc->seek_left <= 0)
				table_end(sc);
			return;
		}
		if ((k = split_bars(sc, s, n)) >= 2)
			pipe_header(sc, s, n, k, ln, line);
		else if ((k = split_wide(sc, ln->full, ln->full_n)) >= 2)
			table_header(sc, k, TM_SPACE, line);
		else
			table_end(sc);
		return;
	case TM_PIPE:
		unquote(tc, &s, &n, false);
		if (tc->head_open) {
			/* A line that starts no row nor ruler goes on the
			 * header, and so does one cut before a bar. */
			bool whole = closes(tc->pend.data, tc->pend.len);
			if (n && !is_ruler(s, n) && (!opens(s, n) || !whole)) {
				pend_add(tc, ln, s, n);
				return;
			}
			head_close(sc);
			if (tc->table < 0)
				return;
		}
		if (tc->bordered) {
			bordered_line(sc, s, n, ln, line);
			return;
		}
		if (is_ruler(s, n))
			return;
		if ((k = split_bars(sc, s, n)) == 0) {
			table_end(sc);
			return;
		}
		table_row(sc, k, ln, line);
		return;
	case TM_DELIM:
		/* A blank line or a line without the delimiter ends it. */
		if (n == 0 || (k = split_delim(sc, sc->p->tables[tc->table].delim, s, n)) < 2) {
			table_end(sc);
			return;
		}
		if (k > tc->ncols) {
			const struct ptable *pt = &sc->p->tables[tc->table];
			log_diag(sc, false, line,
				 "table '%s': this row has %zu cells but its header has %zu; the row "
				 "is left out",
				 pt->name, k, tc->ncols);
			return;
		}
		table_row(sc, k, ln, line);
		return;
	case TM_SPACE:
		if (ln->n == 0) {
			table_end(sc);
			return;
		}
		if (tc->after_header) {
			tc->after_header = false;
			if (space_ruler(sc, ln->full, ln->full_n))
				return;
			/* A box-drawing rule under the header ("─────", rich's
			 * table printed without its side borders, as a
			 * notebook's text keeps Lightning's test results): a
			 * ruler, not the table's end. */
			if (strong_ruler(ln->p, ln->n))
				return;
		}
		/* A rule under the rows ("-------  -----", as tabulate and
		 * nvidia-smi close a table): the table's end, not a row of
		 * dashes. */
		if (closing_rule(ln->p, ln->n)) {
			table_end(sc);
			return;
		}
		k = split_wide(sc, ln->full, ln->full_n);
		/* One cell: the text after the table, not a row of it. */
		if (k < 2 && tc->ncols >= 2) {
			table_end(sc);
			return;
		}
		if (k != tc->ncols && tc->next)
			k = split_ext(sc, ln->full, ln->full_n);
		table_row(sc, k, ln, line);
		return;
	}
}

void table_finish(struct scan *sc)
{
	if (sc->tc.table >= 0 && sc->tc.head_open)
		head_close(sc);
	if (sc->tc.table >= 0)
		table_end(sc);
	buf_free(&sc->tc.pend);
	buf_free(&sc->tc.dcells);
}
