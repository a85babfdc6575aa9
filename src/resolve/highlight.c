/* highlight.c: GtkSourceView language files read with expat and run on
 * PCRE2 (include/resolve/highlight.h says what and why).
 *
 * Reading: a .lang file becomes a struct lang: its styles (id, map-to),
 * its define-regex texts and its contexts, each with its match or
 * start/end texts, its keywords, its sub-patterns and its includes (an
 * inline context or a reference "id", "lang:id", "lang:id:*").
 *
 * Linking, once per language: regexes are expanded (\%{id} references,
 * \%[ and \%] word boundaries, extended and case options as inline
 * groups) and compiled; each context's includes are flattened into the
 * list of candidates tried inside it (a context with neither match nor
 * start, or a reference ending in :*, stands for its children); each
 * style is walked along map-to to the def.lang style that gives its
 * class.  Languages referenced are loaded on the way.
 *
 * Running: per line, at each place, the candidates of the innermost
 * open context and its end (and the ends of the parents it does not
 * extend) are each matched from there; the leftmost wins, the end first
 * on a tie.  An end that quotes the start (\%{name@start}) is compiled
 * when its context opens. */
#include "resolve/highlight.h"

#include <ctype.h>
#include <expat.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/embedded.h"
#include "base/util.h"
#include "data/limit.h"
#include "data/re.h"

#define GSV_DIR "/usr/share/gtksourceview-5/language-specs/"
#define MAX_DEPTH 64   /* open contexts; deeper ones are not opened */
#define MAX_EXPAND 16  /* \%{...} nesting */
#define MAX_EMPTY 4    /* empty matches at one place before moving on */

static const char *const class_names[HL_NCLASSES] = {
	"",		"keyword", "type",     "string",      "special",  "comment",
	"number",	"constant", "builtin", "function",    "variable", "preprocessor",
	"operator",	"error",   "warning",  "inserted",    "deleted",  "heading",
};

const char *hl_class_name(enum hl_class c)
{
	return (unsigned)c < HL_NCLASSES ? class_names[c] : "";
}

/* def.lang's styles that give a class; the others are walked on. */
static const struct {
	const char *style;
	enum hl_class cls;
} def_classes[] = {
	{"comment", HL_COMMENT},	{"shebang", HL_COMMENT},	{"doc-comment", HL_COMMENT},
	{"string", HL_STRING},		{"character", HL_STRING},	{"special-char", HL_SPECIAL},
	{"floating-point", HL_NUMBER},	{"decimal", HL_NUMBER},		{"base-n-integer", HL_NUMBER},
	{"complex", HL_NUMBER},		{"number", HL_NUMBER},		{"boolean", HL_CONSTANT},
	{"special-constant", HL_CONSTANT}, {"constant", HL_CONSTANT},	{"function", HL_FUNCTION},
	{"builtin", HL_BUILTIN},	{"identifier", HL_VARIABLE},	{"keyword", HL_KEYWORD},
	{"operator", HL_OPERATOR},	{"statement", HL_KEYWORD},	{"type", HL_TYPE},
	{"preprocessor", HL_PREPROCESSOR}, {"error", HL_ERROR},	{"reserved", HL_ERROR},
	{"warning", HL_WARNING},	{"insertion", HL_INSERTED},	{"deletion", HL_DELETED},
	{"heading", HL_HEADING},	{"heading0", HL_HEADING},	{"heading1", HL_HEADING},
	{"heading2", HL_HEADING},	{"heading3", HL_HEADING},	{"note", HL_WARNING},
};

/* Styles that GtkSourceView leaves to its colour schemes (no map-to),
 * given the class the schemes' comments name; and sh's punctuation
 * (`/`, `;`, `&&`, `>>`), which sh.lang maps to keyword: on a page full
 * of paths it made every slash red. */
static const struct {
	const char *lang, *style;
	enum hl_class cls;
} scheme_classes[] = {
	{"diff", "added-line", HL_INSERTED},   {"diff", "removed-line", HL_DELETED},
	{"diff", "changed-line", HL_PREPROCESSOR}, {"diff", "special-case", HL_STRING},
	{"diff", "location", HL_KEYWORD},      {"diff", "diff-file", HL_TYPE},
	{"makefile", "prereq", HL_STRING},     {"makefile", "assignment-lhs", HL_VARIABLE},
	{"yaml", "escape-sequence", HL_SPECIAL},    {"sh", "others", HL_OPERATOR},
};

/* The names a fence may use: the file's id, or an alias of it. */
static const struct {
	const char *name, *id;
} aliases[] = {
	{"sh", "sbatch"},	 {"bash", "sbatch"},	   {"shell", "sbatch"},	  {"sbatch", "sbatch"},
	{"zsh", "sbatch"},		 {"console", "console"},   {"shell-session", "console"},
	{"python", "python3"},	 {"py", "python3"},	   {"python3", "python3"},
	{"c", "c"},		 {"h", "c"},		   {"cpp", "cpp"},	  {"c++", "cpp"},
	{"cxx", "cpp"},		 {"cuda", "cuda"},	   {"cu", "cuda"},	  {"fortran", "fortran"},
	{"f90", "fortran"},	 {"f", "fortran"},	   {"julia", "julia"},	  {"jl", "julia"},
	{"yaml", "yaml"},	 {"yml", "yaml"},	   {"json", "json"},	  {"toml", "toml"},
	{"makefile", "makefile"}, {"make", "makefile"},	   {"cmake", "cmake"},	  {"diff", "diff"},
	{"patch", "diff"},	 {"sql", "sql"},	   {"log", "log"},	  {"markdown", "markdown"},
	{"md", "markdown"},
};

static const char *const plain_names[] = {"text", "txt", "plain", "plaintext", "none", "math",
					  NULL};

static const char *alias_names[sizeof aliases / sizeof aliases[0] + 1];

static void fill_names(void)
{
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		alias_names[i] = aliases[i].name;
}

const char *const *hl_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, fill_names);
	return alias_names;
}

