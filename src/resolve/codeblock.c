/* codeblock.c: a fenced code block's info string read (codeblock.h):
 * its language, coloured by highlight.c, its line numbers and its
 * highlighted lines. */
#include "resolve/codeblock.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/attrs.h"
#include "resolve/highlight.h"

static const char *const keys[] = {"class", "startFrom", "linenums", "hl_lines", NULL};
static const char *const classes[] = {"numberLines", NULL};

/* A first line number past this is a typo, not a listing's place. */
#define MAX_START 999999999L

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

/* Moves the items of from to the end of to. */
static void take_items(struct attrs *to, struct attrs *from)
{
	if (!from->n)
		return;
	to->items = xrealloc(to->items, (to->n + from->n + 1) * sizeof *to->items);
	memcpy(to->items + to->n, from->items, from->n * sizeof *from->items);
	to->n += from->n;
	free(from->items);
	*from = (struct attrs){0};
}

/* Whether a bare item after the language ("numberLines",
 * "hl_lines=...") makes the rest attributes: else the words stay
 * ignored, as they were before attributes were read. */
static bool bare_item(const char *s, const char *e)
{
	const char *k = s;
	while (k < e && name_char(*k))
		k++;
	size_t n = (size_t)((k < e && *k == '=' ? k : e) - s);
	if (k < e && *k != '=')
		return false;
	for (size_t i = 0; keys[i]; i++)
		if (k < e && i > 0 && strlen(keys[i]) == n && memcmp(keys[i], s, n) == 0)
			return true;
	for (size_t i = 0; classes[i]; i++)
		if (k == e && strlen(classes[i]) == n && memcmp(classes[i], s, n) == 0)
			return true;
	return false;
}

/* The next word of s..end, after blanks: its start (end when none),
 * and in *e its end; a quoted part (" or ') is kept whole. */
static const char *next_word(const char *s, const char *end, const char **e)
{
	while (s < end && blank(*s))
		s++;
	const char *p = s;
	char q = 0;
	while (p < end && (q || !blank(*p))) {
		if (q && *p == q)
			q = 0;
		else if (!q && (*p == '"' || *p == '\''))
			q = *p;
		p++;
	}
	*e = p;
	return s;
}

/* Whether every item of s..end is one bare_item() knows (quotes kept
 * whole): GFM leaves the words after the language to the author
 * ("```ruby startline=3 $%@#$"), so anything else leaves them all. */
static bool bare_items(const char *s, const char *end)
{
	while (s < end) {
		const char *e;
		s = next_word(s, end, &e);
		if (s >= end)
			break;
		if (!bare_item(s, e))
			return false;
		s = e;
	}
	return true;
}

/* The bare form "numberLines hl_lines="1 3-5"": each item read as if
 * braced ("{.numberLines}", "{hl_lines="1 3-5"}"), at its own column. */
static bool bare_attrs(const char *s, const char *end, struct loc at, struct diag *d,
		       struct attrs *out)
{
	const char *s0 = s;
	bool ok = true;
	while (s < end) {
		const char *e;
		s = next_word(s, end, &e);
		if (s >= end)
			break;
		struct loc iat = at;
		iat.col = at.col + (int)(s - s0);
		iat.len = (int)(e - s);
		bool word = !memchr(s, '=', (size_t)(e - s)) && *s != '.' && *s != '#';
		char *one = xasprintf("{%s%.*s}", word ? "." : "", (int)(e - s), s);
		/* where "{" would stand, so that an error inside the item
		 * lands on its column */
		struct loc bat = iat;
		bat.col -= word ? 2 : 1;
		struct attrs a;
		const char *after;
		enum attrs_result r = attrs_parse(one, one + strlen(one), bat, d, &a, &after);
		free(one);
		if (r == ATTRS_NONE) {
			diag_error(d, iat, "'%.*s' is not an attribute: write #id, .class or key=value",
				   (int)(e - s), s);
			ok = false;
		} else {
			ok = ok && r == ATTRS_OK;
			for (size_t i = 0; i < a.n; i++) {
				a.items[i].col = iat.col;
				a.items[i].len = iat.len;
			}
			take_items(out, &a);
		}
		attrs_free(&a);
		s = e;
	}
	return ok;
}

