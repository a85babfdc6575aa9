/* bibread.c: BibTeX and CSL-JSON bibliographies into struct bib.
 *
 * BibTeX as BibTeX itself and btparse read it: outside an entry
 * everything is a comment; an entry is @type{key, name = value, ...}
 * (or with parentheses); a value is {braced} (braces nest), "quoted"
 * (braces nest inside, and a " in braces does not end it), a number or
 * a macro name, joined with #.  The reader walks the text once, with no
 * recursion (brace depth is a counter), so hostile nesting costs
 * nothing but time linear in its length. */
#include "parse/bib.h"

#include <ctype.h>
#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/fsutil.h"
#include "base/utf8.h"
#include "base/util.h"
#include "data/value.h"
#include "parse/structured.h"

static const char *const month_names[] = {
	"jan", "January", "feb", "February", "mar", "March",	 "apr", "April",
	"may", "May",	  "jun", "June",     "jul", "July",	 "aug", "August",
	"sep", "September", "oct", "October", "nov", "November", "dec", "December",
};

struct field {
	char *name; /* lowercase */
	char *raw;  /* the value as BibTeX text, macros expanded */
};

struct reader {
	const char *s, *end;
	const char *file;
	struct diag *d;
	struct bib *b;
	char **mnames, **mvals; /* @string macros */
	size_t nm;
	bool ok;
	/* where loc_at() last counted to */
	const char *cpos, *cls;
	int cline;
};

