/* yamldoc.c: libyaml's event stream into a value tree with locations. */
#include "yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util.h"

/* Deeper nesting than this is refused rather than risking the stack. */
#define YAML_MAX_DEPTH 200

struct loader {
	yaml_parser_t parser;
	const char *text;
	size_t len;
	const char *file;
	int line0;
	struct diag *d;
	bool failed;
	/* The start of line `line` (0-based) of text: marks come mostly in
	 * order, so finding the next one scans on from the last. */
	size_t line;
	size_t line_start;
};

/* Where a libyaml mark is, with the column in bytes as diagnostics
 * count it (libyaml counts characters). */
static struct loc mark_loc(struct loader *ld, yaml_mark_t m)
{
	if (m.line < ld->line) {
		ld->line = 0;
		ld->line_start = 0;
	}
	while (ld->line < m.line) {
		const char *nl = memchr(ld->text + ld->line_start, '\n', ld->len - ld->line_start);
		if (!nl)
			break;
		ld->line_start = (size_t)(nl - ld->text) + 1;
		ld->line++;
	}
	size_t at = ld->line_start;
	for (size_t chars = 0; chars < m.column && at < ld->len && ld->text[at] != '\n'; chars++) {
		at++;
		while (at < ld->len && ((unsigned char)ld->text[at] & 0xC0) == 0x80)
			at++;
	}
	struct loc l = {ld->file, (int)m.line + 1 + ld->line0, (int)(at - ld->line_start) + 1, 1};
	return l;
}

/* The place of a byte offset, for reader errors (bad UTF-8), which
 * libyaml gives as an offset rather than a mark. */
static struct loc offset_loc(struct loader *ld, size_t offset)
{
	int line = 1;
	size_t start = 0;
	for (size_t i = 0; i < offset && i < ld->len; i++) {
		if (ld->text[i] == '\n') {
			line++;
			start = i + 1;
		}
	}
	struct loc l = {ld->file, line + ld->line0, (int)(offset - start) + 1, 1};
	return l;
}

static bool is_number_text(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	size_t digits = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, digits++;
	}
	if (digits == 0)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t exp = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, exp++;
		if (exp == 0)
			return false;
	}
	return i == n;
}

static bool one_of(const char *s, size_t n, const char *const *words)
{
	for (; *words; words++)
		if (strlen(*words) == n && memcmp(s, *words, n) == 0)
			return true;
	return false;
}

struct value *yamldoc_scalar(const char *text, size_t len)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
	static const char *const trues[] = {"true", "True", "TRUE", NULL};
	static const char *const falses[] = {"false", "False", "FALSE", NULL};
	static const char *const infs[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
	static const char *const ninfs[] = {"-.inf", "-.Inf", "-.INF", NULL};
	static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};

	if (one_of(text, len, nulls))
		return value_new(VALUE_NULL);
	if (one_of(text, len, trues))
		return value_bool(true);
	if (one_of(text, len, falses))
		return value_bool(false);
	struct value *v = NULL;
	if (is_number_text(text, len))
		v = value_number(strtod(text, NULL), NULL);
	else if (one_of(text, len, infs))
		v = value_number(INFINITY, NULL);
	else if (one_of(text, len, ninfs))
		v = value_number(-INFINITY, NULL);
	else if (one_of(text, len, nans))
		v = value_number(NAN, NULL);
	if (!v)
		return value_stringn(text, len);
	v->text = xstrndup(text, len);
	v->len = len;
	return v;
}

static bool next_event(struct loader *ld, yaml_event_t *ev)
{
	if (yaml_parser_parse(&ld->parser, ev))
		return true;
	yaml_parser_t *p = &ld->parser;
	struct loc at = p->error == YAML_READER_ERROR ? offset_loc(ld, p->problem_offset)
						      : mark_loc(ld, p->problem_mark);
	diag_error(ld->d, at, "malformed YAML: %s", p->problem ? p->problem : "syntax error");
	/* libyaml names what it was reading and where that began: often the
	 * real mistake, such as a bracket never closed. */
	if (p->context)
		diag_note(ld->d, mark_loc(ld, p->context_mark), "%s (it starts here)", p->context);
	ld->failed = true;
	return false;
}

