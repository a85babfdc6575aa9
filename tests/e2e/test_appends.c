/* test_appends.c: a log that only grew since the last build (a running
 * job) is parsed from where the last parse stopped (issue 22, item 3):
 * the build says "(1 continued)" and its page is a fresh build's; a log
 * rewritten rather than appended to is parsed in full; a resume state
 * cut short or altered is refused with a warning and the page is still
 * right; and appending 1 KB to a log of tens of MB costs a fraction of
 * its full parse (release binary, outside valgrind).  The rebuild reads
 * the log's old bytes once (the prefix check: counted through the
 * kernel's rchar), and the log's page and raw copy are those of a build
 * without the cache; a raw copy someone edited, or a log rewritten in
 * its first bytes with its times put back, are copied and read whole.
 * The hooks these tests use to write into a log as it is read answer in
 * the test builds only: the release binary leaves the log alone. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "e2e.h"
#include "bounded.h"

static const char report[] = "---\n"
			     "title: R\n"
			     "runs:\n"
			     "  cs: {file: job.log, parser: cerebras}\n"
			     "---\n\n"
			     "Loss {{ cs.final_loss }} at step {{ cs.final_step }}; last rate "
			     "{{ last(cs.train.rate) }}, mean loss {{ mean(cs.train.loss) :.4f }} "
			     "over {{ count(cs.train.loss) }} rows; mean rate {{ cs.mean_rate }}.\n";

static char *train_line(long step)
{
	return xasprintf("2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=%ld, "
			 "Loss=%.5f, Rate=%ld.%02ld samples/sec, GlobalRate=2983.97 samples/sec\n",
			 step, 9.0 - (double)(step % 997) / 200.0, 2900 + step % 89, step % 100);
}

/* A running job's log: its start, then rows from step `from` to `to`. */
static void put_rows(struct buf *b, long from, long to)
{
	for (long s = from; s <= to; s += 100) {
		char *l = train_line(s);
		buf_puts(b, l);
		free(l);
	}
}

static char *project(long last_step)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "2024-03-30 15:16:00,001 INFO:   Effective batch size is 512.\n");
	put_rows(&b, 100, last_step);
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", report),
					  E2E_TEXT("content/r/job.log", buf_data(&b))));
	buf_free(&b);
	return dir;
}

/* The page's body, built with `build -v`: its summary line must be
 * `summary`. */
static char *build_saying(const char *dir, const char *summary)
{
	struct proc r = e2e_run(dir, "build -v");
	if (r.status != 0 || !strstr(r.err, summary)) {
		e2e_keep_proc(r);
		fail_msg("expected '%s' in:\n%s", summary, r.err);
	}
	proc_free(&r);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *body = e2e_page_body(page);
	free(page);
	assert_non_null(body);
	return body;
}

/* The page a build without the cache makes of the project as it is
 * (by e2e_plain_binary(): under memcheck, the ASan build). */
static char *fresh_body(const char *dir)
{
	return e2e_build_body_with(e2e_plain_binary(), dir, "--no-cache");
}

static void assert_fresh(const char *dir, const char *body)
{
	char *want = fresh_body(dir);
	assert_string_equal(body, want);
	free(want);
}

#define CONTINUED "1 result file read: 1 parsed (1 continued), 0 from cache\n"
#define PARSED "1 result file read: 1 parsed, 0 from cache\n"

static void a_grown_log_goes_on_from_where_its_last_parse_stopped(void **state)
{
	(void)state;
	char *dir = project(2000);
	free(build_saying(dir, PARSED));
	char *l = train_line(2100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	char *body = build_saying(dir, CONTINUED);
	assert_contains(body, ">2100</a>;");
	assert_contains(body, ">21</span> rows;");
	assert_fresh(dir, body);
	free(body);
	/* a last line without its newline, then its rest */
	e2e_append(dir, "content/r/job.log", "2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=2200, Loss=7.2");
	body = build_saying(dir, CONTINUED);
	assert_contains(body, ">22</span> rows;");
	assert_fresh(dir, body);
	free(body);
	e2e_append(dir, "content/r/job.log", "5, Rate=2911.00 samples/sec, GlobalRate=2983.97 samples/sec\n");
	body = build_saying(dir, CONTINUED);
	assert_contains(body, ">7.25</a> at step");
	assert_fresh(dir, body);
	free(body);
	/* unchanged: nothing parsed (the --no-cache build above rewrote
	 * the output: its page renders once), then the page reused whole;
	 * the state
	 * outlives that build's prune, and the next append goes on */
	free(build_saying(dir, "1 result file read: 0 parsed, 1 from cache\n"));
	free(build_saying(dir, "1 report: 0 rendered, 1 from cache"));
	l = train_line(2300);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	body = build_saying(dir, CONTINUED);
	assert_contains(body, ">2300</a>;");
	assert_fresh(dir, body);
	free(body);
	e2e_drop(&dir);
}

static void a_rewritten_log_is_parsed_in_full(void **state)
{
	(void)state;
	char *dir = project(2000);
	free(build_saying(dir, PARSED));
	/* the same length and more, but its first line changed */
	char *log = e2e_read(dir, "content/r/job.log");
	char *at = strstr(log, "512");
	memcpy(at, "256", 3);
	e2e_write(dir, "content/r/job.log", log);
	free(log);
	char *l = train_line(2100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	char *body = build_saying(dir, PARSED);
	assert_fresh(dir, body);
	free(body);
	/* and one cut shorter */
	log = e2e_read(dir, "content/r/job.log");
	*strstr(log, "| Train Device=CSX, Step=2000,") = '\0';
	e2e_write(dir, "content/r/job.log", log);
	free(log);
	body = build_saying(dir, PARSED);
	assert_contains(body, ">19</span> rows;");
	assert_fresh(dir, body);
	free(body);
	e2e_drop(&dir);
}

/* A parser whose derives take every aggregate of its rows: those that
 * read every row are carried with the resume state (min, max, count,
 * sum, mean: parse/derivecarry.c), first and last read one cell,
 * median is computed by its loop. */
static const char steps_parser[] =
	"name: steps\n"
	"series:\n"
	"  train:\n"
	"    pattern: 'Train Device=CSX, Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+), "
	"Rate=(?<rate>[\\d.]+) samples'\n"
	"    columns: [step, loss, rate]\n"
	"derive:\n"
	"  lo: min(train.loss)\n"
	"  hi: max(train.rate)\n"
	"  n: count(train.loss)\n"
	"  total: sum(train.rate)\n"
	"  avg: mean(train.loss)\n"
	"  first_step: first(train.step)\n"
	"  last_step: last(train.step)\n"
	"  med: median(train.loss)\n"
	"  spread: max(train.loss) - min(train.loss)\n";

static const char derives_report[] =
	"---\n"
	"title: R\n"
	"runs:\n"
	"  cs: {file: job.log, parser: cerebras}\n"
	"  st: {file: job.log, parser: steps}\n"
	"---\n\n"
	"Rate {{ cs.mean_rate }}; lo {{ st.lo }} hi {{ st.hi }} n {{ st.n }} total {{ st.total }} "
	"avg {{ st.avg }} from {{ st.first_step }} to {{ st.last_step }} med {{ st.med }} "
	"spread {{ st.spread }}.\n\n"
	"Over cs: min {{ min(cs.train.loss) }}, max {{ max(cs.train.rate) }}, sum "
	"{{ sum(cs.train.rate) }}, count {{ count(cs.train.step) }}, mean "
	"{{ mean(cs.train.loss) }}, first {{ first(cs.train.step) }}, last "
	"{{ last(cs.train.rate) }}, median {{ median(cs.train.loss) }}.\n";

/* Builds with -v: resumed (each run continued) or not; the page's body. */
static char *build_continuing(const char *dir, bool continued)
{
	struct proc r = e2e_run(dir, "build -v");
	if (r.status != 0 || (strstr(r.err, "2 continued") != NULL) != continued) {
		e2e_keep_proc(r);
		fail_msg("expected %s in:\n%s", continued ? "2 continued" : "no resume", r.err);
	}
	proc_free(&r);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *body = e2e_page_body(page);
	free(page);
	assert_non_null(body);
	return body;
}

/* Derived values after appends, each with its tooltip (what it was
 * computed from), are a build's without the cache: the Cerebras
 * parser's mean_rate and a project parser's min, max, count, sum, mean
 * (carried), first, last (one cell), median (not carried) and an
 * expression of two of them, and the report's own aggregates over the
 * grown run (carried in its memo: resolve/memoize.c), over a last line
 * without its newline and its rest; then a log rewritten in the middle
 * is computed afresh.  The log is over 8 MiB, so that a resumed run is
 * not stored again: each append goes on from the first build's state
 * and store. */
static void a_grown_logs_derived_values_are_a_fresh_builds(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "2024-03-30 15:16:00,001 INFO:   Effective batch size is 512.\n");
	put_rows(&b, 100, 7000000); /* 70,000 rows, 9.2 MB */
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("parsers/steps.yaml", steps_parser),
					  E2E_TEXT("content/r/index.md", derives_report),
					  E2E_TEXT("content/r/job.log", buf_data(&b))));
	buf_free(&b);
	free(build_continuing(dir, false));
	static const char *const tails[] = {
		/* a new least loss and greatest rate */
		"2024-03-30 15:16:34,001 INFO:   | Train Device=CSX, Step=7000100, Loss=0.12500, "
		"Rate=9999.99 samples/sec, GlobalRate=2983.97 samples/sec\n",
		"2024-03-30 15:16:34,002 INFO:   | Train Device=CSX, Step=7000200, Loss=0.1",
		"25, Rate=12.5 samples/sec, GlobalRate=2983.97 samples/sec\n",
		"2024-03-30 15:16:34,003 INFO:   Saving checkpoint at step 7000200\n",
	};
	for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
		e2e_append(dir, "content/r/job.log", tails[i]);
		char *body = build_continuing(dir, true);
		assert_fresh(dir, body);
		if (i == 0) {
			assert_contains(body, "lo <a");
			assert_contains(body, ">0.12500</a> hi");
			assert_contains(body, ">9999.99</a> n");
			assert_contains(body, ">70001</span> total");
			assert_contains(body, "min <a");
		}
		free(body);
	}
	/* a loss in the middle rewritten, the same length: all afresh */
	char *log = e2e_read(dir, "content/r/job.log");
	char *at = strstr(log, "Step=100000, Loss=");
	assert_non_null(at);
	memcpy(at + strlen("Step=100000, Loss="), "0.00001", 7);
	e2e_write(dir, "content/r/job.log", log);
	free(log);
	char *body = build_continuing(dir, false);
	assert_contains(body, ">0.00001</a> hi");
	assert_fresh(dir, body);
	free(body);
	e2e_drop(&dir);
}

