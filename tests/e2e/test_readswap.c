/* test_readswap.c: files are read as they were checked (issue 23.3).
 *
 * A bundle image, a file of static/ and a result file are each swapped,
 * over and over while builds run, between the project's own file and a
 * symbolic link to a file outside the project.  Each is opened once,
 * checked on the open descriptor (a regular file inside the project,
 * reached without a link out) and copied or parsed from that
 * descriptor, so whatever a build catches, not one byte from outside
 * may ever land in _site: builds that see a link fail with the
 * diagnostic, the others show the project's own bytes. */
#include "e2e.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

/* What only the outside files hold. */
#define SECRET "OUTSIDE-SECRET-3141"
/* The outside log's final loss (the project's is 7.12500). */
#define SECRET_LOSS "6.66666"

static const char *const targets[] = {"content/r/pic.png", "content/r/fig.svg", "static/s.css",
				      "logs/a.log"};

/* An SVG whose text is what the PDF shows of it. */
#define SVG(text)                                                                            \
	"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"40\">"             \
	"<text x=\"5\" y=\"20\" font-size=\"12\">" text "</text></svg>\n"

/* The project: a bundle report with an image that reads logs/a.log,
 * and a static file; beside it, outside, one file per target holding
 * SECRET, and under .keep/ (hidden: never walked) the project's own
 * bytes of each target, to swap back from. */
static char *project(char **outside)
{
	char *dir = e2e_project(E2E_FILES(
		E2E_COPY("logs/a.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_TEXT("content/r/index.md", "---\ntitle: R\nruns:\n  cs: ../../logs/a.log\n---\n"
					       "Loss {{ cs.final_loss }}.\n\n![img](pic.png)\n\n"
					       "![fig](fig.svg)\n"),
		E2E_TEXT("content/r/pic.png", "inside picture\n"),
		E2E_TEXT("content/r/fig.svg", SVG("inside figure")),
		E2E_TEXT("static/s.css", "body { color: black }\n")));
	*outside = xasprintf("%s-outside", dir);
	int st;
	free(e2e_sh(&st,
		    "set -e; mkdir -p '%s' '%s/.keep'; cd '%s'; "
		    "for t in content/r/pic.png content/r/fig.svg static/s.css logs/a.log; do "
		    "  mkdir -p \".keep/$(dirname $t)\"; cp \"$t\" \".keep/$t\"; "
		    "  printf '%s\\n' > '%s'/\"$(basename $t)\"; done; "
		    /* a log that parses, with its own loss and the secret */
		    "sed 's/Loss=7.12500/Loss=" SECRET_LOSS "/; 1s/^/" SECRET " /' logs/a.log > "
		    "'%s/a.log'; printf '%%s' '" SVG(SECRET) "' > '%s/fig.svg'",
		    *outside, dir, dir, SECRET, *outside, *outside, *outside));
	assert_int_equal(st, 0);
	return dir;
}

/* Swaps every target between the project's file and a link out, until
 * killed (or 120 s): the file for 3 ms, the link for 0.3 ms, so that a
 * build's walk mostly sees the file and a later read may meet the
 * link. */
static pid_t start_swapper(const char *dir, const char *outside)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid > 0)
		return pid;
	double end = (double)time(NULL) + 120;
	struct timespec in = {0, 3000000}, out_ns = {0, 300000};
	char tmp[4096], keep[4096], to[4096], out[4096];
	while ((double)time(NULL) < end) {
		for (size_t i = 0; i < ARRAY_LEN(targets); i++) {
			const char *base = strrchr(targets[i], '/') + 1;
			snprintf(to, sizeof to, "%s/%s", dir, targets[i]);
			snprintf(tmp, sizeof tmp, "%s/.keep/swap-%zu", dir, i);
			snprintf(out, sizeof out, "%s/%s", outside, base);
			snprintf(keep, sizeof keep, "%s/.keep/%s", dir, targets[i]);
			/* a link out, renamed over the file in one step */
			unlink(tmp);
			if (symlink(out, tmp) == 0)
				rename(tmp, to);
		}
		nanosleep(&out_ns, NULL);
		for (size_t i = 0; i < ARRAY_LEN(targets); i++) {
			snprintf(to, sizeof to, "%s/%s", dir, targets[i]);
			snprintf(tmp, sizeof tmp, "%s/.keep/swap-%zu", dir, i);
			snprintf(keep, sizeof keep, "%s/.keep/%s", dir, targets[i]);
			/* and the project's own bytes back, in one step too */
			unlink(tmp);
			if (link(keep, tmp) == 0)
				rename(tmp, to);
		}
		nanosleep(&in, NULL);
	}
	_exit(0);
}

