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
	/* _site is committed: the CI files check it against its sources and
	 * say which numbers changed (docs/manual.md, "Regenerating in CI"). */
	{".gitignore",
	 "# The built site, _site/, is committed: CI checks that it is what its\n"
	 "# sources give (.github/workflows/report.yml, .gitlab-ci.yml).\n"
	 "/.logdown-cache/\n"},
	{".github/workflows/report.yml",
	 "# .github/workflows/report.yml: on every push and pull request, build the\n"
	 "# site, check that the committed _site is what its sources give now (errors\n"
	 "# become annotations), write which numbers changed into the job's summary,\n"
	 "# keep the built site as an artifact, and publish it on GitHub Pages when\n"
	 "# the repository variable LOGDOWN_PAGES is \"true\".  logdown's manual,\n"
	 "# \"Regenerating in CI\", explains each step.\n"
	 "name: report\n"
	 "\n"
	 "on:\n"
	 "  push:\n"
	 "  pull_request:\n"
	 "\n"
	 "env:\n"
	 "  # logdown has no release yet: the install step builds it from this\n"
	 "  # repository at this branch or tag.  Pin the version that built the\n"
	 "  # committed _site, so that both builds agree.\n"
	 "  LOGDOWN_GIT: https://github.com/logdown/logdown.git\n"
	 "  LOGDOWN_REF: main\n"
	 "\n"
	 "permissions:\n"
	 "  contents: read\n"
	 "\n"
	 "jobs:\n"
	 "  report:\n"
	 "    runs-on: ubuntu-24.04\n"
	 "    steps:\n"
	 "      - uses: actions/checkout@v4\n"
	 "\n"
	 "      - name: Install logdown\n"
	 "        id: install\n"
	 "        run: |\n"
	 "          sudo apt-get update\n"
	 "          sudo apt-get install -y --no-install-recommends make gcc pkg-config \\\n"
	 "            libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-dev libpcre2-dev \\\n"
	 "            libcairo2-dev libpango1.0-dev fonts-dejavu-core libmicrohttpd-dev \\\n"
	 "            libxxhash-dev librsvg2-dev libexpat1-dev libjs-katex duktape-dev \\\n"
	 "            fonts-texgyre-math libgtksourceview-5-common libgraphviz-dev nettle-dev\n"
	 "          git clone --depth 1 --branch \"$LOGDOWN_REF\" \"$LOGDOWN_GIT\" \"$RUNNER_TEMP/logdown\"\n"
	 "          # CI=false: the -Werror of logdown's own CI is not for yours\n"
	 "          make -C \"$RUNNER_TEMP/logdown\" -j\"$(nproc)\" install PREFIX=\"$HOME/.local\" CI=false\n"
	 "          echo \"$HOME/.local/bin\" >> \"$GITHUB_PATH\"\n"
	 "\n"
	 "      - name: Build the site\n"
	 "        run: logdown build . -o \"$RUNNER_TEMP/site\" --diagnostics=github\n"
	 "\n"
	 "      - name: Check the committed site\n"
	 "        run: |\n"
	 "          if [ -d _site ]; then\n"
	 "            logdown check . --against _site --diagnostics=github\n"
	 "          else\n"
	 "            echo \"::notice::no committed _site to check: build it with logdown build and commit it\"\n"
	 "          fi\n"
	 "\n"
	 "      - name: What changed\n"
	 "        if: always()\n"
	 "        run: |\n"
	 "          if [ -f _site/manifest.json ] && [ -f \"$RUNNER_TEMP/site/manifest.json\" ]; then\n"
	 "            logdown diff _site \"$RUNNER_TEMP/site\" --format markdown >> \"$GITHUB_STEP_SUMMARY\" || [ $? -eq 1 ]\n"
	 "          fi\n"
	 "\n"
	 "      - name: Keep the site\n"
	 "        if: always()\n"
	 "        uses: actions/upload-artifact@v4\n"
	 "        with:\n"
	 "          name: site\n"
	 "          path: ${{ runner.temp }}/site\n"
	 "          if-no-files-found: ignore\n"
	 "\n"
	 "      - name: Prepare GitHub Pages\n"
	 "        if: vars.LOGDOWN_PAGES == 'true' && github.event_name == 'push' && github.ref_name == github.event.repository.default_branch\n"
	 "        uses: actions/upload-pages-artifact@v3\n"
	 "        with:\n"
	 "          path: ${{ runner.temp }}/site\n"
	 "\n"
	 "  pages:\n"
	 "    needs: report\n"
	 "    if: vars.LOGDOWN_PAGES == 'true' && github.event_name == 'push' && github.ref_name == github.event.repository.default_branch\n"
	 "    runs-on: ubuntu-24.04\n"
	 "    permissions:\n"
	 "      pages: write\n"
	 "      id-token: write\n"
	 "    concurrency:\n"
	 "      group: pages\n"
	 "      cancel-in-progress: false\n"
	 "    environment:\n"
	 "      name: github-pages\n"
	 "      url: ${{ steps.deploy.outputs.page_url }}\n"
	 "    steps:\n"
	 "      - id: deploy\n"
	 "        uses: actions/deploy-pages@v4\n"},
	{".gitlab-ci.yml",
	 "# .gitlab-ci.yml: on every push and merge request, build the site, write\n"
	 "# which numbers changed into logdown-diff.md (shown in the merge request),\n"
	 "# check that the committed _site is what its sources give now, keep the\n"
	 "# built site, and publish it on GitLab Pages when the CI/CD variable\n"
	 "# LOGDOWN_PAGES is \"true\".  logdown's manual, \"Regenerating in CI\",\n"
	 "# explains each step.\n"
	 "variables:\n"
	 "  # logdown has no release yet: before_script builds it from this\n"
	 "  # repository at this branch or tag.  Pin the version that built the\n"
	 "  # committed _site, so that both builds agree.\n"
	 "  LOGDOWN_GIT: https://github.com/logdown/logdown.git\n"
	 "  LOGDOWN_REF: main\n"
	 "\n"
	 "stages:\n"
	 "  - report\n"
	 "  - deploy\n"
	 "\n"
	 "report:\n"
	 "  stage: report\n"
	 "  image: debian:bookworm\n"
	 "  before_script:\n"
	 "    - apt-get update\n"
	 "    - apt-get install -y --no-install-recommends ca-certificates git make gcc pkg-config\n"
	 "        libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-dev libpcre2-dev\n"
	 "        libcairo2-dev libpango1.0-dev fonts-dejavu-core libmicrohttpd-dev\n"
	 "        libxxhash-dev librsvg2-dev libexpat1-dev libjs-katex duktape-dev\n"
	 "        fonts-texgyre-math libgtksourceview-5-common libgraphviz-dev nettle-dev\n"
	 "    - git clone --depth 1 --branch \"$LOGDOWN_REF\" \"$LOGDOWN_GIT\" /tmp/logdown\n"
	 "    # CI=false: the -Werror of logdown's own CI is not for yours\n"
	 "    - make -C /tmp/logdown -j\"$(nproc)\" install PREFIX=/usr/local CI=false\n"
	 "  script:\n"
	 "    - logdown build . -o public\n"
	 "    - |\n"
	 "      if [ -f _site/manifest.json ]; then\n"
	 "        logdown diff _site public --format markdown > logdown-diff.md || [ $? -eq 1 ]\n"
	 "      else\n"
	 "        echo \"no committed _site to compare with\" > logdown-diff.md\n"
	 "      fi\n"
	 "    - |\n"
	 "      if [ -d _site ]; then\n"
	 "        logdown check . --against _site\n"
	 "      else\n"
	 "        echo \"no committed _site to check: build it with logdown build and commit it\"\n"
	 "      fi\n"
	 "  artifacts:\n"
	 "    when: always\n"
	 "    expose_as: what changed\n"
	 "    paths:\n"
	 "      - logdown-diff.md\n"
	 "      - public/\n"
	 "\n"
	 "pages:\n"
	 "  stage: deploy\n"
	 "  image: debian:bookworm-slim\n"
	 "  needs: [report]\n"
	 "  rules:\n"
	 "    - if: $LOGDOWN_PAGES == \"true\" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH\n"
	 "  script:\n"
	 "    - test -f public/index.html\n"
	 "  artifacts:\n"
	 "    paths:\n"
	 "      - public/\n"},
	{"content/first-report/index.md",
	 "---\n"
	 "# The front matter (between the --- lines) says what the report is.\n"
	 "title: \"My first report\"\n"
	 "author: A. Student\n"
	 "date: 2024-04-08\n"
	 "summary: One Cerebras run of BERT-Large at batch size 512, read from its log.\n"
	 "# runs: names the result files the report reads, relative to this folder.\n"
	 "# logdown picks the parser (cerebras here); to see what it extracts, run\n"
	 "#   logdown parse content/first-report/logs/bs512.log\n"
	 "runs:\n"
	 "  bs512: logs/bs512.log\n"
	 "---\n"
	 "\n"
	 "<!-- A comment like this one does not show on the page.  Edit this file\n"
	 "     and run `logdown serve` to see the page change as you save. -->\n"
	 "\n"
	 "# Setup\n"
	 "\n"
	 "I trained BERT-Large on one CS-2 for {{ bs512.final_step }} steps at batch\n"
	 "size {{ bs512.batch_size }}.\n"
	 "\n"
	 "<!-- A value in double braces is read from the log when the site is built,\n"
	 "     and links to the line it came from.  A spec after \" :\" formats it,\n"
	 "     as Python does: \",d\" groups thousands, \".1f\" keeps one decimal.\n"
	 "     Arithmetic and mean, max, first, ... work too. -->\n"
	 "\n"
	 "# Results\n"
	 "\n"
	 "The run processed {{ bs512.samples :,d }} samples in\n"
	 "{{ bs512.total_time :.1f }} s, {{ bs512.throughput :,.0f }} samples/s.\n"
	 "The loss fell from {{ first(bs512.train.loss) }} to {{ bs512.final_loss }}\n"
	 "(@fig-loss), while the rate held near {{ mean(bs512.train.rate) :,.0f }}\n"
	 "samples/s (@tbl-steps).\n"
	 "\n"
	 "<!-- An at sign before a label is a cross-reference: it becomes a link\n"
	 "     \"Figure 1\" or \"Table 1\" to the block with that label below. -->\n"
	 "\n"
	 "```{table}\n"
	 "# A table: one row per row of a series (train: the log's \"| Train\" lines).\n"
	 "caption: Loss and rate every 100 steps\n"
	 "label: tbl-steps      # the prose links here with @tbl-steps\n"
	 "rows: bs512.train\n"
	 "columns:\n"
	 "  Step: step\n"
	 "  Loss: loss :.2f      # a spec after \" :\" formats the column\n"
	 "  Rate (samples/s): rate\n"
	 "```\n"
	 "\n"
	 "```{chart}\n"
	 "# A chart, drawn by logdown: x and y are columns of a run's series.\n"
	 "type: line\n"
	 "caption: Training loss of the run at batch size 512\n"
	 "label: fig-loss       # the prose links here with @fig-loss\n"
	 "series: bs512\n"
	 "x: train.step\n"
	 "y: train.loss\n"
	 "x_label: Step\n"
	 "y_label: Loss\n"
	 "```\n"
	 "\n"
	 "The end of the log says how it went:\n"
	 "\n"
	 "```{log}\n"
	 "# A log excerpt: the lines that match, numbered and linked to the full log.\n"
	 "from: bs512\n"
	 "match: 'Training completed|Processed'\n"
	 "```\n"
	 "\n"
	 "- [x] run the baseline\n"
	 "- [ ] try batch size 2048: copy its log into `logs/`, name it under `runs:`,\n"
	 "      and compare the two in the table and the chart\n"},
	/* A real log, shortened: what a Cerebras run writes. */
	{"content/first-report/logs/bs512.log",
	 "2024-03-30 14:09:43,663 INFO:   Effective batch size is 512.\n"
	 "2024-03-30 14:14:52,707 INFO:   Programming Cerebras Wafer Scale Cluster for execution. This may take a few minutes.\n"
	 "2024-03-30 15:16:16,590 INFO:   Beginning appliance run\n"
	 "2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, Step=100, Loss=9.39062, Rate=2983.97 samples/sec, GlobalRate=2983.97 samples/sec\n"
	 "2024-03-30 15:16:51,449 INFO:   | Train Device=CSX, Step=200, Loss=8.70312, Rate=2941.41 samples/sec, GlobalRate=2948.08 samples/sec\n"
	 "2024-03-30 15:17:08,962 INFO:   | Train Device=CSX, Step=300, Loss=7.79688, Rate=2930.67 samples/sec, GlobalRate=2939.84 samples/sec\n"
	 "2024-03-30 15:17:26,398 INFO:   | Train Device=CSX, Step=400, Loss=7.39062, Rate=2934.21 samples/sec, GlobalRate=2939.02 samples/sec\n"
	 "2024-03-30 15:17:43,810 INFO:   | Train Device=CSX, Step=500, Loss=7.80469, Rate=2937.94 samples/sec, GlobalRate=2939.30 samples/sec\n"
	 "2024-03-30 15:18:01,430 INFO:   | Train Device=CSX, Step=600, Loss=7.53125, Rate=2918.68 samples/sec, GlobalRate=2933.67 samples/sec\n"
	 "2024-03-30 15:18:18,968 INFO:   | Train Device=CSX, Step=700, Loss=7.35156, Rate=2919.05 samples/sec, GlobalRate=2931.61 samples/sec\n"
	 "2024-03-30 15:18:36,572 INFO:   | Train Device=CSX, Step=800, Loss=7.27344, Rate=2912.68 samples/sec, GlobalRate=2928.69 samples/sec\n"
	 "2024-03-30 15:18:54,039 INFO:   | Train Device=CSX, Step=900, Loss=7.35938, Rate=2923.83 samples/sec, GlobalRate=2928.98 samples/sec\n"
	 "2024-03-30 15:19:11,785 INFO:   | Train Device=CSX, Step=1000, Loss=7.12500, Rate=2900.63 samples/sec, GlobalRate=2924.54 samples/sec\n"
	 "2024-03-30 15:20:24,238 INFO:   Training completed successfully!\n"
	 "2024-03-30 15:20:24,238 INFO:   Processed 512000 sample(s) in 175.070497198 seconds.\n"},
};

