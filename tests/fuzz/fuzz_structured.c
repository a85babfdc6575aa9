/* fuzz_structured.c: the JSON, YAML and CSV readers on arbitrary bytes;
 * the first byte chooses the reader. */
#include "fuzz.h"

#include "structured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static bool (*const read[])(struct run *, const char *, const char *, struct diag *) = {
		structured_read_json,
		structured_read_yaml,
		structured_read_csv,
	};
	static const char *const names[] = {"fuzz.json", "fuzz.yaml", "fuzz.csv"};
	unsigned k = data[0] % 3;
	const char *path = fuzz_file(data + 1, size - 1);
	struct diag *d = fuzz_diag();
	struct run *r = run_new("fuzz", names[k], "fuzz");
	read[k](r, path, names[k], d);
	run_free(r);
	free(snake_case((const char *)data + 1, size - 1));
	diag_free(d);
	return 0;
}
