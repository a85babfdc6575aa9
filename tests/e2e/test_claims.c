/* test_claims.c: claims on values (resolve/claim.h) in build, check,
 * check --against and pdf, on a real Cerebras log of the corpus
 * (final_loss 7.12500 at line 85, 174.282130137 seconds at line 90):
 * a claim that breaks is an error at its column and exit 1, a warning
 * with --no-claims; one that holds at its tolerance's edge is silent and
 * the value shows as without it; the front matter's expect: block; a
 * relative claim against the committed site whose value moved by 4%
 * (holds) and 6% (breaks), and its note on the first build; the
 * manifest's claims; every bad claim at its column. */
#include "e2e.h"

#define LOG "tests/corpus/cerebras/bert-large-bs512-student-2024-04.log"

#define FRONT                                                                                      \
	"---\n"                                                                                    \
	"title: R\n"                                                                               \
	"runs:\n"                                                                                  \
	"  a: logs/a.log\n"

static char *project(const char *md)
{
	return e2e_project(E2E_FILES(E2E_COPY("content/r/logs/a.log", LOG),
				     E2E_TEXT("content/r/index.md", md)));
}

/* The log's "Processed 512000 sample(s) in T seconds." (line 90)
 * says `now` seconds instead. */
static void set_time(const char *dir, const char *now)
{
	char *text = e2e_read(dir, "content/r/logs/a.log");
	assert_non_null(text);
	char *at = strstr(text, "sample(s) in ");
	assert_non_null(at);
	at += strlen("sample(s) in ");
	char *end = strstr(at, " seconds");
	assert_non_null(end);
	char *out = xasprintf("%.*s%s%s", (int)(at - text), text, now, end);
	e2e_write(dir, "content/r/index.md.tmp", out);
	char *path = xasprintf("%s/content/r/logs/a.log", dir);
	char *tmp = xasprintf("%s/content/r/index.md.tmp", dir);
	assert_int_equal(rename(tmp, path), 0);
	free(tmp);
	free(path);
	free(out);
	free(text);
}

