/* test_imgbomb.c: images that are decompression bombs.
 *
 * A PNG of 109 bytes whose header claims 30000x30000 pixels would take
 * 3.6 GB decoded (7 GB in the PDF's cairo and gdk-pixbuf paths).  Its
 * size is read from the header, and one past limit image_pixels is
 * never decoded: the PDF shows its description, the page keeps the
 * copied file and says what a browser would need, each with a warning
 * at the image naming the size and the limit.  An SVG that claims a
 * huge size, or that expands entities a billion times ("billion
 * laughs"), is refused as quickly. */
#define _DEFAULT_SOURCE /* wait4(), setgroups(), usleep() */
#include "e2e.h"

#include <grp.h>

#include "bounded.h"

/* 30000x30000 8-bit grey, one row of zeros compressed in its IDAT */
static const char bomb_png[] =
	"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x75\x30\x00"
	"\x00\x75\x30\x08\x00\x00\x00\x00\x43\x4c\xa7\x66\x00\x00\x00\x34\x49\x44\x41\x54\x78"
	"\xda\xed\xc1\x31\x01\x00\x00\x00\xc2\xa0\xf5\x4f\x6d\x09\x4f\xa0\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	"\x00\x00\x00\x00\x00\x00\x4e\x06\x75\x31\x00\x01\xbe\x32\x8f\x61\x00\x00\x00\x00\x49"
	"\x45\x4e\x44\xae\x42\x60\x82";

/* 10x10 8-bit grey, all black: a real image */
static const char small_png[] =
	"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x0a\x00"
	"\x00\x00\x0a\x08\x00\x00\x00\x00\xa8\x59\x90\x61\x00\x00\x00\x0c\x49\x44\x41\x54\x78"
	"\xda\x63\x60\xa0\x27\x00\x00\x00\x6e\x00\x01\x76\xa0\xa9\xcf\x00\x00\x00\x00\x49\x45"
	"\x4e\x44\xae\x42\x60\x82";

