/* parserdef.c: parser definitions (SPEC section 7, logparse.h) and the
 * set of parsers.  A definition is a YAML map, checked key by key, an
 * unknown key or word with a did-you-mean; every pattern is compiled
 * once with PCRE2 (data/re.h: 8-bit, never UTF, so that invalid UTF-8
 * in a log is just bytes), JIT-compiled when a file is first read with
 * its parser (parser_jit()), and carries the literal the
 * scanner searches for first (literal.c).  The set holds the built-ins,
 * then the project's parsers, a later definition of a name replacing an
 * earlier one, and remembers the definitions that did not load. */
#include "parser.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/embedded.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/keys.h"
#include "data/re.h"
#include "data/value.h"
#include "data/yamldoc.h"
#include "expr/expr.h"
#include "parse/structured.h"
#include "literal.h"

static const char *const format_names[] = {"text", "json", "yaml", "csv", "xml", "junit", "tfevents", "dllogger", NULL};

const char *format_name(enum pformat f)
{
	return (size_t)f < sizeof format_names / sizeof *format_names - 1 ? format_names[f] : "?";
}

/* The start of line `line` (1-based) of text, or NULL. */
static const char *text_line(const char *text, size_t len, int line)
{
	const char *p = text, *end = text + len;
	for (int i = 1; i < line; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	return p;
}

/* Where byte `off` of a scalar's value is in the definition's text:
 * quotes and escapes make the two differ. */
static struct loc scalar_offset_loc(const char *text, size_t len, const struct value *v, size_t off)
{
	struct loc at = v->loc;
	at.len = 1;
	const char *ls = at.line > 0 ? text_line(text, len, at.line) : NULL;
	if (!ls || at.col < 1)
		return at;
	const char *end = text + len;
	const char *p = ls + at.col - 1;
	if (p >= end)
		return at;
	char q = *p;
	if (q == '|' || q == '>')
		return at;
	if (q == '\'' || q == '"')
		p++;
	for (size_t k = 0; k < off && p < end && *p != '\n'; k++) {
		if (q == '\'' && p[0] == '\'' && p + 1 < end && p[1] == '\'')
			p += 2;
		else if (q == '"' && p[0] == '\\' && p + 1 < end)
			p += p[1] == 'x' ? 4 : p[1] == 'u' ? 6 : p[1] == 'U' ? 10 : 2;
		else
			p++;
	}
	if (p > end)
		p = end;
	at.col = (int)(p - ls) + 1;
	return at;
}

/* The definition being loaded. */
struct def {
	struct parser *p;
	const char *text;
	size_t len;
	struct diag *d;
	bool ok;
};

static bool pattern_compile(struct def *df, struct pattern *pat, const struct value *v,
			    const char *what)
{
	memset(pat, 0, sizeof *pat);
	pat->loc = v->loc;
	if (v->kind != VALUE_STRING && v->kind != VALUE_NUMBER) {
		diag_error(df->d, v->loc, "the pattern of %s must be a string, not %s", what,
			   value_kind_name(v->kind));
		df->ok = false;
		return false;
	}
	pat->src = xstrndup(v->text, v->len);
	pat->len = v->len;
	char msg[256];
	size_t erroff;
	/* JIT-compiled by parser_jit(), when a file is read with it */
	pat->code = re_compile_plain(pat->src, pat->len, msg, sizeof msg, &erroff);
	if (!pat->code) {
		diag_error(df->d, scalar_offset_loc(df->text, df->len, v, erroff),
			   "bad pattern for %s: %s (at offset %zu in the pattern)", what, msg,
			   erroff);
		df->ok = false;
		/* The caller keeps only the patterns that compiled. */
		free(pat->src);
		pat->src = NULL;
		return false;
	}
	struct buf lit = BUF_INIT;
	pattern_literal(pat->src, pat->len, &lit);
	if (lit.len) {
		pat->litlen = lit.len;
		pat->lit = buf_detach(&lit);
		literal_rare(pat);
		/* The source starts with the literal's bytes as written (no
		 * escape, no quantifier that could drop its last byte): a
		 * match can only start where the literal does. */
		char after = pat->len > pat->litlen ? pat->src[pat->litlen] : '\0';
		pat->lit_prefix = memcmp(pat->src, pat->lit, pat->litlen) == 0 &&
				  !(after && strchr("*?{", after));
	}

	buf_free(&lit);
	return true;
}

/* The length of an atom at s that only matches a blank (' ', '\t',
 * '\s', '\h', '\x20', '[ \t]', '[[:space:]]', ...), or 0. */
static size_t blank_atom(const char *s, const char *end)
{
	if (s < end && (*s == ' ' || *s == '\t'))
		return 1;
	if (end - s >= 2 && s[0] == '\\' && strchr("sht", s[1]))
		return 2;
	if (end - s >= 4 && memcmp(s, "\\x20", 4) == 0)
		return 4;
	static const char *const classes[] = {"[[:space:]]", "[[:blank:]]", NULL};
	for (size_t i = 0; classes[i]; i++)
		if ((size_t)(end - s) >= strlen(classes[i]) &&
		    memcmp(s, classes[i], strlen(classes[i])) == 0)
			return strlen(classes[i]);
	if (s < end && *s == '[' && s + 1 < end && s[1] != '^') {
		/* A class of blanks only: [ \t], [\s], [\t ]. */
		const char *q = s + 1;
		while (q < end && *q != ']') {
			if (*q == ' ' || *q == '\t')
				q++;
			else if (end - q >= 2 && q[0] == '\\' && strchr("sht", q[1]))
				q += 2;
			else
				return 0;
		}
		return q < end && q > s + 1 ? (size_t)(q + 1 - s) : 0;
	}
	return 0;
}

/* Does the pattern, at the top level, hold a '|' (another branch that
 * may match without the start it wants)? */
static bool has_top_branch(const char *s, const char *end)
{
	int depth = 0;
	bool in_class = false;
	for (const char *q = s; q < end; q++) {
		if (*q == '\\') {
			q++;
			continue;
		}
		if (in_class) {
			in_class = *q != ']';
			continue;
		}
		if (*q == '[') {
			in_class = true;
			if (q + 1 < end && q[1] == ']')
				q++;
		} else if (*q == '(') {
			depth++;
		} else if (*q == ')') {
			depth--;
		} else if (*q == '|' && depth == 0) {
			return true;
		}
	}
	return false;
}

/* A pattern a line is matched with that wants blanks right after '^':
 * lines lose their leading blanks before any pattern sees them (scan.c,
 * normalize()), so it can never match.  A warning at its blanks. */
static void warn_leading_blanks(struct def *df, struct pattern *pat, const struct value *v,
				const char *what)
{
	if (!pat->code)
		return;
	const char *s = pat->src, *end = pat->src + pat->len;
	const char *q = s;
	/* Leading option settings: (?m), (?i), (?x) ... ((?x) lets a blank
	 * be layout, not a blank to match: then say nothing.) */
	while (end - q >= 3 && q[0] == '(' && q[1] == '?') {
		const char *c = q + 2;
		while (c < end && (isalpha((unsigned char)*c) || *c == '-'))
			c++;
		if (c >= end || *c != ')' || c == q + 2)
			break;
		if (memchr(q + 2, 'x', (size_t)(c - q - 2)))
			return;
		q = c + 1;
	}
	if (q >= end || *q != '^')
		return;
	const char *atom = q + 1;
	size_t n = blank_atom(atom, end);
	if (!n)
		return;
	char quant = atom + n < end ? atom[n] : '\0';
	if (quant == '*' || quant == '?' || (quant == '{' && atom + n + 1 < end && atom[n + 1] == '0'))
		return;
	if (has_top_branch(s, end))
		return;
	struct loc at = scalar_offset_loc(df->text, df->len, v, (size_t)(atom - s));
	at.len = (int)n + (quant == '+' || quant == '{' ? 1 : 0);
	pat->never = true;
	diag_warning(df->d, at,
		     "the pattern of %s can never match: it wants blanks after '^', but lines "
		     "lose their leading blanks before patterns see them; drop them, or write "
		     "'^\\s*'",
		     what);
}

static void pattern_jit(struct pattern *pat)
{
	if (pat->code)
		pat->jit = re_jit(pat->code);
}

/* Guards the jitted flags and the patterns' jit of every parser: a
 * parser is JIT-compiled once, by the first thread that reads a file
 * with it, while the others wait. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

/* p's detect patterns JIT-compiled, once; jit_lock held. */
static void detect_jit_locked(struct parser *p)
{
	if (!p->detect_jitted) {
		for (size_t i = 0; i < p->ndetect; i++)
			pattern_jit(&p->detect[i]);
		p->detect_jitted = true;
	}
}

/* (the parsers are made by parsers_add() and only read after it: the
 * casts below write what the loading left to do, under jit_lock) */
void parser_jit_detect(const struct parser *p)
{
	pthread_mutex_lock(&jit_lock);
	detect_jit_locked((struct parser *)p);
	pthread_mutex_unlock(&jit_lock);
}

void parser_jit(const struct parser *p)
{
	pthread_mutex_lock(&jit_lock);
	struct parser *w = (struct parser *)p;
	detect_jit_locked(w);
	if (w->jitted) {
		pthread_mutex_unlock(&jit_lock);
		return;
	}
	for (size_t i = 0; i < w->nstyle_from; i++)
		pattern_jit(&w->style_from[i]);
	for (size_t i = 0; i < w->nfields; i++) {
		pattern_jit(&w->fields[i].pat);
		pattern_jit(&w->fields[i].reset);
	}
	for (size_t i = 0; i < w->nseries; i++) {
		pattern_jit(&w->series[i].pat);
		pattern_jit(&w->series[i].more_until);
	}
	for (size_t i = 0; i < w->ntables; i++)
		pattern_jit(&w->tables[i].header);
	for (size_t i = 0; i < w->ncarries; i++) {
		pattern_jit(&w->carries[i].pat);
		pattern_jit(&w->carries[i].reset);
	}
	pattern_jit(&w->split.pat);
	w->jitted = true;
	pthread_mutex_unlock(&jit_lock);
}

static void pattern_free(struct pattern *pat)
{
	free(pat->src);
	free(pat->lit);
	pcre2_code_free(pat->code);
}

uint32_t pattern_groups(const struct pattern *pat)
{
	uint32_t n = 0;
	pcre2_pattern_info(pat->code, PCRE2_INFO_CAPTURECOUNT, &n);
	return n;
}

/* The named groups in group-number order: names[i] of group nums[i]. */
static size_t pattern_names(const struct pattern *pat, const char ***names, int **nums)
{
	uint32_t count = 0, size = 0;
	PCRE2_SPTR table = NULL;
	pcre2_pattern_info(pat->code, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(pat->code, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(pat->code, PCRE2_INFO_NAMETABLE, &table);
	*names = xcalloc(count + 1, sizeof **names);
	*nums = xcalloc(count + 1, sizeof **nums);
	size_t n = 0;
	for (uint32_t i = 0; i < count; i++) {
		PCRE2_SPTR e = table + (size_t)i * size;
		int num = (e[0] << 8) | e[1];
		const char *name = (const char *)(e + 2);
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= strcmp((*names)[k], name) == 0;
		if (dup)
			continue;
		/* Insertion sort by group number: the table is sorted by name. */
		size_t at = n;
		while (at > 0 && (*nums)[at - 1] > num) {
			(*nums)[at] = (*nums)[at - 1];
			(*names)[at] = (*names)[at - 1];
			at--;
		}
		(*nums)[at] = num;
		(*names)[at] = name;
		n++;
	}
	return n;
}

static int pattern_group_named(const struct pattern *pat, const char *name)
{
	int n = pcre2_substring_number_from_name(pat->code, (PCRE2_SPTR)name);
	if (n == PCRE2_ERROR_NOUNIQUESUBSTRING) {
		const char **names;
		int *nums;
		size_t k = pattern_names(pat, &names, &nums);
		n = -1;
		for (size_t i = 0; i < k && n < 0; i++)
			if (strcmp(names[i], name) == 0)
				n = nums[i];
		free(names);
		free(nums);
	}
	return n < 0 ? -1 : n;
}

/* Loading definitions. */

/* An unknown key is an error that fails the definition. */
static void unknown_key(struct def *df, const struct value *map, size_t i, const char *where,
			const char *const *known)
{
	keys_check_one(map, i, known, where, NULL, df->d);
	df->ok = false;
}

static bool want_string(struct def *df, const struct value *v, const char *what)
{
	if (v->kind == VALUE_STRING || (v->kind == VALUE_NUMBER && v->text))
		return true;
	diag_error(df->d, v->loc, "%s must be a string, not %s", what, value_kind_name(v->kind));
	df->ok = false;
	return false;
}

/* `optional: true|false` of a series or table, into *out. */
static void read_optional(struct def *df, const struct value *v, const char *what, bool *out)
{
	if (!v)
		return;
	if (v->kind != VALUE_BOOL) {
		diag_error(df->d, v->loc, "optional in %s is true or false, not %s", what,
			   value_kind_name(v->kind));
		df->ok = false;
		return;
	}
	*out = v->boolean;
}

/* A table's delimiter: ',', ';', '|' or a tab ("\t", or '\t' as
 * written in single quotes). */
static void read_delimiter(struct def *df, const struct value *v, const char *what, char *out)
{
	if (!v)
		return;
	if (v->kind == VALUE_STRING) {
		if (v->len == 1 && v->text[0] && strchr(",;|\t", v->text[0])) {
			*out = v->text[0];
			return;
		}
		if (v->len == 2 && v->text[0] == '\\' && v->text[1] == 't') {
			*out = '\t';
			return;
		}
	}
	if (v->kind == VALUE_STRING)
		diag_error(df->d, v->loc,
			   "the delimiter of %s is ',', ';', '|' or '\\t' (a tab), not '%.*s'", what,
			   (int)v->len, v->text);
	else
		diag_error(df->d, v->loc,
			   "the delimiter of %s is ',', ';', '|' or '\\t' (a tab), not %s", what,
			   value_kind_name(v->kind));
	df->ok = false;
}

static bool want_map(struct def *df, const struct value *v, const char *what)
{
	if (v->kind == VALUE_MAP)
		return true;
	diag_error(df->d, v->loc, "%s must be a map of names, not %s", what,
		   value_kind_name(v->kind));
	df->ok = false;
	return false;
}

static int word_index(const struct value *v, const char *const *words)
{
	if (v->kind != VALUE_STRING)
		return -1;
	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == v->len && memcmp(words[i], v->text, v->len) == 0)
			return i;
	return -1;
}

/* One of words (the value's own spelling), or -1 after an error. */
static int want_word(struct def *df, const struct value *v, const char *what,
		     const char *const *words)
{
	int i = word_index(v, words);
	if (i >= 0)
		return i;
	struct buf b = BUF_INIT;
	if (v->kind == VALUE_STRING) {
		buf_printf(&b, "unknown %s '%s'", what, v->text);
		const char *close = closest_name(v->text, words);
		if (close)
			buf_printf(&b, " (did you mean '%s'?)", close);
		else {
			buf_puts(&b, " (one of: ");
			buf_put_names(&b, words);
			buf_puts(&b, ")");
		}
	} else {
		buf_printf(&b, "%s must be one of ", what);
		buf_put_names(&b, words);
		buf_printf(&b, ", not %s", value_kind_name(v->kind));
	}
	diag_error(df->d, v->loc, "%s", buf_data(&b));
	buf_free(&b);
	df->ok = false;
	return -1;
}

/* The words of enum vtype but "auto": index i is type i + 1. */
static const char *const *const type_words = vtype_names + 1;

/* A key that takes one value or a list of them: its items, as a list. */
static size_t one_or_list(const struct value *const *v, const struct value *const **items)
{
	if ((*v)->kind == VALUE_LIST) {
		*items = (const struct value *const *)(*v)->items;
		return (*v)->count;
	}
	*items = v;
	return 1;
}

static enum vtype want_type(struct def *df, const struct value *v)
{
	int i = want_word(df, v, "type", type_words);
	return i < 0 ? VT_AUTO : (enum vtype)(i + 1);
}

/* One field, or one alternative of a field given as a list (`what`
 * names it in messages). */
static void load_field_one(struct def *df, const char *name, struct loc key_loc,
			   const struct value *v, const char *what)
{
	struct parser *p = df->p;
	struct pfield *f = &p->fields[p->nfields++];
	memset(f, 0, sizeof *f);
	f->name = xstrdup(name);
	f->loc = key_loc;
	f->group = -1;
	f->nalts = 1;
	bool star = strcmp(name, "*") == 0;
	const struct value *pat = NULL, *group = NULL, *pick = NULL, *value = NULL,
			   *reset = NULL;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"pattern", "pick",  "type", "group",
						   "default", "value", "reset", NULL};
		for (size_t i = 0; i < v->count; i++) {
			const struct value *item = v->items[i];
			const char *k = v->keys[i];
			if (strcmp(k, "pattern") == 0) {
				pat = item;
			} else if (strcmp(k, "pick") == 0) {
				static const char *const picks[] = {"first", "last", "sum", "count",
								    NULL};
				int w = want_word(df, item, "pick", picks);
				f->first = w == 0;
				f->agg = w == 2 ? AGG_SUM : w == 3 ? AGG_COUNT : AGG_NONE;
				pick = item;
			} else if (strcmp(k, "value") == 0) {
				value = item;
				if (item->kind == VALUE_STRING || item->kind == VALUE_NUMBER) {
					f->has_value = true;
					f->value = xstrndup(item->text, item->len);
					f->value_len = item->len;
				} else if (item->kind == VALUE_NULL) {
					f->has_value = true;
				} else {
					diag_error(df->d, item->loc,
						   "the value of %s is a number, a string or null (a "
						   "match makes it missing), not %s",
						   what, value_kind_name(item->kind));
					df->ok = false;
				}
			} else if (strcmp(k, "reset") == 0) {
				reset = item;
			} else if (strcmp(k, "type") == 0) {
				f->type = want_type(df, item);
			} else if (strcmp(k, "group") == 0) {
				group = item;
			} else if (strcmp(k, "default") == 0) {
				if (item->kind == VALUE_STRING || item->kind == VALUE_NUMBER) {
					f->def = xstrndup(item->text, item->len);
					f->def_len = item->len;
				} else if (item->kind != VALUE_NULL) {
					diag_error(df->d, item->loc,
						   "the default of %s must be a number or a string, not %s",
						   what, value_kind_name(item->kind));
					df->ok = false;
				}
			} else {
				char *where = xasprintf("in %s", what);
				unknown_key(df, v, i, where, keys);
				free(where);
			}
		}
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no pattern", what);
			df->ok = false;
		}
	} else {
		pat = v;
	}
	if (value && star) {
		diag_error(df->d, value->loc,
			   "field '*' reads each value from its group (?<value>...); a fixed value "
			   "is for a field declared by name");
		df->ok = false;
	} else if (value && f->agg != AGG_NONE) {
		diag_error(df->d, pick->loc,
			   "%s: a fixed value and pick %s do not go together (the value is what "
			   "one match gives); drop one of them",
			   what, f->agg == AGG_SUM ? "sum" : "count");
		df->ok = false;
	}
	if (pick && star && f->agg != AGG_NONE) {
		diag_error(df->d, pick->loc,
			   "field '*' picks first or last; sum and count are for a field declared "
			   "by name");
		df->ok = false;
	}
	if (reset && f->agg == AGG_NONE) {
		diag_error(df->d, v->key_locs[value_index(v, "reset")],
			   "%s: reset starts a sum or a count again; it goes with pick: sum or "
			   "pick: count",
			   what);
		df->ok = false;
	} else if (reset) {
		char *rwhat = xasprintf("the reset of %s", what);
		if (pattern_compile(df, &f->reset, reset, rwhat))
			warn_leading_blanks(df, &f->reset, reset, rwhat);
		free(rwhat);
	}
	if (!pat || !pattern_compile(df, &f->pat, pat, what))
		return;
	warn_leading_blanks(df, &f->pat, pat, what);
	int ngroups = (int)pattern_groups(&f->pat);
	if (star) {
		f->name_group = pattern_group_named(&f->pat, "name");
		f->value_group = pattern_group_named(&f->pat, "value");
		if (f->name_group < 0 || f->value_group < 0) {
			diag_error(df->d, pat->loc,
				   "field '*' names each field with the pattern's group "
				   "(?<name>...) and reads (?<value>...): the pattern has no group "
				   "'%s'",
				   f->name_group < 0 ? "name" : "value");
			df->ok = false;
		}
	}
	if (group) {
		if (group->kind == VALUE_NUMBER && group->number == floor(group->number) &&
		    group->number >= 0) {
			f->group = (int)group->number;
			if (f->group > ngroups) {
				diag_error(df->d, group->loc,
					   "%s: the pattern has no group %d (it has %d)", what,
					   f->group, ngroups);
				df->ok = false;
			}
		} else if (group->kind == VALUE_STRING) {
			f->group = pattern_group_named(&f->pat, group->text);
			if (f->group < 0) {
				diag_error(df->d, group->loc, "%s: the pattern has no group named '%s'",
					   what, group->text);
				df->ok = false;
			}
		} else {
			diag_error(df->d, group->loc,
				   "the group of %s is a number or a group's name, not %s", what,
				   value_kind_name(group->kind));
			df->ok = false;
		}
	}
}