/* --- the language, as read --- */

struct style {
	char *id, *map_to;
};

struct rxdef {
	char *id, *text;
	int opts; /* OPT_* */
};

enum { OPT_X = 1, OPT_I = 2, OPT_SET_I = 4 };

struct include {
	char *ref;	      /* a reference, or NULL for ctx */
	struct ctx *ctx;      /* an inline context */
	char *style_ref;      /* the reference's style-ref, overriding */
	bool ignore_style;
};

struct subpat {
	char *group; /* a number or a name */
	bool at_end;
	char *style_ref;
	int cls;
};

struct cand {
	struct ctx *c;
	int cls; /* -1: the context's own */
};

struct ctx {
	struct lang *lang;
	char *id;
	char *style_ref;
	char *match, *start, *end;
	int match_opts, start_opts, end_opts;
	struct buf keywords; /* "k1|k2|..." with prefix and suffix around each group */
	char *prefix, *suffix;
	bool kw_open; /* a keyword group is open in keywords */
	bool end_at_line_end, end_parent, extend_parent, style_inside, once_only;
	struct include *incs;
	size_t nincs;
	struct subpat *subs;
	size_t nsubs;
	/* linked */
	int cls;
	pcre2_code *re;	    /* match or start */
	pcre2_code *re_end; /* NULL when none or quoting the start */
	char *end_src;	    /* expanded end, when it quotes the start */
	bool jit, jit_end;
	struct cand *cands;
	size_t ncands;
	bool flattening, flat;
};

