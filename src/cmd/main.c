/* main.c: the command line.  Everything else lives in the modules. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "resolve/directive.h"
#include "cmd/diffcmd.h"
#include "cmd/parsecmd.h"
#include "cmd/scaffold.h"
#include "cmd/serve.h"
#include "site/site.h"
#include "base/util.h"
#include "base/version.h"

static const char usage_main[] =
	"usage: logdown <command> [options]\n"
	"\n"
	"logdown compiles Markdown reports and the result files of their runs\n"
	"into a static HTML site.\n"
	"\n"
	"commands:\n"
	"  build [DIR]   build the site of the project in DIR (default .)\n"
	"  check [DIR]   check every report as a build would, write nothing\n"
	"  diff OLD NEW  list the values that changed between two built sites\n"
	"  new DIR       create a starter project that builds as it is\n"
	"  parse FILE    show what a parser extracts from a result file\n"
	"  pdf [DIR]     build the site and a PDF of every report (no browser needed)\n"
	"  parsers       list the built-in and project parsers\n"
	"  serve [DIR]   build, serve the site on 127.0.0.1 and rebuild on changes\n"
	"  clean [DIR]   remove the build cache and the output\n"
	"\n"
	"options:\n"
	"  -h, --help    show this help, or a command's: logdown build --help\n"
	"  --version     show the version\n"
	"\n"
	"exit status: 0 success, 1 the content has errors, 2 bad usage,\n"
	"3 an I/O or internal failure, 4 another build is writing the output.\n";

static const char usage_build[] =
	"usage: logdown build [DIR] [-o OUT] [--drafts] [--strict] [--figures svg,png,pdf]\n"
	"                     [--pdf] [--diagnostics=text|github|json] [-j N] [--no-claims]\n"
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
	"  --figures LIST       chart files to write besides SVG: png (2x), pdf\n"
	"  --pdf                also write OUT/NAME/report.pdf (see logdown pdf --help)\n"
	"  --strict             treat warnings as errors\n"
	"  --no-claims          a broken claim ({{ x | expect < 8 }}) is a warning,\n"
	"                       not an error\n"
	"  --diagnostics=FMT    text (default), github (Actions annotations) or json\n"
	"                       (one object per line)\n"
	"  -j, --jobs N         load and render reports on N threads (default: one\n"
	"                       per core); the output is the same whatever N\n"
	"  --no-cache           neither read nor write the build cache (DIR/.logdown-cache:\n"
	"                       parsed result files and pages, reused only when\n"
	"                       nothing they depend on changed)\n"
	"  -v, --verbose        also say how many reports were rendered and result\n"
	"                       files parsed, and how many came from the cache\n"
	"  -h, --help           show this help\n"
	"\n"
	"Colours are used on a terminal only, and never when NO_COLOR is set.\n";

static const char usage_pdf[] =
	"usage: logdown pdf [DIR] [-o OUT] [--drafts] [--strict] [--figures LIST]\n"
	"                   [--diagnostics=text|github|json] [-j N] [--no-cache] [--no-claims]\n"
	"\n"
	"Builds the project in DIR (default .) as `logdown build` does and writes\n"
	"OUT/NAME/report.pdf beside every report's page, laid out by logdown\n"
	"itself with pango and cairo: no browser, no TeX, no network.  The PDF has\n"
	"the report's title block, its text (selectable), tables that repeat their\n"
	"header row on each page, code and log excerpts in monospace (long lines\n"
	"wrapped with a mark), the charts as vector drawings, page numbers,\n"
	"bookmarks for the headings and links that work.  site.yaml's `paper: a4`\n"
	"(default) or `paper: letter` sets the page size.  SOURCE_DATE_EPOCH, when\n"
	"set, is its creation date; without it the same input gives the same bytes.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT     write the site and the PDFs to OUT\n"
	"  --drafts             include reports whose front matter says draft: true\n"
	"  --figures LIST       chart files to write besides SVG: png (2x), pdf\n"
	"  --strict             treat warnings as errors\n"
	"  --no-claims          a broken claim is a warning, not an error\n"
	"  --diagnostics=FMT    text (default), github or json\n"
	"  -j N                 lay out N reports at a time (default: one per core)\n"
	"  --no-cache           neither read nor write the build cache\n"
	"  -h, --help           show this help\n";

static const char usage_check[] =
	"usage: logdown check [DIR] [--against OUT [--figures LIST]] [--pdf] [--drafts]\n"
	"                     [--lint | --no-lint] [--strict] [--no-claims]\n"
	"                     [--diagnostics=FMT] [-j N] [--cache]\n"
	"\n"
	"Reads and renders every report of the project in DIR (default .) as\n"
	"`logdown build` would, reports every problem, and writes nothing.\n"
	"Use it in CI: it exits 1 when the content has errors.\n"
	"\n"
	"options:\n"
	"  --figures LIST       with --against: the chart files OUT was built with\n"
	"  --pdf                lay out the PDFs too (their warnings: an image that\n"
	"                       cannot be read); with --against, OUT was built by\n"
	"                       logdown pdf\n"
	"  --against OUT        also fail when OUT, a site built and committed\n"
	"                       earlier, differs from what a build writes now,\n"
	"                       naming each stale, missing or extra file; when\n"
	"                       the check fails, what changed follows as logdown\n"
	"                       diff prints it (on stdout as JSON with\n"
	"                       --diagnostics=json)\n"
	"  --drafts             check draft reports too\n"
	"  --lint               warn of every number typed by hand in the prose that\n"
	"                       equals a value of the report's runs as the log shows\n"
	"                       it (2.31 for a final_loss of 2.3147), with the {{ }}\n"
	"                       to write instead; code, math, headings, dates, times,\n"
	"                       years, versions, ordinals, numbers inside words and\n"
	"                       round numbers (7, 0.03, 200, 512) are left alone, and\n"
	"                       so is a block after <!-- logdown: allow-number --> or\n"
	"                       a report whose front matter says allow_numbers: true\n"
	"  --no-lint            not even with --strict\n"
	"  --strict             treat warnings as errors; implies --lint\n"
	"  --no-claims          a broken claim ({{ x | expect < 8 }}) is a warning,\n"
	"                       not an error; relative claims (± 5%) compare with\n"
	"                       OUT's values with --against, else the output folder's\n"
	"  --diagnostics=FMT    text (default), github or json\n"
	"  -j, --jobs N         threads (default: one per core)\n"
	"  --cache              read the build cache (DIR/.logdown-cache, sealed with\n"
	"                       your key) instead of parsing every result file; check\n"
	"                       never writes it.  Without --cache (and with\n"
	"                       --no-cache) check reads no cache: in CI, a cache that\n"
	"                       came with the project decides nothing\n"
	"  -v, --verbose        say what came from the cache\n"
	"  -h, --help           show this help\n";

static const char usage_diff[] =
	"usage: logdown diff OLD NEW [--format text|markdown|json]\n"
	"       logdown diff --against OLD [DIR] [--format text|markdown|json]\n"
	"\n"
	"Lists, report by report, what changed between two built sites (folders\n"
	"a build wrote: each has a manifest.json): every input file whose size,\n"
	"hash, parser (or its definition), job ids or hosts changed, saying\n"
	"which in every format; every value whose shown text changed, with its\n"
	"place in the .md (file:line:col in NEW), old and new text, the relative\n"
	"change when both are numbers and both source lines; every table cell\n"
	"and chart series that changed; and what was added or removed.  A value\n"
	"is matched across builds by its report, its {{ }} as written and which\n"
	"occurrence of that writing it is, not by its line: editing prose above\n"
	"it changes nothing.\n"
	"\n"
	"options:\n"
	"  --against OLD  compare OLD, a site built and committed earlier, with\n"
	"                 what the project in DIR (default .) builds now, as\n"
	"                 `logdown check --against OLD` builds it (into a\n"
	"                 temporary folder, removed after)\n"
	"  --format FMT   text (default; coloured on a terminal unless NO_COLOR is\n"
	"                 set), markdown (a table per report: for a pull request\n"
	"                 comment or $GITHUB_STEP_SUMMARY) or json\n"
	"  -h, --help     show this help\n"
	"\n"
	"exit status: 0 no change, 1 changes (as diff(1)), 2 bad usage, a site\n"
	"that cannot be read or, with --against, a project with errors.\n";

static const char usage_new[] =
	"usage: logdown new [DIR]\n"
	"\n"
	"Creates a starter project in DIR (absent or empty; the current folder\n"
	"when none is named, if it is empty): site.yaml, one report in\n"
	"content/first-report/ that reads a real log and uses each feature once\n"
	"(a value, a table, a chart, a log excerpt, a cross-reference), and a\n"
	".gitignore.  `logdown build DIR` then builds it as it is.\n";

static const char usage_parse[] =
	"usage: logdown parse FILE [--parser NAME] [--parsers DIR]...\n"
	"                     [--json | --csv SERIES | --list-columns] [--strict]\n"
	"                     [--diagnostics=text|github|json]\n"
	"       logdown parse FILE --suggest [-o OUT.yaml] [--name NAME]\n"
	"\n"
	"Runs a parser over FILE and shows what it extracts: every field with its\n"
	"value and the line it came from, and every series with its columns, its\n"
	"row count and its first and last rows.  Use it to write and debug\n"
	"parsers.  The parser is detected from the file unless NAME is given.\n"
	"The parsers of the project FILE belongs to count: the nearest folder\n"
	"above FILE with a site.yaml or a content/ folder (its parsers/ and the\n"
	"folders its site.yaml lists); without one, ./parsers.\n"
	"\n"
	"options:\n"
	"  --parser NAME   use this parser (see logdown parsers)\n"
	"  --parsers DIR   also read the parser definitions (*.yaml) in DIR,\n"
	"                  after the project's (may be given more than once)\n"
	"  --list-columns  list every name a report can write after the run's\n"
	"                  name, one a line: the run attributes (name, file,\n"
	"                  parser, line_count), the fields, and each series'\n"
	"                  columns as series.column\n"
	"  --json          print one JSON object instead:\n"
	"                  {\"file\", \"parser\", \"fields\": {NAME: {\"value\", \"text\",\n"
	"                  \"line\"}}, \"series\": {NAME: {\"columns\", \"rows\", \"lines\"}}}\n"
	"                  (value null when missing, text and line null when\n"
	"                  computed)\n"
	"  --csv SERIES    print that series as CSV, each cell as written in FILE\n"
	"  --strict        treat warnings (a parser that matched nothing) as errors\n"
	"  --suggest       propose a parser definition for FILE, from its line\n"
	"                  templates: its repeated lines as series, the numbers\n"
	"                  of its other lines as fields, its tables, a detect\n"
	"                  pattern (docs/suggest.md); to stdout, or with\n"
	"  -o OUT.yaml     to that file (e.g. parsers/NAME.yaml)\n"
	"  --name NAME     the proposed parser's name (default: FILE's stem)\n"
	"  --diagnostics=FMT  text (default), github or json\n"
	"  -h, --help      show this help\n"
	"\n"
	"exit status: 0 success, 1 no parser claims FILE or it fails on it, 2 bad\n"
	"usage (FILE missing, unknown parser), 3 FILE cannot be read.\n";

static const char usage_parsers[] =
	"usage: logdown parsers [NAME...] [--markdown] [--strict]\n"
	"                       [--diagnostics=text|github|json]\n"
	"\n"
	"Lists the parsers, one a line: its name, where it is defined (built-in,\n"
	"or the .yaml file in ./parsers that adds or overrides it) and what it\n"
	"reads.  logdown parse FILE --parser NAME uses one.\n"
	"\n"
	"With NAME, shows that parser in full: what it reads, how it is detected,\n"
	"the fields, series and table columns it extracts (with their declared\n"
	"types) and an example of what it reads.\n"
	"\n"
	"  --markdown   the same for NAME, or for every parser, as Markdown (the\n"
	"               sections of docs/builtin-parsers.md)\n";

static const char usage_serve[] =
	"usage: logdown serve [DIR] [--port N] [--host ADDR] [-o OUT] [--drafts] [--strict]\n"
	"                     [--figures LIST] [-j N] [--no-claims]\n"
	"\n"
	"Builds the project in DIR (default .) as `logdown build` does, serves\n"
	"the output on http://127.0.0.1:8000/ and watches the reports, site.yaml,\n"
	"templates/, static/, parsers/ and every result file a report reads.  A\n"
	"change rebuilds the site and the open pages reload by themselves; a\n"
	"failed rebuild shows its errors over the page (and here) and the last\n"
	"good pages stay served.  Only GET and HEAD, and only files inside the\n"
	"output folder, are served.  Ctrl-C stops it.\n"
	"\n"
	"options:\n"
	"  --port N         listen on port N (default 8000; 0 picks a free one)\n"
	"  --host ADDR      listen on ADDR, a numeric address, instead of 127.0.0.1:\n"
	"                   other machines can then read the site\n"
	"  -o, --output OUT write the site to OUT\n"
	"  --drafts         include draft reports\n"
	"  --figures LIST   chart files to write besides SVG: png, pdf\n"
	"  --strict         treat warnings as errors\n"
	"  --no-claims      a broken claim is a warning, not an error\n"
	"  -j, --jobs N     threads for a build (default: one per core)\n"
	"  --no-cache       neither read nor write the build cache\n"
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 after Ctrl-C or SIGTERM, 2 bad usage, 3 the port is in use\n"
	"or the site cannot be written.\n";

static const char usage_clean[] =
	"usage: logdown clean [DIR] [-o OUT]\n"
	"\n"
	"Removes the build cache (DIR/.logdown-cache) and the output folder\n"
	"(site.yaml's `output`, default DIR/_site, or OUT), each only when logdown\n"
	"made it.  The next build then parses and renders everything.\n";

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
	fputs("logdown: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n\n", stderr);
	fputs(usage, stderr);
	return EXIT_USAGE;
}

/* The options every command that reports problems takes. */
struct diag_opts {
	bool strict;
	enum diag_format format;
};

