/* fuzz_attrs.c: the attribute syntax "{#id .class key=value}" on
 * arbitrary bytes.  Whatever the result, what was used must lie inside
 * the input, every item's column inside its line, and a block that is
 * not one must read nothing. */
#include "fuzz.h"

#include "resolve/attrs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *after = NULL;
	struct diag *d = fuzz_diag();
	struct loc at = {"f.md", 1, 1, 0};
	struct attrs a;
	enum attrs_result r = attrs_parse(p, p + size, at, d, &a, &after);
	if (r == ATTRS_NONE && a.n)
		abort();
	if (r != ATTRS_NONE && (after < p || after > p + size))
		abort();
	for (size_t i = 0; i < a.n; i++)
		if (a.items[i].col < 1 || (size_t)(a.items[i].col - 1 + a.items[i].len) > size)
			abort();
	static const char *const known[] = {"id", "width", NULL};
	attrs_check(&a, known, "an image", at, d);
	attrs_free(&a);
	diag_free(d);
	return 0;
}
