/* test_claim.c: claims on values (claim.h): where a value's claim
 * starts, every form read, every bad one reported at its column, and
 * the check: full precision, a tolerance's edge, NaN and infinity, a
 * relative claim with and without its committed value, and the
 * messages as a reader sees them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "expr/expr.h"
#include "resolve/claim.h"
#include "base/util.h"

#include "capture.h"

/* A claim written at r.md:3:10. */
static const struct loc at = {"r.md", 3, 10, 0};

static struct claim parse_ok(const char *s, bool keyword)
{
	struct capture cap;
	cap_open(&cap);
	struct claim c;
	bool ok = claim_parse(s, strlen(s), at, keyword, &c, cap.d);
	assert_string_equal(cap_text(&cap), "");
	assert_true(ok);
	cap_close(&cap);
	return c;
}

/* Parses s and expects it refused with exactly this diagnostic. */
static void parse_bad(const char *s, bool keyword, const char *want)
{
	struct capture cap;
	cap_open(&cap);
	struct claim c;
	assert_false(claim_parse(s, strlen(s), at, keyword, &c, cap.d));
	assert_string_equal(cap_text(&cap), want);
	cap_close(&cap);
}

static void split_takes_the_first_bar_outside_quotes(void **state)
{
	(void)state;
	const char *s = "b.final_loss :.2f | expect < 8";
	assert_int_equal(claim_split(s, strlen(s)), 18);
	s = "x == 'a|b' | expect > 1";
	assert_int_equal(claim_split(s, strlen(s)), 11);
	s = "\"a\\\"|\" :d";
	assert_int_equal(claim_split(s, strlen(s)), strlen(s));
}

static void split_leaves_a_double_bar_to_the_expression(void **state)
{
	(void)state;
	const char *s = "a || b";
	assert_int_equal(claim_split(s, strlen(s)), strlen(s));
	s = "a || b | expect > 0";
	assert_int_equal(claim_split(s, strlen(s)), 7);
}

static void parses_every_operator(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		enum claim_op op;
		double a;
	} cases[] = {
		{" expect < 8", CLAIM_LT, 8},      {" expect <= 8.5", CLAIM_LE, 8.5},
		{" expect > -1", CLAIM_GT, -1},    {" expect >= 1e3", CLAIM_GE, 1000},
		{" expect == 7.125", CLAIM_EQ, 7.125}, {" expect != 0", CLAIM_NE, 0},
		{" expect \xE2\x89\xA4 2", CLAIM_LE, 2}, {" expect \xE2\x89\xA5 .5", CLAIM_GE, 0.5},
		{" expect \xE2\x89\xA0 3", CLAIM_NE, 3}, {" expect<8", CLAIM_LT, 8},
		{" expect > 98%", CLAIM_GT, 0.98},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct claim c = parse_ok(cases[i].s, true);
		assert_int_equal(c.op, cases[i].op);
		assert_true(c.a == cases[i].a);
	}
}

static void parses_a_tolerance_absolute_relative_and_around_the_committed_value(void **state)
{
	(void)state;
	struct claim c = parse_ok(" expect 7.1 \xC2\xB1 0.1 ", true);
	assert_int_equal(c.op, CLAIM_NEAR);
	assert_true(c.a == 7.1 && c.tol == 0.1 && !c.percent && !c.relative);
	/* the claim as written, for the message: without "expect" and blanks */
	assert_int_equal(c.len, strlen("7.1 \xC2\xB1 0.1"));
	assert_memory_equal(c.text, "7.1 \xC2\xB1 0.1", c.len);
	/* its place: from "expect" to its end */
	assert_int_equal(c.at.col, 11);
	assert_int_equal(c.at.len, (int)strlen("expect 7.1 \xC2\xB1 0.1"));

	c = parse_ok(" expect 1200 +- 5%", true);
	assert_true(c.op == CLAIM_NEAR && c.a == 1200 && c.tol == 0.05 && c.percent);
	c = parse_ok(" expect \xC2\xB1" "5%", true);
	assert_true(c.op == CLAIM_NEAR && c.relative && c.percent && c.tol == 0.05);
	c = parse_ok(" expect +- 0.2", true);
	assert_true(c.relative && !c.percent && c.tol == 0.2);
	c = parse_ok(" expect 7.1 \xC2\xB1 0", true);
	assert_true(c.tol == 0);
}

