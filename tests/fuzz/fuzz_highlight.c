/* fuzz_highlight.c: the code highlighter on arbitrary bytes.  The first
 * byte chooses: below 128, a built-in language (hl_names(), by that
 * byte) colours the rest as code; from 128, the rest is a language file
 * (whose <language id> must be "fuzz" to be read) up to a NUL, and the
 * bytes after it are the code it colours.  The classes must be in range
 * and the run must end; limits (the match limit) are outcomes, not
 * failures. */
#include "fuzz.h"

#include "resolve/highlight.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *rest = (const char *)data + 1;
	size_t n = size - 1;
	const struct hl_lang *l;
	if (data[0] < 128) {
		const char *const *names = hl_names();
		size_t k = 0;
		while (names[k])
			k++;
		bool plain;
		l = hl_find(names[data[0] % k], &plain);
	} else {
		const char *nul = memchr(rest, '\0', n);
		size_t xml = nul ? (size_t)(nul - rest) : n;
		l = hl_load_text("fuzz", rest, xml);
		rest += nul ? xml + 1 : n;
		n -= nul ? xml + 1 : n;
	}
	if (!l)
		return 0;
	const char *stop;
	int line;
	unsigned char *cls = hl_classes(l, rest, n, &stop, &line);
	for (size_t i = 0; i < n; i++)
		if (cls[i] >= HL_NCLASSES)
			abort();
	free(cls);
	return 0;
}