/* Takes a diagnostics option: 1 when a was one, 0 when it is something
 * else, -1 after a usage error. */
static int diag_option(const char *a, struct diag_opts *o, const char *usage)
{
	if (strcmp(a, "--strict") == 0) {
		o->strict = true;
		return 1;
	}
	if (!str_has_prefix(a, "--diagnostics="))
		return 0;
	const char *f = a + strlen("--diagnostics=");
	if (strcmp(f, "text") == 0)
		o->format = DIAG_TEXT;
	else if (strcmp(f, "github") == 0)
		o->format = DIAG_GITHUB;
	else if (strcmp(f, "json") == 0)
		o->format = DIAG_JSON;
	else {
		usage_error(usage, "unknown diagnostics format '%s' (text, github or json)", f);
		return -1;
	}
	return 1;
}

/* Takes -j N, -jN, --jobs N or --jobs=N at argv[*i]: 1 when it was
 * one (*i moved past its value), 0 when it is something else, -1 after
 * a usage error. */
static int jobs_option(int argc, char **argv, int *i, size_t *jobs, const char *usage)
{
	const char *a = argv[*i], *v;
	if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0)
		v = ++*i < argc ? argv[*i] : NULL;
	else if (str_has_prefix(a, "--jobs="))
		v = a + strlen("--jobs=");
	else if (str_has_prefix(a, "-j"))
		v = a + 2;
	else
		return 0;
	char *end = NULL;
	errno = 0;
	long n = v && *v >= '0' && *v <= '9' ? strtol(v, &end, 10) : 0;
	if (!v || !end || *end || errno || n < 1 || n > 1024) {
		usage_error(usage, "-j takes a number of threads from 1 to 1024, not '%s'",
			    v ? v : "nothing");
		return -1;
	}
	*jobs = (size_t)n;
	return 1;
}