static void load_field(struct def *df, const char *name, struct loc key_loc, const struct value *v)
{
	bool star = strcmp(name, "*") == 0;
	char *what = star ? xstrdup("field '*'") : xasprintf("field '%s'", name);
	if (v->kind != VALUE_LIST) {
		load_field_one(df, name, key_loc, v, what);
		free(what);
		return;
	}
	/* Alternatives: one pfield each; the one that matched latest in the
	 * file gives the value (logparse.c). */
	if (star) {
		diag_error(df->d, v->loc,
			   "field '*' takes one pattern, not a list of alternatives");
		df->ok = false;
	} else if (v->count == 0) {
		diag_error(df->d, v->loc,
			   "%s has no alternatives: give it a pattern, or a list of patterns and "
			   "{pattern, value} maps",
			   what);
		df->ok = false;
	}
	struct parser *p = df->p;
	size_t head = p->nfields;
	const struct value *def_at = NULL;
	for (size_t i = 0; i < v->count && !star; i++) {
		const struct value *item = v->items[i];
		char *alt_what = xasprintf("alternative %zu of %s", i + 1, what);
		if (item->kind == VALUE_LIST) {
			diag_error(df->d, item->loc,
				   "%s is a pattern or a map with a pattern, not a list", alt_what);
			df->ok = false;
			free(alt_what);
			continue;
		}
		size_t at = p->nfields;
		load_field_one(df, name, key_loc, item, alt_what);
		free(alt_what);
		struct pfield *f = &p->fields[at];
		f->alt = at != head;
		if (f->def) {
			const struct value *dv = value_get(item, "default");
			if (def_at) {
				diag_error(df->d, dv ? dv->loc : item->loc,
					   "%s has a default in an earlier alternative: give it once",
					   what);
				df->ok = false;
			}
			def_at = dv ? dv : item;
		}
	}
	if (p->nfields > head)
		p->fields[head].nalts = p->nfields - head;
	free(what);
}