static struct value *load_node(struct loader *ld, yaml_event_t *ev, int depth);

static struct value *load_collection(struct loader *ld, yaml_event_t *start, int depth)
{
	bool is_map = start->type == YAML_MAPPING_START_EVENT;
	yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
	struct value *v = value_new(is_map ? VALUE_MAP : VALUE_LIST);
	v->loc = mark_loc(ld, start->start_mark);
	if (depth >= YAML_MAX_DEPTH) {
		diag_error(ld->d, v->loc, "YAML nested deeper than %d levels", YAML_MAX_DEPTH);
		ld->failed = true;
		value_free(v);
		return NULL;
	}
	for (;;) {
		yaml_event_t ev;
		if (!next_event(ld, &ev))
			goto fail;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return v;
		}
		if (!is_map) {
			struct value *item = load_node(ld, &ev, depth + 1);
			if (!item)
				goto fail;
			value_push(v, item);
			continue;
		}
		if (ev.type != YAML_SCALAR_EVENT) {
			diag_error(ld->d, mark_loc(ld, ev.start_mark),
				   "a map key must be a plain name or string");
			yaml_event_delete(&ev);
			ld->failed = true;
			goto fail;
		}
		char *key = xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
		struct loc key_loc = mark_loc(ld, ev.start_mark);
		key_loc.len = (int)ev.data.scalar.length;
		yaml_event_delete(&ev);
		long dup = value_index(v, key);
		if (dup >= 0) {
			diag_error(ld->d, key_loc, "duplicate key '%s' (first given on line %d)", key,
				   v->key_locs[dup].line);
			free(key);
			ld->failed = true;
			goto fail;
		}
		if (!next_event(ld, &ev)) {
			free(key);
			goto fail;
		}
		struct value *item = load_node(ld, &ev, depth + 1);
		if (!item) {
			free(key);
			goto fail;
		}
		value_set(v, key, item);
		v->key_locs[v->count - 1] = key_loc;
		free(key);
	}
fail:
	value_free(v);
	return NULL;
}

/* Loads the node that starts with ev, and deletes ev. */
static struct value *load_node(struct loader *ld, yaml_event_t *ev, int depth)
{
	struct value *v = NULL;
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *s = (const char *)ev->data.scalar.value;
		size_t n = ev->data.scalar.length;
		/* An explicit !!str keeps a plain scalar a string. */
		const char *tag = (const char *)ev->data.scalar.tag;
		bool str_tag = tag && strcmp(tag, YAML_STR_TAG) == 0;
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !str_tag)
			v = yamldoc_scalar(s, n);
		else
			v = value_stringn(s, n);
		v->loc = mark_loc(ld, ev->start_mark);
		v->loc.len = (int)(ev->end_mark.index - ev->start_mark.index);
		break;
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		v = load_collection(ld, ev, depth);
		break;
	case YAML_ALIAS_EVENT:
		diag_error(ld->d, mark_loc(ld, ev->start_mark),
			   "YAML aliases (*name) are not supported: write the value out");
		ld->failed = true;
		break;
	default:
		diag_error(ld->d, mark_loc(ld, ev->start_mark), "unexpected YAML event");
		ld->failed = true;
		break;
	}
	yaml_event_delete(ev);
	return v;
}

struct value *yamldoc_parse(const char *text, size_t len, const char *file, int line0,
			    struct diag *d)
{
	struct loader ld = {.text = text, .len = len, .file = file, .line0 = line0, .d = d};
	struct value *root = NULL;
	if (!yaml_parser_initialize(&ld.parser)) {
		diag_error(d, loc_line(file, 0), "cannot start the YAML parser");
		return NULL;
	}
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&ld.parser, YAML_UTF8_ENCODING);

	yaml_event_t ev;
	/* stream-start, then document-start or stream-end */
	while (!ld.failed && next_event(&ld, &ev)) {
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			break; /* only the first document counts */
		}
		root = load_node(&ld, &ev, 0);
		if (!root)
			break;
	}
	yaml_parser_delete(&ld.parser);
	if (ld.failed) {
		value_free(root);
		return NULL;
	}
	if (!root) {
		root = value_new(VALUE_NULL);
		root->loc = loc_line(file, line0 + 1);
	}
	return root;
}