static struct diag *diag_open(const struct diag_opts *o)
{
	struct diag *d = diag_new(stderr, o->format, diag_want_colour(STDERR_FILENO));
	diag_set_strict(d, o->strict);
	return d;
}

struct cli {
	const char *dir;
	const char *output;
	const char *against;
	unsigned figures;
	bool drafts;
	bool no_cache, verbose;
	bool cache; /* check --cache */
	bool no_claims;
	size_t jobs;
	bool pdf;
	int lint; /* check: 1 --lint, 0 --no-lint, -1 as --strict says */
	struct diag_opts diag;
};

/* "svg,png,pdf" into FIGURE_* bits; false on an unknown format. */
static bool figure_formats(const char *list, unsigned *out)
{
	*out = FIGURE_SVG;
	while (*list) {
		size_t n = strcspn(list, ",");
		if (n == 3 && strncmp(list, "svg", 3) == 0)
			*out |= FIGURE_SVG;
		else if (n == 3 && strncmp(list, "png", 3) == 0)
			*out |= FIGURE_PNG;
		else if (n == 3 && strncmp(list, "pdf", 3) == 0)
			*out |= FIGURE_PDF;
		else
			return false;
		list += n + (list[n] == ',');
	}
	return true;
}

/* Parses the options of build and check.  Returns -1 to go on, or the
 * exit code to stop with. */
