/* provenance.h: where every value came from, and the pages that show it.
 *
 * Each result file a report uses is copied into _site/<report>/logs/ and
 * gets an HTML view with an anchor per line (#L<n>).  Values and table
 * cells link to their line there; a computed value names its inputs in
 * a tooltip.
 *
 * Names.  A file gets its name below logs/ from its canonical path
 * (after symbolic links), the first time it is registered:
 *
 *   content/hw07/logs/cerebras/bs512.log  ->  logs/cerebras/bs512.log
 *   content/hw07/bs512.log                ->  logs/bs512.log
 *   shared/x.log (elsewhere in the project) -> logs/_/shared/x.log
 *
 * that is: inside the report's folder, its path there with a leading
 * "logs/" dropped (so it is not doubled); elsewhere, "_/" and its path
 * from the project root.  Nothing is ever written outside
 * <report>/logs/.  When a name is taken (content/hw07/x.log and
 * content/hw07/logs/x.log both used), the later file gets its "_/" form,
 * or failing that a numbered one ("x~2.log"); registration order is the
 * report's, so this too is the same on every build.
 *
 * Log pages.  A standalone page in the site's theme (ld-log, ld-line,
 * ld-lineno): one <span class="ld-line" id="L<n>"> per line, whose
 * number links to itself, with each value the report links to marked
 * in it (provenance_href_text()).  Its heading names the report and the
 * file's path; a line under it gives the line count and the size.  The text is HTML-escaped; invalid UTF-8 shows
 * as U+FFFD; terminal escape sequences (ANSI colours, titles) are
 * dropped; CRs at the end of a line (CRLF) show nothing, a CR inside one
 * (a redrawn progress bar) shows as ␍, other control characters as their
 * control pictures (␀, ␛); tabs stay.  Line numbers are those of the
 * parsers: a line ends in '\n', a last line without one counts.
 *
 * Large logs.  A log of at most PROVENANCE_FULL_BYTES and
 * PROVENANCE_FULL_LINES is shown whole.  A larger one gets an abridged
 * view, so that a 100 MB log gives a page of well under a megabyte: the
 * first PROVENANCE_HEAD lines, every line the report links to with
 * PROVENANCE_CONTEXT lines around it, the last PROVENANCE_TAIL lines,
 * and between them a line "… lines A–B are in the raw file" linking to
 * the raw copy.  Anchors keep the log's own numbers.  If the shown lines
 * would pass PROVENANCE_SHOWN_MAX, the context shrinks (20, 5, 1, 0);
 * the linked lines are always shown.  There, a line is cut after
 * PROVENANCE_LINE_MAX bytes with a note of how many more the raw file
 * holds.  Files are streamed in 4 MiB chunks, never read whole: two
 * passes, one counting lines, one writing the view.
 *
 * Output is deterministic: files are written in name order, and a page
 * depends only on the file, the lines linked to (as a set), the slug and
 * site_root. */
#ifndef LOGDOWN_PROVENANCE_H
#define LOGDOWN_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

#define PROVENANCE_FULL_BYTES (2L << 20) /* 2 MiB */
#define PROVENANCE_FULL_LINES 20000L
#define PROVENANCE_HEAD 200L
#define PROVENANCE_TAIL 50L
#define PROVENANCE_CONTEXT 20L
#define PROVENANCE_SHOWN_MAX 10000L
#define PROVENANCE_LINE_MAX 4096L

struct buf;
struct outdir;
struct provenance;

/* The provenance of one report.  report_dir is the report's source
 * folder, root_real the canonical project root.  Caller frees with
 * provenance_free(). */
struct provenance *provenance_new(const char *report_dir, const char *root_real);
void provenance_free(struct provenance *p);

/* The page of `file` (a run's file, as run_file() shows it) relative to
 * the report's page, for a link to line `line`: "logs/bs512.log.html#L52"
 * appended to b; line 0 (a computed value) gives no fragment.  The name
 * is percent-encoded (only letters, digits, "-._~/" stay), so the text
 * needs no HTML escaping.  Registers the file (and the line, so that a
 * view of a very large log keeps it). */
void provenance_href(struct provenance *p, struct buf *b, const char *file, long line);

/* Like provenance_href(), for a value written `text` (len bytes, as the
 * file writes it) on that line: the fragment names the value's mark on
 * the page, "#L52.1", and the page shows the text inside the line as
 * <mark class="ld-mark" id="L52.1">, k in "L52.k" counting the
 * different texts linked to on line 52 in the order the report first
 * links them.  The mark is the text's first place in the line with no
 * letter, digit or point beside it (so "512" is not marked inside
 * "512000"), else its first place; a text the line does not hold (a
 * value the parser rewrote) gets an empty mark at the line's start, so
 * that the link still lands there.  A text of several lines, or none,
 * gives the plain "#L52". */
