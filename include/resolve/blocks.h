/* blocks.h: the blocks a report has besides CommonMark's and GitHub's
 * tables: callouts (GitHub's "> [!NOTE]"), figures made of images
 * ("![Loss](loss.png){#fig-loss width=60%}") and tabs ("::: tabs").
 *
 * resolve/ finds them in the cmark tree (callout.c, figure.c, tabs.c)
 * and marks them there: a callout, a set of tabs, a tab and a tab's
 * title become CMARK_NODE_CUSTOM_BLOCKs holding their blocks; an image
 * with attributes or a figure keeps its IMAGE node.  Each carries a
 * struct block as its user data, which the renderers read with
 * doc_block(): render/html.c writes their HTML, render/pdf_box.c draws
 * them.  The user data belongs to the node (freed with the tree). */
#ifndef LOGDOWN_BLOCKS_H
#define LOGDOWN_BLOCKS_H

#include <stdbool.h>

#include "base/diag.h"

struct cmark_node;

enum block_kind {
	BLOCK_CALLOUT,   /* a custom block holding the quote's blocks */
	BLOCK_TABS,      /* a custom block holding its BLOCK_TABs */
	BLOCK_TAB,       /* a BLOCK_TAB_TITLE, then the tab's blocks */
	BLOCK_TAB_TITLE, /* the inlines of the tab's heading */
	BLOCK_IMAGE,     /* an image with attributes, or a figure */
};

/* A kind of callout: GitHub's five. */
struct callout_kind {
	const char *name;  /* "note": the marker [!NOTE] in any case, the class */
	const char *title; /* "Note" */
	/* The icon: the d of an SVG path in a 16 x 16 box, filled
	 * (fill-rule evenodd), the same for the page and the PDF. */
	const char *icon;
	unsigned colour; /* the light theme's, 0xRRGGBB: the bar and the title */
	unsigned tint;   /* the light theme's background */
};

/* Image sizes: a number and its unit, as written ("60%", "8cm"). */
enum size_unit { SIZE_NONE, SIZE_PX, SIZE_PERCENT, SIZE_CM, SIZE_MM, SIZE_IN, SIZE_PT, SIZE_EM };

struct image_size {
	double n;
	enum size_unit unit;
	char *css; /* "60%", "8cm", "200px": what the page's style says */
};

struct block {
	enum block_kind kind;
	struct loc at; /* where it starts in the .md */
	/* BLOCK_CALLOUT */
	const struct callout_kind *callout;
	/* BLOCK_TABS: its number in the report (from 1), its tabs */
	int tabs;
	int ntabs;
	/* BLOCK_TAB: its place among its tabs (from 1) */
	int tab;
	/* BLOCK_IMAGE */
	bool figure;   /* alone in its paragraph, numbered, captioned */
	char *label;   /* "fig-loss", or NULL */
	int number;    /* Figure N; 0 when not a figure */
	bool title_caption; /* the caption is the title, not the alt text */
	struct image_size width, height;
};

/* The block node stands for (a custom block or an image), or NULL. */
const struct block *doc_block(struct cmark_node *node);

/* Size s in points: a percentage of `column`, an em of `em` points. */
double image_size_pt(const struct image_size *s, double column, double em);

#endif