/* Bytes this process and the children it waited for read so far
 * (read, pread, copy_file_range: the kernel's rchar).  A child's count
 * joins its parent's when the parent reaps it, so the difference over a
 * build run by e2e_run() is that build's. */
static unsigned long long rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	assert_non_null(f);
	unsigned long long n = 0;
	char line[128];
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "rchar: %llu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The rows of a log whose reads are counted: 16 MB, so that the
 * bound on its reads tells one read of it from two.  Under valgrind
 * nothing is counted (below), and 3.3 MB takes a big log's ways when
 * measured_env() says it is big. */
static long measured_rows(void)
{
	return getenv("LOGDOWN_VALGRIND") ? 25000 : 122000;
}

/* Under valgrind, measured_rows()'s log counts as big (on) or the
 * sizes are the build's own again (off): its first read hashes it
 * (LOGDOWN_TEST_WHOLE_MIN) and its resumed run is not stored again
 * (LOGDOWN_TEST_RESTORE_MIN), as for 16 MB. */
static void measured_env(bool on)
{
	if (!getenv("LOGDOWN_VALGRIND"))
		return;
	if (on) {
		assert_int_equal(setenv("LOGDOWN_TEST_WHOLE_MIN", "0", 1), 0);
		assert_int_equal(setenv("LOGDOWN_TEST_RESTORE_MIN", "0", 1), 0);
	} else {
		unsetenv("LOGDOWN_TEST_WHOLE_MIN");
		unsetenv("LOGDOWN_TEST_RESTORE_MIN");
	}
}

/* Builds the project with -v (its summary must have `summary`), and
 * returns the bytes the build read: 0 under valgrind (`make
 * valgrind`), which reads the binary's and libraries' symbols itself. */
static unsigned long long build_reading(const char *dir, const char *summary)
{
	unsigned long long before = rchar();
	struct proc r = e2e_run(dir, "build -v");
	unsigned long long read = getenv("LOGDOWN_VALGRIND") ? 0 : rchar() - before;
	if (r.status != 0 || !strstr(r.err, summary)) {
		e2e_keep_proc(r);
		fail_msg("expected '%s' in:\n%s", summary, r.err);
	}
	proc_free(&r);
	return read;
}

/* The log's raw copy in the site is the log, and its page is the page a
 * build without the cache writes into a fresh folder, byte for byte. */
static void assert_log_files_fresh(const char *dir)
{
	char *log = e2e_read(dir, "content/r/job.log");
	char *copy = e2e_read(dir, "_site/r/logs/job.log");
	assert_string_equal(copy, log);
	free(copy);
	free(log);
	e2e_ok_plain(dir, "build --no-cache -o fresh_site");
	char *page = e2e_read(dir, "_site/r/logs/job.log.html");
	char *want = e2e_read(dir, "fresh_site/r/logs/job.log.html");
	assert_string_equal(page, want);
	free(page);
	free(want);
	char *rm = xasprintf("rm -rf '%s/fresh_site'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
}

static struct stat stat_of(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	free(path);
	return st;
}

static off_t size_of(const char *dir, const char *rel)
{
	return stat_of(dir, rel).st_size;
}

/* A project whose log has `rows` rows (about 131 bytes each), built
 * once. */
static char *built_project(long rows)
{
	char *dir = project(100);
	struct buf b = BUF_INIT;
	put_rows(&b, 200, 100 * rows);
	e2e_append(dir, "content/r/job.log", buf_data(&b));
	buf_free(&b);
	/* a tick of the clock past the log's last write: its copy is
	 * remembered (cache_fd_racy_still()) */
	usleep(100000);
	free(build_saying(dir, PARSED));
	return dir;
}

/* The log's page and raw copy after appends (right after each: the log
 * "racy", changed under 2 s before), its last line cut short, then its
 * rest: a build without the cache's, the copy appended to in place. */
static void a_grown_logs_page_and_copy_are_a_fresh_builds(void **state)
{
	(void)state;
	char *dir = built_project(25000);
	ino_t copy = stat_of(dir, "_site/r/logs/job.log").st_ino;
	static const char *const tails[] = {
		"2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=2500100, Loss=7.25, "
		"Rate=2911.00 samples/sec, GlobalRate=2983.97 samples/sec\n",
		"2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=2500200, Loss=7.2",
		"5, Rate=2911.00 samples/sec, GlobalRate=2983.97 samples/sec\n",
		"2024-03-30 15:16:33,873 INFO:   Saving checkpoint at step 2500200\n",
	};
	for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
		e2e_append(dir, "content/r/job.log", tails[i]);
		free(build_saying(dir, CONTINUED));
		assert_log_files_fresh(dir);
		/* the copy appended to, where it was */
		assert_int_equal(stat_of(dir, "_site/r/logs/job.log").st_ino, copy);
	}
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, ">2500200</a>;");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	e2e_drop(&dir);
}

/* Beside what any build reads of a log of 16 MB (the log page's
 * abridged view: a 256 KiB chunk from its start, and from the noted
 * line start before its last lines, about 1.2 MB in all), a rebuild
 * after 1 KB was appended reads its old bytes once: the read that
 * hashes it checks them, and the parse, the line count, the check
 * after the parse and the raw copy read only the new ones; a prose
 * edit reads only what the page shows.  Until session 28 each also read
 * the parse's first 4 MiB back before resuming (scan_resume_ok(), for
 * bytes the state was taken on) and the page's view 4 MiB at a time:
 * 9 MB more, over the 2 MiB bounds below.  The same log rewritten in
 * its first byte is read whole several times (what the bound
 * catches). */