/* hl_lines="1 3-5" (spaces or commas between) into b->marked.  vat:
 * the value's first byte. */
static bool read_marked(struct code_block *b, const char *v, struct loc vat, struct diag *d)
{
	bool ok = true;
	if (!b->marked)
		b->marked = xcalloc(b->nlines + 1, 1);
	const char *p = v;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != ' ' && *p != '\t' && *p != ',')
			p++;
		struct loc tat = vat;
		tat.col = vat.col + (int)(s - v);
		tat.len = (int)(p - s);
		long lo = 0, hi = 0;
		const char *q = s;
		int digits = 0;
		while (q < p && *q >= '0' && *q <= '9') {
			if (lo < MAX_START)
				lo = lo * 10 + (*q - '0');
			q++, digits++;
		}
		hi = lo;
		if (digits && q < p && *q == '-') {
			q++;
			hi = 0;
			digits = 0;
			while (q < p && *q >= '0' && *q <= '9') {
				if (hi < MAX_START)
					hi = hi * 10 + (*q - '0');
				q++, digits++;
			}
		}
		if (!digits || q != p) {
			diag_error(d, tat,
				   "hl_lines: '%.*s' is not a line or a range of lines, as in "
				   "hl_lines=\"1 3-5\"",
				   (int)(p - s), s);
			ok = false;
			continue;
		}
		if (lo == 0 || hi == 0) {
			diag_error(d, tat, "hl_lines: a code block's lines count from 1");
			ok = false;
			continue;
		}
		if (hi < lo) {
			diag_error(d, tat, "hl_lines: the range %ld-%ld runs backwards (write %ld-%ld)",
				   lo, hi, hi, lo);
			ok = false;
			continue;
		}
		if ((size_t)hi > b->nlines)
			diag_warning(d, tat,
				     "hl_lines: the block has %zu line%s; line %ld is past its end",
				     b->nlines, b->nlines == 1 ? "" : "s",
				     (size_t)lo > b->nlines ? lo : (long)b->nlines + 1);
		for (long k = lo; k <= hi && (size_t)k <= b->nlines; k++)
			b->marked[k - 1] = 1;
	}
	return ok;
}

/* The column of an attribute's value: after key=, and its quote. */
static struct loc value_at(const struct attr *a, struct loc at)
{
	size_t klen = strlen(a->key), vlen = strlen(a->value);
	at.col = a->col + (int)klen + 1 + ((size_t)a->len > klen + 1 + vlen ? 1 : 0);
	at.len = (int)vlen;
	return at;
}

/* The language fence: coloured, or a warning when logdown has none. */
static void colour(struct code_block *b, const char *code, struct loc lat, struct diag *d)
{
	bool plain;
	const struct hl_lang *l = hl_find(b->lang, &plain);
	if (!l) {
		if (plain)
			return;
		const char *near = closest_name(b->lang, hl_names());
		if (near)
			diag_warning(d, lat,
				     "unknown language '%s': shown as plain text (did you mean '%s'?)",
				     b->lang, near);
		else
			diag_warning(d, lat,
				     "unknown language '%s': shown as plain text (docs/manual.md "
				     "lists the languages logdown colours)",
				     b->lang);
		return;
	}
	const char *stop;
	int stop_line;
	b->classes = hl_classes(l, code, strlen(code), &stop, &stop_line);
	if (stop) {
		struct loc sat = {lat.file, lat.line + stop_line, 1, 0};
		diag_warning(d, sat,
			     "code highlighting stopped here: a pattern of the language hit %s; the "
			     "rest of the block is plain",
			     stop);
	}
}