static void parses_a_range(void **state)
{
	(void)state;
	struct claim c = parse_ok(" expect 7.0 to 7.2", true);
	assert_true(c.op == CLAIM_RANGE && c.a == 7.0 && c.b == 7.2);
	c = parse_ok(" expect -1 to -1", true);
	assert_true(c.a == -1 && c.b == -1);
}

static void front_matter_claims_need_no_keyword(void **state)
{
	(void)state;
	struct claim c = parse_ok("< 8", false);
	assert_true(c.op == CLAIM_LT && c.a == 8);
	assert_int_equal(c.at.col, 10);
	c = parse_ok("expect 1200 \xC2\xB1 5%", false);
	assert_true(c.op == CLAIM_NEAR && c.a == 1200);
}

static void a_misspelled_expect_gets_a_did_you_mean(void **state)
{
	(void)state;
	parse_bad(" expct < 8", true, "r.md:3:11: error: unknown claim 'expct' (did you mean 'expect'?)\n");
	parse_bad(" b", true,
		  "r.md:3:11: error: a '|' in a value starts a claim, as in {{ x | expect < 8 }}, "
		  "not 'b' (to combine conditions, write 'or')\n");
	parse_bad(" < 8", true, "r.md:3:11: error: a claim starts with 'expect': write '| expect < 8'\n");
	parse_bad("  ", true,
		  "r.md:3:10: error: a '|' starts a claim and nothing follows it: e.g. "
		  "{{ x | expect < 8 }}\n");
	parse_bad(" expect", true,
		  "r.md:3:11: error: missing claim after 'expect': e.g. 'expect < 8', "
		  "'expect 7.1 \xC2\xB1 0.1' or 'expect \xC2\xB1" "5%'\n");
}

static void an_unknown_operator_lists_the_forms(void **state)
{
	(void)state;
	parse_bad(" expect =< 8", true,
		  "r.md:3:18: error: unknown operator '=<' (did you mean '<='?): a claim is < N, "
		  "<= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n");
	parse_bad(" expect = 8", true,
		  "r.md:3:18: error: unknown operator '=' (did you mean '=='?): a claim is < N, "
		  "<= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n");
	parse_bad(" expect ~ 8", true,
		  "r.md:3:18: error: unknown operator '~' (did you mean '\xC2\xB1'?): a claim is < N, "
		  "<= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n");
	parse_bad(" expect about 8", true,
		  "r.md:3:18: error: unknown operator 'about': a claim is < N, "
		  "<= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n");
	parse_bad(" expect 7 or 8", true,
		  "r.md:3:20: error: unknown operator 'or': a claim is < N, "
		  "<= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n");
}

static void a_missing_or_bad_number_is_an_error_at_its_column(void **state)
{
	(void)state;
	parse_bad(" expect <", true, "r.md:3:18: error: missing number after '<'\n");
	parse_bad(" expect < x", true, "r.md:3:20: error: expected a number after '<', not 'x'\n");
	parse_bad(" expect < 8ms", true, "r.md:3:20: error: '8ms' is not a number\n");
	parse_bad(" expect < nan", true, "r.md:3:20: error: a claim's number is finite, not 'nan'\n");
	parse_bad(" expect > -Inf", true, "r.md:3:20: error: a claim's number is finite, not '-Inf'\n");
	parse_bad(" expect < 1e999", true, "r.md:3:20: error: a claim's number is finite, not '1e999'\n");
	parse_bad(" expect 7.1", true,
		  "r.md:3:18: error: missing operator before '7.1': write '== 7.1', '7.1 \xC2\xB1 T' or "
		  "another of < N, <= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, "
		  "\xC2\xB1 T%, or A to B\n");
	parse_bad(" expect 7.1 \xC2\xB1", true, "r.md:3:22: error: missing number after '\xC2\xB1'\n");
	parse_bad(" expect < 8 s", true,
		  "r.md:3:22: error: unexpected 's' after the claim: one claim a value, one of < N, "
		  "<= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n");
}

