/* yamldoc.c: libyaml's event stream into a value tree with locations. */
#include "data/yamldoc.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "data/limit.h"
#include "base/util.h"

/* Deeper nesting than limit yaml_depth (default 200) is refused rather
 * than risking the stack. */
#define YAML_MAX_DEPTH ((int)limit_get(LIMIT_YAML_DEPTH))

struct loader {
	yaml_parser_t parser;
	const char *text;
	size_t len;
	const char *file;
	int line0;
	struct diag *d;
	/* An error was reported: the tree is not to be used. */
	bool failed;
	/* Reading cannot go on (libyaml stops at its first syntax error). */
	bool stop;
	/* The start of line `line` (0-based) of text: marks come mostly in
	 * order, so finding the next one scans on from the last. */
	size_t line;
	size_t line_start;
	/* Columns to add to each line (0-based), for YAML whose lines were
	 * taken out of a list item or a block quote; may be NULL. */
	const int *col0;
	size_t ncol0;
	/* Aliases are never expanded, so an alias bomb costs nothing; only
	 * the first is reported, the others counted for a note. */
	size_t aliases;
	struct loc first_alias;
	/* Values loaded so far, against limit yaml_nodes: a YAML result
	 * file's tree takes about 300 bytes a value. */
	unsigned long nodes;
};

static int line_shift(const struct loader *ld, size_t line)
{
	return line < ld->ncol0 ? ld->col0[line] : 0;
}

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
	struct loc l = {ld->file, (int)m.line + 1 + ld->line0,
			(int)(at - ld->line_start) + 1 + line_shift(ld, m.line), 1};
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
	struct loc l = {ld->file, line + ld->line0,
			(int)(offset - start) + 1 + line_shift(ld, (size_t)line - 1), 1};
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

/* The next event, or false after reporting a syntax error: libyaml
 * cannot read on past one, so the load stops there. */
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
	ld->stop = true;
	return false;
}

static struct value *load_node(struct loader *ld, yaml_event_t *ev, int depth);

/* Loads a list or map whose start event is `start` (borrowed).  Errors
 * that leave the event stream readable (a duplicate key, a key that is
 * not a scalar, an alias) are reported and loading goes on, so that one
 * run shows them all; ld->failed then tells the tree is not to be used.
 * Returns NULL only when loading stops (ld->stop). */
static struct value *load_collection(struct loader *ld, yaml_event_t *start, int depth)
{
	bool is_map = start->type == YAML_MAPPING_START_EVENT;
	yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
	struct value *v = value_new(is_map ? VALUE_MAP : VALUE_LIST);
	v->loc = mark_loc(ld, start->start_mark);
	yaml_mark_t opened = start->start_mark;
	if (depth >= YAML_MAX_DEPTH) {
		/* Reading on would mean recursing deeper: give up here. */
		diag_error(ld->d, v->loc, "YAML nested deeper than %d levels (%s)", YAML_MAX_DEPTH,
			   limit_hint(LIMIT_YAML_DEPTH));
		ld->failed = true;
		ld->stop = true;
		goto fail;
	}
	for (;;) {
		yaml_event_t ev;
		if (!next_event(ld, &ev))
			goto fail;
		if (ev.type == end) {
			/* a flow collection on one line ([], {a: 1}) is underlined
			 * whole */
			if (ev.end_mark.line == opened.line && ev.end_mark.column > opened.column)
				v->loc.len = (int)(ev.end_mark.column - opened.column);
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
			ld->failed = true;
			/* Read the key and its value only to find errors in them. */
			struct value *skip = load_node(ld, &ev, depth + 1);
			if (!skip)
				goto fail;
			value_free(skip);
			if (!next_event(ld, &ev))
				goto fail;
			skip = load_node(ld, &ev, depth + 1);
			if (!skip)
				goto fail;
			value_free(skip);
			continue;
		}
		char *key = xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
		struct loc key_loc = mark_loc(ld, ev.start_mark);
		key_loc.len = (int)ev.data.scalar.length;
		yaml_event_delete(&ev);
		long dup = value_index(v, key);
		if (dup >= 0) {
			diag_error(ld->d, key_loc, "duplicate key '%s' (first given on line %d)", key,
				   v->key_locs[dup].line);
			ld->failed = true;
		}
		struct value *item = NULL;
		if (next_event(ld, &ev))
			item = load_node(ld, &ev, depth + 1);
		if (!item) {
			free(key);
			goto fail;
		}
		/* A duplicate's value is read for its errors, then dropped: the
		 * first one stays for later duplicates to point at. */
		if (dup >= 0) {
			value_free(item);
		} else {
			value_set(v, key, item);
			v->key_locs[v->count - 1] = key_loc;
		}
		free(key);
	}
fail:
	value_free(v);
	return NULL;
}