static void a_grown_logs_old_bytes_are_read_once(void **state)
{
	(void)state;
	/* the hash's read in rchar: pread(), not a mapping */
	assert_int_equal(setenv("LOGDOWN_TEST_NO_MAP", "1", 1), 0);
	measured_env(true);
	long rows = measured_rows();
	char *dir = built_project(rows);
	for (int i = 0; i < 2; i++) {
		off_t old = size_of(dir, "content/r/job.log");
		char *l = train_line(100 * rows + 100 + 100 * i);
		e2e_append(dir, "content/r/job.log", l);
		free(l);
		unsigned long long read = build_reading(dir, CONTINUED);
		print_message("           append %d: %llu bytes read, the log had %lld\n", i, read,
			      (long long)old);
		if (read > (unsigned long long)old + (2u << 20))
			fail_msg("append %d: the build read %llu bytes of a log of %lld", i, read,
				 (long long)old);
	}
	/* Built again once the log is settled (2 s after its last write: a
	 * read whose hash later builds trust by its signature), then after
	 * a prose edit: that one trusts the prefix hash the same way, and
	 * reads the new bytes and the page's lines, not the log. */
	sleep(3);
	(void)build_reading(dir, "1 report: 0 rendered, 1 from cache");
	e2e_write(dir, "content/r/index.md", e2e_keep(xasprintf("%s\nMore prose.\n", report)));
	off_t size = size_of(dir, "content/r/job.log");
	unsigned long long read = build_reading(dir, CONTINUED);
	print_message("           a prose edit: %llu bytes read, the log has %lld\n", read,
		      (long long)size);
	if (read > (2u << 20))
		fail_msg("a prose edit read %llu bytes of a log of %lld", read, (long long)size);
	/* resumed past the parse's first 4 MiB without reading them back,
	 * and the view read in small chunks: the pages of a fresh build */
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	assert_log_files_fresh(dir);
	char *path = xasprintf("%s/content/r/job.log", dir);
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "3", 1, 0), 1);
	close(fd);
	free(path);
	size = size_of(dir, "content/r/job.log");
	read = build_reading(dir, PARSED);
	print_message("           rewritten: %llu bytes read, the log had %lld\n", read,
		      (long long)size);
	if (!getenv("LOGDOWN_VALGRIND") && read < 3 * (unsigned long long)size)
		fail_msg("a rewritten log of %lld bytes: only %llu read", (long long)size, read);
	unsetenv("LOGDOWN_TEST_NO_MAP");
	measured_env(false);
	e2e_drop(&dir);
}

/* The site's raw copy, edited in place (a byte, its times put back),
 * is not appended to: the grown log is copied whole. */
static void an_edited_raw_copy_is_copied_again_whole(void **state)
{
	(void)state;
	char *dir = built_project(25000);
	sleep(1); /* past the tick the copy's times are remembered after */
	char *copy = xasprintf("%s/_site/r/logs/job.log", dir);
	struct stat st;
	assert_int_equal(stat(copy, &st), 0);
	/* (the append that follows would keep it: a_grown_logs_old_...) */
	int fd = open(copy, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "X", 1, 100), 1);
	struct timespec times[2] = {st.st_atim, st.st_mtim};
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
	free(copy);
	char *l = train_line(2500100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	free(build_saying(dir, CONTINUED));
	assert_log_files_fresh(dir);
	assert_true(stat_of(dir, "_site/r/logs/job.log").st_ino != st.st_ino);
	e2e_drop(&dir);
}

/* A prose edit saved right after an append (the log changed under 2 s
 * before: "racy", hashed again) keeps the raw copy the append's build
 * appended to: it holds the bytes the build read, untouched since.  The
 * log changed again after that, with the same size and times, is still
 * copied whole. */
static void a_prose_edit_right_after_an_append_keeps_the_copy(void **state)
{
	(void)state;
	char *dir = built_project(25000);
	ino_t copy = stat_of(dir, "_site/r/logs/job.log").st_ino;
	char *l = train_line(2500100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	free(build_saying(dir, CONTINUED));
	e2e_write(dir, "content/r/index.md", e2e_keep(xasprintf("%s\nMore prose.\n", report)));
	free(build_saying(dir, "1 report: 1 rendered"));
	assert_log_files_fresh(dir);
	assert_int_equal(stat_of(dir, "_site/r/logs/job.log").st_ino, copy);
	/* a byte of the log's start rewritten at once, its modify time put
	 * back, and the prose edited again */
	char *path = xasprintf("%s/content/r/job.log", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "3", 1, 0), 1);
	struct timespec times[2] = {st.st_atim, st.st_mtim};
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
	free(path);
	e2e_write(dir, "content/r/index.md", e2e_keep(xasprintf("%s\nOther prose.\n", report)));
	free(build_saying(dir, PARSED));
	assert_log_files_fresh(dir);
	assert_true(stat_of(dir, "_site/r/logs/job.log").st_ino != copy);
	e2e_drop(&dir);
}

/* A log rewritten in its first bytes, its size and modify time put
 * back, then appended to: parsed, counted and copied whole. */
