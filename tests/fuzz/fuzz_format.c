/* fuzz_format.c: format specs (SPEC section 5) on any number: the first
 * eight bytes are the double, the rest the spec. */
#include "fuzz.h"

#include "resolve/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double n;
	if (size < sizeof n)
		return 0;
	memcpy(&n, data, sizeof n);
	size_t len = size - sizeof n;
	char *spec = xmalloc(len ? len : 1);
	memcpy(spec, data + sizeof n, len);
	struct diag *d = fuzz_diag();
	diag_add_source(d, "fuzz.md", spec, len);
	struct loc at = {"fuzz.md", 1, 1, 0};
	struct format f = {false, -1, 'g'};
	if (format_parse(spec, len, at, &f, d)) {
		struct buf b = BUF_INIT;
		format_number(&b, n, &f);
		/* What format_number() writes is one number: never empty, never
		 * more than the precision limit allows. */
		if (b.len == 0 || b.len > 1024)
			abort();
		buf_free(&b);
	}
	diag_free(d);
	free(spec);
	return 0;
}
