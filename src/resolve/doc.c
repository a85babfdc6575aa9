/* doc.c: a report body resolved: inline values and cross-references
 * found, the Markdown parsed with cmark-gfm, directives resolved to
 * their results.  render/html.c writes the page from what is resolved
 * here, and render/pdf.c the PDF. */
#include "resolve/doc.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/htmltag.h"
#include "expr/expr.h"
#include "resolve/cite.h"
#include "resolve/claim.h"
#include "resolve/diagram.h"
#include "resolve/format.h"
#include "resolve/math.h"
#include "data/limit.h"
#include "resolve/codeblock.h"
#include "resolve/provenance.h"
#include "memoize.h"
#include "resolve/section.h"
#include "resolve/show.h"
#include "resolve/xref.h"
#include "blocks_int.h"
#include "gfmarena.h"
#include "gfmchars.h"
#include "data/run.h"
#include "base/utf8.h"
#include "base/util.h"
#include "data/yamldoc.h"

static const char *const extensions[] = {
	"table", "strikethrough", "autolink", "tagfilter", "tasklist",
};

/* Raw HTML is the author's own and stays (UNSAFE); the tagfilter
 * extension then neutralises the tags GitHub does not allow.  Invalid
 * UTF-8 becomes U+FFFD, so that every page is valid UTF-8. */
#define MD_OPTIONS (CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES | CMARK_OPT_VALIDATE_UTF8)

/* A placeholder stands where a value or a reference goes: a character
 * no report contains, a number, the same character.  In a link's
 * destination cmark writes it percent-encoded. */
#define MARK DOC_MARK

/* SLOT_MATH: $...$ or $$...$$; SLOT_BLANK: nothing, on each further
 * line of a math span, so that cmark sees the source's lines. */
enum slot_kind { SLOT_VALUE, SLOT_REF, SLOT_MATH, SLOT_BLANK, SLOT_CITE };

struct slot {
	enum slot_kind kind;
	struct loc at;       /* where it was written */
	struct expr *expr;   /* SLOT_VALUE */
	bool has_format;
	struct format format;
	char *label;         /* SLOT_REF: "fig-loss"; SLOT_MATH: the TeX, its
			      * values as placeholders of their slots */
	bool display;        /* SLOT_MATH: $$...$$ */
	struct loc tex_at;   /* SLOT_MATH: the TeX's first byte; col 0
			      * when it holds values (not as written) */
	const char *src;     /* SLOT_VALUE: the text between the braces */
	size_t src_len;
	int number;          /* SLOT_MATH: a labelled equation's number */
	char *eq;            /* SLOT_MATH: its label, "eq-roofline" */
	long entry;          /* SLOT_CITE: the bibliography entry (label: its
			      * key), -1 when unknown; display: bare @key;
			      * number: 1 for -@key */
	bool done;           /* piece holds what the HTML showed */
	struct directive_text piece;
	bool has_num;        /* SLOT_VALUE: showed a number, num (the manifest's) */
	double num;
	size_t claim;        /* SLOT_VALUE: its claim's id in doc->claims, 0 for none */
};

struct doc {
	const char *file;
	int line0;
	const char *text;   /* the Markdown source */
	size_t len;
	bool *code_line;    /* per body line (0-based): inside a code block */
	size_t nlines;
	struct directive_ctx *c;
	struct slot *slots;
	size_t nslots;
	struct xref xref;   /* the labels of figures, tables, equations and sections */
	struct sections sections; /* the headings */
	struct claims claims; /* the front matter's and the values' (claim.h) */
	int charts; /* {chart} blocks so far, for their file names */
	int equations; /* labelled display equations so far */
	/* after doc_resolve() */
	cmark_parser *parser;
	cmark_node *root;
	struct gfm_arena *arena; /* the parses' memory (gfmarena.c) */
	struct directive_result **results; /* one per directive, the nodes' user data */
	size_t nresults;
	struct code_block **blocks; /* one per code block read, its user data */
	size_t nblocks;
	/* image nodes the tree held after its parse, and raw HTML nodes
	 * with an <img>: nothing makes one later, so a page with none has
	 * none to check (doc_has_images()) */
	size_t nimages;
	struct buf md;
};

static const char *const directives[] = {"table", "log", "chart", NULL};

/* --- 1. the pre-pass over the Markdown source --- */

static void add_slot(struct doc *doc, struct slot s, struct buf *md)
{
	doc->slots = xrealloc(doc->slots, (doc->nslots + 1) * sizeof *doc->slots);
	doc->slots[doc->nslots] = s;
	buf_printf(md, "%cLD%zu%c", MARK, doc->nslots, MARK);
	doc->nslots++;
}

static void inline_value(struct doc *doc, const char *open, const char *close, int line,
			 const char *line_start, struct buf *md)
{
	const char *inner = open + 2;
	size_t whole = (size_t)(close - inner);
	size_t n = claim_split(inner, whole); /* "expr :spec" before a "| expect ..." */
	size_t expr_len, spec_off;
	show_split_spec(inner, n, &expr_len, &spec_off);
	struct slot s = {.kind = SLOT_VALUE, .src = inner, .src_len = n};
	s.at.file = doc->file;
	s.at.line = line;
	s.at.col = (int)(open - line_start) + 1;
	s.at.len = (int)(close + 2 - open);
	struct loc expr_at = {doc->file, line, (int)(inner - line_start) + 1, 0};
	s.expr = expr_parse(inner, expr_len, expr_at, doc->c->d);
	if (spec_off < n) {
		const char *spec = inner + spec_off;
		size_t spec_len = n - spec_off;
		while (spec_len && (spec[spec_len - 1] == ' ' || spec[spec_len - 1] == '\t'))
			spec_len--;
		struct loc spec_at = {doc->file, line, (int)(spec - line_start) + 1, (int)spec_len};
		s.has_format = format_parse(spec, spec_len, spec_at, &s.format, doc->c->d);
		if (!s.has_format) {
			expr_free(s.expr);
			s.expr = NULL;
		}
	}
	if (n < whole) {
		struct loc claim_at = {doc->file, line, (int)(inner + n + 1 - line_start) + 1, 0};
		struct claim c;
		if (claim_parse(inner + n + 1, whole - n - 1, claim_at, true, &c, doc->c->d)) {
			if (s.expr)
				s.claim = claims_add(&doc->claims, &c, inner, expr_len);
		} else {
			expr_free(s.expr);
			s.expr = NULL;
		}
	}
	add_slot(doc, s, md);
}


/* A display equation's label after its closing $$, as in
 * "$$ ... $$ {#eq-name}".  Returns the end of it (or p when there is
 * none), and the name in name and name_len.  */
static const char *equation_label(const char *p, const char *end, const char **name,
				  size_t *name_len)
{
	const char *q = p;
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (end - q < 3 || q[0] != '{' || q[1] != '#')
		return p;
	const char *r = q + 2;
	while (r < end && *r != '}' && *r != '\n')
		r++;
	if (r >= end || *r != '}')
		return p;
	*name = q + 2;
	*name_len = (size_t)(r - q - 2);
	return r + 1;
}

