/* toc.c: a report's table of contents in its page (toc.h).  The same
 * list is written twice: folded in a <details> at the top of the report
 * (phones, and any screen narrower than the rail needs; it works
 * without a script), and in a rail beside the report on a wide screen,
 * where static/toc.js marks the section being read.  The stylesheet
 * shows one of them. */
#include "render/toc.h"

#include <string.h>

#include "base/util.h"
#include "resolve/doc.h"
#include "resolve/provenance.h"
#include "resolve/section.h"

/* A heading's text as the page showed it: its values' text (a
 * formula's TeX), escaped. */
static void put_name(struct buf *out, const struct doc *doc, const char *t)
{
	size_t at, len, index;
	while (doc_next_value(t, strlen(t), &at, &len, &index)) {
		provenance_escape(out, t, at, false);
		const struct directive_text *v = doc_value(doc, index);
		for (size_t i = 0; v && i < v->n; i++) {
			const char *s = v->p[i].math && v->p[i].title ? v->p[i].title : v->p[i].text;
			provenance_escape(out, s, v->p[i].math ? strlen(s) : v->p[i].len, false);
		}
		t += at + len;
	}
	provenance_escape(out, t, strlen(t), false);
}

static bool listed(const struct section *s)
{
	return s->depth >= 1 && s->depth <= TOC_DEPTH;
}

/* The nested list of the sections listed. */
static void put_list(struct buf *out, const struct doc *doc, const struct sections *ss)
{
	int depth = 0;
	for (size_t i = 0; i < ss->n; i++) {
		const struct section *s = &ss->s[i];
		if (!listed(s))
			continue;
		/* a section two deeper than the one before (## then ####) is
		 * listed one deeper */
		int d = s->depth > depth + 1 ? depth + 1 : s->depth;
		if (d > depth) {
			buf_puts(out, depth ? "\n<ol>\n" : "<ol class=\"ld-toc-list\">\n");
		} else {
			buf_puts(out, "</li>\n");
			for (; depth > d; depth--)
				buf_puts(out, "</ol></li>\n");
		}
		depth = d;
		buf_puts(out, "<li><a href=\"#");
		provenance_escape(out, s->id, strlen(s->id), true);
		buf_puts(out, "\">");
		if (*s->number)
			buf_printf(out, "<span class=\"ld-secno\">%s</span> ", s->number);
		put_name(out, doc, s->text);
		buf_puts(out, "</a>");
	}
	buf_puts(out, "</li>\n");
	for (; depth > 1; depth--)
		buf_puts(out, "</ol></li>\n");
	buf_puts(out, "</ol>\n");
}

char *toc_html(const struct doc *doc)
{
	const struct sections *ss = doc_sections(doc);
	size_t n = 0;
	for (size_t i = 0; i < ss->n; i++)
		n += listed(&ss->s[i]);
	if (n < TOC_MIN)
		return xstrdup("");
	struct buf list = BUF_INIT, out = BUF_INIT;
	put_list(&list, doc, ss);
	buf_puts(&out, "<nav class=\"ld-toc\" aria-label=\"Contents\">\n"
		       "<details><summary>Contents</summary>\n");
	buf_put(&out, buf_data(&list), list.len);
	buf_puts(&out, "</details>\n</nav>\n"
		       "<nav class=\"ld-toc-rail\" aria-label=\"Contents\">\n"
		       "<div class=\"ld-toc-rail-inner\">\n<p class=\"ld-toc-title\">Contents</p>\n");
	buf_put(&out, buf_data(&list), list.len);
	buf_puts(&out, "</div>\n</nav>\n");
	buf_free(&list);
	return buf_detach(&out);
}