struct lang {
	char *id;
	bool case_insensitive;
	char *word_class; /* keyword-char-class, or NULL for \w */
	struct style *styles;
	size_t nstyles;
	struct rxdef *defs;
	size_t ndefs;
	struct ctx **ctxs; /* every context, inline ones included */
	size_t nctxs;
	bool linked, linking;
	bool from_text; /* by hl_load_text() */
	uint64_t serial; /* this language's number, never another's (line memo) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct lang **langs;
static size_t nlangs;
static uint64_t nserial; /* languages read so far, under lock */

/* --- reading --- */

struct reader {
	XML_Parser xp;
	struct lang *l;
	struct ctx *stack[MAX_DEPTH];
	int depth;	 /* open <context> elements */
	int skip;	 /* inside elements past MAX_DEPTH */
	struct buf text; /* the text of the element open */
	int text_opts;
	enum { T_NONE, T_MATCH, T_START, T_END, T_KEYWORD, T_PREFIX, T_SUFFIX, T_DEFINE, T_WORD } in;
	char *define_id;
	bool bad;
};

static const char *attr(const XML_Char **a, const char *name)
{
	for (; a[0]; a += 2)
		if (strcmp(a[0], name) == 0)
			return a[1];
	return NULL;
}

static bool attr_true(const XML_Char **a, const char *name, bool dflt)
{
	const char *v = attr(a, name);
	return v ? strcmp(v, "true") == 0 : dflt;
}

static char *xdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int opts_of(const struct lang *l, const XML_Char **a)
{
	int o = attr_true(a, "extended", false) ? OPT_X : 0;
	const char *cs = attr(a, "case-sensitive");
	if (cs) {
		o |= OPT_SET_I;
		if (strcmp(cs, "false") == 0)
			o |= OPT_I;
	} else if (l->case_insensitive) {
		o |= OPT_SET_I | OPT_I;
	}
	return o;
}

static struct ctx *ctx_new(struct lang *l)
{
	struct ctx *c = xcalloc(1, sizeof *c);
	c->lang = l;
	c->extend_parent = true;
	c->cls = -1;
	l->ctxs = xrealloc(l->ctxs, (l->nctxs + 1) * sizeof *l->ctxs);
	l->ctxs[l->nctxs++] = c;
	return c;
}

static void add_include(struct ctx *parent, struct include inc)
{
	parent->incs = xrealloc(parent->incs, (parent->nincs + 1) * sizeof *parent->incs);
	parent->incs[parent->nincs++] = inc;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **a)
{
	struct reader *r = ud;
	struct lang *l = r->l;
	if (r->skip) {
		r->skip++;
		return;
	}
	buf_clear(&r->text);
	r->in = T_NONE;
	struct ctx *top = r->depth ? r->stack[r->depth - 1] : NULL;
	if (strcmp(name, "language") == 0) {
		const char *id = attr(a, "id");
		if (id && !l->id)
			l->id = xstrdup(id);
	} else if (strcmp(name, "default-regex-options") == 0) {
		l->case_insensitive = !attr_true(a, "case-sensitive", true);
	} else if (strcmp(name, "keyword-char-class") == 0) {
		r->in = T_WORD;
	} else if (strcmp(name, "style") == 0 && attr(a, "id")) {
		l->styles = xrealloc(l->styles, (l->nstyles + 1) * sizeof *l->styles);
		l->styles[l->nstyles++] = (struct style){xstrdup(attr(a, "id")),
							 xdup_or_null(attr(a, "map-to"))};
	} else if (strcmp(name, "define-regex") == 0 && attr(a, "id")) {
		r->in = T_DEFINE;
		r->text_opts = opts_of(l, a);
		free(r->define_id);
		r->define_id = xstrdup(attr(a, "id"));
	} else if (strcmp(name, "context") == 0) {
		if (r->depth >= MAX_DEPTH) {
			r->skip = 1;
			return;
		}
		const char *ref = attr(a, "ref");
		if (ref && top) {
			add_include(top, (struct include){xstrdup(ref), NULL,
							  xdup_or_null(attr(a, "style-ref")),
							  attr_true(a, "ignore-style", false)});
			r->stack[r->depth++] = NULL; /* closed by its end tag */
			return;
		}
		if (top && attr(a, "sub-pattern")) {
			top->subs = xrealloc(top->subs, (top->nsubs + 1) * sizeof *top->subs);
			const char *where = attr(a, "where");
			top->subs[top->nsubs++] = (struct subpat){
				xstrdup(attr(a, "sub-pattern")), where && strcmp(where, "end") == 0,
				xdup_or_null(attr(a, "style-ref")), -1};
			r->stack[r->depth++] = NULL;
			return;
		}
		struct ctx *c = ctx_new(l);
		c->id = xdup_or_null(attr(a, "id"));
		c->style_ref = xdup_or_null(attr(a, "style-ref"));
		c->end_at_line_end = attr_true(a, "end-at-line-end", false);
		c->end_parent = attr_true(a, "end-parent", false);
		c->extend_parent = attr_true(a, "extend-parent", true);
		c->style_inside = attr_true(a, "style-inside", false);
		c->once_only = attr_true(a, "once-only", false);
		if (top)
			add_include(top, (struct include){NULL, c, NULL, false});
		r->stack[r->depth++] = c;
	} else if (top && strcmp(name, "match") == 0) {
		r->in = T_MATCH, r->text_opts = opts_of(l, a);
	} else if (top && strcmp(name, "start") == 0) {
		r->in = T_START, r->text_opts = opts_of(l, a);
	} else if (top && strcmp(name, "end") == 0) {
		r->in = T_END, r->text_opts = opts_of(l, a);
	} else if (top && strcmp(name, "keyword") == 0) {
		r->in = T_KEYWORD;
	} else if (top && strcmp(name, "prefix") == 0) {
		r->in = T_PREFIX;
	} else if (top && strcmp(name, "suffix") == 0) {
		r->in = T_SUFFIX;
	}
}

/* Keywords are kept as "(?:PREFIX(?:k1|k2)SUFFIX)|..." groups: a
 * <prefix> or <suffix> between keywords starts a new group. */
static void keyword_group_close(struct ctx *c)
{
	if (c->kw_open) {
		c->kw_open = false;
		buf_puts(&c->keywords, ")");
		buf_puts(&c->keywords, c->suffix ? c->suffix : "\\%]");
		buf_puts(&c->keywords, ")");
	}
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	struct reader *r = ud;
	struct lang *l = r->l;
	if (r->skip) {
		r->skip--;
		return;
	}
	struct ctx *top = r->depth ? r->stack[r->depth - 1] : NULL;
	const char *t = buf_data(&r->text);
	switch (r->in) {
	case T_DEFINE:
		l->defs = xrealloc(l->defs, (l->ndefs + 1) * sizeof *l->defs);
		l->defs[l->ndefs++] = (struct rxdef){r->define_id, xstrdup(t), r->text_opts};
		r->define_id = NULL;
		break;
	case T_WORD:
		free(l->word_class);
		l->word_class = xstrdup(t);
		break;
	case T_MATCH:
		if (top && !top->match)
			top->match = xstrdup(t), top->match_opts = r->text_opts;
		break;
	case T_START:
		if (top && !top->start)
			top->start = xstrdup(t), top->start_opts = r->text_opts;
		break;
	case T_END:
		if (top && !top->end)
			top->end = xstrdup(t), top->end_opts = r->text_opts;
		break;
	case T_PREFIX:
		if (top) {
			keyword_group_close(top);
			free(top->prefix);
			top->prefix = xstrdup(t);
		}
		break;
	case T_SUFFIX:
		if (top) {
			keyword_group_close(top);
			free(top->suffix);
			top->suffix = xstrdup(t);
		}
		break;
	case T_KEYWORD:
		if (top && *t) {
			struct buf *k = &top->keywords;
			if (!top->kw_open) {
				top->kw_open = true;
				if (k->len)
					buf_puts(k, "|");
				buf_puts(k, "(?:");
				buf_puts(k, top->prefix ? top->prefix : "\\%[");
				buf_puts(k, "(?:");
			} else {
				buf_puts(k, "|");
			}
			buf_puts(k, t);
		}
		break;
	case T_NONE:
		break;
	}
	r->in = T_NONE;
	buf_clear(&r->text);
	if (strcmp(name, "context") == 0 && r->depth) {
		if (top)
			keyword_group_close(top);
		r->depth--;
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	struct reader *r = ud;
	if (r->in != T_NONE && !r->skip)
		buf_put(&r->text, s, (size_t)len);
}

static void lang_free(struct lang *l);

static struct lang *read_lang(const char *id, const char *xml, size_t len)
{
	struct lang *l = xcalloc(1, sizeof *l);
	struct reader r = {0};
	r.l = l;
	r.xp = XML_ParserCreate("UTF-8");
	XML_SetUserData(r.xp, &r);
	XML_SetElementHandler(r.xp, on_start, on_end);
	XML_SetCharacterDataHandler(r.xp, on_text);
	bool ok = XML_Parse(r.xp, xml, (int)len, XML_TRUE) == XML_STATUS_OK;
	XML_ParserFree(r.xp);
	buf_free(&r.text);
	free(r.define_id);
	if (!ok || !l->id || strcmp(l->id, id) != 0) {
		lang_free(l);
		return NULL;
	}
	/* a language read again (hl_load_text()) may come at the address
	 * of the one it replaced: the line memo knows it by this */
	l->serial = ++nserial;
	return l;
}

static void lang_free(struct lang *l)
{
	for (size_t i = 0; i < l->nstyles; i++)
		free(l->styles[i].id), free(l->styles[i].map_to);
	for (size_t i = 0; i < l->ndefs; i++)
		free(l->defs[i].id), free(l->defs[i].text);
	for (size_t i = 0; i < l->nctxs; i++) {
		struct ctx *c = l->ctxs[i];
		free(c->id), free(c->style_ref), free(c->match), free(c->start), free(c->end);
		free(c->prefix), free(c->suffix), free(c->end_src);
		buf_free(&c->keywords);
		for (size_t j = 0; j < c->nincs; j++)
			free(c->incs[j].ref), free(c->incs[j].style_ref);
		free(c->incs);
		for (size_t j = 0; j < c->nsubs; j++)
			free(c->subs[j].group), free(c->subs[j].style_ref);
		free(c->subs);
		pcre2_code_free(c->re);
		pcre2_code_free(c->re_end);
		free(c->cands);
		free(c);
	}
	free(l->ctxs), free(l->styles), free(l->defs), free(l->word_class), free(l->id);
	free(l);
}

/* --- finding languages, styles, contexts --- */

static struct lang *lang_get(const char *id, size_t n);

static struct lang *lang_loaded(const char *id, size_t n)
{
	for (size_t i = 0; i < nlangs; i++)
		if (strlen(langs[i]->id) == n && memcmp(langs[i]->id, id, n) == 0)
			return langs[i];
	return NULL;
}

static void lang_add(struct lang *l)
{
	langs = xrealloc(langs, (nlangs + 1) * sizeof *langs);
	langs[nlangs++] = l;
}

/* The language `id` (n bytes), read from the binary on first use. */
static struct lang *lang_get(const char *id, size_t n)
{
	struct lang *l = lang_loaded(id, n);
	if (l || n > 64)
		return l;
	char *key = xstrndup(id, n);
	/* GtkSourceView's file names are the ids, but for these */
	const char *file = strcmp(key, "js") == 0       ? "javascript"
			   : strcmp(key, "js-lit") == 0 ? "javascript-literals"
							: key;
	char *p = xasprintf("lang/%s.lang", file);
	const struct embedded_file *e = embedded_find(p);
	free(p);
	if (!e) {
		p = xasprintf(GSV_DIR "%s.lang", file);
		e = embedded_find(p);
		free(p);
	}
	if (e && (l = read_lang(key, e->data, e->len)))
		lang_add(l);
	free(key);
	return l;
}

static const struct style *style_in(const struct lang *l, const char *id)
{
	for (size_t i = 0; i < l->nstyles; i++)
		if (strcmp(l->styles[i].id, id) == 0)
			return &l->styles[i];
	return NULL;
}

/* A style reference made in language l, walked to its class. */
static int style_class(struct lang *l, const char *ref, int depth)
{
	if (!ref || depth > 16)
		return HL_NONE;
	const char *colon = strchr(ref, ':');
	if (colon) {
		l = lang_get(ref, (size_t)(colon - ref));
		ref = colon + 1;
		if (!l)
			return HL_NONE;
	}
	if (strcmp(l->id, "def") == 0)
		for (size_t i = 0; i < sizeof def_classes / sizeof def_classes[0]; i++)
			if (strcmp(def_classes[i].style, ref) == 0)
				return def_classes[i].cls;
	for (size_t i = 0; i < sizeof scheme_classes / sizeof scheme_classes[0]; i++)
		if (strcmp(scheme_classes[i].lang, l->id) == 0 &&
		    strcmp(scheme_classes[i].style, ref) == 0)
			return scheme_classes[i].cls;
	const struct style *s = style_in(l, ref);
	if (!s || !s->map_to)
		return HL_NONE;
	return style_class(l, s->map_to, depth + 1);
}

static struct ctx *ctx_in(const struct lang *l, const char *id, size_t n)
{
	for (size_t i = 0; i < l->nctxs; i++)
		if (l->ctxs[i]->id && strlen(l->ctxs[i]->id) == n &&
		    memcmp(l->ctxs[i]->id, id, n) == 0)
			return l->ctxs[i];
	return NULL;
}

/* --- regexes --- */

static void open_group(struct buf *b, int opts)
{
	bool x = opts & OPT_X;
	buf_puts(b, x ? "(?x" : "(?");
	if (opts & OPT_SET_I)
		buf_puts(b, (opts & OPT_I) ? (x ? "i-" : "i-x") : (x ? "-i" : "-xi"));
	else if (!x)
		buf_puts(b, "-x");
	buf_puts(b, ":");
}

static void close_group(struct buf *b, int opts)
{
	buf_puts(b, (opts & OPT_X) ? "\n)" : ")");
}

static void word_edge(struct buf *b, const struct lang *l, bool start)
{
	const char *w = l->word_class ? l->word_class : "\\w";
	if (start)
		buf_printf(b, "(?<!%s)(?=%s)", w, w);
	else
		buf_printf(b, "(?<=%s)(?!%s)", w, w);
}

/* src, written in language l with opts, into b: \%{id} expanded,
 * \%{x@start} kept for when the context opens. */
static void expand(struct buf *b, struct lang *l, const char *src, int opts, int depth)
{
	open_group(b, opts);
	for (const char *p = src; *p;) {
		if (p[0] == '\\' && p[1] == '%' && p[2] == '[') {
			word_edge(b, l, true), p += 3;
		} else if (p[0] == '\\' && p[1] == '%' && p[2] == ']') {
			word_edge(b, l, false), p += 3;
		} else if (p[0] == '\\' && p[1] == '%' && p[2] == '{') {
			const char *close = strchr(p + 3, '}');
			if (!close) {
				buf_puts(b, "\\%");
				p += 2;
				continue;
			}
			const char *name = p + 3;
			size_t n = (size_t)(close - name);
			if (memchr(name, '@', n)) {
				buf_put(b, p, (size_t)(close + 1 - p));
			} else {
				const char *colon = memchr(name, ':', n);
				struct lang *dl = l;
				if (colon) {
					dl = lang_get(name, (size_t)(colon - name));
					n -= (size_t)(colon + 1 - name);
					name = colon + 1;
				}
				const struct rxdef *d = NULL;
				for (size_t i = 0; dl && i < dl->ndefs; i++)
					if (strlen(dl->defs[i].id) == n &&
					    memcmp(dl->defs[i].id, name, n) == 0)
						d = &dl->defs[i];
				if (d && depth < MAX_EXPAND)
					expand(b, dl, d->text, d->opts, depth + 1);
				else
					buf_puts(b, "(*FAIL)");
			}
			p = close + 1;
		} else if (p[0] == '\\' && p[1]) {
			buf_put(b, p, 2), p += 2;
		} else {
			buf_putc(b, *p++);
		}
	}
	close_group(b, opts);
}

static pcre2_code *compile(const char *src, size_t len, bool *jit)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, len, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DUPNAMES,
				       &err, &off, NULL);
	*jit = false;
#ifndef LOGDOWN_NO_JIT
	if (re && pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0)
		*jit = true;
#endif
	return re;
}

