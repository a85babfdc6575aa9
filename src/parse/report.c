/* report.c: a report's source, front matter and place in the site. */
#include "parse/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/keys.h"
#include "data/limit.h"
#include "data/yamldoc.h"

static const char *const front_keys[] = {
	"title", "author", "date", "summary", "draft", "runs", "bibliography", "citation_style",
	"toc", "number_sections", "allow_numbers", "expect", NULL,
};
static const struct keys_words front_words = {true, "front matter key", "known keys"};

char *report_slug(const char *rel)
{
	size_t n = strlen(rel);
	if (n < 3 || !str_has_suffix(rel, ".md"))
		return NULL;
	n -= 3;
	if (n >= 5 && strncmp(rel + n - 5, "index", 5) == 0 && (n == 5 || rel[n - 6] == '/'))
		n = n == 5 ? 0 : n - 6;
	if (n == 0)
		return NULL;
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)rel[i];
		if ((c & 0xC0) == 0x80)
			continue; /* a UTF-8 continuation: its character is one dash */
		if (c < 0x80 && isalnum(c))
			buf_putc(&b, (char)tolower(c));
		else if (c == '-' || c == '_' || c == '.' || c == '/')
			buf_putc(&b, (char)c);
		else
			buf_putc(&b, '-');
	}
	return buf_detach(&b);
}

char *report_root_prefix(const char *slug)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "../");
	for (const char *p = slug; *p; p++)
		if (*p == '/')
			buf_puts(&b, "../");
	return buf_detach(&b);
}

/* Is the line at p (up to its end) exactly `mark`, give or take
 * trailing blanks and a CR? */
