/* diffcmd.c: `logdown diff OLD NEW` (diffcmd.h).  The comparison is
 * site/valuediff.c's, which `check --against` shares; this reads the
 * two manifests and turns the result into diff(1)'s exit codes. */
#include "cmd/diffcmd.h"

#include "data/value.h"
#include "site/manifest.h"

int diffcmd_run(const char *old, const char *now, enum valuediff_format format, bool colour,
		FILE *out, struct diag *d)
{
	/* both read first: each problem is reported, not only the first */
	struct value *a = manifest_load(old, old, d);
	struct value *b = manifest_load(now, now, d);
	int rc = DIFF_TROUBLE;
	if (a && b) {
		struct valuediff_opts o = {
			.format = format,
			.colour = colour,
			.old_name = old,
			.new_name = now,
			.d = d,
		};
		rc = valuediff_print(out, a, b, &o) ? DIFF_CHANGED : DIFF_SAME;
	}
	value_free(a);
	value_free(b);
	return rc;
}
