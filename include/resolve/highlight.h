/* highlight.h: code highlighting with GtkSourceView's language files.
 *
 * A language is a GtkSourceView .lang file (XML: contexts with match,
 * start and end regexes, keywords, includes of other languages'
 * contexts), read with expat and run by a small engine on PCRE2 the way
 * GtkSourceView runs it: line by line, a stack of open contexts, the
 * innermost context's end and its children's patterns tried at each
 * place, the leftmost match winning (the end first on a tie).  The
 * files are Debian's (libgtksourceview-5-common), compiled into the
 * binary, plus logdown's own in lang/ for what GtkSourceView lacks
 * (console sessions, logs).
 *
 * The result is a class per byte of the code, from a small fixed set
 * that GtkSourceView's def.lang styles map onto; the page writes them
 * as <span class="hl-NAME"> and the PDF colours them alike.
 *
 * Threads: languages are loaded once under a lock and read-only after;
 * hl_classes() may run in many threads. */
#ifndef LOGDOWN_HIGHLIGHT_H
#define LOGDOWN_HIGHLIGHT_H

#include <stdbool.h>
#include <stddef.h>

enum hl_class {
	HL_NONE,
	HL_KEYWORD,
	HL_TYPE,
	HL_STRING,
	HL_SPECIAL,
	HL_COMMENT,
	HL_NUMBER,
	HL_CONSTANT,
	HL_BUILTIN,
	HL_FUNCTION,
	HL_VARIABLE,
	HL_PREPROCESSOR,
	HL_OPERATOR,
	HL_ERROR,
	HL_WARNING,
	HL_INSERTED,
	HL_DELETED,
	HL_HEADING,
	HL_NCLASSES
};

/* "keyword" for HL_KEYWORD (the page's class is "hl-keyword"); "" for
 * HL_NONE.  Constant. */
const char *hl_class_name(enum hl_class c);

struct hl_lang;

/* The language a fence's info string names (case-insensitive, aliases
 * such as "bash" and "py" included), loaded on first use; NULL when
 * logdown has none.  *plain is set when the name is one that means
 * plain text on purpose ("text", "txt", "plain", "none"): NULL then,
 * and no warning is due. */
const struct hl_lang *hl_find(const char *name, bool *plain);

/* The names hl_find() knows, aliases included, for a did-you-mean.
 * NULL-terminated, static. */
const char *const *hl_names(void);

/* The class of each byte of text[0..len), as a new array of len bytes
 * (enum hl_class values).  Bounded: each regex match runs under limit
 * pcre_match; when one hits it, the rest stays plain and *stop (may be
 * NULL) gets what was hit ("the match limit", re_error()) and *stop_line
 * the 1-based line where highlighting stopped; else *stop is NULL. */
unsigned char *hl_classes(const struct hl_lang *l, const char *text, size_t len,
			  const char **stop, int *stop_line);

/* For many short texts in a row (a log's lines, a call each): the
 * setup hl_classes() does each call (PCRE2's match data and JIT stack,
 * which cost more than colouring a line) done once.  One thread's.
 * hl_matcher_new(NULL) is NULL; hl_matcher_classes() is hl_classes()
 * with l's, a highlighting stopped by a limit leaving the rest plain
 * silently; caller frees the array.  Free with hl_matcher_free(). */
struct hl_matcher;
struct hl_matcher *hl_matcher_new(const struct hl_lang *l);
unsigned char *hl_matcher_classes(struct hl_matcher *m, const char *text, size_t len);
void hl_matcher_free(struct hl_matcher *m);

/* For tests and the fuzzer: reads a .lang file from memory as language
 * `id` (its <language id> must be that); NULL when it is no language
 * file, or id is a built-in language.  It replaces (and frees) what an
 * earlier call loaded under the same id, so a fuzzer's inputs do not
 * pile up; else it stays loaded until the process ends. */
const struct hl_lang *hl_load_text(const char *id, const char *xml, size_t len);

#endif
