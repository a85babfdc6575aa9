/* markdown.h: GitHub-flavoured Markdown into HTML, with cmark-gfm. */
#ifndef LOGDOWN_MARKDOWN_H
#define LOGDOWN_MARKDOWN_H

#include <stddef.h>

/* Renders a report body with the GFM extensions (tables, strikethrough,
 * autolinks, task lists, footnotes) and the tag filter: raw HTML is kept
 * except the tags GitHub filters (script, style, iframe, ...).  Caller
 * frees the result with free(). */
char *markdown_to_html(const char *text, size_t len);

#endif
