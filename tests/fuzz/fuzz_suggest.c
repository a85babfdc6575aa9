/* fuzz_suggest.c: `logdown parse --suggest` on arbitrary bytes.  When it
 * proposes a definition, the definition must load (every pattern
 * compiles: the escaping holds), the same bytes must give the same
 * YAML, and the parser must run over the bytes it came from. */
#include "fuzz.h"

#include "parse/suggest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag *d = fuzz_diag();
	struct suggestion a, b;
	const char *text = size ? (const char *)data : "";
	if (!suggest_text(text, size, "fuzz.log", "fuzz", fuzz_parsers(), &a, d)) {
		diag_free(d);
		return 0;
	}
	if (!suggest_text(text, size, "fuzz.log", "fuzz", fuzz_parsers(), &b, d) ||
	    strcmp(a.yaml, b.yaml) != 0)
		abort();
	suggestion_free(&b);
	struct diag *loud = diag_new(stderr, DIAG_TEXT, false);
	struct parser_set *set = parsers_new();
	if (!parsers_add(set, "fuzz.yaml", a.yaml, strlen(a.yaml), false, loud)) {
		fputs(a.yaml, stderr);
		abort();
	}
	diag_free(loud);
	const char *path = fuzz_file(data, size);
	struct run *r = parser_run(parsers_at(set, 0), path, "fuzz.log", "r", d);
	run_free(r);
	parsers_free(set);
	suggestion_free(&a);
	diag_free(d);
	return 0;
}
