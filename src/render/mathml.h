/* mathml.h: MathML read into a tree, for pdf_math.c to lay out (private
 * to render/). */
#ifndef LOGDOWN_MATHML_H
#define LOGDOWN_MATHML_H

#include <stddef.h>

/* An element: its local name (the namespace dropped), its attributes
 * (name, value pairs, NULL-terminated), its character data (all of it,
 * between its children too) and its children. */
struct mnode {
	char *tag;
	char **attrs;
	char *text;
	struct mnode **kids;
	size_t nkids;
};

/* The root element of xml (len bytes), or NULL when it is not
 * well-formed XML.  Elements nested deeper than max_depth are left out
 * with their content. */
struct mnode *mathml_read(const char *xml, size_t len, int max_depth);
void mathml_tree_free(struct mnode *n);
/* The value of attribute name, or NULL. */
const char *mnode_attr(const struct mnode *n, const char *name);

#endif
