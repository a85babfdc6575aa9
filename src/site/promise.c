/* promise.c: a build made on a promise, and what it holds back until
 * the promise is kept.
 *
 * A log that only grew is resumed from its saved state as soon as the
 * build knows it grew, while the proof that its old bytes are unchanged
 * is still being checked on other threads (cache_speculate(), docs/
 * internals.md, "Appends", *The proof checked beside the build*).  Such
 * a build writes only into its staging folder and into cache files
 * keyed by content, which are right for the content it read whatever
 * the file holds; what it says is held here: its diagnostics (a
 * deferred sink) and its calls to the caller's on_report and on_input
 * (serve's watch).  At the join, before the commit, they are given out
 * (promise_keep()) when every proof held, and dropped otherwise
 * (promise_drop()): the build is then thrown away and made again
 * without the promise, and says only what that build says. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "site_int.h"

/* One call held: on_report (bundle may be NULL) or on_input (path). */
struct held_call {
	bool report;
	char *slug, *source, *bundle, *path;
	bool reused;
};

static void held_report(void *ctx, const char *slug, const char *source, const char *bundle,
			bool reused)
{
	struct promise *p = ctx;
	p->calls = xrealloc(p->calls, (p->ncalls + 1) * sizeof *p->calls);
	p->calls[p->ncalls++] = (struct held_call){true, xstrdup(slug), xstrdup(source),
						   bundle ? xstrdup(bundle) : NULL, NULL, reused};
}

static void held_input(void *ctx, const char *slug, const char *path)
{
	struct promise *p = ctx;
	p->calls = xrealloc(p->calls, (p->ncalls + 1) * sizeof *p->calls);
	p->calls[p->ncalls++] = (struct held_call){false, xstrdup(slug), NULL, NULL,
						   xstrdup(path), false};
}

void promise_begin(struct promise *p, const struct build_opts *opts, struct diag *d)
{
	memset(p, 0, sizeof *p);
	p->outer = d;
	p->d = diag_new_deferred(d);
	p->opts = *opts;
	p->caller = opts;
	if (opts->on_report || opts->on_input) {
		p->opts.on_report = held_report;
		p->opts.on_input = held_input;
		p->opts.input_ctx = p;
	}
}

static void calls_free(struct promise *p)
{
	for (size_t i = 0; i < p->ncalls; i++) {
		free(p->calls[i].slug);
		free(p->calls[i].source);
		free(p->calls[i].bundle);
		free(p->calls[i].path);
	}
	free(p->calls);
	p->calls = NULL;
	p->ncalls = 0;
}

struct diag *promise_keep(struct promise *p)
{
	diag_flush(p->d, p->outer);
	diag_free(p->d);
	p->d = NULL;
	const struct build_opts *o = p->caller;
	for (size_t i = 0; i < p->ncalls; i++) {
		struct held_call *c = &p->calls[i];
		if (c->report && o->on_report)
			o->on_report(o->input_ctx, c->slug, c->source, c->bundle, c->reused);
		else if (!c->report && o->on_input)
			o->on_input(o->input_ctx, c->slug, c->path);
	}
	calls_free(p);
	return p->outer;
}

void promise_drop(struct promise *p)
{
	diag_free(p->d);
	p->d = NULL;
	calls_free(p);
	/* the build made again names its output anew */
	if (p->caller->output_dir && *p->caller->output_dir) {
		free(*p->caller->output_dir);
		*p->caller->output_dir = NULL;
	}
}
