/* main.c: the command line.  Everything else lives in the modules. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "scaffold.h"
#include "site.h"
#include "util.h"
#include "version.h"

static const char usage_main[] =
	"usage: logdown <command> [options]\n"
	"\n"
	"logdown compiles Markdown reports and the result files of their runs\n"
	"into a static HTML site.\n"
	"\n"
	"commands:\n"
	"  build [DIR]   build the site of the project in DIR (default .)\n"
	"  check [DIR]   check every report as a build would, write nothing\n"
	"  new DIR       create a starter project that builds as it is\n"
	"\n"
	"options:\n"
	"  -h, --help    show this help, or a command's: logdown build --help\n"
	"  --version     show the version\n"
	"\n"
	"exit status: 0 success, 1 the content has errors, 2 bad usage,\n"
	"3 an I/O or internal failure.\n";

static const char usage_build[] =
	"usage: logdown build [DIR] [-o OUT] [--drafts] [--strict]\n"
	"                     [--diagnostics=text|github|json]\n"
	"\n"
	"Builds the project in DIR (default .): every report under DIR/content\n"
	"(content/NAME.md or content/NAME/index.md) becomes OUT/NAME/index.html,\n"
	"OUT/index.html lists them newest first, and DIR/static is copied to\n"
	"OUT/static.  OUT is site.yaml's `output`, default DIR/_site.\n"
	"\n"
	"The site is written to a new folder and swapped in only when the build\n"
	"succeeded: after a failed build the previous output is as it was.\n"
	"logdown replaces only a folder it made (it holds a .logdown-site file),\n"
	"never the project itself or a folder of sources.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT     write the site to OUT\n"
	"  --drafts             include reports whose front matter says draft: true\n"
	"  --strict             treat warnings as errors\n"
	"  --diagnostics=FMT    text (default), github (Actions annotations) or json\n"
	"                       (one object per line)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Colours are used on a terminal only, and never when NO_COLOR is set.\n";

static const char usage_check[] =
	"usage: logdown check [DIR] [--drafts] [--strict] [--diagnostics=FMT]\n"
	"\n"
	"Reads and renders every report of the project in DIR (default .) as\n"
	"`logdown build` would, reports every problem, and writes nothing.\n"
	"Use it in CI: it exits 1 when the content has errors.\n"
	"\n"
	"options:\n"
	"  --drafts             check draft reports too\n"
	"  --strict             treat warnings as errors\n"
	"  --diagnostics=FMT    text (default), github or json\n"
	"  -h, --help           show this help\n";

static const char usage_new[] =
	"usage: logdown new DIR\n"
	"\n"
	"Creates a starter project in DIR (absent or empty): site.yaml, one\n"
	"report in content/first-report/ with its log, and a .gitignore.\n"
	"`logdown build DIR` then builds it as it is.\n";

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
	fputs("logdown: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n\n", stderr);
	fputs(usage, stderr);
	return EXIT_USAGE;
}

struct cli {
	const char *dir;
	const char *output;
	bool drafts;
	bool strict;
	enum diag_format format;
};

/* Parses the options of build and check.  Returns -1 to go on, or the
 * exit code to stop with. */
static int parse_build_args(int argc, char **argv, struct cli *c, bool is_build)
{
	const char *usage = is_build ? usage_build : usage_check;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return EXIT_OK;
		} else if (is_build && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
			if (++i >= argc)
				return usage_error(usage, "%s needs a folder", a);
			c->output = argv[i];
		} else if (is_build && str_has_prefix(a, "--output=")) {
			c->output = a + strlen("--output=");
		} else if (strcmp(a, "--drafts") == 0) {
			c->drafts = true;
		} else if (strcmp(a, "--strict") == 0) {
			c->strict = true;
		} else if (str_has_prefix(a, "--diagnostics=")) {
			const char *f = a + strlen("--diagnostics=");
			if (strcmp(f, "text") == 0)
				c->format = DIAG_TEXT;
			else if (strcmp(f, "github") == 0)
				c->format = DIAG_GITHUB;
			else if (strcmp(f, "json") == 0)
				c->format = DIAG_JSON;
			else
				return usage_error(usage,
						   "unknown diagnostics format '%s' (text, github or json)",
						   f);
		} else if (a[0] == '-' && a[1]) {
			return usage_error(usage, "unknown option '%s'", a);
		} else if (!c->dir) {
			c->dir = a;
		} else {
			return usage_error(usage, "more than one project folder given ('%s')", a);
		}
	}
	if (c->output && !*c->output)
		return usage_error(usage, "%s", "the output folder is empty");
	return -1;
}

static int cmd_build(int argc, char **argv, bool is_build)
{
	struct cli c = {0};
	int rc = parse_build_args(argc, argv, &c, is_build);
	if (rc >= 0)
		return rc;
	struct diag *d = diag_new(stderr, c.format, diag_want_colour(STDERR_FILENO));
	diag_set_strict(d, c.strict);
	struct build_opts o = {
		.root = c.dir ? c.dir : ".",
		.output = c.output,
		.drafts = c.drafts,
		.write = is_build,
		.summary = c.format == DIAG_TEXT,
	};
	rc = site_build(&o, d);
	diag_free(d);
	return rc;
}

static int cmd_new(int argc, char **argv)
{
	const char *dir = NULL;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage_new, stdout);
			return EXIT_OK;
		}
		if (argv[i][0] == '-')
			return usage_error(usage_new, "unknown option '%s'", argv[i]);
		if (dir)
			return usage_error(usage_new, "more than one folder given ('%s')", argv[i]);
		dir = argv[i];
	}
	if (!dir || !*dir)
		return usage_error(usage_new, "%s", "name the folder to create");
	struct diag *d = diag_new(stderr, DIAG_TEXT, diag_want_colour(STDERR_FILENO));
	int rc = scaffold_new(dir, d);
	diag_free(d);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const commands[] = {"build", "check", "new", "help", NULL};
	if (argc < 2)
		return usage_error(usage_main, "%s", "no command given");
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char *args[] = {(char *)"--help"};
			if (strcmp(argv[2], "build") == 0 || strcmp(argv[2], "check") == 0)
				return cmd_build(1, args, strcmp(argv[2], "build") == 0);
			if (strcmp(argv[2], "new") == 0)
				return cmd_new(1, args);
		}
		fputs(usage_main, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("logdown %s\n", LOGDOWN_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "build") == 0)
		return cmd_build(argc - 2, argv + 2, true);
	if (strcmp(cmd, "check") == 0)
		return cmd_build(argc - 2, argv + 2, false);
	if (strcmp(cmd, "new") == 0)
		return cmd_new(argc - 2, argv + 2);
	const char *near = closest_name(cmd, commands);
	if (near) {
		fprintf(stderr, "logdown: unknown command '%s' (did you mean '%s'?)\n\n", cmd, near);
		fputs(usage_main, stderr);
		return EXIT_USAGE;
	}
	return usage_error(usage_main, "unknown command '%s'", cmd);
}
