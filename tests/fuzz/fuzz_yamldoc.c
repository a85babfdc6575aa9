/* fuzz_yamldoc.c: YAML text into a value tree (yamldoc_parse), also with
 * the per-line column offsets of a directive body inside a list item
 * (yamldoc_parse_at).  The first byte chooses which, and the offsets. */
#include "fuzz.h"

#include "data/yamldoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	data++;
	size--;
	struct diag *d = fuzz_diag();
	/* The text is not NUL-terminated: a copy of exactly its bytes lets
	 * ASan see a read past the end. */
	char *text = xmalloc(size ? size : 1);
	memcpy(text, data, size);
	diag_add_source(d, "fuzz.yaml", text, size);
	struct value *v;
	if (mode & 1) {
		int col0[8];
		for (size_t i = 0; i < ARRAY_LEN(col0); i++)
			col0[i] = (int)((mode >> 1) & 7) * (int)i;
		v = yamldoc_parse_at(text, size, "fuzz.yaml", (int)(mode >> 4), col0,
				     ARRAY_LEN(col0), d);
	} else {
		v = yamldoc_parse(text, size, "fuzz.yaml", (int)(mode >> 1), d);
	}
	if (v) {
		/* Show it as the templates would: every scalar's text. */
		struct buf b = BUF_INIT;
		value_put_text(&b, v);
		buf_free(&b);
		struct value *c = value_copy(v);
		value_free(c);
	}
	value_free(v);
	value_free(yamldoc_scalar(text, size));
	diag_free(d);
	free(text);
	return 0;
}
