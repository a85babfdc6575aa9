/* bib.h: a bibliography, read from BibTeX (.bib) or CSL-JSON (.json).
 *
 * Every entry comes out in the same shape, its fields as plain UTF-8
 * text: BibTeX's braces, accents ({\"u}, \'e), dashes (--) and ties (~)
 * are turned into the characters they stand for, @string macros and
 * the month names (jan ... dec) are expanded, and the names of
 * `author` and `editor` are split at " and " into family and given
 * names.  The reader is our own (docs/internals.md, Dependencies: why
 * not libbtparse): each problem is a diagnostic at its file:line:col,
 * after which it goes on at the next entry. */
#ifndef LOGDOWN_BIB_H
#define LOGDOWN_BIB_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct bib_name {
	char *family; /* "Williams", "van Beethoven", "{NVIDIA}" as "NVIDIA" */
	char *given;  /* "Samuel"; "" for a corporate name */
};

struct bib_entry {
	char *key;  /* as written: "williams2009roofline" */
	char *type; /* lowercase: "article", "inproceedings"; CSL's type */
	struct loc at; /* the entry's key (file: the bib's own copy) */
	struct bib_name *authors;
	size_t nauthors;
	struct bib_name *editors;
	size_t neditors;
	bool et_al; /* "and others" ended the authors */
	/* each NULL when absent */
	char *title;
	char *container; /* journal, booktitle, or CSL's container-title */
	char *year;
	char *volume;
	char *number;
	char *pages;
	char *publisher; /* publisher, school, institution or organization */
	char *doi;       /* without "https://doi.org/" */
	char *url;
	char *eprint;    /* "arXiv:2204.02311" */
};

struct bib {
	struct bib_entry *e;
	size_t n;
	char **files; /* the names its entries' locations point into */
	size_t nfiles;
};

/* Reads the BibTeX in text[0..len) into b, appending; `file` names it
 * in diagnostics (copied).  @string macros apply from where they are
 * defined to the end of this text; @comment and @preamble are skipped.
 * A syntax error is reported at its place and the entry is dropped; a
 * key already in b is a warning, and the first entry wins.  Returns
 * false when an error was reported. */
bool bib_read_bibtex(struct bib *b, const char *text, size_t len, const char *file,
		     struct diag *d);

/* Reads a CSL-JSON file (an array of items, as Zotero and Pandoc write
 * it) at path into b, appending; `shown` names it.  False after an
 * error, reported at its line. */
bool bib_read_csl(struct bib *b, const char *path, const char *shown, struct diag *d);

/* Reads the file at path by its name: .json is CSL-JSON, anything else
 * BibTeX.  A file that cannot be read is an error at `at` (the key
 * that names it). */
bool bib_read_file(struct bib *b, const char *path, const char *shown, struct loc at,
		   struct diag *d);

/* The entry with key, or NULL.  Borrowed from b. */
const struct bib_entry *bib_find(const struct bib *b, const char *key);

/* Appends to out the BibTeX text s[0..n) as plain text: braces
 * dropped, accents and escapes made characters, -- and --- dashes, ~ a
 * no-break space. */
struct buf;
void bib_plain(struct buf *out, const char *s, size_t n);

/* Frees what b holds; b itself may be reused after. */
void bib_clear(struct bib *b);

#endif