static void link_lang(struct lang *l);

static struct ctx *resolve_ref(struct lang *l, const char *ref, bool *children)
{
	size_t n = strlen(ref);
	*children = n >= 2 && strcmp(ref + n - 2, ":*") == 0;
	if (*children)
		n -= 2;
	const char *colon = memchr(ref, ':', n);
	if (colon) {
		l = lang_get(ref, (size_t)(colon - ref));
		if (!l)
			return NULL;
		link_lang(l);
		n -= (size_t)(colon + 1 - ref);
		ref = colon + 1;
	}
	return ctx_in(l, ref, n);
}

static void flatten(struct ctx *c);

static void add_cands(struct ctx *into, struct ctx *c, int cls, bool children, int depth)
{
	if (depth > 16)
		return;
	if (!children && (c->re || c->start)) {
		into->cands = xrealloc(into->cands, (into->ncands + 1) * sizeof *into->cands);
		into->cands[into->ncands++] = (struct cand){c, cls};
		return;
	}
	if (!children && c->match)
		return; /* a match that did not compile */
	for (size_t i = 0; i < c->nincs; i++) {
		const struct include *inc = &c->incs[i];
		bool ch = false;
		struct ctx *t = inc->ctx ? inc->ctx : resolve_ref(c->lang, inc->ref, &ch);
		if (!t || t == into)
			continue;
		int k = inc->ignore_style ? HL_NONE
			: inc->style_ref  ? style_class(c->lang, inc->style_ref, 0)
					  : cls;
		add_cands(into, t, k, ch, depth + 1);
	}
}