static void a_log_rewritten_with_its_times_put_back_is_read_whole(void **state)
{
	(void)state;
	char *dir = built_project(25000);
	char *path = xasprintf("%s/content/r/job.log", dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	char *log = e2e_read(dir, "content/r/job.log");
	char *at = strstr(log, "Step=300,");
	assert_non_null(at);
	memcpy(at, "Step=301,", 9);
	e2e_write(dir, "content/r/job.log", log);
	free(log);
	struct timespec times[2] = {st.st_atim, st.st_mtim};
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	free(path);
	char *l = train_line(2500100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	char *body = build_saying(dir, PARSED);
	assert_fresh(dir, body);
	free(body);
	assert_log_files_fresh(dir);
	e2e_drop(&dir);
}

/* A log cut short while the rebuild after an append hashes it through
 * a mapping (LOGDOWN_TEST_TRUNCATE_MAPPED, data/cache.c: the cut made
 * once the window holding its new end is mapped): the read faults
 * (SIGBUS), the guard (base/mapguard.c) takes it back to pread(), and
 * the build makes the page of the log as it now is, as a build without
 * the cache does, instead of dying. */
static void a_log_cut_short_while_mapped_is_read_as_it_is(void **state)
{
	(void)state;
	char *dir = built_project(60000); /* 7.9 MB: hashed through a mapping */
	char *l = train_line(6000100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	assert_int_equal(setenv("LOGDOWN_TEST_TRUNCATE_MAPPED", "5000000", 1), 0);
	struct proc r = e2e_run(dir, "build -v");
	unsetenv("LOGDOWN_TEST_TRUNCATE_MAPPED");
	if (r.status != 0) {
		e2e_keep_proc(r);
		fail_msg("the build exited %d (128 + %d is SIGBUS) with:\n%s", r.status, SIGBUS,
			 r.err);
	}
	assert_contains(r.err, PARSED);
	proc_free(&r);
	/* the hook cut it, mid-line */
	assert_int_equal(size_of(dir, "content/r/job.log"), 5000000);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *body = e2e_page_body(page);
	free(page);
	assert_fresh(dir, body);
	free(body);
	e2e_drop(&dir);
}

/* Cuts the state file short. */
static void cut_short(struct buf *b)
{
	b->len = 60;
}

/* Changes a byte of the state itself and fixes up the file's XXH3-64
 * checksum (its last 8 bytes), as one who knows the format would: only
 * the seal tells. */
static void alter(struct buf *b)
{
	assert_true(b->len > 200);
	b->data[b->len - 80] ^= 1;
	uint64_t sum = XXH3_64bits(b->data, b->len - 8);
	memcpy(b->data + b->len - 8, &sum, 8);
}

/* The one file of dir matching pattern (a glob), damaged by how(). */
static void damage_one(const char *dir, const char *pattern, void (*how)(struct buf *))
{
	char *pat = xasprintf("%s/%s", dir, pattern);
	glob_t g;
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	struct buf b = BUF_INIT;
	assert_true(file_read(g.gl_pathv[0], &b, NULL));
	how(&b);
	assert_true(file_write(g.gl_pathv[0], b.data, b.len));
	buf_free(&b);
	globfree(&g);
	free(pat);
}

/* The resume state, damaged by how(), is refused with `warning`: the
 * log grown since is parsed in full and the page is right. */
static void refused_when(void (*how)(struct buf *), const char *warning)
{
	char *dir = project(2000);
	free(build_saying(dir, PARSED));
	damage_one(dir, ".logdown-cache/runs/*.scan", how);
	char *l = train_line(2100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, warning);
	assert_contains(r.err, PARSED);
	proc_free(&r);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *body = e2e_page_body(page);
	free(page);
	assert_fresh(dir, body);
	free(body);
	/* the state written anew: the next append goes on */
	l = train_line(2200);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	free(build_saying(dir, CONTINUED));
	e2e_drop(&dir);
}

static void a_resume_state_cut_short_is_refused_with_a_warning(void **state)
{
	(void)state;
	refused_when(cut_short, ".scan: warning: the build cache is damaged or not logdown's");
}

static void an_altered_resume_state_is_refused_with_a_warning(void **state)
{
	(void)state;
	refused_when(alter, ".scan: warning: the build cache is altered (its seal does not "
			    "match");
}

/* Appending 1 KB to a log of some tens of MB: the rebuild costs well
 * under the CPU of the rebuild after the same log was rewritten (a full
 * parse of it; the page and the log's copy alike). */
static void appending_1_kb_costs_well_under_a_full_parse(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = project(100);
	struct buf b = BUF_INIT;
	put_rows(&b, 200, 40000000); /* 400,000 rows, 52 MB */
	e2e_append(dir, "content/r/job.log", buf_data(&b));
	buf_free(&b);
	const char *argv[] = {"logdown", "build", "-v", NULL};
	struct bounded first = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(first.status, 0);
	b = (struct buf)BUF_INIT;
	put_rows(&b, 40000100, 40000800); /* 8 lines, 1 KB */
	e2e_append(dir, "content/r/job.log", buf_data(&b));
	buf_free(&b);
	struct bounded grown = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(grown.status, 0);
	assert_contains(grown.err, CONTINUED);
	/* A big log's run is not written again for 1 KB: the next build
	 * goes on from the same stored point, past both appends, and its
	 * page is a fresh build's. */
	b = (struct buf)BUF_INIT;
	put_rows(&b, 40000900, 40001600);
	e2e_append(dir, "content/r/job.log", buf_data(&b));
	buf_free(&b);
	struct bounded again = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(again.status, 0);
	assert_contains(again.err, CONTINUED);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *body = e2e_page_body(page);
	free(page);
	assert_contains(body, ">40001600</a>;");
	assert_fresh(dir, body);
	free(body);
	bounded_free(&again);
	/* its first byte changed: the same size, parsed in full */
	char *path = xasprintf("%s/content/r/job.log", dir);
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	fputc('3', f);
	fclose(f);
	free(path);
	struct bounded rewritten = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(rewritten.status, 0);
	assert_contains(rewritten.err, PARSED);
	print_message("           first build %.2f s CPU; 1 KB appended %.2f s CPU, %ld KB; the "
		      "log rewritten %.2f s CPU, %ld KB\n",
		      first.cpu_secs, grown.cpu_secs, grown.maxrss_kb, rewritten.cpu_secs,
		      rewritten.maxrss_kb);
	/* about 0.14 (0.04 s against 0.29 s, 2026-11-27): the derives'
	 * aggregates carried and the old bytes hashed through a mapping;
	 * 0.35 before either */
	if (grown.cpu_secs > 0.3 * rewritten.cpu_secs)
		fail_msg("the append took %.2f s of CPU, the rewritten log %.2f s", grown.cpu_secs,
			 rewritten.cpu_secs);
	bounded_free(&first);
	bounded_free(&grown);
	bounded_free(&rewritten);
	e2e_drop(&dir);
}

/* An append's rebuild reads none of the old rows of the columns its
 * aggregates take: the parser's derive (mean_rate) and the report's
 * mean, max and sum over 1,000,000 rows are folded on from what was
 * kept of them (the resume state, the memo), so its peak memory is the
 * process's and the hash's window, not the three columns' pages of the
 * store (about 20 MB each): 34 MB, where main at 1835e99 took 81 MB
 * (2026-11-27); the derive alone read again would pass 48.  The page is
 * a --no-cache build's. */
static void an_appends_rebuild_reads_none_of_the_old_rows(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	struct buf b = BUF_INIT;
	buf_puts(&b, "2024-03-30 15:16:00,001 INFO:   Effective batch size is 512.\n");
	put_rows(&b, 100, 100000000); /* 1,000,000 rows, 131 MB */
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/index.md",
			 "---\ntitle: R\nruns:\n  cs: {file: job.log, parser: cerebras}\n---\n\n"
			 "Rate {{ cs.mean_rate }}, {{ mean(cs.train.rate) }}; loss at most "
			 "{{ max(cs.train.loss) }}; {{ sum(cs.train.step) }} steps in all.\n"),
		E2E_TEXT("content/r/job.log", buf_data(&b))));
	buf_free(&b);
	const char *argv[] = {"logdown", "build", "-v", NULL};
	struct bounded first = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(first.status, 0);
	char *l = train_line(100000100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	struct bounded grown = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(grown.status, 0);
	assert_contains(grown.err, CONTINUED);
	print_message("           first build %.2f s CPU, %ld KB; 1 KB appended %.2f s CPU, %ld "
		      "KB\n",
		      first.cpu_secs, first.maxrss_kb, grown.cpu_secs, grown.maxrss_kb);
	if (grown.maxrss_kb > 48 * 1024)
		fail_msg("the append's rebuild took %ld KB: it read old rows", grown.maxrss_kb);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	bounded_free(&first);
	bounded_free(&grown);
	e2e_drop(&dir);
}

/* --- a chart carried over appends (resolve/chartcarry.c) --- */

static const char charts_report[] = "---\n"
				    "title: R\n"
				    "runs:\n"
				    "  cs: {file: job.log, parser: cerebras}\n"
				    "  cs2: {file: job2.log, parser: cerebras}\n"
				    "---\n\n"
				    "Loss {{ cs.final_loss }}.\n\n"
				    "```{chart}\ntype: line\nseries: cs\nx: train.step\ny: train.loss\n```\n\n"
				    "```{chart}\ntype: line\nseries: cs\nx: train.step\ny: train.rate\n"
				    "y_log: true\n```\n\n"
				    "```{chart}\ntype: scatter\nseries: [cs, cs2]\nx: train.step\n"
				    "y: train.loss\n```\n\n"
				    "```{chart}\ntype: line\nseries: [cs, cs2]\nx: train.step\n"
				    "y: train.loss\nwidth: 500\n```\n\n"
				    "```{chart}\ntype: line\nseries: cs.train\nx: step\ny: rate\n```\n";

/* A row of step `step` with the loss and rate given (<= 0: the usual). */
static void append_row(const char *dir, const char *rel, long step, double loss, double rate)
{
	char *l = loss > 0 || rate > 0
			  ? xasprintf("2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=%ld, "
				      "Loss=%.5f, Rate=%.2f samples/sec, GlobalRate=2983.97 "
				      "samples/sec\n",
				      step, loss > 0 ? loss : 5.0, rate > 0 ? rate : 2950.0)
			  : train_line(step);
	e2e_append(dir, rel, l);
	free(l);
}

/* The charts' formats of assert_site_fresh(), and how many files the
 * five charts make in them: under valgrind (`make valgrind`), no PNG.
 * Drawing the PNGs costs half of each build there, and test_charts
 * runs that drawing under memcheck. */
static const char *chart_formats(void)
{
	return getenv("LOGDOWN_VALGRIND") ? "svg,pdf" : "svg,png,pdf";
}

static const char *chart_files(void)
{
	/* five charts, each 4 SVGs (light, dark, narrow, narrow dark), a
	 * PDF and, outside valgrind, a PNG */
	return getenv("LOGDOWN_VALGRIND") ? "25\n" : "30\n";
}

/* The project built again, then the same content built without the
 * cache in a fresh folder: every file of the two outputs (the page, the
 * charts' SVG, PNG and PDF, the logs' pages and copies) the same bytes. */
static void assert_site_fresh(const char *dir, const char *summary)
{
	char *build = xasprintf("build -v --figures %s", chart_formats());
	struct proc r = e2e_run(dir, build);
	free(build);
	if (r.status != 0 || !strstr(r.err, summary)) {
		e2e_keep_proc(r);
		fail_msg("expected '%s' in:\n%s", summary, r.err);
	}
	proc_free(&r);
	char *fresh = e2e_tmpdir();
	int st;
	char *out = e2e_sh(&st,
			   "cp -r '%s/content' '%s/' && cd '%s' && '%s' build --no-cache --figures "
			   "%s >/dev/null 2>&1 && diff -r '%s/_site' '%s/_site' && ls "
			   "'%s/_site/r/figures' | wc -l",
			   dir, fresh, fresh, e2e_plain_binary(), chart_formats(), dir, fresh, fresh);
	if (st != 0)
		fail_msg("the site differs from a --no-cache build's:\n%s", (char *)e2e_keep(out));
	assert_string_equal(out, chart_files());
	free(out);
	e2e_drop(&fresh);
}

/* a log unchanged but written under 2 s before is read again (racy):
 * how many are said to go on varies */
#define CONTINUED2 "2 result files read: 2 parsed (2 continued), 0 from cache\n"
#define CONTINUED1 " continued), "

static char *charts_project(void)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "2024-03-30 15:16:00,001 INFO:   Effective batch size is 512.\n");
	put_rows(&b, 100, 200000); /* 2,000 rows: every line chart is reduced */
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", charts_report),
					  E2E_TEXT("content/r/job.log", buf_data(&b)),
					  E2E_TEXT("content/r/job2.log", buf_data(&b))));
	buf_free(&b);
	/* a small log keeps its stored run over appends, as a big one does:
	 * the charts go on from the store's rows */
	assert_int_equal(setenv("LOGDOWN_TEST_RESTORE_MIN", "0", 1), 0);
	return dir;
}