static const char huge_svg[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100000000\" height=\"100000000\">"
	"<rect width=\"10\" height=\"10\"/></svg>\n";

static const char huge_viewbox_svg[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1e9 1e9\">"
	"<rect width=\"10\" height=\"10\"/></svg>\n";

static const char page_md[] = "---\ntitle: Bomb\n---\n\nText.\n\n![A bomb](bomb.png)\n";

static const char page_warning[] =
	"content/r/index.md:7:1: warning: image 'bomb.png' is 30000x30000 pixels, more than the "
	"50000000 an image may have: a browser needs 3.6 GB to show it (limit image_pixels: "
	"raise it with limits: in site.yaml or LOGDOWN_LIMIT_IMAGE_PIXELS)\n"
	"    7 | ![A bomb](bomb.png)\n"
	"      | ^\n";

static const char pdf_warning[] =
	"content/r/index.md:7:1: warning: image 'bomb.png' is 30000x30000 pixels, more than the "
	"50000000 an image may have: the PDF shows its description (limit image_pixels: raise it "
	"with limits: in site.yaml or LOGDOWN_LIMIT_IMAGE_PIXELS)\n"
	"    7 | ![A bomb](bomb.png)\n"
	"      | ^\n";

static char *bomb_project(void)
{
	char *dir = e2e_tmpdir();
	e2e_write(dir, "site.yaml", "title: T\n");
	e2e_write(dir, "content/r/index.md", page_md);
	e2e_write_bytes(dir, "content/r/bomb.png", bomb_png, sizeof bomb_png - 1);
	return dir;
}

/* Time and memory of the release binary, when it is built. */
static void bounded_check(const char *dir, const char *const *argv, const char *want_err)
{
	const char *rel = bounded_release();
	if (!rel)
		return;
	struct bounded r = bounded_run(rel, dir, argv, NULL, 60);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, want_err);
	print_message("           release %s: %.2f s (CPU %.2f s), %ld KB peak\n", argv[1], r.secs,
		      r.cpu_secs, r.maxrss_kb);
	if (r.cpu_secs > 2 && getenv("LOGDOWN_VALGRIND") == NULL)
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	if (r.maxrss_kb > 200 * 1024)
		fail_msg("took %ld KB", r.maxrss_kb);
	bounded_free(&r);
}

static void a_png_bomb_is_refused_before_decoding(void **state)
{
	(void)state;
	char *dir = bomb_project();

	/* the site: the file is copied, the page warns */
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	char *want = xasprintf("%slogdown: built 1 report into _site\n", page_warning);
	assert_string_equal(r.err, want);
	proc_free(&r);
	char *copied = e2e_read(dir, "_site/r/bomb.png");
	assert_non_null(copied);
	free(copied);
	static const char *const build_argv[] = {"logdown", "build", NULL};
	bounded_check(dir, build_argv, want);
	free(want);

	/* the PDF: its description, where the image would be */
	r = e2e_run(dir, "pdf");
	assert_int_equal(r.status, 0);
	want = xasprintf("%s%slogdown: built 1 report into _site\n", page_warning, pdf_warning);
	assert_string_equal(r.err, want);
	proc_free(&r);
	int status;
	char *text = e2e_sh(&status, "pdftotext '%s/_site/r/report.pdf' -", dir);
	assert_int_equal(status, 0);
	assert_contains(text, "[image: A bomb] bomb.png");
	free(text);
	static const char *const pdf_argv[] = {"logdown", "pdf", NULL};
	bounded_check(dir, pdf_argv, want);
	free(want);

	/* --strict: a warning fails the build */
	r = e2e_run(dir, "build --strict");
	assert_int_equal(r.status, 1);
	proc_free(&r);

	remove_tree(dir);
	free(dir);
}

/* The limit is the one named: lowered, a 10x10 image is refused too;
 * at its default the image is drawn. */
static void the_limit_can_be_set(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "site.yaml", "title: T\n");
	e2e_write(dir, "content/r/index.md", "---\ntitle: S\n---\n\n![Small](small.png)\n");
	e2e_write_bytes(dir, "content/r/small.png", small_png, sizeof small_png - 1);
	struct proc r = e2e_run(dir, "pdf");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);

	e2e_write(dir, "site.yaml", "title: T\nlimits:\n  image_pixels: 99\n");
	r = e2e_run(dir, "pdf");
	assert_int_equal(r.status, 0);
	assert_string_equal(
		r.err,
		"content/r/index.md:5:1: warning: image 'small.png' is 10x10 pixels, more than the 99 "
		"an image may have: a browser needs 0.0 GB to show it (limit image_pixels: raise it "
		"with limits: in site.yaml or LOGDOWN_LIMIT_IMAGE_PIXELS)\n"
		"    5 | ![Small](small.png)\n"
		"      | ^\n"
		"content/r/index.md:5:1: warning: image 'small.png' is 10x10 pixels, more than the 99 "
		"an image may have: the PDF shows its description (limit image_pixels: raise it with "
		"limits: in site.yaml or LOGDOWN_LIMIT_IMAGE_PIXELS)\n"
		"    5 | ![Small](small.png)\n"
		"      | ^\n"
		"logdown: built 1 report into _site\n");
	proc_free(&r);

	/* the environment wins over site.yaml: 100 pixels pass */
	static const char *const pdf_argv[] = {"logdown", "pdf", NULL};
	static const char *const env[] = {"LOGDOWN_LIMIT_IMAGE_PIXELS=100", NULL};
	struct bounded e = bounded_run(e2e_binary(), dir, pdf_argv, env, 60);
	assert_int_equal(e.status, 0);
	assert_string_equal(e.err, "logdown: built 1 report into _site\n");
	bounded_free(&e);
	remove_tree(dir);
	free(dir);
}

