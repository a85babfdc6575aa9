/* fuzz_directive.c: the body of a {table}, {log} or {chart} directive
 * (the first byte chooses) as YAML, rendered against the fixture runs
 * (fuzz.h), as doc.c would, and its result written as HTML (html.h); a
 * chart is drawn as SVG but not written. */
#include "fuzz.h"

#include "resolve/directive.h"
#include "render/html.h"
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
		struct directive_result r = {0};
		bool ok;
		if (kind == 0)
			ok = directive_table(&c, body, 1, &r);
		else if (kind == 1)
			ok = directive_log(&c, body, &r);
		else
			ok = directive_chart(&c, body, 1, "fig-1", &r);
		struct buf out = BUF_INIT;
		if (ok)
			html_directive(&out, &r);
		buf_free(&out);
		directive_result_clear(&r);
		provenance_free(c.prov);
	}
	value_free(body);
	diag_free(d);
	free(text);
	return 0;
}
