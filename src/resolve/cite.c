/* cite.c: citations and the References (resolve/cite.h).  The syntax
 * is Pandoc's, so that a report moves between the two: a key is letters,
 * digits and '_', with : . # $ % & - + ? < > ~ / inside it (a sentence's
 * full stop after a key is not part of it). */
#include "resolve/cite.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "parse/bib.h"

struct cited {
	long entry;
	char *id;
	char *label;
	char *suffix; /* author-year: "a", "b" for one author and year */
	struct directive_text text;
	char *plain; /* the text, for a citation's title */
	const char *sort[4]; /* author-year: what it is sorted by ([0] owned) */
};

struct cites {
	struct bib bib;
	bool has_bib;   /* a bibliography was named */
	bool bib_ok;    /* and read without an error */
	bool told;      /* "needs a bibliography" said once */
	enum cite_style style;
	long *number;   /* per entry: its place in cited (1-based), 0: not cited */
	struct cited *cited;
	size_t ncited;
	bool listed;    /* cited sorted and texts made */
	const char **keys; /* NULL-terminated, for did-you-mean */
	/* the files, read on the first citation (load()) */
	char **paths;
	struct loc *path_at; /* the value naming each */
	size_t npaths;
	const struct value *style_v; /* citation_style, or NULL */
	bool loaded;
	struct diag *d;
};

/* --- the bibliography and the style --- */

static const struct value *setting(const struct value *front, const struct value *site,
				   const char *key, bool *from_site)
{
	const struct value *v = front && front->kind == VALUE_MAP ? value_get(front, key) : NULL;
	*from_site = false;
	if (!v && site && site->kind == VALUE_MAP) {
		v = value_get(site, key);
		*from_site = v != NULL;
	}
	return v;
}

/* Calls each(path, the value naming it) for every file of the setting;
 * a value that is neither text nor a list of texts is an error (d
 * NULL: not reported). */
static bool each_file(const struct value *front, const struct value *site,
		      const char *report_dir, const char *root, struct diag *d,
		      void (*each)(void *ctx, const char *path, const struct value *v), void *ctx)
{
	bool from_site;
	const struct value *v = setting(front, site, "bibliography", &from_site);
	if (!v)
		return false;
	const char *dir = from_site ? (root ? root : ".") : report_dir;
	size_t n = v->kind == VALUE_LIST ? v->count : 1;
	for (size_t i = 0; i < n; i++) {
		const struct value *f = v->kind == VALUE_LIST ? v->items[i] : v;
		if (f->kind != VALUE_STRING || !f->len) {
			if (d)
				diag_error(d, f->loc,
					   "'bibliography' is a file (refs.bib, refs.json) or a list "
					   "of files");
			continue;
		}
		char *path = f->text[0] == '/' ? xstrdup(f->text) : path_join(dir, f->text);
		each(ctx, path, f);
		free(path);
	}
	return true;
}

static void add_path(void *ctx, const char *path, const struct value *v)
{
	(void)v;
	char ***list = ctx;
	size_t n = 0;
	while (*list && (*list)[n])
		n++;
	*list = xrealloc(*list, (n + 2) * sizeof **list);
	(*list)[n] = xstrdup(path);
	(*list)[n + 1] = NULL;
}

char **cites_files(const struct value *front, const struct value *site, const char *report_dir,
		   const char *root)
{
	char **list = NULL;
	each_file(front, site, report_dir, root, NULL, add_path, &list);
	return list;
}

static void note_file(void *ctx, const char *path, const struct value *v)
{
	struct cites *c = ctx;
	c->paths = xrealloc(c->paths, (c->npaths + 1) * sizeof *c->paths);
	c->path_at = xrealloc(c->path_at, (c->npaths + 1) * sizeof *c->path_at);
	c->paths[c->npaths] = xstrdup(path);
	c->path_at[c->npaths++] = v->loc;
}

struct cites *cites_new(const struct value *front, const struct value *site,
			const char *report_dir, const char *root, struct diag *d)
{
	struct cites *c = xcalloc(1, sizeof *c);
	c->bib_ok = true;
	c->d = d;
	c->has_bib = each_file(front, site, report_dir, root, d, note_file, c);
	bool from_site;
	c->style_v = setting(front, site, "citation_style", &from_site);
	if (c->style_v && c->style_v->kind == VALUE_STRING &&
	    strcmp(c->style_v->text, "author-year") == 0)
		c->style = CITE_AUTHOR_YEAR;
	return c;
}