/* The label of a display equation (name, written at `at`): its number,
 * or 0 after an error. */
static int take_equation(struct doc *doc, const char *name, size_t len, struct loc at)
{
	char *label = xstrndup(name, len);
	bool ok = xref_good_name(label, "eq-");
	if (!ok)
		diag_error(doc->c->d, at,
			   "an equation's label is {#eq-NAME} (letters, digits, '-' and '_'), "
			   "e.g. {#eq-roofline}");
	else
		ok = xref_add(&doc->xref, label, "Equation", doc->equations + 1, NULL, at, doc->c->d);
	free(label);
	return ok ? ++doc->equations : 0;
}

/* The TeX of a math span, from..to, into a SLOT_MATH slot: its values
 * ({{ expr }}, a space after the braces) become slots of their own, named in the TeX by placeholders;
 * each further line of the span is a SLOT_BLANK, so that the lines stay
 * the source's. */
static const char *math_span(struct doc *doc, const char *from, const char *to, const char *stop,
			     const char *end, bool display, int *line, const char **line_start,
			     struct buf *md)
{
	struct slot s = {.kind = SLOT_MATH, .display = display};
	s.at = (struct loc){doc->file, *line, (int)(from - *line_start) + 1 - (display ? 2 : 1),
			    (int)(to - from) + (display ? 4 : 2)};
	s.tex_at = (struct loc){doc->file, *line, (int)(from - *line_start) + 1, 0};
	struct buf tex = BUF_INIT;
	int lines = 0;
	for (const char *p = from; p < to;) {
		/* a value is "{{ " with a space: TeX has groups in groups,
		 * {{n \choose k}} */
		if (*p == '{' && p + 2 < to && p[1] == '{' && (p[2] == ' ' || p[2] == '\t')) {
			const char *close = NULL;
			for (const char *q = p + 2; q + 1 < to && *q != '\n'; q++)
				if (q[0] == '}' && q[1] == '}') {
					close = q;
					break;
				}
			if (close) {
				inline_value(doc, p, close, *line, *line_start, &tex);
				s.tex_at.col = 0;
				p = close + 2;
				continue;
			}
		}
		if (*p == '\n') {
			lines++;
			(*line)++;
			*line_start = p + 1;
		}
		buf_putc(&tex, *p++);
	}
	s.label = buf_detach(&tex);
	const char *name;
	size_t name_len;
	const char *after = display ? equation_label(stop, end, &name, &name_len) : stop;
	if (after != stop) {
		struct loc at = {doc->file, *line, (int)(name - 2 - *line_start) + 1, (int)name_len + 3};
		s.number = take_equation(doc, name, name_len, at);
		if (s.number)
			s.eq = xstrndup(name, name_len);
	}
	add_slot(doc, s, md);
	for (int i = 0; i < lines; i++) {
		buf_putc(md, '\n');
		add_slot(doc, (struct slot){.kind = SLOT_BLANK}, md);
	}
	return after;
}

/* The end of the math span that the $ at p opens (after its closing
 * $ or $$), or NULL when it opens none.  Dollar math as GitHub and
 * Pandoc read it: $$...$$ is display math; in $...$ no space follows
 * the opening $ and none comes before the closing one, which no digit
 * follows; a $ that cannot close makes no math ("$5 and $6").  A span
 * ends within its paragraph; in it a backslash escapes the next
 * character (\$ is no closer). */
static const char *math_end(const char *p, const char *end, const char **tex_from,
			    const char **tex_to, bool *display)
{
	*display = p + 1 < end && p[1] == '$';
	const char *q = p + (*display ? 2 : 1);
	if (q >= end || (!*display && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '$')))
		return NULL;
	*tex_from = q;
	for (; q < end; q++) {
		if (*q == '\\' && q + 1 < end) {
			q++;
			continue;
		}
		if (*q == '\n') {
			const char *r = q + 1;
			while (r < end && (*r == ' ' || *r == '\t' || *r == '\r'))
				r++;
			if (r >= end || *r == '\n')
				return NULL; /* a blank line: the paragraph ended */
			continue;
		}
		if (*q != '$')
			continue;
		if (*display) {
			if (q + 1 < end && q[1] == '$' && q > *tex_from) {
				*tex_to = q;
				return q + 2;
			}
			continue;
		}
		if (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' ||
		    (q + 1 < end && isdigit((unsigned char)q[1])))
			return NULL; /* a $ that cannot close: no math ("$5 and $6") */
		*tex_to = q;
		return q + 1;
	}
	return NULL;
}

/* Taken around every parse when gfmchars_init() could not make
 * cmark-gfm's table of special characters stable: then its parses with
 * extensions change the table, and no other parse may run meanwhile. */
static pthread_mutex_t gfm_parse_lock = PTHREAD_MUTEX_INITIALIZER;

static bool gfm_parallel(void)
{
	return gfmchars_init(extensions, ARRAY_LEN(extensions));
}

void doc_init(void)
{
	gfm_parallel();
}

bool doc_parallel_parse(void)
{
	return gfm_parallel();
}

struct cmark_node *doc_node_new(int type)
{
	return cmark_node_new_with_mem((cmark_node_type)type, gfm_arena_mem());
}

/* Feeds and finishes a parser made by new_parser(), on any thread at
 * once with others when gfmchars.c made that safe, one at a time
 * otherwise; what it allocates comes from doc's arena. */
static cmark_node *parse(struct doc *doc, cmark_parser *parser, const char *text, size_t len)
{
	bool parallel = gfm_parallel();
	if (!doc->arena)
		doc->arena = gfm_arena_new();
	if (!parallel)
		pthread_mutex_lock(&gfm_parse_lock);
	struct gfm_arena *was = gfm_arena_use(doc->arena);
	cmark_parser_feed(parser, text, len);
	cmark_node *root = cmark_parser_finish(parser);
	gfm_arena_use(was);
	if (!parallel)
		pthread_mutex_unlock(&gfm_parse_lock);
	return root;
}

static cmark_parser *new_parser(int options, bool with_extensions)
{
	gfm_parallel();
	cmark_parser *parser = cmark_parser_new_with_mem(options, gfm_arena_mem());
	if (!with_extensions)
		return parser;
	for (size_t i = 0; i < ARRAY_LEN(extensions); i++) {
		cmark_syntax_extension *ext = cmark_find_syntax_extension(extensions[i]);
		if (ext)
			cmark_parser_attach_syntax_extension(parser, ext);
	}
	return parser;
}

/* Marks the lines of every code block, fenced or indented, at any depth
 * (in a list, in a block quote): cmark knows them exactly, so the
 * pre-pass asks it rather than guessing. */
