/* toc.h: a report's table of contents in its page. */
#ifndef LOGDOWN_TOC_H
#define LOGDOWN_TOC_H

struct doc;

/* Sections shown in the contents: the first two depths (## and ###
 * in a body that starts at ##). */
#define TOC_DEPTH 2
/* A report with fewer sections to list has no contents. */
#define TOC_MIN 2

/* The contents of doc's page, after html_doc() (the values in the
 * headings as it showed them): a <details> list for narrow screens and
 * a rail beside the report for wide ones (static/logdown.css,
 * static/toc.js); "" when there are fewer than TOC_MIN sections to
 * list.  Caller frees. */
char *toc_html(const struct doc *doc);

#endif