static void a_negative_tolerance_and_a_backward_range_are_errors(void **state)
{
	(void)state;
	parse_bad(" expect 7.1 \xC2\xB1 -0.1", true,
		  "r.md:3:25: error: a tolerance is not negative: write '\xC2\xB1 0.1'\n");
	parse_bad(" expect \xC2\xB1 -5%", true,
		  "r.md:3:21: error: a tolerance is not negative: write '\xC2\xB1 5%'\n");
	parse_bad(" expect 8 to 7", true,
		  "r.md:3:18: error: a range's low end comes first: write '7 to 8'\n");
}

static bool holds(const char *s, double v, double base)
{
	struct claim c = parse_ok(s, true);
	return claim_holds(&c, v, base);
}

static void compares_at_full_precision(void **state)
{
	(void)state;
	assert_false(holds(" expect < 7.12", 7.125, NAN)); /* shown as 7.12 with :.2f */
	assert_true(holds(" expect <= 7.125", 7.125, NAN));
	assert_false(holds(" expect < 8", 8, NAN));
	assert_true(holds(" expect == 7.125", 7.125, NAN));
	assert_true(holds(" expect != 7.12", 7.125, NAN));
	assert_true(holds(" expect 7.0 to 7.125", 7.125, NAN));
	assert_false(holds(" expect 7.0 to 7.12", 7.125, NAN));
}

static void a_tolerance_holds_at_its_edge(void **state)
{
	(void)state;
	/* 7.2 - 7.1 is 0.10000000000000053 in binary */
	assert_true(holds(" expect 7.1 \xC2\xB1 0.1", 7.2, NAN));
	assert_true(holds(" expect 7.1 \xC2\xB1 0.1", 7.0, NAN));
	assert_false(holds(" expect 7.1 \xC2\xB1 0.1", 7.2001, NAN));
	/* 2% of 7.1 is 0.142 */
	assert_true(holds(" expect 7.1 \xC2\xB1 2%", 7.242, NAN));
	assert_false(holds(" expect 7.1 \xC2\xB1 2%", 7.2421, NAN));
	assert_true(holds(" expect 7.1 \xC2\xB1 0", 7.1, NAN));
	assert_false(holds(" expect 7.1 \xC2\xB1 0", 7.1000001, NAN));
}

static void nan_keeps_no_claim_and_infinity_only_a_bound(void **state)
{
	(void)state;
	assert_false(holds(" expect < 8", NAN, NAN));
	assert_false(holds(" expect != 8", NAN, NAN));
	assert_false(holds(" expect 7 to 8", NAN, NAN));
	assert_true(holds(" expect > 8", INFINITY, NAN));
	assert_false(holds(" expect 7.1 \xC2\xB1 1e300", INFINITY, NAN));
	assert_false(holds(" expect \xC2\xB1" "5%", 1, INFINITY));
}

static void a_relative_claim_is_around_the_committed_value(void **state)
{
	(void)state;
	/* moved by 4% and by 6% */
	assert_true(holds(" expect \xC2\xB1" "5%", 174.282130137 * 1.04, 174.282130137));
	assert_false(holds(" expect \xC2\xB1" "5%", 174.282130137 * 1.06, 174.282130137));
	assert_true(holds(" expect \xC2\xB1" "5%", 174.282130137 * 0.95, 174.282130137));
	/* 5% of a committed 0 is 0: only 0 keeps it */
	assert_true(holds(" expect \xC2\xB1" "5%", 0, 0));
	assert_false(holds(" expect \xC2\xB1" "5%", 1e-300, 0));
	assert_true(holds(" expect \xC2\xB1 0.5", 1.4, 1));
}