static void find_code_lines(struct doc *doc)
{
	doc->nlines = 1;
	for (size_t i = 0; i < doc->len; i++)
		doc->nlines += doc->text[i] == '\n';
	doc->code_line = xcalloc(doc->nlines, sizeof *doc->code_line);
	/* No extensions: none of them makes or unmakes a code block, and
	 * the table extension alone costs a sixth of a page's build. */
	cmark_parser *parser = new_parser(CMARK_OPT_SOURCEPOS, false);
	cmark_node *root = parse(doc, parser, doc->text, doc->len);
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(it);
		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_CODE_BLOCK)
			continue;
		int from = cmark_node_get_start_line(node), to = cmark_node_get_end_line(node);
		for (int l = from; l <= to; l++)
			if (l >= 1 && (size_t)l <= doc->nlines)
				doc->code_line[l - 1] = true;
	}
	cmark_iter_free(it);
	cmark_node_free(root);
	cmark_parser_free(parser);
}

static void cite_slot(void *ctx, long entry, const struct cite_item *it, bool bare, struct loc at,
		      struct buf *md)
{
	struct slot s = {.kind = SLOT_CITE, .at = at, .entry = entry, .display = bare};
	s.label = xstrndup(it->key, it->key_len);
	s.number = it->suppress;
	add_slot(ctx, s, md);
}

/* A citation group (resolve/cite.h) at column col0 (0-based) of line:
 * its text in the report's style around a placeholder a citation. */
static void put_cites(struct doc *doc, const struct cite_group *g, int line, ptrdiff_t col0,
		      struct buf *md)
{
	struct loc at = {doc->file, line, (int)col0 + 1, 0};
	cite_write(doc->c->cites, g, at, doc->c->d, md, cite_slot, doc);
}

/* The bytes at which the pre-pass's plain text may stop: what starts a
 * value, math, a reference, a citation, an escape or code, and a line's
 * end. */
static const bool may_start[256] = {
	['\n'] = true, ['\\'] = true, ['`'] = true, ['{'] = true,
	['@'] = true,  ['$'] = true,  ['['] = true,
};

/* Copies text into md with inline values and references replaced by
 * placeholders.  Line structure is kept, so that cmark's line numbers
 * are the source's. */
static void prepass(struct doc *doc, struct buf *md)
{
	const char *text = doc->text, *p = text, *end = text + doc->len;
	const char *line_start = text;
	int line = doc->line0 + 1;
	size_t body_line = 0; /* 0-based line of the body */
	bool at_line_start = true;
	const char *math_stop, *tex_from = NULL, *tex_to = NULL;
	bool display = false;
	size_t ref_len;
	const char *cite_stop;
	struct cite_group g;

	while (p < end) {
		if (at_line_start) {
			at_line_start = false;
			line_start = p;
			if (body_line < doc->nlines && doc->code_line[body_line]) {
				/* a code block's line: copied as it is */
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				const char *eol = nl ? nl + 1 : end;
				buf_put(md, p, (size_t)(eol - p));
				p = eol;
				line++;
				body_line++;
				at_line_start = true;
				continue;
			}
		}
		const char *feol = p == line_start ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		int fence = p == line_start ? tabs_fence(p, (size_t)((feol ? feol : end) - p)) : 0;
		if (fence) {
			/* a "::: tabs" fence: an HTML comment of its own (tabs.c) */
			feol = feol ? feol : end;
			/* (the text may end on the fence: no NUL after it) */
			const char *name = p;
			while (name < feol && (*name == ' ' || *name == ':' || *name == '\t'))
				name++;
			size_t nlen = (size_t)(feol - name);
			while (nlen && (name[nlen - 1] == ' ' || name[nlen - 1] == '\t' ||
					name[nlen - 1] == '\r'))
				nlen--;
			buf_puts(md, fence == 1 ? TABS_OPEN : TABS_CLOSE);
			buf_put(md, name, fence == 1 ? nlen : 0);
			buf_puts(md, "\x1a-->");
			p = feol;
			continue;
		}
		char c = *p;
		if (c == '\n') {
			buf_putc(md, c);
			p++;
			line++;
			body_line++;
			at_line_start = true;
		} else if (c == '\\' && p + 1 < end && ispunct((unsigned char)p[1])) {
			/* a backslash escape, read as CommonMark reads it: \{{ and
			 * \@ stay literal, \` opens no code span, \\ is one
			 * backslash before whatever follows */
			buf_put(md, p, 2);
			p += 2;
		} else if (c == '`') {
			size_t run = 0;
			while (p + run < end && p[run] == '`')
				run++;
			/* a code span: the same run of backticks closes it, within
			 * the paragraph */
			const char *q = p + run, *close = NULL;
			while (q < end) {
				if (*q == '\n' && q + 1 < end && (q[1] == '\n' || q[1] == '\r'))
					break;
				if (*q == '`') {
					size_t r = 0;
					while (q + r < end && q[r] == '`')
						r++;
					if (r == run) {
						close = q;
						break;
					}
					q += r;
					continue;
				}
				q++;
			}
			const char *stop = close ? close + run : p + run;
			for (const char *s = p; s < stop; s++) {
				if (*s == '\n') {
					line++;
					body_line++;
					line_start = s + 1;
				}
			}
			buf_put(md, p, (size_t)(stop - p));
			p = stop;
		} else if (c == '$' && (math_stop = math_end(p, end, &tex_from, &tex_to, &display))) {
			p = math_span(doc, tex_from, tex_to, math_stop, end, display, &line, &line_start,
				      md);
			body_line = (size_t)(line - doc->line0 - 1);
		} else if (c == '$') {
			/* a dollar that opens no math: $$ as one, so that its
			 * second $ opens nothing either */
			size_t n = p + 1 < end && p[1] == '$' ? 2 : 1;
			if (n == 2 && !(p + 2 < end && p[2] == '$'))
				diag_warning(doc->c->d,
					     (struct loc){doc->file, line, (int)(p - line_start) + 1, 2},
					     "$$ opens display math that is not closed in its "
					     "paragraph: close it with $$, or write \\$\\$ for two "
					     "dollars");
			buf_put(md, p, n);
			p += n;
		} else if (c == '{' && p + 1 < end && p[1] == '{') {
			/* the closing }} on this line: looked for up to it, not
			 * past the line's end first (a line of 2,000,000 values
			 * was read to its end once for each) */
			const char *close = NULL;
			for (const char *q = p + 2; q + 1 < end && *q != '\n'; q++)
				if (q[0] == '}' && q[1] == '}') {
					close = q;
					break;
				}
			if (!close) {
				struct loc at = {doc->file, line, (int)(p - line_start) + 1, 2};
				diag_error(doc->c->d, at,
					   "{{ is never closed on its line: end the value with }}, or "
					   "write \\{{ for the braces themselves");
				buf_put(md, p, 2);
				p += 2;
				continue;
			}
			if (++doc->c->values_shown > limit_get(LIMIT_PAGE_VALUES)) {
				/* stopped before a value more is made: the rest
				 * of the page is not read */
				struct loc at = {doc->file, line, (int)(p - line_start) + 1,
						 (int)(close + 2 - p)};
				diag_error(doc->c->d, at,
					   "this page shows more than %lu values: the rest of it is "
					   "not read (%s)",
					   limit_get(LIMIT_PAGE_VALUES), limit_hint(LIMIT_PAGE_VALUES));
				break;
			}
			inline_value(doc, p, close, line, line_start, md);
			p = close + 2;
		} else if (c == '[' && doc->c->cites && (cite_stop = cite_group_at(p, end, &g))) {
			put_cites(doc, &g, line, p - line_start, md);
			p = cite_stop;
		} else if (c == '@' && (p == line_start || !xref_label_char(p[-1])) &&
			   (ref_len = xref_prefix(p + 1, end)) > 0) {
			const char *q = p + 1;
			while (q < end && xref_label_char(*q))
				q++;
			/* a sentence may end right after the label */
			while (q > p + 1 + ref_len && (q[-1] == '-' || q[-1] == '_'))
				q--;
			struct slot s = {.kind = SLOT_REF};
			s.at = (struct loc){doc->file, line, (int)(p - line_start) + 1, (int)(q - p)};
			s.label = xstrndup(p + 1, (size_t)(q - p - 1));
			add_slot(doc, s, md);
			p = q;
		} else if (c == '@' && doc->c->cites &&
			   (cite_stop = cite_bare_at(doc->c->cites, p, line_start, end, &g))) {
			put_cites(doc, &g, line, p - line_start, md);
			p = cite_stop;
		} else {
			/* plain text up to the next character that could start
			 * something: one copy, not one call a byte */
			const char *q = p + 1;
			while (q < end && !may_start[(unsigned char)*q])
				q++;
			buf_put(md, p, (size_t)(q - p));
			p = q;
		}
	}
}