static bool line_is(const char *p, const char *end, const char *mark)
{
	size_t n = strlen(mark);
	if ((size_t)(end - p) < n || memcmp(p, mark, n) != 0)
		return false;
	for (p += n; p < end && *p != '\n'; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

bool frontmatter_split(const char *text, size_t len, const char **yaml, size_t *yaml_len,
		       int *yaml_line, size_t *body_off, int *body_line)
{
	const char *end = text + len, *p = text;
	*yaml = text;
	*yaml_len = 0;
	*yaml_line = 1;
	*body_off = 0;
	*body_line = 1;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3, *body_off = 3;
	if (!line_is(p, end, "---"))
		return true;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return false;
	const char *start = nl + 1;
	int line = 2;
	for (const char *q = start; q < end; line++) {
		if (line_is(q, end, "---") || line_is(q, end, "...")) {
			*yaml = start;
			*yaml_len = (size_t)(q - start);
			*yaml_line = 2;
			const char *e = memchr(q, '\n', (size_t)(end - q));
			*body_off = e ? (size_t)(e + 1 - text) : len;
			*body_line = line + 1;
			return true;
		}
		const char *e = memchr(q, '\n', (size_t)(end - q));
		if (!e)
			break;
		q = e + 1;
	}
	return false;
}

static bool digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool date_valid(const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (strlen(s) < 10 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
	    !digits(s + 8, 2))
		return false;
	int year = atoi(s), month = atoi(s + 5), day = atoi(s + 8);
	if (month < 1 || month > 12 || day < 1 || day > mdays[month - 1])
		return false;
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	if (month == 2 && day == 29 && !leap)
		return false;
	s += 10;
	if (!*s)
		return true;
	if ((*s != 'T' && *s != ' ') || !digits(s + 1, 2) || s[3] != ':' || !digits(s + 4, 2))
		return false;
	if (atoi(s + 1) > 23 || atoi(s + 4) > 59)
		return false;
	s += 6;
	if (*s == ':') {
		if (!digits(s + 1, 2) || atoi(s + 1) > 60)
			return false;
		s += 3;
	}
	return *s == '\0' || strcmp(s, "Z") == 0;
}

/* A front matter value that should be text: a string or a number as
 * written; a list of strings (several authors) joins with ", ". */
static char *meta_text(const char *key, const struct value *v, struct diag *d, bool *ok)
{
	struct buf b = BUF_INIT;
	if (v->kind == VALUE_STRING || v->kind == VALUE_NUMBER) {
		value_put_text(&b, v);
	} else if (v->kind == VALUE_LIST && strcmp(key, "author") == 0) {
		for (size_t i = 0; i < v->count; i++) {
			const struct value *a = v->items[i];
			if (a->kind != VALUE_STRING) {
				diag_error(d, a->loc, "each author must be a name");
				*ok = false;
				continue;
			}
			if (b.len)
				buf_puts(&b, ", ");
			buf_put(&b, a->text, a->len);
		}
	} else if (v->kind != VALUE_NULL) {
		diag_error(d, v->loc, "'%s' must be text, not %s", key, value_kind_name(v->kind));
		*ok = false;
	}
	return buf_detach(&b);
}

static bool read_meta(struct report *r, struct diag *d)
{
	bool ok = true;
	const struct value *m = r->meta;
	for (size_t i = 0; i < m->count; i++) {
		const char *key = m->keys[i];
		const struct value *v = m->items[i];
		char **dst = NULL;
		if (strcmp(key, "title") == 0)
			dst = &r->title;
		else if (strcmp(key, "author") == 0)
			dst = &r->author;
		else if (strcmp(key, "summary") == 0)
			dst = &r->summary;
		else if (strcmp(key, "date") == 0)
			dst = &r->date;
		if (dst) {
			free(*dst);
			*dst = meta_text(key, v, d, &ok);
			if (dst == &r->date && **dst && !date_valid(*dst)) {
				diag_error(d, v->loc,
					   "date '%s' is not a date: write it as YYYY-MM-DD (a real day), "
					   "e.g. 2024-04-08",
					   *dst);
				ok = false;
			}
		} else if (strcmp(key, "draft") == 0) {
			if (v->kind != VALUE_BOOL) {
				diag_error(d, v->loc, "'draft' must be true or false");
				ok = false;
			} else {
				r->draft = v->boolean;
			}
		} else if (strcmp(key, "toc") == 0 || strcmp(key, "number_sections") == 0) {
			if (v->kind != VALUE_BOOL) {
				diag_error(d, v->loc, "'%s' must be true or false", key);
				ok = false;
			} else {
				*(key[0] == 't' ? &r->toc : &r->number_sections) = v->boolean;
			}
		} else if (strcmp(key, "allow_numbers") == 0) {
			if (v->kind != VALUE_BOOL) {
				diag_error(d, v->loc, "'%s' must be true or false", key);
				ok = false;
			} else {
				r->allow_numbers = v->boolean;
			}
		} else if (strcmp(key, "runs") == 0 || strcmp(key, "expect") == 0) {
			/* Runs are read by the result-file stage, claims by
			 * resolve/claim.c. */
		} else {
			keys_check_one(m, i, front_keys, NULL, &front_words, d);
		}
	}
	return ok;
}

/* Is every line of r's Markdown within limit markdown_line_bytes?  The
 * first longer line is an error at the byte that passes the limit.
 * What a line costs the Markdown parser beyond its size is
 * inlines_fit()'s. */
static bool lines_fit(const struct report *r, struct diag *d)
{
	size_t max = (size_t)limit_get(LIMIT_MARKDOWN_LINE_BYTES);
	const char *t = r->text + r->body_off, *end = r->text + r->len;
	if ((size_t)(end - t) <= max)
		return true;
	for (int line = r->body_line; t < end; line++) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		size_t n = (size_t)((nl ? nl : end) - t);
		if (n > max) {
			struct loc at = {r->path, line, (int)max + 1, 1};
			diag_error(d, at,
				   "this line is %zu bytes, longer than the %zu a Markdown line may "
				   "have: break it into lines, or put long data in a file the page "
				   "reads (%s)",
				   n, max, limit_hint(LIMIT_MARKDOWN_LINE_BYTES));
			return false;
		}
		if (!nl)
			break;
		t = nl + 1;
	}
	return true;
}

/* Characters cmark-gfm's inline parser stops at (its own, and those of
 * the extensions logdown attaches: strikethrough's `~`, table's `|`,
 * autolink's `:` and `w`): each may become a node of about 180 bytes. */
static bool starts_inline(unsigned char c)
{
	switch (c) {
	case '\\': case '`': case '&': case '_': case '*': case '[': case ']': case '<':
	case '!': case '~': case '|': case ':': case 'w': case 'W':
		return true;
	default:
		return false;
	}
}

/* A fence's opening or closing line: up to three blanks, then three or
 * more of ` or ~; its character and length in *ch and *n. */
static bool fence_line(const char *t, size_t len, char *ch, size_t *n)
{
	size_t i = 0;
	while (i < len && i < 3 && t[i] == ' ')
		i++;
	if (i == len || (t[i] != '`' && t[i] != '~'))
		return false;
	size_t k = i;
	while (k < len && t[k] == t[i])
		k++;
	if (k - i < 3)
		return false;
	*ch = t[i];
	*n = k - i;
	return true;
}

/* Does each paragraph of r's Markdown (lines between blank ones, fenced
 * code left out, which is not parsed for inlines) hold at most limit
 * markdown_inlines characters that may start an inline?  The first
 * that holds more is an error at its character that passes the limit:
 * the parser would make a node at each (a 200 MB line of "w " took 7.7
 * GB), while a long paragraph of words costs about its size. */
static bool inlines_fit(const struct report *r, struct diag *d)
{
	size_t max = (size_t)limit_get(LIMIT_MARKDOWN_INLINES), count = 0;
	char fence = 0;
	size_t fence_n = 0;
	const char *t = r->text + r->body_off, *end = r->text + r->len;
	/* a byte counts once at most: a body no longer than the limit is
	 * under it, unread (a site's pages, a few KB each against 4 MB) */
	if ((size_t)(end - t) <= max)
		return true;
	for (int line = r->body_line; t < end; line++) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		size_t n = (size_t)((nl ? nl : end) - t);
		char ch;
		size_t k;
		bool blank = true;
		for (size_t i = 0; blank && i < n; i++)
			blank = t[i] == ' ' || t[i] == '\t' || t[i] == '\r';
		if (fence) {
			if (fence_line(t, n, &ch, &k) && ch == fence && k >= fence_n)
				fence = 0;
		} else if (fence_line(t, n, &ch, &k)) {
			fence = ch;
			fence_n = k;
			count = 0;
		} else if (blank) {
			count = 0;
		} else {
			for (size_t i = 0; i < n; i++) {
				if (!starts_inline((unsigned char)t[i]) || ++count <= max)
					continue;
				struct loc at = {r->path, line, (int)i + 1, 1};
				diag_error(d, at,
					   "this paragraph has more than %zu characters that may start "
					   "an inline (`*`, `_`, `[`, `<`, `w`, `:` ...): Markdown's "
					   "parser makes a node of about 180 bytes at each; break it into "
					   "paragraphs, or put long data in a file the page reads (%s)",
					   max, limit_hint(LIMIT_MARKDOWN_INLINES));
				return false;
			}
		}
		if (!nl)
			break;
		t = nl + 1;
	}
	return true;
}