/* Checks a number v (shown as `shown`) against claim s, with base's
 * committed value (NaN: none), expecting this output. */
static enum claim_outcome check(const char *s, double v, const char *shown, double base,
				bool warn_only, const char *want)
{
	struct claim c = parse_ok(s, true);
	struct capture cap;
	cap_open(&cap);
	struct eval ev = {.kind = EVAL_NUMBER, .num = v};
	double got_base;
	enum claim_outcome o = claim_check(&c, "b.final_loss", &ev, shown, "text", NULL, 0,
					   warn_only, &got_base, cap.d);
	assert_string_equal(cap_text(&cap), want);
	cap_close(&cap);
	(void)base;
	return o;
}

static bool find_base(void *ctx, const char *expr, size_t occurrence, double *num, char **why)
{
	const double *base = ctx;
	assert_string_equal(expr, "b.final_loss");
	assert_int_equal(occurrence, 2);
	if (isnan(*base)) {
		*why = xstrdup("nothing was built into _site before");
		return false;
	}
	*num = *base;
	return true;
}

static void a_broken_claim_says_the_value_as_shown(void **state)
{
	(void)state;
	assert_int_equal(check(" expect < 8", 8.3142, "8.31", NAN, false,
			       "r.md:3:11: error: b.final_loss is 8.31 (unrounded 8.3142), the text "
			       "claims < 8\n"),
			 CLAIM_BROKE);
	assert_int_equal(check(" expect < 8", 8.31, "8.31", NAN, false,
			       "r.md:3:11: error: b.final_loss is 8.31, the text claims < 8\n"),
			 CLAIM_BROKE);
	assert_int_equal(check(" expect 7.1 \xC2\xB1 2%", 7.5, "7.5", NAN, true,
			       "r.md:3:11: warning: b.final_loss is 7.5, the text claims 7.1 \xC2\xB1 2% "
			       "(6.958 to 7.242)\n"),
			 CLAIM_BROKE);
	assert_int_equal(check(" expect < 8", 7.125, "7.12", NAN, false, ""), CLAIM_HELD);
	assert_int_equal(check(" expect < 8", 1234.5, "1,234.5", NAN, false,
			       "r.md:3:11: error: b.final_loss is 1,234.5, the text claims < 8\n"),
			 CLAIM_BROKE);
}

static void a_relative_claim_asks_for_its_committed_value(void **state)
{
	(void)state;
	struct claim c = parse_ok(" expect \xC2\xB1" "5%", true);
	double committed = 174.282130137;
	struct claim_base base = {find_base, &committed};
	struct eval ev = {.kind = EVAL_NUMBER, .num = 184.739057945};
	struct capture cap;
	cap_open(&cap);
	double used;
	assert_int_equal(claim_check(&c, "b.final_loss", &ev, "184.7", "text", &base, 2, false, &used,
				     cap.d),
			 CLAIM_BROKE);
	assert_true(used == committed);
	assert_string_equal(cap_text(&cap),
			    "r.md:3:11: error: b.final_loss is 184.7 (unrounded 184.739057945), the "
			    "text claims \xC2\xB1" "5% of the committed 174.2821301 (165.5680236 to "
			    "182.9962366)\n");
	cap_close(&cap);

	committed = NAN;
	cap_open(&cap);
	assert_int_equal(claim_check(&c, "b.final_loss", &ev, "184.7", "text", &base, 2, false, &used,
				     cap.d),
			 CLAIM_UNCHECKED);
	assert_string_equal(cap_text(&cap),
			    "r.md:3:11: note: the claim '\xC2\xB1" "5%' on b.final_loss was not checked: "
			    "nothing was built into _site before\n");
	assert_int_equal(diag_errors(cap.d), 0);
	cap_close(&cap);
}