/* The values of map's keys, in the order of keys (NULL-ended), into
 * got[] (NULL where a key is absent); any other key is an error
 * "unknown key ... <where>" with a did-you-mean. */
static void map_keys(struct def *df, const struct value *map, const char *const *keys,
		     const struct value **got, const char *where)
{
	for (size_t k = 0; keys[k]; k++)
		got[k] = NULL;
	for (size_t i = 0; i < map->count; i++) {
		size_t k = 0;
		while (keys[k] && strcmp(keys[k], map->keys[i]) != 0)
			k++;
		if (keys[k])
			got[k] = map->items[i];
		else
			unknown_key(df, map, i, where, keys);
	}
}

/* "series 's' has no column 'x' (did you mean 'y'?)" at `at`. */
static void no_column(struct def *df, struct pseries *s, const char *what, const char *name,
		      struct loc at)
{
	s->cols[s->ncols] = NULL; /* allocated one longer */
	const char *close = closest_name(name, (const char *const *)s->cols);
	if (close)
		diag_error(df->d, at, "%s has no column '%s' (did you mean '%s'?)", what, name,
			   close);
	else
		diag_error(df->d, at, "%s has no column '%s'", what, name);
	df->ok = false;
}

/* A series' `more: {into: COLUMN, until: 'pattern', lines: N}`. */
static void load_more(struct def *df, struct pseries *s, const char *what,
		      const struct value *v)
{
	if (!want_map(df, v, "more"))
		return;
	static const char *const keys[] = {"into", "until", "lines", NULL};
	const struct value *got[3];
	char *where = xasprintf("in the more of %s", what);
	map_keys(df, v, keys, got, where);
	free(where);
	const struct value *into = got[0], *until = got[1], *lines = got[2];
	if (!into) {
		diag_error(df->d, v->loc, "the more of %s needs into: the column its lines go to",
			   what);
		df->ok = false;
		return;
	}
	/* No columns: their error is reported already. */
	if (!want_string(df, into, "into") || !s->cols)
		return;
	for (size_t j = 0; j < s->ncols; j++)
		if (strcmp(s->cols[j], into->text) == 0)
			s->more_col = (int)j;
	if (s->more_col < 0) {
		no_column(df, s, what, into->text, into->loc);
		return;
	}
	s->more_max = MORE_LINES;
	if (lines) {
		if (lines->kind != VALUE_NUMBER || lines->number != floor(lines->number) ||
		    lines->number < 1 || lines->number > MORE_LINES_MAX) {
			diag_error(df->d, lines->loc,
				   "lines in the more of %s is a whole number from 1 to %d", what,
				   MORE_LINES_MAX);
			df->ok = false;
		} else {
			s->more_max = (size_t)lines->number;
		}
	}
	if (until) {
		char *uwhat = xasprintf("the more of %s (until)", what);
		if (pattern_compile(df, &s->more_until, until, uwhat))
			warn_leading_blanks(df, &s->more_until, until, uwhat);
		free(uwhat);
	}
}