bool report_load(struct report *r, const char *path, const char *slug, struct diag *d)
{
	memset(r, 0, sizeof *r);
	r->path = xstrdup(path);
	r->dir = path_dirname(path);
	r->slug = xstrdup(slug);
	r->title = xstrdup("");
	r->author = xstrdup("");
	r->date = xstrdup("");
	r->summary = xstrdup("");
	r->toc = r->number_sections = r->allow_numbers = -1;
	r->meta = value_new(VALUE_MAP);

	struct buf b = BUF_INIT;
	if (!file_read(path, &b, NULL)) {
		diag_error(d, loc_line(r->path, 0), "cannot read: %s", strerror(errno));
		buf_free(&b);
		return false;
	}
	r->len = b.len;
	r->text = buf_detach(&b);
	/* A file whose lines all end in a bare CR (classic Mac OS) is read
	 * as an editor shows it: one line per CR. */
	if (!memchr(r->text, '\n', r->len))
		for (char *cr = memchr(r->text, '\r', r->len); cr;
		     cr = memchr(cr, '\r', r->len - (size_t)(cr - r->text)))
			*cr = '\n';
	diag_add_source(d, r->path, r->text, r->len);
	if (memchr(r->text, '\0', r->len)) {
		diag_error(d, loc_line(r->path, 0), "this is a binary file, not Markdown text");
		return false;
	}

	const char *yaml;
	size_t yaml_len;
	int yaml_line;
	if (!frontmatter_split(r->text, r->len, &yaml, &yaml_len, &yaml_line, &r->body_off,
			       &r->body_line)) {
		struct loc at = {r->path, 1, 1, 3};
		diag_error(d, at, "front matter is never closed: end it with a line holding only ---");
		return false;
	}
	if (!lines_fit(r, d) || !inlines_fit(r, d))
		return false;
	if (yaml_len == 0)
		return true;
	struct value *m = yamldoc_parse(yaml, yaml_len, r->path, yaml_line - 1, d);
	if (!m)
		return false;
	if (m->kind == VALUE_NULL) {
		value_free(m);
		return true;
	}
	if (m->kind != VALUE_MAP) {
		diag_error(d, m->loc, "front matter must be a map of keys (title: ..., date: ...)");
		value_free(m);
		return false;
	}
	value_free(r->meta);
	r->meta = m;
	return read_meta(r, d);
}

void report_free(struct report *r, struct diag *d)
{
	if (d && r->path)
		diag_forget_source(d, r->path);
	free(r->path);
	free(r->dir);
	free(r->slug);
	free(r->text);
	free(r->title);
	free(r->author);
	free(r->date);
	free(r->summary);
	free(r->html);
	free(r->toc_html);
	report_runs_free(&r->runs);
	value_free(r->meta);
	memset(r, 0, sizeof *r);
}
