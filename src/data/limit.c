/* limit.c: the caps on hostile input, their defaults and how to raise them. */
#include "data/limit.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/keys.h"

struct limit_def {
	const char *name;
	const char *env;  /* LOGDOWN_LIMIT_<NAME> */
	const char *hint; /* for diagnostics */
	unsigned long def;
	unsigned long min;
	/* Depth caps stop short of what the stack holds: each level is a
	 * recursive call, and sanitizer builds use fat frames.  The others
	 * stop at what the libraries take (PCRE2's limits are uint32_t). */
	unsigned long max;
};

#define HINT(n, N) "limit " n ": raise it with limits: in site.yaml or LOGDOWN_LIMIT_" N

static const struct limit_def defs[LIMIT_COUNT] = {
	[LIMIT_PCRE_MATCH] = {"pcre_match", "LOGDOWN_LIMIT_PCRE_MATCH",
			      HINT("pcre_match", "PCRE_MATCH"), 5000000, 1000, 4000000000UL},
	[LIMIT_PCRE_DEPTH] = {"pcre_depth", "LOGDOWN_LIMIT_PCRE_DEPTH",
			      HINT("pcre_depth", "PCRE_DEPTH"), 100000, 100, 4000000000UL},
	[LIMIT_YAML_DEPTH] = {"yaml_depth", "LOGDOWN_LIMIT_YAML_DEPTH",
			      HINT("yaml_depth", "YAML_DEPTH"), 200, 2, 5000},
	[LIMIT_YAML_NODES] = {"yaml_nodes", "LOGDOWN_LIMIT_YAML_NODES",
			      HINT("yaml_nodes", "YAML_NODES"), 5000000, 100, 4000000000UL},
	[LIMIT_JSON_DEPTH] = {"json_depth", "LOGDOWN_LIMIT_JSON_DEPTH",
			      HINT("json_depth", "JSON_DEPTH"), 200, 2, 5000},
	[LIMIT_EXPR_DEPTH] = {"expr_depth", "LOGDOWN_LIMIT_EXPR_DEPTH",
			      HINT("expr_depth", "EXPR_DEPTH"), 200, 2, 2000},
	[LIMIT_MARKDOWN_DEPTH] = {"markdown_depth", "LOGDOWN_LIMIT_MARKDOWN_DEPTH",
				  HINT("markdown_depth", "MARKDOWN_DEPTH"), 100, 2, 10000},
	[LIMIT_SERIES_ROWS] = {"series_rows", "LOGDOWN_LIMIT_SERIES_ROWS",
			       HINT("series_rows", "SERIES_ROWS"), 50000000, 1, 4000000000UL},
	[LIMIT_GLOB_FILES] = {"glob_files", "LOGDOWN_LIMIT_GLOB_FILES",
			      HINT("glob_files", "GLOB_FILES"), 10000, 1, 100000000},
	/* KaTeX in duktape takes about 0.1 s for 3,000 bytes of TeX and
	 * grows faster than the size */
	[LIMIT_MATH_SIZE] = {"math_size", "LOGDOWN_LIMIT_MATH_SIZE",
			     HINT("math_size", "MATH_SIZE"), 4000, 10, 1000000},
	[LIMIT_MATH_DEPTH] = {"math_depth", "LOGDOWN_LIMIT_MATH_DEPTH",
			      HINT("math_depth", "MATH_DEPTH"), 100, 2, 1000},
	/* Graphviz's dot lays out 2,000 nodes and edges in about 0.4 s and
	 * grows faster than the size */
	[LIMIT_DOT_NODES] = {"dot_nodes", "LOGDOWN_LIMIT_DOT_NODES",
			     HINT("dot_nodes", "DOT_NODES"), 2000, 1, 1000000},
	/* a sacct table may hold a million jobs: the manifest lists the
	 * first ones found */
	[LIMIT_MANIFEST_FACTS] = {"manifest_facts", "LOGDOWN_LIMIT_MANIFEST_FACTS",
				  HINT("manifest_facts", "MANIFEST_FACTS"), 1000, 1, 100000000},
	/* an 8K photo is 33 megapixels (132 MB decoded); 50 keeps every
	 * real figure and stops a header claiming 30000x30000 (3.6 GB) */
	[LIMIT_IMAGE_PIXELS] = {"image_pixels", "LOGDOWN_LIMIT_IMAGE_PIXELS",
				HINT("image_pixels", "IMAGE_PIXELS"), 50000000, 1, 4000000000UL},
	/* each value shown takes 1 to 3 KB while the page is made (its
	 * expression, its text, its mark, its manifest entry): 100,000 is
	 * at most 300 MB, and far more than a report shows */
	[LIMIT_PAGE_VALUES] = {"page_values", "LOGDOWN_LIMIT_PAGE_VALUES",
			       HINT("page_values", "PAGE_VALUES"), 100000, 1, 4000000000UL},
	/* a template's own text and its partials: a "billion laughs" of
	 * partials stops at 100 MB, not at the memory's end */
	[LIMIT_TEMPLATE_BYTES] = {"template_bytes", "LOGDOWN_LIMIT_TEMPLATE_BYTES",
				  HINT("template_bytes", "TEMPLATE_BYTES"), 100000000, 1000,
				  4000000000UL},
	/* a YAML result file's text is read whole (its events streamed,
	 * one list item at a time a tree); JSON is streamed from the disk */
	[LIMIT_YAML_BYTES] = {"yaml_bytes", "LOGDOWN_LIMIT_YAML_BYTES",
			      HINT("yaml_bytes", "YAML_BYTES"), 10000000, 1000, 4000000000UL},
	/* a line is read whole by every pass: 256 MiB; what a line costs
	 * the Markdown parser beyond its size is markdown_inlines' */
	[LIMIT_MARKDOWN_LINE_BYTES] = {"markdown_line_bytes", "LOGDOWN_LIMIT_MARKDOWN_LINE_BYTES",
				       HINT("markdown_line_bytes", "MARKDOWN_LINE_BYTES"),
				       268435456, 1000, 4000000000UL},
	/* cmark-gfm makes an inline node of about 180 bytes at each
	 * character of a paragraph that may start an inline (`*`, `_`,
	 * `[`, `<`, `w`, `:` ...): 4,000,000 cost about 720 MB (a 200 MB
	 * line of "w " took 7.7 GB) */
	[LIMIT_MARKDOWN_INLINES] = {"markdown_inlines", "LOGDOWN_LIMIT_MARKDOWN_INLINES",
				    HINT("markdown_inlines", "MARKDOWN_INLINES"), 4000000, 100,
				    4000000000UL},
};

