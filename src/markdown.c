/* markdown.c: the cmark-gfm parser with GitHub's extensions attached. */
#include "markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdlib.h>

static const char *const extensions[] = {
	"table", "strikethrough", "autolink", "tagfilter", "tasklist",
};

/* Raw HTML is the author's own and stays (UNSAFE); the tagfilter
 * extension then neutralises the tags GitHub does not allow. */
#define MD_OPTIONS (CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES | CMARK_OPT_SOURCEPOS)

char *markdown_to_html(const char *text, size_t len)
{
	cmark_gfm_core_extensions_ensure_registered();
	cmark_parser *parser = cmark_parser_new(MD_OPTIONS);
	for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) {
		cmark_syntax_extension *ext = cmark_find_syntax_extension(extensions[i]);
		if (ext)
			cmark_parser_attach_syntax_extension(parser, ext);
	}
	cmark_parser_feed(parser, text, len);
	cmark_node *doc = cmark_parser_finish(parser);
	/* Source positions help the parse (diagnostics later); the HTML
	 * leaves them out. */
	char *html = cmark_render_html(doc, CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES,
				       cmark_parser_get_syntax_extensions(parser));
	cmark_node_free(doc);
	cmark_parser_free(parser);
	return html;
}
