/* attrs.c: the attribute syntax "{#id .class key=value}" (attrs.h). */
#include "resolve/attrs.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static void add(struct attrs *a, const char *key, const char *value, size_t vlen, int col,
		int len)
{
	a->items = xrealloc(a->items, (a->n + 1) * sizeof *a->items);
	a->items[a->n++] = (struct attr){xstrdup(key), xstrndup(value, vlen), col, len};
}

/* A quoted value from p (at its quote) to before end: its text,
 * unescaped, and the end past the closing quote; NULL if unclosed. */
static const char *quoted(const char *p, const char *end, struct buf *out)
{
	char q = *p++;
	while (p < end && *p != q) {
		if (q == '"' && *p == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\'))
			p++;
		buf_putc(out, *p);
		p++;
	}
	return p < end ? p + 1 : NULL;
}

enum attrs_result attrs_parse(const char *p, const char *end, struct loc at, struct diag *d,
			      struct attrs *out, const char **after)
{
	*out = (struct attrs){0};
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (nl)
		end = nl;
	if (p >= end || *p != '{')
		return ATTRS_NONE;
	const char *q = p + 1;
	while (q < end && blank(*q))
		q++;
	/* the first item decides whether this is an attribute block */
	bool starts = q < end && (*q == '#' || *q == '.' || *q == '}' ||
				  (*q == '-' && q + 1 < end && (blank(q[1]) || q[1] == '}')));
	if (!starts && q < end && name_char(*q) && *q != '-' && *q != '.') {
		const char *k = q;
		while (k < end && name_char(*k))
			k++;
		starts = k < end && *k == '=';
	}
	if (!starts || (q < end && *q == '}' && q == p + 1))
		return ATTRS_NONE; /* "{}" is text too */
	enum attrs_result r = ATTRS_OK;
	struct buf val = BUF_INIT;
	while (q < end && *q != '}') {
		const char *item = q;
		struct loc iat = at;
		iat.col = at.col + (int)(item - p);
		if (*q == '#' || *q == '.') {
			q++;
			const char *name = q;
			while (q < end && name_char(*q))
				q++;
			iat.len = (int)(q - item);
			if (q == name) {
				diag_error(d, iat, "'%c' needs a name after it, as in {%s}", *item,
					   *item == '#' ? "#sec-results" : ".numberLines");
				r = ATTRS_BAD;
			} else if (*item == '#' && attrs_get(out, "id")) {
				diag_error(d, iat, "a second identifier '%.*s': an element has one {#id}",
					   (int)(q - item), item);
				r = ATTRS_BAD;
			} else {
				add(out, *item == '#' ? "id" : "class", name, (size_t)(q - name),
				    iat.col, iat.len);
			}
		} else if (*q == '-' && (q + 1 >= end || blank(q[1]) || q[1] == '}')) {
			q++;
			add(out, "class", "unnumbered", strlen("unnumbered"), iat.col, 1);
		} else {
			const char *key = q;
			while (q < end && name_char(*q))
				q++;
			if (q == key || q >= end || *q != '=') {
				while (q < end && !blank(*q) && *q != '}')
					q++;
				iat.len = (int)(q - item);
				diag_error(d, iat,
					   "'%.*s' is not an attribute: write #id, .class or key=value",
					   (int)(q - item), item);
				r = ATTRS_BAD;
			} else {
				char *k = xstrndup(key, (size_t)(q - key));
				q++; /* '=' */
				buf_clear(&val);
				const char *v = q;
				if (q < end && (*q == '"' || *q == '\'')) {
					q = quoted(q, end, &val);
					if (!q) {
						iat.len = (int)(end - item);
						diag_error(d, iat, "unclosed %c in the value of '%s'", *v, k);
						free(k);
						r = ATTRS_BAD;
						q = end;
						break;
					}
				} else {
					while (q < end && !blank(*q) && *q != '}')
						q++;
					buf_put(&val, v, (size_t)(q - v));
				}
				iat.len = (int)(q - item);
				if (q == v) {
					diag_error(d, iat, "'%s=' needs a value, as in %s=60%%", k, k);
					r = ATTRS_BAD;
				} else {
					add(out, k, val.len ? val.data : "", val.len, iat.col, iat.len);
				}
				free(k);
			}
		}
		if (q < end && !blank(*q) && *q != '}') {
			struct loc bat = at;
			bat.col = at.col + (int)(q - p);
			bat.len = 1;
			diag_error(d, bat, "unexpected '%c' in an attribute block: items are separated by spaces",
				   *q);
			r = ATTRS_BAD;
			while (q < end && !blank(*q) && *q != '}')
				q++;
		}
		while (q < end && blank(*q))
			q++;
	}
	buf_free(&val);
	if (q >= end) {
		struct loc uat = at;
		uat.len = (int)(end - p);
		diag_error(d, uat, "unclosed '{': an attribute block ends with '}' on its line");
		*after = end;
		return ATTRS_BAD;
	}
	*after = q + 1;
	return r;
}

const struct attr *attrs_get(const struct attrs *a, const char *key)
{
	for (size_t i = a->n; i-- > 0;)
		if (strcmp(a->items[i].key, key) == 0)
			return &a->items[i];
	return NULL;
}

bool attrs_has_class(const struct attrs *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].key, "class") == 0 && strcmp(a->items[i].value, name) == 0)
			return true;
	return false;
}

bool attrs_check(const struct attrs *a, const char *const *known, const char *what,
		 struct loc at, struct diag *d)
{
	bool ok = true;
	for (size_t i = 0; i < a->n; i++) {
		const struct attr *it = &a->items[i];
		bool found = false;
		for (size_t k = 0; known[k] && !found; k++)
			found = strcmp(known[k], it->key) == 0;
		if (found)
			continue;
		struct loc iat = at;
		iat.col = it->col;
		iat.len = it->len;
		const char *near = closest_name(it->key, known);
		if (strcmp(it->key, "id") == 0 || strcmp(it->key, "class") == 0)
			diag_error(d, iat, "%s takes no %s here", what,
				   it->key[0] == 'i' ? "{#id}" : "{.class}");
		else if (near)
			diag_error(d, iat, "%s has no attribute '%s' (did you mean '%s'?)", what,
				   it->key, near);
		else
			diag_error(d, iat, "%s has no attribute '%s'", what, it->key);
		ok = false;
	}
	return ok;
}

void attrs_free(struct attrs *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->items[i].key);
		free(a->items[i].value);
	}
	free(a->items);
	*a = (struct attrs){0};
}