static int parse_build_args(int argc, char **argv, struct cli *c, bool is_build)
{
	const char *usage = c->pdf ? usage_pdf : is_build ? usage_build : usage_check;
	int rc;
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
		} else if (strcmp(a, "--no-cache") == 0) {
			c->no_cache = true;
		} else if (!is_build && strcmp(a, "--cache") == 0) {
			c->cache = true;
		} else if (strcmp(a, "--no-claims") == 0) {
			c->no_claims = true;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			c->verbose = true;
		} else if (strcmp(a, "--pdf") == 0) {
			c->pdf = true;
		} else if (!is_build && (strcmp(a, "--lint") == 0 || strcmp(a, "--no-lint") == 0)) {
			c->lint = a[2] == 'l';
		} else if (strcmp(a, "--figures") == 0 || str_has_prefix(a, "--figures=")) {
			const char *list = a[9] == '=' ? a + 10 : ++i < argc ? argv[i] : NULL;
			if (!list)
				return usage_error(usage, "%s needs a list such as svg,png,pdf", a);
			if (!figure_formats(list, &c->figures))
				return usage_error(usage, "--figures takes svg, png and pdf, not '%s'",
						   list);
		} else if (!is_build && strcmp(a, "--against") == 0) {
			if (++i >= argc)
				return usage_error(usage, "%s needs the built site's folder", a);
			c->against = argv[i];
		} else if (!is_build && str_has_prefix(a, "--against=")) {
			c->against = a + strlen("--against=");
		} else if ((rc = diag_option(a, &c->diag, usage)) != 0 ||
			   (rc = jobs_option(argc, argv, &i, &c->jobs, usage)) != 0) {
			if (rc < 0)
				return EXIT_USAGE;
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

static int cmd_build(int argc, char **argv, bool is_build, bool pdf)
{
	struct cli c = {.pdf = pdf, .lint = -1};
	int rc = parse_build_args(argc, argv, &c, is_build);
	if (rc >= 0)
		return rc;
	struct diag *d = diag_open(&c.diag);
	struct build_opts o = {
		.root = c.dir ? c.dir : ".",
		.output = c.output,
		.drafts = c.drafts,
		.write = is_build,
		.summary = c.diag.format == DIAG_TEXT,
		.against = c.against,
		.against_json = c.diag.format == DIAG_JSON,
		.against_github = c.diag.format == DIAG_GITHUB,
		.figures = c.figures,
		.jobs = c.jobs,
		/* check (CI) trusts no cache unless asked */
		.no_cache = is_build ? c.no_cache : c.no_cache || !c.cache,
		.verbose = c.verbose,
		.pdf = c.pdf,
		.lint = !is_build && (c.lint >= 0 ? c.lint == 1 : c.diag.strict),
		.no_claims = c.no_claims,
	};
	rc = site_build(&o, d);
	diag_free(d);
	return rc;
}

static int cmd_serve(int argc, char **argv)
{
	struct serve_opts o = {.port = 8000};
	const char *dir = NULL;
	int rc;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_serve, stdout);
			return EXIT_OK;
		} else if (strcmp(a, "--port") == 0 || str_has_prefix(a, "--port=")) {
			const char *v = a[6] == '=' ? a + 7 : ++i < argc ? argv[i] : NULL;
			char *end = NULL;
			long port = v ? strtol(v, &end, 10) : -1;
			if (!v || !*v || *end || port < 0 || port > 65535)
				return usage_error(usage_serve, "--port takes a number from 0 to 65535%s",
						   "");
			o.port = (unsigned)port;
		} else if (strcmp(a, "--host") == 0 || str_has_prefix(a, "--host=")) {
			o.host = a[6] == '=' ? a + 7 : ++i < argc ? argv[i] : NULL;
			if (!o.host || !*o.host)
				return usage_error(usage_serve, "%s needs an address such as 127.0.0.1",
						   "--host");
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (++i >= argc || !*argv[i])
				return usage_error(usage_serve, "%s needs a folder", a);
			o.build.output = argv[i];
		} else if (strcmp(a, "--drafts") == 0) {
			o.build.drafts = true;
		} else if (strcmp(a, "--strict") == 0) {
			o.strict = true;
		} else if (strcmp(a, "--no-cache") == 0) {
			o.build.no_cache = true;
		} else if (strcmp(a, "--no-claims") == 0) {
			o.build.no_claims = true;
		} else if ((rc = jobs_option(argc, argv, &i, &o.build.jobs, usage_serve)) != 0) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if (strcmp(a, "--figures") == 0 || str_has_prefix(a, "--figures=")) {
			const char *list = a[9] == '=' ? a + 10 : ++i < argc ? argv[i] : NULL;
			if (!list || !figure_formats(list, &o.build.figures))
				return usage_error(usage_serve, "--figures takes svg, png and pdf%s", "");
		} else if (a[0] == '-' && a[1]) {
			return usage_error(usage_serve, "unknown option '%s'", a);
		} else if (!dir) {
			dir = a;
		} else {
			return usage_error(usage_serve, "more than one project folder given ('%s')", a);
		}
	}
	o.build.root = dir ? dir : ".";
	return serve_run(&o);
}

