/* fuzz_parserdef.c: a parser definition (SPEC section 7) as YAML text,
 * the bytes before the first NUL; when it loads, it detects and parses
 * the bytes after the NUL as a result file. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *def, *log;
	size_t ndef, nlog;
	fuzz_split(data, size, &def, &ndef, &log, &nlog);
	struct diag *d = fuzz_diag();
	char *text = xmalloc(ndef ? ndef : 1);
	memcpy(text, def, ndef);
	struct parser_set *set = parsers_new();
	if (parsers_add(set, "parsers/fuzz.yaml", text, ndef, false, d)) {
		const struct parser *p = parsers_at(set, 0);
		const char *path = fuzz_file(log, nlog);
		struct loc at = {"fuzz.md", 1, 1, 0};
		parsers_detect(set, path, at, d);
		run_free(parser_run(p, path, "logs/fuzz.log", "fuzz", d));
	}
	parsers_free(set);
	diag_free(d);
	free(text);
	return 0;
}
