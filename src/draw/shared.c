/* shared.c: what the drawings of one chart share (struct chart_shared):
 * each series' points mapped to pixels, kept by geometry, so that a
 * drawing in a geometry an earlier one had (the dark theme at the same
 * size) copies its pixel points instead of mapping every point again.
 * The range of the points is check_series()'s (check.c). */
#include "draw/chart.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

struct chart_shared_proj {
	size_t series;
	double geo[CHART_GEO_N];
	struct pt *p;
	size_t n;
	bool reduced;
};

void chart_shared_clear(struct chart_shared *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < sh->nproj; i++)
		free(sh->proj[i].p);
	free(sh->proj);
	memset(sh, 0, sizeof *sh);
}

static const struct chart_shared_proj *find(const struct chart_shared *sh, size_t series,
					    const double geo[CHART_GEO_N])
{
	/* bit for bit, as carry_find(): a NaN or a -0 is a geometry of
	 * its own */
	for (size_t i = 0; i < sh->nproj; i++)
		if (sh->proj[i].series == series &&
		    memcmp(sh->proj[i].geo, geo, sizeof sh->proj[i].geo) == 0)
			return &sh->proj[i];
	return NULL;
}

bool shared_proj_get(const struct chart_shared *sh, size_t series, const double geo[CHART_GEO_N],
		     struct pts *out)
{
	const struct chart_shared_proj *p = find(sh, series, geo);
	if (!p)
		return false;
	if (out->cap < p->n) {
		out->cap = p->n;
		out->p = xrealloc(out->p, out->cap * sizeof *out->p);
	}
	if (p->n)
		memcpy(out->p, p->p, p->n * sizeof *out->p);
	out->n = p->n;
	out->reduced = p->reduced;
	return true;
}

void shared_proj_put(struct chart_shared *sh, size_t series, const double geo[CHART_GEO_N],
		     const struct pts *out)
{
	if (find(sh, series, geo))
		return;
	sh->proj = xrealloc(sh->proj, (sh->nproj + 1) * sizeof *sh->proj);
	struct chart_shared_proj *p = &sh->proj[sh->nproj++];
	p->series = series;
	memcpy(p->geo, geo, sizeof p->geo);
	p->n = out->n;
	p->p = xmalloc((out->n ? out->n : 1) * sizeof *p->p);
	if (out->n)
		memcpy(p->p, out->p, out->n * sizeof *p->p);
	p->reduced = out->reduced;
}