static void flatten(struct ctx *c)
{
	if (c->flat || c->flattening)
		return;
	c->flattening = true;
	add_cands(c, c, -1, true, 0);
	c->flattening = false;
	c->flat = true;
}

static void link_ctx(struct ctx *c)
{
	struct lang *l = c->lang;
	struct buf b = BUF_INIT;
	c->cls = c->style_ref ? style_class(l, c->style_ref, 0) : HL_NONE;
	for (size_t i = 0; i < c->nsubs; i++)
		c->subs[i].cls = style_class(l, c->subs[i].style_ref, 0);
	if (!c->match && c->keywords.len) {
		keyword_group_close(c);
		c->match = xstrdup(buf_data(&c->keywords));
		c->match_opts = l->case_insensitive ? OPT_SET_I | OPT_I : 0;
	}
	const char *m = c->match ? c->match : c->start;
	if (m) {
		expand(&b, l, m, c->match ? c->match_opts : c->start_opts, 0);
		c->re = compile(buf_data(&b), b.len, &c->jit);
	}
	if (c->end && c->start) {
		buf_clear(&b);
		expand(&b, l, c->end, c->end_opts, 0);
		if (strstr(buf_data(&b), "@start}"))
			c->end_src = buf_detach(&b);
		else
			c->re_end = compile(buf_data(&b), b.len, &c->jit_end);
	}
	buf_free(&b);
}

static void link_lang(struct lang *l)
{
	if (l->linked || l->linking)
		return;
	l->linking = true;
	for (size_t i = 0; i < l->nctxs; i++)
		link_ctx(l->ctxs[i]);
	for (size_t i = 0; i < l->nctxs; i++)
		flatten(l->ctxs[i]);
	l->linking = false;
	l->linked = true;
}

const struct hl_lang *hl_find(const char *name, bool *plain)
{
	*plain = false;
	for (size_t i = 0; plain_names[i]; i++)
		if (strcasecmp(name, plain_names[i]) == 0) {
			*plain = true;
			return NULL;
		}
	const char *id = NULL;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0] && !id; i++)
		if (strcasecmp(name, aliases[i].name) == 0)
			id = aliases[i].id;
	if (!id)
		return NULL;
	pthread_mutex_lock(&lock);
	lang_get("def", 3);
	struct lang *l = lang_get(id, strlen(id));
	if (l)
		link_lang(l);
	pthread_mutex_unlock(&lock);
	return (const struct hl_lang *)l;
}

const struct hl_lang *hl_load_text(const char *id, const char *xml, size_t len)
{
	pthread_mutex_lock(&lock);
	lang_get("def", 3);
	struct lang *old = lang_loaded(id, strlen(id));
	struct lang *l = old && !old->from_text ? NULL : read_lang(id, xml, len);
	if (l) {
		l->from_text = true;
		if (old) {
			/* nothing else links to a language read this way */
			for (size_t i = 0; i < nlangs; i++)
				if (langs[i] == old)
					langs[i] = l;
			lang_free(old);
		} else {
			lang_add(l);
		}
		link_lang(l);
	}
	pthread_mutex_unlock(&lock);
	return (const struct hl_lang *)l;
}

/* --- running --- */

struct frame {
	struct ctx *c;
	int cls;
	pcre2_code *end; /* c->re_end, or compiled for this opening */
	bool jit, own;
	uint64_t used; /* the once-only candidates (of the first 64) already met */
	/* this line's matches of the frame's candidates (memo_s, memo_e:
	 * MEMO_UNKNOWN, MEMO_NONE or the match) and of its end, kept while
	 * the frame is open: a match found from an earlier place that
	 * starts at or after the current one is the match from here too
	 * (PCRE2 sees the whole line from any start offset, lookbehinds
	 * included).  Kept per frame, so that coming back to a frame
	 * after an inner one (a string closed) costs no search again: one
	 * memo for the top alone made a line of many strings quadratic. */
	size_t *memo_s, *memo_e;
	size_t nmemo;
	bool memo_ok;
	size_t end_s, end_e;
};