/* Reads the files on the first citation: a report that cites nothing
 * does not read (nor report on) the site's bibliography. */
static void load(struct cites *c)
{
	if (c->loaded)
		return;
	c->loaded = true;
	struct diag *d = c->d;
	for (size_t i = 0; i < c->npaths; i++)
		if (!bib_read_file(&c->bib, c->paths[i], c->paths[i], c->path_at[i], d))
			c->bib_ok = false;
	const struct value *st = c->style_v;
	if (st) {
		static const char *const styles[] = {"numeric", "author-year", NULL};
		if (st->kind == VALUE_STRING && strcmp(st->text, "numeric") == 0) {
			c->style = CITE_NUMERIC;
		} else if (st->kind == VALUE_STRING && strcmp(st->text, "author-year") == 0) {
			c->style = CITE_AUTHOR_YEAR;
		} else {
			const char *near = st->kind == VALUE_STRING ? closest_name(st->text, styles) : NULL;
			if (near)
				diag_error(d, st->loc,
					   "unknown citation_style '%s' (did you mean '%s'?)", st->text,
					   near);
			else
				diag_error(d, st->loc,
					   "citation_style is 'numeric' ([1]) or 'author-year' "
					   "((Williams et al., 2009))");
		}
	}
	free(c->number);
	free(c->keys);
	c->number = xcalloc(c->bib.n + 1, sizeof *c->number);
	c->keys = xcalloc(c->bib.n + 1, sizeof *c->keys);
	for (size_t i = 0; i < c->bib.n; i++)
		c->keys[i] = c->bib.e[i].key;
}

void cites_free(struct cites *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ncited; i++) {
		free(c->cited[i].id);
		free(c->cited[i].label);
		free(c->cited[i].suffix);
		free(c->cited[i].plain);
		free((char *)c->cited[i].sort[0]);
		directive_text_clear(&c->cited[i].text);
	}
	free(c->cited);
	free(c->number);
	free(c->keys);
	for (size_t i = 0; i < c->npaths; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c->path_at);
	bib_clear(&c->bib);
	free(c);
}

enum cite_style cites_style(const struct cites *c)
{
	return c->style;
}

/* --- finding citations --- */

