/* fuzz_claim.c: claims on values (resolve/claim.h): the first byte
 * says whether "expect" is required (bit 0, as after a value's '|'),
 * the next sixteen are the value and the committed value as doubles,
 * the rest the claim.  A claim read is checked both ways, which must
 * agree; where a value's claim starts is never past its end. */
#include "fuzz.h"

#include <math.h>

#include "resolve/claim.h"

static bool committed(void *ctx, const char *expr, size_t occurrence, double *num, char **why)
{
	(void)expr;
	(void)occurrence;
	double base = *(const double *)ctx;
	if (isnan(base)) {
		*why = xstrdup("nothing committed");
		return false;
	}
	*num = base;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double v, base;
	if (size < 1 + sizeof v + sizeof base)
		return 0;
	bool keyword = data[0] & 1;
	memcpy(&v, data + 1, sizeof v);
	memcpy(&base, data + 1 + sizeof v, sizeof base);
	size_t len = size - 1 - sizeof v - sizeof base;
	char *s = xmalloc(len ? len : 1);
	memcpy(s, data + 1 + sizeof v + sizeof base, len);
	if (claim_split(s, len) > len)
		abort();
	struct diag *d = fuzz_diag();
	diag_add_source(d, "fuzz.md", s, len);
	struct loc at = {"fuzz.md", 1, 1, 0};
	struct claim c;
	if (claim_parse(s, len, at, keyword, &c, d)) {
		/* the claim as written lies inside the input */
		if (c.text < s || c.text + c.len > s + len || c.len == 0)
			abort();
		if (c.op == CLAIM_NEAR && !(c.tol >= 0))
			abort();
		bool holds = claim_holds(&c, v, base);
		struct eval ev = {.kind = EVAL_NUMBER, .num = v};
		struct claim_base cb = {committed, &base};
		double used;
		enum claim_outcome o = claim_check(&c, "x", &ev, "1.5", "text", &cb, 0, false, &used, d);
		bool unchecked = c.relative && isnan(base);
		if (unchecked ? o != CLAIM_UNCHECKED : (o == CLAIM_HELD) != holds)
			abort();
		struct claims cl = {0};
		size_t id = claims_add(&cl, &c, "x", 1);
		claims_free(&cl);
		(void)id;
	}
	diag_free(d);
	free(s);
	return 0;
}
