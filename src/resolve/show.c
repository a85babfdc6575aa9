/* show.c: how a value is shown (show.h): its text, its link and its
 * tooltip, and the split of "expr :spec".  Inline values (doc.c), table
 * cells and captions (table.c, chartspec.c) all come here, so that a
 * number looks and links the same in prose and in a table; the HTML and
 * the PDF then draw the pieces made here. */
#include "resolve/show.h"

#include <string.h>

#include "expr/expr.h"
#include "parse/valuetype.h"
#include "resolve/format.h"
#include "resolve/provenance.h"
#include "data/run.h"
#include "base/util.h"


size_t show_skip_quoted(const char *s, size_t i, size_t n)
{
	char quote = s[i];
	for (i++; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		else if (s[i] == quote)
			return i;
	}
	return n;
}

void show_split_spec(const char *s, size_t n, size_t *expr_len, size_t *spec_off)
{
	size_t at = n;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '"')
			i = show_skip_quoted(s, i, n);
		else if (s[i] == ':' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
			at = i;
	}
	*expr_len = at;
	*spec_off = at < n ? at + 1 : n;
}

void show_text(struct buf *text, const struct eval *v, const struct format *fmt)
{
	if (v->kind == EVAL_NUMBER && fmt) {
		format_number(text, v->num, fmt);
		/* A number written with its unit keeps it after the formatted
		 * number ("12345 MiB" :,.0f is "12,345 MiB"); '%' makes its own. */
		if (v->text && fmt->type != '%') {
			size_t at = number_unit_at(v->text, v->len, v->num);
			buf_put(text, v->text + at, v->len - at);
		}
	} else if (v->text)
		buf_put(text, v->text, v->len);
	else if (v->kind == EVAL_NUMBER && v->dec_known)
		number_put_decimals(text, v->num, v->dec);
	else if (v->kind == EVAL_NUMBER)
		number_put_short(text, v->num);
	else if (v->kind == EVAL_BOOL)
		buf_puts(text, v->boolean ? "true" : "false");
}

/* How many bytes of s[0..n) are the project folder's prefix: as given
 * on the command line ("../proj/", none for "."; run paths are joined
 * to it) or canonical ("/home/u/proj/", for a path written absolute). */
static size_t root_prefix(const struct directive_ctx *c, const char *s, size_t n)
{
	size_t best = 0;
	const char *roots[2] = {c->root, c->root_real};
	for (int i = 0; i < 2; i++) {
		const char *r = roots[i];
		if (!r || !*r || strcmp(r, ".") == 0)
			continue;
		size_t len = strlen(r);
		while (len > 1 && r[len - 1] == '/')
			len--;
		if (len == 1 && r[0] == '/')
			len = 0; /* "/" + "x" is "/x" */
		if (len + 1 <= n && len + 1 > best && memcmp(s, r, len) == 0 && s[len] == '/')
			best = len + 1;
	}
	return best;
}

/* A tooltip naming source files ("logs/bs512.log:53", or a computed
 * value's inputs "a = 1 (logs/bs512.log:53); ..."), with the project
 * folder's prefix left out wherever a path starts: at the start, after
 * "(" and after a blank ("x is not in logs/a.log"). */
static void put_sources(const struct directive_ctx *c, struct buf *out, const char *s, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && s[i - 1] != '(' && s[i - 1] != ' ')
			continue;
		size_t skip = root_prefix(c, s + i, n - i);
		if (!skip)
			continue;
		buf_put(out, s + from, i - from);
		from = i + skip;
		i += skip - 1;
	}
	buf_put(out, s + from, n - from);
}

void show_missing(const struct directive_ctx *c, struct directive_text *t, const char *why)
{
	directive_text_add(t, SHOW_MISSING, strlen(SHOW_MISSING), NULL, true, true);
	struct buf title = BUF_INIT;
	put_sources(c, &title, why, strlen(why));
	t->p[t->n - 1].title = buf_detach(&title);
}

void show_piece(const struct directive_ctx *c, struct directive_text *t, const struct eval *v,
		const struct format *fmt)
{
	if (v->kind == EVAL_MISSING) {
		show_missing(c, t, v->why ? v->why : "no value");
		return;
	}
	struct buf text = BUF_INIT, href = BUF_INIT, title = BUF_INIT;
	show_text(&text, v, fmt);
	bool tip = true;
	if (v->line > 0 && v->file) {
		provenance_href_text(c->prov, &href, v->file, v->line, v->text, v->len);
		put_sources(c, &title, v->file, strlen(v->file));
		int cell;
		long cell_line;
		if (provenance_cell(c->prov, v->file, v->line, &cell, &cell_line))
			buf_printf(&title, ", cell %d, line %ld of its output", cell, cell_line);
		else
			buf_printf(&title, ":%ld", v->line);
	} else if (v->inputs) {
		put_sources(c, &title, v->inputs, strlen(v->inputs));
	} else {
		tip = false;
	}
	directive_text_add(t, buf_data(&text), text.len, href.len ? buf_data(&href) : NULL, true,
			   false);
	struct directive_piece *pc = &t->p[t->n - 1];
	pc->title = tip ? buf_detach(&title) : NULL;
	pc->boolean = v->kind == EVAL_BOOL;
	buf_free(&text);
	buf_free(&href);
	buf_free(&title);
}
