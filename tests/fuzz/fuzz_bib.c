/* fuzz_bib.c: the bibliography readers and the citation scanner on
 * arbitrary bytes.  The first byte chooses: even, the rest is BibTeX
 * (bib_read_bibtex()); odd, CSL-JSON read from a file (bib_read_csl()).
 * Every entry read must have a key and valid UTF-8 where the input was;
 * then the same bytes go through bib_plain() and, from every '[' and
 * '@', the citation scanner, whose items must lie inside the input. */
#include "fuzz.h"

#include "parse/bib.h"
#include "resolve/cite.h"

static void inside(const char *p, size_t n, const char *lo, const char *hi)
{
	if (n && (p < lo || p + n > hi))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t n = size - 1;
	struct diag *d = fuzz_diag();
	struct bib b = {0};
	if (data[0] % 2 == 0)
		bib_read_bibtex(&b, text, n, "fuzz.bib", d);
	else
		bib_read_csl(&b, fuzz_file(text, n), "fuzz.json", d);
	for (size_t i = 0; i < b.n; i++) {
		if (!b.e[i].key || !*b.e[i].key || !b.e[i].type)
			abort();
		if (bib_find(&b, b.e[i].key) == NULL)
			abort();
		for (size_t k = 0; k < b.e[i].nauthors; k++)
			if (!b.e[i].authors[k].family || !b.e[i].authors[k].given)
				abort();
	}
	bib_clear(&b);
	struct buf plain = BUF_INIT;
	bib_plain(&plain, text, n);
	buf_free(&plain);
	const char *end = text + n;
	for (const char *p = text; p < end; p++) {
		struct cite_group g;
		if (*p == '[' && cite_group_at(p, end, &g)) {
			for (size_t i = 0; i < g.n; i++) {
				inside(g.items[i].key, g.items[i].key_len, text, end);
				inside(g.items[i].prefix, g.items[i].prefix_len, text, end);
				inside(g.items[i].locator, g.items[i].locator_len, text, end);
				if (!g.items[i].key_len)
					abort();
			}
		}
	}
	diag_free(d);
	return 0;
}
