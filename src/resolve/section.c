/* section.c: a report's headings as sections (section.h): ids, numbers
 * and labels. */
#define _GNU_SOURCE /* memrchr() */
#include "resolve/section.h"

#include <cmark-gfm.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/attrs.h"
#include "resolve/doc.h"

/* --- the slug --- */

/* Whether GitHub's slugger keeps code point c.  github-slugger
 * (https://github.com/Flet/github-slugger, script/generate-regex.mjs
 * and index.js) removes the Unicode categories Other_Number, the
 * punctuation but Connector_Punctuation ('_'), Symbol, Control,
 * Private_Use, Format, Unassigned and Separator, except ' ' and '-',
 * and except what is Alphabetic; then turns each ' ' into '-'.  The
 * Alphabetic symbols are the circled letters (So). */
static bool slug_keeps(gunichar c)
{
	if (c == ' ' || c == '-')
		return true;
	if (c >= 0x24B6 && c <= 0x24E9)
		return true;
	switch (g_unichar_type(c)) {
	case G_UNICODE_OTHER_NUMBER:
	case G_UNICODE_CLOSE_PUNCTUATION:
	case G_UNICODE_FINAL_PUNCTUATION:
	case G_UNICODE_INITIAL_PUNCTUATION:
	case G_UNICODE_OPEN_PUNCTUATION:
	case G_UNICODE_OTHER_PUNCTUATION:
	case G_UNICODE_DASH_PUNCTUATION:
	case G_UNICODE_MATH_SYMBOL:
	case G_UNICODE_CURRENCY_SYMBOL:
	case G_UNICODE_MODIFIER_SYMBOL:
	case G_UNICODE_OTHER_SYMBOL:
	case G_UNICODE_CONTROL:
	case G_UNICODE_PRIVATE_USE:
	case G_UNICODE_FORMAT:
	case G_UNICODE_UNASSIGNED:
	case G_UNICODE_SPACE_SEPARATOR:
	case G_UNICODE_LINE_SEPARATOR:
	case G_UNICODE_PARAGRAPH_SEPARATOR:
		return false;
	default:
		return true;
	}
}

void section_slug(struct buf *out, const char *text, size_t len)
{
	/* a value counts as nothing, and the spaces around it as one:
	 * "Loss at {{ x }} steps" is "loss-at-steps" */
	struct buf plain = BUF_INIT;
	const char *p = text, *end = text + len;
	while (p < end) {
		size_t index, n;
		if (*p == DOC_MARK && doc_placeholder_at(p, end, false, &index, &n)) {
			p += n;
			if (!plain.len || plain.data[plain.len - 1] == ' ')
				while (p < end && *p == ' ')
					p++;
			if (p == end)
				while (plain.len && plain.data[plain.len - 1] == ' ')
					plain.data[--plain.len] = '\0';
			continue;
		}
		buf_putc(&plain, *p++);
	}
	/* most headings are ASCII, which lowers to ASCII and of which the
	 * slugger keeps letters, digits, '_' and '-' (and ' ' as '-'):
	 * without GLib's copies and tables (a third of the sections' work) */
	size_t ascii = 0;
	while (ascii < plain.len && (unsigned char)plain.data[ascii] < 0x80)
		ascii++;
	if (ascii == plain.len) {
		buf_grow(out, plain.len);
		for (size_t i = 0; i < plain.len; i++) {
			char c = plain.data[i];
			if (c >= 'A' && c <= 'Z')
				buf_putc(out, (char)(c - 'A' + 'a'));
			else if (c == ' ')
				buf_putc(out, '-');
			else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
				 c == '-')
				buf_putc(out, c);
		}
		buf_free(&plain);
		return;
	}
	/* lower case as JavaScript's toLowerCase(): Unicode's full mapping */
	gchar *valid = g_utf8_make_valid(buf_data(&plain), (gssize)plain.len);
	gchar *lower = g_utf8_strdown(valid, -1);
	for (const gchar *s = lower; *s; s = g_utf8_next_char(s)) {
		gunichar c = g_utf8_get_char(s);
		if (c >= 0x24B6 && c <= 0x24CF) {
			/* GLib lowers letters only: the circled capitals are
			 * symbols with a lower case, which JavaScript uses */
			char u[8];
			buf_put(out, u, (size_t)g_unichar_to_utf8(c + 26, u));
		} else if (c == ' ')
			buf_putc(out, '-');
		else if (slug_keeps(c))
			buf_put(out, s, (size_t)(g_utf8_next_char(s) - s));
	}
	g_free(lower);
	g_free(valid);
	buf_free(&plain);
}

