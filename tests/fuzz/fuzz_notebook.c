/* fuzz_notebook.c: the Jupyter notebook loader (parse/notebook.h) on
 * arbitrary bytes, then a text parser over the log it makes.  Whatever
 * it reads must hold together, or the harness aborts: the log is
 * nb.len bytes, each line ends in '\n', the cells' spans follow each
 * other and cover every line, notebook_where() agrees with them, and
 * notebook_fd() holds the same bytes. */
#include "fuzz.h"

#include "parse/notebook.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "notebook: %s\n", what);
		abort();
	}
}

static void check_log(const struct notebook *nb)
{
	check(nb->text != NULL && nb->text[nb->len] == '\0', "the log is not NUL-terminated");
	check(nb->len == 0 || nb->text[nb->len - 1] == '\n', "the last line is not ended");
	long lines = 0;
	for (size_t i = 0; i < nb->len; i++)
		lines += nb->text[i] == '\n';
	check(lines == nb->nlines, "nlines is not the count of line ends");
	long next = 1;
	int cell = 0;
	for (size_t i = 0; i < nb->nspans; i++) {
		const struct nb_span *s = &nb->spans[i];
		check(s->first == next && s->count > 0, "the spans do not follow each other");
		check(s->cell > cell && s->cell <= nb->ncells, "a span's cell is out of order");
		cell = s->cell;
		for (long k = 0; k < s->count; k++) {
			int c;
			long l;
			check(notebook_where(nb, s->first + k, &c, &l) && c == s->cell && l == k + 1,
			      "notebook_where() disagrees with the spans");
		}
		next += s->count;
	}
	check(next == nb->nlines + 1, "the spans do not cover the log");
	int c;
	long l;
	check(!notebook_where(nb, nb->nlines + 1, &c, &l), "a line past the end has a cell");
	int fd = notebook_fd(nb);
	check(fd >= 0, "notebook_fd() failed");
	char *back = xmalloc(nb->len + 1);
	size_t got = 0;
	for (ssize_t n; got < nb->len && (n = read(fd, back + got, nb->len - got)) > 0;)
		got += (size_t)n;
	check(got == nb->len && memcmp(back, nb->text, nb->len) == 0,
	      "notebook_fd() does not hold the log");
	free(back);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct parser_set *set;
	if (!set) {
		struct diag *d = fuzz_diag();
		set = parsers_load(NULL, NULL, d);
		diag_free(d);
	}
	const char *path = fuzz_file(data, size);
	struct diag *d = fuzz_diag();
	struct notebook nb;
	if (notebook_load(path, "fuzz.ipynb", &nb, d)) {
		check_log(&nb);
		/* The text parsers read it as a log (the file is known for a
		 * notebook by its content, its name being /proc/self/fd/N). */
		const struct parser *p = parsers_find(set, "hf-trainer");
		if (p && notebook_is(path)) {
			struct run *r = parser_run(p, path, "fuzz.ipynb", "fuzz", d);
			check(!r || run_line_count(r) == nb.nlines, "the run's lines are not the log's");
			run_free(r);
		}
	}
	notebook_free(&nb);
	diag_free(d);
	return 0;
}