struct run {
	const struct lang *l;
	const char *line;
	size_t n;
	unsigned char *cls; /* of the line's first byte */
	struct re_matcher m;
	struct frame st[MAX_DEPTH];
	int depth;
	int err;
};

#define MEMO_UNKNOWN SIZE_MAX
#define MEMO_NONE (SIZE_MAX - 1)

static void paint(struct run *r, size_t a, size_t b, int cls)
{
	if (b > a && cls > 0)
		memset(r->cls + a, cls, b - a);
}

/* Sub-patterns of c (at the start, or at the end) painted over the
 * match in r->m. */
static void paint_subs(struct run *r, const struct ctx *c, const pcre2_code *re, bool at_end)
{
	for (size_t i = 0; i < c->nsubs; i++) {
		const struct subpat *s = &c->subs[i];
		if (s->at_end != at_end || s->cls <= 0)
			continue;
		int g = isdigit((unsigned char)s->group[0])
				? atoi(s->group)
				: pcre2_substring_number_from_name(re, (PCRE2_SPTR)s->group);
		if (g < 0 || (uint32_t)g >= r->m.ov_pairs)
			continue;
		PCRE2_SIZE a = r->m.ov[2 * g], b = r->m.ov[2 * g + 1];
		if (a != PCRE2_UNSET && b != PCRE2_UNSET && b > a)
			paint(r, a, b, s->cls);
	}
}

static void pop_to(struct run *r, int depth)
{
	while (r->depth > depth) {
		struct frame *f = &r->st[--r->depth];
		if (f->own)
			pcre2_code_free(f->end);
		f->own = false;
		f->memo_ok = false;
	}
}

/* Opens frame f (r->st[r->depth]) for context c: its memo arrays, kept
 * from the frame that was there before, start over. */
static void frame_open(struct frame *f, struct ctx *c, int cls, pcre2_code *end, bool jit)
{
	size_t *ms = f->memo_s, *me = f->memo_e, nm = f->nmemo;
	*f = (struct frame){c, cls, end, jit, false, 0, ms, me, nm, false, MEMO_UNKNOWN, 0};
}

/* The end of a context opened by the match in r->m, its \%{x@start}
 * replaced by what x matched, quoted. */
static pcre2_code *end_for(struct run *r, const struct ctx *c, bool *jit)
{
	struct buf b = BUF_INIT;
	for (const char *p = c->end_src; *p;) {
		const char *q = strstr(p, "\\%{");
		const char *at = q ? strstr(q, "@start}") : NULL;
		if (!q || !at) {
			buf_puts(&b, p);
			break;
		}
		buf_put(&b, p, (size_t)(q - p));
		char *name = xstrndup(q + 3, (size_t)(at - q - 3));
		int g = isdigit((unsigned char)name[0])
				? atoi(name)
				: pcre2_substring_number_from_name(c->re, (PCRE2_SPTR)name);
		free(name);
		if (g >= 0 && (uint32_t)g < r->m.ov_pairs && r->m.ov[2 * g] != PCRE2_UNSET) {
			for (PCRE2_SIZE i = r->m.ov[2 * g]; i < r->m.ov[2 * g + 1]; i++) {
				unsigned char ch = (unsigned char)r->line[i];
				if (ch < 0x80 && !isalnum(ch))
					buf_putc(&b, '\\');
				buf_putc(&b, (char)ch);
			}
		}
		p = at + 7;
	}
	pcre2_code *re = compile(buf_data(&b), b.len, jit);
	buf_free(&b);
	return re;
}

/* Matches re in the line from pos: its start, or SIZE_MAX.  A simple
 * context's match is never empty (it would colour nothing; TOML's keys
 * are `[a-z...]*`), a start or an end may be. */
static size_t try(struct run *r, const pcre2_code *re, bool jit, bool notempty, size_t pos,
		  size_t *end)
{
	if (!re || r->err)
		return SIZE_MAX;
	uint32_t o = notempty ? PCRE2_NOTEMPTY : 0;
	int rc = jit ? pcre2_jit_match(re, (PCRE2_SPTR)r->line, r->n, pos, o, r->m.md, r->m.mctx)
		     : pcre2_match(re, (PCRE2_SPTR)r->line, r->n, pos, o, r->m.md, r->m.mctx);
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
		r->err = rc;
	if (rc < 0)
		return SIZE_MAX;
	*end = r->m.ov[1];
	return r->m.ov[0];
}

