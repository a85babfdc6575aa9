/* blocks.c: what the finders of blocks.h share: a block as a node's
 * user data, the source's lines, and image sizes. */
#include "blocks_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static void block_free(cmark_mem *mem, void *data)
{
	(void)mem;
	struct block *b = data;
	if (!b)
		return;
	free(b->label);
	free(b->width.css);
	free(b->height.css);
	free(b);
}

struct block *block_attach(cmark_node *node, enum block_kind kind, struct loc at)
{
	struct block *b = xcalloc(1, sizeof *b);
	b->kind = kind;
	b->at = at;
	cmark_node_set_user_data(node, b);
	cmark_node_set_user_data_free_func(node, block_free);
	return b;
}

const struct block *doc_block(struct cmark_node *node)
{
	cmark_node_type t = cmark_node_get_type(node);
	if (t != CMARK_NODE_CUSTOM_BLOCK && t != CMARK_NODE_IMAGE)
		return NULL;
	return cmark_node_get_user_data(node);
}

const char *block_line(const struct block_src *s, int n, size_t *len)
{
	const char *p = s->text, *end = s->text + s->len;
	for (int i = 1; i < n && p; i++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	if (!p || p > end || n < 1)
		return NULL;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((nl ? nl : end) - p);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return p;
}

struct loc block_loc(const struct block_src *s, cmark_node *node)
{
	return (struct loc){s->file, s->line0 + cmark_node_get_start_line(node),
			    cmark_node_get_start_column(node), 0};
}

double image_size_pt(const struct image_size *s, double column, double em)
{
	switch (s->unit) {
	case SIZE_PX:
		return s->n * 0.75;
	case SIZE_PERCENT:
		return s->n / 100 * column;
	case SIZE_CM:
		return s->n * 72 / 2.54;
	case SIZE_MM:
		return s->n * 72 / 25.4;
	case SIZE_IN:
		return s->n * 72;
	case SIZE_PT:
		return s->n;
	case SIZE_EM:
		return s->n * em;
	case SIZE_NONE:
		break;
	}
	return 0;
}
