/* notebook.c: a Jupyter notebook read as the log its cells printed
 * (notebook.h says what is kept and how lines map to cells).
 *
 * Why a log, and not a structured reader of its own: what a student
 * wants from a notebook is what its cells printed (a Keras fit, a
 * Trainer's TrainOutput, a benchmark's table), and the built-in text
 * parsers already read exactly that.  Made into one text, with a map from
 * each line to its cell, the outputs are detected and read by the same
 * parser as the plain log, carriage returns and all, and every value
 * keeps a line that the map turns back into "cell 7, line 12".
 *
 * The JSON is read whole into a value tree (structured_json_tree(): the
 * reader of JSON result files, so a truncated notebook gets the same
 * "expected ..." at its line and column).  A notebook is small next to
 * the logs logdown streams; its images are most of its size. */
#define _GNU_SOURCE /* memfd_create */
#include "parse/notebook.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/value.h"
#include "parse/structured.h"

#define SNIFF_BYTES 4096
#define QUOTE_LIMIT ((off_t)4 << 20) /* bigger notebooks are not quoted */

static bool name_is_notebook(const char *path)
{
	size_t n = strlen(path);
	static const char ext[] = ".ipynb";
	if (n < sizeof ext - 1)
		return false;
	for (size_t i = 0; i < sizeof ext - 1; i++)
		if (tolower((unsigned char)path[n - (sizeof ext - 1) + i]) != ext[i])
			return false;
	return true;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

bool notebook_sniff(const char *path, const char *head, size_t n)
{
	if (name_is_notebook(path))
		return true;
	const char *p = head, *end = head + n;
	if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	p = skip_ws(p, end);
	if (p == end || *p++ != '{')
		return false;
	p = skip_ws(p, end);
	if ((size_t)(end - p) < 7 || memcmp(p, "\"cells\"", 7) != 0)
		return false;
	p = skip_ws(p + 7, end);
	if (p == end || *p++ != ':')
		return false;
	p = skip_ws(p, end);
	return p < end && *p == '[' && memmem(p, (size_t)(end - p), "\"cell_type\"", 11) != NULL;
}

bool notebook_is(const char *path)
{
	return notebook_is_named(path, path);
}

bool notebook_is_named(const char *path, const char *name)
{
	if (name_is_notebook(name))
		return true;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	char head[SNIFF_BYTES];
	ssize_t n;
	do
		n = read(fd, head, sizeof head);
	while (n < 0 && errno == EINTR);
	close(fd);
	return n > 0 && notebook_sniff(path, head, (size_t)n);
}

/* Reading one notebook. */

struct nbread {
	struct notebook *nb;
	struct diag *d;
	struct buf text;
	int cell;
	size_t output; /* 1-based, in its cell */
};

static const char *kind_article(enum value_kind k)
{
	switch (k) {
	case VALUE_NULL:
		return "null";
	case VALUE_BOOL:
		return "a boolean";
	case VALUE_NUMBER:
		return "a number";
	case VALUE_STRING:
		return "a string";
	case VALUE_LIST:
		return "a list";
	case VALUE_MAP:
		break;
	}
	return "an object";
}

/* Appends a text field (a string, or a list of strings joined as
 * written); something else is a warning at its place and left out.
 * Returns whether anything was appended. */
static bool put_text(struct nbread *r, const struct value *v, const char *key)
{
	if (v->kind == VALUE_STRING) {
		buf_put(&r->text, v->text, v->len);
		return v->len > 0;
	}
	if (v->kind == VALUE_LIST) {
		bool any = false;
		for (size_t i = 0; i < v->count; i++) {
			const struct value *it = v->items[i];
			if (it->kind != VALUE_STRING) {
				diag_warning(r->d, it->loc,
					     "output %zu of cell %d: its '%s' holds %s, not text; left "
					     "out",
					     r->output, r->cell, key, kind_article(it->kind));
				continue;
			}
			buf_put(&r->text, it->text, it->len);
			any |= it->len > 0;
		}
		return any;
	}
	diag_warning(r->d, v->loc,
		     "output %zu of cell %d: its '%s' is %s, not a string or a list of strings; "
		     "left out",
		     r->output, r->cell, key, kind_article(v->kind));
	return false;
}

/* Ends the last line of the text, unless it is ended. */
static void end_line(struct nbread *r, size_t from)
{
	if (r->text.len > from && r->text.data[r->text.len - 1] != '\n')
		buf_putc(&r->text, '\n');
}

static const char *str_of(const struct value *map, const char *key)
{
	const struct value *v = map ? value_get(map, key) : NULL;
	return v && v->kind == VALUE_STRING ? v->text : NULL;
}

/* One output of the cell being read.  *stream is the stream of the
 * output before ("stdout"), NULL after any other output. */
static void read_output(struct nbread *r, const struct value *o, size_t cell_from,
			const char **stream)
{
	if (o->kind != VALUE_MAP) {
		diag_warning(r->d, o->loc, "output %zu of cell %d is %s, not an object; left out",
			     r->output, r->cell, kind_article(o->kind));
		return;
	}
	const char *type = str_of(o, "output_type");
	if (!type)
		type = "";
	if (strcmp(type, "stream") == 0) {
		const char *name = str_of(o, "name");
		if (!name)
			name = str_of(o, "stream"); /* nbformat 3 */
		if (!name)
			name = "";
		/* A stream goes on where the same stream stopped. */
		if (!*stream || strcmp(*stream, name) != 0)
			end_line(r, cell_from);
		const struct value *t = value_get(o, "text");
		if (t)
			put_text(r, t, "text");
		*stream = name;
		return;
	}
	*stream = NULL;
	const struct value *t = NULL;
	const char *key = "text/plain";
	if (strcmp(type, "execute_result") == 0 || strcmp(type, "pyout") == 0) {
		const struct value *data = value_get(o, "data");
		t = data && data->kind == VALUE_MAP ? value_get(data, "text/plain") : NULL;
		if (!t && strcmp(type, "pyout") == 0) {
			t = value_get(o, "text");
			key = "text";
		}
	} else if (strcmp(type, "error") == 0 || strcmp(type, "pyerr") == 0) {
		end_line(r, cell_from);
		const struct value *tb = value_get(o, "traceback");
		if (tb && tb->kind == VALUE_LIST && tb->count > 0) {
			/* Each item one or more lines, without its line end. */
			for (size_t i = 0; i < tb->count; i++) {
				const struct value *it = tb->items[i];
				if (it->kind != VALUE_STRING) {
					diag_warning(r->d, it->loc,
						     "output %zu of cell %d: its 'traceback' holds %s, "
						     "not text; left out",
						     r->output, r->cell, kind_article(it->kind));
					continue;
				}
				buf_put(&r->text, it->text, it->len);
				end_line(r, cell_from);
			}
		} else {
			const char *ename = str_of(o, "ename"), *evalue = str_of(o, "evalue");
			if (ename || evalue)
				buf_printf(&r->text, "%s: %s\n", ename ? ename : "",
					   evalue ? evalue : "");
		}
		return;
	}
	if (!t) {
		r->nb->left_out++; /* display_data: images, HTML, widgets */
		return;
	}
	end_line(r, cell_from);
	put_text(r, t, key);
	end_line(r, cell_from);
}

static long count_lines(const char *s, size_t n)
{
	long k = 0;
	for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		k++;
	return k;
}

static void read_cell(struct nbread *r, const struct value *c)
{
	r->cell++;
	if (c->kind != VALUE_MAP)
		return;
	const struct value *outs = value_get(c, "outputs");
	if (!outs)
		return; /* a Markdown or raw cell */
	if (outs->kind != VALUE_LIST) {
		diag_warning(r->d, outs->loc,
			     "cell %d: its 'outputs' is %s, not a list; left out", r->cell,
			     kind_article(outs->kind));
		return;
	}
	size_t from = r->text.len;
	const char *stream = NULL;
	for (size_t i = 0; i < outs->count; i++) {
		r->output = i + 1;
		read_output(r, outs->items[i], from, &stream);
	}
	end_line(r, from);
	if (r->text.len == from)
		return;
	struct notebook *nb = r->nb;
	long n = count_lines(r->text.data + from, r->text.len - from);
	nb->spans = xrealloc(nb->spans, (nb->nspans + 1) * sizeof *nb->spans);
	const struct value *ec = value_get(c, "execution_count");
	if (!ec)
		ec = value_get(c, "prompt_number"); /* nbformat 3 */
	nb->spans[nb->nspans++] = (struct nb_span){
		nb->nlines + 1, n, r->cell, ec && ec->kind == VALUE_NUMBER ? (long)ec->number : 0};
	nb->nlines += n;
}

/* The cells of the notebook: "cells" (nbformat 4), or those of every
 * worksheet (nbformat 3).  False when it has neither. */
static bool read_cells(struct nbread *r, const struct value *root)
{
	const struct value *cells = value_get(root, "cells");
	if (cells && cells->kind == VALUE_LIST) {
		for (size_t i = 0; i < cells->count; i++)
			read_cell(r, cells->items[i]);
		return true;
	}
	const struct value *ws = value_get(root, "worksheets");
	if (!ws || ws->kind != VALUE_LIST)
		return false;
	for (size_t w = 0; w < ws->count; w++) {
		const struct value *sheet = ws->items[w];
		cells = sheet->kind == VALUE_MAP ? value_get(sheet, "cells") : NULL;
		if (cells && cells->kind == VALUE_LIST)
			for (size_t i = 0; i < cells->count; i++)
				read_cell(r, cells->items[i]);
	}
	return true;
}

bool notebook_load(const char *path, const char *shown, struct notebook *nb, struct diag *d)
{
	memset(nb, 0, sizeof *nb);
	struct value *root = structured_json_tree(path, shown, d);
	if (!root)
		return false;
	/* Its warnings quote its lines (columns count after a BOM, as the
	 * JSON reader's do); a big notebook's are not quoted. */
	struct buf src = BUF_INIT;
	struct stat st;
	if (stat(path, &st) == 0 && st.st_size <= QUOTE_LIMIT && file_read(path, &src, NULL)) {
		size_t bom = src.len >= 3 && memcmp(src.data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
		diag_add_source(d, shown, src.data + bom, src.len - bom);
	} else {
		diag_add_source(d, shown, NULL, 0);
	}
	struct nbread r = {nb, d, BUF_INIT, 0, 0};
	bool ok = root->kind == VALUE_MAP && read_cells(&r, root);
	if (!ok) {
		diag_error(d, root->loc,
			   "not a Jupyter notebook: the JSON has no 'cells' list (nor nbformat 3 "
			   "'worksheets')");
	} else if (nb->nlines == 0) {
		struct buf why = BUF_INIT;
		if (nb->left_out)
			buf_printf(&why, "; %zu output%s that %s not text (images, HTML) %s left out",
				   nb->left_out, nb->left_out == 1 ? "" : "s",
				   nb->left_out == 1 ? "is" : "are", nb->left_out == 1 ? "was" : "were");
		diag_error(d, loc_line(shown, 0),
			   "no cell of this notebook printed any text (stream, execute_result or "
			   "error output) for a parser to read%s; was it saved before its cells "
			   "were run?",
			   buf_data(&why));
		buf_free(&why);
		ok = false;
	}
	diag_forget_source(d, shown);
	buf_free(&src);
	nb->ncells = r.cell;
	nb->len = r.text.len;
	nb->text = buf_detach(&r.text);
	value_free(root);
	return ok;
}

void notebook_free(struct notebook *nb)
{
	free(nb->text);
	free(nb->spans);
	memset(nb, 0, sizeof *nb);
}

const struct nb_span *notebook_span(const struct notebook *nb, long line)
{
	if (line < 1 || line > nb->nlines)
		return NULL;
	size_t lo = 0, hi = nb->nspans;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (nb->spans[mid].first <= line)
			lo = mid;
		else
			hi = mid;
	}
	return nb->nspans ? &nb->spans[lo] : NULL;
}

bool notebook_where(const struct notebook *nb, long line, int *cell, long *cell_line)
{
	const struct nb_span *s = notebook_span(nb, line);
	if (!s)
		return false;
	*cell = s->cell;
	*cell_line = line - s->first + 1;
	return true;
}

int notebook_fd(const struct notebook *nb)
{
	int fd = memfd_create("logdown-notebook", MFD_CLOEXEC);
	if (fd < 0) {
		FILE *f = tmpfile();
		if (!f)
			return -1;
		fd = dup(fileno(f));
		fclose(f);
		if (fd < 0)
			return -1;
	}
	for (size_t off = 0; off < nb->len;) {
		ssize_t n = write(fd, nb->text + off, nb->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