static void run_line(struct run *r)
{
	size_t pos = 0, last_pos = SIZE_MAX;
	int last_depth = 0, stuck = 0;
	while (pos <= r->n && !r->err) {
		struct frame *top = &r->st[r->depth - 1];
		/* no progress (empty matches, a context that cannot open):
		 * after a few tries, a byte in the current class */
		if (pos == last_pos && r->depth >= last_depth) {
			if (++stuck > MAX_EMPTY) {
				if (pos >= r->n)
					return;
				paint(r, pos, pos + 1, top->cls);
				pos++;
				stuck = 0;
				continue;
			}
		} else {
			stuck = 0;
		}
		last_pos = pos;
		last_depth = r->depth;
		/* the leftmost of: the ends (the innermost first), the candidates */
		size_t best = SIZE_MAX, best_end = 0;
		int which_end = -1; /* frame index */
		const struct cand *which = NULL;
		for (int d = r->depth - 1; d >= 1; d--) {
			struct frame *f = &r->st[d];
			size_t e, s;
			if (f->end_s == MEMO_NONE) {
				s = SIZE_MAX;
			} else if (f->end_s != MEMO_UNKNOWN && f->end_s >= pos) {
				s = f->end_s, e = f->end_e;
			} else {
				s = try(r, f->end, f->jit, false, pos, &e);
				f->end_s = s == SIZE_MAX ? MEMO_NONE : s;
				f->end_e = e;
			}
			if (s < best)
				best = s, best_end = e, which_end = d;
			if (r->st[d].c->extend_parent)
				break;
		}
		const struct ctx *c = top->c;
		if (!top->memo_ok) {
			if (top->nmemo < c->ncands) {
				top->nmemo = c->ncands;
				top->memo_s = xrealloc(top->memo_s, top->nmemo * sizeof *top->memo_s);
				top->memo_e = xrealloc(top->memo_e, top->nmemo * sizeof *top->memo_e);
			}
			for (size_t i = 0; i < c->ncands; i++)
				top->memo_s[i] = MEMO_UNKNOWN;
			top->memo_ok = true;
		}
		for (size_t i = 0; i < c->ncands; i++) {
			size_t e = 0, s;
			const struct cand *k = &c->cands[i];
			if (k->c->once_only && i < 64 && (top->used >> i & 1))
				continue;
			if (top->memo_s[i] == MEMO_NONE)
				continue;
			if (top->memo_s[i] != MEMO_UNKNOWN && top->memo_s[i] >= pos) {
				s = top->memo_s[i], e = top->memo_e[i];
			} else {
				s = try(r, k->c->re, k->c->jit, !k->c->start, pos, &e);
				top->memo_s[i] = s == SIZE_MAX ? MEMO_NONE : s;
				top->memo_e[i] = e;
			}
			if (s < best)
				best = s, best_end = e, which = k, which_end = -1;
		}
		if (best == SIZE_MAX || r->err) {
			paint(r, pos, r->n, top->cls);
			return;
		}
		paint(r, pos, best, top->cls);
		/* re-run the winner: its groups are in r->m for sub-patterns */
		size_t e2;
		if (which_end >= 0) {
			struct frame *f = &r->st[which_end];
			try(r, f->end, f->jit, false, best, &e2);
			paint(r, best, best_end, f->c->style_inside ? r->st[which_end - 1].cls : f->cls);
			paint_subs(r, f->c, f->end, true);
			bool up = f->c->end_parent;
			pop_to(r, which_end);
			if (up && r->depth > 1)
				pop_to(r, r->depth - 1);
		} else {
			const struct ctx *k = which->c;
			size_t wi = (size_t)(which - top->c->cands);
			if (k->once_only && wi < 64)
				top->used |= (uint64_t)1 << wi;
			try(r, k->re, k->jit, !k->start, best, &e2);
			int cls = which->cls >= 0 ? which->cls : k->cls;
			if (cls <= 0)
				cls = top->cls;
			if (k->start && r->depth < MAX_DEPTH) {
				struct frame *f = &r->st[r->depth];
				frame_open(f, (struct ctx *)k, cls, k->re_end, k->jit_end);
				if (k->end_src) {
					f->end = end_for(r, k, &f->jit);
					f->own = true;
				}
				paint(r, best, best_end, k->style_inside ? top->cls : cls);
				paint_subs(r, k, k->re, false);
				r->depth++;
			} else if (!k->start) {
				paint(r, best, best_end, cls);
				paint_subs(r, k, k->re, false);
				if (k->end_parent && r->depth > 1)
					pop_to(r, r->depth - 1);
			}
		}
		pos = best_end;
	}
}

/* --- lines kept --- */

/* Code repeats its lines: the same import, command or closing brace in
 * block after block and report after report (10,000 pages of a site
 * hold 18,000 code blocks).  A line that starts and ends in its
 * language's main context (no string or comment open across it) is
 * coloured the same every time, given the language, the once-only
 * patterns of the main context met before it and the match limits:
 * run_line() depends on nothing else (its matches see the line only).
 * Such a line's classes are kept under those in a table the threads
 * share (under memo_lock, a copy in and a copy out), and the next such
 * line takes them instead of running every candidate's regex over it.
 * A line stopped by a limit is not kept.  The table lives as long as
 * the process, as the languages do; it is emptied when three quarters
 * full. */
#define KEPT_LINE_MAX 256 /* longer lines are coloured each time */
#define KEPT_SLOTS 8192

struct kept_line {
	uint64_t hash; /* of all below and the line's bytes; 0: an empty slot */
	uint64_t lang; /* struct lang's serial */
	uint64_t used_in, used_out; /* the main frame's once-only bits */
	uint32_t limit, depth_limit;
	size_t n;
	unsigned char *bytes; /* the line's n bytes, then its n classes */
};

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept_line *kept_lines; /* KEPT_SLOTS, or NULL */
static size_t nkept_lines;

static uint64_t kept_hash(const struct kept_line *k, const char *line)
{
	uint64_t h = 1469598103934665603u;
	const uint64_t key[] = {k->lang, k->used_in, (uint64_t)k->limit << 32 | k->depth_limit,
				k->n};
	for (size_t i = 0; i < sizeof key / sizeof key[0]; i++)
		h = (h ^ key[i]) * 1099511628211u;
	for (size_t i = 0; i < k->n; i++)
		h = (h ^ (unsigned char)line[i]) * 1099511628211u;
	return h ? h : 1;
}

/* The slot of k (its line at line), or the empty one it would go in.
 * Under kept_lock, with the table made. */
static struct kept_line *kept_slot(const struct kept_line *k, const char *line)
{
	for (size_t i = k->hash & (KEPT_SLOTS - 1);; i = (i + 1) & (KEPT_SLOTS - 1)) {
		struct kept_line *s = &kept_lines[i];
		if (!s->hash || (s->hash == k->hash && s->lang == k->lang &&
				 s->used_in == k->used_in && s->limit == k->limit &&
				 s->depth_limit == k->depth_limit && s->n == k->n &&
				 memcmp(s->bytes, line, k->n) == 0))
			return s;
	}
}

/* The classes of the line k stands for into cls, and *used_out, when
 * it was kept. */
static bool kept_get(struct kept_line *k, const char *line, unsigned char *cls, uint64_t *used_out)
{
	bool found = false;
	pthread_mutex_lock(&kept_lock);
	if (kept_lines) {
		const struct kept_line *s = kept_slot(k, line);
		if (s->hash) {
			memcpy(cls, s->bytes + s->n, s->n);
			*used_out = s->used_out;
			found = true;
		}
	}
	pthread_mutex_unlock(&kept_lock);
	return found;
}