static void load_series(struct def *df, const char *name, struct loc key_loc,
			const struct value *v)
{
	struct parser *p = df->p;
	struct pseries *s = &p->series[p->nseries++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->loc = key_loc;
	s->table = -1;
	char *what = xasprintf("series '%s'", name);
	const struct value *pat = NULL, *cols = NULL, *types = NULL, *more = NULL;
	s->more_col = -1;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"pattern", "columns", "types", "more", "optional",
						   NULL};
		const struct value *got[5];
		char *where = xasprintf("in %s", what);
		map_keys(df, v, keys, got, where);
		free(where);
		pat = got[0], cols = got[1], types = got[2], more = got[3];
		read_optional(df, got[4], what, &s->optional);
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no pattern", what);
			df->ok = false;
		}
	} else {
		pat = v;
	}
	if (!pat || !pattern_compile(df, &s->pat, pat, what))
		goto out;
	warn_leading_blanks(df, &s->pat, pat, what);
	const char **names;
	int *nums;
	size_t nnames = pattern_names(&s->pat, &names, &nums);
	if (cols) {
		if (cols->kind != VALUE_LIST) {
			diag_error(df->d, cols->loc, "the columns of %s are a list of group names, not %s",
				   what, value_kind_name(cols->kind));
			df->ok = false;
		} else {
			s->cols = xcalloc(cols->count + 1, sizeof *s->cols);
			s->groups = xcalloc(cols->count + 1, sizeof *s->groups);
			for (size_t i = 0; i < cols->count; i++) {
				const struct value *c = cols->items[i];
				if (!want_string(df, c, "a column"))
					continue;
				int g = pattern_group_named(&s->pat, c->text);
				if (g < 0) {
					names[nnames] = NULL;
					const char *close = closest_name(c->text, names);
					if (close)
						diag_error(df->d, c->loc,
							   "%s: the pattern has no group named '%s' "
							   "(did you mean '%s'?)",
							   what, c->text, close);
					else
						diag_error(df->d, c->loc,
							   "%s: the pattern has no group named '%s'",
							   what, c->text);
					df->ok = false;
					continue;
				}
				s->cols[s->ncols] = xstrdup(c->text);
				s->groups[s->ncols++] = g;
			}
		}
	} else if (nnames == 0) {
		diag_error(df->d, pat->loc,
			   "%s: name the pattern's groups, as in (?<step>\\d+): they become "
			   "the columns",
			   what);
		df->ok = false;
	} else {
		/* one more: a NULL end for closest_name() */
		s->cols = xcalloc(nnames + 1, sizeof *s->cols);
		s->groups = xcalloc(nnames + 1, sizeof *s->groups);
		for (size_t i = 0; i < nnames; i++) {
			s->cols[i] = xstrdup(names[i]);
			s->groups[i] = nums[i];
		}
		s->ncols = nnames;
	}
	free(names);
	free(nums);
	s->types = xcalloc(s->ncols + 1, sizeof *s->types);
	if (types && s->cols && want_map(df, types, "the types of a series")) {
		for (size_t i = 0; i < types->count; i++) {
			long j = -1;
			for (size_t k = 0; k < s->ncols; k++)
				if (strcmp(s->cols[k], types->keys[i]) == 0)
					j = (long)k;
			if (j < 0) {
				no_column(df, s, what, types->keys[i], types->key_locs[i]);
				continue;
			}
			s->types[j] = want_type(df, types->items[i]);
		}
	}
	if (more)
		load_more(df, s, what, more);
	s->nown = s->ncols;
	s->slow = s->more_col >= 0;
out:
	free(what);
}

/* Whether name is one a report can write as a column: snake_case's
 * own output ("avg_ns", not "Avg NS"). */
static bool is_column_name(const char *name)
{
	char *c = snake_case(name, strlen(name));
	bool ok = *name && strcmp(c, name) == 0;
	free(c);
	return ok;
}

/* A table's `columns: {name: alias | [aliases]}`: the header cells
 * (as printed or in snake_case) that give each column its name. */
static void load_columns(struct def *df, struct ptable *t, const char *what, const struct value *v)
{
	if (!want_map(df, v, "the columns of a table"))
		return;
	t->names = xcalloc(v->count + 1, sizeof *t->names);
	for (size_t i = 0; i < v->count; i++) {
		const char *name = v->keys[i];
		if (!is_column_name(name)) {
			char *c = snake_case(name, strlen(name));
			diag_error(df->d, v->key_locs[i],
				   "'%s' in the columns of %s is not a column name; write '%s'",
				   name, what, *c ? c : "a_name");
			free(c);
			df->ok = false;
			continue;
		}
		t->names[t->nnames++] = xstrdup(name);
	}
	size_t cap = 0;
	for (size_t i = 0; i < v->count; i++) {
		const struct value *item = v->items[i];
		const char *name = v->keys[i];
		size_t idx = 0;
		while (idx < t->nnames && strcmp(t->names[idx], name) != 0)
			idx++;
		if (idx == t->nnames)
			continue; /* a bad name, reported */
		const struct value *const *list = &item;
		size_t n = 1;
		if (item->kind == VALUE_LIST) {
			list = (const struct value *const *)item->items;
			n = item->count;
			if (n == 0) {
				diag_error(df->d, item->loc,
					   "column '%s' of %s lists no header cell: write the cells "
					   "that give it its name",
					   name, what);
				df->ok = false;
			}
		}
		for (size_t k = 0; k < n; k++) {
			const struct value *a = list[k];
			if (a->kind != VALUE_STRING && !(a->kind == VALUE_NUMBER && a->text)) {
				diag_error(df->d, a->loc,
					   "column '%s' of %s is named from a header cell or a list "
					   "of them, not %s",
					   name, what, value_kind_name(a->kind));
				df->ok = false;
				continue;
			}
			char *al = snake_case(a->text, a->len);
			if (!*al) {
				diag_error(df->d, a->loc, "'%s' is not a header cell (column '%s' of %s)",
					   a->text, name, what);
				df->ok = false;
				free(al);
				continue;
			}
			/* Each cell names one column: another's name or alias is
			 * ambiguous. */
			const char *other = NULL;
			for (size_t j = 0; j < t->nnames && !other; j++)
				if (j != idx && strcmp(t->names[j], al) == 0)
					other = t->names[j];
			for (size_t j = 0; j < t->nalias && !other; j++)
				if (strcmp(t->alias[j], al) == 0)
					other = t->alias_to[j] == t->names[idx] ? "" : t->alias_to[j];
			if (other && !*other) {
				free(al); /* said twice for one column: harmless */
				continue;
			}
			if (other) {
				diag_error(df->d, a->loc,
					   "header cell '%s' names two columns of %s: '%s' and '%s'", al,
					   what, other, name);
				df->ok = false;
				free(al);
				continue;
			}
			if (strcmp(al, name) == 0) {
				free(al); /* a column's own name needs no alias */
				continue;
			}
			if (t->nalias == cap) {
				cap = cap ? cap * 2 : 16;
				t->alias = xrealloc(t->alias, cap * sizeof *t->alias);
				t->alias_to = xrealloc(t->alias_to, cap * sizeof *t->alias_to);
			}
			t->alias[t->nalias] = al;
			t->alias_to[t->nalias++] = t->names[idx];
		}
	}
}

static void load_table(struct def *df, const char *name, struct loc key_loc, const struct value *v)
{
	struct parser *p = df->p;
	struct ptable *t = &p->tables[p->ntables++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	t->loc = key_loc;
	t->series = -1;
	char *what = xasprintf("table '%s'", name);
	const struct value *pat = NULL, *types = NULL, *cols = NULL, *fill = NULL;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"header",    "types",     "optional", "columns",
						   "fill_down", "delimiter", NULL};
		const struct value *got[6];
		char *where = xasprintf("in %s", what);
		map_keys(df, v, keys, got, where);
		free(where);
		pat = got[0], types = got[1], cols = got[3], fill = got[4];
		read_optional(df, got[2], what, &t->optional);
		read_delimiter(df, got[5], what, &t->delim);
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no header pattern", what);
			df->ok = false;
		}
	} else {
		pat = v;
	}
	if (pat && pattern_compile(df, &t->header, pat, what))
		warn_leading_blanks(df, &t->header, pat, what);
	if (cols)
		load_columns(df, t, what, cols);
	/* The columns come from the log's header: a name that none has is
	 * warned about when the table is read (scantable.c). */
	if (types && want_map(df, types, "the types of a table")) {
		t->type_cols = xcalloc(types->count + 1, sizeof *t->type_cols);
		t->types = xcalloc(types->count + 1, sizeof *t->types);
		for (size_t i = 0; i < types->count; i++) {
			/* A cell columns: renames has that name no more. */
			for (size_t k = 0; k < t->nalias; k++)
				if (strcmp(t->alias[k], types->keys[i]) == 0) {
					diag_error(df->d, types->key_locs[i],
						   "%s calls the header cell '%s' '%s' (its columns); "
						   "types names it so",
						   what, types->keys[i], t->alias_to[k]);
					df->ok = false;
				}
			t->type_cols[t->ntypes] = xstrdup(types->keys[i]);
			t->types[t->ntypes++] = want_type(df, types->items[i]);
		}
	}
	/* fill_down: [column, ...] (or one name); checked against the
	 * header when the table is read, as types are. */
	if (fill) {
		const struct value *const *items;
		size_t n = one_or_list(&fill, &items);
		t->fill = xcalloc(n + 1, sizeof *t->fill);
		for (size_t i = 0; i < n; i++) {
			if (items[i]->kind != VALUE_STRING || items[i]->len == 0) {
				diag_error(df->d, items[i]->loc,
					   "fill_down of %s is a list of its columns, such as "
					   "[suite], not %s",
					   what, value_kind_name(items[i]->kind));
				df->ok = false;
				continue;
			}
			t->fill[t->nfill++] = xstrndup(items[i]->text, items[i]->len);
		}
	}
	free(what);
}

