/* test_footer_hash.c: site.yaml's footer_hash (docs/manual.md, "The
 * manifest").
 *
 * With footer_hash: true a report page's footer shows the short hash of
 * the report's entry in manifest.json, as an exact fragment whose digits
 * are those of the entry read back from the manifest; the PDF shows it
 * before each page's number; the index shows none; the same inputs give
 * the same hash (a reused page, a build without the cache), a changed
 * log another.  Without the switch nothing shows; a switch that is not
 * true or false is an error at its column. */
#include "e2e.h"

#include "base/diag.h"
#include "base/version.h"
#include "site/manifest.h"

static const char report[] = "---\n"
			     "title: R\n"
			     "runs:\n"
			     "  a: logs/a.log\n"
			     "---\n"
			     "Loss {{ a.final_loss }}.\n";

static const char a_log[] = "2024-03-30 15:19:11,785 INFO:   | Train Device=CSX, Step=1000, "
			    "Loss=7.12500, Rate=2900.63 samples/sec, GlobalRate=2924.54 "
			    "samples/sec\n"
			    "2024-03-30 15:20:24,238 INFO:   Processed 512000 sample(s) in "
			    "175.070497198 seconds.\n";

static char *dir;

static int teardown(void **state)
{
	(void)state;
	e2e_drop(&dir);
	e2e_free_kept();
	return 0;
}

static char *project(const char *site_yaml)
{
	char *d = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", report),
					E2E_TEXT("content/r/logs/a.log", a_log)));
	if (site_yaml)
		e2e_write(d, "site.yaml", site_yaml);
	return d;
}

/* The short hash of report r's entry in DIR/_site/manifest.json. */
static char *entry_hash(const char *d)
{
	char *site = e2e_keep(path_join(d, "_site"));
	struct diag *dg = diag_new(stderr, DIAG_TEXT, false);
	struct value *m = manifest_load(site, "_site", dg);
	diag_free(dg);
	assert_non_null(m);
	const struct value *e = manifest_find(m, "r");
	char *out = e2e_keep(xcalloc(1, MANIFEST_SHORT_HASH + 1));
	if (e)
		manifest_entry_hash(e, out);
	value_free(m);
	assert_non_null(e);
	return out;
}

static char *footer_of(const char *d)
{
	char *page = e2e_keep(e2e_read(d, "_site/r/index.html"));
	assert_non_null(page);
	char *from = strstr(page, "<footer class=\"ld-site-footer\">");
	assert_non_null(from);
	char *to = strstr(from, "</footer>");
	assert_non_null(to);
	return e2e_keep(xstrndup(from, (size_t)(to - from)));
}

static void the_footer_shows_the_hash_of_the_reports_manifest_entry(void **state)
{
	(void)state;
	dir = project("footer_hash: true\n");
	e2e_ok(dir, "pdf");
	char *hash = entry_hash(dir);
	assert_int_equal(strlen(hash), 12);
	assert_int_equal(strspn(hash, "0123456789abcdef"), 12);
	char *footer = e2e_keep(xasprintf(
		"<footer class=\"ld-site-footer\">\n"
		"<p>Built with logdown %s · <span class=\"ld-manifest-hash\" title=\"The short hash "
		"of this report's entry in manifest.json: its inputs and the values it shows\">"
		"manifest %s</span></p>\n",
		LOGDOWN_VERSION, hash));
	assert_string_equal(footer_of(dir), footer);
	/* the index is no report */
	char *index = e2e_keep(e2e_read(dir, "_site/index.html"));
	assert_null(strstr(index, "ld-manifest-hash"));
	/* the PDF: before each page's number */
	int status;
	char *text = e2e_keep(e2e_sh(&status, "pdftotext '%s/_site/r/report.pdf' -", dir));
	assert_int_equal(status, 0);
	char *num = e2e_keep(xasprintf("manifest %s · 1 / 1", hash));
	assert_contains(text, num);
}

static void the_same_inputs_give_the_same_hash_and_a_changed_log_another(void **state)
{
	(void)state;
	dir = project("footer_hash: true\n");
	e2e_ok(dir, "build");
	char *first = footer_of(dir);
	char *hash = entry_hash(dir);
	/* the page reused from the cache, then rendered without it */
	struct proc r = e2e_keep_proc(e2e_run(dir, "build -v"));
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "1 report: 0 rendered, 1 from cache");
	assert_string_equal(footer_of(dir), first);
	e2e_ok(dir, "build --no-cache");
	assert_string_equal(footer_of(dir), first);
	assert_string_equal(entry_hash(dir), hash);

	char *log = e2e_keep(e2e_read(dir, "content/r/logs/a.log"));
	memcpy(strstr(log, "Loss=7.12500") + strlen("Loss="), "7.31250", 7);
	e2e_write(dir, "content/r/logs/a.log", log);
	e2e_ok(dir, "build");
	char *second = entry_hash(dir);
	assert_string_not_equal(second, hash);
	char *shown = e2e_keep(xasprintf(">manifest %s</span>", second));
	assert_contains(footer_of(dir), shown);
}

static void without_the_switch_the_footer_is_as_it_was(void **state)
{
	(void)state;
	dir = project("footer_hash: false\n");
	e2e_ok(dir, "build");
	char *footer = e2e_keep(xasprintf("<footer class=\"ld-site-footer\">\n"
					  "<p>Built with logdown %s</p>\n",
					  LOGDOWN_VERSION));
	assert_string_equal(footer_of(dir), footer);
}

static void a_switch_that_is_not_a_boolean_is_an_error_at_its_column(void **state)
{
	(void)state;
	dir = project("title: T\nfooter_hash: yes please\n");
	struct proc r = e2e_keep_proc(e2e_run(dir, "check --diagnostics=github"));
	assert_int_equal(r.status, 1);
	assert_contains(r.err,
			"::error file=site.yaml,line=2,col=14::'footer_hash' must be true or false\n");
	e2e_drop(&dir);
	/* a misspelling is a warning with a did-you-mean */
	dir = project("footer_hsh: true\n");
	r = e2e_keep_proc(e2e_run(dir, "check --diagnostics=github"));
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "did you mean 'footer_hash'?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(the_footer_shows_the_hash_of_the_reports_manifest_entry,
					  teardown),
		cmocka_unit_test_teardown(
			the_same_inputs_give_the_same_hash_and_a_changed_log_another, teardown),
		cmocka_unit_test_teardown(without_the_switch_the_footer_is_as_it_was, teardown),
		cmocka_unit_test_teardown(a_switch_that_is_not_a_boolean_is_an_error_at_its_column,
					  teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