static bool key_start(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* The end of the key that starts at p: internal punctuation is part of
 * it only when a key character follows. */
static const char *key_end(const char *p, const char *end)
{
	const char *q = p;
	while (q < end) {
		if (key_start(*q)) {
			q++;
			continue;
		}
		if (strchr(":.#$%&-+?<>~/", *q) && *q && q + 1 < end && key_start(q[1])) {
			q++;
			continue;
		}
		break;
	}
	return q;
}

const char *cite_group_at(const char *p, const char *end, struct cite_group *g)
{
	memset(g, 0, sizeof *g);
	if (p >= end || *p != '[')
		return NULL;
	const char *close = NULL;
	for (const char *q = p + 1; q < end && *q != '\n'; q++) {
		if (*q == '[' || (*q == '\\' && q + 1 < end && q[1] == '\n'))
			return NULL;
		if (*q == '\\' && q + 1 < end) {
			q++;
			continue;
		}
		if (*q == ']') {
			close = q;
			break;
		}
	}
	if (!close || (close + 1 < end && (close[1] == '(' || close[1] == '[' || close[1] == ':')))
		return NULL;
	/* items separated by ';', each "prefix @key, locator" or
	 * "prefix -@key locator" */
	const char *s = p + 1;
	while (s <= close) {
		const char *semi = s;
		while (semi < close && *semi != ';')
			semi++;
		const char *at = NULL;
		for (const char *q = s; q < semi; q++) {
			if (*q == '@' && (q == s || q[-1] == ' ' || q[-1] == '-' || q[-1] == '\t') &&
			    q + 1 < semi && key_start(q[1])) {
				at = q;
				break;
			}
		}
		if (!at || g->n == CITE_MAX_ITEMS)
			return NULL; /* every part must cite: "[a; @b]" is text */
		struct cite_item *it = &g->items[g->n++];
		it->at = at;
		it->suppress = at > s && at[-1] == '-';
		const char *pre_end = it->suppress ? at - 1 : at;
		const char *ps = s;
		while (ps < pre_end && (*ps == ' ' || *ps == '\t'))
			ps++;
		const char *pe = pre_end;
		while (pe > ps && (pe[-1] == ' ' || pe[-1] == '\t'))
			pe--;
		it->prefix = ps;
		it->prefix_len = (size_t)(pe - ps);
		it->key = at + 1;
		const char *ke = key_end(at + 1, semi);
		it->key_len = (size_t)(ke - it->key);
		const char *loc = ke;
		while (loc < semi && (*loc == ' ' || *loc == '\t' || *loc == ','))
			loc++;
		const char *le = semi;
		while (le > loc && (le[-1] == ' ' || le[-1] == '\t'))
			le--;
		it->locator = loc;
		it->locator_len = (size_t)(le - loc);
		s = semi + 1;
	}
	return g->n ? close + 1 : NULL;
}

const char *cite_bare_at(const struct cites *c, const char *p, const char *line_start,
			 const char *end, struct cite_group *g)
{
	memset(g, 0, sizeof *g);
	if (!c || !c->has_bib || p + 1 >= end || *p != '@')
		return NULL;
	if (!(isalpha((unsigned char)p[1]) || p[1] == '_'))
		return NULL;
	if (p > line_start && !isspace((unsigned char)p[-1]) && !strchr("(\"'*_", p[-1]))
		return NULL;
	const char *ke = key_end(p + 1, end);
	g->bare = true;
	g->n = 1;
	g->items[0].at = p;
	g->items[0].key = p + 1;
	g->items[0].key_len = (size_t)(ke - p - 1);
	return ke;
}

/* --- names and texts --- */

static void put_names(struct buf *b, const struct bib_name *n, size_t k, bool et_al)
{
	for (size_t i = 0; i < k; i++) {
		if (i)
			buf_puts(b, i + 1 == k && !et_al ? " and " : ", ");
		if (*n[i].given)
			buf_printf(b, "%s ", n[i].given);
		buf_puts(b, n[i].family);
	}
	if (et_al)
		buf_puts(b, " et al.");
}

/* "Williams", "Williams and Patterson", "Williams et al."; the editors
 * without authors; the title without either. */
static void put_short(struct buf *b, const struct bib_entry *e)
{
	const struct bib_name *n = e->nauthors ? e->authors : e->editors;
	size_t k = e->nauthors ? e->nauthors : e->neditors;
	if (!k) {
		buf_puts(b, e->title ? e->title : e->key);
		return;
	}
	if (k == 1 && !(e->nauthors && e->et_al))
		buf_puts(b, n[0].family);
	else if (k == 2 && !(e->nauthors && e->et_al))
		buf_printf(b, "%s and %s", n[0].family, n[1].family);
	else
		buf_printf(b, "%s et al.", n[0].family);
}

static bool ends_sentence(const struct buf *b)
{
	if (!b->len)
		return true;
	char c = b->data[b->len - 1];
	return c == '.' || c == '?' || c == '!';
}

static void full_stop(struct buf *b)
{
	if (!ends_sentence(b))
		buf_putc(b, '.');
}

static bool in_container(const char *type)
{
	static const char *const types[] = {"inproceedings", "incollection", "conference",
					    "inbook", "paper-conference", "chapter"};
	for (size_t i = 0; i < ARRAY_LEN(types); i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

/* The text of entry e as the References list it, into t (and plain). */
static void reference_text(struct cites *c, struct cited *ci)
{
	const struct bib_entry *e = &c->bib.e[ci->entry];
	struct buf b = BUF_INIT;
	if (e->nauthors) {
		put_names(&b, e->authors, e->nauthors, e->et_al);
	} else if (e->neditors) {
		put_names(&b, e->editors, e->neditors, false);
		buf_puts(&b, e->neditors > 1 ? ", editors" : ", editor");
	}
	if (c->style == CITE_AUTHOR_YEAR)
		buf_printf(&b, "%s(%s%s)", b.len ? " " : "", e->year ? e->year : "n.d.",
			   ci->suffix ? ci->suffix : "");
	if (b.len) {
		full_stop(&b);
		buf_putc(&b, ' ');
	}
	if (e->title) {
		buf_puts(&b, e->title);
		full_stop(&b);
	}
	struct buf where = BUF_INIT;
	if (e->container) {
		if (in_container(e->type))
			buf_puts(&where, "In ");
		buf_puts(&where, e->container);
	} else if (e->eprint) {
		buf_puts(&where, e->eprint);
	}
	if (e->volume)
		buf_printf(&where, "%s%s", where.len ? " " : "", e->volume);
	if (e->number)
		buf_printf(&where, "(%s)", e->number);
	if (e->pages)
		buf_printf(&where, "%s%s", e->volume || e->number ? ":" : where.len ? ", " : "",
			   e->pages);
	if (e->publisher)
		buf_printf(&where, "%s%s", where.len ? ", " : "", e->publisher);
	if (c->style == CITE_NUMERIC && e->year)
		buf_printf(&where, "%s%s", where.len ? ", " : "", e->year);
	if (where.len) {
		buf_printf(&b, " %s", buf_data(&where));
		full_stop(&b);
	}
	buf_free(&where);
	directive_text_add(&ci->text, buf_data(&b), b.len, NULL, false, false);
	struct buf pl = BUF_INIT;
	buf_put(&pl, buf_data(&b), b.len);
	char *doi = e->doi ? xasprintf("https://doi.org/%s", e->doi) : NULL;
	if (doi) {
		directive_text_add(&ci->text, " ", 1, NULL, false, false);
		directive_text_add(&ci->text, doi, strlen(doi), doi, false, false);
		buf_printf(&pl, " %s", doi);
	}
	if (e->url && !(doi && strcmp(doi, e->url) == 0)) {
		directive_text_add(&ci->text, " ", 1, NULL, false, false);
		directive_text_add(&ci->text, e->url, strlen(e->url), e->url, false, false);
		buf_printf(&pl, " %s", e->url);
	}
	free(doi);
	ci->plain = buf_detach(&pl);
	buf_free(&b);
}

static int cmp_str_ci(const char *a, const char *b)
{
	int r = strcasecmp(a ? a : "", b ? b : "");
	return r ? r : strcmp(a ? a : "", b ? b : "");
}

static char *short_of(const struct bib_entry *e)
{
	struct buf b = BUF_INIT;
	put_short(&b, e);
	return buf_detach(&b);
}

/* Author-year order: the authors as cited ("Williams et al."), the
 * year, the title, the key; each compared without case first. */
static int cmp_author_year(const void *pa, const void *pb)
{
	const struct cited *x = pa, *y = pb;
	for (size_t i = 0; i < 4; i++) {
		int r = cmp_str_ci(x->sort[i], y->sort[i]);
		if (r)
			return r;
	}
	return 0;
}

/* Once every citation is known: author-year sorts the entries and
 * tells apart one author's works of one year (2009a, 2009b); each
 * entry gets its label and text. */
static void list(struct cites *c)
{
	if (c->listed)
		return;
	c->listed = true;
	if (c->style == CITE_AUTHOR_YEAR && c->ncited > 1) {
		for (size_t i = 0; i < c->ncited; i++) {
			const struct bib_entry *e = &c->bib.e[c->cited[i].entry];
			c->cited[i].sort[0] = short_of(e);
			c->cited[i].sort[1] = e->year ? e->year : "";
			c->cited[i].sort[2] = e->title ? e->title : "";
			c->cited[i].sort[3] = e->key;
		}
		qsort(c->cited, c->ncited, sizeof *c->cited, cmp_author_year);
		for (size_t i = 0; i < c->ncited;) {
			const struct bib_entry *a = &c->bib.e[c->cited[i].entry];
			char *sa = short_of(a);
			size_t j = i + 1;
			for (; j < c->ncited; j++) {
				const struct bib_entry *b = &c->bib.e[c->cited[j].entry];
				char *sb = short_of(b);
				bool same = strcmp(sa, sb) == 0 && cmp_str_ci(a->year, b->year) == 0;
				free(sb);
				if (!same)
					break;
			}
			for (size_t k = i; j - i > 1 && k < j && k - i < 26; k++)
				c->cited[k].suffix = xasprintf("%c", (char)('a' + (k - i)));
			free(sa);
			i = j;
		}
	}
	for (size_t i = 0; i < c->ncited; i++) {
		c->number[c->cited[i].entry] = (long)i + 1;
		c->cited[i].label = c->style == CITE_NUMERIC ? xasprintf("[%zu]", i + 1) : xstrdup("");
		reference_text(c, &c->cited[i]);
	}
}

/* --- citations in the prose --- */

/* The entry of key (reported at `at` when unknown): its index, or -1. */
static long use(struct cites *c, const char *key, size_t len, struct loc at, struct diag *d)
{
	load(c);
	char *k = xstrndup(key, len);
	long found = -1;
	for (size_t i = 0; i < c->bib.n; i++)
		if (strcmp(c->bib.e[i].key, k) == 0)
			found = (long)i;
	if (found < 0) {
		if (!c->has_bib && !c->told) {
			diag_error(d, at,
				   "citation '@%s' but the report has no bibliography: add "
				   "'bibliography: refs.bib' (BibTeX, or CSL-JSON as refs.json) to its "
				   "front matter or to site.yaml",
				   k);
			c->told = true;
		} else if (c->has_bib && c->bib_ok) {
			const char *near = closest_name(k, c->keys);
			if (near)
				diag_error(d, at,
					   "citation key '%s' is not in the bibliography (did you mean "
					   "'%s'?)",
					   k, near);
			else
				diag_error(d, at,
					   "citation key '%s' is not in the bibliography (write \\@ for "
					   "an @ that cites nothing)",
					   k);
		}
		free(k);
		return -1;
	}
	free(k);
	if (!c->number[found] && !c->listed) {
		c->cited = xrealloc(c->cited, (c->ncited + 1) * sizeof *c->cited);
		c->cited[c->ncited++] = (struct cited){.entry = found,
						       .id = xasprintf("ref-%s", c->bib.e[found].key)};
		c->number[found] = (long)c->ncited;
	}
	return found;
}

/* A prefix or locator into md as written (it is Markdown), but for
 * "--", which is a range's dash as in BibTeX. */
static void put_md(struct buf *md, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-' && i + 1 < n && s[i + 1] == '-') {
			buf_puts(md, "\xE2\x80\x93"); /* pp. 3--4: an en dash */
			i++;
		} else {
			buf_putc(md, s[i]);
		}
	}
}

void cite_write(struct cites *c, const struct cite_group *g, struct loc at, struct diag *d,
		struct buf *md,
		void (*slot)(void *ctx, long entry, const struct cite_item *it, bool bare,
			     struct loc at, struct buf *md),
		void *ctx)
{
	bool numeric = c->style == CITE_NUMERIC;
	const char *base = g->bare ? g->items[0].at : g->items[0].at;
	/* the group's first byte: '[' before the first item's prefix */
	if (!g->bare) {
		base = g->items[0].prefix;
		while (*base != '[')
			base--;
	}
	bool semi = false;
	for (size_t i = 0; i < g->n; i++)
		semi = semi || g->items[i].locator_len || g->items[i].prefix_len;
	if (g->bare && !numeric) {
		/* "Williams et al. (2009)": the placeholder shows it all */
	} else {
		buf_puts(md, numeric ? "\\[" : "(");
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct cite_item *it = &g->items[i];
		if (i)
			buf_puts(md, semi || !numeric ? "; " : ", ");
		if (it->prefix_len) {
			put_md(md, it->prefix, it->prefix_len);
			buf_putc(md, ' ');
		}
		struct loc kat = at;
		kat.col = at.col + (int)(it->at - base);
		kat.len = (int)it->key_len + 1;
		long e = use(c, it->key, it->key_len, kat, d);
		slot(ctx, e, it, g->bare, kat, md);
		if (it->locator_len) {
			buf_puts(md, ", ");
			put_md(md, it->locator, it->locator_len);
		}
	}
	if (!(g->bare && !numeric))
		buf_puts(md, numeric ? "\\]" : ")");
}

void cite_piece(struct cites *c, long entry, const char *key, bool bare, bool suppress,
		struct directive_text *out)
{
	if (entry < 0 || (size_t)entry >= c->bib.n) {
		char *t = xasprintf("@%s", key);
		directive_text_add(out, t, strlen(t), NULL, false, false);
		free(t);
		return;
	}
	list(c);
	if (!c->number[entry]) {
		cite_piece(c, -1, key, bare, suppress, out);
		return;
	}
	const struct bib_entry *e = &c->bib.e[entry];
	const struct cited *ci = &c->cited[c->number[entry] - 1];
	struct buf t = BUF_INIT;
	if (c->style == CITE_NUMERIC) {
		buf_printf(&t, "%ld", c->number[entry]);
	} else {
		const char *year = e->year ? e->year : "n.d.";
		const char *sfx = ci->suffix ? ci->suffix : "";
		if (suppress) {
			buf_printf(&t, "%s%s", year, sfx);
		} else {
			put_short(&t, e);
			buf_printf(&t, bare ? " (%s%s)" : ", %s%s", year, sfx);
		}
	}
	char *href = xasprintf("#%s", ci->id);
	directive_text_add(out, buf_data(&t), t.len, href, false, false);
	out->p[out->n - 1].title = xstrdup(ci->plain);
	free(href);
	buf_free(&t);
}

size_t cites_count(struct cites *c)
{
	list(c);
	return c->ncited;
}

struct cite_ref cites_ref(struct cites *c, size_t i)
{
	list(c);
	return (struct cite_ref){c->cited[i].id, c->cited[i].label, &c->cited[i].text};
}
