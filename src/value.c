/* value.c: the JSON-like tree shared by YAML loading and templates. */
#include "value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct value *value_new(enum value_kind kind)
{
	struct value *v = xcalloc(1, sizeof *v);
	v->kind = kind;
	return v;
}

struct value *value_bool(bool b)
{
	struct value *v = value_new(VALUE_BOOL);
	v->boolean = b;
	return v;
}

struct value *value_number(double n, const char *text)
{
	struct value *v = value_new(VALUE_NUMBER);
	v->number = n;
	if (text) {
		v->text = xstrdup(text);
		v->len = strlen(text);
	}
	return v;
}

struct value *value_stringn(const char *s, size_t n)
{
	struct value *v = value_new(VALUE_STRING);
	v->text = xstrndup(s, n);
	v->len = n;
	return v;
}

struct value *value_string(const char *s)
{
	return value_stringn(s, strlen(s));
}

void value_free(struct value *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->count; i++) {
		value_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->key_locs);
	free(v->text);
	free(v);
}

struct value *value_copy(const struct value *v)
{
	if (!v)
		return NULL;
	struct value *c = value_new(v->kind);
	c->boolean = v->boolean;
	c->number = v->number;
	c->loc = v->loc;
	if (v->text) {
		c->text = xstrndup(v->text, v->len);
		c->len = v->len;
	}
	for (size_t i = 0; i < v->count; i++) {
		if (v->kind == VALUE_MAP) {
			value_set(c, v->keys[i], value_copy(v->items[i]));
			c->key_locs[c->count - 1] = v->key_locs[i];
		} else {
			value_push(c, value_copy(v->items[i]));
		}
	}
	return c;
}

static void reserve(struct value *v)
{
	if (v->count < v->cap)
		return;
	v->cap = v->cap ? v->cap * 2 : 4;
	v->items = xrealloc(v->items, v->cap * sizeof *v->items);
	if (v->kind == VALUE_MAP) {
		v->keys = xrealloc(v->keys, v->cap * sizeof *v->keys);
		v->key_locs = xrealloc(v->key_locs, v->cap * sizeof *v->key_locs);
	}
}

void value_push(struct value *list, struct value *item)
{
	reserve(list);
	list->items[list->count++] = item;
}

void value_set(struct value *map, const char *key, struct value *v)
{
	long i = value_index(map, key);
	if (i >= 0) {
		value_free(map->items[i]);
		map->items[i] = v;
		return;
	}
	reserve(map);
	map->keys[map->count] = xstrdup(key);
	memset(&map->key_locs[map->count], 0, sizeof map->key_locs[0]);
	map->items[map->count++] = v;
}

void value_set_str(struct value *map, const char *key, const char *s)
{
	value_set(map, key, value_string(s));
}

long value_index(const struct value *map, const char *key)
{
	if (!map || map->kind != VALUE_MAP)
		return -1;
	for (size_t i = 0; i < map->count; i++)
		if (strcmp(map->keys[i], key) == 0)
			return (long)i;
	return -1;
}

struct value *value_get(const struct value *map, const char *key)
{
	long i = value_index(map, key);
	return i < 0 ? NULL : map->items[i];
}

bool value_truthy(const struct value *v)
{
	if (!v)
		return false;
	switch (v->kind) {
	case VALUE_NULL: return false;
	case VALUE_BOOL: return v->boolean;
	case VALUE_LIST: return v->count > 0;
	case VALUE_STRING: return v->len > 0;
	default: return true;
	}
}

void number_put(struct buf *b, double n)
{
	if (isnan(n)) {
		buf_puts(b, "NaN");
		return;
	}
	if (isinf(n)) {
		buf_puts(b, n < 0 ? "-Infinity" : "Infinity");
		return;
	}
	char tmp[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, n);
		if (strtod(tmp, NULL) == n)
			break;
	}
	buf_puts(b, tmp);
}

void value_put_text(struct buf *b, const struct value *v)
{
	if (!v)
		return;
	switch (v->kind) {
	case VALUE_STRING:
		buf_put(b, v->text, v->len);
		break;
	case VALUE_NUMBER:
		if (v->text)
			buf_put(b, v->text, v->len);
		else
			number_put(b, v->number);
		break;
	case VALUE_BOOL:
		buf_puts(b, v->boolean ? "true" : "false");
		break;
	default:
		break;
	}
}

const char *value_kind_name(enum value_kind kind)
{
	switch (kind) {
	case VALUE_NULL: return "null";
	case VALUE_BOOL: return "a boolean";
	case VALUE_NUMBER: return "a number";
	case VALUE_STRING: return "a string";
	case VALUE_LIST: return "a list";
	case VALUE_MAP: return "a map";
	}
	return "a value";
}
