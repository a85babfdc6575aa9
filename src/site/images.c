/* images.c: the local images a page would show broken.  Every image a
 * page shows from a relative path must be in the site where the page
 * looks for it: a bundle file copied beside the page, or a file of
 * static/.  When it is not, the warning says why, read from the
 * report's folder as the PDF reads it. */
#include "site_int.h"

#include <cmark-gfm.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/htmltag.h"
#include "base/imagesize.h"
#include "base/util.h"
#include "data/limit.h"
#include "resolve/blocks.h"
#include "resolve/doc.h"

/* Is url one the site itself cannot hold: with a scheme (http:, data:),
 * scheme-relative (//host), absolute (/x), or only a query or fragment?
 * The first two are not logdown's to check; the others name no file. */
static bool image_not_local(const char *url)
{
	if (!*url || url[0] == '/' || url[0] == '#' || url[0] == '?')
		return true;
	size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	return n > 0 && url[n] == ':' && isalpha((unsigned char)url[0]);
}

/* rel seen from the page SLUG/index.html, as a path below the site's
 * root with "." and ".." folded; NULL when it climbs out of the site. */
static char *site_path(const char *slug, const char *rel)
{
	char *all = xasprintf("%s/%s", slug, rel);
	char **seg = xcalloc(strlen(all) / 2 + 2, sizeof *seg);
	size_t n = 0;
	bool out = false;
	for (char *save = NULL, *t = strtok_r(all, "/", &save); t && !out;
	     t = strtok_r(NULL, "/", &save)) {
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0)
			out = n-- == 0;
		else
			seg[n++] = t;
	}
	struct buf b = BUF_INIT;
	for (size_t i = 0; !out && i < n; i++) {
		if (i)
			buf_putc(&b, '/');
		buf_puts(&b, seg[i]);
	}
	free(seg);
	free(all);
	if (out || b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* A bundle file by where it goes in the site. */
struct output_file {
	const char *out; /* below the site: "hw07/img/loss.png" */
	const char *src;
};

static int cmp_output(const void *pa, const void *pb)
{
	return strcmp(((const struct output_file *)pa)->out, ((const struct output_file *)pb)->out);
}

/* Indexes the bundle files by output path, once they are all known. */
void index_resources(struct build *b)
{
	size_t n = b->nresources / 2;
	b->by_output = xcalloc(n ? n : 1, sizeof *b->by_output);
	for (size_t i = 0; i < n; i++)
		b->by_output[i] = (struct output_file){b->resources[2 * i + 1], b->resources[2 * i]};
	if (n > 1)
		qsort(b->by_output, n, sizeof *b->by_output, cmp_output);
}

/* The bundle file copied to the site's path out, or NULL. */
static const struct output_file *resource_at(const struct build *b, const char *out)
{
	struct output_file key = {out, NULL};
	return b->nresources ? bsearch(&key, b->by_output, b->nresources / 2, sizeof key, cmp_output)
			     : NULL;
}

/* A file of the project's static/ (its path below the site, "static/x"),
 * which the build copies? */
static bool static_file(const struct build *b, const char *out)
{
	if (!str_has_prefix(out, "static/"))
		return false;
	char *path = path_join(b->opts->root, out);
	char *real = path_resolve(path);
	struct stat st;
	bool ok = real && path_under(real, b->root_real) && stat(real, &st) == 0 &&
		  S_ISREG(st.st_mode);
	free(real);
	free(path);
	return ok;
}

/* Warns at `at` when the image file src (a PNG, JPEG, GIF or WebP; its
 * header read, never decoded) has more pixels than limit image_pixels.
 * The site keeps it, copied as every bundle file is: the build only
 * copies its bytes, and a link to it stays whole; the warning says the
 * page asks a reader's browser to decode it all.  An SVG is drawn as
 * vectors at the size the page gives it, so only the PDF checks one. */
static void pixel_bomb(const struct build *b, const char *src, const char *url, struct loc at,
		       struct diag *d)
{
	/* read as the copy reads it (open_confined()): a file swapped for
	 * a link out of the project is not measured, and its copy fails */
	int fd = open_confined(src, b->root_real, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	unsigned long w, h, max = limit_get(LIMIT_IMAGE_PIXELS);
	const char *kind = image_size(f, &w, &h);
	fclose(f);
	if (!kind || (double)w * (double)h <= (double)max)
		return;
	diag_warning(d, at,
		     "image '%s' is %lux%lu pixels, more than the %lu an image may have: a "
		     "browser needs %.1f GB to show it (%s)",
		     url, w, h, max, (double)w * (double)h * 4 / 1e9,
		     limit_hint(LIMIT_IMAGE_PIXELS));
}

/* Checks one local image of r's page, written `url` at `at`: the site
 * must hold it where the page looks (a bundle file copied beside the
 * page, or a static/ file).  When it does not, the source path, read
 * from the report's folder as the PDF reads it and confined to the
 * project as result files are, says why. */
static void check_image(struct build *b, const struct report *r, const char *url, struct loc at,
			bool labelled, struct job *job)
{
	/* a labelled figure that would show broken is an error: its
	 * references lead to it (a titled one is plain Markdown, GitHub's
	 * too, and keeps the warning) */
	void (*say)(struct diag *, struct loc, const char *, ...) = labelled ? diag_error
									  : diag_warning;
	char *file = doc_url_file(url);
	char *out = site_path(r->slug, file);
	const struct output_file *f = out ? resource_at(b, out) : NULL;
	if (f || (out && static_file(b, out))) {
		char *src = f ? xstrdup(f->src) : path_join(b->opts->root, out);
		pixel_bomb(b, src, url, at, job->render_d);
		free(src);
		/* another report's file, or static/: not covered by r's key */
		if (!f || !r->bundle || !str_has_prefix(f->src, r->dir) ||
		    f->src[strlen(r->dir)] != '/')
			job->shows_others = true;
		free(out);
		free(file);
		return;
	}
	job->shows_others = true; /* it may appear: warn every time */
	struct diag *d = job->render_d;
	char *path = path_join(r->dir, file);
	char *real = path_resolve(path);
	struct stat st;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (!real)
		say(d, at, "image '%s' cannot be found: %s", url, strerror(errno));
	else if (!path_under(real, b->root_real))
		say(d, at,
			     "image '%s' leads outside the project: logdown copies nothing from "
			     "there (copy the file into the report's folder)",
			     url);
	else if (stat(real, &st) != 0)
		say(d, at,
			     "image '%s' does not exist: the page would show a broken image (fix "
			     "the path, or put the file there)",
			     url);
	else if (!S_ISREG(st.st_mode))
		say(d, at, "image '%s' is %s, not a file", url, file_kind_word(st.st_mode));
	else if (!r->bundle)
		say(d, at,
			     "image '%s' is not copied into the site: only the files of a report "
			     "folder are (move this report to content/%s/index.md, beside its "
			     "images)",
			     url, r->slug);
	else if (!is_resource(base))
		say(d, at,
			     "image '%s' is not copied into the site: a report folder's .png .jpg "
			     ".jpeg .gif .svg .webp .avif .pdf .mp4 .webm files are",
			     url);
	else
		say(d, at,
			     "image '%s' is not copied into the site where the page looks: only "
			     "the report folder's own files are (copy it into the folder)",
			     url);
	free(real);
	free(path);
	free(out);
	free(file);
}

/* Is url one of r's page's images to check: local, and not made by a
 * value (values in a source are the reader's to check)? */
static bool image_to_check(const char *url)
{
	size_t at, len, index;
	return url && !image_not_local(url) && !doc_next_value(url, strlen(url), &at, &len, &index);
}

/* Checks the src of each <img> tag of the author's raw HTML at node n
 * (a block or an inline tag), as an image of the Markdown's is: the
 * page shows it from the same place.  Each is placed at its tag's '<'
 * in the .md file. */
static void check_raw_images(struct build *b, const struct report *r, struct doc *doc,
			     cmark_node *n, struct job *job)
{
	const char *html = cmark_node_get_literal(n);
	if (!html)
		return;
	const char *end = html + strlen(html);
	char *src;
	for (const char *tag = doc_raw_image(html, end, &src); tag;
	     tag = doc_raw_image(html_tag_end(tag, end), end, &src)) {
		if (!image_not_local(src))
			check_image(b, r, src, doc_html_loc(doc, n, tag), false, job);
		free(src);
	}
}

/* Checks every local image the page shows: the Markdown's, and the
 * <img> tags of the author's raw HTML. */
void check_images(struct build *b, const struct report *r, struct doc *doc,
		  struct job *job)
{
	/* half the pages of a big site show none: no walk of their trees */
	if (!doc_has_images(doc))
		return;
	cmark_iter *it = cmark_iter_new(doc_root(doc));
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (ev != CMARK_EVENT_ENTER)
			continue;
		cmark_node_type type = cmark_node_get_type(n);
		if ((type == CMARK_NODE_HTML_BLOCK && !doc_directive(n)) ||
		    type == CMARK_NODE_HTML_INLINE) {
			check_raw_images(b, r, doc, n, job);
			continue;
		}
		if (type != CMARK_NODE_IMAGE)
			continue;
		const char *url = cmark_node_get_url(n);
		if (!image_to_check(url))
			continue;
		struct loc where = loc_line(doc_file(doc),
					    doc_line0(doc) + cmark_node_get_start_line(n));
		where.col = cmark_node_get_start_column(n);
		const struct block *fig = doc_block(n);
		check_image(b, r, url, where, fig && fig->label, job);
	}
	cmark_iter_free(it);
}
