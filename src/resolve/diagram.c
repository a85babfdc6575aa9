/* diagram.c: ```dot fences laid out by Graphviz (diagram.h).
 *
 * Graphviz keeps global state (its error handler, the lexer's line,
 * the plugins' context) and lays text out with pango, so every call
 * into it takes the font lock (draw/font.h), which the build's threads
 * already share for pango: one diagram at a time, and no text drawn by
 * a chart meanwhile.
 *
 * The page's SVG is Graphviz's own SVG renderer's, with real <text>
 * (selectable, found by the browser's search, links inside), and the
 * PDF draws that same SVG with librsvg as vectors: Graphviz's cairo
 * renderer cannot draw onto a caller's PDF context (its "cairo" device
 * does not exist for gvRenderContext, and "pdf:cairo" finishes the
 * surface).  The default colour is drawn as currentColor, so that the
 * diagram takes the page's text colour in light and dark alike. */
#include "resolve/diagram.h"

#include <ctype.h>
#include <gvc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "body.h"
#include "data/limit.h"
#include "draw/font.h"
#include "resolve/attrs.h"

/* The default colour, replaced by currentColor in the SVG: a colour no
 * one writes. */
#define INK "#010203"
#define INK_LEN 7
/* Text on a filled node whose fill the author chose (or Graphviz's
 * light grey): dark in both schemes, as the fill stays light. */
#define INK_ON_FILL "#1c2128"
#define FONT "DejaVu Sans"
/* A value in the DOT, between U+27E6 and U+27E7: valid in a DOT string
 * and in an HTML label's XML, and written by no one. */
#define VOPEN "\xE2\x9F\xA6LD"
#define VCLOSE "\xE2\x9F\xA7"

/* Attributes that read a file (the first five) or leave the layout
 * unbounded or paged: refused. */
static const char *const forbidden[] = {
	"image", "shapefile", "fontpath", "imagepath", "stylesheet", "charset",
	"mclimit", "nslimit", "nslimit1", "searchsize", "maxiter", "page", "layout",
	"dpi", "resolution", NULL,
};

static const char *const url_attrs[] = {
	"URL", "href", "labelURL", "labelhref", "headURL", "headhref", "tailURL",
	"tailhref", "edgeURL", "edgehref", NULL,
};

static const char *const fence_keys[] = {"id", "class", "caption", "alt", NULL};

/* --- the fence's info string --- */

static bool lang_word(const char *s, size_t n)
{
	return (n == 3 && memcmp(s, "dot", 3) == 0) || (n == 8 && memcmp(s, "graphviz", 8) == 0);
}

bool diagram_info(const char *info)
{
	if (!info)
		return false;
	if (info[0] == '{') {
		const char *p = info + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '.')
			return false;
		size_t n = strcspn(p + 1, " \t}");
		return lang_word(p + 1, n);
	}
	size_t n = strcspn(info, " \t{");
	return lang_word(info, n);
}

/* --- Graphviz, under the lock --- */

static GVC_t *gvc;
static struct buf messages; /* what Graphviz said since the last take */

static int collect(char *msg)
{
	buf_puts(&messages, msg);
	return 0;
}

static void gv_begin(void)
{
	font_lock();
	if (!gvc) {
		agseterrf(collect);
		agseterr(AGWARN);
		/* demand loading: the dot layout, the SVG renderer and the
		 * pango text layout are read from Graphviz's plugin folder
		 * when first used, nothing else */
		gvc = gvContext();
	}
	buf_clear(&messages);
	agreseterrors();
}

static void gv_end(void)
{
	font_unlock();
}

/* --- where a DOT line is in the .md --- */

struct place {
	const char *file;
	int first_line;
	const int *shift;
	size_t nshift;
	const char *dot; /* as written */
};