static int cmd_clean(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_clean, stdout);
			return EXIT_OK;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (++i >= argc || !*argv[i])
				return usage_error(usage_clean, "%s needs a folder", a);
			out = argv[i];
		} else if (a[0] == '-' && a[1]) {
			return usage_error(usage_clean, "unknown option '%s'", a);
		} else if (!dir) {
			dir = a;
		} else {
			return usage_error(usage_clean, "more than one project folder given ('%s')", a);
		}
	}
	struct diag *d = diag_new(stderr, DIAG_TEXT, diag_want_colour(STDERR_FILENO));
	int rc = site_clean(dir ? dir : ".", out, d);
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
	if (dir && !*dir)
		return usage_error(usage_new, "%s", "name the folder to create");
	if (!dir)
		dir = ".";
	struct diag *d = diag_new(stderr, DIAG_TEXT, diag_want_colour(STDERR_FILENO));
	int rc = scaffold_new(dir, d);
	diag_free(d);
	return rc;
}

/* Flushes what a command printed: output that cannot be written (a full
 * disk, a closed pipe) is an I/O failure, not a success. */
static int finish_output(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	fprintf(stderr, "logdown: cannot write the output: %s\n", strerror(errno));
	return EXIT_IO;
}

static int cmd_diff(int argc, char **argv)
{
	const char *dirs[2] = {NULL, NULL}, *against = NULL;
	enum valuediff_format format = VALUEDIFF_TEXT;
	int n = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_diff, stdout);
			return EXIT_OK;
		} else if (strcmp(a, "--format") == 0 || str_has_prefix(a, "--format=")) {
			const char *f = a[8] == '=' ? a + 9 : ++i < argc ? argv[i] : NULL;
			if (f && strcmp(f, "text") == 0)
				format = VALUEDIFF_TEXT;
			else if (f && strcmp(f, "markdown") == 0)
				format = VALUEDIFF_MARKDOWN;
			else if (f && strcmp(f, "json") == 0)
				format = VALUEDIFF_JSON;
			else
				return usage_error(usage_diff,
						   "--format takes text, markdown or json, not '%s'",
						   f ? f : "nothing");
		} else if (strcmp(a, "--against") == 0 || str_has_prefix(a, "--against=")) {
			against = a[9] == '=' ? a + 10 : ++i < argc ? argv[i] : NULL;
			if (!against || !*against)
				return usage_error(usage_diff, "%s needs the built site's folder",
						   "--against");
		} else if (a[0] == '-' && a[1]) {
			return usage_error(usage_diff, "unknown option '%s'", a);
		} else if (n < 2) {
			dirs[n++] = a;
		} else {
			return usage_error(usage_diff, "more than two sites given ('%s')", a);
		}
	}
	if (against && n > 1)
		return usage_error(usage_diff,
				   "with --against, name one project folder, not '%s' too", dirs[1]);
	if (!against && n < 2)
		return usage_error(usage_diff, "%s", "name two built sites: logdown diff OLD NEW");
	struct diag *d = diag_new(stderr, DIAG_TEXT, diag_want_colour(STDERR_FILENO));
	bool colour = format == VALUEDIFF_TEXT && diag_want_colour(STDOUT_FILENO);
	int rc = against ? diffcmd_against(against, dirs[0] ? dirs[0] : ".", 0, format, colour,
					   stdout, d)
			 : diffcmd_run(dirs[0], dirs[1], format, colour, stdout, d);
	diag_free(d);
	rc = finish_output(rc);
	return rc == EXIT_IO ? DIFF_TROUBLE : rc;
}

