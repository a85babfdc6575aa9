/* fuzz_xml.c: the XML reader (both mappings) on arbitrary bytes; the
 * first byte chooses the mapping (its low bit: generic or JUnit) and a
 * chunk size (the rest): the file is read twice, in the reader's own
 * chunks and in chunks of that many bytes (LOGDOWN_TEST_CHUNK), and what
 * is read and reported must be the same, or the harness aborts. */
#include "rundump.h"

#include "parse/xmlread.h"

static bool read_xml(struct run *r, const char *path, const char *name, struct diag *d,
		     const void *ctx)
{
	bool junit = *(const bool *)ctx;
	return junit ? xmlread_junit(r, path, name, d) : xmlread_generic(r, path, name, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char *const chunks[] = {"1", "2", "3", "7", "64", "5"};
	bool junit = data[0] & 1;
	const char *chunk = chunks[(data[0] >> 1) % ARRAY_LEN(chunks)];
	const char *path = fuzz_file(data + 1, size - 1);
	fuzz_same_in_chunks(read_xml, path, "fuzz.xml", &junit, chunk);
	return 0;
}
