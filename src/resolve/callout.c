/* callout.c: GitHub's alerts, "> [!NOTE]" and its four siblings, as
 * callouts (blocks.h).  GitHub's rules: the marker alone on the first
 * line of a block quote, in any case, the quote at the top level of the
 * document (not in a list or another quote).  A marker that breaks one
 * of them leaves a plain quote, as on GitHub, with a warning that says
 * why. */
#include "blocks_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/doc.h"

/* The icons are drawn for logdown (16 x 16, filled even-odd): a ring
 * with an i, a bulb, a speech bubble, a triangle and an octagon with an
 * exclamation mark.  The colours are GitHub's Primer ones, darkened
 * where the title did not reach 4.5:1 on the tint. */
static const struct callout_kind kinds[] = {
	{"note", "Note",
	 "M8 1a7 7 0 1 0 0 14A7 7 0 0 0 8 1Zm0 1.5a5.5 5.5 0 1 1 0 11 5.5 5.5 0 0 1 0-11Z"
	 "M7.25 4.25h1.5v1.5h-1.5ZM7.25 7h1.5v4.75h-1.5Z",
	 0x0969da, 0xeef5fe},
	{"tip", "Tip",
	 "M8 1C4.7 1 3 3.4 3 5.8c0 1.7.9 2.9 2 3.8V12h6V9.6c1.1-.9 2-2.1 2-3.8C13 3.4 11.3 1 8 1Z"
	 "M8 2.5c2.3 0 3.5 1.6 3.5 3.3 0 1.2-.7 2.1-1.6 2.8l-.4.3v1.6h-3V8.9l-.4-.3C5.2 7.9 "
	 "4.5 7 4.5 5.8 4.5 4.1 5.7 2.5 8 2.5ZM6 13h4v1.5H6Z",
	 0x1a7f37, 0xedf8ef},
	{"important", "Important",
	 "M2 2h12a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H7l-3 3v-3H2a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1Z"
	 "M2.5 3.5v7h3v1.4l1.4-1.4h6.6v-7ZM7.25 4.5h1.5v3.5h-1.5ZM7.25 8.75h1.5v1.5h-1.5Z",
	 0x7b47d6, 0xf5f0fc},
	{"warning", "Warning",
	 "M8 1l7.5 13.5H.5ZM8 4l-5 9h10ZM7.25 6.5h1.5V10h-1.5ZM7.25 10.75h1.5v1.5h-1.5Z",
	 0x8a5c00, 0xfdf6e3},
	{"caution", "Caution",
	 "M5 1h6l4 4v6l-4 4H5l-4-4V5ZM5.6 2.5 2.5 5.6v4.8l3.1 3.1h4.8l3.1-3.1V5.6L10.4 2.5Z"
	 "M7.25 4.5h1.5v4h-1.5ZM7.25 9.75h1.5v1.5h-1.5Z",
	 0xcf222e, 0xfdf0ef},
};

static const char *const names[] = {"note", "tip", "important", "warning", "caution", NULL};

/* The text of p's first line when it is all text (the marker splits
 * into several text nodes), and the node after it (a line break, or
 * NULL at the paragraph's end).  Caller frees. */
static char *first_line(cmark_node *p, cmark_node **stop)
{
	struct buf b = BUF_INIT;
	cmark_node *n = cmark_node_first_child(p);
	for (; n; n = cmark_node_next(n)) {
		cmark_node_type t = cmark_node_get_type(n);
		if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
			break;
		if (t != CMARK_NODE_TEXT) {
			buf_free(&b);
			return NULL;
		}
		buf_puts(&b, cmark_node_get_literal(n));
	}
	*stop = n;
	return buf_detach(&b);
}

/* The marker's name in s ("[!note]" gives "note" in *name, *len), and
 * what follows it; NULL when s opens with no marker. */
static const char *marker(const char *s, const char **name, size_t *len)
{
	if (s[0] != '[' || s[1] != '!')
		return NULL;
	const char *q = s + 2;
	while (isalpha((unsigned char)*q))
		q++;
	if (q == s + 2 || *q != ']')
		return NULL;
	*name = s + 2;
	*len = (size_t)(q - s - 2);
	return q + 1;
}

static const char *where_nested(cmark_node *quote)
{
	for (cmark_node *a = cmark_node_parent(quote); a; a = cmark_node_parent(a)) {
		if (cmark_node_get_type(a) == CMARK_NODE_ITEM)
			return "in a list";
		if (cmark_node_get_type(a) == CMARK_NODE_BLOCK_QUOTE)
			return "in another quote";
		if (cmark_node_get_type(a) == CMARK_NODE_FOOTNOTE_DEFINITION)
			return "in a footnote";
		if (cmark_node_get_type(a) == CMARK_NODE_CUSTOM_BLOCK)
			return "in another callout";
	}
	return NULL;
}

