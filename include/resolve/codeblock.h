/* codeblock.h: a fenced code block as the page and the PDF show it.
 *
 * Its info string names the language and may carry line numbers and
 * highlighted lines, in any of the ways Pandoc and MkDocs users write
 * them:
 *
 *     ```python
 *     ```{.python .numberLines startFrom="10" hl_lines="3-5"}
 *     ```python {.numberLines hl_lines="1 3-5"}
 *     ```python numberLines hl_lines="2"
 *
 * (the last only when every word after the language is one of these:
 * "```ruby startline=3 $%@#$" stays a language and ignored words, as
 * GFM leaves them).
 * startFrom (or linenums, MkDocs' name) numbers the lines from its
 * value; hl_lines counts the block's lines from 1 whatever startFrom
 * says, as MkDocs does.  The code is coloured by resolve/highlight.h. */
#ifndef LOGDOWN_CODEBLOCK_H
#define LOGDOWN_CODEBLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct code_block {
	char *lang;             /* as written ("py"), or NULL */
	unsigned char *classes; /* enum hl_class a byte of the code; NULL: plain */
	bool numbered;          /* line numbers shown */
	long start;             /* the first line's number */
	unsigned char *marked;  /* a byte a line, 1 where hl_lines names it; NULL: none */
	size_t nlines;          /* the code's lines */
};

/* Reads a fence's info string (info: as cmark hands it; at: where it
 * starts in the .md) for the code (NUL-terminated): its language,
 * coloured, and its attributes.  Problems go to d at their column: an
 * unknown language or class and a highlighted line past the end are
 * warnings (the code shows, as written); an unknown attribute (with
 * did-you-mean), a malformed hl_lines or startFrom are errors (what
 * the author asked for cannot be shown).
 * NULL when the block is plain text without numbers or highlighted
 * lines (cmark writes it as it is).  Caller frees with
 * code_block_free(). */
struct code_block *code_block_read(const char *info, const char *code, struct loc at,
				   struct diag *d);

void code_block_free(struct code_block *b);

/* Whether info ("{.python .numberLines}", "{hl_lines=2}") is a code
 * block's attributes rather than a directive's name ("{log}"). */
bool code_block_attrs(const char *info);

#endif