/* The options of `logdown parse` into o: -1 to go on, else the exit
 * code (help shown, bad usage reported).  --parsers folders go in
 * *dirs, NULL-terminated; the caller frees *dirs. */
static int parse_args(int argc, char **argv, struct parse_opts *o, struct diag_opts *dopts,
		      const char ***dirs, size_t *ndirs)
{
	int rc;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_parse, stdout);
			return EXIT_OK;
		} else if ((rc = diag_option(a, dopts, usage_parse)) != 0) {
			if (rc < 0)
				return EXIT_USAGE;
		} else if (strcmp(a, "--json") == 0) {
			o->json = true;
		} else if (strcmp(a, "--list-columns") == 0) {
			o->list_columns = true;
		} else if (strcmp(a, "--suggest") == 0) {
			o->suggest = true;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (++i >= argc)
				return usage_error(usage_parse, "%s needs a file", a);
			o->output = argv[i];
		} else if (strcmp(a, "--name") == 0) {
			if (++i >= argc)
				return usage_error(usage_parse, "%s needs a parser name", a);
			o->name = argv[i];
		} else if (strcmp(a, "--parsers") == 0 || str_has_prefix(a, "--parsers=")) {
			const char *dir = a[9] == '=' ? a + 10 : NULL;
			if (!dir && ++i >= argc)
				return usage_error(usage_parse, "%s needs a folder", a);
			if (!dir)
				dir = argv[i];
			*dirs = xrealloc(*dirs, (*ndirs + 2) * sizeof **dirs);
			(*dirs)[(*ndirs)++] = dir;
			(*dirs)[*ndirs] = NULL;
		} else if (strcmp(a, "--csv") == 0) {
			if (++i >= argc)
				return usage_error(usage_parse, "%s needs a series name", a);
			o->csv = argv[i];
		} else if (strcmp(a, "--parser") == 0 || strcmp(a, "-p") == 0) {
			if (++i >= argc)
				return usage_error(usage_parse, "%s needs a parser name", a);
			o->parser = argv[i];
		} else if (str_has_prefix(a, "--parser=")) {
			o->parser = a + strlen("--parser=");
		} else if (a[0] == '-' && a[1]) {
			return usage_error(usage_parse, "unknown option '%s'", a);
		} else if (!o->file) {
			o->file = a;
		} else {
			return usage_error(usage_parse, "more than one file given ('%s')", a);
		}
	}
	if (!o->file || !*o->file)
		return usage_error(usage_parse, "%s", "name the result file to parse");
	if (o->parser && !*o->parser)
		return usage_error(usage_parse, "%s", "the parser name is empty");
	if ((o->output || o->name) && !o->suggest)
		return usage_error(usage_parse, "%s", "-o and --name go with --suggest");
	if (o->suggest && (o->json || o->csv || o->list_columns || o->parser))
		return usage_error(usage_parse, "%s",
				   "--suggest proposes a parser: it goes without --parser, --json, "
				   "--csv and --list-columns");
	if (o->name && !is_identifier(o->name))
		return usage_error(usage_parse, "--name '%s' is not a name (letters, digits, '_')",
				   o->name);
	return -1;
}


