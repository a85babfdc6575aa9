/* body.h: reading a directive's body, shared by the three directives
 * (table.c, excerpt.c, chartspec.c) and defined in directive.c: its
 * keys checked, its scalars read with their places in the .md file, the
 * runs and run sets it names looked up in the report, and a caption's
 * {{ }} values resolved. */
#ifndef LOGDOWN_RESOLVE_BODY_H
#define LOGDOWN_RESOLVE_BODY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/value.h"
#include "expr/expr.h"
#include "resolve/directive.h"

/* A scalar that reads as text: a string, or a number as written. */
bool is_text(const struct value *v);

/* Where byte `off` of scalar v's text was written, `len` wide. */
struct loc scalar_at(const struct value *v, size_t off, int len);

/* Reports "KEY must be WHAT, not 'x'" at v. */
void bad_value(struct diag *d, const struct value *v, const char *key, const char *what);

/* A whole number of at least min (and at most a billion) into *out;
 * false after an error. */
bool want_count(struct diag *d, const struct value *v, const char *key, long min, long *out);

/* The report's runs: c->scope, or none. */
const struct scope *ctx_scope(const struct directive_ctx *c);

/* The run or the run set (its index) of that name; NULL or -1.  What
 * is found is marked used (scope's runs_used, the ctx's sets_used). */
const struct run *find_run(const struct directive_ctx *c, const char *name);
long find_set(const struct directive_ctx *c, const char *name);

/* Reports that name (written at `at`) is not a run, or not a run set
 * either when sets, with the closest name; or, for a run that did not
 * load (its error is above), reports nothing and keeps `at` for the
 * report's one note (expr_failed_use()). */
void unknown_run(const struct directive_ctx *c, struct loc at, const char *name, bool sets);

/* A caption's text into out (which has_caption marks as given): with
 * {{ expr }} and {{ expr :spec }} values in it, each shown as in prose,
 * from the report's runs.  @tbl- and @fig- references are left as text,
 * for the document, which numbers them. */
void read_caption(struct directive_ctx *c, const struct value *v, struct directive_result *out);

#endif
