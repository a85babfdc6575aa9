/* diag.h: compiler-style diagnostics.
 *
 *   content/hw07.md:23:14: error: run 'cs1024' is not defined
 *      23 | The final loss was {{ cs1024.final_loss }}.
 *         |                       ^~~~~~
 *
 * Every problem is reported where it is found and counted; the caller
 * keeps going and decides the exit status from the counts at the end. */
#ifndef LOGDOWN_DIAG_H
#define LOGDOWN_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses of the logdown command (SPEC section 8). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_CONTENT = 1, /* the content has errors */
	EXIT_USAGE = 2,   /* bad command-line usage */
	EXIT_IO = 3,      /* an I/O or internal failure */
	EXIT_BUSY = 4,    /* another build is writing the output folder */
};

/* A place in a source file.  line and col are 1-based; 0 means unknown
 * (col 0: the whole line; line 0: the whole file).  len is the width of
 * the caret underline (0 or 1: a single caret).  file is borrowed and
 * must outlive the diagnostic call. */
struct loc {
	const char *file;
	int line;
	int col;
	int len;
};

enum diag_format {
	DIAG_TEXT,   /* file:line:col: error: message, the line, a caret */
	DIAG_GITHUB, /* ::error file=...,line=...,col=...::message */
	DIAG_JSON,   /* one JSON object per line */
};

struct diag;

/* A diagnostics sink writing to out (stderr when NULL).  Colour is used
 * when colour is true; diag_want_colour() tells whether it should be.
 * Caller frees with diag_free(). */
struct diag *diag_new(FILE *out, enum diag_format format, bool colour);

/* s as a GitHub workflow command's message (property false) or a
 * property's value (true): %, CR and LF escaped (and ':' and ',' in a
 * property), other control characters '?', invalid UTF-8 U+FFFD. */
void diag_put_github(FILE *out, const char *s, bool property);
void diag_free(struct diag *d);

/* A sink for one thread's share of the work: it writes nothing but keeps
 * each diagnostic (with the source line it quotes) until diag_flush(),
 * so that a parallel build reports in the same order whatever the
 * number of threads.  It has the parent's format, colour and strictness
 * and quotes the sources registered with the parent, which must not
 * change (nor report anything) while the child is in use.  Caller frees
 * with diag_free(). */
struct diag *diag_new_deferred(const struct diag *parent);
/* The same, but quoting no source registered with the parent (each
 * quoted file is read from disk): usable on a thread while the parent
 * changes, as long as it is flushed after. */
struct diag *diag_new_apart(const struct diag *parent);
/* The same, but a quoted line is kept as a pointer into its source, not
 * copied: every source it quotes (its own and its parent's) must outlive
 * its diag_flush(). */
struct diag *diag_new_deferred_borrowing(const struct diag *parent);
/* Writes what child kept to parent, in order, counting it there (to a
 * deferred parent: kept there, to be written when it is flushed); child
 * is then empty (its counts zero).  Single-threaded. */
void diag_flush(struct diag *child, struct diag *parent);

/* Colour is wanted when fd is a terminal and NO_COLOR is unset or empty. */
bool diag_want_colour(int fd);

/* With strict set, warnings are reported and counted as errors. */
void diag_set_strict(struct diag *d, bool strict);

/* Registers the text of a source file so that diagnostics can quote its
 * lines without reading it again.  text is borrowed: it must outlive d,
 * or be unregistered with diag_forget_source().  Unregistered files are
 * read from disk when a diagnostic needs one of their lines; text NULL
 * says not to (a file too big to hold): its lines are not quoted. */
void diag_add_source(struct diag *d, const char *file, const char *text, size_t len);
void diag_forget_source(struct diag *d, const char *file);

void diag_error(struct diag *d, struct loc at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warning(struct diag *d, struct loc at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A note adds context to the diagnostic before it; it is not counted. */
void diag_note(struct diag *d, struct loc at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

size_t diag_errors(const struct diag *d);
size_t diag_warnings(const struct diag *d);

/* Convenience for a location with no column. */
static inline struct loc loc_line(const char *file, int line)
{
	struct loc l = {file, line, 0, 0};
	return l;
}

#endif
