/* fuzz.h: what the libFuzzer harnesses in tests/fuzz share.
 *
 * Each harness is one fuzz_<entry>.c defining LLVMFuzzerTestOneInput();
 * `make fuzz` builds it with clang -fsanitize=fuzzer,address,undefined
 * against the modules compiled into build/fuzz/.  The harnesses run from
 * the repository root: the fixture runs below are read from
 * tests/fixtures.
 *
 * Diagnostics go to /dev/null unless FUZZ_VERBOSE is set (to see what a
 * crashing input reports: FUZZ_VERBOSE=1 build/fuzz/fuzz_x FILE). */
#ifndef LOGDOWN_FUZZ_H
#define LOGDOWN_FUZZ_H

#define _GNU_SOURCE /* memfd_create */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/diag.h"
#include "resolve/directive.h"
#include "expr/expr.h"
#include "base/fsutil.h"
#include "parse/logparse.h"
#include "resolve/provenance.h"
#include "data/run.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fresh diagnostics sink for one input.  Caller frees with
 * diag_free(). */
static inline struct diag *fuzz_diag(void)
{
	static FILE *sink;
	if (getenv("FUZZ_VERBOSE"))
		return diag_new(stderr, DIAG_TEXT, false);
	if (!sink)
		sink = fopen("/dev/null", "w");
	return diag_new(sink, DIAG_TEXT, false);
}

/* A path whose file holds exactly data[0..size): a memory file, opened
 * once and rewritten for each input, for the entry points that read a
 * path.  Borrowed, static. */
static inline const char *fuzz_file(const void *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("logdown-fuzz", 0);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("memfd");
		abort();
	}
	return path;
}

/* The built-in parsers, loaded once.  Borrowed. */
static inline struct parser_set *fuzz_parsers(void)
{
	static struct parser_set *set;
	if (!set) {
		struct diag *d = fuzz_diag();
		set = parsers_load(NULL, NULL, d);
		diag_free(d);
	}
	return set;
}

/* The runs a report's body can name, read once from tests/fixtures by
 * the built-in parsers: the Cerebras sweep cs512, cs1024, cs2048 (also
 * the run set cs, and bs512 = cs512 as the examples name it), sn16
 * (SambaNova), gc (Graphcore), groq, llama (CSV), metis (JSON) and gtest.
 * fuzz_runs() and fuzz_ctx() hand them out, borrowed. */
struct fuzz_runs {
	const struct run *runs[16];
	size_t nruns;
	const struct run *set[3];
	const struct run *const *set_runs[1];
	size_t set_counts[1];
	const char *set_names[1];
	struct scope scope;
};

static inline const struct run *fuzz_load_run(const char *name, const char *parser,
					       const char *path)
{
	struct diag *d = fuzz_diag();
	const struct parser *p = parsers_find(fuzz_parsers(), parser);
	struct run *r = p ? parser_run(p, path, path, name, d) : NULL;
	diag_free(d);
	if (!r) {
		fprintf(stderr, "fuzz: cannot read %s with %s (run from the repository root)\n",
			path, parser);
		abort();
	}
	return r;
}

static inline const struct fuzz_runs *fuzz_runs(void)
{
	static struct fuzz_runs fr;
	if (fr.nruns)
		return &fr;
	static const struct {
		const char *name, *parser, *path;
	} list[] = {
		{"cs1024", "cerebras", "tests/fixtures/cerebras/bs1024_partial.log"},
		{"cs2048", "cerebras", "tests/fixtures/cerebras/bs2048.log"},
		{"cs512", "cerebras", "tests/fixtures/cerebras/bs512.log"},
		{"sn16", "sambanova", "tests/fixtures/sambanova/ntasks16.log"},
		{"gc", "poptorch", "tests/fixtures/poptorch/mnist_epochs4.log"},
		{"groq", "groqflow", "tests/fixtures/groqflow/seq128.log"},
		{"llama", "csv", "tests/fixtures/csv/llama7b_sweep.csv"},
		{"metis", "json", "tests/fixtures/json/metis_vs_sophia_results.json"},
		{"gtest", "gtest", "tests/fixtures/gtest/gtest_double.log"},
	};
	for (size_t i = 0; i < ARRAY_LEN(list); i++)
		fr.runs[fr.nruns++] = fuzz_load_run(list[i].name, list[i].parser, list[i].path);
	/* The examples call the batch-512 run bs512 as well. */
	fr.runs[fr.nruns++] = fuzz_load_run("bs512", "cerebras", "tests/fixtures/cerebras/bs512.log");
	for (size_t i = 0; i < 3; i++)
		fr.set[i] = fr.runs[i];
	fr.set_names[0] = "cs";
	fr.set_runs[0] = fr.set;
	fr.set_counts[0] = 3;
	fr.scope.runs = fr.runs;
	fr.scope.nruns = fr.nruns;
	fr.scope.set_names = fr.set_names;
	fr.scope.set_counts = fr.set_counts;
	fr.scope.nsets = 1;
	return &fr;
}

/* The context a directive is rendered in, as doc.c gives it: the fixture
 * runs and the run set cs (fuzz_runs()), SVG figures, diagnostics to d,
 * and the provenance of a report in the current folder (the repository
 * root).  Caller frees .prov with provenance_free(). */
static inline struct directive_ctx fuzz_ctx(struct diag *d)
{
	static char *root;
	if (!root)
		root = path_real(".");
	const struct fuzz_runs *fr = fuzz_runs();
	struct directive_ctx c = {
		.scope = &fr->scope,
		.set_names = fr->set_names,
		.set_runs = fr->set_runs,
		.set_counts = fr->set_counts,
		.nsets = 1,
		.prov = provenance_new(".", root),
		.d = d,
		.figure_formats = FIGURE_SVG,
	};
	return c;
}

/* Splits data at its first NUL byte (or its end): *a and *na before it,
 * *b and *nb after it (empty without one). */
static inline void fuzz_split(const uint8_t *data, size_t size, const char **a, size_t *na,
			      const char **b, size_t *nb)
{
	const uint8_t *z = memchr(data, 0, size);
	*a = (const char *)data;
	*na = z ? (size_t)(z - data) : size;
	*b = z ? (const char *)z + 1 : (const char *)data + size;
	*nb = z ? size - *na - 1 : 0;
}

#endif
