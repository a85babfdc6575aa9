/* keys.c: checking the keys of a YAML map against the ones it may
 * have: one wording and one did-you-mean (closest_name()) for every
 * map a project writes. */
#include "data/keys.h"

#include <string.h>

#include "base/util.h"

static const struct keys_words default_words = {false, "key", "known keys"};

bool keys_check_one(const struct value *map, size_t i, const char *const *known,
		    const char *where, const struct keys_words *words, struct diag *d)
{
	const char *key = map->keys[i];
	for (size_t k = 0; known[k]; k++)
		if (strcmp(key, known[k]) == 0)
			return true;
	if (!words)
		words = &default_words;
	struct buf b = BUF_INIT;
	buf_printf(&b, "unknown %s '%s'", words->noun, key);
	if (where)
		buf_printf(&b, " %s", where);
	/* Name the one key meant when there is a likely one; else all of
	 * them, which are few, so the writer need not open the docs. */
	const char *close = closest_name(key, known);
	if (close) {
		buf_printf(&b, " (did you mean '%s'?)", close);
	} else {
		buf_printf(&b, " (%s: ", words->known);
		buf_put_names(&b, known);
		buf_puts(&b, ")");
	}
	if (words->warning)
		diag_warning(d, map->key_locs[i], "%s", buf_data(&b));
	else
		diag_error(d, map->key_locs[i], "%s", buf_data(&b));
	buf_free(&b);
	return false;
}

bool keys_check(const struct value *map, const char *const *known, const char *where,
		const struct keys_words *words, struct diag *d)
{
	bool ok = true;
	for (size_t i = 0; i < map->count; i++)
		ok = keys_check_one(map, i, known, where, words, d) && ok;
	return ok;
}