/* --- 2 and 3: cmark, and the directives in its tree --- */

/* Registers body's label, if any, for a caption of `kind`. */
static void take_label(struct doc *doc, const struct value *body, const char *kind,
		       const char *prefix, int number)
{
	const struct value *v = value_get(body, "label");
	if (!v)
		return;
	if (v->kind != VALUE_STRING || !str_has_prefix(v->text, prefix) ||
	    !v->text[strlen(prefix)]) {
		diag_error(doc->c->d, v->loc, "a %s's label is %sNAME, e.g. %ssweep",
			   strcmp(kind, "Table") == 0 ? "table" : "figure", prefix, prefix);
		return;
	}
	if (!xref_good_name(v->text, prefix)) {
		diag_error(doc->c->d, v->loc,
			   "label '%s' may hold only letters, digits, '-' and '_'", v->text);
		return;
	}
	xref_add(&doc->xref, v->text, kind, number, NULL, v->loc, doc->c->d);
}

/* Line n (1-based, of the body) of the source, NUL-free up to its end;
 * NULL past the end.  Not NUL-terminated: ends at '\n' or doc end. */
static const char *source_line(const struct doc *doc, int n)
{
	const char *p = doc->text, *end = doc->text + doc->len;
	for (int i = 1; i < n && p; i++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	return p && p < end ? p : NULL;
}

/* How far into its source line each line of a directive's body starts:
 * in a list item or a block quote, cmark hands the body over without
 * the indentation or the "> ". */
static int *body_shifts(const struct doc *doc, int first, const char *body, size_t *n)
{
	size_t lines = 0;
	for (const char *b = body; *b; b++)
		lines += *b == '\n';
	int *shift = xcalloc(lines + 1, sizeof *shift);
	const char *end = doc->text + doc->len, *b = body;
	/* line by line from the first, not each from the top: a body of
	 * 100,000 lines is read once */
	const char *s = source_line(doc, first);
	for (size_t i = 0; i < lines; i++) {
		const char *bnl = strchr(b, '\n');
		size_t blen = (size_t)(bnl - b);
		if (s) {
			const char *snl = memchr(s, '\n', (size_t)(end - s));
			size_t slen = snl ? (size_t)(snl - s) : (size_t)(end - s);
			if (slen > 0 && s[slen - 1] == '\r')
				slen--;
			if (slen >= blen && memcmp(s + slen - blen, b, blen) == 0)
				shift[i] = (int)(slen - blen);
			s = snl && snl + 1 < end ? snl + 1 : NULL;
		}
		b = bnl + 1;
	}
	*n = lines;
	return shift;
}

/* Resolves one fenced directive; false when node is plain code.  Its
 * structured result (owned by doc) goes to *result_out, which stays
 * NULL for an unknown directive. */
static bool directive(struct doc *doc, cmark_node *node, struct directive_result **result_out)
{
	const char *info = cmark_node_get_fence_info(node);
	if (!info || info[0] != '{' || code_block_attrs(info))
		return false;
	const char *close = strchr(info, '}');
	int line = doc->line0 + cmark_node_get_start_line(node);
	const char *src = source_line(doc, cmark_node_get_start_line(node));
	/* cmark also ends a line at a lone CR: the brace may not be on
	 * this line, and the text need not end in a NUL */
	const char *brace = NULL;
	if (src) {
		const char *nl = memchr(src, '\n', (size_t)(doc->text + doc->len - src));
		brace = memchr(src, '{', (size_t)((nl ? nl : doc->text + doc->len) - src));
	}
	struct loc at = {doc->file, line, brace ? (int)(brace - src) + 1 : 1, 0};
	char *name = xstrndup(info + 1, close ? (size_t)(close - info - 1) : strlen(info + 1));
	bool known = false;
	for (size_t i = 0; directives[i]; i++)
		known = known || strcmp(name, directives[i]) == 0;
	if (!known || !close) {
		const char *near = closest_name(name, directives);
		at.len = (int)strlen(name) + 2;
		if (near)
			diag_error(doc->c->d, at, "unknown directive '{%s}' (did you mean '{%s}'?)",
				   name, near);
		else
			diag_error(doc->c->d, at,
				   "unknown directive '{%s}': logdown has {table}, {log} and {chart}",
				   name);
		free(name);
		return true;
	}
	const char *body_text = cmark_node_get_literal(node);
	size_t nshift = 0;
	int *shift = body_shifts(doc, cmark_node_get_start_line(node) + 1, body_text, &nshift);
	struct value *body = yamldoc_parse_at(body_text, strlen(body_text), doc->file, line,
					      shift, nshift, doc->c->d);
	free(shift);
	struct directive_result *result = xcalloc(1, sizeof *result);
	if (body && body->kind != VALUE_MAP) {
		struct loc bat = {doc->file, line + 1, 1, 0};
		diag_error(doc->c->d, bat, "the body of {%s} is a YAML map of settings (key: value)",
			   name);
	} else if (body && strcmp(name, "chart") == 0) {
		bool numbered = value_get(body, "caption") || value_get(body, "label");
		int number = numbered ? ++doc->c->figures : 0;
		take_label(doc, body, "Figure", "fig-", number);
		/* the file is named by the label when it is a good one, else by
		 * its place among the report's charts */
		doc->charts++;
		const struct value *lv = value_get(body, "label");
		bool good = lv && lv->kind == VALUE_STRING && xref_good_name(lv->text, "fig-");
		char *file = good ? xstrdup(lv->text) : xasprintf("figure-%d", doc->charts);
		directive_chart(doc->c, body, number, file, result);
		free(file);
	} else if (body && strcmp(name, "table") == 0) {
		bool numbered = value_get(body, "caption") || value_get(body, "label");
		int number = numbered ? ++doc->c->tables : 0;
		take_label(doc, body, "Table", "tbl-", number);
		directive_table(doc->c, body, number, result);
	} else if (body) {
		directive_log(doc->c, body, result);
	}
	doc->results = xrealloc(doc->results, (doc->nresults + 1) * sizeof *doc->results);
	doc->results[doc->nresults++] = result;
	*result_out = result;
	result->at = at;
	const struct value *cap = body ? value_get(body, "caption") : NULL;
	if (cap)
		result->caption_at = cap->loc;
	value_free(body);
	free(name);
	return true;
}

/* A ```dot fence (resolve/diagram.h): false when node is none. */
static bool diagram(struct doc *doc, cmark_node *node, struct directive_result **result_out)
{
	const char *info = cmark_node_get_fence_info(node);
	if (!diagram_info(info))
		return false;
	int start = cmark_node_get_start_line(node);
	const char *src = source_line(doc, start);
	int col = 1;
	if (src) {
		/* the info string's first byte, after the fence */
		const char *q = src, *end = doc->text + doc->len;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '>'))
			q++;
		while (q < end && (*q == '`' || *q == '~'))
			q++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		col = (int)(q - src) + 1;
	}
	struct loc at = {doc->file, doc->line0 + start, col, 0};
	const char *body = cmark_node_get_literal(node);
	size_t nshift = 0;
	int *shift = body_shifts(doc, start + 1, body ? body : "", &nshift);
	struct directive_result *result = xcalloc(1, sizeof *result);
	directive_diagram(doc->c, &doc->xref, info, at, body ? body : "", doc->line0 + start + 1,
			  shift, nshift, result);
	free(shift);
	doc->results = xrealloc(doc->results, (doc->nresults + 1) * sizeof *doc->results);
	doc->results[doc->nresults++] = result;
	*result_out = result;
	return true;
}