/* Loads the node that starts with ev, and deletes ev.  Returns NULL only
 * when loading stops (ld->stop); a node that is reported and read past
 * (an alias) comes back as a null placeholder with ld->failed set. */
static struct value *load_node(struct loader *ld, yaml_event_t *ev, int depth)
{
	struct value *v = NULL;
	if (++ld->nodes > limit_get(LIMIT_YAML_NODES)) {
		diag_error(ld->d, mark_loc(ld, ev->start_mark),
			   "YAML document holds more than %lu values (%s)", limit_get(LIMIT_YAML_NODES),
			   limit_hint(LIMIT_YAML_NODES));
		ld->failed = true;
		ld->stop = true;
		yaml_event_delete(ev);
		return NULL;
	}
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
		v->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !str_tag;
		v->loc = mark_loc(ld, ev->start_mark);
		v->loc.len = (int)(ev->end_mark.index - ev->start_mark.index);
		break;
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		v = load_collection(ld, ev, depth);
		break;
	case YAML_ALIAS_EVENT:
		v = value_new(VALUE_NULL);
		v->loc = mark_loc(ld, ev->start_mark);
		if (ld->aliases++ == 0) {
			ld->first_alias = v->loc;
			diag_error(ld->d, v->loc,
				   "YAML aliases (*name) are not supported: write the value out");
		}
		ld->failed = true;
		break;
	default:
		/* libyaml only gives node events where a node is due. */
		diag_error(ld->d, mark_loc(ld, ev->start_mark), "unexpected YAML event");
		ld->failed = true;
		ld->stop = true;
		break;
	}
	yaml_event_delete(ev);
	return v;
}

/* The end of the first document has been read: what comes next must be
 * the end of the stream.  A second document is reported rather than
 * ignored, since its keys would otherwise vanish without a word. */
static void expect_stream_end(struct loader *ld)
{
	yaml_event_t ev;
	if (!next_event(ld, &ev))
		return;
	if (ev.type == YAML_DOCUMENT_START_EVENT) {
		struct loc at = mark_loc(ld, ev.start_mark);
		size_t off = ev.start_mark.index;
		/* libyaml puts an explicit document's start at its "---" or at
		 * the %directives before it. */
		if (off + 3 <= ld->len && memcmp(ld->text + off, "---", 3) == 0) {
			at.len = 3;
			diag_error(ld->d, at, "a second YAML document starts here; logdown reads one "
					      "document per file (remove this ---)");
		} else {
			diag_error(ld->d, at, "a second YAML document starts here; logdown reads one "
					      "document per file");
		}
		ld->failed = true;
	} else {
		assert(ev.type == YAML_STREAM_END_EVENT);
	}
	yaml_event_delete(&ev);
}

struct value *yamldoc_parse(const char *text, size_t len, const char *file, int line0,
			    struct diag *d)
{
	return yamldoc_parse_at(text, len, file, line0, NULL, 0, d);
}

/* Streams the node that starts with ev (and deletes ev) to vis: a
 * map's members by their dotted key path, a list item by item (each
 * item loaded as a tree of its own, handed over and freed), a scalar
 * whole.  False only when reading stops (ld->stop). */