static unsigned long values[LIMIT_COUNT];
/* Set by the environment: site.yaml leaves these alone. */
static bool from_env[LIMIT_COUNT];
static bool ready;

/* A whole number from text: digits, optionally grouped with '_' or ','
 * (10_000_000), or written with an exponent (1e7). */
static bool parse_count(const char *s, unsigned long *out)
{
	char digits[64];
	size_t n = 0;
	for (; *s; s++) {
		if (*s == '_' || *s == ',')
			continue;
		if (n + 1 >= sizeof digits)
			return false;
		digits[n++] = *s;
	}
	digits[n] = '\0';
	if (!isdigit((unsigned char)digits[0]))
		return false;
	char *end;
	errno = 0;
	double d = strtod(digits, &end);
	if (*end || errno == ERANGE || !isfinite(d) || d != floor(d) || d > 1e12)
		return false;
	*out = (unsigned long)d;
	return true;
}

static bool in_range(enum limit_id id, unsigned long v)
{
	return v >= defs[id].min && v <= defs[id].max;
}

bool limit_reset(struct diag *d)
{
	bool ok = true;
	for (int i = 0; i < LIMIT_COUNT; i++) {
		values[i] = defs[i].def;
		from_env[i] = false;
		const char *env = getenv(defs[i].env);
		if (!env || !*env)
			continue;
		unsigned long v;
		if (parse_count(env, &v) && in_range((enum limit_id)i, v)) {
			values[i] = v;
			from_env[i] = true;
			continue;
		}
		ok = false;
		if (d)
			diag_error(d, loc_line(NULL, 0),
				   "%s='%s' is not a whole number from %lu to %lu; the default %lu "
				   "is used",
				   defs[i].env, env, defs[i].min, defs[i].max, defs[i].def);
		else
			fprintf(stderr,
				"logdown: warning: %s='%s' is not a whole number from %lu to %lu; the "
				"default %lu is used\n",
				defs[i].env, env, defs[i].min, defs[i].max, defs[i].def);
	}
	ready = true;
	return ok;
}

unsigned long limit_get(enum limit_id id)
{
	if (!ready)
		limit_reset(NULL);
	return values[id];
}

const char *limit_name(enum limit_id id)
{
	return defs[id].name;
}

const char *limit_hint(enum limit_id id)
{
	return defs[id].hint;
}

void limit_set(enum limit_id id, unsigned long value)
{
	if (!ready)
		limit_reset(NULL);
	values[id] = value;
}

bool limit_configure(const struct value *v, struct diag *d)
{
	if (!ready)
		limit_reset(NULL);
	if (v->kind == VALUE_NULL)
		return true;
	if (v->kind != VALUE_MAP) {
		diag_error(d, v->loc, "'limits' must be a map of limit: number (e.g. yaml_depth: 500)");
		return false;
	}
	const char *names[LIMIT_COUNT + 1];
	for (int i = 0; i < LIMIT_COUNT; i++)
		names[i] = defs[i].name;
	names[LIMIT_COUNT] = NULL;
	bool ok = true;
	for (size_t k = 0; k < v->count; k++) {
		int id = -1;
		for (int i = 0; i < LIMIT_COUNT; i++)
			if (strcmp(v->keys[k], defs[i].name) == 0)
				id = i;
		if (id < 0) {
			static const struct keys_words words = {true, "limit", "known"};
			keys_check_one(v, k, names, NULL, &words, d);
			continue;
		}
		const struct value *x = v->items[k];
		unsigned long n = 0;
		bool good = (x->kind == VALUE_NUMBER && x->text && parse_count(x->text, &n)) ||
			    (x->kind == VALUE_STRING && parse_count(x->text, &n));
		if (!good || !in_range((enum limit_id)id, n)) {
			diag_error(d, x->loc, "limit %s must be a whole number from %lu to %lu",
				   defs[id].name, defs[id].min, defs[id].max);
			ok = false;
			continue;
		}
		if (!from_env[id])
			values[id] = n;
	}
	return ok;
}
