/* fuzz_mustache.c: Mustache templates.  The input is NUL-separated: the
 * template, then the partials "p", "base" and "q" (a partial may include
 * itself: nesting is limited).  Rendered twice against fixed data, as a
 * site renders its page template once per report. */
#include "fuzz.h"

#include "render/mustache.h"
#include "data/yamldoc.h"

static const char data_yaml[] =
	"title: \"Homework 7 <b>&</b>\"\n"
	"author: A. Student\n"
	"draft: false\n"
	"count: 3\n"
	"ratio: 0.125\n"
	"none: null\n"
	"site: {title: logdown, base_url: 'https://x.org/', nav: [{name: a}, {name: b}]}\n"
	"reports:\n"
	"  - {slug: hw07, title: HW7, date: 2024-04-08, tags: [a, b], draft: true}\n"
	"  - {slug: hw08, title: HW8, summary: '{{title}}'}\n"
	"list: [1, two, {three: 3}, [4, 5]]\n"
	"empty: []\n";

struct parts {
	const char *name[3];
	const char *text[3];
	size_t len[3];
};

static bool load(void *ctx, const char *name, struct buf *out)
{
	const struct parts *p = ctx;
	for (size_t i = 0; i < 3; i++)
		if (p->name[i] && strcmp(p->name[i], name) == 0) {
			buf_put(out, p->text[i], p->len[i]);
			return true;
		}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct value *root;
	if (!root) {
		struct diag *d = fuzz_diag();
		root = yamldoc_parse(data_yaml, sizeof data_yaml - 1, "data.yaml", 0, d);
		diag_free(d);
		if (!root)
			abort();
	}
	const char *tpl, *rest;
	size_t ntpl, nrest;
	fuzz_split(data, size, &tpl, &ntpl, &rest, &nrest);
	struct parts parts = {{"p", "base", "q"}, {"", "", ""}, {0, 0, 0}};
	for (size_t i = 0; i < 3 && nrest; i++) {
		const char *a, *b;
		size_t na, nb;
		fuzz_split((const uint8_t *)rest, nrest, &a, &na, &b, &nb);
		parts.text[i] = a;
		parts.len[i] = na;
		rest = b;
		nrest = nb;
	}
	struct diag *d = fuzz_diag();
	char *text = xmalloc(ntpl ? ntpl : 1);
	memcpy(text, tpl, ntpl);
	struct mustache *m = mustache_compile("page.html", text, ntpl, d);
	free(text); /* borrowed only during the call */
	if (m) {
		struct buf out = BUF_INIT;
		mustache_render(m, root, load, &parts, &out, d);
		buf_clear(&out);
		mustache_render(m, root, load, &parts, &out, d);
		buf_free(&out);
	}
	mustache_free(m);
	diag_free(d);
	return 0;
}