void provenance_href_text(struct provenance *p, struct buf *b, const char *file, long line,
			  const char *text, size_t len);

/* The report's title, for its log pages: their <title> and heading
 * name it and the file's path in the project ("content/hw07/logs/a.log
 * — HW07").  Copied; NULL or "" leaves it out. */
void provenance_set_title(struct provenance *p, const char *title);

/* Asked by provenance_write() before it copies a file (open at fd, its
 * canonical path real) to rel below the output: true when the previous
 * output's copy stays in its place instead (the keeper checked it and
 * kept it: site/keepcopy.c), or a copy of that file made earlier was
 * put at rel (site/earlycopy.c), and nothing is copied. */
struct provenance_keeper {
	bool (*keep)(void *ctx, const char *rel, int fd, const char *real);
	void *ctx;
};
/* Sets (or with NULL, unsets) the keeper; it must outlive p's writes. */
void provenance_set_keeper(struct provenance *p, const struct provenance_keeper *k);

/* The build cache (or NULL) where a log page finds the lines of an
 * unchanged log counted before (cache_fd_lines_known()) and leaves
 * them; it must outlive p's writes. */
struct cache;
void provenance_set_cache(struct provenance *p, struct cache *c);

/* Registers file as used without a particular line (a {log} excerpt's
 * run, a table's run). */
void provenance_use(struct provenance *p, const char *file);

/* The name of file below the report's logs/ folder ("cerebras/bs512.log",
 * not encoded), registering it.  Borrowed: valid until provenance_free(). */
const char *provenance_name(struct provenance *p, const char *file);

/* When file is a Jupyter notebook, whose runs read the log its cells
 * printed (parse/notebook.h), the cell of that log's line `line` and
 * the line in the cell's output; false for any other file.  Its page
 * then shows the outputs cell by cell, each line numbered in its cell
 * (the anchors #L<n> keep the log's numbers), and its raw copy is the
 * notebook. */
bool provenance_cell(struct provenance *p, const char *file, long line, int *cell,
		     long *cell_line);

/* Appends one line of a result file (without its '\n') as HTML text,
 * as the log pages show it (see "Log pages" above): for excerpts that
 * should read the same. */
void provenance_put_text(struct buf *b, const char *text, size_t n);
/* The escaping behind it, for any text from a result file: & < > (and,
 * with attr, " and ') as entities, terminal escape sequences dropped,
 * control characters as their symbols, invalid UTF-8 as U+FFFD. */
void provenance_escape(struct buf *b, const char *text, size_t n, bool attr);

/* Log lines coloured as the `log` language (resolve/highlight.h: time
 * stamps, levels, errors and warnings, numbers), on the log pages and
 * in {log} excerpts alike.  provenance_log_matcher() colours with that
 * language, one line after another (NULL if it failed to load; free
 * with hl_matcher_free()); provenance_log_classes() a class a byte of
 * text[0..n) (a terminal's escape sequences left plain, as they are
 * dropped whole), or NULL for none, caller frees; and
 * provenance_put_coloured() appends the text escaped as
 * provenance_escape() does, each run of a class in <span
 * class="hl-NAME">. */
struct hl_matcher;
struct hl_matcher *provenance_log_matcher(void);
unsigned char *provenance_log_classes(struct hl_matcher *m, const char *text, size_t n);
void provenance_put_coloured(struct buf *b, const char *text, size_t n, const unsigned char *cls);

/* Appends the attribute that widens the line-number column of a log's
 * <pre> for numbers up to `widest`: style="--ld-digits:5" when they
 * have more than the 3 digits the stylesheet makes room for by
 * default, nothing otherwise.  Excerpts and log pages alike. */
void provenance_put_digits(struct buf *b, long widest);

/* Writes, for every registered file, the raw copy and its HTML view
 * into the output: <report>/logs/<name> and <name>.html, through o (NULL
 * when checking: nothing written).  site_root is the "../" prefix from
 * the report's page to the site root, as report_root_prefix(slug) gives
 * it ("../" for "hw07"); a log page adds one "../" per folder it lies
 * below the report's page (so logs/cerebras/bs512.log.html links to
 * ../../../static/logdown.css).  An absolute site_root ("/", or with
 * "://") is used as it is.  A file outside the project (the run loader
 * never lets one through) is an error, never copied.  Returns false on
 * an I/O error, reported through d. */
bool provenance_write(struct provenance *p, struct outdir *o, const char *slug,
		      const char *site_root, struct diag *d);

#endif