static void kept_put(struct kept_line *k, const char *line, const unsigned char *cls,
		     uint64_t used_out)
{
	unsigned char *bytes = xmalloc(2 * k->n + 1);
	memcpy(bytes, line, k->n);
	memcpy(bytes + k->n, cls, k->n);
	pthread_mutex_lock(&kept_lock);
	if (kept_lines && 4 * (nkept_lines + 1) > 3 * KEPT_SLOTS) {
		for (size_t i = 0; i < KEPT_SLOTS; i++)
			free(kept_lines[i].bytes);
		memset(kept_lines, 0, KEPT_SLOTS * sizeof *kept_lines);
		nkept_lines = 0;
	}
	if (!kept_lines)
		kept_lines = xcalloc(KEPT_SLOTS, sizeof *kept_lines);
	struct kept_line *s = kept_slot(k, line);
	if (!s->hash) {
		*s = *k;
		s->used_out = used_out;
		s->bytes = bytes;
		bytes = NULL;
		nkept_lines++;
	}
	pthread_mutex_unlock(&kept_lock);
	free(bytes); /* another thread kept it first */
}

/* The classes of text[0..len) with the matcher m, set up by the
 * caller (hl_classes() for one text, hl_matcher for many); with keep,
 * lines kept are used and kept (the matcher's limits are limit and
 * pcre_depth's). */
static unsigned char *classes_with(const struct lang *l, const struct re_matcher *m,
				   const char *text, size_t len, const char **stop, int *stop_line,
				   bool keep, uint32_t limit)
{
	unsigned char *cls = xcalloc(len + 1, 1);
	if (stop)
		*stop = NULL;
	if (stop_line)
		*stop_line = 0;
	struct ctx *main = l ? ctx_in(l, l->id, strlen(l->id)) : NULL;
	if (!main)
		return cls;
	struct run r = {.l = l, .m = *m};
	uint32_t depth_limit = keep ? (uint32_t)limit_get(LIMIT_PCRE_DEPTH) : 0;
	frame_open(&r.st[0], main, main->cls > 0 ? main->cls : HL_NONE, NULL, false);
	r.depth = 1;
	const char *p = text, *end = text + len;
	int line = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		r.line = p;
		r.n = (size_t)((nl ? nl : end) - p);
		r.cls = cls + (p - text);
		struct kept_line k = {0};
		bool keepable = keep && r.depth == 1 && r.n <= KEPT_LINE_MAX;
		if (keepable) {
			k = (struct kept_line){.lang = l->serial,
					       .used_in = r.st[0].used,
					       .limit = limit,
					       .depth_limit = depth_limit,
					       .n = r.n};
			k.hash = kept_hash(&k, r.line);
			if (kept_get(&k, r.line, r.cls, &r.st[0].used))
				goto next;
		}
		for (int d = 0; d < r.depth; d++) {
			r.st[d].memo_ok = false;
			r.st[d].end_s = MEMO_UNKNOWN;
		}
		run_line(&r);
		if (r.err) {
			/* the rest stays plain */
			memset(r.cls, 0, (size_t)(end - p));
			if (stop)
				*stop = re_error(r.err);
			if (stop_line)
				*stop_line = line;
			break;
		}
		/* contexts that end at the line's end, and those inside them */
		for (int d = 1; d < r.depth; d++)
			if (r.st[d].c->end_at_line_end) {
				pop_to(&r, d);
				break;
			}
		if (keepable && r.depth == 1)
			kept_put(&k, r.line, r.cls, r.st[0].used);
	next:
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	pop_to(&r, 1);
	for (int d = 0; d < MAX_DEPTH; d++) {
		free(r.st[d].memo_s);
		free(r.st[d].memo_e);
	}
	return cls;
}

/* Matchers kept between calls to hl_classes(), under lock: making one
 * maps a JIT stack of a megabyte (mmap, then munmap when freed), and a
 * site of 10,000 pages highlights some 18,000 code blocks.  At most one
 * a thread is in use at once; the spares live as long as the process,
 * as the languages do. */
#define MAX_SPARE 16
static struct re_matcher spare[MAX_SPARE];
static size_t nspare;

unsigned char *hl_classes(const struct hl_lang *hl, const char *text, size_t len,
			  const char **stop, int *stop_line)
{
	struct re_matcher m;
	bool kept = false;
	pthread_mutex_lock(&lock);
	if (nspare) {
		m = spare[--nspare];
		kept = true;
	}
	pthread_mutex_unlock(&lock);
	uint32_t limit = re_line_limit();
	if (kept)
		re_matcher_limit(&m, limit);
	else
		re_matcher_init(&m, 32, limit);
	unsigned char *cls =
		classes_with((const struct lang *)hl, &m, text, len, stop, stop_line, true, limit);
	pthread_mutex_lock(&lock);
	kept = nspare < MAX_SPARE;
	if (kept)
		spare[nspare++] = m;
	pthread_mutex_unlock(&lock);
	if (!kept)
		re_matcher_free(&m);
	return cls;
}

struct hl_matcher {
	const struct lang *l;
	struct re_matcher m;
};

struct hl_matcher *hl_matcher_new(const struct hl_lang *l)
{
	if (!l)
		return NULL;
	struct hl_matcher *hm = xcalloc(1, sizeof *hm);
	hm->l = (const struct lang *)l;
	re_matcher_init(&hm->m, 32, re_line_limit());
	return hm;
}

unsigned char *hl_matcher_classes(struct hl_matcher *hm, const char *text, size_t len)
{
	/* a log's lines: seldom the same twice */
	return classes_with(hm->l, &hm->m, text, len, NULL, NULL, false, 0);
}

void hl_matcher_free(struct hl_matcher *hm)
{
	if (!hm)
		return;
	re_matcher_free(&hm->m);
	free(hm);
}