/* Line n (from 1) of the DOT text and its length; NULL past the end. */
static const char *dot_line(const char *dot, int n, size_t *len)
{
	const char *p = dot;
	for (int i = 1; i < n; i++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	*len = strcspn(p, "\n");
	return p;
}

/* DOT line n (from 1), byte off in it, as a place in the .md. */
static struct loc at_dot(const struct place *pl, int n, size_t off, int len)
{
	if (n < 1)
		n = 1;
	int sh = (size_t)(n - 1) < pl->nshift ? pl->shift[n - 1] : 0;
	return (struct loc){pl->file, pl->first_line + n - 1, sh + (int)off + 1, len};
}

/* The first place name is written as an attribute (name, blanks, '=')
 * outside a string; line 1 when it cannot be found. */
static struct loc find_attr(const struct place *pl, const char *name)
{
	size_t n = strlen(name);
	int line = 1;
	const char *line_start = pl->dot;
	for (const char *p = pl->dot; *p; p++) {
		if (*p == '\n') {
			line++;
			line_start = p + 1;
			continue;
		}
		if (strncmp(p, name, n) != 0 || (p > pl->dot && (isalnum((unsigned char)p[-1]) ||
								 p[-1] == '_')))
			continue;
		const char *q = p + n;
		if (*q == '"')
			q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '=')
			return at_dot(pl, line, (size_t)(p - line_start), (int)n);
	}
	return at_dot(pl, 1, 0, 0);
}

/* Reports what Graphviz said: a syntax error at its line (and at the
 * token it names), the rest at the fence.  Returns whether an error
 * was among them. */
static bool report_messages(const struct place *pl, struct loc fence, struct diag *d,
			    bool as_errors)
{
	bool error = false;
	const char *p = buf_data(&messages);
	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char *m = xstrndup(p, n);
		p += n + (p[n] == '\n');
		bool err = as_errors;
		const char *text = m;
		if (str_has_prefix(text, "Error: ")) {
			err = true;
			text += 7;
		} else if (str_has_prefix(text, "Warning: ")) {
			text += 9;
		}
		while (*text == ' ')
			text++;
		if (!*text) {
			free(m);
			continue;
		}
		error = error || err;
		int line;
		int k = 0;
		const char *s = strstr(text, "syntax error in line ");
		if (s && sscanf(s, "syntax error in line %d%n", &line, &k) == 1) {
			const char *near = strstr(s + k, " near '");
			struct loc at = at_dot(pl, line, 0, 0);
			if (near) {
				near += 7;
				size_t nl = strlen(near);
				if (nl && near[nl - 1] == '\'')
					nl--;
				size_t len;
				const char *src = dot_line(pl->dot, line, &len);
				const char *hit = NULL;
				for (size_t i = 0; src && nl && i + nl <= len && !hit; i++)
					if (memcmp(src + i, near, nl) == 0)
						hit = src + i;
				if (hit)
					at = at_dot(pl, line, (size_t)(hit - src), (int)nl);
				diag_error(d, at, "DOT syntax error near '%.*s'", (int)nl, near);
			} else {
				diag_error(d, at, "DOT syntax error");
			}
		} else if (err) {
			diag_error(d, fence, "Graphviz: %s", text);
		} else {
			diag_warning(d, fence, "Graphviz: %s", text);
		}
		free(m);
	}
	buf_clear(&messages);
	return error;
}

/* --- walking every object of a graph --- */

typedef void (*visit_fn)(Agraph_t *root, void *obj, int kind, void *ctx);

static void visit_graph(Agraph_t *root, Agraph_t *g, visit_fn fn, void *ctx)
{
	fn(root, g, AGRAPH, ctx);
	for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s))
		visit_graph(root, s, fn, ctx);
}

static void visit_all(Agraph_t *g, visit_fn fn, void *ctx)
{
	visit_graph(g, g, fn, ctx);
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
		fn(g, n, AGNODE, ctx);
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
			fn(g, e, AGEDGE, ctx);
	}
}

/* --- the checks --- */

/* What the checks found, reported in the order of the lines: cgraph
 * keeps no places, so each is found in the text again. */
struct issue {
	struct loc at;
	char *msg;
};

struct check {
	const struct place *pl;
	struct issue *issues;
	size_t n;
	bool img_said, url_said;
};