/* The quote as a callout of kind k: its blocks moved into a custom
 * block, less the marker and the line break after it. */
static void make_callout(const struct block_src *s, cmark_node *quote, cmark_node *para,
			 cmark_node *stop, const struct callout_kind *k, const char *name,
			 size_t len, struct loc at)
{
	cmark_node *n = cmark_node_first_child(para);
	while (n && n != stop) {
		cmark_node *next = cmark_node_next(n);
		cmark_node_free(n);
		n = next;
	}
	if (stop)
		cmark_node_free(stop);
	if (!cmark_node_first_child(para))
		cmark_node_free(para);
	if (!cmark_node_first_child(quote))
		diag_warning(s->c->d, at,
			     "an empty callout: its text goes on the lines after '> [!%.*s]', each "
			     "starting with '>'",
			     (int)len, name);
	cmark_node *box = doc_node_new(CMARK_NODE_CUSTOM_BLOCK);
	struct block *b = block_attach(box, BLOCK_CALLOUT, at);
	b->callout = k;
	cmark_node_insert_before(quote, box);
	cmark_node *c;
	while ((c = cmark_node_first_child(quote)) != NULL)
		cmark_node_append_child(box, c);
	cmark_node_free(quote);
}

static void callout(const struct block_src *s, cmark_node *quote)
{
	cmark_node *para = cmark_node_first_child(quote);
	if (!para || cmark_node_get_type(para) != CMARK_NODE_PARAGRAPH)
		return;
	cmark_node *stop = NULL;
	char *line = first_line(para, &stop);
	const char *name, *after;
	size_t len;
	if (!line || !(after = marker(line, &name, &len))) {
		free(line);
		return;
	}
	struct loc at = block_loc(s, para);
	at.len = (int)len + 3;
	char *lower = xstrndup(name, len);
	for (char *c = lower; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	const struct callout_kind *k = NULL;
	for (size_t i = 0; i < ARRAY_LEN(kinds) && !k; i++)
		if (strcmp(kinds[i].name, lower) == 0)
			k = &kinds[i];
	const char *nested = where_nested(quote);
	bool alone = strspn(after, " \t") == strlen(after);
	if (!k) {
		/* "[!x]" the author meant as a callout: a near name, or alone
		 * on its line */
		const char *near = closest_name(lower, names);
		if (near) {
			char *up = xstrdup(near);
			for (char *c = up; *c; c++)
				*c = (char)toupper((unsigned char)*c);
			diag_warning(s->c->d, at,
				     "unknown callout '[!%.*s]' (did you mean '[!%s]'?): shown as a "
				     "plain quote",
				     (int)len, name, up);
			free(up);
		} else if (alone) {
			diag_warning(s->c->d, at,
				     "unknown callout '[!%.*s]': shown as a plain quote (the callouts "
				     "are [!NOTE], [!TIP], [!IMPORTANT], [!WARNING] and [!CAUTION])",
				     (int)len, name);
		}
	} else if (nested) {
		diag_warning(s->c->d, at,
			     "a callout %s is shown as a plain quote: GitHub draws '[!%.*s]' only "
			     "in a quote at the top level (move the quote out)",
			     nested, (int)len, name);
	} else if (!alone) {
		diag_warning(s->c->d, at,
			     "'[!%.*s]' stands alone on the first line of its quote: the text after "
			     "it makes this a plain quote, as on GitHub (the title is always "
			     "'%s'; start the text on the next line)",
			     (int)len, name, k->title);
	} else {
		make_callout(s, quote, para, stop, k, name, len, at);
	}
	free(lower);
	free(line);
}

void callouts_find(const struct block_src *s, cmark_node *root)
{
	/* collected first: the tree changes under them */
	cmark_node **quotes = NULL;
	size_t n = 0, cap = 0;
	for (cmark_node *node = root; node; node = doc_next_block(root, node)) {
		if (cmark_node_get_type(node) == CMARK_NODE_BLOCK_QUOTE) {
			/* doubled: 200,000 nested quotes are one walk */
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				quotes = xrealloc(quotes, cap * sizeof *quotes);
			}
			quotes[n++] = node;
		}
	}
	/* in document order: a quote turned into a callout is freed, the
	 * quotes inside it moved into the callout, not freed */
	for (size_t i = 0; i < n; i++)
		callout(s, quotes[i]);
	free(quotes);
}
