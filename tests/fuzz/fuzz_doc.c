/* fuzz_doc.c: a report body, Markdown with inline values,
 * cross-references and {table}/{log}/{chart} directives, rendered by
 * html_render() against the fixture runs (fuzz.h); charts are drawn as
 * SVG, not written. */
#include "fuzz.h"

#include "resolve/directive.h"
#include "resolve/doc.h"
#include "render/html.h"
#include "base/fsutil.h"
#include "resolve/provenance.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag *d = fuzz_diag();
	char *text = xmalloc(size ? size : 1);
	memcpy(text, data, size);
	diag_add_source(d, "fuzz.md", text, size);
	struct directive_ctx c = fuzz_ctx(d);
	free(html_render(text, size, "fuzz.md", 0, &c));
	provenance_free(c.prov);
	diag_free(d);
	free(text);
	return 0;
}