static void issue(struct check *ck, struct loc at, char *msg)
{
	ck->issues = xrealloc(ck->issues, (ck->n + 1) * sizeof *ck->issues);
	ck->issues[ck->n++] = (struct issue){at, msg};
}

static int by_place(const void *a, const void *b)
{
	const struct issue *x = a, *y = b;
	if (x->at.line != y->at.line)
		return x->at.line < y->at.line ? -1 : 1;
	return (x->at.col > y->at.col) - (x->at.col < y->at.col);
}

static bool ci_find(const char *s, const char *what, const char **at)
{
	size_t n = strlen(what);
	for (const char *p = s; *p; p++)
		if (strncasecmp(p, what, n) == 0) {
			*at = p;
			return true;
		}
	return false;
}

/* The first place text (case ignored) is written in the DOT. */
static struct loc find_text(const struct place *pl, const char *text)
{
	const char *hit;
	if (!ci_find(pl->dot, text, &hit))
		return at_dot(pl, 1, 0, 0);
	int line = 1;
	const char *ls = pl->dot;
	for (const char *p = pl->dot; p < hit; p++)
		if (*p == '\n') {
			line++;
			ls = p + 1;
		}
	return at_dot(pl, line, (size_t)(hit - ls), (int)strlen(text));
}

static void check_object(Agraph_t *root, void *obj, int kind, void *ctx)
{
	struct check *ck = ctx;
	for (Agsym_t *sym = agnxtattr(root, kind, NULL); sym; sym = agnxtattr(root, kind, sym)) {
		char *v = agxget(obj, sym);
		if (!v || !*v)
			continue;
		if (aghtmlstr(v)) {
			/* an HTML label: <IMG SRC="file"> reads a file; HREF
			 * may lead to a script */
			const char *hit;
			if (!ck->img_said && ci_find(v, "<img", &hit)) {
				issue(ck, find_text(ck->pl, "<img"),
				      xstrdup("<IMG> in a diagram's HTML label would read a file: not "
					      "allowed in a report"));
				ck->img_said = true;
			}
			for (const char *p = v; !ck->url_said && ci_find(p, "href=", &hit);
			     p = hit + 5) {
				const char *u = hit + 5;
				if (*u == '"' || *u == '\'')
					u++;
				if (url_is_dangerous(u, strcspn(u, "\"' >"))) {
					issue(ck, find_text(ck->pl, "href="),
					      xstrdup("a link in a diagram would run script: not "
						      "allowed"));
					ck->url_said = true;
				}
			}
			continue;
		}
		for (size_t i = 0; url_attrs[i]; i++)
			if (strcmp(sym->name, url_attrs[i]) == 0 && !ck->url_said &&
			    url_is_dangerous(v, strlen(v))) {
				issue(ck, find_attr(ck->pl, sym->name),
				      xasprintf("%s leads to a '%.*s' URL, which would run script: not "
						"allowed",
						sym->name, (int)(strcspn(v, ":") + 1), v));
				ck->url_said = true;
			}
	}
}

/* Limit, forbidden attributes, URLs and <IMG>: before any layout. */
static bool check_graph(Agraph_t *g, const struct place *pl, struct loc fence, struct diag *d)
{
	unsigned long max = limit_get(LIMIT_DOT_NODES);
	unsigned long size = (unsigned long)agnnodes(g) + (unsigned long)agnedges(g);
	if (size > max) {
		diag_error(d, fence,
			   "this diagram has %d nodes and %d edges, more than the %lu a diagram may "
			   "have (%s)",
			   agnnodes(g), agnedges(g), max, limit_hint(LIMIT_DOT_NODES));
		return false;
	}
	struct check ck = {pl, NULL, 0, false, false};
	static const int kinds[] = {AGRAPH, AGNODE, AGEDGE};
	for (size_t k = 0; k < 3; k++)
		for (Agsym_t *sym = agnxtattr(g, kinds[k], NULL); sym;
		     sym = agnxtattr(g, kinds[k], sym)) {
			bool bad = sym->name[0] == '_'; /* _background: xdot with images */
			for (size_t i = 0; forbidden[i] && !bad; i++)
				bad = strcmp(sym->name, forbidden[i]) == 0;
			if (!bad)
				continue;
			bool file = sym->name[0] == '_';
			for (size_t i = 0; i < 5 && !file; i++)
				file = strcmp(sym->name, forbidden[i]) == 0;
			issue(&ck, find_attr(pl, sym->name),
			      xasprintf("a diagram may not set '%s': %s", sym->name,
					file ? "it would read a file"
					     : "logdown lays diagrams out with dot's own settings"));
		}
	visit_all(g, check_object, &ck);
	if (ck.n)
		qsort(ck.issues, ck.n, sizeof *ck.issues, by_place);
	for (size_t i = 0; i < ck.n; i++) {
		diag_error(d, ck.issues[i].at, "%s", ck.issues[i].msg);
		free(ck.issues[i].msg);
	}
	free(ck.issues);
	return ck.n == 0;
}