/* Refuses Markdown nested deeper than limit markdown_depth (lists and
 * block quotes), so that whatever walks the tree recursively later keeps
 * to a bounded stack; makes links and images to javascript:, vbscript:,
 * file: and data: URLs inert (no href), with a warning, as cmark's safe
 * mode would: raw HTML stays the author's. */
static void check_tree(struct doc *doc, cmark_node *root)
{
	unsigned long max = limit_get(LIMIT_MARKDOWN_DEPTH);
	bool deep = false;
	/* The open ancestors of the node entered: leaves are entered but
	 * never exited, so depth is found from the parent, not counted. */
	cmark_node **open = NULL;
	size_t depth = 0, cap = 0;
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		if (ev != CMARK_EVENT_ENTER)
			continue;
		cmark_node *node = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(node);
		struct loc at = {doc->file, doc->line0 + cmark_node_get_start_line(node),
				 cmark_node_get_start_column(node), 1};
		while (depth && open[depth - 1] != cmark_node_parent(node))
			depth--;
		if (depth == cap) {
			cap = cap ? 2 * cap : 64;
			open = xrealloc(open, cap * sizeof *open);
		}
		open[depth++] = node;
		if (depth > max + 1 && !deep) {
			diag_error(doc->c->d, at, "Markdown nested deeper than %lu levels (%s)", max,
				   limit_hint(LIMIT_MARKDOWN_DEPTH));
			deep = true;
		}
		if (type != CMARK_NODE_LINK && type != CMARK_NODE_IMAGE)
			continue;
		const char *url = cmark_node_get_url(node);
		if (url && url_is_dangerous(url, strlen(url))) {
			diag_warning(doc->c->d, at, "%s to a '%.*s' URL made inert: it would run script",
				     type == CMARK_NODE_LINK ? "link" : "image",
				     (int)(strcspn(url, ":") + 1), url);
			cmark_node_set_url(node, "");
		}
	}
	cmark_iter_free(it);
	free(open);
}

/* A ```math block: display math, in a paragraph of its own (so that
 * the PDF, which draws paragraphs, draws it too).  Its TeX is taken as
 * written: no values in it. */
static bool math_block(struct doc *doc, cmark_node *node)
{
	const char *info = cmark_node_get_fence_info(node);
	if (!info || strcmp(info, "math") != 0)
		return false;
	const char *tex = cmark_node_get_literal(node);
	int line = doc->line0 + cmark_node_get_start_line(node);
	struct slot s = {.kind = SLOT_MATH, .display = true};
	s.at = (struct loc){doc->file, line, cmark_node_get_start_column(node), 0};
	s.tex_at = (struct loc){doc->file, line + 1, 1, 0};
	size_t n = tex ? strlen(tex) : 0;
	while (n && (tex[n - 1] == '\n' || tex[n - 1] == '\r'))
		n--;
	s.label = xstrndup(tex ? tex : "", n);
	struct buf mark = BUF_INIT;
	add_slot(doc, s, &mark);
	cmark_node *para = doc_node_new(CMARK_NODE_PARAGRAPH);
	cmark_node *text = doc_node_new(CMARK_NODE_TEXT);
	cmark_node_set_literal(text, buf_data(&mark));
	cmark_node_append_child(para, text);
	cmark_node_insert_before(node, para);
	cmark_node_free(node);
	buf_free(&mark);
	return true;
}

/* A fenced code block read (resolve/codeblock.h): its language
 * coloured, its line numbers and highlighted lines, as the node's user
 * data for the page and the PDF; problems are reported at the info
 * string's columns. */
static void highlight_block(struct doc *doc, cmark_node *node)
{
	const char *info = cmark_node_get_fence_info(node);
	if (!info || !*info)
		return;
	int line = doc->line0 + cmark_node_get_start_line(node);
	const char *src = source_line(doc, cmark_node_get_start_line(node));
	int col = 1;
	if (src) {
		const char *q = src, *end = doc->text + doc->len;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		while (q < end && (*q == '`' || *q == '~'))
			q++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		col = (int)(q - src) + 1;
	}
	struct loc at = {doc->file, line, col, 0};
	struct code_block *b = code_block_read(info, cmark_node_get_literal(node), at, doc->c->d);
	if (!b)
		return;
	doc->blocks = xrealloc(doc->blocks, (doc->nblocks + 1) * sizeof *doc->blocks);
	doc->blocks[doc->nblocks++] = b;
	cmark_node_set_user_data(node, b);
}

struct gfm_arena *doc_memory_begin(struct doc *doc)
{
	if (!doc->arena)
		doc->arena = gfm_arena_new();
	return gfm_arena_use(doc->arena);
}

void doc_memory_end(struct gfm_arena *was)
{
	gfm_arena_use(was);
}

