/* fuzz_directive.c: the body of a {table}, {log} or {chart} directive
 * (the first byte chooses) as YAML, rendered against the fixture runs
 * (fuzz.h), as doc.c would; a chart is drawn as SVG but not written. */
#include "fuzz.h"

#include "resolve/directive.h"
#include "base/fsutil.h"
#include "resolve/provenance.h"
#include "data/yamldoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned kind = data[0] % 3;
	data++;
	size--;
	struct diag *d = fuzz_diag();
	char *text = xmalloc(size ? size : 1);
	memcpy(text, data, size);
	diag_add_source(d, "fuzz.md", text, size);
	struct value *body = yamldoc_parse(text, size, "fuzz.md", 0, d);
	/* doc.c hands a directive only a map: anything else is reported
	 * there. */
	if (body && body->kind == VALUE_MAP) {
		struct directive_ctx c = fuzz_ctx(d);
		struct buf out = BUF_INIT;
		if (kind == 0)
			directive_table(&c, body, 1, &out);
		else if (kind == 1)
			directive_log(&c, body, &out);
		else
			directive_chart(&c, body, 1, "fig-1", &out);
		buf_free(&out);
		provenance_free(c.prov);
	}
	value_free(body);
	diag_free(d);
	free(text);
	return 0;
}
