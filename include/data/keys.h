/* keys.h: checking the keys of a YAML map against the ones it may have,
 * with a did-you-mean for a typo.
 *
 *   content/q3.md:12:1: error: unknown key 'colums' in {table} (did you mean 'columns'?)
 *   site.yaml:1:1: warning: unknown site.yaml key 'stylesheet' (known keys: title, ...)
 *
 * Each place that reads a map (site.yaml, front matter, runs:, limits:,
 * a directive's body, a parser definition) says which keys it knows
 * and where it is; the wording and the did-you-mean live here. */
#ifndef LOGDOWN_KEYS_H
#define LOGDOWN_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/value.h"

/* How an unknown key is reported:
 *
 *   <severity>: unknown <noun> '<key>'[ <where>] (did you mean '<near>'?)
 *   <severity>: unknown <noun> '<key>'[ <where>] (<known>: a, b, c)
 *
 * the second when no known key is close enough to be a typo.  site.yaml,
 * front matter and limits: warn and ignore the key; runs:, directives
 * and parser definitions make it an error. */
struct keys_words {
	bool warning;      /* a warning, not an error */
	const char *noun;  /* "key", "site.yaml key", "limit" */
	const char *known; /* the list's name: "known keys", "known" */
};

/* True when key i of map is one of known (NULL-terminated).  Otherwise
 * reports it to d at the key's location and returns false.  where
 * ("in {table}", "in run 'cs'") follows the key, or is NULL.  words
 * NULL means an error worded {false, "key", "known keys"}. */
bool keys_check_one(const struct value *map, size_t i, const char *const *known,
		    const char *where, const struct keys_words *words, struct diag *d);

/* keys_check_one() for each key of map in document order: true when
 * every key is known. */
bool keys_check(const struct value *map, const char *const *known, const char *where,
		const struct keys_words *words, struct diag *d);

#endif
