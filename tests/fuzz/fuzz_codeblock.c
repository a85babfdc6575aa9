/* fuzz_codeblock.c: a code fence's info string (codeblock.h) on
 * arbitrary bytes: the input up to its first newline is the info
 * string, the rest the code.  Whatever is read, the highlighted lines
 * must lie inside the code's lines, the classes in range, and nothing
 * may leak; bad attributes are diagnostics, not failures. */
#include "fuzz.h"

#include "resolve/codeblock.h"
#include "resolve/highlight.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	size_t len = strlen(s); /* up to a NUL, as cmark's strings */
	char *nl = memchr(s, '\n', len);
	const char *code = nl ? nl + 1 : "";
	if (nl)
		*nl = '\0';
	struct diag *d = fuzz_diag();
	struct loc at = {"f.md", 1, 4, 0};
	struct code_block *b = code_block_read(s, code, at, d);
	if (b) {
		size_t lines = 0;
		for (const char *p = code; *p; p++)
			lines += *p == '\n';
		if (*code && code[strlen(code) - 1] != '\n')
			lines++;
		if (b->nlines != lines)
			abort();
		for (size_t i = 0; b->classes && i < strlen(code); i++)
			if (b->classes[i] >= HL_NCLASSES)
				abort();
		if (b->start < 0)
			abort();
	}
	(void)code_block_attrs(s);
	code_block_free(b);
	diag_free(d);
	free(s);
	return 0;
}