/* The ids given so far and, for each slug, how many times it came:
 * github-slugger's "occurrences", a hash table here so that a report of
 * many headings stays linear. */
struct taken {
	char **name;
	int *count;
	size_t cap, n;
};

static size_t taken_slot(const struct taken *t, const char *name)
{
	size_t h = 2166136261u;
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	size_t i = h & (t->cap - 1);
	while (t->name[i] && strcmp(t->name[i], name) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int *taken_find(struct taken *t, const char *name)
{
	if (!t->cap)
		return NULL;
	size_t i = taken_slot(t, name);
	return t->name[i] ? &t->count[i] : NULL;
}

static void taken_add(struct taken *t, const char *name)
{
	if (2 * (t->n + 1) > t->cap) {
		struct taken old = *t;
		t->cap = t->cap ? 2 * t->cap : 64;
		t->name = xcalloc(t->cap, sizeof *t->name);
		t->count = xcalloc(t->cap, sizeof *t->count);
		for (size_t i = 0; i < old.cap; i++)
			if (old.name[i]) {
				size_t j = taken_slot(t, old.name[i]);
				t->name[j] = old.name[i];
				t->count[j] = old.count[i];
			}
		free(old.name);
		free(old.count);
	}
	size_t i = taken_slot(t, name);
	if (!t->name[i]) {
		t->name[i] = xstrdup(name);
		t->n++;
	}
	t->count[i] = 0;
}

static void taken_free(struct taken *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->name[i]);
	free(t->name);
	free(t->count);
}

/* GitHub's unique slug: the slug, or the slug and "-1", "-2", ... the
 * first that is not taken (a heading "Setup 1" may have taken
 * "setup-1"). */
static char *unique_slug(struct taken *t, const char *slug)
{
	char *id = xstrdup(slug);
	int *seen;
	while ((seen = taken_find(t, id)) != NULL) {
		int *orig = taken_find(t, slug);
		int k = ++*orig;
		free(id);
		id = xasprintf("%s-%d", slug, k);
	}
	taken_add(t, id);
	return id;
}

/* --- a heading's text and attributes --- */

/* The plain text of heading h, as a browser's textContent: text and
 * code, a space for a line break; not an image's alt text. */
static char *plain_text(cmark_node *h)
{
	struct buf b = BUF_INIT;
	int in_image = 0;
	cmark_iter *it = cmark_iter_new(h);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(n);
		if (type == CMARK_NODE_IMAGE) {
			in_image += ev == CMARK_EVENT_ENTER ? 1 : -1;
			continue;
		}
		if (ev != CMARK_EVENT_ENTER || in_image)
			continue;
		if (type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE)
			buf_puts(&b, cmark_node_get_literal(n));
		else if (type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK)
			buf_putc(&b, ' ');
	}
	cmark_iter_free(it);
	return buf_detach(&b);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Where the attribute block at the end of heading h is in the source:
 * the last '{' of a line of it that ends in '}' (before an ATX
 * heading's closing #s).  The line's text and end in *line, *line_end. */
static bool source_brace(const struct section_src *src, cmark_node *h, struct loc *at,
			 const char **brace, const char **line_end)
{
	int first = cmark_node_get_start_line(h), last = cmark_node_get_end_line(h);
	const char *p = src->text, *end = src->text + src->len;
	for (int l = 1; l < first && p; l++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	bool found = false;
	for (int l = first; l <= last && p && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *q = e;
		while (q > p && blank(q[-1]))
			q--;
		const char *hashes = q;
		while (hashes > p && hashes[-1] == '#')
			hashes--;
		if (hashes < q && hashes > p && blank(hashes[-1])) {
			q = hashes;
			while (q > p && blank(q[-1]))
				q--;
		}
		if (q > p && q[-1] == '}') {
			const char *b = q - 1;
			while (b > p && *b != '{')
				b--;
			if (*b == '{') {
				*at = (struct loc){src->file, src->line0 + l, (int)(b - p) + 1, 0};
				*brace = b;
				*line_end = q;
				found = true;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return found;
}

/* Takes the attribute block off the end of heading h's text, into a;
 * *at is where it is.  False when the heading ends in none. */
static bool take_attrs(const struct section_src *src, cmark_node *h, struct attrs *a,
		       struct loc *at, bool *bad)
{
	cmark_node *last = cmark_node_last_child(h), *first = last;
	if (!last || cmark_node_get_type(last) != CMARK_NODE_TEXT)
		return false;
	while (cmark_node_previous(first) &&
	       cmark_node_get_type(cmark_node_previous(first)) == CMARK_NODE_TEXT)
		first = cmark_node_previous(first);
	struct buf t = BUF_INIT;
	for (cmark_node *n = first; n; n = cmark_node_next(n))
		buf_puts(&t, cmark_node_get_literal(n));
	size_t len = t.len;
	while (len && blank(t.data[len - 1]))
		len--;
	const char *brace = len && t.data[len - 1] == '}' ? memrchr(t.data, '{', len) : NULL;
	const char *sb, *se;
	bool ok = brace && source_brace(src, h, at, &sb, &se);
	enum attrs_result r = ATTRS_NONE;
	if (ok) {
		const char *after;
		r = attrs_parse(sb, se, *at, src->d, a, &after);
		ok = r != ATTRS_NONE;
	}
	if (ok) {
		*bad = r == ATTRS_BAD;
		/* the text up to the brace, without the spaces before it */
		size_t keep = (size_t)(brace - t.data);
		while (keep && blank(t.data[keep - 1]))
			keep--;
		size_t at_off = 0;
		cmark_node *n = first;
		while (n) {
			cmark_node *next = cmark_node_next(n);
			const char *lit = cmark_node_get_literal(n);
			size_t l = strlen(lit);
			if (at_off >= keep) {
				cmark_node_free(n);
			} else if (at_off + l > keep) {
				char *cut = xstrndup(lit, keep - at_off);
				cmark_node_set_literal(n, cut);
				free(cut);
			}
			at_off += l;
			n = next;
		}
	}
	buf_free(&t);
	return ok;
}

/* --- the sections --- */

static const char *const heading_keys[] = {"id", "class", NULL};

/* Reads heading h's attributes: its label (NULL for none, or after an
 * error) and whether it is unnumbered. */
static char *heading_label(const struct section_src *src, cmark_node *h, bool *unnumbered,
			   struct loc *label_at)
{
	struct attrs a;
	struct loc at;
	bool bad = false;
	*unnumbered = false;
	if (!take_attrs(src, h, &a, &at, &bad))
		return NULL;
	char *label = NULL;
	bool ok = attrs_check(&a, heading_keys, "a heading", at, src->d) && !bad;
	for (size_t i = 0; i < a.n; i++) {
		const struct attr *it = &a.items[i];
		struct loc iat = {at.file, at.line, it->col, it->len};
		if (strcmp(it->key, "class") == 0 && strcmp(it->value, "unnumbered") == 0) {
			*unnumbered = true;
		} else if (strcmp(it->key, "class") == 0) {
			diag_error(src->d, iat,
				   "a heading takes one class, .unnumbered (or {-}), not '.%s'",
				   it->value);
			ok = false;
		} else if (strcmp(it->key, "id") == 0 && !str_has_prefix(it->value, "sec-")) {
			diag_error(src->d, iat,
				   "a heading's label starts with sec-, as in {#sec-%s}: @sec-%s then "
				   "refers to it (a heading without a label has an id of its own)",
				   it->value, it->value);
			ok = false;
		} else if (strcmp(it->key, "id") == 0 && !xref_good_name(it->value, "sec-")) {
			diag_error(src->d, iat,
				   "label '%s' may hold only letters, digits, '-' and '_'", it->value);
			ok = false;
		}
	}
	const struct attr *id = attrs_get(&a, "id");
	if (ok && id) {
		label = xstrdup(id->value);
		*label_at = (struct loc){at.file, at.line, id->col, id->len};
	}
	attrs_free(&a);
	return label;
}

void sections_find(struct sections *out, struct cmark_node *root, const struct section_src *src)
{
	*out = (struct sections){0};
	char **labels = NULL;
	bool *unnumbered = NULL;
	struct loc *label_at = NULL;
	size_t cap = 0;
	for (cmark_node *n = root; n; n = doc_next_block(root, n)) {
		if (cmark_node_get_type(n) != CMARK_NODE_HEADING)
			continue;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			out->s = xrealloc(out->s, cap * sizeof *out->s);
			labels = xrealloc(labels, cap * sizeof *labels);
			unnumbered = xrealloc(unnumbered, cap * sizeof *unnumbered);
			label_at = xrealloc(label_at, cap * sizeof *label_at);
		}
		struct section *s = &out->s[out->n];
		*s = (struct section){.node = n, .level = cmark_node_get_heading_level(n)};
		s->line = src->line0 + cmark_node_get_start_line(n);
		labels[out->n] = heading_label(src, n, &unnumbered[out->n], &label_at[out->n]);
		s->text = plain_text(n);
		s->depth = cmark_node_parent(n) == root;
		out->n++;
	}

	/* ids: the labels first, then the slugs around them and the
	 * report's other labels */
	struct taken taken = {0};
	for (size_t i = 0; i < src->xref->n; i++)
		taken_add(&taken, src->xref->labels[i].name);
	for (size_t i = 0; i < out->n; i++)
		if (labels[i])
			taken_add(&taken, labels[i]);
	/* the nesting: levels of the open sections, and whether each is
	 * numbered; counters by depth */
	int open_level[7], counter[7] = {0};
	bool open_numbered[7];
	int open = 0;
	for (size_t i = 0; i < out->n; i++) {
		struct section *s = &out->s[i];
		if (labels[i]) {
			s->id = labels[i];
		} else {
			struct buf slug = BUF_INIT;
			section_slug(&slug, s->text, strlen(s->text));
			/* an empty id is none: GitHub's "" becomes "section" */
			s->id = unique_slug(&taken, slug.len ? buf_data(&slug) : "section");
			buf_free(&slug);
		}
		bool numbered = false;
		if (s->depth) {
			while (open && open_level[open - 1] >= s->level)
				open--;
			s->depth = open + 1;
			numbered = src->numbered && !unnumbered[i] && (open == 0 || open_numbered[open - 1]);
			open_level[open] = s->level;
			open_numbered[open] = numbered;
			open++;
		}
		struct buf num = BUF_INIT;
		if (numbered) {
			counter[s->depth]++;
			for (int d = s->depth + 1; d < 7; d++)
				counter[d] = 0;
			for (int d = 1; d <= s->depth; d++)
				buf_printf(&num, d > 1 ? ".%d" : "%d", counter[d]);
		}
		s->number = buf_detach(&num);
		if (!labels[i])
			continue;
		struct loc at = label_at[i];
		const struct xref_label *old = xref_find(src->xref, s->id);
		if (old) {
			diag_error(src->d, at, "label '%s' is already the heading's on line %d", s->id,
				   old->at.line);
			continue;
		}
		char *text = *s->number ? xasprintf("Section %s", s->number) : xstrdup(s->text);
		xref_add(src->xref, s->id, "Section", 0, text, at, src->d);
		free(text);
	}
	taken_free(&taken);
	free(labels);
	free(unnumbered);
	free(label_at);
	/* each heading knows its section, for the renderers */
	for (size_t i = 0; i < out->n; i++)
		cmark_node_set_user_data(out->s[i].node, &out->s[i]);
}

const struct section *sections_of(struct cmark_node *node)
{
	return cmark_node_get_type(node) == CMARK_NODE_HEADING ? cmark_node_get_user_data(node)
							       : NULL;
}

const struct section *sections_get(const struct sections *ss, const char *id)
{
	for (size_t i = 0; i < ss->n; i++)
		if (strcmp(ss->s[i].id, id) == 0)
			return &ss->s[i];
	return NULL;
}

void sections_free(struct sections *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->s[i].id);
		free(ss->s[i].number);
		free(ss->s[i].text);
	}
	free(ss->s);
	*ss = (struct sections){0};
}
