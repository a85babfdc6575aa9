/* htmltag.c: start tags and their attributes, as a browser's tokenizer
 * reads them (htmltag.h). */
#include "base/htmltag.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "base/util.h"

/* HTML's blanks between a tag's parts (a NUL is not one). */
static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static bool ascii_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Does the name [p, p + n) equal lower (ASCII, lowercase), case aside? */
static bool name_is(const char *p, size_t n, const char *lower)
{
	return strlen(lower) == n && strncasecmp(p, lower, n) == 0;
}

/* The end of the name that starts at p: a tag's or an attribute's. */
static const char *name_end(const char *p, const char *end, bool attribute)
{
	/* an attribute's first character may be '=' ("<img =x>"): it
	 * starts a name, as in the tokenizer */
	if (attribute && p < end && *p == '=')
		p++;
	while (p < end && !blank(*p) && *p != '/' && *p != '>' && (!attribute || *p != '='))
		p++;
	return p;
}

/* One attribute from p (after the blanks before it): its name [*name,
 * *name_end), its value [*value, *value_end) (both NULL for none), and
 * what follows it; NULL at the tag's '>' or its end. */
static const char *next_attr(const char *p, const char *end, const char **name,
			     const char **nend, const char **value, const char **vend)
{
	while (p < end && (blank(*p) || *p == '/'))
		p++;
	if (p >= end || *p == '>')
		return NULL;
	*name = p;
	p = *nend = name_end(p, end, true);
	*value = *vend = NULL;
	const char *q = p;
	while (q < end && blank(*q))
		q++;
	if (q >= end || *q != '=')
		return p; /* no value: the blanks start the next one */
	q++;
	while (q < end && blank(*q))
		q++;
	if (q < end && (*q == '"' || *q == '\'')) {
		const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
		*value = q + 1;
		*vend = close ? close : end;
		return close ? close + 1 : end;
	}
	*value = q;
	while (q < end && !blank(*q) && *q != '>')
		q++;
	*vend = q;
	return q;
}

const char *html_tag_end(const char *tag, const char *end)
{
	const char *p = name_end(tag + 1, end, false), *after, *n, *ne, *v, *ve;
	while ((after = next_attr(p, end, &n, &ne, &v, &ve)) != NULL)
		p = after;
	while (p < end && (blank(*p) || *p == '/'))
		p++;
	return p < end ? p + 1 : end;
}

/* After the text of a raw text element whose start tag ended at p: the
 * '<' of its end tag "</name", or end. */
static const char *raw_text_end(const char *p, const char *end, const char *name, size_t n)
{
	for (; p + 2 + n <= end; p++)
		if (p[0] == '<' && p[1] == '/' && strncasecmp(p + 2, name, n) == 0)
			return p;
	return end;
}

const char *html_next_tag(const char *p, const char *end, const char *want)
{
	static const char *const raw[] = {"script", "style", "textarea", "title"};
	while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		size_t left = (size_t)(end - p);
		if (left >= 4 && memcmp(p, "<!--", 4) == 0) {
			/* a comment, "<!-->" and "<!--->" among them */
			const char *q = p + 4;
			if (q < end && *q == '>')
				q++;
			else if (q + 1 < end && q[0] == '-' && q[1] == '>')
				q += 2;
			else {
				while (q + 3 <= end && memcmp(q, "-->", 3) != 0)
					q++;
				q = q + 3 <= end ? q + 3 : end;
			}
			p = q;
			continue;
		}
		if (left >= 2 && (p[1] == '!' || p[1] == '?')) {
			/* a doctype or a bogus comment: to its '>' */
			const char *gt = memchr(p, '>', left);
			p = gt ? gt + 1 : end;
			continue;
		}
		if (left < 2 || !ascii_alpha(p[1])) {
			p++; /* an end tag or a plain '<' */
			continue;
		}
		const char *ne = name_end(p + 1, end, false);
		size_t n = (size_t)(ne - p - 1);
		if (name_is(p + 1, n, want))
			return p;
		const char *after = html_tag_end(p, end);
		for (size_t i = 0; i < ARRAY_LEN(raw); i++)
			if (name_is(p + 1, n, raw[i]))
				after = raw_text_end(after, end, raw[i], n);
		p = after;
	}
	return NULL;
}

/* The character reference at p (its '&'), appended to b; what follows
 * it.  The five of XML and the numeric ones are decoded; any other is
 * kept as written. */
static const char *put_reference(struct buf *b, const char *p, const char *end)
{
	static const struct {
		const char *name;
		char c;
	} named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
	for (size_t i = 0; i < ARRAY_LEN(named); i++) {
		size_t n = strlen(named[i].name);
		if ((size_t)(end - p - 1) >= n && memcmp(p + 1, named[i].name, n) == 0) {
			buf_putc(b, named[i].c);
			return p + 1 + n;
		}
	}
	if (end - p >= 3 && p[1] == '#') {
		bool hex = p[2] == 'x' || p[2] == 'X';
		const char *d = p + 2 + hex;
		unsigned long c = 0;
		size_t digits = 0;
		for (; d < end; d++, digits++) {
			int v = *d >= '0' && *d <= '9' ? *d - '0'
				: hex && *d >= 'a' && *d <= 'f' ? *d - 'a' + 10
				: hex && *d >= 'A' && *d <= 'F' ? *d - 'A' + 10
				: -1;
			if (v < 0)
				break;
			if (c <= 0x10FFFF)
				c = c * (hex ? 16 : 10) + (unsigned long)v;
		}
		if (digits) {
			if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
				c = UTF8_REPLACEMENT;
			utf8_put(b, c);
			return d < end && *d == ';' ? d + 1 : d;
		}
	}
	buf_putc(b, '&');
	return p + 1;
}

char *html_attr(const char *tag, const char *end, const char *want, const char **at)
{
	if (!end)
		end = tag + strlen(tag);
	const char *p = name_end(tag + 1, end, false), *n, *ne, *v, *ve;
	while ((p = next_attr(p, end, &n, &ne, &v, &ve)) != NULL) {
		if (!name_is(n, (size_t)(ne - n), want))
			continue;
		if (at)
			*at = v ? v : n;
		struct buf b = BUF_INIT;
		for (const char *s = v; s && s < ve;) {
			const char *amp = memchr(s, '&', (size_t)(ve - s));
			if (!amp)
				amp = ve;
			buf_put(&b, s, (size_t)(amp - s));
			s = amp < ve ? put_reference(&b, amp, ve) : ve;
		}
		return buf_detach(&b);
	}
	return NULL;
}