static int cmd_parse(int argc, char **argv)
{
	struct parse_opts o = {0};
	struct diag_opts dopts = {0};
	const char **dirs = NULL;
	size_t ndirs = 0;
	int rc = parse_args(argc, argv, &o, &dopts, &dirs, &ndirs);
	if (rc < 0) {
		o.parser_dirs = dirs;
		struct diag *d = diag_open(&dopts);
		rc = parsecmd_parse(&o, stdout, d);
		diag_free(d);
		rc = finish_output(rc);
	}
	free(dirs);
	return rc;
}

static int cmd_parsers(int argc, char **argv)
{
	struct diag_opts dopts = {0};
	int rc;
	bool markdown = false;
	const char **names = xcalloc((size_t)argc + 1, sizeof *names);
	size_t n = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			free(names);
			fputs(usage_parsers, stdout);
			return EXIT_OK;
		}
		if (strcmp(argv[i], "--markdown") == 0) {
			markdown = true;
			continue;
		}
		if ((rc = diag_option(argv[i], &dopts, usage_parsers)) != 0) {
			if (rc < 0) {
				free(names);
				return EXIT_USAGE;
			}
			continue;
		}
		if (argv[i][0] == '-') {
			free(names);
			return usage_error(usage_parsers, "unknown option '%s'", argv[i]);
		}
		names[n++] = argv[i];
	}
	struct diag *d = diag_open(&dopts);
	if (n || markdown)
		rc = parsecmd_describe(stdout, names, n, markdown, d);
	else
		rc = parsecmd_list(stdout, d);
	diag_free(d);
	free(names);
	return finish_output(rc);
}

