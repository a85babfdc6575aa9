/* fuzz_dot.c: the ```dot fence path (resolve/diagram.h) on arbitrary
 * bytes.  The first byte selects: 0, the checks alone (Graphviz's
 * parser with its errors captured, limit dot_nodes, the refused
 * attributes); else the whole fence, its attribute block the input's
 * first line and the DOT the rest, laid out by dot when it is small
 * (limit dot_nodes set to 40, and at most 2,000 bytes: a fuzzer's
 * minute is not spent in the layout, which is Graphviz's, not ours). */
#include "fuzz.h"

#include "data/limit.h"
#include "resolve/diagram.h"
#include "resolve/xref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static bool ready;
	if (!ready) {
		limit_reset(NULL);
		limit_set(LIMIT_DOT_NODES, 40);
		ready = true;
	}
	const char *p = (const char *)data + 1;
	size_t n = size - 1;
	struct diag *d = fuzz_diag();
	struct loc at = {"f.md", 3, 4, 3};
	if (data[0] == 0 || n > 2000) {
		diagram_check(p, n, at, d);
		diag_free(d);
		return 0;
	}
	/* cmark hands a fence's info string over without its newline and
	 * its body as NUL-free text ending in a newline */
	char *text = xstrndup(p, n);
	for (size_t i = 0; i < n; i++)
		if (!text[i])
			text[i] = ' ';
	char *nl = strchr(text, '\n');
	char *info = nl ? xstrndup(text, (size_t)(nl - text)) : xstrdup(text);
	char *body = xasprintf("%s\n", nl ? nl + 1 : "");
	size_t lines = 0;
	for (const char *b = body; *b; b++)
		lines += *b == '\n';
	int *shift = xcalloc(lines + 1, sizeof *shift);
	struct directive_ctx c = {0};
	c.d = d;
	struct xref x = {0};
	struct directive_result r = {0};
	if (diagram_info(info) &&
	    directive_diagram(&c, &x, info, at, body, at.line + 1, shift, lines, &r)) {
		if (!r.svg || strlen(r.svg) != r.svg_len || strncmp(r.svg, "<svg", 4) != 0)
			abort();
	}
	directive_result_clear(&r);
	xref_free(&x);
	free(shift);
	free(body);
	free(info);
	free(text);
	diag_free(d);
	return 0;
}