static void stop_swapper(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Fails when any file under dir/_site holds what only outside files do
 * (a PDF's text read back with pdftotext). */
static void nothing_from_outside(const char *dir, int round, const char *err)
{
	int st;
	char *hits = e2e_sh(&st, "cd '%s' && grep -rl -e '" SECRET "' -e '" SECRET_LOSS
				 "' _site 2>/dev/null; for f in $(find _site -name '*.pdf'); do "
				 "pdftotext \"$f\" - | grep -l -e '" SECRET "' -e '" SECRET_LOSS
				 "' | sed \"s|.*|$f|\"; done; true",
			    dir);
	if (*hits)
		fail_msg("round %d: outside bytes in the site: %s\nstderr:\n%s", round, hits, err);
	free(hits);
}

static void a_file_swapped_for_a_link_mid_build_copies_nothing_from_outside(void **state)
{
	(void)state;
	char *outside;
	char *dir = project(&outside);
	e2e_ok(dir, "build");
	nothing_from_outside(dir, -1, "");
	pid_t swapper = start_swapper(dir, outside);
	int failed = 0, built = 0;
	/* under valgrind (LOGDOWN names another binary) a build takes ten
	 * times as long, and meets as many swaps in half the rounds */
	int rounds = getenv("LOGDOWN") && *getenv("LOGDOWN") ? 12 : 24;
	for (int round = 0; round < rounds; round++) {
		/* mostly without the cache: every file read every time; the
		 * PDF every third round */
		struct proc r = e2e_run(dir, round % 4 == 3   ? "build"
					     : round % 3 == 1 ? "build --no-cache --pdf"
							      : "build --no-cache");
		if (r.status != 0 && r.status != 1) {
			stop_swapper(swapper);
			fail_msg("round %d: exit %d:\n%s", round, r.status, r.err);
		}
		if (r.status == 1) {
			/* the one thing a failed build says: a link leads out */
			if (!strstr(r.err, "outside the project")) {
				stop_swapper(swapper);
				fail_msg("round %d: failed otherwise:\n%s", round, r.err);
			}
			failed++;
		} else {
			built++;
		}
		nothing_from_outside(dir, round, r.err);
		proc_free(&r);
	}
	stop_swapper(swapper);
	/* the swaps did meet the builds (else this test tested nothing) */
	print_message("readswap: %d builds saw a link out and failed, %d built\n", failed, built);
	assert_true(failed > 0);
	/* back to the project's own files: the site is right again */
	int st;
	free(e2e_sh(&st, "cd '%s' && cp content/r/pic.png /dev/null; for t in content/r/pic.png "
			 "content/r/fig.svg static/s.css logs/a.log; do cp \".keep/$t\" \"$t.new\" && mv \"$t.new\" "
			 "\"$t\"; done",
		    dir));
	e2e_ok(dir, "build --pdf");
	char *pic = e2e_read(dir, "_site/r/pic.png");
	assert_string_equal(pic, "inside picture\n");
	free(pic);
	/* and the PDF does show the project's figure: the test reads it */
	char *txt = e2e_sh(&st, "pdftotext '%s/_site/r/report.pdf' -", dir);
	assert_contains(txt, "inside figure");
	free(txt);
	nothing_from_outside(dir, 99, "");
	remove_tree(outside);
	free(outside);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_file_swapped_for_a_link_mid_build_copies_nothing_from_outside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
