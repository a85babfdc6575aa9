/* logparse.h: parsers: YAML definitions (SPEC section 7), compiled once,
 * run over result files to make runs.
 *
 *   name: cerebras
 *   description: Cerebras Model Zoo training logs
 *   detect: 'Train Device=CSX'            # tried in the first 1 MiB
 *   fields:
 *     batch_size: 'Effective batch size is (\d+)'      # first group, last match
 *     total_time: { pattern: 'in ([\d.]+) seconds', pick: last }
 *     started:    { pattern: '^(\S+ \S+) INFO', type: timestamp }
 *   series:
 *     train: 'Step=(?<step>\d+), Loss=(?<loss>[\d.]+), Rate=(?<rate>[\d.]+)'
 *   tables:
 *     results: { header: '\|\s*Source\s*\|' }
 *   derive:
 *     final_loss: last(train.loss)
 *
 * The structured readers (json, yaml, csv) are parsers too: their
 * definitions say `format: json` (or yaml, csv) instead of patterns. */
#ifndef LOGDOWN_LOGPARSE_H
#define LOGDOWN_LOGPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "run.h"

struct parser;
struct parser_set;

/* The built-in parsers (compiled into the binary from the repository's
 * parsers folder), then every .yaml file in ROOT/parsers and in each of
 * extra_dirs
 * (NULL-terminated, may be NULL), a later definition of a name replacing
 * an earlier one.  root may be NULL (built-ins only).  Problems in a
 * definition (malformed YAML, an unknown key, a pattern that does not
 * compile: at its line and column in the .yaml file) are reported
 * through d and that parser is left out; the set is returned anyway.
 * Caller frees with parsers_free(). */
struct parser_set *parsers_load(const char *root, char *const *extra_dirs, struct diag *d);
void parsers_free(struct parser_set *set);

/* An empty set, for a caller that adds definitions itself (tests,
 * tools).  Caller frees with parsers_free(). */
struct parser_set *parsers_new(void);
/* Adds the definition in text (len bytes; `file` names it in
 * diagnostics and is copied), replacing a parser of the same name in its
 * place.  A built-in's text must outlive the set (diagnostics quote it).
 * Returns false after reporting the definition's problems through d;
 * the set is then unchanged. */
bool parsers_add(struct parser_set *set, const char *file, const char *text, size_t len,
		 bool builtin, struct diag *d);

size_t parsers_count(const struct parser_set *set);
const struct parser *parsers_at(const struct parser_set *set, size_t i);
/* The parser of that name, or NULL. */
const struct parser *parsers_find(const struct parser_set *set, const char *name);
/* The parser named, or NULL after an error at `at` that suggests the
 * closest name: "unknown parser 'cerebas' (did you mean 'cerebras'?)". */
const struct parser *parsers_lookup(const struct parser_set *set, const char *name,
				    struct loc at, struct diag *d);

const char *parser_name(const struct parser *p);
const char *parser_description(const struct parser *p);
/* "built-in", or the path of the .yaml file that defined it. */
const char *parser_origin(const struct parser *p);

/* The one parser whose detection claims the file at path (its first
 * 1 MiB).  None, or more than one, is an error at `at` that lists the
 * candidates and says to name the parser: NULL then. */
const struct parser *parsers_detect(const struct parser_set *set, const char *path,
				    struct loc at, struct diag *d);

/* Runs p over the file at path (streamed: memory grows with the series
 * kept, not with the file), naming the run run_name.  `shown` is the
 * path as diagnostics and the run's file should show it.  A binary or
 * unreadable file is an error; a parser that matched nothing is a
 * warning.  Returns NULL on an error, reported through d.  Caller frees
 * with run_free(). */
struct run *parser_run(const struct parser *p, const char *path, const char *shown,
		       const char *run_name, struct diag *d);

#endif