/* The series and tables a carry gives its columns to: all of them, or
 * those its `to` names. */
static bool *carry_targets(struct def *df, const struct value *to, const char *what)
{
	struct parser *p = df->p;
	size_t n = p->nseries + p->ntables;
	bool *on = xcalloc(n + 1, sizeof *on);
	if (!to) {
		for (size_t i = 0; i < n; i++)
			on[i] = true;
		return on;
	}
	const char **names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < p->nseries; i++)
		names[i] = p->series[i].name;
	for (size_t i = 0; i < p->ntables; i++)
		names[p->nseries + i] = p->tables[i].name;
	const struct value *const *items;
	size_t k = one_or_list(&to, &items);
	for (size_t i = 0; i < k; i++) {
		const struct value *it = items[i];
		if (it->kind != VALUE_STRING) {
			diag_error(df->d, it->loc,
				   "to: in %s is a list of series and table names, not %s", what,
				   value_kind_name(it->kind));
			df->ok = false;
			continue;
		}
		size_t j = 0;
		while (j < n && strcmp(names[j], it->text) != 0)
			j++;
		if (j < n) {
			on[j] = true;
			continue;
		}
		const char *close = closest_name(it->text, names);
		if (close)
			diag_error(df->d, it->loc,
				   "%s: no series or table is named '%s' (did you mean '%s'?)", what,
				   it->text, close);
		else
			diag_error(df->d, it->loc, "%s: no series or table is named '%s'", what,
				   it->text);
		df->ok = false;
	}
	free(names);
	return on;
}

/* Appends carried column c to series s. */
static void series_carry(struct pseries *s, const char *name, size_t c)
{
	size_t k = s->ncols - s->nown;
	s->cols = xrealloc(s->cols, (s->ncols + 2) * sizeof *s->cols);
	s->groups = xrealloc(s->groups, (s->ncols + 2) * sizeof *s->groups);
	s->types = xrealloc(s->types, (s->ncols + 2) * sizeof *s->types);
	s->carried = xrealloc(s->carried, (k + 1) * sizeof *s->carried);
	s->cols[s->ncols] = xstrdup(name);
	s->groups[s->ncols] = -1;
	s->types[s->ncols] = VT_AUTO;
	s->carried[k] = c;
	s->slow = true;
	s->ncols++;
	s->cols[s->ncols] = NULL;
}

/* One entry of `carry`: 'pattern' or {pattern, reset, to}. */
static void load_carry(struct def *df, size_t idx, const struct value *v)
{
	struct parser *p = df->p;
	struct pcarry *cr = &p->carries[p->ncarries];
	memset(cr, 0, sizeof *cr);
	char *what = xasprintf("carry %zu", idx + 1);
	const struct value *pat = v, *reset = NULL, *to = NULL;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"pattern", "reset", "to", NULL};
		const struct value *got[3];
		char *where = xasprintf("in %s", what);
		map_keys(df, v, keys, got, where);
		free(where);
		pat = got[0], reset = got[1], to = got[2];
		if (!pat) {
			diag_error(df->d, v->loc, "%s has no pattern", what);
			df->ok = false;
			goto out;
		}
	}
	if (!pattern_compile(df, &cr->pat, pat, what))
		goto out;
	warn_leading_blanks(df, &cr->pat, pat, what);
	p->ncarries++;
	if (reset) {
		char *rwhat = xasprintf("the reset of %s", what);
		if (pattern_compile(df, &cr->reset, reset, rwhat))
			warn_leading_blanks(df, &cr->reset, reset, rwhat);
		free(rwhat);
	}
	const char **names;
	int *nums;
	size_t nnames = pattern_names(&cr->pat, &names, &nums);
	if (nnames == 0) {
		diag_error(df->d, pat->loc,
			   "%s: name the pattern's groups, as in (?<kernel>.+): they become "
			   "columns of the rows after the line",
			   what);
		df->ok = false;
	}
	bool *on = carry_targets(df, to, what);
	cr->first = p->ncarry_cols;
	cr->groups = xcalloc(nnames + 1, sizeof *cr->groups);
	for (size_t i = 0; i < nnames; i++) {
		bool dup = false;
		for (size_t c = 0; c < p->ncarry_cols && !dup; c++)
			dup = strcmp(p->carry_cols[c], names[i]) == 0;
		if (dup) {
			diag_error(df->d, pat->loc, "%s: column '%s' is carried by an earlier carry",
				   what, names[i]);
			df->ok = false;
			continue;
		}
		size_t c = p->ncarry_cols++;
		p->carry_cols = xrealloc(p->carry_cols, (c + 2) * sizeof *p->carry_cols);
		p->carry_cols[c] = xstrdup(names[i]);
		p->carry_cols[c + 1] = NULL;
		cr->groups[cr->ncols++] = nums[i];
		for (size_t j = 0; j < p->nseries; j++) {
			struct pseries *s = &p->series[j];
			if (!on[j] || !s->cols)
				continue;
			bool clash = false;
			for (size_t k = 0; k < s->nown && !clash; k++)
				clash = strcmp(s->cols[k], names[i]) == 0;
			if (clash) {
				diag_error(df->d, pat->loc,
					   "%s: the carried column '%s' is a column of series '%s' "
					   "too; rename the group, or leave the series out with to:",
					   what, names[i], s->name);
				df->ok = false;
				continue;
			}
			series_carry(s, names[i], c);
		}
		for (size_t j = 0; j < p->ntables; j++) {
			struct ptable *t = &p->tables[j];
			if (!on[p->nseries + j])
				continue;
			t->carried = xrealloc(t->carried, (t->ncarried + 1) * sizeof *t->carried);
			t->carried[t->ncarried++] = c;
		}
	}
	free(on);
	free(names);
	free(nums);
out:
	free(what);
}

/* A table and a series of one name fill one series, from whichever of
 * them a file holds: they must give the same names, so the table's
 * columns: must name every column of the series. */
static void link_shared(struct def *df, struct ptable *t, long ti, struct pseries *s, long si)
{
	if (!t->nnames) {
		struct buf b = BUF_INIT;
		buf_put_names(&b, (const char *const *)s->cols);
		diag_error(df->d, t->loc,
			   "table '%s' has the name of a series: to fill one series from "
			   "whichever a file holds, give the table columns: naming the series' "
			   "columns (%s); else name it differently",
			   t->name, buf_data(&b));
		buf_free(&b);
		df->ok = false;
		return;
	}
	bool ok = true;
	/* Carried columns are the table's as well as the series'. */
	for (size_t j = 0; j < s->nown; j++) {
		size_t k = 0;
		while (k < t->nnames && strcmp(t->names[k], s->cols[j]) != 0)
			k++;
		if (k < t->nnames)
			continue;
		const char *close = closest_name(s->cols[j], (const char *const *)t->names);
		if (close)
			diag_error(df->d, s->loc,
				   "series '%s' has the name of a table, whose columns: do not "
				   "name its column '%s' (did you mean '%s'?)",
				   s->name, s->cols[j], close);
		else
			diag_error(df->d, s->loc,
				   "series '%s' has the name of a table, whose columns: do not "
				   "name its column '%s'",
				   s->name, s->cols[j]);
		df->ok = false;
		ok = false;
	}
	if (ok) {
		t->series = si;
		s->table = ti;
		df->p->shared = true;
	}
}