int scaffold_new(const char *dir, struct diag *d)
{
	if (is_dir(dir)) {
		size_t n;
		char **names = dir_list(dir, &n);
		strv_free(names);
		if ((!names || n > 0) && strcmp(dir, ".") == 0) {
			diag_error(d, loc_line(NULL, 0),
				   "this folder is not empty: run logdown new in an empty one, "
				   "or name a new folder (logdown new DIR)");
			return EXIT_USAGE;
		}
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
	/* What to open and what to run next, with the folder as given ("."
	 * is the folder the user stands in: no need to name it). */
	bool here = strcmp(dir, ".") == 0;
	const char *sep = here ? "" : " ";
	const char *arg = here ? "" : dir;
	char *report = here ? xstrdup("content/first-report/index.md")
			    : path_join(dir, "content/first-report/index.md");
	char *site = here ? xstrdup("_site") : path_join(dir, "_site");
	printf("Created a logdown project in %s.\n"
	       "Start from %s: a report that reads\n"
	       "a real log and uses each feature once, with comments that say how.\n"
	       "Next:\n"
	       "  logdown serve%s%s    preview it at http://127.0.0.1:8000/ as you edit\n"
	       "  logdown build%s%s    write the site to %s\n"
	       "Commit %s with the rest: the CI files (.github/workflows/report.yml,\n"
	       ".gitlab-ci.yml) check it against its sources and say which numbers changed.\n",
	       here ? "this folder" : dir, report, sep, arg, sep, arg, site, site);
	free(report);
	free(site);
	return EXIT_OK;
}