static bool walk_node(struct loader *ld, yaml_event_t *ev, int depth, const char *path,
		      const struct yamldoc_visitor *vis)
{
	if (ev->type == YAML_SEQUENCE_START_EVENT) {
		if (++ld->nodes > limit_get(LIMIT_YAML_NODES) || depth >= YAML_MAX_DEPTH)
			return load_node(ld, ev, depth) != NULL; /* reports it */
		struct loc at = mark_loc(ld, ev->start_mark);
		yaml_event_delete(ev);
		void *list = vis->list_open(vis->ctx, *path ? path : "rows", at);
		for (;;) {
			yaml_event_t item_ev;
			if (!next_event(ld, &item_ev))
				break;
			if (item_ev.type == YAML_SEQUENCE_END_EVENT) {
				yaml_event_delete(&item_ev);
				vis->list_close(vis->ctx, list, true);
				return true;
			}
			struct value *item = load_node(ld, &item_ev, depth + 1);
			if (!item)
				break;
			vis->list_item(vis->ctx, list, item);
			value_free(item);
		}
		vis->list_close(vis->ctx, list, false);
		return false;
	}
	if (ev->type != YAML_MAPPING_START_EVENT) {
		struct value *v = load_node(ld, ev, depth);
		if (!v)
			return false;
		/* an empty document is no field */
		if (*path || v->kind != VALUE_NULL)
			vis->scalar(vis->ctx, *path ? path : "value", v);
		value_free(v);
		return true;
	}
	if (++ld->nodes > limit_get(LIMIT_YAML_NODES) || depth >= YAML_MAX_DEPTH)
		return load_node(ld, ev, depth) != NULL;
	yaml_event_delete(ev);
	/* the keys seen, for duplicates: their values are streamed */
	struct value *seen = value_new(VALUE_MAP);
	bool ok = false;
	for (;;) {
		yaml_event_t kev;
		if (!next_event(ld, &kev))
			break;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			ok = true;
			break;
		}
		if (kev.type != YAML_SCALAR_EVENT) {
			diag_error(ld->d, mark_loc(ld, kev.start_mark),
				   "a map key must be a plain name or string");
			ld->failed = true;
			struct value *skip = load_node(ld, &kev, depth + 1);
			if (!skip)
				break;
			value_free(skip);
			if (!next_event(ld, &kev) || !(skip = load_node(ld, &kev, depth + 1)))
				break;
			value_free(skip);
			continue;
		}
		char *key = xstrndup((const char *)kev.data.scalar.value, kev.data.scalar.length);
		struct loc key_loc = mark_loc(ld, kev.start_mark);
		key_loc.len = (int)kev.data.scalar.length;
		yaml_event_delete(&kev);
		long dup = value_index(seen, key);
		yaml_event_t vev;
		if (dup >= 0) {
			diag_error(ld->d, key_loc, "duplicate key '%s' (first given on line %d)", key,
				   seen->key_locs[dup].line);
			ld->failed = true;
			/* read for its errors, then dropped */
			struct value *skip = next_event(ld, &vev) ? load_node(ld, &vev, depth + 1) : NULL;
			free(key);
			if (!skip)
				break;
			value_free(skip);
			continue;
		}
		value_set(seen, key, value_new(VALUE_NULL));
		seen->key_locs[seen->count - 1] = key_loc;
		char *child = *path ? xasprintf("%s.%s", path, key) : xstrdup(key);
		free(key);
		bool walked = next_event(ld, &vev) && walk_node(ld, &vev, depth + 1, child, vis);
		free(child);
		if (!walked)
			break;
	}
	value_free(seen);
	return ok;
}

/* Reads text's one document, node by node: with vis, streamed to it
 * (returning NULL for a good document too); without, loaded whole. */
static struct value *read_document(const char *text, size_t len, const char *file, int line0,
				   const int *col0, size_t ncol0,
				   const struct yamldoc_visitor *vis, bool *failed,
				   struct diag *d)
{
	/* A byte order mark is not content.  Left in, libyaml counts it as a
	 * column of line 1, so the first key is indented more than the next
	 * and ends the document.  Stripped, columns are what a reader sees. */
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		text += 3;
		len -= 3;
	}
	struct loader ld = {.text = text, .len = len, .file = file, .line0 = line0, .d = d,
			    .col0 = col0, .ncol0 = ncol0};
	struct value *root = NULL;
	*failed = true;
	if (!yaml_parser_initialize(&ld.parser)) {
		diag_error(d, loc_line(file, 0), "cannot start the YAML parser");
		return NULL;
	}
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&ld.parser, YAML_UTF8_ENCODING);

	/* The stream is stream-start, then either stream-end (no document at
	 * all) or document-start, one node, document-end, and whatever
	 * follows, which expect_stream_end() checks. */
	yaml_event_t ev;
	if (!next_event(&ld, &ev))
		goto out;
	assert(ev.type == YAML_STREAM_START_EVENT);
	yaml_event_delete(&ev);
	if (!next_event(&ld, &ev))
		goto out;
	bool empty = ev.type == YAML_STREAM_END_EVENT;
	assert(empty || ev.type == YAML_DOCUMENT_START_EVENT);
	yaml_event_delete(&ev);
	if (empty || !next_event(&ld, &ev))
		goto out;
	if (vis)
		walk_node(&ld, &ev, 0, "", vis);
	else
		root = load_node(&ld, &ev, 0);
	if (ld.stop || !next_event(&ld, &ev))
		goto out;
	assert(ev.type == YAML_DOCUMENT_END_EVENT);
	yaml_event_delete(&ev);
	expect_stream_end(&ld);
out:
	if (ld.aliases > 1)
		diag_note(d, ld.first_alias, "and %zu more aliases in this document", ld.aliases - 1);
	yaml_parser_delete(&ld.parser);
	*failed = ld.failed;
	if (ld.failed) {
		value_free(root);
		return NULL;
	}
	if (!root && !vis) {
		root = value_new(VALUE_NULL);
		root->loc = loc_line(file, line0 + 1);
	}
	return root;
}

struct value *yamldoc_parse_at(const char *text, size_t len, const char *file, int line0,
			       const int *col0, size_t ncol0, struct diag *d)
{
	bool failed;
	return read_document(text, len, file, line0, col0, ncol0, NULL, &failed, d);
}

bool yamldoc_walk(const char *text, size_t len, const char *file,
		  const struct yamldoc_visitor *vis, struct diag *d)
{
	bool failed;
	read_document(text, len, file, 0, NULL, 0, vis, &failed, d);
	return !failed;
}