static void load_derive_one(struct def *df, const char *name, struct loc key_loc,
			    const struct value *v)
{
	struct parser *p = df->p;
	if (!want_string(df, v, "a derive expression"))
		return;
	struct pderive *dv = &p->derives[p->nderives++];
	dv->name = xstrdup(name);
	dv->loc = key_loc;
	dv->nalts = 1;
	/* The expression's own columns start after a quote. */
	struct loc at = scalar_offset_loc(df->text, df->len, v, 0);
	at.len = 0;
	dv->e = expr_parse(v->text, v->len, at, df->d);
	if (!dv->e)
		df->ok = false;
}

/* A derive: an expression, or a list of them, its alternatives. */
static void load_derive(struct def *df, const char *name, struct loc key_loc, const struct value *v)
{
	if (v->kind != VALUE_LIST) {
		load_derive_one(df, name, key_loc, v);
		return;
	}
	if (v->count == 0) {
		diag_error(df->d, v->loc,
			   "derive '%s' has no alternatives: give it an expression, or a list of "
			   "them (the first that gives a value wins)",
			   name);
		df->ok = false;
		return;
	}
	struct parser *p = df->p;
	size_t head = p->nderives;
	for (size_t i = 0; i < v->count; i++) {
		size_t at = p->nderives;
		load_derive_one(df, name, key_loc, v->items[i]);
		if (p->nderives > at)
			p->derives[at].alt = at != head;
	}
	if (p->nderives > head)
		p->derives[head].nalts = p->nderives - head;
}

/* split: 'pattern' or {pattern: ..., name: GROUP}: each line it
 * matches starts a new run; its named groups (but `name`'s) are fields
 * of that run.  {end: ..., name: GROUP}: each line it matches ends the
 * run it is in (its groups are that run's), the next starting after it. */
static void load_split(struct def *df, struct loc key_loc, const struct value *v)
{
	struct psplit *sp = &df->p->split;
	sp->loc = key_loc;
	sp->name_group = -1;
	const struct value *pat = v, *name = NULL;
	if (v->kind == VALUE_MAP) {
		static const char *const keys[] = {"pattern", "name", "end", NULL};
		const struct value *got[3];
		map_keys(df, v, keys, got, "in split");
		pat = got[0], name = got[1];
		if (pat && got[2]) {
			diag_error(df->d, v->key_locs[value_index(v, "end")],
				   "split takes pattern: (the line that starts each run) or end: "
				   "(the line that ends each run), not both");
			df->ok = false;
			return;
		}
		if (got[2]) {
			pat = got[2];
			sp->end = true;
		}
		if (!pat) {
			diag_error(df->d, v->loc,
				   "split needs pattern: (the line that starts each run) or end: "
				   "(the line that ends each run)");
			df->ok = false;
			return;
		}
	}
	if (!pattern_compile(df, &sp->pat, pat, "split"))
		return;
	warn_leading_blanks(df, &sp->pat, pat, "split");
	const char **names;
	int *nums;
	size_t n = pattern_names(&sp->pat, &names, &nums);
	if (name && want_string(df, name, "the name of split")) {
		char *want = xstrndup(name->text, name->len);
		sp->name_group = pattern_group_named(&sp->pat, want);
		if (sp->name_group < 0) {
			const char *close = closest_name(want, names);
			if (close)
				diag_error(df->d, name->loc,
					   "split's pattern has no group named '%s' (did you mean "
					   "'%s'?)",
					   want, close);
			else
				diag_error(df->d, name->loc,
					   "split's pattern has no group named '%s': write "
					   "(?<%s>...) in it",
					   want, want);
			df->ok = false;
		}
		free(want);
	}
	sp->fields = xcalloc(n + 1, sizeof *sp->fields);
	sp->groups = xcalloc(n + 1, sizeof *sp->groups);
	for (size_t i = 0; i < n; i++) {
		if (nums[i] == sp->name_group)
			continue;
		sp->fields[sp->nfields] = xstrdup(names[i]);
		sp->groups[sp->nfields++] = nums[i];
	}
	free(names);
	free(nums);
}

static void load_patterns(struct def *df, const struct value *v, const char *what,
			  struct pattern **out, size_t *n)
{
	if (v->kind == VALUE_LIST) {
		*out = xcalloc(v->count + 1, sizeof **out);
		for (size_t i = 0; i < v->count; i++)
			if (pattern_compile(df, &(*out)[*n], v->items[i], what))
				(*n)++;
	} else {
		*out = xcalloc(1, sizeof **out);
		if (pattern_compile(df, &(*out)[0], v, what))
			*n = 1;
	}
}

static void parser_free(struct parser *p)
{
	if (!p)
		return;
	free(p->own_text);
	csv_options_free(&p->csv);
	for (size_t i = 0; i < p->ndetect; i++)
		pattern_free(&p->detect[i]);
	free(p->detect);
	for (size_t i = 0; i < p->nexts; i++)
		free(p->exts[i]);
	free(p->exts);
	for (size_t i = 0; i < p->nleave_out; i++)
		free(p->leave_out[i]);
	free(p->leave_out);
	for (size_t i = 0; i < p->nstyle_from; i++)
		pattern_free(&p->style_from[i]);
	free(p->style_from);
	for (size_t i = 0; i < p->nfields; i++) {
		free(p->fields[i].name);
		free(p->fields[i].def);
		free(p->fields[i].value);
		pattern_free(&p->fields[i].pat);
		pattern_free(&p->fields[i].reset);
	}
	free(p->fields);
	for (size_t i = 0; i < p->nseries; i++) {
		struct pseries *s = &p->series[i];
		free(s->name);
		pattern_free(&s->pat);
		for (size_t j = 0; j < s->ncols; j++)
			free(s->cols[j]);
		free(s->cols);
		free(s->groups);
		free(s->types);
		free(s->carried);
		pattern_free(&s->more_until);
	}
	free(p->series);
	for (size_t i = 0; i < p->ntables; i++) {
		free(p->tables[i].name);
		pattern_free(&p->tables[i].header);
		for (size_t j = 0; j < p->tables[i].ntypes; j++)
			free(p->tables[i].type_cols[j]);
		free(p->tables[i].type_cols);
		free(p->tables[i].types);
		for (size_t j = 0; j < p->tables[i].nfill; j++)
			free(p->tables[i].fill[j]);
		free(p->tables[i].fill);
		free(p->tables[i].carried);
		for (size_t j = 0; j < p->tables[i].nnames; j++)
			free(p->tables[i].names[j]);
		free(p->tables[i].names);
		for (size_t j = 0; j < p->tables[i].nalias; j++)
			free(p->tables[i].alias[j]);
		free(p->tables[i].alias);
		free(p->tables[i].alias_to);
	}
	free(p->tables);
	for (size_t i = 0; i < p->ncarries; i++) {
		pattern_free(&p->carries[i].pat);
		pattern_free(&p->carries[i].reset);
		free(p->carries[i].groups);
	}
	free(p->carries);
	for (size_t i = 0; i < p->ncarry_cols; i++)
		free(p->carry_cols[i]);
	free(p->carry_cols);
	for (size_t i = 0; i < p->nderives; i++) {
		free(p->derives[i].name);
		expr_free(p->derives[i].e);
	}
	free(p->derives);
	pattern_free(&p->split.pat);
	for (size_t i = 0; i < p->split.nfields; i++)
		free(p->split.fields[i]);
	free(p->split.fields);
	free(p->split.groups);
	free(p->name);
	free(p->description);
	free(p->example);
	free(p->file);
	free(p->origin);
	free(p);
}

/* number_style: {decimal: ',', thousands: '.'}: how the parser's logs
 * write numbers (valuetype.h). */
/* number_style: {from: ' ([\d.,]+) seconds time elapsed'}: each file
 * tells its own style by the number the pattern's first group captures
 * in the first line it matches (logparse.c). */
static void load_number_style(struct def *df, const struct value *v)
{
	long from = v->kind == VALUE_MAP ? value_index(v, "from") : -1;
	if (from < 0) {
		if (!numstyle_read(v, "in number_style", &df->p->style, df->d))
			df->ok = false;
		df->p->styled = true;
		return;
	}
	if (v->count != 1) {
		diag_error(df->d, v->key_locs[from == 0 ? 1 : 0],
			   "number_style with from: tells the style from the file, so it takes no "
			   "decimal or thousands");
		df->ok = false;
	}
	const struct value *pat = v->items[from];
	if (pat->kind != VALUE_STRING) {
		diag_error(df->d, pat->loc,
			   "number_style's from is a pattern whose first group captures a number "
			   "written with decimals, such as ' ([\\d.,]+) seconds time elapsed'");
		df->ok = false;
		return;
	}
	load_patterns(df, pat, "number_style from", &df->p->style_from, &df->p->nstyle_from);
}

/* The file's name without folders and extension. */
static char *file_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* Parses and checks one definition; NULL after reporting its errors,
 * with *name (the caller frees it) the name it would have had. */
