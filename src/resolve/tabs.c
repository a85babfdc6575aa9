/* tabs.c: "::: tabs" blocks, alternatives shown as tabs (blocks.h).
 *
 *     ::: tabs
 *     ## Table
 *     ```{table} ...
 *     ## Chart
 *     ```{chart} ...
 *     :::
 *
 * The fence is Pandoc's fenced div, which GitHub shows as text; each
 * tab starts at a heading of the level of the first one, its title.
 * cmark knows no fenced divs: the pre-pass (doc.c) writes each fence
 * line as an HTML comment of its own (TABS_OPEN, TABS_CLOSE), which
 * ends the paragraph before it as a fence must, and this file pairs
 * them at the top level of the document. */
#include "blocks_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/doc.h"

static const char *const fences[] = {"tabs", NULL};

int tabs_fence(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && i < 3 && line[i] == ' ')
		i++;
	size_t colons = 0;
	while (i < len && line[i] == ':')
		i++, colons++;
	if (colons < 3)
		return 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	while (len > i && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	if (i == len)
		return 2; /* ":::" closes */
	/* "tabs", a word; or "{.tabs}", "{.panel-tabset}" (Quarto's) */
	if (line[i] == '{')
		return line[len - 1] == '}' && !memchr(line + i, '\n', len - i) ? 1 : 0;
	for (size_t k = i; k < len; k++)
		if (!isalnum((unsigned char)line[k]) && line[k] != '-' && line[k] != '_')
			return 0;
	return 1;
}

/* The fence's name from a marker's literal: "tabs", "{.tabs}". */
static char *fence_name(const char *lit)
{
	const char *p = lit + strlen(TABS_OPEN);
	size_t n = strcspn(p, "\x1a");
	return xstrndup(p, n);
}

static bool is_tabs(const char *name)
{
	return strcmp(name, "tabs") == 0 || strcmp(name, "{.tabs}") == 0 ||
	       strcmp(name, "{.panel-tabset}") == 0;
}

/* Gives every literal under n a copy of its own: cmark's inline text
 * points into its block's buffer, freed with the block (the heading
 * a tab's title is taken from). */
static void own_literals(cmark_node *n)
{
	cmark_iter *it = cmark_iter_new(n);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *x = cmark_iter_get_node(it);
		const char *lit;
		if (ev == CMARK_EVENT_ENTER && !cmark_node_first_child(x) &&
		    (lit = cmark_node_get_literal(x)) != NULL) {
			char *copy = xstrdup(lit);
			cmark_node_set_literal(x, copy);
			free(copy);
		}
	}
	cmark_iter_free(it);
}

/* The nodes after open, up to close, as the tabs of one block. */
static void build(const struct block_src *s, cmark_node *open, cmark_node *close, int number)
{
	struct loc at = block_loc(s, open);
	at.col = 1;
	cmark_node *first = cmark_node_next(open);
	if (first == close) {
		diag_error(s->c->d, at,
			   "'::: tabs' holds no tabs: each tab starts with a heading, its title "
			   "(## Table), and ends at the next one or at ':::'");
		return;
	}
	if (cmark_node_get_type(first) != CMARK_NODE_HEADING) {
		diag_error(s->c->d, block_loc(s, first),
			   "a tab without a title: each tab of '::: tabs' starts with a heading, "
			   "its title (## Table)");
		return;
	}
	int level = cmark_node_get_heading_level(first);
	bool ok = true;
	int ntabs = 0;
	for (cmark_node *n = first; n != close; n = cmark_node_next(n)) {
		if (cmark_node_get_type(n) != CMARK_NODE_HEADING ||
		    cmark_node_get_heading_level(n) != level)
			continue;
		ntabs++;
		if (!cmark_node_first_child(n)) {
			diag_error(s->c->d, block_loc(s, n),
				   "a tab without a title: its heading is empty");
			ok = false;
		}
	}
	if (!ok)
		return;
	if (ntabs == 1)
		diag_warning(s->c->d, at,
			     "'::: tabs' with one tab shows no alternative: add a tab (a heading "
			     "of level %d), or drop the fence",
			     level);
	cmark_node *tabs = doc_node_new(CMARK_NODE_CUSTOM_BLOCK);
	struct block *b = block_attach(tabs, BLOCK_TABS, at);
	b->tabs = number;
	b->ntabs = ntabs;
	cmark_node_insert_before(open, tabs);
	cmark_node *tab = NULL;
	int k = 0;
	for (cmark_node *n = first, *next; n != close; n = next) {
		next = cmark_node_next(n);
		if (cmark_node_get_type(n) == CMARK_NODE_HEADING &&
		    cmark_node_get_heading_level(n) == level) {
			tab = doc_node_new(CMARK_NODE_CUSTOM_BLOCK);
			struct block *t = block_attach(tab, BLOCK_TAB, block_loc(s, n));
			t->tab = ++k;
			t->tabs = number;
			cmark_node_append_child(tabs, tab);
			cmark_node *title = doc_node_new(CMARK_NODE_CUSTOM_BLOCK);
			struct block *tt = block_attach(title, BLOCK_TAB_TITLE, block_loc(s, n));
			tt->tab = k;
			tt->tabs = number;
			cmark_node_append_child(tab, title);
			cmark_node *c;
			while ((c = cmark_node_first_child(n)) != NULL) {
				own_literals(c);
				cmark_node_append_child(title, c);
			}
			cmark_node_free(n);
			continue;
		}
		cmark_node_append_child(tab, n);
	}
}

