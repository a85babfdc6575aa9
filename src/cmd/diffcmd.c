/* diffcmd.c: `logdown diff OLD NEW` (diffcmd.h).  The comparison is
 * site/valuediff.c's, which `check --against` shares; this reads the
 * two manifests and turns the result into diff(1)'s exit codes. */
#include "cmd/diffcmd.h"

#include <stdlib.h>

#include "base/util.h"
#include "data/value.h"
#include "site/manifest.h"
#include "site/site.h"

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

struct against {
	const char *old;
	enum valuediff_format format;
	bool colour;
	FILE *out;
	struct diag *d;
	int rc;
};

static void diff_built(void *ctx, const char *built)
{
	struct against *a = ctx;
	struct value *x = manifest_load(a->old, a->old, a->d);
	struct value *y = manifest_load(built, built, a->d);
	if (x && y) {
		struct valuediff_opts o = {
			.format = a->format,
			.colour = a->colour,
			.old_name = a->old,
			.new_name = "the project",
			.d = a->d,
		};
		a->rc = valuediff_print(a->out, x, y, &o) ? DIFF_CHANGED : DIFF_SAME;
	}
	value_free(x);
	value_free(y);
}

int diffcmd_against(const char *old, const char *project, size_t jobs,
		    enum valuediff_format format, bool colour, FILE *out, struct diag *d)
{
	/* OLD first: a folder that is no site is said before a build */
	struct value *a = manifest_load(old, old, d);
	if (!a)
		return DIFF_TROUBLE;
	value_free(a);
	struct against ctx = {old, format, colour, out, d, DIFF_TROUBLE};
	struct build_opts o = {
		.root = project,
		.against = old,
		.jobs = jobs,
		.no_cache = true, /* as check: a cache that came along decides nothing */
		.on_built = diff_built,
		.built_ctx = &ctx,
	};
	int rc = site_build(&o, d);
	return rc == EXIT_OK ? ctx.rc : DIFF_TROUBLE;
}