/* --- values in the DOT --- */

struct vals {
	struct directive_text *v; /* one per {{ }}, its pieces */
	size_t n;
};

/* The DOT with each {{ expr }} inside a string replaced by a marker
 * (VOPEN index VCLOSE), its value resolved into vals.  A value outside
 * a quoted or HTML string is an error: DOT would read its braces as a
 * subgraph. */
static char *take_values(struct directive_ctx *c, const struct place *pl, struct vals *vals,
			 bool *ok)
{
	struct buf out = BUF_INIT;
	const char *p = pl->dot;
	int line = 1;
	const char *ls = p;
	bool quoted = false;
	int angle = 0;
	while (*p) {
		char ch = *p;
		if (ch == '\n') {
			line++;
			ls = p + 1;
		}
		if (ch == '{' && p[1] == '{') {
			const char *close = strstr(p + 2, "}}");
			const char *nl = strchr(p, '\n');
			if (close && (!nl || close < nl)) {
				struct loc at = at_dot(pl, line, (size_t)(p - ls), (int)(close + 2 - p));
				if (!quoted && !angle) {
					diag_error(c->d, at,
						   "a value in a diagram goes inside a quoted string: "
						   "label=\"%.*s\"",
						   (int)(close + 2 - p), p);
					*ok = false;
				}
				struct value v = {.kind = VALUE_STRING};
				v.text = xstrndup(p, (size_t)(close + 2 - p));
				v.len = (size_t)(close + 2 - p);
				v.loc = at;
				v.loc.len = 0;
				struct directive_result r = {0};
				read_caption(c, &v, &r);
				free(v.text);
				vals->v = xrealloc(vals->v, (vals->n + 1) * sizeof *vals->v);
				vals->v[vals->n] = r.caption;
				r.caption = (struct directive_text){0};
				directive_result_clear(&r);
				buf_printf(&out, VOPEN "%zu" VCLOSE, vals->n++);
				p = close + 2;
				continue;
			}
		}
		if (quoted) {
			if (ch == '\\' && p[1]) {
				buf_put(&out, p, 2);
				p += 2;
				continue;
			}
			if (ch == '"')
				quoted = false;
		} else if (ch == '"' && !angle) {
			quoted = true;
		} else if (ch == '<') {
			angle++;
		} else if (ch == '>' && angle) {
			angle--;
		}
		buf_putc(&out, ch);
		p++;
	}
	return buf_detach(&out);
}

struct fill {
	const struct vals *vals;
	Agraph_t *root;
	const char *ink; /* the default colour: INK, or INK_ON_FILL on the
			  * author's own background */
};

static bool label_attr(const char *name)
{
	return strcmp(name, "label") == 0 || strcmp(name, "xlabel") == 0 ||
	       strcmp(name, "headlabel") == 0 || strcmp(name, "taillabel") == 0;
}

/* An attribute's value with its markers replaced by the values' text,
 * escaped for an HTML label or a DOT string; *href the first value's
 * link and *title its tooltip. */
