/* cmark_floor.c: the floor of row (b) of make bench.
 *
 *   build/cmark-floor CONTENT OUT
 *
 * What a site of N Markdown pages costs with cmark-gfm and nothing else:
 * every *.md file under CONTENT (in the order nftw(3) finds them) is read
 * whole, its front matter (a first line "---" up to the next "---" line)
 * skipped, the rest parsed by cmark-gfm with the GFM extensions logdown
 * attaches (table, strikethrough, autolink, tagfilter, tasklist; options
 * UNSAFE, FOOTNOTES, VALIDATE_UTF8, as src/resolve/doc.c), rendered to
 * HTML and written to OUT/<n>.html, on one thread.  No templates, no
 * values, no search index, no links checked.  The bench prints this time
 * beside logdown's and Hugo's so that a site build can be judged against
 * what parsing and writing its Markdown costs on this machine.
 *
 * Exit status: 0, or 1 with a message (bad usage, a file that cannot be
 * read or written). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *out_dir;
static unsigned long npages;

static const char *const extensions[] = {
	"table", "strikethrough", "autolink", "tagfilter", "tasklist",
};
#define OPTIONS (CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES | CMARK_OPT_VALIDATE_UTF8)

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap);
	size_t got;
	while (p && (got = fread(p + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *q = realloc(p, cap *= 2);
			if (!q) {
				free(p);
				p = NULL;
			}
			p = q;
		}
	}
	fclose(f);
	*len = n;
	return p;
}

/* The Markdown after a front matter block, or all of it. */
static const char *body(const char *s, size_t len, size_t *blen)
{
	*blen = len;
	if (len < 4 || memcmp(s, "---\n", 4) != 0)
		return s;
	for (size_t i = 4; i + 4 <= len; i++) {
		if (s[i - 1] == '\n' && memcmp(s + i, "---", 3) == 0 &&
		    (s[i + 3] == '\n' || i + 3 == len)) {
			size_t at = i + 3 < len ? i + 4 : len;
			*blen = len - at;
			return s + at;
		}
	}
	return s;
}

static int page(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 3 || strcmp(path + n - 3, ".md") != 0)
		return 0;
	size_t len, blen;
	char *text = read_all(path, &len);
	if (!text) {
		fprintf(stderr, "cmark-floor: %s: %s\n", path, strerror(errno));
		return 1;
	}
	const char *md = body(text, len, &blen);
	cmark_parser *parser = cmark_parser_new(OPTIONS);
	for (size_t i = 0; i < sizeof extensions / sizeof *extensions; i++) {
		cmark_syntax_extension *ext = cmark_find_syntax_extension(extensions[i]);
		if (ext)
			cmark_parser_attach_syntax_extension(parser, ext);
	}
	cmark_parser_feed(parser, md, blen);
	cmark_node *root = cmark_parser_finish(parser);
	char *html = cmark_render_html(root, OPTIONS, cmark_parser_get_syntax_extensions(parser));
	char out[4096];
	snprintf(out, sizeof out, "%s/%lu.html", out_dir, npages++);
	FILE *f = fopen(out, "wb");
	int bad = !f || fwrite(html, 1, strlen(html), f) != strlen(html);
	if (f && fclose(f) != 0)
		bad = 1;
	if (bad)
		fprintf(stderr, "cmark-floor: %s: cannot write\n", out);
	free(html);
	cmark_node_free(root);
	cmark_parser_free(parser);
	free(text);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cmark-floor CONTENT OUT\n");
		return 1;
	}
	out_dir = argv[2];
	cmark_gfm_core_extensions_ensure_registered();
	if (nftw(argv[1], page, 32, FTW_PHYS) != 0) {
		fprintf(stderr, "cmark-floor: %s: cannot read every page\n", argv[1]);
		return 1;
	}
	if (npages == 0) {
		fprintf(stderr, "cmark-floor: %s: no .md file\n", argv[1]);
		return 1;
	}
	return 0;
}
