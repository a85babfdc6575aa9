/* scaffold.c: the starter project of `logdown new`. */
#include "cmd/scaffold.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/util.h"

struct starter_file {
	const char *path;
	const char *text;
};

static const struct starter_file starter[] = {
	{"site.yaml",
	 "# Settings of the whole site.  Every key is optional.\n"
	 "title: My reports\n"
	 "author: A. Student\n"
	 "output: _site\n"
	 "paper: a4\n"},
	{".gitignore", "/_site/\n/.logdown-cache/\n"},
	{"content/first-report/index.md",
	 "---\n"
	 "title: \"My first report\"\n"
	 "author: A. Student\n"
	 "date: 2024-04-08\n"
	 "summary: A Cerebras run at batch size 512, and what it shows.\n"
	 "---\n"
	 "\n"
	 "# Setup\n"
	 "\n"
	 "I trained BERT-Large on one CS-2 for 1000 steps at batch size 512.\n"
	 "The log is in `logs/bs512.log`, next to this file.\n"
	 "\n"
	 "# Results\n"
	 "\n"
	 "| Step | Loss    | Rate (samples/s) |\n"
	 "|-----:|--------:|-----------------:|\n"
	 "|  100 | 9.39062 | 2983.97          |\n"
	 "| 1000 | 7.12500 | 2900.63          |\n"
	 "\n"
	 "The run processed 512000 samples in 175.070497198 seconds.\n"
	 "\n"
	 "- [x] run the baseline\n"
	 "- [ ] try batch size 2048\n"},
	{"content/first-report/logs/bs512.log",
	 "2024-03-30 14:09:43,663 INFO:   Effective batch size is 512.\n"
	 "2024-03-30 15:16:16,590 INFO:   Beginning appliance run\n"
	 "2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=100, Loss=9.39062, "
	 "Rate=2983.97 samples/sec, GlobalRate=2983.97 samples/sec\n"
	 "2024-03-30 15:19:11,785 INFO:   | Train Device=CSX, Step=1000, Loss=7.12500, "
	 "Rate=2900.63 samples/sec, GlobalRate=2924.54 samples/sec\n"
	 "2024-03-30 15:20:24,238 INFO:   Training completed successfully!\n"
	 "2024-03-30 15:20:24,238 INFO:   Processed 512000 sample(s) in 175.070497198 seconds.\n"},
};

int scaffold_new(const char *dir, struct diag *d)
{
	if (is_dir(dir)) {
		size_t n;
		char **names = dir_list(dir, &n);
		strv_free(names);
		if (!names || n > 0) {
			diag_error(d, loc_line(NULL, 0),
				   "'%s' already exists and is not empty: choose a new folder", dir);
			return EXIT_USAGE;
		}
	} else if (path_exists(dir)) {
		diag_error(d, loc_line(NULL, 0), "'%s' already exists and is not a folder", dir);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ARRAY_LEN(starter); i++) {
		char *path = path_join(dir, starter[i].path);
		char *parent = path_dirname(path);
		bool ok = mkdir_p(parent) && file_write(path, starter[i].text, strlen(starter[i].text));
		if (!ok)
			diag_error(d, loc_line(NULL, 0), "%s: cannot write: %s", path, strerror(errno));
		free(parent);
		free(path);
		if (!ok)
			return EXIT_IO;
	}
	printf("Created a logdown project in %s.\n"
	       "  logdown build %s     writes the site to %s/_site\n"
	       "  content/first-report/index.md is the report to start from.\n",
	       dir, dir, dir);
	return EXIT_OK;
}