static char *fill_text(const char *v, bool html, const struct vals *vals, const char **href,
		       const char **title)
{
	struct buf b = BUF_INIT;
	const char *p = v;
	const char *m;
	size_t olen = strlen(VOPEN), clen = strlen(VCLOSE);
	while ((m = strstr(p, VOPEN)) != NULL) {
		buf_put(&b, p, (size_t)(m - p));
		char *end;
		unsigned long i = strtoul(m + olen, &end, 10);
		if (i >= vals->n || strncmp(end, VCLOSE, clen) != 0) {
			buf_put(&b, m, olen);
			p = m + olen;
			continue;
		}
		const struct directive_text *t = &vals->v[i];
		for (size_t k = 0; k < t->n; k++) {
			const struct directive_piece *pc = &t->p[k];
			if (pc->value && pc->href && !*href) {
				*href = pc->href;
				*title = pc->title;
			}
			for (size_t j = 0; j < pc->len; j++) {
				char ch = pc->text[j];
				if (html && ch == '&')
					buf_puts(&b, "&amp;");
				else if (html && ch == '<')
					buf_puts(&b, "&lt;");
				else if (html && ch == '>')
					buf_puts(&b, "&gt;");
				else if (!html && ch == '\\')
					buf_puts(&b, "\\\\");
				else if (ch)
					buf_putc(&b, ch);
			}
		}
		p = end + clen;
	}
	buf_puts(&b, p);
	return buf_detach(&b);
}

static void set(void *obj, const char *name, const char *value)
{
	char none[] = "";
	agsafeset(obj, (char *)name, (char *)value, none);
}

static const char *get(void *obj, const char *name)
{
	const char *v = agget(obj, (char *)name);
	return v ? v : "";
}

/* Values into labels; the default font and colours where the author
 * set none. */
static void fill_object(Agraph_t *root, void *obj, int kind, void *ctx)
{
	struct fill *f = ctx;
	const char *href = NULL, *title = NULL;
	bool in_label = false;
	for (Agsym_t *sym = agnxtattr(root, kind, NULL); sym; sym = agnxtattr(root, kind, sym)) {
		char *v = agxget(obj, sym);
		if (!v || !strstr(v, VOPEN))
			continue;
		bool html = aghtmlstr(v);
		const char *h = NULL, *t = NULL;
		char *filled = fill_text(v, html, f->vals, &h, &t);
		if (html) {
			char *s = agstrdup_html(root, filled);
			agxset(obj, sym, s);
			agstrfree(root, s);
		} else {
			agxset(obj, sym, filled);
		}
		free(filled);
		if (label_attr(sym->name) && h && !href) {
			href = h;
			title = t;
			in_label = true;
		}
	}
	if (in_label) {
		/* the value's line, as in the prose: an edge's label links,
		 * a node links whole */
		const char *url = kind == AGEDGE ? "labelURL" : "URL";
		if (!*get(obj, url) && !*get(obj, "href") && !*get(obj, "labelhref")) {
			set(obj, url, href);
			if (title && !*get(obj, kind == AGEDGE ? "labeltooltip" : "tooltip"))
				set(obj, kind == AGEDGE ? "labeltooltip" : "tooltip", title);
		}
	}
	if (!*get(obj, "fontname"))
		set(obj, "fontname", FONT);
	/* text on a fill (a filled node or cluster) stays dark: the fill
	 * is the author's, or Graphviz's light grey */
	bool filled = kind != AGEDGE && strstr(get(obj, "style"), "filled");
	/* Graphviz fills with the colour when there is no fillcolor: keep
	 * its light grey, not the ink */
	if (filled && !*get(obj, "fillcolor") && !*get(obj, "color"))
		set(obj, "fillcolor", "lightgrey");
	if (kind == AGRAPH) {
		if (!*get(obj, "fontcolor"))
			set(obj, "fontcolor", filled ? INK_ON_FILL : f->ink);
		if (obj == root && !*get(obj, "bgcolor"))
			set(obj, "bgcolor", "transparent");
		if (!*get(obj, "color") && !*get(obj, "pencolor"))
			set(obj, "pencolor", f->ink);
		return;
	}
	if (!*get(obj, "color"))
		set(obj, "color", f->ink);
	if (!*get(obj, "fontcolor"))
		set(obj, "fontcolor", filled ? INK_ON_FILL : f->ink);
}