cmark_node *doc_next_block(cmark_node *root, cmark_node *node)
{
	/* a node's children are all blocks or all inlines */
	cmark_node *c = cmark_node_first_child(node);
	if (c && (cmark_node_get_type(c) & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK)
		return c;
	for (; node && node != root; node = cmark_node_parent(node)) {
		cmark_node *next = cmark_node_next(node);
		if (next)
			return next;
	}
	return NULL;
}

static void highlight_blocks(struct doc *doc, cmark_node *root)
{
	for (cmark_node *node = root; node; node = doc_next_block(root, node))
		if (cmark_node_get_type(node) == CMARK_NODE_CODE_BLOCK)
			highlight_block(doc, node);
}

const struct code_block *doc_code_block(struct cmark_node *node)
{
	return cmark_node_get_type(node) == CMARK_NODE_CODE_BLOCK ? cmark_node_get_user_data(node)
								   : NULL;
}

static void replace_directives(struct doc *doc, cmark_node *root)
{
	struct block_src src = {doc->file, doc->line0, doc->text, doc->len, doc->c, &doc->xref};
	/* collected first: the tree cannot change under the iterator */
	cmark_node **blocks = NULL;
	size_t n = 0, cap = 0;
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(node);
		if (ev == CMARK_EVENT_ENTER &&
		    (type == CMARK_NODE_HTML_BLOCK || type == CMARK_NODE_HTML_INLINE)) {
			/* the author's own <img> is checked as an image is */
			const char *h = cmark_node_get_literal(node);
			if (h && html_next_tag(h, h + strlen(h), "img"))
				doc->nimages++;
			continue;
		}
		/* images too: figures are numbered with the charts, in order */
		if (ev == CMARK_EVENT_ENTER &&
		    (type == CMARK_NODE_CODE_BLOCK || type == CMARK_NODE_IMAGE)) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				blocks = xrealloc(blocks, cap * sizeof *blocks);
			}
			blocks[n++] = node;
		}
	}
	cmark_iter_free(it);
	for (size_t i = 0; i < n; i++) {
		struct directive_result *result = NULL;
		if (cmark_node_get_type(blocks[i]) == CMARK_NODE_IMAGE) {
			doc->nimages++;
			figure_image(&src, blocks[i]);
			continue;
		}
		if (math_block(doc, blocks[i]))
			continue;
		if (!diagram(doc, blocks[i], &result) && !directive(doc, blocks[i], &result))
			continue;
		/* An HTML block, empty until render/html.c writes the
		 * result's HTML into it; the PDF draws the result. */
		cmark_node *h = doc_node_new(CMARK_NODE_HTML_BLOCK);
		cmark_node_set_literal(h, "");
		if (result)
			cmark_node_set_user_data(h, result);
		cmark_node_insert_before(blocks[i], h);
		cmark_node_free(blocks[i]);
	}
	free(blocks);
}

/* --- 4. placeholders into values, as the page asks for them --- */

/* The value of slot s: evaluated now (reporting its problems), and
 * kept in s->piece the first time. */
static void show_value(struct doc *doc, struct slot *s)
{
	struct eval v = {0};
	if (!s->expr || !memoize_eval_one(doc->c, s->expr, s->src, s->src_len, &v)) {
		if (!s->done)
			show_missing(doc->c, &s->piece, "not computed: see the build's errors");
		s->done = true;
		return;
	}
	if (!s->done) {
		show_piece(doc->c, &s->piece, &v, s->has_format ? &s->format : NULL);
		s->has_num = v.kind == EVAL_NUMBER;
		s->num = v.num;
		if (s->claim)
			claims_check(&doc->claims, s->claim, doc->c, &v, s->piece.p[0].text, "text");
	}
	s->done = true;
	eval_clear(&v);
}

/* The reference of slot s: "Table 2" linking to "#tbl-x", or the text
 * "@tbl-x" after reporting that no directive defines it. */
static void show_ref(struct doc *doc, struct slot *s)
{
	const struct xref_label *l = xref_find(&doc->xref, s->label);
	if (!l) {
		xref_unknown(&doc->xref, s->label, s->at, doc->c->d);
		if (!s->done) {
			char *text = xasprintf("@%s", s->label);
			directive_text_add(&s->piece, text, strlen(text), NULL, false, false);
			free(text);
		}
		s->done = true;
		return;
	}
	if (!s->done) {
		char *href = xasprintf("#%s", l->name);
		const struct section *sec = sections_get(&doc->sections, l->name);
		if (sec && !*sec->number) {
			/* an unnumbered section: "the section *Results*", its
			 * name linked, with the values in it as shown */
			struct buf name = BUF_INIT;
			const char *t = sec->text;
			size_t at, len, index;
			while (doc_next_value(t, strlen(t), &at, &len, &index)) {
				buf_put(&name, t, at);
				/* not a reference in it: it may be to this section */
				const struct directive_piece *v =
					index < doc->nslots && doc->slots[index].kind != SLOT_REF
						? doc_show(doc, index)
						: NULL;
				if (v)
					buf_puts(&name, v->math ? v->title : v->text);
				t += at + len;
			}
			buf_puts(&name, t);
			directive_text_add(&s->piece, "the section ", 12, NULL, false, false);
			directive_text_add(&s->piece, buf_data(&name), name.len, href, false, false);
			s->piece.p[1].emph = true;
			buf_free(&name);
		} else {
			directive_text_add(&s->piece, l->text, strlen(l->text), href, false, false);
		}
		free(href);
	}
	s->done = true;
}

struct loc doc_place(const struct doc *doc, size_t index)
{
	return doc->slots[index].at;
}

struct diag *doc_diag(const struct doc *doc)
{
	return doc->c->d;
}

/* Appends text to out with &, < and > escaped. */
static void put_escaped(struct buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '&')
			buf_puts(out, "&amp;");
		else if (s[i] == '<')
			buf_puts(out, "&lt;");
		else if (s[i] == '>')
			buf_puts(out, "&gt;");
		else
			buf_putc(out, s[i]);
	}
}

/* The math of slot s as MathML.  Each value in the TeX goes to KaTeX as
 * \href{ldv:N}{\text{0}}, which comes back as <mtext href="ldv:N">0</mtext>;
 * that becomes <mn> holding the value's placeholder, which the page
 * fills like any value (linked to its line).  The TeX annotation shows
 * the values as their text. */
