/* fuzz_frontmatter.c: a report file's front matter: report_load() on
 * arbitrary bytes, then the runs: it names loaded from tests/fixtures
 * (globs, parsers, name patterns). */
#include "fuzz.h"

#include "base/fsutil.h"
#include "parse/report.h"
#include "parse/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *root;
	if (!root)
		root = path_real("tests/fixtures");
	struct diag *d = fuzz_diag();
	struct report r;
	const char *path = fuzz_file(data, size);
	if (report_load(&r, path, "fuzz", d)) {
		struct report_runs rr = {0};
		report_runs_load(&rr, value_get(r.meta, "runs"), "tests/fixtures", root,
				 fuzz_parsers(), d);
		report_runs_free(&rr);
	}
	report_free(&r, d);
	diag_free(d);
	return 0;
}