struct code_block *code_block_read(const char *info, const char *code, struct loc at,
				   struct diag *d)
{
	if (!info || !*info)
		return NULL;
	struct code_block *b = xcalloc(1, sizeof *b);
	b->start = 1;
	for (const char *p = code; *p; p++)
		b->nlines += *p == '\n';
	if (*code && code[strlen(code) - 1] != '\n')
		b->nlines++;
	const char *end = info + strlen(info);
	struct attrs a = {0};
	struct loc lat = at;
	bool has_attrs = false;
	const char *lang_class = NULL; /* in a, when the language is {.python} */
	if (*info == '{') {
		const char *after;
		enum attrs_result r = attrs_parse(info, end, at, d, &a, &after);
		has_attrs = r != ATTRS_NONE;
		for (size_t i = 0; i < a.n && !lang_class; i++) {
			const struct attr *it = &a.items[i];
			if (strcmp(it->key, "class") == 0 && strcmp(it->value, "numberLines") != 0) {
				lang_class = it->value;
				b->lang = xstrdup(it->value);
				lat.col = it->col + 1;
				lat.len = it->len - 1;
			}
		}
	} else {
		size_t n = strcspn(info, " \t");
		b->lang = xstrndup(info, n);
		lat.len = (int)n;
		const char *rest = info + n;
		while (rest < end && blank(*rest))
			rest++;
		struct loc rat = at;
		rat.col = at.col + (int)(rest - info);
		if (rest < end && *rest == '{') {
			const char *after;
			has_attrs = attrs_parse(rest, end, rat, d, &a, &after) != ATTRS_NONE;
		} else if (rest < end && bare_items(rest, end)) {
			has_attrs = true;
			bare_attrs(rest, end, rat, d, &a);
		}
	}
	/* each item in the order written, so that its problems come in
	 * the order of their columns */
	for (size_t i = 0; has_attrs && i < a.n; i++) {
		const struct attr *it = &a.items[i];
		struct loc iat = at;
		iat.col = it->col;
		iat.len = it->len;
		if (strcmp(it->key, "class") == 0) {
			if (it->value == lang_class)
				continue;
			if (strcmp(it->value, "numberLines") == 0) {
				b->numbered = true;
				continue;
			}
			const char *near = closest_name(it->value, classes);
			if (near)
				diag_warning(d, iat,
					     "a code block has no class '%s': ignored (did you mean "
					     "'%s'?)",
					     it->value, near);
			else
				diag_warning(d, iat,
					     "a code block has no class '%s': ignored (it takes a "
					     "language and .numberLines)",
					     it->value);
		} else if (strcmp(it->key, "startFrom") == 0 || strcmp(it->key, "linenums") == 0) {
			const char *v = it->value;
			size_t nd = strspn(v, "0123456789");
			if (!nd || v[nd] || nd > 9)
				diag_error(d, value_at(it, at),
					   "%s: '%s' is not a line number, as in %s=\"10\"", it->key, v,
					   it->key);
			else
				b->start = strtol(v, NULL, 10);
			b->numbered = true;
		} else if (strcmp(it->key, "hl_lines") == 0) {
			read_marked(b, it->value, value_at(it, at), d);
		} else {
			struct attrs one = {(struct attr *)it, 1};
			attrs_check(&one, keys, "a code block", at, d);
		}
	}
	attrs_free(&a);
	if (b->lang && !*b->lang) {
		free(b->lang);
		b->lang = NULL;
	}
	if (b->lang)
		colour(b, code, lat, d);
	if (!b->classes && !b->numbered && !b->marked && !has_attrs) {
		code_block_free(b);
		return NULL;
	}
	return b;
}

void code_block_free(struct code_block *b)
{
	if (!b)
		return;
	free(b->lang);
	free(b->classes);
	free(b->marked);
	free(b);
}

bool code_block_attrs(const char *info)
{
	if (*info != '{')
		return false;
	const char *q = info + 1;
	while (blank(*q))
		q++;
	if (*q == '.' || *q == '#')
		return true;
	const char *k = q;
	while (name_char(*k))
		k++;
	return k > q && *k == '=';
}