/* --- the SVG, for the page --- */

/* Graphviz's SVG as the page inlines it: from <svg on (no prolog,
 * comments or titles, no ids that could clash with the page's), its
 * size in CSS pixels (a point of the layout a pixel: 14-point labels
 * at 14 px), the default colour currentColor, the font with its
 * fallbacks.  The smallest font-size into *text_min. */
static char *page_svg(const char *s, size_t len, int *w, int *h, double *text_min)
{
	struct buf b = BUF_INIT;
	const char *end = s + len;
	const char *p = strstr(s, "<svg");
	*w = *h = 0;
	*text_min = 0;
	while (p && p < end) {
		if (str_has_prefix(p, "<!--")) {
			const char *q = strstr(p, "-->");
			p = q ? q + 3 : end;
			while (p < end && *p == '\n')
				p++;
			continue;
		}
		if (str_has_prefix(p, "<title>")) {
			const char *q = strstr(p, "</title>");
			p = q ? q + 8 : end;
			while (p < end && *p == '\n')
				p++;
			continue;
		}
		if (str_has_prefix(p, " id=\"")) {
			const char *q = strchr(p + 5, '"');
			p = q ? q + 1 : end;
			continue;
		}
		if (str_has_prefix(p, INK)) {
			buf_puts(&b, "currentColor");
			p += INK_LEN;
			continue;
		}
		if (str_has_prefix(p, "font-family=\"" FONT "\"")) {
			buf_puts(&b, "font-family=\"" FONT ", Verdana, sans-serif\"");
			p += strlen("font-family=\"" FONT "\"");
			continue;
		}
		double v;
		int n = 0;
		if ((str_has_prefix(p, " width=\"") || str_has_prefix(p, " height=\"")) && !*h &&
		    sscanf(p + (p[1] == 'w' ? 8 : 9), "%lfpt\"%n", &v, &n) == 1 && n > 0) {
			bool wide = p[1] == 'w';
			int px = (int)(v + 0.5);
			if (wide)
				*w = px;
			else
				*h = px;
			buf_printf(&b, " %s=\"%d\"", wide ? "width" : "height", px);
			p += (wide ? 8 : 9) + n;
			continue;
		}
		if (str_has_prefix(p, "font-size=\"") && sscanf(p + 11, "%lf", &v) == 1 &&
		    (*text_min == 0 || v < *text_min))
			*text_min = v;
		buf_putc(&b, *p++);
	}
	return buf_detach(&b);
}

/* --- the fence --- */

/* The fence's attributes: after "dot " or the Pandoc form's braces. */
static enum attrs_result fence_attrs(const char *info, struct loc at, struct diag *d,
				     struct attrs *a)
{
	const char *brace = info[0] == '{' ? info : strchr(info, '{');
	if (!brace) {
		*a = (struct attrs){0};
		return ATTRS_NONE;
	}
	struct loc bat = at;
	bat.col += (int)(brace - info);
	const char *after;
	enum attrs_result r = attrs_parse(brace, brace + strlen(brace), bat, d, a, &after);
	if (r == ATTRS_NONE) {
		diag_error(d, bat, "a diagram's attributes are {#fig-NAME caption=\"...\"}");
		return ATTRS_BAD;
	}
	return r;
}

