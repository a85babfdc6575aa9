/* claim.h: what the prose relies on a value being, stated beside it
 * and checked on every build: {{ b.final_loss :.2f | expect < 8 }},
 * {{ x | expect 7.1 ± 0.1 }}, {{ x | expect ±5% }} (around the value
 * committed in the last build), and the front matter's expect: block
 * for claims the text does not show.
 *
 * A claim compares the value's number at full precision, not its
 * rounded text; a broken one is an error at the claim ("b.final_loss
 * is 8.31, the text claims < 8"), a warning with --no-claims.  The
 * forms (docs/manual.md, "Claims"):
 *
 *   < N   <= N   > N   >= N   == N   != N     (also ≤ ≥ ≠)
 *   N ± T   N ± T%                           (also +-; T% of N)
 *   ± T   ± T%                               around the committed value
 *   A to B                                   A <= value <= B
 *
 * A bound or a centre written with % is a fraction, as the :% format
 * shows one: "> 98%" is "> 0.98".  A tolerance's edge holds: 7.2 is
 * within 7.1 ± 0.1, though 7.2 - 7.1 is a hair over 0.1 in binary. */
#ifndef LOGDOWN_CLAIM_H
#define LOGDOWN_CLAIM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct eval;

enum claim_op {
	CLAIM_LT, CLAIM_LE, CLAIM_GT, CLAIM_GE, CLAIM_EQ, CLAIM_NE,
	CLAIM_NEAR,  /* centre ± tol */
	CLAIM_RANGE, /* lo to hi */
};

struct claim {
	enum claim_op op;
	double a;       /* the bound; CLAIM_NEAR: the centre; CLAIM_RANGE: the low end */
	double b;       /* CLAIM_RANGE: the high end */
	double tol;     /* CLAIM_NEAR: >= 0; with percent a fraction of the centre */
	bool percent;   /* CLAIM_NEAR: tol is relative (T%) */
	bool relative;  /* CLAIM_NEAR without a centre: around the committed value */
	const char *text; /* the claim as written after "expect", blanks trimmed (borrowed) */
	size_t len;
	struct loc at;  /* where the claim is written: its "expect", or its first byte */
};

/* Where the claim of a value's text s[0..n) (between its braces)
 * begins: the offset of its '|', outside quotes and not part of "||"
 * (which the expression language reports: "write 'or'"); n when there
 * is none.  The expression and its :spec come before it. */
size_t claim_split(const char *s, size_t n);

/* Parses the claim s[0..n) (what follows the '|', or a front matter
 * claim's text), written at `at` (s[0]'s place; columns count bytes).
 * With keyword, it must start with the word "expect"; without, the word
 * may be left out.  Every problem is an error at its column: no
 * "expect" ("unknown claim 'expct' (did you mean 'expect'?)", or a '|'
 * that starts none), an unknown operator (with the forms listed and a
 * did-you-mean for "=<", "=>", "="), a missing or malformed number,
 * NaN or infinity as a number, a negative tolerance, a range whose ends
 * are the wrong way round, text after the claim.  False then; *c is
 * the caller's and points into s. */
bool claim_parse(const char *s, size_t n, struct loc at, bool keyword, struct claim *c,
		 struct diag *d);

/* Does the number v keep claim c?  base is the committed value of a
 * relative claim (ignored by the others).  NaN keeps none. */
bool claim_holds(const struct claim *c, double v, double base);

/* What claim_check() did. */
enum claim_outcome {
	CLAIM_HELD,
	CLAIM_BROKE,
	CLAIM_UNCHECKED, /* a missing value, or a relative claim with nothing committed */
	CLAIM_BAD,       /* not a number: reported as an error */
};

/* The committed value of a relative claim, asked for by the expression
 * as written and its occurrence among the report's claims on it (0 for
 * the first).  True with *num; false with *why (caller frees) saying
 * why there is none ("no site has been built yet: _site/manifest.json
 * is missing"). */
struct claim_base {
	bool (*find)(void *ctx, const char *expr, size_t occurrence, double *num, char **why);
	void *ctx;
};

/* Checks value v of the expression expr (as written, for the message)
 * against c: silent when it holds; when it breaks an error at c->at
 * ("b.final_loss is 8.31, the text claims < 8"; `who` is "text" or
 * "front matter"), a warning with warn_only, naming the value as shown
 * (`shown`, its text on the page; the unrounded number follows when it
 * differs) and a tolerance's interval; a text or boolean value is an
 * error ("a claim needs a number; x is the text 'abc'"); a missing
 * value is left to its own error.  A relative claim asks base (may be
 * NULL) for the committed value, and without one notes that it was not
 * checked and why.  *base_num is set to the committed value used
 * (NaN when none). */
enum claim_outcome claim_check(const struct claim *c, const char *expr, const struct eval *v,
			       const char *shown, const char *who, const struct claim_base *base,
			       size_t occurrence, bool warn_only, double *base_num,
			       struct diag *d);

/* One claim as a build checked it, for the manifest (site/manifest.h):
 * where it is, the expression and the claim as written, the number
 * (has_num false for a missing value or one not a number), and whether
 * it held (a relative claim's outcome depends on the committed site,
 * not on the inputs alone: the manifest leaves it out). */
struct claim_record {
	struct loc at;
	char *expr;
	char *claim;
	bool has_num;
	double num;
	enum claim_outcome outcome;
	bool relative;     /* its outcome depends on the committed value */
	size_t occurrence; /* among the report's claims on expr, 0 for the first */
};

/* A report's claims in the order written, the front matter's first. */
struct claims {
	struct claim_record *p;
	struct claim *parsed; /* parallel to p */
	size_t n;
};

struct directive_ctx;

/* Adds claim c on the expression expr[0..len) (blanks around it are
 * trimmed), not checked yet.  Returns its id (> 0) for claims_check(). */
size_t claims_add(struct claims *cl, const struct claim *c, const char *expr, size_t len);

/* Checks claim `id` against v (claim_check(), with the committed
 * values, --no-claims and the diagnostics of ctx; `shown` is the value
 * as the page shows it) and records the outcome. */
void claims_check(struct claims *cl, size_t id, const struct directive_ctx *ctx,
		  const struct eval *v, const char *shown, const char *who);

/* The front matter's expect: block (ctx->expect), a map of expression
 * -> claim ("b.final_loss: < 8"; the word "expect" may start it):
 * each expression evaluated in ctx's scope and its claim checked, a
 * problem reported at the key (the expression) or the value (the
 * claim).  Run before the body's claims. */
void claims_front(struct claims *cl, const struct directive_ctx *ctx);

void claims_free(struct claims *cl);

#endif
