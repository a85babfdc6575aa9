/* mustache.c: Mustache templates, compiled once to a tree and rendered
 * many times.
 *
 * Compiling scans the text for tags with the current delimiters, drops
 * standalone lines (a section, inverted, closing, comment, partial or
 * set-delimiter tag alone on its line but for spaces and tabs), and
 * builds a tree of text, variables, sections, partials, blocks and
 * parents.  Sections, blocks and parents are kept on an explicit stack
 * while their bodies are collected, so an unclosed or mismatched one is
 * found with the tag that opened it.
 *
 * Partials are loaded and compiled on first use while rendering, and
 * cached in the template passed to mustache_render() under their name
 * and the indentation of their standalone tag: the spec defines that
 * indentation as a prefix on every line of the partial's source, so the
 * prefix is applied before compiling and each indentation is its own
 * compiled tree.
 *
 * Inheritance.  A parent {{<name}}...{{/name}} is a partial from the same
 * loader and cache, rendered with the blocks written directly inside the
 * tag as its arguments; anything else inside the tag is parsed and then
 * dropped, as the spec says.  A block {{$name}}default{{/name}} anywhere
 * else is a parameter: rendering it looks the name up in the chain of
 * parents being rendered, and the outermost argument of that name wins
 * (top-level substitutions take precedence).  An argument renders in the
 * context stack of the parameter it replaces, but with the arguments
 * that were in force where its parent tag was written, so that an
 * argument can never expand into itself.  Without an argument a block
 * renders its default content.
 *
 * Arguments are reindented at render time.  An argument whose opening
 * tag ends its line starts on the next line; that line's indentation is
 * removed from each line of the argument when compiling.  A parameter
 * alone on its line takes the indentation of the line after it (its
 * default content's), and one with only spaces before it on its line
 * takes those spaces; that indentation is added at run time to each line
 * of template text an argument renders in its place, as partials' are.
 * Text that data supplies is never indented.  A parameter alone on its
 * lines is replaced by whole lines: an argument that does not end its
 * last line gets a newline there. */
#include "render/mustache.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/limit.h"

/* Sections may nest this deep in one template; deeper is refused so that
 * compiling, rendering and freeing (all recursive over the tree) keep to
 * a bounded stack. */
#define MUSTACHE_MAX_NESTING 100
/* Partials and parents may include one another this deep while
 * rendering, counting each argument expanded in place of a block as a
 * level too.  A partial or parent that includes itself stops here. */
#define MUSTACHE_MAX_PARTIAL_DEPTH 64

#define NOT_FOUND SIZE_MAX

enum node_kind {
	NODE_TEXT,     /* literal text */
	NODE_VAR,      /* {{name}}: escaped */
	NODE_RAW,      /* {{{name}}} and {{&name}}: not escaped */
	NODE_SECTION,  /* {{#name}}...{{/name}} */
	NODE_INVERTED, /* {{^name}}...{{/name}} */
	NODE_PARTIAL,  /* {{>name}} */
	NODE_BLOCK,    /* {{$name}}...{{/name}}: a parameter, or in a parent an argument */
	NODE_PARENT,   /* {{<name}}...{{/name}}: its kids are its arguments */
};

struct node {
	enum node_kind kind;
	/* NODE_TEXT: the bytes, borrowed from the template's src. */
	struct span text;
	/* Tags: the name as written, without surrounding spaces. */
	char *name;
	/* The name split at its dots; none for the implicit iterator ".". */
	char **parts;
	size_t nparts;
	/* NODE_PARTIAL and NODE_PARENT: the indentation of a standalone
	 * tag, else "".  NODE_BLOCK: the indentation added to each line of an
	 * argument rendered in place of this parameter. */
	char *indent;
	/* NODE_BLOCK: the parameter's opening tag is alone on its line, so an
	 * argument starts a line of its own. */
	bool own_line;
	/* Sections and blocks: the body; parents: the arguments, all
	 * NODE_BLOCK. */
	struct node *kids;
	size_t nkids;
	/* Where the tag is, for diagnostics at render time. */
	struct loc loc;
};

struct nodes {
	struct node *v;
	size_t n;
	size_t cap;
};

/* A partial as the loader gave it, compiled for one indentation. */
struct partial {
	char *name;
	char *indent;
	struct mustache *tpl; /* NULL: the loader has no such partial */
	bool failed;          /* it did not compile; already reported */
	bool walked;          /* mustache_prepare() has been through it */
};

struct mustache {
	const char *file;
	/* The text compiled: a copy, indented for a standalone partial.
	 * Text nodes point into it. */
	char *src;
	size_t len;
	/* A partial's text as loaded, so that diagnostics can quote it
	 * (no file on disk holds it); NULL for a top-level template, whose
	 * file the caller registered or diag can read. */
	char *orig;
	size_t orig_len;
	struct node *nodes;
	size_t nnodes;
	/* Partials used by renders of this template, each allocated on its
	 * own so that a pointer to one survives the array growing while a
	 * nested partial is being added. */
	struct partial **partials;
	size_t npartials;
};

static void nodes_free(struct node *v, size_t n);