bool directive_diagram(struct directive_ctx *c, struct xref *x, const char *info,
		       struct loc info_at, const char *dot, int first_line, const int *shift,
		       size_t nshift, struct directive_result *out)
{
	struct attrs a;
	bool ok = fence_attrs(info, info_at, c->d, &a) != ATTRS_BAD;
	ok = attrs_check(&a, fence_keys, "a diagram", info_at, c->d) && ok;
	const struct attr *id = attrs_get(&a, "id"), *cap = attrs_get(&a, "caption"),
			  *alt = attrs_get(&a, "alt");
	int number = id || cap ? ++c->figures : 0;
	if (id) {
		struct loc iat = info_at;
		iat.col = id->col;
		iat.len = id->len;
		if (!xref_good_name(id->value, "fig-")) {
			diag_error(c->d, iat,
				   "a diagram's label is {#fig-NAME} (letters, digits, '-' and '_'), "
				   "e.g. {#fig-pipeline}");
			ok = false;
		} else {
			ok = xref_add(x, id->value, "Figure", number, NULL, iat, c->d) && ok;
		}
	}
	struct place pl = {info_at.file, first_line, shift, nshift, dot};
	struct loc fence = info_at;
	fence.len = (int)strcspn(info, " \t{");
	if (info[0] == '{')
		fence.len = (int)strcspn(info, "}") + 1;
	/* the caption first: its problems come before the DOT's, in the
	 * order of the lines */
	if (cap) {
		struct value v = {.kind = VALUE_STRING};
		v.text = cap->value;
		v.len = strlen(cap->value);
		v.loc = info_at;
		v.loc.col = cap->col + (int)strlen("caption=") +
			    (cap->len > (int)(strlen("caption=") + v.len) ? 1 : 0);
		v.loc.len = 0;
		size_t before = diag_errors(c->d);
		read_caption(c, &v, out);
		ok = diag_errors(c->d) == before && ok;
	}
	struct vals vals = {0};
	char *src = take_values(c, &pl, &vals, &ok);
	char *svg = NULL;
	unsigned svg_len = 0;
	gv_begin();
	/* parsed and checked even after an error above, so that every
	 * problem is reported at once; laid out only when all is well */
	agreadline(1);
	Agraph_t *g = agmemread(src);
	bool bad = report_messages(&pl, fence, c->d, false);
	if (!g && !bad)
		diag_error(c->d, fence, "this diagram is empty: write a graph, e.g. digraph "
					"{ a -> b }");
	ok = g && !bad && ok;
	if (g)
		ok = check_graph(g, &pl, fence, c->d) && ok;
	if (ok) {
		/* a background of the author's own is light, as DOT's are:
		 * then the default colour is dark in both schemes */
		const char *bg = agget(g, (char *)"bgcolor");
		bool own_bg = bg && *bg && strcmp(bg, "transparent") != 0 && strcmp(bg, "none") != 0;
		struct fill f = {&vals, g, own_bg ? INK_ON_FILL : INK};
		visit_all(g, fill_object, &f);
		ok = gvLayout(gvc, g, "dot") == 0;
		ok = !report_messages(&pl, fence, c->d, !ok) && ok;
		if (ok) {
			char *data = NULL;
			ok = gvRenderData(gvc, g, "svg", &data, &svg_len) == 0 && data;
			ok = !report_messages(&pl, fence, c->d, !ok) && ok;
			if (data) {
				svg = xstrndup(data, svg_len);
				gvFreeRenderData(data);
			}
		}
		gvFreeLayout(gvc, g);
	}
	if (g)
		agclose(g);
	report_messages(&pl, fence, c->d, false);
	gv_end();
	if (ok && svg) {
		out->kind = DIRECTIVE_DIAGRAM;
		out->ok = true;
		out->number = number;
		out->svg = page_svg(svg, svg_len, &out->svg_width, &out->svg_height,
				    &out->svg_text_min);
		out->svg_len = strlen(out->svg);
		if (id)
			out->label = xstrdup(id->value);
		out->alt = xstrdup(alt ? alt->value : cap ? cap->value : "diagram");
	} else {
		directive_result_clear(out);
		ok = false;
	}
	free(svg);
	free(src);
	for (size_t i = 0; i < vals.n; i++)
		directive_text_clear(&vals.v[i]);
	free(vals.v);
	attrs_free(&a);
	return ok;
}

bool diagram_check(const char *dot, size_t len, struct loc at, struct diag *d)
{
	char *text = xstrndup(dot, len);
	struct place pl = {at.file, at.line, NULL, 0, text};
	gv_begin();
	agreadline(1);
	Agraph_t *g = agmemread(text);
	bool ok = !report_messages(&pl, at, d, false) && g;
	if (g) {
		ok = check_graph(g, &pl, at, d) && ok;
		agclose(g);
	}
	report_messages(&pl, at, d, false);
	gv_end();
	free(text);
	return ok;
}
