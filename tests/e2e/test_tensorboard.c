/* test_tensorboard.c: TensorBoard event files as a user meets them:
 * `logdown parse` on a whole, a cut and a wrong file, and a report whose
 * values link to the record that holds them on the file's log page. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "e2e.h"

#define TORCH "tests/fixtures/tensorboard/events.out.tfevents.1721000000.workstation.4242.0"
#define TORCH_NAME "events.out.tfevents.1721000000.workstation.4242.0"
#define TF1 "tests/fixtures/tensorboard/events.out.tfevents.1700000000.node01"

static void parse_csv_of_a_tag(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(E2E_COPY(TORCH_NAME, TORCH)));
	struct proc r = e2e_run(dir, "parse " TORCH_NAME " --csv lr");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "step,wall_time,value\n"
				   "1,1721000064,0.5\n"
				   "2,1721000124,0.25\n"
				   "3,1721000184,0.125\n"
				   "4,1721000244,0.0625\n"
				   "5,1721000304,0.03125\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* Cut 40 bytes into record 9 (it starts at byte 629): a warning at the
 * record, the 8 before read; --strict makes it an error. */
static void parse_of_a_cut_file_warns_at_its_record(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(E2E_COPY("events.out.tfevents.cut", TF1)));
	char *path = path_join(dir, "events.out.tfevents.cut");
	assert_int_equal(truncate(path, 629 + 12 + 40), 0);
	struct proc r = e2e_run(dir, "parse events.out.tfevents.cut --csv loss");
	assert_string_equal(r.err, "events.out.tfevents.cut:9: warning: record 9 is cut short: "
				   "it holds 90 bytes and their checksum, the file ends 40 bytes "
				   "into them; the records before it are read\n");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "step,wall_time,value\n"
				   "0,1700000010,2.5\n"
				   "100,1700000020,1.75\n"
				   "200,1700000030,1.25\n"
				   "300,1700000040,0.875\n"
				   "400,1700000050,0.625\n");
	proc_free(&r);
	r = e2e_run(dir, "parse --strict events.out.tfevents.cut");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "events.out.tfevents.cut:9: error: record 9 is cut short"));
	proc_free(&r);
	free(path);
	e2e_drop(&dir);
}

/* A text file with an event file's name: claimed by its name, refused
 * by the reader. */
static void a_text_file_named_like_an_event_file_is_an_error(void **state)
{
	(void)state;
	char *dir = e2e_project(
		E2E_FILES(E2E_TEXT("events.out.tfevents.123.host", "step 1 loss 0.5\n")));
	struct proc r = e2e_run(dir, "parse events.out.tfevents.123.host");
	assert_string_equal(r.err, "events.out.tfevents.123.host: error: not a TensorBoard "
				   "event file: its first record is not a whole TFRecord holding "
				   "an event with a file_version \"brain.Event:N\"\n");
	assert_int_equal(r.status, 1);
	proc_free(&r);
	e2e_drop(&dir);
}

/* The report's value links to line 19 of the log page, and line 19 of
 * that page is record 19, decoded. */
static void report_values_link_to_their_record(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/tb/index.md", "---\n"
						"title: TB\n"
						"runs:\n"
						"  tb: logs/" TORCH_NAME "\n"
						"---\n\n"
						"Final loss {{ last(tb.loss_train.value) }}.\n"),
		E2E_COPY("content/tb/logs/" TORCH_NAME, TORCH)));
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *page = e2e_read(dir, "_site/tb/index.html");
	assert_non_null(page);
	assert_non_null(strstr(page, "href=\"logs/" TORCH_NAME ".html#L19\""));
	free(page);
	char *log = e2e_strip_hl(e2e_read(dir, "_site/tb/logs/" TORCH_NAME ".html"));
	assert_non_null(log);
	const char *l19 = strstr(log, "id=\"L19\"");
	assert_non_null(l19);
	const char *end = strstr(l19, "id=\"L20\"");
	assert_non_null(end);
	char *line = xstrndup(l19, (size_t)(end - l19));
	assert_non_null(strstr(line, "step 5  wall_time 1721000300  Loss/train = 0.2"));
	free(line);
	assert_non_null(strstr(log, "samples (an image, histogram or audio: skipped)"));
	free(log);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_csv_of_a_tag),
		cmocka_unit_test(parse_of_a_cut_file_warns_at_its_record),
		cmocka_unit_test(a_text_file_named_like_an_event_file_is_an_error),
		cmocka_unit_test(report_values_link_to_their_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
