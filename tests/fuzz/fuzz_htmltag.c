/* fuzz_htmltag.c: start tags and attribute values (base/htmltag.h) on
 * arbitrary bytes.  Every tag found must start with '<' inside the
 * input, after the one before; every value's place must lie inside the
 * input, and a value holds no more than four bytes for each one of the
 * input (a reference decodes to at most one code point). */
#include "fuzz.h"

#include <string.h>

#include "base/htmltag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	const char *end = s + size, *before = NULL;
	static const char *const names[] = {"img", "h2"};
	for (size_t k = 0; k < 2; k++) {
		before = NULL;
		for (const char *t = html_next_tag(s, end, names[k]); t;
		     t = html_next_tag(k ? t + 1 : html_tag_end(t, end), end, names[k])) {
			if (t < s || t >= end || *t != '<' || (before && t <= before))
				abort();
			const char *after = html_tag_end(t, end);
			if (after <= t || after > end)
				abort();
			before = t;
			static const char *const attrs[] = {"src", "id", "x"};
			for (size_t a = 0; a < 3; a++) {
				const char *at = NULL;
				char *v = html_attr(t, end, attrs[a], &at);
				if (v && (!at || at < t || at > end || strlen(v) > 4 * (size_t)(end - t)))
					abort();
				free(v);
			}
		}
	}
	/* the NUL-terminated form reads the same, where no NUL cuts it */
	if (size && s[0] == '<' && !memchr(s, '\0', size)) {
		char *v = html_attr(s, NULL, "src", NULL), *w = html_attr(s, end, "src", NULL);
		if ((v == NULL) != (w == NULL) || (v && strcmp(v, w) != 0))
			abort();
		free(v);
		free(w);
	}
	free(s);
	return 0;
}