static void a_claim_on_text_or_a_boolean_is_an_error(void **state)
{
	(void)state;
	struct claim c = parse_ok(" expect < 8", true);
	struct capture cap;
	cap_open(&cap);
	double used;
	struct eval ev = {.kind = EVAL_STRING, .text = "abc", .len = 3};
	assert_int_equal(claim_check(&c, "a.model", &ev, "abc", "text", NULL, 0, true, &used, cap.d),
			 CLAIM_BAD);
	ev = (struct eval){.kind = EVAL_BOOL, .boolean = true};
	assert_int_equal(claim_check(&c, "a.ok", &ev, "true", "text", NULL, 0, false, &used, cap.d),
			 CLAIM_BAD);
	assert_string_equal(cap_text(&cap),
			    "r.md:3:11: error: a claim needs a number; a.model is the text 'abc'\n"
			    "r.md:3:11: error: a claim needs a number; a.ok is true\n");
	cap_close(&cap);
}

static void a_missing_value_says_why_the_claim_cannot_be_checked(void **state)
{
	(void)state;
	struct claim c = parse_ok(" expect < 8", true);
	struct capture cap;
	cap_open(&cap);
	double used;
	char why[] = "a.eval_loss is not in logs/a.log";
	struct eval ev = {.kind = EVAL_MISSING, .why = why};
	assert_int_equal(claim_check(&c, "a.eval_loss", &ev, "n/a", "text", NULL, 0, false, &used,
				     cap.d),
			 CLAIM_UNCHECKED);
	assert_string_equal(cap_text(&cap),
			    "r.md:3:11: error: the claim '< 8' cannot be checked: a.eval_loss is not "
			    "in logs/a.log\n");
	cap_close(&cap);
}

static void claims_count_occurrences_by_expression(void **state)
{
	(void)state;
	struct claims cl = {0};
	struct claim c = parse_ok(" expect < 8", true);
	assert_int_equal(claims_add(&cl, &c, " a.loss ", 8), 1);
	assert_int_equal(claims_add(&cl, &c, "b.loss", 6), 2);
	assert_int_equal(claims_add(&cl, &c, "a.loss", 6), 3);
	assert_string_equal(cl.p[0].expr, "a.loss");
	assert_string_equal(cl.p[0].claim, "< 8");
	assert_int_equal(cl.p[0].occurrence, 0);
	assert_int_equal(cl.p[1].occurrence, 0);
	assert_int_equal(cl.p[2].occurrence, 1);
	assert_int_equal(cl.p[2].outcome, CLAIM_UNCHECKED);
	claims_free(&cl);
	claims_free(&cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_takes_the_first_bar_outside_quotes),
		cmocka_unit_test(split_leaves_a_double_bar_to_the_expression),
		cmocka_unit_test(parses_every_operator),
		cmocka_unit_test(parses_a_tolerance_absolute_relative_and_around_the_committed_value),
		cmocka_unit_test(parses_a_range),
		cmocka_unit_test(front_matter_claims_need_no_keyword),
		cmocka_unit_test(a_misspelled_expect_gets_a_did_you_mean),
		cmocka_unit_test(an_unknown_operator_lists_the_forms),
		cmocka_unit_test(a_missing_or_bad_number_is_an_error_at_its_column),
		cmocka_unit_test(a_negative_tolerance_and_a_backward_range_are_errors),
		cmocka_unit_test(compares_at_full_precision),
		cmocka_unit_test(a_tolerance_holds_at_its_edge),
		cmocka_unit_test(nan_keeps_no_claim_and_infinity_only_a_bound),
		cmocka_unit_test(a_relative_claim_is_around_the_committed_value),
		cmocka_unit_test(a_broken_claim_says_the_value_as_shown),
		cmocka_unit_test(a_relative_claim_asks_for_its_committed_value),
		cmocka_unit_test(a_claim_on_text_or_a_boolean_is_an_error),
		cmocka_unit_test(a_missing_value_says_why_the_claim_cannot_be_checked),
		cmocka_unit_test(claims_count_occurrences_by_expression),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