static void show_math(struct doc *doc, struct slot *s)
{
	if (s->done)
		return;
	s->done = true;
	struct buf tex = BUF_INIT, shown = BUF_INIT;
	const char *t = s->label, *end = t + strlen(t);
	size_t at, mlen, index;
	/* the value slots this span put in: a placeholder in KaTeX's output
	 * is taken for one of them only, never for what the TeX itself
	 * wrote (\href{ldv:N}, a \char of the mark: a slot of another
	 * kind, or this span's own) */
	size_t *mine = NULL, nmine = 0;
	while (doc_next_value(t, (size_t)(end - t), &at, &mlen, &index)) {
		buf_put(&tex, t, at);
		put_escaped(&shown, t, at);
		mine = xrealloc(mine, (nmine + 1) * sizeof *mine);
		mine[nmine++] = index;
		buf_printf(&tex, "\\href{ldv:%zu}{\\text{0}}", index);
		const struct directive_piece *v = doc_show(doc, index);
		if (v)
			put_escaped(&shown, v->text, strlen(v->text));
		t += at + mlen;
	}
	buf_put(&tex, t, (size_t)(end - t));
	put_escaped(&shown, t, (size_t)(end - t));
	char *mathml = math_mathml(buf_data(&tex), tex.len, s->display, s->at, s->tex_at,
				   doc->c->d);
	static const char annotation[] = "<annotation encoding=\"application/x-tex\">";
	struct buf html = BUF_INIT;
	if (!mathml) {
		buf_puts(&html, "<code class=\"ld-math-error\">");
		put_escaped(&html, s->label, strlen(s->label));
		buf_puts(&html, "</code>");
	} else {
		for (const char *p = mathml; *p;) {
			int n = 0;
			bool ours = false;
			if (*p == '<' && strncmp(p, "<mtext href=\"ldv:", 17) == 0 &&
			    sscanf(p, "<mtext href=\"ldv:%zu\">0</mtext>%n", &index, &n) == 1 && n > 0)
				for (size_t k = 0; k < nmine && !ours; k++)
					ours = mine[k] == index;
			if (ours) {
				buf_printf(&html, "<mn>%cLD%zu%c</mn>", MARK, index, MARK);
				p += n;
			} else if (*p == MARK) {
				buf_puts(&html, "\xEF\xBF\xBD"); /* U+FFFD: never a placeholder */
				p++;
			} else if (*p == '<' && str_has_prefix(p, annotation)) {
				const char *close = strstr(p, "</annotation>");
				buf_puts(&html, annotation);
				buf_put(&html, buf_data(&shown), shown.len);
				p = close ? close : p + strlen(annotation);
			} else {
				buf_putc(&html, *p++);
			}
		}
	}
	if (s->number) {
		/* a labelled equation: its number at the right, its id the
		 * target of @eq- references */
		struct buf numbered = BUF_INIT;
		buf_printf(&numbered, "<span class=\"ld-equation\" id=\"%s\">", s->eq);
		buf_put(&numbered, buf_data(&html), html.len);
		buf_printf(&numbered, "<span class=\"ld-eqno\">(%d)</span></span>", s->number);
		buf_free(&html);
		html = numbered;
	}
	directive_text_add(&s->piece, buf_data(&html), html.len, NULL, false, false);
	s->piece.p[0].math = true;
	s->piece.p[0].title = s->number ? xasprintf("%s    (%d)", s->label, s->number)
				       : xstrdup(s->label);
	free(mathml);
	free(mine);
	buf_free(&html);
	buf_free(&tex);
	buf_free(&shown);
}

const struct directive_piece *doc_show(struct doc *doc, size_t index)
{
	if (index >= doc->nslots)
		return NULL;
	struct slot *s = &doc->slots[index];
	if (s->kind == SLOT_VALUE)
		show_value(doc, s);
	else if (s->kind == SLOT_MATH)
		show_math(doc, s);
	else if (s->kind == SLOT_BLANK) {
		if (!s->done)
			directive_text_add(&s->piece, "", 0, NULL, true, false);
		s->piece.p[0].value = false;
		s->done = true;
	} else if (s->kind == SLOT_CITE) {
		if (!s->done)
			cite_piece(doc->c->cites, s->entry, s->label, s->display, s->number,
				   &s->piece);
		s->done = true;
	} else
		show_ref(doc, s);
	return &s->piece.p[0];
}

/* Placeholders for the @tbl- and @fig- references inside the captions
 * of a directive's HTML, so that they become "Table 2" links like the
 * prose's (reported at the caption's place when unknown).  Caller frees. */
char *doc_caption_refs(struct doc *doc, const char *html, struct loc at)
{
	struct buf out = BUF_INIT;
	const char *p = html;
	bool in_caption = false;
	while (*p) {
		if (*p == '<') {
			if (str_has_prefix(p, "<caption>") || str_has_prefix(p, "<figcaption>"))
				in_caption = true;
			else if (str_has_prefix(p, "</caption>") || str_has_prefix(p, "</figcaption>"))
				in_caption = false;
		}
		size_t pre;
		if (in_caption && *p == '@' && (p == html || !xref_label_char(p[-1])) &&
		    (pre = xref_prefix(p + 1, p + 1 + strlen(p + 1))) > 0) {
			const char *q = p + 1;
			while (xref_label_char(*q))
				q++;
			while (q > p + 1 + pre + 1 && (q[-1] == '-' || q[-1] == '_'))
				q--;
			struct slot s = {.kind = SLOT_REF, .at = at};
			s.label = xstrndup(p + 1, (size_t)(q - p - 1));
			add_slot(doc, s, &out);
			p = q;
			continue;
		}
		buf_putc(&out, *p++);
	}
	return buf_detach(&out);
}

/* Does a placeholder start at p?  Sets *index and *len.  Inside a tag
 * it may come percent-encoded (a link's destination); in text, "%1A" is
 * the author's or the log's own. */
bool doc_placeholder_at(const char *p, const char *end, bool in_tag, size_t *index,
			size_t *len)
{
	const char *q;
	size_t mark;
	if (*p == MARK)
		mark = 1;
	else if (in_tag && end - p >= 3 && memcmp(p, "%1A", 3) == 0)
		mark = 3;
	else
		return false;
	q = p + mark;
	if (end - q < 3 || q[0] != 'L' || q[1] != 'D' || !isdigit((unsigned char)q[2]))
		return false;
	q += 2;
	size_t n = 0;
	while (q < end && isdigit((unsigned char)*q))
		n = n * 10 + (size_t)(*q++ - '0');
	if ((size_t)(end - q) < mark || memcmp(q, p, mark) != 0)
		return false;
	*index = n;
	*len = (size_t)(q + mark - p);
	return true;
}

/* Does text hold anything the pre-pass may replace: "{{", "$", ":::",
 * a cross-reference "@fig-", "@tbl-", "@eq-", "@sec-", or any '@' when
 * the report cites?  One pass over the text, not one a needle. */
static bool may_replace(const char *text, size_t len, bool cites)
{
	/* the bytes the switch looks at: the rest skipped sixteen at a
	 * time, not a switch each (a tenth of a page's own work) */
	for (const char *p = text, *end = text + len; p < end; p++) {
		p = mem_first_of(p, end, "${:@");
		if (p == end)
			break;
		switch (*p) {
		case '$':
			return true;
		case '{':
			if (p + 1 < end && p[1] == '{')
				return true;
			break;
		case ':':
			if (end - p >= 3 && p[1] == ':' && p[2] == ':')
				return true;
			break;
		case '@': {
			if (cites)
				return true;
			size_t left = (size_t)(end - p);
			if ((left >= 5 && (memcmp(p, "@fig-", 5) == 0 || memcmp(p, "@tbl-", 5) == 0 ||
					   memcmp(p, "@sec-", 5) == 0)) ||
			    (left >= 4 && memcmp(p, "@eq-", 4) == 0))
				return true;
			break;
		}
		default:
			break;
		}
	}
	return false;
}