static void a_grown_logs_charts_are_a_fresh_builds_drawings(void **state)
{
	(void)state;
	char *dir = charts_project();
	assert_site_fresh(dir, "2 result files read: 2 parsed, 0 from cache\n");
	/* within the axes' bounds */
	append_row(dir, "content/r/job.log", 200100, 0, 0);
	append_row(dir, "content/r/job2.log", 200100, 0, 0);
	assert_site_fresh(dir, CONTINUED2);
	append_row(dir, "content/r/job.log", 200200, 0, 0);
	assert_site_fresh(dir, CONTINUED1);
	/* x past its nice bound (200,000): the axis moves */
	append_row(dir, "content/r/job.log", 260000, 0, 0);
	assert_site_fresh(dir, CONTINUED1);
	/* and on within the new bounds */
	append_row(dir, "content/r/job.log", 260100, 0, 0);
	assert_site_fresh(dir, CONTINUED1);
	/* y past its bounds, up on the line, down on the log scale */
	append_row(dir, "content/r/job.log", 260200, 40, 3.5);
	assert_site_fresh(dir, CONTINUED1);
	append_row(dir, "content/r/job.log", 260300, 0, 0);
	append_row(dir, "content/r/job2.log", 200200, 0.01, 0);
	assert_site_fresh(dir, CONTINUED2);
	/* unchanged (a prose edit): the charts from the memo, then an
	 * append goes on from the carry still */
	e2e_append(dir, "content/r/index.md", "\nA sentence more.\n");
	assert_site_fresh(dir, "1 report: 1 rendered");
	append_row(dir, "content/r/job2.log", 200300, 0, 0);
	assert_site_fresh(dir, CONTINUED1);
	unsetenv("LOGDOWN_TEST_RESTORE_MIN");
	e2e_drop(&dir);
}

static void a_rewritten_logs_chart_is_drawn_from_every_point(void **state)
{
	(void)state;
	char *dir = charts_project();
	assert_site_fresh(dir, "2 result files read: 2 parsed, 0 from cache\n");
	append_row(dir, "content/r/job.log", 200100, 0, 0);
	assert_site_fresh(dir, CONTINUED1);
	/* its rows rewritten, the same length and one more */
	char *log = e2e_read(dir, "content/r/job.log");
	char *at = strstr(log, "Loss=8.");
	assert_non_null(at);
	memcpy(at, "Loss=1.", 7);
	e2e_write(dir, "content/r/job.log", log);
	free(log);
	append_row(dir, "content/r/job.log", 200200, 0, 0);
	assert_site_fresh(dir, "1 report: 1 rendered");
	unsetenv("LOGDOWN_TEST_RESTORE_MIN");
	e2e_drop(&dir);
}

/* The report's memo, which holds the charts' carries, damaged by how():
 * refused with `warning`, the charts drawn from every point, right. */
static void chart_carry_refused_when(void (*how)(struct buf *), const char *warning)
{
	char *dir = charts_project();
	assert_site_fresh(dir, "2 result files read: 2 parsed, 0 from cache\n");
	damage_one(dir, ".logdown-cache/memo-*", how);
	append_row(dir, "content/r/job.log", 200100, 0, 0);
	assert_site_fresh(dir, warning);
	/* written anew: the next append goes on, right */
	append_row(dir, "content/r/job.log", 200200, 0, 0);
	assert_site_fresh(dir, CONTINUED1);
	unsetenv("LOGDOWN_TEST_RESTORE_MIN");
	e2e_drop(&dir);
}

static void a_chart_carry_cut_short_is_refused_with_a_warning(void **state)
{
	(void)state;
	chart_carry_refused_when(cut_short, "warning: the build cache is damaged or not logdown's");
}

static void an_altered_chart_carry_is_refused_with_a_warning(void **state)
{
	(void)state;
	chart_carry_refused_when(alter, "warning: the build cache is altered (its seal does not "
					"match");
}

/* An append's rebuild draws a chart of 1,000,000 points from its new
 * rows: the store's pages of its two columns (about 8 MB each) and the
 * points in memory (16 MB) are not read, so its peak is the process's
 * and the hash's window; the page is a --no-cache build's.  The first
 * append after the first build resumes too: that build read its run
 * back from the store it wrote (parse/runs.c), so its chart kept the
 * carry under the store's key; both appends are measured. */
static void an_appends_chart_reads_none_of_the_old_rows(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	struct buf b = BUF_INIT;
	buf_puts(&b, "2024-03-30 15:16:00,001 INFO:   Effective batch size is 512.\n");
	put_rows(&b, 100, 100000000); /* 1,000,000 rows, 131 MB */
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/index.md",
			 "---\ntitle: R\nruns:\n  cs: {file: job.log, parser: cerebras}\n---\n\n"
			 "Loss {{ cs.final_loss }}.\n\n```{chart}\ntype: line\nseries: cs\n"
			 "x: train.step\ny: train.loss\n```\n"),
		E2E_TEXT("content/r/job.log", buf_data(&b))));
	buf_free(&b);
	const char *argv[] = {"logdown", "build", "-v", NULL};
	struct bounded first = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(first.status, 0);
	/* steps under the x axis's last tick (1e8): its geometry holds */
	char *l = train_line(99999950);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	struct bounded once = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(once.status, 0);
	assert_contains(once.err, CONTINUED);
	l = train_line(99999960);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	struct bounded grown = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(grown.status, 0);
	assert_contains(grown.err, CONTINUED);
	print_message("           first build %.2f s CPU, %ld KB; 1 KB appended %.2f s CPU, %ld "
		      "KB; again %.2f s CPU, %ld KB\n",
		      first.cpu_secs, first.maxrss_kb, once.cpu_secs, once.maxrss_kb,
		      grown.cpu_secs, grown.maxrss_kb);
	/* 34 MB (2026-11-27); the chart from every point took 48 to 52 */
	if (once.maxrss_kb > 42 * 1024)
		fail_msg("the first append's rebuild took %ld KB: its chart read old rows",
			 once.maxrss_kb);
	if (grown.maxrss_kb > 42 * 1024)
		fail_msg("the append's rebuild took %ld KB: its chart read old rows",
			 grown.maxrss_kb);
	bounded_free(&once);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	bounded_free(&first);
	bounded_free(&grown);
	e2e_drop(&dir);
}

