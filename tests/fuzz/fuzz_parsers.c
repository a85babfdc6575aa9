/* fuzz_parsers.c: every built-in parser (the parsers folder) on arbitrary
 * bytes.  The first byte chooses the parser; the rest is the result
 * file.  Detection runs over it too. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct parser_set *set = fuzz_parsers();
	const struct parser *p = parsers_at(set, data[0] % parsers_count(set));
	const char *path = fuzz_file(data + 1, size - 1);
	struct diag *d = fuzz_diag();
	struct loc at = {"fuzz.md", 1, 1, 0};
	parsers_detect(set, path, at, d);
	run_free(parser_run(p, path, "logs/fuzz.log", "fuzz", d));
	diag_free(d);
	return 0;
}