/* An SVG is drawn as vectors at the box's size, never at its own; one
 * claiming 100000000x100000000 pixels, by its width and height or its
 * viewBox, is refused by the limit, not called sizeless. */
static void an_svg_claiming_a_huge_size_is_refused(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "site.yaml", "title: T\n");
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: S\n---\n\n![Huge](huge.svg)\n\n![Box](box.svg)\n");
	e2e_write(dir, "content/r/huge.svg", huge_svg);
	e2e_write(dir, "content/r/box.svg", huge_viewbox_svg);
	static const char want[] =
		"content/r/index.md:5:1: warning: image 'huge.svg' is 100000000x100000000 pixels, "
		"more than the 50000000 an image may have: the PDF shows its description (limit "
		"image_pixels: raise it with limits: in site.yaml or LOGDOWN_LIMIT_IMAGE_PIXELS)\n"
		"    5 | ![Huge](huge.svg)\n"
		"      | ^\n"
		"content/r/index.md:7:1: warning: image 'box.svg' is 1000000000x1000000000 pixels, "
		"more than the 50000000 an image may have: the PDF shows its description (limit "
		"image_pixels: raise it with limits: in site.yaml or LOGDOWN_LIMIT_IMAGE_PIXELS)\n"
		"    7 | ![Box](box.svg)\n"
		"      | ^\n"
		"logdown: built 1 report into _site\n";
	struct proc r = e2e_run(dir, "pdf");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, want);
	proc_free(&r);
	static const char *const pdf_argv[] = {"logdown", "pdf", NULL};
	bounded_check(dir, pdf_argv, want);
	remove_tree(dir);
	free(dir);
}

/* Ten entities of ten references each: a billion "lol"s.  libxml2,
 * under librsvg's default flags (never RSVG_HANDLE_FLAG_UNLIMITED),
 * stops the expansion at once. */
static void a_billion_laughs_svg_is_refused_quickly(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n<!ENTITY lol0 \"lol\">\n");
	for (int i = 1; i <= 9; i++) {
		buf_printf(&b, "<!ENTITY lol%d \"", i);
		for (int k = 0; k < 10; k++)
			buf_printf(&b, "&lol%d;", i - 1);
		buf_puts(&b, "\">\n");
	}
	buf_puts(&b, "]>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">"
		     "<text x=\"0\" y=\"20\">&lol9;</text></svg>\n");
	char *dir = e2e_tmpdir();
	e2e_write(dir, "site.yaml", "title: T\n");
	e2e_write(dir, "content/r/index.md", "---\ntitle: S\n---\n\n![Laughs](laughs.svg)\n");
	e2e_write(dir, "content/r/laughs.svg", buf_data(&b));
	buf_free(&b);
	static const char want[] =
		"content/r/index.md:5:1: warning: image 'laughs.svg' cannot be read as SVG (Detected "
		"an entity reference loop): the PDF shows its description\n"
		"    5 | ![Laughs](laughs.svg)\n"
		"      | ^\n"
		"logdown: built 1 report into _site\n";
	/* librsvg 2.54 leaks the entities' values when libxml2 stops
	 * (1000 bytes here, at most the file's size; libxml2 has no frame
	 * pointers, so LeakSanitizer shows no stack to suppress): the ASan
	 * run checks the message with leak checking off */
	static const char *const pdf_argv[] = {"logdown", "pdf", NULL};
	static const char *const env[] = {"ASAN_OPTIONS=detect_leaks=0", NULL};
	struct bounded r = bounded_run(e2e_binary(), dir, pdf_argv, env, 60);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, want);
	bounded_free(&r);
	bounded_check(dir, pdf_argv, want);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_png_bomb_is_refused_before_decoding),
		cmocka_unit_test(the_limit_can_be_set),
		cmocka_unit_test(an_svg_claiming_a_huge_size_is_refused),
		cmocka_unit_test(a_billion_laughs_svg_is_refused_quickly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
