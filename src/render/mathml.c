/* mathml.c: MathML (as KaTeX writes it, or anything else) read by expat
 * into a small tree of elements for pdf_math.c.  The reader knows no
 * element: every element becomes a node, and the layout decides what
 * an unknown one is (a row). */
#include "mathml.h"

#include <expat.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct reader {
	struct mnode *root;
	struct mnode **stack;
	size_t n, cap;
	int skip; /* depth inside elements left out */
	int max_depth;
	struct buf *texts;
};

static void on_start(void *ud, const char *name, const char **attrs)
{
	struct reader *r = ud;
	if (r->skip || (int)r->n >= r->max_depth || (!r->n && r->root)) {
		r->skip++;
		return;
	}
	struct mnode *nd = xcalloc(1, sizeof *nd);
	const char *colon = strrchr(name, ':');
	nd->tag = xstrdup(colon ? colon + 1 : name);
	size_t na = 0;
	while (attrs[na])
		na++;
	nd->attrs = xcalloc(na + 1, sizeof *nd->attrs);
	for (size_t i = 0; i < na; i++)
		nd->attrs[i] = xstrdup(attrs[i]);
	if (r->n) {
		struct mnode *top = r->stack[r->n - 1];
		top->kids = xrealloc(top->kids, (top->nkids + 1) * sizeof *top->kids);
		top->kids[top->nkids++] = nd;
	} else {
		r->root = nd;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->stack = xrealloc(r->stack, r->cap * sizeof *r->stack);
		r->texts = xrealloc(r->texts, r->cap * sizeof *r->texts);
	}
	r->texts[r->n] = (struct buf)BUF_INIT;
	r->stack[r->n++] = nd;
}

static void on_end(void *ud, const char *name)
{
	(void)name;
	struct reader *r = ud;
	if (r->skip) {
		r->skip--;
		return;
	}
	if (!r->n)
		return;
	r->n--;
	r->stack[r->n]->text = buf_detach(&r->texts[r->n]);
}

static void on_text(void *ud, const char *s, int len)
{
	struct reader *r = ud;
	if (!r->skip && r->n)
		buf_put(&r->texts[r->n - 1], s, (size_t)len);
}

struct mnode *mathml_read(const char *xml, size_t len, int max_depth)
{
	struct reader r = {.max_depth = max_depth > 0 ? max_depth : 1};
	XML_Parser xp = XML_ParserCreate("UTF-8");
	XML_SetUserData(xp, &r);
	XML_SetElementHandler(xp, on_start, on_end);
	XML_SetCharacterDataHandler(xp, on_text);
	bool ok = XML_Parse(xp, xml, (int)(len > (size_t)1 << 30 ? (size_t)1 << 30 : len), 1) ==
		  XML_STATUS_OK;
	XML_ParserFree(xp);
	/* elements left open by a parse error */
	while (r.n) {
		r.n--;
		r.stack[r.n]->text = buf_detach(&r.texts[r.n]);
	}
	free(r.stack);
	free(r.texts);
	if (!ok) {
		mathml_tree_free(r.root);
		return NULL;
	}
	return r.root;
}

void mathml_tree_free(struct mnode *n)
{
	/* freed without recursion: a tree as deep as max_depth */
	while (n) {
		if (n->nkids) {
			struct mnode *k = n->kids[--n->nkids];
			/* the child's children become n's, the child goes */
			n->kids = xrealloc(n->kids, (n->nkids + k->nkids + 1) * sizeof *n->kids);
			if (k->nkids)
				memcpy(n->kids + n->nkids, k->kids, k->nkids * sizeof *k->kids);
			n->nkids += k->nkids;
			k->nkids = 0;
			free(k->kids);
			k->kids = NULL;
			mathml_tree_free(k);
			continue;
		}
		free(n->tag);
		for (size_t i = 0; n->attrs && n->attrs[i]; i++)
			free(n->attrs[i]);
		free(n->attrs);
		free(n->text);
		free(n->kids);
		free(n);
		n = NULL;
	}
}

const char *mnode_attr(const struct mnode *n, const char *name)
{
	for (size_t i = 0; n->attrs && n->attrs[i]; i += 2)
		if (strcmp(n->attrs[i], name) == 0)
			return n->attrs[i + 1];
	return NULL;
}