static void node_release(struct node *nd)
{
	free(nd->name);
	for (size_t i = 0; i < nd->nparts; i++)
		free(nd->parts[i]);
	free(nd->parts);
	free(nd->indent);
	nodes_free(nd->kids, nd->nkids);
}

static void nodes_free(struct node *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		node_release(&v[i]);
	free(v);
}

static void nodes_push(struct nodes *l, const struct node *nd)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = *nd;
}

void mustache_free(struct mustache *m)
{
	if (!m)
		return;
	nodes_free(m->nodes, m->nnodes);
	for (size_t i = 0; i < m->npartials; i++) {
		struct partial *pt = m->partials[i];
		/* The partial's tree borrows pt->name as its file name. */
		mustache_free(pt->tpl);
		free(pt->name);
		free(pt->indent);
		free(pt);
	}
	free(m->partials);
	free(m->src);
	free(m->orig);
	free(m);
}

/* Reports through d, quoting tpl's line.  A partial's text is not on
 * disk under its name, so it is registered with d just for the call. */
static void report(struct diag *d, const struct mustache *tpl, bool note, struct loc at,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(struct diag *d, const struct mustache *tpl, bool note, struct loc at,
		   const char *fmt, ...)
{
	if (!d)
		return;
	struct buf msg = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	bool quote = tpl->orig && tpl->file;
	if (quote)
		diag_add_source(d, tpl->file, tpl->orig, tpl->orig_len);
	if (note)
		diag_note(d, at, "%s", buf_data(&msg));
	else
		diag_error(d, at, "%s", buf_data(&msg));
	if (quote)
		diag_forget_source(d, tpl->file);
	buf_free(&msg);
}

/* An open section, block or parent while its body is being collected. */
struct frame {
	struct node head;
	struct nodes body;
	/* Removed from the start of each line of text in the body: the
	 * indentation of an argument whose opening tag ends its line, here
	 * or in an enclosing frame.  Borrowed from src. */
	struct span dedent;
	/* NODE_PARENT: only spaces and tabs, [lead_from, lead_to), come
	 * before the opening tag on its line.  The parent is standalone if
	 * its closing tag ends its line as well. */
	bool left_clean;
	size_t lead_from;
	size_t lead_to;
};

struct parser {
	struct mustache *m;
	const char *src; /* m->src */
	size_t len;
	struct diag *d;
	/* Where the next text starts. */
	size_t pos;
	/* The current delimiters: the defaults, or borrowed from src. */
	struct span otag;
	struct span ctag;
	/* Line counting, advanced as tags are found (always forwards). */
	size_t counted;
	int line;
	size_t line_start;
	/* Columns to subtract: the indentation added to a partial. */
	int col_shift;
	struct frame *frames; /* frames[0] is the template's top level */
	size_t nframes;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The first occurrence of needle in src at or after from, or NOT_FOUND. */
static size_t find(const char *src, size_t len, size_t from, struct span needle)
{
	assert(needle.len > 0);
	size_t i = from;
	while (i < len && len - i >= needle.len) {
		const char *hit = memchr(src + i, needle.p[0], len - i - needle.len + 1);
		if (!hit)
			return NOT_FOUND;
		i = (size_t)(hit - src);
		if (memcmp(hit, needle.p, needle.len) == 0)
			return i;
		i++;
	}
	return NOT_FOUND;
}

/* Where the closing delimiter of a tag whose content starts at from
 * begins, counting lead (the '}' of {{{x}}}, the '=' of {{=a b=}}) as
 * part of it when not NUL; NOT_FOUND when there is none. */
static size_t find_close(const struct parser *p, size_t from, char lead)
{
	if (!lead)
		return find(p->src, p->len, from, p->ctag);
	for (size_t i = from + 1;; i++) {
		i = find(p->src, p->len, i, p->ctag);
		if (i == NOT_FOUND)
			return NOT_FOUND;
		if (p->src[i - 1] == lead)
			return i - 1;
	}
}

/* The location of the tag at [start, end), underlined up to its end or
 * the end of its line, whichever comes first. */
static struct loc loc_at(struct parser *p, size_t start, size_t end)
{
	for (; p->counted < start; p->counted++) {
		if (p->src[p->counted] == '\n') {
			p->line++;
			p->line_start = p->counted + 1;
		}
	}
	const char *nl = memchr(p->src + start, '\n', end - start);
	size_t width = nl ? (size_t)(nl - (p->src + start)) : end - start;
	if (width > 200)
		width = 200;
	struct loc at = {p->m->file, p->line, (int)(start - p->line_start) + 1 - p->col_shift,
			 (int)width};
	if (at.col < 1)
		at.col = 1;
	return at;
}

/* Whether only spaces and tabs come before the tag at open on its line;
 * then *ls is where the line starts. */
static bool left_clean(const struct parser *p, size_t open, size_t *ls)
{
	const char *s = p->src;
	size_t i = open;
	while (i > p->pos && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	/* Delimiters never contain whitespace, so a tag earlier on the line
	 * stops the walk before a newline is seen. */
	if (i > 0 && s[i - 1] != '\n')
		return false;
	*ls = i;
	return true;
}

/* Whether only spaces and tabs follow a tag ending at end on its line;
 * then *next is just past the line's end. */
static bool right_clean(const struct parser *p, size_t end, size_t *next)
{
	const char *s = p->src;
	size_t j = end;
	while (j < p->len && (s[j] == ' ' || s[j] == '\t'))
		j++;
	if (j + 1 < p->len && s[j] == '\r' && s[j + 1] == '\n')
		j += 2;
	else if (j < p->len && s[j] == '\n')
		j++;
	else if (j != p->len)
		return false;
	*next = j;
	return true;
}

/* A tag is standalone when only spaces and tabs share its line.  Then
 * *ls is where its line starts and *next is just past the line's end. */
static bool standalone(const struct parser *p, size_t open, size_t end, size_t *ls, size_t *next)
{
	return left_clean(p, open, ls) && right_clean(p, end, next);
}

/* The spaces and tabs that start the line at ls. */
static struct span line_indent(const struct parser *p, size_t ls)
{
	size_t j = ls;
	while (j < p->len && (p->src[j] == ' ' || p->src[j] == '\t'))
		j++;
	return (struct span){p->src + ls, j - ls};
}

/* How many bytes of dedent start src[from, to), which starts a line. */
static size_t undent_len(struct span dedent, const char *src, size_t from, size_t to)
{
	size_t k = 0;
	while (k < dedent.len && from + k < to && src[from + k] == dedent.p[k])
		k++;
	return k;
}

/* A copy of the indentation src[ls, to) without the innermost frame's
 * dedent. */
static char *undented(const struct parser *p, size_t ls, size_t to)
{
	size_t k = undent_len(p->frames[p->nframes - 1].dedent, p->src, ls, to);
	return xstrndup(p->src + ls + k, to - ls - k);
}

static void split_name(struct node *nd)
{
	if (strcmp(nd->name, ".") == 0)
		return;
	size_t n = 1;
	for (const char *c = nd->name; *c; c++)
		n += *c == '.';
	nd->parts = xcalloc(n, sizeof *nd->parts);
	const char *start = nd->name;
	for (;;) {
		const char *dot = strchr(start, '.');
		size_t len = dot ? (size_t)(dot - start) : strlen(start);
		nd->parts[nd->nparts++] = xstrndup(start, len);
		if (!dot)
			break;
		start = dot + 1;
	}
}

/* The tag as the author would write it with the current delimiters, for
 * messages: "{{/name}}". */
static char *tag_text(const struct parser *p, const char *sigil, const char *name)
{
	return xasprintf("%.*s%s%s%.*s", (int)p->otag.len, p->otag.p, sigil, name,
			 (int)p->ctag.len, p->ctag.p);
}

/* Parses the content of {{=<% %>=}} into new delimiters. */
static bool set_delimiters(struct parser *p, size_t from, size_t to, struct loc at)
{
	const char *s = p->src;
	struct span d[2];
	size_t i = from, n = 0;
	for (;;) {
		while (i < to && is_space(s[i]))
			i++;
		if (i == to)
			break;
		size_t start = i;
		while (i < to && !is_space(s[i]))
			i++;
		if (n == 2) {
			n++;
			break;
		}
		d[n].p = s + start;
		d[n].len = i - start;
		n++;
	}
	if (n != 2) {
		report(p->d, p->m, false, at,
		       "a set-delimiter tag needs two delimiters separated by a space, as in {{=<%% %%>=}}");
		return false;
	}
	p->otag = d[0];
	p->ctag = d[1];
	return true;
}

static void frame_release(struct frame *f)
{
	node_release(&f->head);
	nodes_free(f->body.v, f->body.n);
}

/* What a tag opens, for messages. */
static const char *kind_word(enum node_kind kind)
{
	switch (kind) {
	case NODE_BLOCK:
		return "block";
	case NODE_PARENT:
		return "parent";
	default:
		return "section";
	}
}

/* Opens a frame for nd (taken over).  Returns NULL after reporting, when
 * frames would nest too deep. */
static struct frame *open_frame(struct parser *p, struct node *nd, struct loc at)
{
	if (p->nframes > MUSTACHE_MAX_NESTING) {
		if (nd->kind == NODE_SECTION || nd->kind == NODE_INVERTED)
			report(p->d, p->m, false, at, "sections nest more than %d deep",
			       MUSTACHE_MAX_NESTING);
		else
			report(p->d, p->m, false, at,
			       "sections, blocks and parents nest more than %d deep",
			       MUSTACHE_MAX_NESTING);
		node_release(nd);
		return NULL;
	}
	/* frames has room for MUSTACHE_MAX_NESTING + 1 entries. */
	struct frame *f = &p->frames[p->nframes];
	memset(f, 0, sizeof *f);
	f->head = *nd;
	f->dedent = p->frames[p->nframes - 1].dedent;
	p->nframes++;
	return f;
}

/* Checks that a closing tag names the innermost open frame. */
static bool check_close(struct parser *p, const char *name, struct loc at)
{
	if (p->nframes == 1) {
		char *t = tag_text(p, "/", name);
		report(p->d, p->m, false, at, "%s closes a section that was never opened", t);
		free(t);
		return false;
	}
	struct frame *f = &p->frames[p->nframes - 1];
	if (strcmp(f->head.name, name) != 0) {
		const char *kind = kind_word(f->head.kind);
		char *t = tag_text(p, "/", name);
		char *want = tag_text(p, "/", f->head.name);
		report(p->d, p->m, false, at, "%s does not match the open %s '%s' (expected %s)", t,
		       kind, f->head.name, want);
		report(p->d, p->m, true, f->head.loc, "%s '%s' was opened here", kind, f->head.name);
		free(t);
		free(want);
		return false;
	}
	return true;
}

/* Closes the innermost frame and returns its node.  A parent keeps only
 * the blocks written directly in it, its arguments. */
static struct node pop_frame(struct parser *p)
{
	struct frame *f = &p->frames[--p->nframes];
	struct node nd = f->head;
	if (nd.kind == NODE_PARENT) {
		size_t n = 0;
		for (size_t i = 0; i < f->body.n; i++) {
			if (f->body.v[i].kind == NODE_BLOCK)
				f->body.v[n++] = f->body.v[i];
			else
				node_release(&f->body.v[i]);
		}
		f->body.n = n;
	}
	nd.kids = f->body.v;
	nd.nkids = f->body.n;
	return nd;
}

static void push_span(struct parser *p, size_t from, size_t to)
{
	if (to <= from)
		return;
	struct node nd = {.kind = NODE_TEXT, .text = {p->src + from, to - from}};
	nodes_push(&p->frames[p->nframes - 1].body, &nd);
}

/* Adds the text src[from, to) to the innermost frame, without the
 * frame's dedent at the start of each line.  Text directly inside a
 * parent is dropped. */
static void push_text(struct parser *p, size_t from, size_t to)
{
	const struct frame *f = &p->frames[p->nframes - 1];
	if (f->head.kind == NODE_PARENT)
		return;
	if (!f->dedent.len) {
		push_span(p, from, to);
		return;
	}
	size_t start = from;
	for (size_t i = from; i < to;) {
		if (i == 0 || p->src[i - 1] == '\n') {
			size_t k = undent_len(f->dedent, p->src, i, to);
			if (k) {
				push_span(p, start, i);
				i += k;
				start = i;
			}
		}
		const char *nl = memchr(p->src + i, '\n', to - i);
		if (!nl)
			break;
		i = (size_t)(nl - p->src) + 1;
	}
	push_span(p, start, to);
}

/* Parses the name in a tag's content src[from, to) into nd->name.
 * Returns false after reporting an empty name or one with a space or a
 * NUL byte in it. */
static bool parse_name(struct parser *p, size_t from, size_t to, char sigil, char lead,
		       struct loc at, struct node *nd)
{
	const char *s = p->src;
	size_t a = from, b = to;
	while (a < b && is_space(s[a]))
		a++;
	while (b > a && is_space(s[b - 1]))
		b--;
	nd->name = xstrndup(s + a, b - a);
	if (a == b || strlen(nd->name) != b - a) {
		char sig[3] = {sigil, lead == '}' ? '}' : '\0', '\0'};
		char *t = tag_text(p, sig, "");
		if (a == b)
			report(p->d, p->m, false, at, "empty tag name in %s", t);
		else
			report(p->d, p->m, false, at, "tag name contains a NUL byte");
		free(t);
		free(nd->name);
		nd->name = NULL;
		return false;
	}
	for (size_t i = a; i < b; i++) {
		if (is_space(s[i])) {
			report(p->d, p->m, false, at, "tag name '%s' contains a space", nd->name);
			free(nd->name);
			nd->name = NULL;
			return false;
		}
	}
	return true;
}

/* Handles a closing tag.  end is just past the tag. */
static bool close_tag(struct parser *p, size_t open, size_t end, char *name, struct loc at)
{
	bool ok = check_close(p, name, at);
	free(name);
	if (!ok)
		return false;
	struct frame *f = &p->frames[p->nframes - 1];
	size_t text_end = open, next = end, ls;
	if (f->head.kind == NODE_PARENT) {
		/* Standalone when the opening tag starts its line and this tag
		 * ends its own, even on the same line: the spaces before the
		 * opening tag are then its indentation and the rest of this
		 * line goes. */
		bool alone = f->left_clean && right_clean(p, end, &next);
		size_t lead_from = f->lead_from, lead_to = f->lead_to;
		struct node nd = pop_frame(p);
		if (alone) {
			nd.indent = undented(p, lead_from, lead_to);
		} else {
			nd.indent = xstrdup("");
			push_text(p, lead_from, lead_to);
			next = end;
		}
		nodes_push(&p->frames[p->nframes - 1].body, &nd);
		p->pos = next;
		return true;
	}
	if (f->head.kind == NODE_BLOCK && p->frames[p->nframes - 2].head.kind == NODE_PARENT) {
		/* An argument ends where its line's indentation starts; what
		 * follows is in the parent, where text is dropped. */
		if (left_clean(p, open, &ls))
			text_end = ls;
	} else if (standalone(p, open, end, &ls, &next)) {
		text_end = ls;
	}
	push_text(p, p->pos, text_end);
	struct node nd = pop_frame(p);
	nodes_push(&p->frames[p->nframes - 1].body, &nd);
	p->pos = next;
	return true;
}

/* Handles {{$name}}, as an argument when directly in a parent and else
 * as a parameter.  end is just past the tag. */
static bool open_block(struct parser *p, size_t open, size_t end, struct node *nd, struct loc at)
{
	const struct frame *up = &p->frames[p->nframes - 1];
	struct span dedent = up->dedent;
	size_t pos = end, next, ls;
	nd->kind = NODE_BLOCK;
	if (up->head.kind == NODE_PARENT) {
		/* An argument whose tag ends its line starts on the next line,
		 * whose indentation is removed from each of its lines. */
		nd->indent = xstrdup("");
		if (right_clean(p, end, &next)) {
			pos = next;
			dedent = line_indent(p, next);
		}
	} else if (standalone(p, open, end, &ls, &next)) {
		/* A parameter alone on its line: arguments start a line and
		 * take the indentation of the line after it. */
		push_text(p, p->pos, ls);
		struct span ws = line_indent(p, next);
		nd->indent = undented(p, next, next + ws.len);
		nd->own_line = true;
		pos = next;
	} else {
		/* Only spaces before it on its line: they stay, and indent the
		 * argument's later lines. */
		push_text(p, p->pos, open);
		nd->indent = left_clean(p, open, &ls) ? undented(p, ls, open) : xstrdup("");
	}
	struct frame *f = open_frame(p, nd, at);
	if (!f)
		return false;
	f->dedent = dedent;
	p->pos = pos;
	return true;
}

/* Compiles one tag starting at open.  Returns false after reporting an
 * error. */
static bool parse_tag(struct parser *p, size_t open)
{
	const char *s = p->src;
	size_t c = open + p->otag.len;
	char sigil = c < p->len ? s[c] : '\0';
	char lead = sigil == '{' ? '}' : sigil == '=' ? '=' : '\0';
	bool has_sigil = sigil && strchr("#^/!>&{=<$", sigil);
	size_t from = has_sigil ? c + 1 : c;

	size_t to = find_close(p, from, lead);
	if (to == NOT_FOUND) {
		struct loc at = loc_at(p, open, open + p->otag.len);
		report(p->d, p->m, false, at, "unterminated tag: no closing '%s%.*s'",
		       lead == '}' ? "}" : lead == '=' ? "=" : "", (int)p->ctag.len, p->ctag.p);
		return false;
	}
	size_t end = to + (lead ? 1 : 0) + p->ctag.len;
	struct loc at = loc_at(p, open, end);
	size_t text_end = open, next = end, ls;

	if (sigil == '!' || sigil == '=') {
		if (standalone(p, open, end, &ls, &next))
			text_end = ls;
		push_text(p, p->pos, text_end);
		if (sigil == '=' && !set_delimiters(p, from, to, at))
			return false;
		p->pos = next;
		return true;
	}

	struct node nd = {.loc = at};
	if (!parse_name(p, from, to, has_sigil ? sigil : '\0', lead, at, &nd))
		return false;
	switch (sigil) {
	case '/':
		return close_tag(p, open, end, nd.name, at);
	case '$':
		return open_block(p, open, end, &nd, at);
	case '<': {
		/* Whether it is standalone is known at its closing tag. */
		nd.kind = NODE_PARENT;
		bool clean = left_clean(p, open, &ls);
		push_text(p, p->pos, clean ? ls : open);
		struct frame *f = open_frame(p, &nd, at);
		if (!f)
			return false;
		f->left_clean = clean;
		f->lead_from = clean ? ls : open;
		f->lead_to = open;
		p->pos = end;
		return true;
	}
	case '#':
	case '^':
		if (standalone(p, open, end, &ls, &next))
			text_end = ls;
		push_text(p, p->pos, text_end);
		split_name(&nd);
		nd.kind = sigil == '#' ? NODE_SECTION : NODE_INVERTED;
		if (!open_frame(p, &nd, at))
			return false;
		p->pos = next;
		return true;
	case '>':
		nd.kind = NODE_PARTIAL;
		/* A standalone partial's indentation prefixes its lines. */
		if (standalone(p, open, end, &ls, &next)) {
			text_end = ls;
			nd.indent = undented(p, ls, open);
		} else {
			nd.indent = xstrdup("");
		}
		break;
	case '&':
	case '{':
		nd.kind = NODE_RAW;
		split_name(&nd);
		break;
	default:
		nd.kind = NODE_VAR;
		split_name(&nd);
		break;
	}
	push_text(p, p->pos, text_end);
	nodes_push(&p->frames[p->nframes - 1].body, &nd);
	p->pos = next;
	return true;
}

/* Compiles src (taken over by the new template) with delimiters reset to
 * the defaults.  col_shift is subtracted from reported columns. */
static struct mustache *compile_src(const char *file, char *src, size_t len, char *orig,
				    size_t orig_len, int col_shift, struct diag *d)
{
	struct mustache *m = xcalloc(1, sizeof *m);
	m->file = file;
	m->src = src;
	m->len = len;
	m->orig = orig;
	m->orig_len = orig_len;

	struct parser p = {
		.m = m,
		.src = src,
		.len = len,
		.d = d,
		.otag = {"{{", 2},
		.ctag = {"}}", 2},
		.line = 1,
		.col_shift = col_shift,
	};
	p.frames = xcalloc(MUSTACHE_MAX_NESTING + 1, sizeof *p.frames);
	p.nframes = 1;
	bool ok = true;
	while (ok && p.pos < len) {
		size_t open = find(src, len, p.pos, p.otag);
		if (open == NOT_FOUND) {
			push_text(&p, p.pos, len);
			p.pos = len;
			break;
		}
		ok = parse_tag(&p, open);
	}
	if (ok && p.nframes > 1) {
		struct frame *f = &p.frames[p.nframes - 1];
		char *t = tag_text(&p, "/", f->head.name);
		report(d, m, false, f->head.loc, "%s '%s' is never closed (add %s)",
		       kind_word(f->head.kind), f->head.name, t);
		free(t);
		ok = false;
	}
	if (ok) {
		m->nodes = p.frames[0].body.v;
		m->nnodes = p.frames[0].body.n;
	} else {
		nodes_free(p.frames[0].body.v, p.frames[0].body.n);
		for (size_t i = 1; i < p.nframes; i++)
			frame_release(&p.frames[i]);
		mustache_free(m);
		m = NULL;
	}
	free(p.frames);
	return m;
}

struct mustache *mustache_compile(const char *file, const char *text, size_t len, struct diag *d)
{
	if (!text)
		len = 0;
	return compile_src(file, xstrndup(text ? text : "", len), len, NULL, 0, 0, d);
}

/* Compiles a partial's text with indent in front of each of its lines. */
static struct mustache *compile_partial(const char *name, const char *text, size_t len,
					const char *indent, struct diag *d)
{
	struct buf b = BUF_INIT;
	size_t ilen = strlen(indent);
	size_t start = 0;
	/* Every line gets the indentation, empty ones included, but not the
	 * nothing after a final newline. */
	for (size_t i = 0; i < len; i++) {
		if (i == start)
			buf_put(&b, indent, ilen);
		if (text[i] == '\n') {
			buf_put(&b, text + start, i + 1 - start);
			start = i + 1;
		}
	}
	buf_put(&b, text + start, len - start);
	size_t n = b.len;
	return compile_src(name, buf_detach(&b), n, xstrndup(text, len), len, (int)ilen, d);
}

/* One level of the context stack, kept on the C stack while rendering. */
struct ctx {
	const struct value *v;
	const struct ctx *up;
};

/* The arguments in force while a parent renders: those of its tag, then
 * those in force where the tag was written.  Kept on the C stack. */
struct args {
	const struct node *parent;  /* NODE_PARENT: its kids are the arguments */
	const struct mustache *tpl; /* the template the tag is in */
	const struct args *up;
};

struct render {
	struct mustache *root;
	mustache_loader load;
	void *load_ctx;
	struct buf *out;
	struct diag *d;
	int depth;
	/* Added to each line of template text while arguments render in
	 * place of indented parameters. */
	struct buf indent;
	/* The last template text rendered ended a line. */
	bool bol;
	/* Bytes written that count against limit template_bytes: all but
	 * a big value's first showing (a page's content is not the
	 * template's), and the limit.  A "billion laughs" of partials that
	 * each include the next ten times stops here, at once. */
	size_t counted;
	size_t max;
	/* Values of 64 KB and more shown so far, shown again counted. */
	const struct value **big;
	size_t nbig;
	bool over;
};

#define BIG_VALUE 65536

/* Resolves a name: its first part in the nearest map on the stack that
 * has it as a key, the other parts in that value alone. */
static const struct value *lookup(const struct ctx *c, const struct node *nd)
{
	if (nd->nparts == 0)
		return c->v;
	for (; c; c = c->up)
		if (value_index(c->v, nd->parts[0]) >= 0)
			break;
	if (!c)
		return NULL;
	const struct value *v = value_get(c->v, nd->parts[0]);
	for (size_t i = 1; v && i < nd->nparts; i++)
		v = value_get(v, nd->parts[i]);
	return v;
}

static void put_value(struct buf *out, const struct value *v, bool escape)
{
	if (!v)
		return;
	if (v->kind == VALUE_NUMBER)
		number_put(out, v->number); /* no characters that need escaping */
	else if (v->kind == VALUE_STRING && escape)
		buf_put_html(out, v->text, v->len);
	else
		value_put_text(out, v);
}

/* Template text, with the current indentation at the start of each of
 * its lines. */
static void emit_text(struct render *r, const char *s, size_t n)
{
	if (!n)
		return;
	r->counted += n + (r->bol ? r->indent.len : 0);
	if (!r->indent.len) {
		buf_put(r->out, s, n);
		r->bol = s[n - 1] == '\n';
		return;
	}
	while (n) {
		if (r->bol)
			buf_put(r->out, r->indent.data, r->indent.len);
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) + 1 : n;
		buf_put(r->out, s, k);
		r->bol = nl != NULL;
		s += k;
		n -= k;
	}
}

/* A value, after the current indentation when it starts a line.  Its own
 * newlines are not indented. */
static void emit_value(struct render *r, const struct value *v, bool escape)
{
	struct buf *out = r->out;
	size_t before = out->len;
	if (r->bol && r->indent.len)
		buf_put(out, r->indent.data, r->indent.len);
	size_t mark = out->len;
	put_value(out, v, escape);
	size_t n = out->len - before;
	if (n >= BIG_VALUE) {
		bool again = false;
		for (size_t i = 0; i < r->nbig && !again; i++)
			again = r->big[i] == v;
		if (!again) {
			r->big = xrealloc(r->big, (r->nbig + 1) * sizeof *r->big);
			r->big[r->nbig++] = v;
			n = 0;
		}
	}
	r->counted += n;
	if (out->len != mark) {
		r->bol = false;
	} else if (out->len != before) {
		/* Nothing to indent after all. */
		out->len = before;
		out->data[before] = '\0';
	}
}

static bool render_nodes(struct render *r, const struct mustache *tpl, const struct node *nodes,
			 size_t n, const struct ctx *c, const struct args *args);

/* The cached partial or parent for nd, loading and compiling it on first
 * use.  Returns NULL when it fails to compile. */
static struct partial *partial_get(struct render *r, const struct mustache *tpl,
				   const struct node *nd)
{
	struct mustache *root = r->root;
	for (size_t i = 0; i < root->npartials; i++) {
		struct partial *pt = root->partials[i];
		if (strcmp(pt->name, nd->name) == 0 && strcmp(pt->indent, nd->indent) == 0)
			return pt->failed ? NULL : pt;
	}
	struct partial *pt = xcalloc(1, sizeof *pt);
	pt->name = xstrdup(nd->name);
	pt->indent = xstrdup(nd->indent);
	root->partials = xrealloc(root->partials, (root->npartials + 1) * sizeof *root->partials);
	root->partials[root->npartials++] = pt;

	struct buf text = BUF_INIT;
	if (r->load && r->load(r->load_ctx, pt->name, &text)) {
		pt->tpl = compile_partial(pt->name, buf_data(&text), text.len, pt->indent, r->d);
		if (!pt->tpl) {
			/* Reported once: later renders fail quietly. */
			pt->failed = true;
			report(r->d, tpl, true, nd->loc, "in %s '%s' included here",
			       nd->kind == NODE_PARENT ? "parent" : "partial", nd->name);
		}
	}
	buf_free(&text);
	return pt->failed ? NULL : pt;
}

/* A partial, or a parent with its arguments in force before args.  A
 * partial is a parent without arguments: those in force pass through. */
static bool render_partial(struct render *r, const struct mustache *tpl, const struct node *nd,
			   const struct ctx *c, const struct args *args)
{
	if (r->depth >= MUSTACHE_MAX_PARTIAL_DEPTH) {
		const char *kind = nd->kind == NODE_PARENT ? "parent" : "partial";
		report(r->d, tpl, false, nd->loc,
		       "%ss nest more than %d deep (does %s '%s' include itself?)", kind,
		       MUSTACHE_MAX_PARTIAL_DEPTH, kind, nd->name);
		return false;
	}
	struct partial *pt = partial_get(r, tpl, nd);
	if (!pt)
		return false;
	if (!pt->tpl)
		return true; /* no such partial: nothing, as the spec says */
	struct args top = {nd, tpl, args};
	r->depth++;
	bool ok = render_nodes(r, pt->tpl, pt->tpl->nodes, pt->tpl->nnodes, c,
			       nd->kind == NODE_PARENT ? &top : args);
	r->depth--;
	return ok;
}

/* A parameter: the outermost argument for it, or its default content. */
static bool render_block(struct render *r, const struct mustache *tpl, const struct node *nd,
			 const struct ctx *c, const struct args *args)
{
	const struct args *from = NULL;
	const struct node *arg = NULL;
	for (const struct args *a = args; a; a = a->up) {
		const struct node *parent = a->parent;
		/* The last of two arguments with one name wins. */
		for (size_t i = parent->nkids; i-- > 0;) {
			if (strcmp(parent->kids[i].name, nd->name) == 0) {
				from = a;
				arg = &parent->kids[i];
				break;
			}
		}
	}
	if (!arg)
		return render_nodes(r, tpl, nd->kids, nd->nkids, c, args);
	if (r->depth >= MUSTACHE_MAX_PARTIAL_DEPTH) {
		report(r->d, tpl, false, nd->loc,
		       "partials, parents and blocks nest more than %d deep at block '%s'",
		       MUSTACHE_MAX_PARTIAL_DEPTH, nd->name);
		return false;
	}
	size_t saved = r->indent.len, start = r->out->len;
	buf_puts(&r->indent, nd->indent);
	if (nd->own_line)
		r->bol = true;
	r->depth++;
	/* In this context, with the arguments in force where it was written. */
	bool ok = render_nodes(r, from->tpl, arg->kids, arg->nkids, c, from->up);
	r->depth--;
	r->indent.len = saved;
	if (r->indent.data)
		r->indent.data[saved] = '\0';
	/* A parameter on lines of its own is replaced by whole lines, even
	 * by an argument written inline: {{$body}}<p>..</p>{{/body}}. */
	if (ok && nd->own_line && r->out->len > start && r->out->data[r->out->len - 1] != '\n') {
		buf_putc(r->out, '\n');
		r->bol = true;
	}
	return ok;
}

static bool render_nodes(struct render *r, const struct mustache *tpl, const struct node *nodes,
			 size_t n, const struct ctx *c, const struct args *args)
{
	for (size_t i = 0; i < n; i++) {
		const struct node *nd = &nodes[i];
		const struct value *v;
		if (r->counted > r->max) {
			if (!r->over)
				report(r->d, tpl, false, nd->loc,
				       "the page grows past %zu bytes of template text here: does a "
				       "partial include others many times over? (%s)",
				       r->max, limit_hint(LIMIT_TEMPLATE_BYTES));
			r->over = true;
			return false;
		}
		switch (nd->kind) {
		case NODE_TEXT:
			emit_text(r, nd->text.p, nd->text.len);
			break;
		case NODE_VAR:
		case NODE_RAW:
			emit_value(r, lookup(c, nd), nd->kind == NODE_VAR);
			break;
		case NODE_SECTION:
			v = lookup(c, nd);
			if (!value_truthy(v))
				break;
			if (v->kind == VALUE_LIST) {
				/* Each item in turn on top of the stack. */
				for (size_t j = 0; j < v->count; j++) {
					struct ctx top = {v->items[j], c};
					if (!render_nodes(r, tpl, nd->kids, nd->nkids, &top, args))
						return false;
				}
			} else {
				struct ctx top = {v, c};
				if (!render_nodes(r, tpl, nd->kids, nd->nkids, &top, args))
					return false;
			}
			break;
		case NODE_INVERTED:
			if (!value_truthy(lookup(c, nd)) &&
			    !render_nodes(r, tpl, nd->kids, nd->nkids, c, args))
				return false;
			break;
		case NODE_PARTIAL:
		case NODE_PARENT:
			if (!render_partial(r, tpl, nd, c, args))
				return false;
			break;
		case NODE_BLOCK:
			if (!render_block(r, tpl, nd, c, args))
				return false;
			break;
		}
	}
	return true;
}

/* mustache_prepare()'s walk: every partial and parent tpl's nodes can
 * reach, at any data, loaded and compiled into root's cache.  False at
 * the first one the loader has not, that does not compile, or past the
 * nesting limit (a partial that includes itself). */
static bool prepare_nodes(struct mustache *root, const struct node *nodes, size_t n,
			  mustache_loader load, void *ctx, int depth)
{
	if (depth >= MUSTACHE_MAX_PARTIAL_DEPTH)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct node *nd = &nodes[i];
		/* sections' bodies, blocks' defaults and parents' arguments */
		if (!prepare_nodes(root, nd->kids, nd->nkids, load, ctx, depth + 1))
			return false;
		if (nd->kind != NODE_PARTIAL && nd->kind != NODE_PARENT)
			continue;
		struct render r = {.root = root, .load = load, .load_ctx = ctx};
		struct partial *pt = partial_get(&r, root, nd);
		if (!pt || !pt->tpl)
			return false;
		/* each once: a partial included ten times in one included
		 * ten times is walked once, and one that includes itself
		 * is left to the render's limit, which reports it */
		if (pt->walked)
			continue;
		pt->walked = true;
		if (!prepare_nodes(root, pt->tpl->nodes, pt->tpl->nnodes, load, ctx, depth + 1))
			return false;
	}
	return true;
}

bool mustache_prepare(struct mustache *m, mustache_loader load, void *ctx)
{
	if (!m)
		return false;
	size_t before = m->npartials;
	for (size_t i = 0; i < before; i++)
		m->partials[i]->walked = false;
	if (prepare_nodes(m, m->nodes, m->nnodes, load, ctx, 0))
		return true;
	/* as it was: the renders load, compile and report as before */
	for (size_t i = before; i < m->npartials; i++) {
		struct partial *pt = m->partials[i];
		mustache_free(pt->tpl);
		free(pt->name);
		free(pt->indent);
		free(pt);
	}
	m->npartials = before;
	return false;
}

bool mustache_render_prepared(const struct mustache *m, const struct value *data,
			      struct buf *out, struct diag *d)
{
	/* prepared: partial_get() finds every partial in the cache, and
	 * neither loads nor changes it */
	return mustache_render((struct mustache *)m, data, NULL, NULL, out, d);
}

bool mustache_render(struct mustache *m, const struct value *data, mustache_loader load,
		     void *ctx, struct buf *out, struct diag *d)
{
	assert(out);
	if (!m)
		return false;
	struct render r = {m, load, ctx, out, d, 0, BUF_INIT, true, 0,
			   (size_t)limit_get(LIMIT_TEMPLATE_BYTES), NULL, 0, false};
	struct ctx top = {data, NULL};
	bool ok = render_nodes(&r, m, m->nodes, m->nnodes, &top, NULL);
	buf_free(&r.indent);
	free(r.big);
	return ok;
}
