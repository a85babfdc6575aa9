/* test_images.c: a local image the page shows must be in the site.
 *
 * `![plot](figures/loss.png)` whose file is missing, leads outside the
 * project, or is not copied into the site (a lone .md has no folder of
 * files) is a warning at the image in the .md file, so `--strict` fails
 * the build (CI); remote, data: and absolute URLs are not checked. */
#include "e2e.h"

#include <sys/stat.h>

static const char missing_md[] = "---\ntitle: R\n---\nSome text.\n\n"
				 "See ![plot](figures/loss.png) here.\n";

static const char missing_warning[] =
	"content/r/index.md:6:5: warning: image 'figures/loss.png' does not exist: the page "
	"would show a broken image (fix the path, or put the file there)\n"
	"    6 | See ![plot](figures/loss.png) here.\n"
	"      |     ^\n";

static void a_missing_image_is_a_warning_and_strict_fails(void **state)
{
	(void)state;
	char *tmp = e2e_tmpdir();
	e2e_write(tmp, "content/r/index.md", missing_md);

	struct proc r = e2e_run(tmp, "build");
	assert_int_equal(r.status, 0);
	char *want = xasprintf("%slogdown: built 1 report into _site\n", missing_warning);
	assert_string_equal(r.err, want);
	free(want);
	proc_free(&r);

	r = e2e_run(tmp, "check");
	assert_int_equal(r.status, 0);
	want = xasprintf("%slogdown: checked 1 report\n", missing_warning);
	assert_string_equal(r.err, want);
	free(want);
	proc_free(&r);

	r = e2e_run(tmp, "build --strict");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/index.md:6:5: error: image 'figures/loss.png' does not exist: "
			    "the page would show a broken image (fix the path, or put the file "
			    "there)\n"
			    "    6 | See ![plot](figures/loss.png) here.\n"
			    "      |     ^\n"
			    "logdown: 1 error; the previous output was left as it was\n");
	proc_free(&r);
	r = e2e_run(tmp, "check --strict");
	assert_int_equal(r.status, 1);
	proc_free(&r);

	/* again from the cache: the page is not reused, the warning comes */
	r = e2e_run(tmp, "build");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, missing_warning);
	proc_free(&r);

	/* the file added: no warning, and it is copied beside the page */
	e2e_write(tmp, "content/r/figures/loss.png", "a picture");
	r = e2e_run(tmp, "build --strict");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *copied = e2e_read(tmp, "_site/r/figures/loss.png");
	assert_non_null(copied);
	assert_string_equal(copied, "a picture");
	free(copied);
	char *page = e2e_read(tmp, "_site/r/index.html");
	assert_contains(page, "<img src=\"figures/loss.png\" alt=\"plot\" />");
	free(page);

	remove_tree(tmp);
	free(tmp);
}

/* Remote, data:, scheme-relative and absolute URLs are not the site's
 * files; an encoded name with a query is the file it names. */
static void remote_and_absolute_images_are_not_checked(void **state)
{
	(void)state;
	char *tmp = e2e_tmpdir();
	e2e_write(tmp, "content/r/index.md",
		  "---\ntitle: R\n---\n"
		  "![a](https://example.org/loss.png) ![b](http://example.org/b.png)\n"
		  "![c](data:image/png;base64,AAAA) ![d](//cdn.example.org/d.png)\n"
		  "![e](/static/e.png) ![f](img/my%20plot.png?v=2#top) ![g](<img/my plot.png>)\n");
	e2e_write(tmp, "content/r/img/my plot.png", "a picture");
	struct proc r = e2e_run(tmp, "build --strict");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *copied = e2e_read(tmp, "_site/r/img/my plot.png");
	assert_non_null(copied);
	free(copied);
	remove_tree(tmp);
	free(tmp);
}

/* Whatever exists in the sources, the page shows what the site holds. */
static void images_the_site_does_not_hold_are_warnings(void **state)
{
	(void)state;
	char *tmp = e2e_tmpdir();
	/* a lone .md: its folder's files are not copied */
	e2e_write(tmp, "content/lone.md", "---\ntitle: L\n---\n![x](pic.png)\n");
	e2e_write(tmp, "content/pic.png", "a picture");
	/* a bundle: a file that is not an image, a path out of the project,
	 * a link out of it, another report's image, a static file */
	e2e_write(tmp, "content/b/index.md",
		  "---\ntitle: B\n---\n![n](notes.txt)\n\n![o](../../../outside.png)\n\n"
		  "![l](link.png)\n\n![other](../c/c.png) ![s](../static/s.png)\n");
	e2e_write(tmp, "content/b/notes.txt", "not an image");
	e2e_write(tmp, "content/c/index.md", "---\ntitle: C\n---\nC.\n");
	e2e_write(tmp, "content/c/c.png", "c's picture");
	e2e_write(tmp, "static/s.png", "a static picture");
	char *outside = xasprintf("%s-outside.png", tmp);
	assert_true(file_write(outside, "secret", 6));
	char *link = path_join(tmp, "content/b/link.png");
	assert_int_equal(symlink(outside, link), 0);

	struct proc r = e2e_run(tmp, "check");
	/* the walk refuses the link (an error); the page says why it has
	 * no image */
	assert_int_equal(r.status, 1);
	assert_contains(r.err,
			"content/b/index.md:4:1: warning: image 'notes.txt' is not copied into the "
			"site: a report folder's .png .jpg .jpeg .gif .svg .webp .avif .pdf .mp4 "
			".webm files are\n");
	assert_contains(r.err, "content/b/index.md:6:1: warning: image '../../../outside.png' leads "
			       "outside the project: logdown copies nothing from there (copy the "
			       "file into the report's folder)\n");
	assert_contains(r.err, "content/b/index.md:8:1: warning: image 'link.png' leads outside "
			       "the project: logdown copies nothing from there (copy the file into "
			       "the report's folder)\n");
	assert_null(strstr(r.err, "'../c/c.png'"));
	assert_null(strstr(r.err, "'../static/s.png'"));
	assert_contains(r.err, "content/lone.md:4:1: warning: image 'pic.png' is not copied into "
			       "the site: only the files of a report folder are (move this report "
			       "to content/lone/index.md, beside its images)\n");
	proc_free(&r);
	unlink(link);
	unlink(outside);
	free(link);
	free(outside);

	/* another report's image removed: the page that shows it says so,
	 * though nothing of its own changed */
	e2e_write(tmp, "content/b/index.md", "---\ntitle: B\n---\n![other](../c/c.png)\n");
	e2e_write(tmp, "content/lone.md", "---\ntitle: L\n---\nNo image.\n");
	r = e2e_run(tmp, "build --strict");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *c_png = path_join(tmp, "content/c/c.png");
	assert_int_equal(unlink(c_png), 0);
	free(c_png);
	r = e2e_run(tmp, "build");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "content/b/index.md:4:1: warning: image '../c/c.png' does not "
			       "exist: the page would show a broken image");
	proc_free(&r);

	remove_tree(tmp);
	free(tmp);
}