static struct parser *parser_load(const char *file, const char *origin, const char *text,
				  size_t len, bool builtin, struct diag *d, char **name)
{
	static const char *const keys[] = {"name",   "description", "detect",
					   "extensions", "format", "cr",
					   "number_style", "fields", "series",
					   "tables", "carry",       "derive",
					   "split",       "example",
					   "delimiter",   "columns",     "header",
					   "leave_out",   NULL};
	struct parser *p = xcalloc(1, sizeof *p);
	p->file = xstrdup(file);
	p->origin = xstrdup(origin);
	p->builtin = builtin;
	if (builtin) {
		p->source = text;
		p->source_len = len;
	} else {
		p->own_text = xmalloc(len + 1);
		memcpy(p->own_text, text, len);
		p->own_text[len] = '\0';
		p->own_len = len;
	}
	struct def df = {p, text, len, d, true};
	struct value *root = yamldoc_parse(text, len, p->file, 0, d);
	if (!root)
		goto fail;
	if (root->kind != VALUE_MAP) {
		diag_error(d, root->loc.line ? root->loc : loc_line(p->file, 0),
			   "a parser definition is a map with name, detect, fields, series, "
			   "tables and derive; this is %s",
			   value_kind_name(root->kind));
		goto fail;
	}
	const struct value *fields = NULL, *series = NULL, *tables = NULL, *derive = NULL,
			   *carry = NULL;
	const struct value *split = NULL;
	struct loc split_loc = {0};
	bool have_exts = false;
	struct loc style_loc = {0};
	const struct value *csv_keys[3] = {NULL, NULL, NULL}; /* delimiter, columns, header */
	struct loc csv_loc = {0};
	struct loc leave_loc = {0};
	for (size_t i = 0; i < root->count; i++) {
		const char *k = root->keys[i];
		const struct value *v = root->items[i];
		if (strcmp(k, "name") == 0) {
			if (want_string(&df, v, "name")) {
				free(p->name);
				p->name = xstrndup(v->text, v->len);
			}
		} else if (strcmp(k, "description") == 0) {
			if (v->kind != VALUE_NULL && want_string(&df, v, "description"))
				p->description = xstrndup(v->text, v->len);
		} else if (strcmp(k, "example") == 0) {
			if (v->kind != VALUE_NULL && want_string(&df, v, "example"))
				p->example = xstrndup(v->text, v->len);
		} else if (strcmp(k, "detect") == 0) {
			load_patterns(&df, v, "detect", &p->detect, &p->ndetect);
		} else if (strcmp(k, "extensions") == 0) {
			have_exts = true;
			const struct value *const *items;
			size_t n = one_or_list(&v, &items);
			p->exts = xcalloc(n + 1, sizeof *p->exts);
			for (size_t j = 0; j < n; j++)
				if (want_string(&df, items[j], "an extension"))
					p->exts[p->nexts++] = xstrndup(items[j]->text, items[j]->len);
		} else if (strcmp(k, "leave_out") == 0) {
			const struct value *const *items;
			size_t n = one_or_list(&v, &items);
			p->leave_out = xcalloc(n + 1, sizeof *p->leave_out);
			leave_loc = root->key_locs[i];
			for (size_t j = 0; j < n; j++)
				if (want_string(&df, items[j], "a dotted path such as results.times"))
					p->leave_out[p->nleave_out++] =
						xstrndup(items[j]->text, items[j]->len);
		} else if (strcmp(k, "format") == 0) {
			int f = want_word(&df, v, "format", format_names);
			p->format = f < 0 ? FMT_TEXT : (enum pformat)f;
		} else if (strcmp(k, "cr") == 0) {
			static const char *const crs[] = {"last", "keep", NULL};
			p->keep_cr = want_word(&df, v, "cr", crs) == 1;
		} else if (strcmp(k, "number_style") == 0) {
			style_loc = root->key_locs[i];
			load_number_style(&df, v);
		} else if (strcmp(k, "fields") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "fields"))
				fields = v;
		} else if (strcmp(k, "series") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "series"))
				series = v;
		} else if (strcmp(k, "tables") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "tables"))
				tables = v;
		} else if (strcmp(k, "carry") == 0) {
			if (v->kind != VALUE_NULL)
				carry = v;
		} else if (strcmp(k, "derive") == 0) {
			if (v->kind != VALUE_NULL && want_map(&df, v, "derive"))
				derive = v;
		} else if (strcmp(k, "split") == 0) {
			split = v;
			split_loc = root->key_locs[i];
		} else if (strcmp(k, "delimiter") == 0 || strcmp(k, "columns") == 0 ||
			   strcmp(k, "header") == 0) {
			csv_keys[k[0] == 'd' ? 0 : k[0] == 'c' ? 1 : 2] = v;
			if (!csv_loc.file)
				csv_loc = root->key_locs[i];
		} else {
			unknown_key(&df, root, i, "in a parser definition", keys);
		}
	}
	if (!p->name)
		p->name = file_stem(file);
	if (csv_loc.file && p->format != FMT_CSV) {
		diag_error(d, csv_loc,
			   "parser '%s' reads %s: delimiter, columns and header are for CSV files "
			   "(format: csv)",
			   p->name, format_names[p->format]);
		df.ok = false;
	} else {
		char *where = xasprintf("in parser '%s'", p->name);
		if (!csv_options_read(csv_keys[0], csv_keys[1], csv_keys[2], where, &p->csv, d))
			df.ok = false;
		free(where);
	}
	if (fields) {
		size_t n = 0;
		for (size_t i = 0; i < fields->count; i++)
			n += fields->items[i]->kind == VALUE_LIST ? fields->items[i]->count : 1;
		p->fields = xcalloc(n + 1, sizeof *p->fields);
		for (size_t i = 0; i < fields->count; i++)
			load_field(&df, fields->keys[i], fields->key_locs[i], fields->items[i]);
	}
	if (series) {
		p->series = xcalloc(series->count + 1, sizeof *p->series);
		for (size_t i = 0; i < series->count; i++)
			load_series(&df, series->keys[i], series->key_locs[i], series->items[i]);
	}
	if (tables) {
		p->tables = xcalloc(tables->count + 1, sizeof *p->tables);
		for (size_t i = 0; i < tables->count; i++)
			load_table(&df, tables->keys[i], tables->key_locs[i], tables->items[i]);
	}
	/* After the series and tables: a carry gives them columns. */
	if (carry) {
		const struct value *const *items;
		size_t n = one_or_list(&carry, &items);
		p->carries = xcalloc(n + 1, sizeof *p->carries);
		for (size_t i = 0; i < n; i++)
			load_carry(&df, i, items[i]);
	}
	if (derive) {
		size_t n = 0;
		for (size_t i = 0; i < derive->count; i++)
			n += derive->items[i]->kind == VALUE_LIST ? derive->items[i]->count : 1;
		p->derives = xcalloc(n + 1, sizeof *p->derives);
		for (size_t i = 0; i < derive->count; i++)
			load_derive(&df, derive->keys[i], derive->key_locs[i], derive->items[i]);
	}
	if (split)
		load_split(&df, split_loc, split);
	/* A split group is a field of the run it starts: one name, one thing. */
	for (size_t i = 0; i < p->split.nfields; i++)
		for (size_t j = 0; j < p->nfields; j++)
			if (strcmp(p->split.fields[i], p->fields[j].name) == 0) {
				diag_error(d, p->fields[j].loc,
					   "field '%s' is also a group of split, which sets it; "
					   "name one of them differently",
					   p->fields[j].name);
				df.ok = false;
			}
	if (split && p->format != FMT_TEXT) {
		diag_error(d, split_loc,
			   "parser '%s' reads %s: split is for text logs (a structured file is "
			   "one run)",
			   p->name, format_names[p->format]);
		df.ok = false;
	}
	/* A table fills the series of its name: a series of that name too
	 * when a file holds one of them (link_shared()). */
	for (size_t i = 0; i < p->ntables; i++)
		for (size_t j = 0; j < p->nseries; j++)
			if (strcmp(p->tables[i].name, p->series[j].name) == 0 && p->series[j].cols)
				link_shared(&df, &p->tables[i], (long)i, &p->series[j], (long)j);
	if (p->format != FMT_JSON && p->nleave_out) {
		diag_error(d, leave_loc,
			   "parser '%s' reads %s: leave_out names lists inside a JSON file's "
			   "rows, so it needs format: json",
			   p->name, format_names[p->format]);
		df.ok = false;
	}
	if (p->format != FMT_TEXT && (p->styled || p->nstyle_from)) {
		diag_error(d, style_loc,
			   "parser '%s' reads %s, whose numbers are read as the format writes "
			   "them: number_style is for text logs",
			   p->name, format_names[p->format]);
		df.ok = false;
	}
	if (p->format != FMT_TEXT && (p->nfields || p->nseries || p->ntables || p->ncarries)) {
		diag_error(d, loc_line(p->file, 0),
			   "parser '%s' reads %s: its fields and series come from the file's "
			   "structure, so it takes no fields, series, tables or carry patterns "
			   "(derive is fine)",
			   p->name, format_names[p->format]);
		df.ok = false;
	}
	/* A structured format claims its usual extensions unless told. */
	if (!have_exts && p->format != FMT_TEXT) {
		static const char *const exts[][3] = {
			{NULL}, {".json", NULL}, {".yaml", ".yml", NULL}, {".csv", NULL},
			{".xml", NULL}, {".xml", NULL}, {"events.out.tfevents.*", NULL}, {NULL}};
		p->exts = xcalloc(3, sizeof *p->exts);
		for (size_t j = 0; exts[p->format][j]; j++)
			p->exts[p->nexts++] = xstrdup(exts[p->format][j]);
	}
	if (!df.ok)
		goto fail;
	value_free(root);
	return p;