static void a_broken_claim_is_an_error_at_its_column(void **state)
{
	(void)state;
	char *dir = project(FRONT "---\nThe loss fell to {{ a.final_loss :.2f | expect < 7 }}.\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/index.md:6:41: error: a.final_loss is 7.12 (unrounded 7.125), "
			    "the text claims < 7\n"
			    "    6 | The loss fell to {{ a.final_loss :.2f | expect < 7 }}.\n"
			    "      |                                         ^~~~~~~~~~\n"
			    "logdown: 1 error; the previous output was left as it was\n");
	proc_free(&r);
	/* check says the same and writes nothing */
	r = e2e_run(dir, "check --diagnostics=github");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "::error file=content/r/index.md,line=6,col=41::a.final_loss is 7.12 "
				   "(unrounded 7.125), the text claims < 7\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static void no_claims_makes_it_a_warning(void **state)
{
	(void)state;
	char *dir = project(FRONT "---\nThe loss fell to {{ a.final_loss :.2f | expect < 7 }}.\n");
	for (int i = 0; i < 3; i++) {
		const char *cmd = i == 0 ? "build --no-claims" : i == 1 ? "check --no-claims"
									: "pdf --no-claims";
		struct proc r = e2e_run(dir, "%s", cmd);
		assert_int_equal(r.status, 0);
		assert_true(str_has_prefix(r.err, "content/r/index.md:6:41: warning: a.final_loss is 7.12 "
						  "(unrounded 7.125), the text claims < 7\n"));
		proc_free(&r);
	}
	/* --strict counts the warning again */
	struct proc r = e2e_run(dir, "check --no-claims --strict");
	assert_int_equal(r.status, 1);
	proc_free(&r);
	e2e_drop(&dir);
}

static void a_claim_that_holds_at_its_edge_is_silent_and_shows_the_value_as_without(void **state)
{
	(void)state;
	char *dir = project(FRONT "---\nLoss {{ a.final_loss :.2f | expect 7.1 \xC2\xB1 0.025 }}, "
				  "{{ a.final_loss | expect <= 7.125 }}, "
				  "{{ a.final_loss | expect 7.12 to 7.125 }}.\n");
	char *with = e2e_build_body(dir, "");
	e2e_write(dir, "content/r/index.md",
		  FRONT "---\nLoss {{ a.final_loss :.2f }}, {{ a.final_loss }}, {{ a.final_loss }}.\n");
	char *without = e2e_build_body(dir, "");
	assert_string_equal(with, without);
	assert_non_null(strstr(with, ">7.12</a>, "));
	free(with);
	free(without);
	e2e_drop(&dir);
}

static void front_matter_claims_are_checked_at_their_value(void **state)
{
	(void)state;
	char *dir = project(FRONT "expect:\n"
				  "  a.total_time: \"174 \xC2\xB1 0.1%\"\n"
				  "  a.final_loss: < 7\n"
				  "  a.samples: expect == 512000\n"
				  "---\nNo values shown.\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/index.md:6:18: error: a.total_time is 174.282130137, the front "
			    "matter claims 174 \xC2\xB1 0.1% (173.826 to 174.174)\n"
			    "    6 |   a.total_time: \"174 \xC2\xB1 0.1%\"\n"
			    "      |                  ^~~~~~~~~~\n"
			    "content/r/index.md:7:17: error: a.final_loss is 7.12500, the front matter "
			    "claims < 7\n"
			    "    7 |   a.final_loss: < 7\n"
			    "      |                 ^~~\n"
			    "logdown: 2 errors; nothing was written\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static void bad_claims_are_errors_at_their_column(void **state)
{
	(void)state;
	char *dir = project(FRONT "expect:\n"
				  "  a.final_loss: [1, 2]\n"
				  "  a.nothing: < 8\n"
				  "  a.total_time: about 174\n"
				  "---\n"
				  "{{ a.final_loss | expct < 8 }} {{ a.final_loss | expect =< 8 }}\n"
				  "{{ a.final_loss | expect < }} {{ a.eval_loss | expect < 8 }}\n"
				  "{{ a.final_loss | a.samples }} {{ batch_size | expect > 1 }}\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err,
		"content/r/index.md:6:17: error: the claim on a.final_loss is text, e.g. a.final_loss: "
		"'< 8' or '7.1 \xC2\xB1 0.1'\n"
		"    6 |   a.final_loss: [1, 2]\n"
		"      |                 ^~~~~~\n"
		"content/r/index.md:7:5: error: a has no field or series 'nothing'\n"
		"    7 |   a.nothing: < 8\n"
		"      |     ^~~~~~~\n"
		"content/r/index.md:8:17: error: unknown operator 'about': a claim is < N, <= N, > N, "
		">= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n"
		"    8 |   a.total_time: about 174\n"
		"      |                 ^~~~~\n"
		"content/r/index.md:10:19: error: unknown claim 'expct' (did you mean 'expect'?)\n"
		"   10 | {{ a.final_loss | expct < 8 }} {{ a.final_loss | expect =< 8 }}\n"
		"      |                   ^~~~~\n"
		"content/r/index.md:10:57: error: unknown operator '=<' (did you mean '<='?): a claim "
		"is < N, <= N, > N, >= N, == N, != N, N \xC2\xB1 T, N \xC2\xB1 T%, \xC2\xB1 T%, or A to B\n"
		"   10 | {{ a.final_loss | expct < 8 }} {{ a.final_loss | expect =< 8 }}\n"
		"      |                                                         ^~\n"
		"content/r/index.md:11:26: error: missing number after '<'\n"
		"   11 | {{ a.final_loss | expect < }} {{ a.eval_loss | expect < 8 }}\n"
		"      |                          ^\n"
		"content/r/index.md:12:19: error: a '|' in a value starts a claim, as in {{ x | expect "
		"< 8 }}, not 'a.samples' (to combine conditions, write 'or')\n"
		"   12 | {{ a.final_loss | a.samples }} {{ batch_size | expect > 1 }}\n"
		"      |                   ^~~~~~~~~\n"
		"content/r/index.md:11:48: error: the claim '< 8' cannot be checked: a.eval_loss is not "
		"in content/r/logs/a.log\n"
		"   11 | {{ a.final_loss | expect < }} {{ a.eval_loss | expect < 8 }}\n"
		"      |                                                ^~~~~~~~~~\n"
		"content/r/index.md:12:35: error: run 'batch_size' is not defined\n"
		"   12 | {{ a.final_loss | a.samples }} {{ batch_size | expect > 1 }}\n"
		"      |                                   ^~~~~~~~~~\n"
		"logdown: 9 errors; nothing was written\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static void a_claim_on_text_is_an_error(void **state)
{
	(void)state;
	char *dir = project(FRONT "---\nOn {{ a.file | expect > 1 }}.\n");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_true(str_has_prefix(r.err, "content/r/index.md:6:16: error: a claim needs a number; "
					  "a.file is the text '"));
	proc_free(&r);
	e2e_drop(&dir);
}

static const char relative_md[] = FRONT "---\nIt took {{ a.total_time :.1f | expect \xC2\xB1" "5% }} s.\n";

static void a_relative_claim_is_noted_on_the_first_build(void **state)
{
	(void)state;
	char *dir = project(relative_md);
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/r/index.md:6:32: note: the claim '\xC2\xB1" "5%' on a.total_time was "
			    "not checked: nothing was built into _site before, so there is no value to "
			    "compare with yet\n"
			    "    6 | It took {{ a.total_time :.1f | expect \xC2\xB1" "5% }} s.\n"
			    "      |                                ^~~~~~~~~~\n"
			    "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *m = e2e_read(dir, "_site/manifest.json");
	assert_non_null(strstr(m, "      \"claims\": [\n"
				  "        {\n"
				  "          \"at\": \"content/r/index.md:6:32\",\n"
				  "          \"expression\": \"a.total_time\",\n"
				  "          \"claim\": \"\xC2\xB1" "5%\",\n"
				  "          \"number\": 174.282130137,\n"
				  "          \"holds\": null\n"
				  "        }\n"
				  "      ]\n"));
	/* the next build compares with it; its manifest depends on the
	 * inputs only, so that check --against finds the same */
	r = e2e_run(dir, "build --no-cache");
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *again = e2e_read(dir, "_site/manifest.json");
	assert_string_equal(again, m);
	free(again);
	free(m);
	r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	e2e_drop(&dir);
}

static void a_relative_claim_holds_at_4_percent_and_breaks_at_6(void **state)
{
	(void)state;
	char *dir = project(relative_md);
	e2e_ok(dir, "build");
	/* committed: 174.282130137; 181.253415342 is 4% more */
	set_time(dir, "181.253415342");
	struct proc r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 1); /* the page changed: stale, but the claim holds */
	assert_null(strstr(r.err, "claims"));
	proc_free(&r);
	/* 184.739057945 is 6% more */
	set_time(dir, "184.739057945");
	r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 1);
	assert_true(str_has_prefix(r.err,
				   "content/r/index.md:6:32: error: a.total_time is 184.7 (unrounded "
				   "184.739057945), the text claims \xC2\xB1" "5% of the committed "
				   "174.2821301 (165.5680236 to 182.9962366)\n"));
	proc_free(&r);
	/* build compares with the previous output: it fails, which keeps it */
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	proc_free(&r);
	r = e2e_run(dir, "build --no-claims");
	assert_int_equal(r.status, 0);
	assert_true(str_has_prefix(r.err, "content/r/index.md:6:32: warning: a.total_time is 184.7"));
	proc_free(&r);
	/* now 184.739057945 is the committed value */
	r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: checked 1 report; _site is up to date\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* A claim added since the committed site was built compares with that
 * site's value of the same expression. */
static void a_new_relative_claim_compares_with_the_committed_value(void **state)
{
	(void)state;
	char *dir = project(FRONT "---\nIt took {{ a.total_time :.1f }} s.\n");
	e2e_ok(dir, "build");
	e2e_write(dir, "content/r/index.md", relative_md);
	set_time(dir, "184.739057945");
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 1);
	assert_true(str_has_prefix(r.err, "content/r/index.md:6:32: error: a.total_time is 184.7 "
					  "(unrounded 184.739057945), the text claims \xC2\xB1" "5% of "
					  "the committed 174.2821301"));
	proc_free(&r);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_broken_claim_is_an_error_at_its_column),
		cmocka_unit_test(no_claims_makes_it_a_warning),
		cmocka_unit_test(a_claim_that_holds_at_its_edge_is_silent_and_shows_the_value_as_without),
		cmocka_unit_test(front_matter_claims_are_checked_at_their_value),
		cmocka_unit_test(bad_claims_are_errors_at_their_column),
		cmocka_unit_test(a_claim_on_text_is_an_error),
		cmocka_unit_test(a_relative_claim_is_noted_on_the_first_build),
		cmocka_unit_test(a_relative_claim_holds_at_4_percent_and_breaks_at_6),
		cmocka_unit_test(a_new_relative_claim_compares_with_the_committed_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