int main(int argc, char **argv)
{
	static const char *const commands[] = {"build", "check", "new", "parse", "parsers", "pdf", "serve",
					       "clean", "diff", "help", NULL};
	if (argc < 2)
		return usage_error(usage_main, "%s", "no command given");
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char *args[] = {(char *)"--help"};
			if (strcmp(argv[2], "build") == 0 || strcmp(argv[2], "check") == 0)
				return cmd_build(1, args, strcmp(argv[2], "build") == 0, false);
			if (strcmp(argv[2], "pdf") == 0)
				return cmd_build(1, args, true, true);
			if (strcmp(argv[2], "new") == 0)
				return cmd_new(1, args);
			if (strcmp(argv[2], "parse") == 0)
				return cmd_parse(1, args);
			if (strcmp(argv[2], "parsers") == 0)
				return cmd_parsers(1, args);
			if (strcmp(argv[2], "serve") == 0)
				return cmd_serve(1, args);
			if (strcmp(argv[2], "clean") == 0)
				return cmd_clean(1, args);
			if (strcmp(argv[2], "diff") == 0)
				return cmd_diff(1, args);
		}
		fputs(usage_main, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("logdown %s\n", LOGDOWN_VERSION);
		return EXIT_OK;
	}
	if (strcmp(cmd, "build") == 0)
		return cmd_build(argc - 2, argv + 2, true, false);
	if (strcmp(cmd, "check") == 0)
		return cmd_build(argc - 2, argv + 2, false, false);
	if (strcmp(cmd, "pdf") == 0)
		return cmd_build(argc - 2, argv + 2, true, true);
	if (strcmp(cmd, "new") == 0)
		return cmd_new(argc - 2, argv + 2);
	if (strcmp(cmd, "parse") == 0)
		return cmd_parse(argc - 2, argv + 2);
	if (strcmp(cmd, "parsers") == 0)
		return cmd_parsers(argc - 2, argv + 2);
	if (strcmp(cmd, "serve") == 0)
		return cmd_serve(argc - 2, argv + 2);
	if (strcmp(cmd, "clean") == 0)
		return cmd_clean(argc - 2, argv + 2);
	if (strcmp(cmd, "diff") == 0)
		return cmd_diff(argc - 2, argv + 2);
	const char *near = closest_name(cmd, commands);
	if (near) {
		fprintf(stderr, "logdown: unknown command '%s' (did you mean '%s'?)\n\n", cmd, near);
		fputs(usage_main, stderr);
		return EXIT_USAGE;
	}
	return usage_error(usage_main, "unknown command '%s'", cmd);
}