static struct loc loc_at(struct reader *r, const char *p, int len)
{
	if (p < r->cpos) {
		r->cpos = r->cls = r->s;
		r->cline = 1;
	}
	for (const char *q = r->cpos; q < p; q++) {
		if (*q == '\n') {
			r->cline++;
			r->cls = q + 1;
		}
	}
	r->cpos = p;
	return (struct loc){r->file, r->cline, (int)(p - r->cls) + 1, len};
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Characters of entry types, field names, keys and macro names:
 * anything BibTeX allows that is printable and no delimiter. */
static bool name_char(char c)
{
	return (unsigned char)c > ' ' && !strchr("{}()\",=#%@", c) && c != 0x7f;
}

/* Does a new entry start at p, the first byte of a line (after
 * blanks): "@word{" or "@word("?  Used to notice a runaway brace. */
static bool entry_starts(const char *p, const char *end)
{
	p = skip_ws(p, end);
	if (p >= end || *p != '@')
		return false;
	const char *q = p + 1;
	while (q < end && isalpha((unsigned char)*q))
		q++;
	if (q == p + 1)
		return false;
	q = skip_ws(q, end);
	return q < end && (*q == '{' || *q == '(');
}

static void error_at(struct reader *r, const char *p, int len, const char *msg, const char *arg)
{
	diag_error(r->d, loc_at(r, p, len), msg, arg);
	r->ok = false;
}

static const char *macro(const struct reader *r, const char *name)
{
	for (size_t i = r->nm; i-- > 0;)
		if (strcasecmp(r->mnames[i], name) == 0)
			return r->mvals[i];
	for (size_t i = 0; i < ARRAY_LEN(month_names); i += 2)
		if (strcasecmp(month_names[i], name) == 0)
			return month_names[i + 1];
	return NULL;
}

/* One part of a value at *pp, appended to out; false after an error,
 * reported.  close is the entry's closing delimiter. */
static bool value_part(struct reader *r, const char **pp, struct buf *out)
{
	const char *p = *pp, *end = r->end;
	if (p >= end) {
		error_at(r, end, 0, "the file ends where a value should be%s", "");
		return false;
	}
	if (*p == '{' || *p == '"') {
		char quote = *p;
		const char *open = p;
		int depth = quote == '{' ? 1 : 0;
		p++;
		for (; p < end; p++) {
			if (*p == '\n' && entry_starts(p + 1, end)) {
				const char *next = skip_ws(p + 1, end);
				struct loc nl = loc_at(r, next, 1);
				diag_error(r->d, loc_at(r, open, 1),
					   "this %s is not closed before the entry on line %d",
					   quote == '{' ? "'{'" : "'\"'", nl.line);
				r->ok = false;
				*pp = p + 1;
				return false;
			}
			if (*p == '\\' && p + 1 < end) {
				/* \{ \} \" are text, not delimiters */
				buf_put(out, p, 2);
				p++;
				continue;
			}
			if (*p == '{') {
				depth++;
			} else if (*p == '}') {
				if (depth == 0) {
					error_at(r, p, 1, "this '}' closes nothing: the value's braces are "
							  "unbalanced%s", "");
					*pp = p + 1;
					return false;
				}
				if (--depth == 0 && quote == '{') {
					*pp = p + 1;
					return true;
				}
			} else if (*p == '"' && quote == '"' && depth == 0) {
				*pp = p + 1;
				return true;
			}
			buf_putc(out, *p);
		}
		error_at(r, open, 1, quote == '{' ? "this '{' is never closed%s"
						  : "this '\"' is never closed%s", "");
		*pp = end;
		return false;
	}
	if (isdigit((unsigned char)*p)) {
		const char *q = p;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		buf_put(out, p, (size_t)(q - p));
		*pp = q;
		return true;
	}
	if (name_char(*p)) {
		const char *q = p;
		while (q < end && name_char(*q))
			q++;
		char *name = xstrndup(p, (size_t)(q - p));
		const char *v = macro(r, name);
		if (v)
			buf_puts(out, v);
		else
			diag_warning(r->d, loc_at(r, p, (int)(q - p)),
				     "unknown macro '%s': define it with @string{%s = \"...\"}, or "
				     "put the text in braces",
				     name, name);
		free(name);
		*pp = q;
		return true;
	}
	char what[8] = {*p, 0};
	error_at(r, p, 1, "expected a value ({...}, \"...\", a number or a macro), not '%s'",
		 isprint((unsigned char)*p) ? what : "a control character");
	*pp = p;
	return false;
}

/* A value: parts joined with #. */
static bool value(struct reader *r, const char **pp, struct buf *out)
{
	for (;;) {
		if (!value_part(r, pp, out))
			return false;
		const char *q = skip_ws(*pp, r->end);
		if (q >= r->end || *q != '#')
			return true;
		*pp = skip_ws(q + 1, r->end);
	}
}

/* A name at *pp (entry type, field, macro); NULL when none is there. */
static char *name_at(struct reader *r, const char **pp)
{
	const char *p = *pp, *q = p;
	while (q < r->end && name_char(*q))
		q++;
	if (q == p)
		return NULL;
	*pp = q;
	return xstrndup(p, (size_t)(q - p));
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Skips a balanced body (@comment, @preamble) from after its opener. */
static const char *skip_body(const char *p, const char *end, char close)
{
	int depth = 1;
	for (; p < end; p++) {
		if (*p == '{' || (*p == '(' && close == ')'))
			depth++;
		else if (*p == '}' || (*p == ')' && close == ')'))
			depth--;
		if (depth == 0)
			return p + 1;
	}
	return end;
}

/* --- plain text from BibTeX text --- */

/* The combining mark of an accent command (\" \' \v ...), or 0. */
static unsigned long accent_mark(const char *cmd, size_t n)
{
	static const struct {
		const char *cmd;
		unsigned long mark;
	} accents[] = {
		{"\"", 0x308}, {"'", 0x301}, {"`", 0x300}, {"^", 0x302}, {"~", 0x303},
		{"=", 0x304},  {".", 0x307}, {"u", 0x306}, {"v", 0x30C}, {"H", 0x30B},
		{"c", 0x327},  {"k", 0x328}, {"r", 0x30A}, {"d", 0x323}, {"b", 0x331},
	};
	for (size_t i = 0; i < ARRAY_LEN(accents); i++)
		if (strlen(accents[i].cmd) == n && memcmp(accents[i].cmd, cmd, n) == 0)
			return accents[i].mark;
	return 0;
}

/* The text of a command that stands for a character, or NULL. */
static const char *symbol(const char *cmd, size_t n)
{
	static const char *const symbols[] = {
		"ss", "\xC3\x9F", "o", "\xC3\xB8", "O", "\xC3\x98", "aa", "\xC3\xA5",
		"AA", "\xC3\x85", "ae", "\xC3\xA6", "AE", "\xC3\x86", "oe", "\xC5\x93",
		"OE", "\xC5\x92", "l", "\xC5\x82", "L", "\xC5\x81", "i", "\xC4\xB1",
		"j", "\xC8\xB7", "textendash", "\xE2\x80\x93", "textemdash", "\xE2\x80\x94",
		"ldots", "\xE2\x80\xA6", "dots", "\xE2\x80\xA6", "textquoteright", "\xE2\x80\x99",
		"textquoteleft", "\xE2\x80\x98", "LaTeX", "LaTeX", "TeX", "TeX",
		"textregistered", "\xC2\xAE", "texttrademark", "\xE2\x84\xA2",
		"copyright", "\xC2\xA9", "S", "\xC2\xA7", "P", "\xC2\xB6",
		"textasciitilde", "~", "textbackslash", "\\", "textunderscore", "_",
		"times", "\xC3\x97", "mu", "\xC2\xB5", "textmu", "\xC2\xB5", "alpha", "\xCE\xB1",
		"beta", "\xCE\xB2", "pi", "\xCF\x80",
	};
	for (size_t i = 0; i < ARRAY_LEN(symbols); i += 2)
		if (strlen(symbols[i]) == n && memcmp(symbols[i], cmd, n) == 0)
			return symbols[i + 1];
	return NULL;
}

/* The letter an accent sits on at p: "u", "{u}", "{\i}", "\i"; its
 * text in *base (a dotless i as i), and the end. */
static const char *accent_base(const char *p, const char *end, struct buf *base)
{
	while (p < end && *p == ' ')
		p++;
	bool braced = p < end && *p == '{';
	if (braced)
		p++;
	const char *stop = p;
	if (braced) {
		while (stop < end && *stop != '}')
			stop++;
	} else if (p < end && *p == '\\') {
		stop = p + 1;
		while (stop < end && isalpha((unsigned char)*stop))
			stop++;
	} else if (p < end) {
		size_t k = utf8_decode((const unsigned char *)p, (size_t)(end - p), NULL, NULL);
		stop = p + (k ? k : 1);
	}
	for (const char *q = p; q < stop; q++) {
		if (*q == '\\' && q + 1 < stop && (q[1] == 'i' || q[1] == 'j')) {
			buf_putc(base, q[1]);
			q++;
		} else if (*q != ' ' && *q != '{' && *q != '}') {
			buf_putc(base, *q);
		}
	}
	return braced && stop < end ? stop + 1 : stop;
}

void bib_plain(struct buf *out, const char *s, size_t n)
{
	struct buf t = BUF_INIT;
	const char *p = s, *end = s + n;
	bool space = false;
	while (p < end) {
		char c = *p;
		if (isspace((unsigned char)c)) {
			space = true;
			p++;
			continue;
		}
		if (space && t.len)
			buf_putc(&t, ' ');
		space = false;
		if (c == '{' || c == '}' || c == '$') {
			p++;
		} else if (c == '\\' && p + 1 < end) {
			const char *cmd = p + 1, *q = cmd;
			if (isalpha((unsigned char)*q)) {
				while (q < end && isalpha((unsigned char)*q))
					q++;
			} else {
				q++;
			}
			size_t cn = (size_t)(q - cmd);
			unsigned long mark = accent_mark(cmd, cn);
			const char *sym = symbol(cmd, cn);
			if (mark && (cn == 1 && !isalpha((unsigned char)*cmd) ? true : q < end && (*q == '{' || *q == ' '))) {
				struct buf base = BUF_INIT;
				p = accent_base(q, end, &base);
				buf_put(&t, buf_data(&base), base.len);
				utf8_put(&t, mark);
				buf_free(&base);
				continue;
			}
			if (sym) {
				buf_puts(&t, sym);
			} else if (cn == 1 && !isalpha((unsigned char)*cmd)) {
				/* \& \% \_ \$ \# \{ \}; \\ and "\ " a space */
				if (*cmd == '\\' || *cmd == ' ')
					buf_putc(&t, ' ');
				else if (*cmd != ',' && *cmd != '-' && *cmd != '/')
					buf_putc(&t, *cmd);
			}
			/* any other command is left out; its braced arguments
			 * stay as text (\emph{Fast} gives Fast) */
			p = q;
			if (isalpha((unsigned char)*cmd))
				while (p < end && *p == ' ')
					p++;
		} else if (c == '~') {
			buf_puts(&t, "\xC2\xA0");
			p++;
		} else if (c == '-' && p + 1 < end && p[1] == '-') {
			bool em = p + 2 < end && p[2] == '-';
			buf_puts(&t, em ? "\xE2\x80\x94" : "\xE2\x80\x93");
			p += em ? 3 : 2;
		} else if (c == '`' && p + 1 < end && p[1] == '`') {
			buf_puts(&t, "\xE2\x80\x9C");
			p += 2;
		} else if (c == '\'' && p + 1 < end && p[1] == '\'') {
			buf_puts(&t, "\xE2\x80\x9D");
			p += 2;
		} else {
			buf_putc(&t, c);
			p++;
		}
	}
	/* the accents as combining marks, composed where Unicode has the
	 * character ("u" + U+0308 is "ü") */
	gchar *nfc = g_utf8_validate(buf_data(&t), (gssize)t.len, NULL)
			     ? g_utf8_normalize(buf_data(&t), (gssize)t.len, G_NORMALIZE_NFC)
			     : NULL;
	if (nfc)
		buf_puts(out, nfc);
	else
		buf_put(out, buf_data(&t), t.len);
	g_free(nfc);
	buf_free(&t);
}

static char *plain(const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	bib_plain(&b, s, n);
	return buf_detach(&b);
}

/* --- names --- */

/* Splits s at top-level (brace depth 0) occurrences of sep, a
 * predicate on the text at p returning the separator's length. */
static size_t split_top(const char *s, size_t n, size_t (*sep)(const char *, const char *),
			struct span *parts, size_t max)
{
	size_t k = 0;
	int depth = 0;
	const char *start = s, *end = s + n;
	for (const char *p = s; p < end;) {
		size_t m;
		if (*p == '{')
			depth++;
		else if (*p == '}' && depth > 0)
			depth--;
		if (depth == 0 && (m = sep(p, end)) > 0) {
			if (k + 1 < max)
				parts[k++] = (struct span){start, (size_t)(p - start)};
			p += m;
			start = p;
			continue;
		}
		p++;
	}
	parts[k++] = (struct span){start, (size_t)(end - start)};
	return k;
}

static size_t sep_and(const char *p, const char *end)
{
	if (!isspace((unsigned char)*p))
		return 0;
	const char *q = skip_ws(p, end);
	if (end - q < 4 || strncasecmp(q, "and", 3) != 0 || !isspace((unsigned char)q[3]))
		return 0;
	return (size_t)(skip_ws(q + 3, end) - p);
}

static size_t sep_comma(const char *p, const char *end)
{
	(void)end;
	return *p == ',';
}

static size_t sep_space(const char *p, const char *end)
{
	if (!isspace((unsigned char)*p) && *p != '~')
		return 0;
	const char *q = p;
	while (q < end && (isspace((unsigned char)*q) || *q == '~'))
		q++;
	return (size_t)(q - p);
}

static struct span trim(struct span s)
{
	while (s.len && isspace((unsigned char)*s.p)) {
		s.p++;
		s.len--;
	}
	while (s.len && isspace((unsigned char)s.p[s.len - 1]))
		s.len--;
	return s;
}

/* One BibTeX name: "Last, First", "Last, Jr, First", "First von Last",
 * or "{Corporate Name}". */
static struct bib_name one_name(struct span s)
{
	struct bib_name nm;
	struct span parts[3];
	size_t k = split_top(s.p, s.len, sep_comma, parts, 3);
	if (k >= 2) {
		struct span fam = trim(parts[0]), giv = trim(parts[k - 1]);
		nm.family = plain(fam.p, fam.len);
		nm.given = plain(giv.p, giv.len);
		if (k == 3) {
			struct span jr = trim(parts[1]);
			char *j = plain(jr.p, jr.len);
			char *f = xasprintf("%s, %s", nm.family, j);
			free(nm.family);
			free(j);
			nm.family = f;
		}
		return nm;
	}
	struct span tok[64];
	size_t nt = split_top(s.p, s.len, sep_space, tok, ARRAY_LEN(tok));
	size_t from = nt - 1;
	for (size_t i = 1; i + 1 < nt; i++) {
		if (islower((unsigned char)tok[i].p[0])) {
			from = i;
			break;
		}
	}
	const char *fam_start = tok[from].p;
	nm.family = plain(fam_start, (size_t)(s.p + s.len - fam_start));
	nm.given = from ? plain(s.p, (size_t)(tok[from].p - s.p)) : xstrdup("");
	return nm;
}

static void names(const char *raw, struct bib_name **out, size_t *n, bool *et_al)
{
	struct span s = trim((struct span){raw, strlen(raw)});
	if (!s.len)
		return;
	size_t max = 1;
	for (const char *p = s.p; p < s.p + s.len; p++)
		max += *p == ' ';
	struct span *parts = xcalloc(max + 1, sizeof *parts);
	size_t k = split_top(s.p, s.len, sep_and, parts, max + 1);
	*out = xcalloc(k, sizeof **out);
	for (size_t i = 0; i < k; i++) {
		struct span t = trim(parts[i]);
		if (!t.len)
			continue;
		if (t.len == 6 && strncasecmp(t.p, "others", 6) == 0) {
			if (et_al)
				*et_al = true;
			continue;
		}
		(*out)[(*n)++] = one_name(t);
	}
	free(parts);
}

/* --- entries --- */

static const char *field_raw(const struct field *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return f[i].raw;
	return NULL;
}

static char *field_plain(const struct field *f, size_t n, const char *name)
{
	const char *raw = field_raw(f, n, name);
	if (!raw)
		return NULL;
	char *s = plain(raw, strlen(raw));
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

const struct bib_entry *bib_find(const struct bib *b, const char *key)
{
	for (size_t i = 0; b && i < b->n; i++)
		if (strcmp(b->e[i].key, key) == 0)
			return &b->e[i];
	return NULL;
}

static void entry_free(struct bib_entry *e);

/* Adds entry e to b, unless its key is taken (a warning). */
static void add_entry(struct bib *b, struct bib_entry *e, struct diag *d)
{
	const struct bib_entry *old = bib_find(b, e->key);
	if (old) {
		diag_warning(d, e->at, "entry '%s' is already defined at %s:%d: this one is ignored",
			     e->key, old->at.file, old->at.line);
		entry_free(e);
		return;
	}
	b->e = xrealloc(b->e, (b->n + 1) * sizeof *b->e);
	b->e[b->n++] = *e;
}

static void entry_from_fields(struct reader *r, struct bib_entry *e, struct field *f, size_t n)
{
	const char *a = field_raw(f, n, "author");
	if (a)
		names(a, &e->authors, &e->nauthors, &e->et_al);
	const char *ed = field_raw(f, n, "editor");
	if (ed)
		names(ed, &e->editors, &e->neditors, NULL);
	e->title = field_plain(f, n, "title");
	e->container = field_plain(f, n, "journal");
	if (!e->container)
		e->container = field_plain(f, n, "journaltitle");
	if (!e->container)
		e->container = field_plain(f, n, "booktitle");
	e->year = field_plain(f, n, "year");
	if (!e->year) {
		char *date = field_plain(f, n, "date");
		if (date && strlen(date) >= 4)
			e->year = xstrndup(date, 4);
		free(date);
	}
	e->volume = field_plain(f, n, "volume");
	e->number = field_plain(f, n, "number");
	e->pages = field_plain(f, n, "pages");
	static const char *const pubs[] = {"publisher", "school", "institution", "organization"};
	for (size_t i = 0; i < ARRAY_LEN(pubs) && !e->publisher; i++)
		e->publisher = field_plain(f, n, pubs[i]);
	/* a DOI or URL is an address: no LaTeX in it, but \_ and braces
	 * happen */
	const char *doi = field_raw(f, n, "doi");
	if (doi) {
		e->doi = plain(doi, strlen(doi));
		static const char *const prefixes[] = {"https://doi.org/", "http://doi.org/",
						       "https://dx.doi.org/", "http://dx.doi.org/",
						       "doi:"};
		for (size_t i = 0; i < ARRAY_LEN(prefixes); i++) {
			size_t k = strlen(prefixes[i]);
			if (strncasecmp(e->doi, prefixes[i], k) == 0) {
				memmove(e->doi, e->doi + k, strlen(e->doi + k) + 1);
				break;
			}
		}
	}
	const char *url = field_raw(f, n, "url");
	if (url)
		e->url = plain(url, strlen(url));
	char *eprint = field_plain(f, n, "eprint");
	char *archive = field_plain(f, n, "archiveprefix");
	if (!archive)
		archive = field_plain(f, n, "eprinttype");
	if (eprint)
		e->eprint = archive ? xasprintf("%s:%s", archive, eprint) : xstrdup(eprint);
	if (eprint && archive && strcasecmp(archive, "arxiv") == 0 && !e->url)
		e->url = xasprintf("https://arxiv.org/abs/%s", eprint);
	free(eprint);
	free(archive);
	(void)r;
}

/* One entry from its '@' at p; returns where reading goes on. */
static const char *entry(struct reader *r, const char *p)
{
	const char *at = p, *end = r->end;
	p++;
	p = skip_ws(p, end);
	const char *tp = p;
	char *type = name_at(r, &p);
	if (!type)
		return at + 1; /* a lone @ in the comments between entries */
	lower(type);
	p = skip_ws(p, end);
	if (p >= end || (*p != '{' && *p != '(')) {
		if (strcmp(type, "comment") != 0)
			error_at(r, p < end ? p : end, 1,
				 "expected '{' after '@%s' (an entry is @type{key, field = {...}})",
				 type);
		free(type);
		return p;
	}
	char close = *p == '{' ? '}' : ')';
	p++;
	if (strcmp(type, "comment") == 0 || strcmp(type, "preamble") == 0) {
		free(type);
		return skip_body(p, end, close);
	}
	struct buf v = BUF_INIT;
	const char *resume = NULL;
	if (strcmp(type, "string") == 0) {
		p = skip_ws(p, end);
		const char *np = p;
		char *name = name_at(r, &p);
		p = skip_ws(p, end);
		if (!name || p >= end || *p != '=') {
			error_at(r, name ? p : np, 1,
				 "expected 'name = \"text\"' in @string (e.g. @string{acm = \"ACM\"})%s",
				 "");
		} else if (value(r, (p = skip_ws(p + 1, end), &p), &v)) {
			p = skip_ws(p, end);
			if (p < end && *p == close)
				p++;
			else
				error_at(r, p < end ? p : end, 1, "expected '%s' to end the @string",
					 close == '}' ? "}" : ")");
			r->mnames = xrealloc(r->mnames, (r->nm + 1) * sizeof *r->mnames);
			r->mvals = xrealloc(r->mvals, (r->nm + 1) * sizeof *r->mvals);
			r->mnames[r->nm] = name;
			r->mvals[r->nm++] = buf_detach(&v);
			name = NULL;
			resume = p;
		}
		free(name);
		free(type);
		buf_free(&v);
		return resume ? resume : at + 1;
	}
	(void)tp;
	p = skip_ws(p, end);
	const char *kp = p;
	/* a key ends at a NUL too: it is a C string from here on */
	while (p < end && *p != ',' && *p != close && !isspace((unsigned char)*p) && *p != '{' &&
	       *p != '}' && *p != '@' && *p != '\0')
		p++;
	struct field *f = NULL;
	size_t nf = 0;
	bool ok = true;
	if (p == kp) {
		error_at(r, kp < end ? kp : end, 1, "expected the entry's key after '@%s{'", type);
		ok = false;
	}
	char *key = ok ? xstrndup(kp, (size_t)(p - kp)) : NULL;
	p = skip_ws(p, end);
	if (ok && (p >= end || (*p != ',' && *p != close))) {
		error_at(r, p < end ? p : end, 1, "expected ',' after the key '%s'", key);
		ok = false;
	}
	if (ok && *p == ',')
		p++;
	while (ok) {
		p = skip_ws(p, end);
		if (p < end && *p == close) {
			p++;
			break;
		}
		const char *fp = p;
		char *fname = p < end ? name_at(r, &p) : NULL;
		if (!fname) {
			if (p >= end)
				error_at(r, at, 1, "entry '%s' is never closed: a '}' is missing", key);
			else
				error_at(r, fp, 1, "expected a field name (title = {...}) or the end of "
						   "entry '%s'",
					 key);
			ok = false;
			break;
		}
		lower(fname);
		p = skip_ws(p, end);
		if (p >= end || *p != '=') {
			error_at(r, p < end ? p : end, 1, "expected '=' after the field name '%s'",
				 fname);
			free(fname);
			ok = false;
			break;
		}
		p = skip_ws(p + 1, end);
		buf_clear(&v);
		if (!value(r, &p, &v)) {
			free(fname);
			ok = false;
			break;
		}
		f = xrealloc(f, (nf + 1) * sizeof *f);
		f[nf].name = fname;
		f[nf++].raw = xstrdup(buf_data(&v));
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
		} else if (p < end && *p == '@' && entry_starts(p, end)) {
			/* a '}' missing inside a value ate the entry's own */
			int eline = loc_at(r, at, 1).line, fline = loc_at(r, fp, 1).line;
			diag_error(r->d, loc_at(r, p, 1),
				   "entry '%s' (line %d) is not closed before this one: is a '}' "
				   "missing in its field '%s' (line %d)?",
				   key, eline, fname, fline);
			r->ok = false;
			ok = false;
		} else if (p >= end || *p != close) {
			error_at(r, p < end ? p : end, 1,
				 "expected ',' or the end of the entry after field '%s'", fname);
			ok = false;
		}
	}
	if (ok) {
		struct bib_entry e = {0};
		e.key = key;
		e.type = type;
		e.at = loc_at(r, kp, (int)strlen(key));
		e.at.file = r->b->files[r->b->nfiles - 1];
		entry_from_fields(r, &e, f, nf);
		add_entry(r->b, &e, r->d);
		key = NULL;
		type = NULL;
	}
	for (size_t i = 0; i < nf; i++) {
		free(f[i].name);
		free(f[i].raw);
	}
	free(f);
	free(key);
	free(type);
	buf_free(&v);
	if (ok)
		return p;
	/* after an error: the next line that starts with '@' */
	for (const char *q = at + 1; q < end; q++)
		if (q[-1] == '\n' && entry_starts(q, end))
			return q;
	return end;
}

bool bib_read_bibtex(struct bib *b, const char *text, size_t len, const char *file,
		     struct diag *d)
{
	b->files = xrealloc(b->files, (b->nfiles + 1) * sizeof *b->files);
	b->files[b->nfiles++] = xstrdup(file);
	struct reader r = {.s = text, .end = text + len, .file = b->files[b->nfiles - 1],
			   .d = d, .b = b, .ok = true};
	r.cpos = r.cls = text;
	r.cline = 1;
	const char *p = text;
	while (p < r.end) {
		const char *q = memchr(p, '@', (size_t)(r.end - p));
		if (!q)
			break;
		p = entry(&r, q);
	}
	for (size_t i = 0; i < r.nm; i++) {
		free(r.mnames[i]);
		free(r.mvals[i]);
	}
	free(r.mnames);
	free(r.mvals);
	return r.ok;
}

/* --- CSL-JSON --- */

static char *csl_text(const struct value *item, const char *key)
{
	const struct value *v = value_get(item, key);
	if (!v || (v->kind != VALUE_STRING && v->kind != VALUE_NUMBER))
		return NULL;
	struct buf b = BUF_INIT;
	value_put_text(&b, v);
	/* a NUL ("\u0000") ends the text: what follows is not shown */
	if (!b.len || !*buf_data(&b)) {
		buf_free(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Does item's key hold a NUL character? */
static bool csl_has_nul(const struct value *item, const char *key)
{
	const struct value *v = value_get(item, key);
	if (!v || v->kind != VALUE_STRING)
		return false;
	struct buf b = BUF_INIT;
	value_put_text(&b, v);
	bool nul = b.len && memchr(buf_data(&b), '\0', b.len);
	buf_free(&b);
	return nul;
}

static void csl_names(const struct value *list, struct bib_name **out, size_t *n)
{
	if (!list || list->kind != VALUE_LIST || !list->count)
		return;
	*out = xcalloc(list->count, sizeof **out);
	for (size_t i = 0; i < list->count; i++) {
		const struct value *nm = list->items[i];
		if (nm->kind != VALUE_MAP)
			continue;
		char *family = csl_text(nm, "family"), *literal = csl_text(nm, "literal");
		char *given = csl_text(nm, "given");
		char *particle = csl_text(nm, "non-dropping-particle");
		if (!family && !literal) {
			free(given);
			free(particle);
			continue;
		}
		if (family && particle) {
			char *f = xasprintf("%s %s", particle, family);
			free(family);
			family = f;
		}
		free(particle);
		(*out)[*n].family = family ? family : literal;
		if (family)
			free(literal);
		(*out)[(*n)++].given = given ? given : xstrdup("");
	}
}

bool bib_read_csl(struct bib *b, const char *path, const char *shown, struct diag *d)
{
	b->files = xrealloc(b->files, (b->nfiles + 1) * sizeof *b->files);
	b->files[b->nfiles++] = xstrdup(shown);
	const char *file = b->files[b->nfiles - 1];
	struct value *doc = structured_json_tree(path, file, d);
	if (!doc)
		return false;
	bool ok = true;
	if (doc->kind != VALUE_LIST) {
		diag_error(d, doc->loc,
			   "a CSL-JSON bibliography is an array of items ([{\"id\": ..., \"title\": "
			   "...}, ...])");
		value_free(doc);
		return false;
	}
	for (size_t i = 0; i < doc->count; i++) {
		const struct value *item = doc->items[i];
		if (item->kind == VALUE_MAP && csl_has_nul(item, "id")) {
			diag_error(d, item->loc,
				   "a CSL-JSON item's \"id\" holds a NUL character (\\u0000): a "
				   "citation key is letters, digits and punctuation");
			ok = false;
			continue;
		}
		char *id = item->kind == VALUE_MAP ? csl_text(item, "id") : NULL;
		if (!id) {
			diag_error(d, item->loc, "a CSL-JSON item needs an \"id\" (its citation key)");
			ok = false;
			continue;
		}
		struct bib_entry e = {0};
		e.key = id;
		e.type = csl_text(item, "type");
		if (!e.type)
			e.type = xstrdup("document");
		e.at = item->loc;
		e.at.file = file;
		csl_names(value_get(item, "author"), &e.authors, &e.nauthors);
		csl_names(value_get(item, "editor"), &e.editors, &e.neditors);
		e.title = csl_text(item, "title");
		e.container = csl_text(item, "container-title");
		const struct value *issued = value_get(item, "issued");
		if (issued && issued->kind == VALUE_MAP) {
			const struct value *dp = value_get(issued, "date-parts");
			if (dp && dp->kind == VALUE_LIST && dp->count && dp->items[0]->kind == VALUE_LIST &&
			    dp->items[0]->count) {
				struct buf y = BUF_INIT;
				value_put_text(&y, dp->items[0]->items[0]);
				e.year = buf_detach(&y);
			} else {
				char *raw = csl_text(issued, "raw");
				if (!raw)
					raw = csl_text(issued, "literal");
				if (raw && strlen(raw) >= 4)
					e.year = xstrndup(raw, 4);
				free(raw);
			}
		}
		e.volume = csl_text(item, "volume");
		e.number = csl_text(item, "issue");
		e.pages = csl_text(item, "page");
		e.publisher = csl_text(item, "publisher");
		e.doi = csl_text(item, "DOI");
		e.url = csl_text(item, "URL");
		add_entry(b, &e, d);
	}
	value_free(doc);
	return ok;
}

bool bib_read_file(struct bib *b, const char *path, const char *shown, struct loc at,
		   struct diag *d)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (path_exists(path))
			diag_error(d, at, "bibliography '%s' is %s, not a file", shown,
				   file_kind_word(st.st_mode));
		else
			diag_error(d, at, "bibliography '%s' does not exist", shown);
		return false;
	}
	if (str_has_suffix(path, ".json"))
		return bib_read_csl(b, path, shown, d);
	struct buf text = BUF_INIT;
	if (!file_read(path, &text, NULL)) {
		diag_error(d, at, "cannot read bibliography '%s': %s", shown, strerror(errno));
		buf_free(&text);
		return false;
	}
	bool ok = bib_read_bibtex(b, buf_data(&text), text.len, shown, d);
	buf_free(&text);
	return ok;
}

static void names_free(struct bib_name *n, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		free(n[i].family);
		free(n[i].given);
	}
	free(n);
}

static void entry_free(struct bib_entry *e)
{
	free(e->key);
	free(e->type);
	names_free(e->authors, e->nauthors);
	names_free(e->editors, e->neditors);
	free(e->title);
	free(e->container);
	free(e->year);
	free(e->volume);
	free(e->number);
	free(e->pages);
	free(e->publisher);
	free(e->doi);
	free(e->url);
	free(e->eprint);
}

void bib_clear(struct bib *b)
{
	for (size_t i = 0; i < b->n; i++)
		entry_free(&b->e[i]);
	free(b->e);
	for (size_t i = 0; i < b->nfiles; i++)
		free(b->files[i]);
	free(b->files);
	memset(b, 0, sizeof *b);
}