void tabs_find(const struct block_src *s, cmark_node *root)
{
	cmark_node **marks = NULL;
	size_t n = 0, cap = 0;
	for (cmark_node *node = root; node; node = doc_next_block(root, node)) {
		const char *lit;
		if (cmark_node_get_type(node) == CMARK_NODE_HTML_BLOCK &&
		    (lit = cmark_node_get_literal(node)) != NULL &&
		    (str_has_prefix(lit, TABS_OPEN) || str_has_prefix(lit, TABS_CLOSE))) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				marks = xrealloc(marks, cap * sizeof *marks);
			}
			marks[n++] = node;
		}
	}
	cmark_node *open = NULL; /* the open fence */
	bool open_tabs = false;  /* it is "::: tabs" (not an unknown one) */
	int number = 0;
	for (size_t i = 0; i < n; i++) {
		cmark_node *m = marks[i];
		struct loc at = block_loc(s, m);
		at.col = 1;
		bool opens = str_has_prefix(cmark_node_get_literal(m), TABS_OPEN);
		if (cmark_node_parent(m) != root) {
			at.len = 3;
			diag_error(s->c->d, at,
				   "a ':::' fence inside a list or a quote: '::: tabs' stands at the "
				   "top level of the report, unindented");
			cmark_node_free(m);
			continue;
		}
		if (opens && open) {
			diag_error(s->c->d, at,
				   "a fence inside '::: tabs', which holds no fenced blocks: close "
				   "the first with ':::' before opening another");
			cmark_node_free(m);
			continue;
		}
		if (opens) {
			char *name = fence_name(cmark_node_get_literal(m));
			open = m;
			open_tabs = is_tabs(name);
			if (!open_tabs) {
				const char *near = closest_name(name, fences);
				at.len = (int)strlen(name) + 4;
				if (near)
					diag_error(s->c->d, at,
						   "unknown fenced block '::: %s' (did you mean '::: %s'?)",
						   name, near);
				else
					diag_error(s->c->d, at,
						   "unknown fenced block '::: %s': logdown has '::: tabs'",
						   name);
			}
			free(name);
			continue;
		}
		if (!open) {
			at.len = 3;
			diag_error(s->c->d, at, "':::' closes no '::: tabs' block");
			cmark_node_free(m);
			continue;
		}
		if (open_tabs)
			build(s, open, m, ++number);
		cmark_node_free(open);
		cmark_node_free(m);
		open = NULL;
	}
	if (open) {
		struct loc at = block_loc(s, open);
		at.col = 1;
		at.len = 3;
		diag_error(s->c->d, at,
			   "'::: tabs' is never closed: end it with a line ':::' after its last tab");
		cmark_node_free(open);
	}
	free(marks);
}