struct doc *doc_resolve(const char *text, size_t len, const char *file, int line0,
			struct directive_ctx *c)
{
	struct doc *doc = xcalloc(1, sizeof *doc);
	*doc = (struct doc){.file = file, .line0 = line0, .text = text, .len = len, .c = c};
	/* Where the pre-pass has nothing to replace, it need not know the
	 * code lines (a parse of its own): most pages of a big site. */
	bool replace = may_replace(text, len, c->cites != NULL);
	if (replace)
		find_code_lines(doc);
	claims_front(&doc->claims, c);
	/* nor need it read the text a byte at a time: it would copy it */
	if (replace)
		prepass(doc, &doc->md);
	else
		buf_put(&doc->md, text, len);
	/* cmark-gfm's check of each line's UTF-8 copies the line a byte at
	 * a time (2.5% of a site's build); a text that is UTF-8 throughout,
	 * without NUL, comes out of it as it went in, so it is asked for only
	 * where a byte would be replaced (the same rules: utf8_decode()) */
	int options = MD_OPTIONS | CMARK_OPT_SOURCEPOS;
	if (utf8_valid(buf_data(&doc->md), doc->md.len))
		options &= ~CMARK_OPT_VALIDATE_UTF8;
	doc->parser = new_parser(options, true);
	doc->root = parse(doc, doc->parser, buf_data(&doc->md), doc->md.len);
	check_tree(doc, doc->root);
	struct block_src src = {doc->file, doc->line0, doc->text, doc->len, c, &doc->xref};
	callouts_find(&src, doc->root);
	tabs_find(&src, doc->root);
	replace_directives(doc, doc->root);
	highlight_blocks(doc, doc->root);
	struct section_src ssrc = {file, line0, text, len, c->d, &doc->xref, c->number_sections};
	sections_find(&doc->sections, doc->root, &ssrc);
	return doc;
}

int doc_options(void)
{
	return MD_OPTIONS;
}

struct _cmark_llist *doc_extensions(const struct doc *doc)
{
	return cmark_parser_get_syntax_extensions(doc->parser);
}

void doc_free(struct doc *doc)
{
	if (!doc)
		return;
	if (doc->root)
		cmark_node_free(doc->root);
	if (doc->parser)
		cmark_parser_free(doc->parser);
	gfm_arena_free(doc->arena); /* after the tree and the parser */
	buf_free(&doc->md);
	for (size_t i = 0; i < doc->nresults; i++) {
		directive_result_clear(doc->results[i]);
		free(doc->results[i]);
	}
	free(doc->results);
	for (size_t i = 0; i < doc->nblocks; i++)
		code_block_free(doc->blocks[i]);
	free(doc->blocks);
	for (size_t i = 0; i < doc->nslots; i++) {
		expr_free(doc->slots[i].expr);
		free(doc->slots[i].label);
		free(doc->slots[i].eq);
		directive_text_clear(&doc->slots[i].piece);
	}
	free(doc->slots);
	xref_free(&doc->xref);
	sections_free(&doc->sections);
	claims_free(&doc->claims);
	free(doc->code_line);
	free(doc);
}

struct cites *doc_cites(const struct doc *doc)
{
	return doc->c->cites;
}

struct cmark_node *doc_root(const struct doc *doc)
{
	return doc->root;
}

bool doc_has_images(const struct doc *doc)
{
	return doc->nimages > 0;
}

const char *doc_file(const struct doc *doc)
{
	return doc->file;
}

int doc_line0(const struct doc *doc)
{
	return doc->line0;
}

struct loc doc_html_loc(const struct doc *doc, cmark_node *n, const char *at)
{
	const char *html = cmark_node_get_literal(n), *line_at = html;
	int line = cmark_node_get_start_line(n), col = cmark_node_get_start_column(n);
	for (const char *nl; html && (nl = memchr(line_at, '\n', (size_t)(at - line_at))) != NULL;) {
		line++;
		col = 1;
		line_at = nl + 1;
	}
	struct loc where = loc_line(doc->file, doc->line0 + line);
	where.col = col + (int)(at - line_at);
	return where;
}

const char *doc_raw_image(const char *p, const char *end, char **src)
{
	for (const char *tag = html_next_tag(p, end, "img"); tag;
	     tag = html_next_tag(html_tag_end(tag, end), end, "img")) {
		char *v = html_attr(tag, end, "src", NULL);
		size_t at, len, index;
		if (v && *v && !doc_next_value(v, strlen(v), &at, &len, &index)) {
			*src = v;
			return tag;
		}
		free(v);
	}
	*src = NULL;
	return NULL;
}

const struct directive_result *doc_directive(struct cmark_node *node)
{
	return cmark_node_get_type(node) == CMARK_NODE_HTML_BLOCK ? cmark_node_get_user_data(node)
								  : NULL;
}

bool doc_next_value(const char *s, size_t len, size_t *at, size_t *mark_len, size_t *index)
{
	const char *p = s, *end = s + len;
	while ((p = memchr(p, MARK, (size_t)(end - p))) != NULL) {
		if (doc_placeholder_at(p, end, false, index, mark_len)) {
			*at = (size_t)(p - s);
			return true;
		}
		p++;
	}
	return false;
}

const struct sections *doc_sections(const struct doc *doc)
{
	return &doc->sections;
}

const struct directive_text *doc_value(const struct doc *doc, size_t index)
{
	if (index >= doc->nslots || !doc->slots[index].done)
		return NULL;
	return &doc->slots[index].piece;
}

const char *doc_value_source(const struct doc *doc, size_t index, size_t *len)
{
	if (index >= doc->nslots || doc->slots[index].kind != SLOT_VALUE)
		return NULL;
	*len = doc->slots[index].src_len;
	return doc->slots[index].src;
}

size_t doc_value_count(const struct doc *doc)
{
	return doc->nslots;
}

bool doc_value_number(const struct doc *doc, size_t index, struct loc *at, bool *has_num,
		      double *num)
{
	if (index >= doc->nslots || doc->slots[index].kind != SLOT_VALUE)
		return false;
	*at = doc->slots[index].at;
	*has_num = doc->slots[index].has_num;
	*num = doc->slots[index].num;
	return true;
}

const struct claim_record *doc_claim(const struct doc *doc, size_t i)
{
	return i < doc->claims.n ? &doc->claims.p[i] : NULL;
}

size_t doc_directive_count(const struct doc *doc)
{
	return doc->nresults;
}

const struct directive_result *doc_directive_at(const struct doc *doc, size_t i)
{
	return i < doc->nresults ? doc->results[i] : NULL;
}

bool doc_label(const struct doc *doc, const char *name, const char **kind, int *number)
{
	const struct xref_label *l = xref_find(&doc->xref, name);
	if (l) {
		*kind = l->kind;
		*number = l->number;
	}
	return l != NULL;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

char *doc_url_file(const char *url)
{
	size_t n = strcspn(url, "?#");
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (url[i] == '%' && i + 2 < n && (hi = hexval(url[i + 1])) >= 0 &&
		    (lo = hexval(url[i + 2])) >= 0 && (hi || lo)) {
			buf_putc(&b, (char)(hi * 16 + lo));
			i += 2;
		} else {
			buf_putc(&b, url[i]);
		}
	}
	return buf_detach(&b);
}