/* A proof (data/cache.c): the log's old bytes in pieces of 1 MiB here
 * (LOGDOWN_TEST_PIECE; 64 MiB in use), each piece's XXH3-128 kept with
 * the log's row, checked on two threads by the next build of the grown
 * log, which then hashes only the new bytes.  built_project(44000) is a
 * log of 5.8 MB: five whole pieces and a partial one. */
#define PIECE (1u << 20)
#define HELD "a proof of 6 pieces held"
#define FAILED "a proof of 6 pieces failed"

static void proof_env(bool on)
{
	if (on) {
		assert_int_equal(setenv("LOGDOWN_TEST_PIECE", "1048576", 1), 0);
		assert_int_equal(setenv("LOGDOWN_TEST_SAY_PROOF", "1", 1), 0);
	} else {
		unsetenv("LOGDOWN_TEST_PIECE");
		unsetenv("LOGDOWN_TEST_SAY_PROOF");
		unsetenv("LOGDOWN_HASH_THREADS");
	}
}

/* Builds dir with -v by bin: its stderr must say `proof` and `summary`. */
static void build_proving_with(const char *bin, const char *dir, const char *proof,
			       const char *summary)
{
	struct proc r = e2e_run_bin(bin, dir, "build -v");
	if (r.status != 0 || !strstr(r.err, proof) || !strstr(r.err, summary)) {
		e2e_keep_proc(r);
		fail_msg("expected '%s' and '%s' in:\n%s", proof, summary, r.err);
	}
	proc_free(&r);
}

static void build_proving(const char *dir, const char *proof, const char *summary)
{
	build_proving_with(e2e_binary(), dir, proof, summary);
}

/* The first digit of the loss of the first row at or after byte `at`
 * of the log, changed in place (its size kept). */
static void change_a_loss_at(const char *dir, off_t at)
{
	char *log = e2e_read(dir, "content/r/job.log");
	char *l = strstr(log + at, "Loss=");
	assert_non_null(l);
	off_t off = l + 5 - log;
	char was = log[off], now = was == '9' ? '8' : (char)(was + 1);
	free(log);
	char *path = xasprintf("%s/content/r/job.log", dir);
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &now, 1, off), 1);
	close(fd);
	free(path);
}

/* A byte of the log's old bytes changed in the first piece, in a middle
 * one, and in the last, partial one, then a line appended: the proof
 * fails, the log is parsed in full, and the page is a --no-cache
 * build's. */
static void a_byte_changed_in_any_piece_is_found(void **state)
{
	(void)state;
	proof_env(true);
	static const off_t where[] = {1000, 2 * PIECE + 5000, 5 * PIECE + 1000};
	for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
		char *dir = built_project(44000);
		off_t size = size_of(dir, "content/r/job.log");
		assert_true(size > 5 * PIECE + 40000 && size < 6 * PIECE - 1000);
		/* the proof holds over an append first (the row the
		 * change is checked against is an append's, as in use) */
		char *l = train_line(4400100);
		e2e_append(dir, "content/r/job.log", l);
		free(l);
		build_proving(dir, HELD, CONTINUED);
		change_a_loss_at(dir, where[i]);
		l = train_line(4400200);
		e2e_append(dir, "content/r/job.log", l);
		free(l);
		build_proving(dir, FAILED, PARSED);
		char *page = e2e_read(dir, "_site/r/index.html");
		assert_fresh(dir, e2e_keep(e2e_page_body(page)));
		free(page);
		assert_log_files_fresh(dir);
		e2e_drop(&dir);
	}
	proof_env(false);
}

/* Appends checked by the proof on one thread and on two: each site is a
 * --no-cache build's, page, log page and raw copy. */
static void a_proof_checked_on_one_or_two_threads_gives_a_fresh_site(void **state)
{
	(void)state;
	proof_env(true);
	char *dir = built_project(44000);
	static const char *const threads[] = {"1", "2", "1", "2"};
	for (size_t i = 0; i < sizeof threads / sizeof *threads; i++) {
		assert_int_equal(setenv("LOGDOWN_HASH_THREADS", threads[i], 1), 0);
		char *l = train_line(4400100 + 100 * (long)i);
		e2e_append(dir, "content/r/job.log", l);
		free(l);
		build_proving(dir, HELD, CONTINUED);
		char *page = e2e_read(dir, "_site/r/index.html");
		assert_contains(page, e2e_keep(xasprintf(">%ld</a>;", 4400100 + 100 * (long)i)));
		assert_fresh(dir, e2e_keep(e2e_page_body(page)));
		free(page);
		assert_log_files_fresh(dir);
	}
	e2e_drop(&dir);
	proof_env(false);
}

/* A prose edit saved right after an append's build: the log's row is
 * racy (its signature trusted by no later build), so its bytes are read
 * again; the proof checks them instead of one hash from the first byte,
 * and the page is a --no-cache build's. */
static void a_prose_edit_right_after_an_append_is_proved(void **state)
{
	(void)state;
	proof_env(true);
	char *dir = built_project(44000);
	char *l = train_line(4400100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	/* the log must be racy (changed under 2 s before) when this build
	 * reads it: by the plain binary, as memcheck may take longer */
	build_proving_with(e2e_plain_binary(), dir, HELD, CONTINUED);
	e2e_write(dir, "content/r/index.md", e2e_keep(xasprintf("%s\nMore prose.\n", report)));
	build_proving(dir, HELD, "1 report: 1 rendered");
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "More prose.");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	assert_log_files_fresh(dir);
	e2e_drop(&dir);
	proof_env(false);
}

/* How many times `what` occurs in `s`. */
static int count_of(const char *s, const char *what)
{
	int n = 0;
	for (const char *at = strstr(s, what); at; at = strstr(at + 1, what))
		n++;
	return n;
}

/* The offset of the first digit of the loss of the first row at or
 * after byte `at` of the log. */
static off_t a_loss_at(const char *dir, off_t at)
{
	char *log = e2e_read(dir, "content/r/job.log");
	char *l = strstr(log + at, "Loss=");
	assert_non_null(l);
	off_t off = l + 5 - log;
	free(log);
	return off;
}

/* The proof checked beside the build (cache_speculate()): a byte of a
 * middle piece changed once the build has resumed the grown log on the
 * proof's word, before the check reads it (LOGDOWN_TEST_WRITE_SPECULATING).
 * The check fails at the join: that build is thrown away unsaid, and the
 * build made again checks the proof itself (it fails: no row of the
 * thrown build was trusted), parses the log in full, and says it once;
 * the site is a --no-cache build's.  The next append is proved again,
 * against the proof of the real bytes. */