/* The author's raw HTML shows its <img> tags from the same place as a
 * Markdown image: each src is checked as one is, placed at its tag;
 * one in a comment, one in another's alt text, a remote one and a file
 * that is there are not warned about. */
static void raw_html_images_are_checked_at_their_tags(void **state)
{
	(void)state;
	char *tmp = e2e_tmpdir();
	e2e_write(tmp, "content/r/index.md",
		  "---\ntitle: R\n---\n"
		  "Text <img src=\"img/gone.png\" width=\"200\"> inline.\n\n"
		  "<div align=\"center\">\n"
		  "  <img src=\"img/ok.png\" width=\"300\">\n"
		  "  <IMG\n"
		  "    SRC='img/missing.png'>\n"
		  "  <!-- <img src=\"img/commented.png\"> -->\n"
		  "  <img src=\"https://example.org/x.png\"><img src=\"img/a&amp;b.png\">\n"
		  "</div>\n\n"
		  "- item <img alt=\"x\" src=img/unquoted.png>\n\n"
		  "<p><img alt=\"<img src=img/in-alt.png>\" src=\"img/ok.png\"></p>\n");
	e2e_write(tmp, "content/r/img/ok.png", "a picture");
	struct proc r = e2e_run(tmp, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(
		r.err,
		"content/r/index.md:4:6: warning: image 'img/gone.png' does not exist: the page "
		"would show a broken image (fix the path, or put the file there)\n"
		"    4 | Text <img src=\"img/gone.png\" width=\"200\"> inline.\n"
		"      |      ^\n"
		"content/r/index.md:8:3: warning: image 'img/missing.png' does not exist: the page "
		"would show a broken image (fix the path, or put the file there)\n"
		"    8 |   <IMG\n"
		"      |   ^\n"
		"content/r/index.md:11:40: warning: image 'img/a&b.png' does not exist: the page "
		"would show a broken image (fix the path, or put the file there)\n"
		"   11 |   <img src=\"https://example.org/x.png\"><img src=\"img/a&amp;b.png\">\n"
		"      |                                        ^\n"
		"content/r/index.md:14:8: warning: image 'img/unquoted.png' does not exist: the page "
		"would show a broken image (fix the path, or put the file there)\n"
		"   14 | - item <img alt=\"x\" src=img/unquoted.png>\n"
		"      |        ^\n"
		"logdown: built 1 report into _site\n");
	proc_free(&r);
	r = e2e_run(tmp, "build --strict");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/r/index.md:4:6: error: image 'img/gone.png' does not exist");
	proc_free(&r);

	/* the files put there: no warning, and each is in the site */
	e2e_write(tmp, "content/r/img/gone.png", "1");
	e2e_write(tmp, "content/r/img/missing.png", "2");
	e2e_write(tmp, "content/r/img/a&b.png", "3");
	e2e_write(tmp, "content/r/img/unquoted.png", "4");
	r = e2e_run(tmp, "build --strict");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
	char *copied = e2e_read(tmp, "_site/r/img/a&b.png");
	assert_non_null(copied);
	assert_string_equal(copied, "3");
	free(copied);

	/* a lone .md's raw <img> is not copied: said as for Markdown's */
	e2e_write(tmp, "content/lone.md", "---\ntitle: L\n---\n<p><img src=\"pic.png\"></p>\n");
	e2e_write(tmp, "content/pic.png", "a picture");
	r = e2e_run(tmp, "check");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/lone.md:4:4: warning: image 'pic.png' is not copied into the "
			    "site: only the files of a report folder are (move this report to "
			    "content/lone/index.md, beside its images)\n"
			    "    4 | <p><img src=\"pic.png\"></p>\n"
			    "      |    ^\n"
			    "logdown: checked 2 reports\n");
	proc_free(&r);
	remove_tree(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_missing_image_is_a_warning_and_strict_fails),
		cmocka_unit_test(remote_and_absolute_images_are_not_checked),
		cmocka_unit_test(images_the_site_does_not_hold_are_warnings),
		cmocka_unit_test(raw_html_images_are_checked_at_their_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