fail:
	value_free(root);
	*name = p->name ? xstrdup(p->name) : file_stem(file);
	parser_free(p);
	return NULL;
}

/* The parser set. */

struct parser_set *parsers_new(void)
{
	return xcalloc(1, sizeof(struct parser_set));
}

/* Adds p, replacing a parser of the same name in its place. */
static void set_put(struct parser_set *set, struct parser *p, struct diag *d)
{
	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(set->v[i]->name, p->name) != 0)
			continue;
		/* Overriding a built-in, or a folder loaded earlier, is what
		 * the order is for; two files of one name in one folder is a
		 * slip. */
		char *dir_old = path_dirname(set->v[i]->file), *dir_new = path_dirname(p->file);
		if (!set->v[i]->builtin && strcmp(dir_old, dir_new) == 0)
			diag_warning(d, loc_line(p->file, 0),
				     "parser '%s' is also defined in %s; this definition replaces it",
				     p->name, set->v[i]->file);
		free(dir_old);
		free(dir_new);
		parser_free(set->v[i]);
		set->v[i] = p;
		return;
	}
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 16;
		set->v = xrealloc(set->v, set->cap * sizeof *set->v);
	}
	set->v[set->n++] = p;
}

bool parsers_add(struct parser_set *set, const char *file, const char *text, size_t len,
		 bool builtin, struct diag *d)
{
	char *name = NULL;
	struct parser *p = parser_load(file, builtin ? "built-in" : file, text, len, builtin, d,
				       &name);
	if (!p) {
		set->broken = xrealloc(set->broken, (set->nbroken + 1) * sizeof *set->broken);
		set->broken[set->nbroken++] = (struct broken_def){name, xstrdup(file)};
		return false;
	}
	set_put(set, p, d);
	return true;
}

/* Is b, the definition file `name` of a project, byte for byte the
 * built-in of that file name? */
static bool is_builtin_copy(const char *name, const struct buf *b)
{
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (str_has_prefix(f->path, "parsers/") && strcmp(f->path + 8, name) == 0)
			return f->len == b->len && memcmp(f->data, buf_data(b), b->len) == 0;
	return false;
}

/* Loads every .yaml file of dir; a missing dir is fine unless `named`
 * (a folder the user listed).  A definition must lie inside `root` (the
 * project), or for a named folder inside that folder: a link leading
 * elsewhere is refused. */
static void load_dir(struct parser_set *set, const char *dir, bool named, const char *root,
		     struct diag *d)
{
	size_t n;
	char **names = dir_list(dir, &n);
	if (!names) {
		if (errno != ENOENT || named)
			diag_error(d, loc_line(dir, 0), "cannot read the parsers folder: %s",
				   strerror(errno));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!str_has_suffix(names[i], ".yaml") && !str_has_suffix(names[i], ".yml"))
			continue;
		char *path = path_join(dir, names[i]);
		struct buf b = BUF_INIT;
		if (!is_file(path)) {
			/* A folder named x.yaml: not a definition. */
		} else if (!path_inside(path, root) && !(named && path_inside(path, dir))) {
			diag_error(d, loc_line(path, 0),
				   "a link leading outside the project: logdown reads nothing there "
				   "(copy what you need into the project)");
		} else if (!file_read(path, &b, NULL)) {
			diag_error(d, loc_line(path, 0), "cannot read: %s", strerror(errno));
		} else if (is_builtin_copy(names[i], &b)) {
			/* The built-in itself (this repository's parsers/,
			 * the project logdown parse finds above its
			 * fixtures): not an override. */
		} else {
			diag_add_source(d, path, buf_data(&b), b.len);
			parsers_add(set, path, buf_data(&b), b.len, false, d);
			diag_forget_source(d, path);
		}
		buf_free(&b);
		free(path);
	}
	strv_free(names);
}

struct parser_set *parsers_load(const char *root, char *const *extra_dirs, struct diag *d)
{
	struct parser_set *set = parsers_new();
	for (const struct embedded_file *f = embedded_files; f->path; f++) {
		if (!str_has_prefix(f->path, "parsers/") || !str_has_suffix(f->path, ".yaml"))
			continue;
		char *file = xasprintf("(built-in) %s", f->path);
		/* The text is static: diagnostics may quote it at any time. */
		diag_add_source(d, file, f->data, f->len);
		parsers_add(set, file, f->data, f->len, true, d);
		free(file);
	}
	if (root) {
		char *dir = path_join(root, "parsers");
		load_dir(set, dir, false, root, d);
		free(dir);
	}
	for (size_t i = 0; extra_dirs && extra_dirs[i]; i++)
		load_dir(set, extra_dirs[i], true, root ? root : ".", d);
	return set;
}

void parsers_free(struct parser_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		parser_free(set->v[i]);
	free(set->v);
	for (size_t i = 0; i < set->nbroken; i++) {
		free(set->broken[i].name);
		free(set->broken[i].file);
	}
	free(set->broken);
	free(set);
}

size_t parsers_count(const struct parser_set *set)
{
	return set->n;
}

const struct parser *parsers_at(const struct parser_set *set, size_t i)
{
	return i < set->n ? set->v[i] : NULL;
}

const struct parser *parsers_find(const struct parser_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i]->name, name) == 0)
			return set->v[i];
	return NULL;
}

/* The parsers' names, NULL-terminated; caller frees the array. */
const char **set_names(const struct parser_set *set)
{
	const char **names = xcalloc(set->n + 1, sizeof *names);
	for (size_t i = 0; i < set->n; i++)
		names[i] = set->v[i]->name;
	return names;
}

void put_available(struct buf *b, const struct parser_set *set)
{
	if (set->n > AVAILABLE_LISTED) {
		buf_puts(b, "`logdown parsers` lists them");
		return;
	}
	const char **names = set_names(set);
	buf_puts(b, "available: ");
	buf_put_names(b, names);
	free(names);
}

static const struct broken_def *broken_find(const struct parser_set *set, const char *name)
{
	for (size_t i = 0; i < set->nbroken; i++)
		if (strcmp(set->broken[i].name, name) == 0)
			return &set->broken[i];
	return NULL;
}

bool parsers_broken(const struct parser_set *set, const char *name)
{
	return broken_find(set, name) != NULL;
}

const struct parser *parsers_lookup(const struct parser_set *set, const char *name,
				    struct loc at, struct diag *d)
{
	const struct parser *p = parsers_find(set, name);
	if (p)
		return p;
	const struct broken_def *broken = broken_find(set, name);
	if (broken) {
		diag_error(d, at, "parser '%s' is not loaded: its definition %s has errors (above)",
			   name, broken->file);
		return NULL;
	}
	const char **names = set_names(set);
	const char *close = closest_name(name, names);
	struct buf b = BUF_INIT;
	if (close)
		buf_printf(&b, "unknown parser '%s' (did you mean '%s'?)", name, close);
	else {
		buf_printf(&b, "unknown parser '%s' (", name);
		put_available(&b, set);
		buf_puts(&b, ")");
	}
	diag_error(d, at, "%s", buf_data(&b));
	buf_free(&b);
	free(names);
	return NULL;
}

bool parser_jitted(const struct parser *p)
{
	pthread_mutex_lock(&jit_lock);
	bool done = p->jitted;
	pthread_mutex_unlock(&jit_lock);
	return done;
}

const char *parser_name(const struct parser *p)
{
	return p->name;
}

const char *parser_description(const struct parser *p)
{
	return p->description ? p->description : "";
}

const char *parser_example(const struct parser *p)
{
	return p->example ? p->example : "";
}

const char *parser_origin(const struct parser *p)
{
	return p->origin;
}

const char *parser_source(const struct parser *p, size_t *len)
{
	*len = p->source ? p->source_len : p->own_len;
	return p->source ? p->source : p->own_text ? p->own_text : "";
}