static void a_byte_changed_while_the_proof_runs_is_found(void **state)
{
	(void)state;
	proof_env(true);
	char *dir = built_project(44000);
	char *l = train_line(4400100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	build_proving(dir, HELD, CONTINUED);
	char *at = xasprintf("%lld", (long long)a_loss_at(dir, 2 * PIECE + 5000));
	char *before = e2e_read(dir, "content/r/job.log");
	l = train_line(4400200);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	assert_int_equal(setenv("LOGDOWN_TEST_WRITE_SPECULATING", at, 1), 0);
	struct proc r = e2e_run(dir, "build -v");
	unsetenv("LOGDOWN_TEST_WRITE_SPECULATING");
	e2e_keep_proc(r);
	if (r.status != 0)
		fail_msg("exit %d:\n%s", r.status, r.err);
	/* the join's (a read after the change checks again, and fails
	 * too), then the second build's own check */
	if (count_of(r.err, FAILED) < 2 || count_of(r.err, HELD) != 0 ||
	    count_of(r.err, "logdown: built 1 report") != 1 || count_of(r.err, PARSED) != 1 ||
	    count_of(r.err, CONTINUED) != 0)
		fail_msg("expected two failed proofs and one full parse in:\n%s", r.err);
	/* the byte did change (the flip lands in a digit) */
	char *after = e2e_read(dir, "content/r/job.log");
	off_t off = (off_t)strtoll(at, NULL, 10);
	assert_int_equal(after[off], before[off] ^ 1);
	free(after);
	free(before);
	free(at);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	assert_log_files_fresh(dir);
	l = train_line(4400300);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	build_proving(dir, HELD, CONTINUED);
	page = e2e_read(dir, "_site/r/index.html");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	e2e_drop(&dir);
	proof_env(false);
}

/* Two copies of one project, A built with the proof checked beside the
 * build and B with it checked first (LOGDOWN_TEST_NO_SPECULATE: the way
 * before), given the same appends: the same pages and log pages, and
 * the same run stores and resume states, byte for byte. */
static void a_build_on_the_proofs_word_is_the_build_after_it(void **state)
{
	(void)state;
	proof_env(true);
	char *a = built_project(44000), *b = built_project(44000);
	int st;
	int rounds = getenv("LOGDOWN_VALGRIND") ? 1 : 3;
	for (int i = 0; i < rounds; i++) {
		char *l = train_line(4400100 + 100 * (long)i);
		e2e_append(a, "content/r/job.log", l);
		e2e_append(b, "content/r/job.log", l);
		free(l);
		build_proving(a, HELD, CONTINUED);
		assert_int_equal(setenv("LOGDOWN_TEST_NO_SPECULATE", "1", 1), 0);
		build_proving(b, HELD, CONTINUED);
		unsetenv("LOGDOWN_TEST_NO_SPECULATE");
		free(e2e_sh(&st, "diff -r '%s/_site' '%s/_site' && cd '%s/.logdown-cache/runs' && "
				 "for f in *; do cmp \"$f\" '%s/.logdown-cache/runs/'\"$f\" || exit 1; "
				 "done && [ \"$(ls | wc -l)\" = \"$(ls '%s/.logdown-cache/runs' | wc -l)\" ]",
			     a, b, a, b, b));
		assert_int_equal(st, 0);
	}
	char *page = e2e_read(a, "_site/r/index.html");
	assert_fresh(a, e2e_keep(e2e_page_body(page)));
	free(page);
	e2e_drop(&a);
	e2e_drop(&b);
	proof_env(false);
}

/* The byte offset in the files table of the first piece's hash of the
 * log (its first PIECE bytes' XXH3-128, canonical), found by value. */
static size_t piece_in_table(const char *dir, const struct buf *table)
{
	char *log = e2e_read(dir, "content/r/job.log");
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(log, PIECE));
	free(log);
	for (size_t i = 0; i + sizeof c.digest <= table->len; i++)
		if (memcmp(table->data + i, c.digest, sizeof c.digest) == 0)
			return i;
	fail_msg("the first piece's hash is not in the files table");
	return 0;
}

/* The files table, cut in its piece table or a piece's hash changed
 * (its checksum fixed up): one warning, the log's old bytes hashed
 * again, and the page right; the next append is proved again. */
static void proof_refused_when(bool cut, const char *warning)
{
	proof_env(true);
	char *dir = built_project(44000);
	char *path = xasprintf("%s/.logdown-cache/files", dir);
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	size_t at = piece_in_table(dir, &b);
	if (cut) {
		b.len = at + 8;
	} else {
		b.data[at + 3] ^= 1;
		uint64_t sum = XXH3_64bits(b.data, b.len - 8);
		memcpy(b.data + b.len - 8, &sum, 8);
	}
	assert_true(file_write(path, b.data, b.len));
	buf_free(&b);
	free(path);
	char *l = train_line(4400100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, warning);
	assert_true(strstr(r.err, "a proof of") == NULL); /* none was read */
	proc_free(&r);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_fresh(dir, e2e_keep(e2e_page_body(page)));
	free(page);
	assert_log_files_fresh(dir);
	/* the row and its proof written anew */
	l = train_line(4400200);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	build_proving(dir, HELD, CONTINUED);
	e2e_drop(&dir);
	proof_env(false);
}

static void a_proof_cut_short_is_refused_with_a_warning(void **state)
{
	(void)state;
	proof_refused_when(true, "files: warning: the build cache is damaged or not logdown's");
}

static void an_altered_proof_is_refused_with_a_warning(void **state)
{
	(void)state;
	proof_refused_when(false, "files: warning: the build cache is altered (its seal does not "
				  "match");
}

/* A new log (no row in the cache: a first build) is hashed by its parse,
 * in the parse's own read (cache_fd_read_begin()): of a log of 16 MB
 * the first build reads it for the parse and for its raw copy, and the
 * lines its log page shows, not a third time for its hash (the
 * hash's read counted: pread(), not a mapping).  That read's row is the
 * one a hash's own read makes: the next build keeps the page, and an
 * append goes on from the parse's state, its old bytes checked by the
 * pieces the parse's read made. */
static void a_new_logs_first_build_reads_it_once(void **state)
{
	(void)state;
	/* under valgrind, a log of 3.3 MB that counts as big, in pieces
	 * of 1 MiB: four pieces again */
	bool vg = getenv("LOGDOWN_VALGRIND") != NULL;
	long rows = measured_rows();
	measured_env(true);
	assert_int_equal(setenv("LOGDOWN_TEST_NO_MAP", "1", 1), 0);
	assert_int_equal(setenv("LOGDOWN_TEST_PIECE", vg ? "1048576" : "4194304", 1), 0);
	assert_int_equal(setenv("LOGDOWN_TEST_SAY_PROOF", "1", 1), 0);
	char *dir = project(100);
	struct buf b = BUF_INIT;
	put_rows(&b, 200, 100 * rows);
	e2e_append(dir, "content/r/job.log", buf_data(&b));
	buf_free(&b);
	sleep(3); /* settled: the next build trusts the row by its signature */
	off_t size = size_of(dir, "content/r/job.log");
	unsigned long long read = build_reading(dir, PARSED);
	print_message("           first build: %llu bytes read, the log has %lld\n", read,
		      (long long)size);
	if (read > 2 * (unsigned long long)size + (25u << 19))
		fail_msg("a first build read %llu bytes of a new log of %lld", read,
			 (long long)size);
	char *body = build_saying(dir, "1 report: 0 rendered, 1 from cache");
	assert_fresh(dir, body);
	free(body);
	char *l = train_line(100 * rows + 100);
	e2e_append(dir, "content/r/job.log", l);
	free(l);
	build_proving(dir, "a proof of 4 pieces held", CONTINUED);
	body = build_saying(dir, "1 report: 0 rendered, 1 from cache");
	assert_fresh(dir, body);
	free(body);
	assert_log_files_fresh(dir);
	unsetenv("LOGDOWN_TEST_NO_MAP");
	unsetenv("LOGDOWN_TEST_PIECE");
	unsetenv("LOGDOWN_TEST_SAY_PROOF");
	measured_env(false);
	e2e_drop(&dir);
}

/* A new log changed while its parse reads it, in bytes the parse has
 * passed (the first row's loss, once 1 MiB was read): what was parsed
 * is no content's that a hash taken after would give, so neither the
 * run nor the page is kept under such a key.  The next build parses
 * the log again and its page is a fresh build's. */
static void a_new_log_changed_while_parsed_keeps_no_key(void **state)
{
	(void)state;
	char *dir = project(100);
	e2e_write(dir, "content/r/index.md",
		  e2e_keep(xasprintf("%s\nFirst loss {{ first(cs.train.loss) }}.\n", report)));
	struct buf b = BUF_INIT;
	put_rows(&b, 200, 100 * 70000);
	e2e_append(dir, "content/r/job.log", buf_data(&b));
	buf_free(&b);
	char *log = e2e_read(dir, "content/r/job.log");
	const char *loss = strstr(log, "Loss=");
	assert_non_null(loss);
	assert_int_equal(loss[5], '8'); /* step 100: 8.50000 */
	char *hook = xasprintf("1048576:%td:7", loss + 5 - log);
	free(log);
	sleep(3);
	assert_int_equal(setenv("LOGDOWN_TEST_WRITE_WHILE_READ", hook, 1), 0);
	char *body = build_saying(dir, PARSED);
	unsetenv("LOGDOWN_TEST_WRITE_WHILE_READ");
	free(hook);
	free(body);
	/* the log is as the hook left it: "Loss=7.5" in its first row */
	log = e2e_read(dir, "content/r/job.log");
	assert_non_null(strstr(log, "Loss=7.50000"));
	free(log);
	/* the page shows the loss the log has now, parsed again */
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/r/index.html");
	body = e2e_page_body(page);
	free(page);
	assert_non_null(strstr(body, "title=\"content/r/job.log:2\">7.50000</a>"));
	assert_fresh(dir, body);
	free(body);
	if (!strstr(r.err, "1 report: 1 rendered, 0 from cache; 1 result file read: 1 parsed"))
		fail_msg("the page is not built again:\n%s", r.err);
	proc_free(&r);
	e2e_drop(&dir);
}

/* A log the cache may know, though it has no row of that signature,
 * is hashed before its parse, so that its stored run is found: a log
 * touched (its row has its size), and a project moved to another folder
 * (no rows, which name files by their real path, but the resume state
 * stored for the log's place below the project).  The output is removed
 * each time, so that no page can be kept and each log goes to its
 * load.  LOGDOWN_TEST_WHOLE_MIN=0: this small log counts as big. */
static void a_touched_or_moved_log_comes_from_the_store(void **state)
{
	(void)state;
	assert_int_equal(setenv("LOGDOWN_TEST_WHOLE_MIN", "0", 1), 0);
	char *dir = project(5000);
	free(build_saying(dir, PARSED));
	char *rm = xasprintf("rm -rf '%s/_site'", dir);
	assert_int_equal(system(rm), 0);
	char *path = xasprintf("%s/content/r/job.log", dir);
	assert_int_equal(utimes(path, NULL), 0);
	char *body = build_saying(dir, "1 result file read: 0 parsed, 1 from cache");
	assert_fresh(dir, body);
	free(body);
	char *moved = xasprintf("%s-moved", dir);
	assert_int_equal(rename(dir, moved), 0);
	char *rm2 = xasprintf("rm -rf '%s/_site'", moved);
	assert_int_equal(system(rm2), 0);
	body = build_saying(moved, "1 result file read: 0 parsed, 1 from cache");
	assert_fresh(moved, body);
	free(body);
	assert_int_equal(rename(moved, dir), 0);
	unsetenv("LOGDOWN_TEST_WHOLE_MIN");
	free(rm);
	free(rm2);
	free(path);
	free(moved);
	e2e_drop(&dir);
}

/* The hooks that write into a log, kill the build or fail its steps on
 * purpose answer in the test builds only (test_hook_env(), base/util.h).
 * With LOGDOWN_TEST_WRITE_WHILE_READ set, the test build writes a 'Z'
 * over a new log's first byte as its parse reads it; with
 * LOGDOWN_TEST_KILL_AT=merge:0 it is killed as it puts a changed site in
 * place.  The release binary, which users run, does neither: the log
 * stays as it was and each site is put in place.  (The other three,
 * LOGDOWN_TEST_TRUNCATE_MAPPED, _WRITE_SPECULATING and _DISCARD, are
 * read the same way.) */
static void hooks_env(bool on)
{
	if (on) {
		assert_int_equal(setenv("LOGDOWN_TEST_WHOLE_MIN", "0", 1), 0);
		assert_int_equal(setenv("LOGDOWN_TEST_WRITE_WHILE_READ", "1:0:Z", 1), 0);
		assert_int_equal(setenv("LOGDOWN_TEST_KILL_AT", "merge:0", 1), 0);
	} else {
		unsetenv("LOGDOWN_TEST_WHOLE_MIN");
		unsetenv("LOGDOWN_TEST_WRITE_WHILE_READ");
		unsetenv("LOGDOWN_TEST_KILL_AT");
	}
}

static struct proc hooked_build(const char *bin, const char *dir, const char *prose)
{
	e2e_write(dir, "content/r/index.md", e2e_keep(xasprintf("%s\n%s\n", report, prose)));
	hooks_env(true);
	struct proc r = e2e_run_bin(bin, dir, "build");
	hooks_env(false);
	return r;
}

static void the_fault_hooks_answer_in_test_builds_only(void **state)
{
	(void)state;
	const char *rel = bounded_release();
	if (!rel) {
		print_message("[  SKIP    ] ./logdown is not built (or under valgrind)\n");
		skip();
	}
	char *dir = project(2000);
	char *before = e2e_read(dir, "content/r/job.log");
	assert_int_equal(before[0], '2');
	/* the release binary: a new log read, then a changed site put in
	 * place */
	const char *prose[] = {"First prose.", "Second prose."};
	for (int i = 0; i < 2; i++) {
		struct proc r = hooked_build(rel, dir, prose[i]);
		if (r.status != 0)
			fail_msg("the release build failed (%d):\n%s", r.status, r.err);
		proc_free(&r);
		char *log = e2e_read(dir, "content/r/job.log");
		assert_string_equal(log, before);
		free(log);
		char *page = e2e_read(dir, "_site/r/index.html");
		assert_non_null(strstr(page, prose[i]));
		free(page);
	}
	/* the test build: killed as it puts the site in place, which stays
	 * the release build's */
	struct proc t = hooked_build(e2e_binary(), dir, "Third prose.");
	assert_int_equal(t.status, 128 + SIGKILL);
	proc_free(&t);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_non_null(strstr(page, prose[1]));
	free(page);
	/* and, the log new to it, its first byte written */
	char *site = path_join(dir, "_site"), *cache = path_join(dir, ".logdown-cache");
	assert_true(remove_tree(site) && remove_tree(cache));
	free(site);
	free(cache);
	t = hooked_build(e2e_binary(), dir, "Fourth prose.");
	assert_int_equal(t.status, 0);
	proc_free(&t);
	char *log = e2e_read(dir, "content/r/job.log");
	assert_int_equal(log[0], 'Z');
	assert_string_equal(log + 1, before + 1);
	free(log);
	free(before);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_grown_log_goes_on_from_where_its_last_parse_stopped),
		cmocka_unit_test(a_rewritten_log_is_parsed_in_full),
		cmocka_unit_test(a_grown_logs_derived_values_are_a_fresh_builds),
		cmocka_unit_test(a_resume_state_cut_short_is_refused_with_a_warning),
		cmocka_unit_test(an_altered_resume_state_is_refused_with_a_warning),
		cmocka_unit_test(appending_1_kb_costs_well_under_a_full_parse),
		cmocka_unit_test(an_appends_rebuild_reads_none_of_the_old_rows),
		cmocka_unit_test(a_grown_logs_page_and_copy_are_a_fresh_builds),
		cmocka_unit_test(a_grown_logs_old_bytes_are_read_once),
		cmocka_unit_test(a_new_logs_first_build_reads_it_once),
		cmocka_unit_test(a_new_log_changed_while_parsed_keeps_no_key),
		cmocka_unit_test(a_touched_or_moved_log_comes_from_the_store),
		cmocka_unit_test(an_edited_raw_copy_is_copied_again_whole),
		cmocka_unit_test(a_prose_edit_right_after_an_append_keeps_the_copy),
		cmocka_unit_test(a_log_rewritten_with_its_times_put_back_is_read_whole),
		cmocka_unit_test(a_log_cut_short_while_mapped_is_read_as_it_is),
		cmocka_unit_test(a_grown_logs_charts_are_a_fresh_builds_drawings),
		cmocka_unit_test(a_rewritten_logs_chart_is_drawn_from_every_point),
		cmocka_unit_test(a_chart_carry_cut_short_is_refused_with_a_warning),
		cmocka_unit_test(an_altered_chart_carry_is_refused_with_a_warning),
		cmocka_unit_test(an_appends_chart_reads_none_of_the_old_rows),
		cmocka_unit_test(a_byte_changed_in_any_piece_is_found),
		cmocka_unit_test(a_proof_checked_on_one_or_two_threads_gives_a_fresh_site),
		cmocka_unit_test(a_prose_edit_right_after_an_append_is_proved),
		cmocka_unit_test(a_byte_changed_while_the_proof_runs_is_found),
		cmocka_unit_test(a_build_on_the_proofs_word_is_the_build_after_it),
		cmocka_unit_test(a_proof_cut_short_is_refused_with_a_warning),
		cmocka_unit_test(an_altered_proof_is_refused_with_a_warning),
		cmocka_unit_test(the_fault_hooks_answer_in_test_builds_only),
	};
	e2e_test_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
