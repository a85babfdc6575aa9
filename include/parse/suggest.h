/* suggest.h: `logdown parse FILE --suggest`: a parser definition
 * proposed for a log no parser reads, from the line templates of the
 * file.
 *
 * A log is a few line templates repeated with numbers in their slots
 * ("Step=100, Loss=2.3", "Step=200, Loss=2.1").  The miner (suggest.c)
 * cuts each line into tokens (words, numbers, durations, timestamps,
 * blanks, punctuation), groups the lines whose constant tokens are the
 * same (in the manner of Drain: the key of a line is its tokens with
 * every number, duration and timestamp made a slot), names each slot
 * from the words next to it in its line (suggest_words.c first merges
 * the templates that differ in a word or two, a level, a rank, a
 * phase=train/val, into one whose word is a slot too), and finds
 * tables (a header
 * line then a ruler or pipe rows, or rows of a word and numbers aligned
 * under a header of words).  The writer (suggest_yaml.c) makes a parser
 * definition of them: a template seen twice or more is a series
 * (ordered by rows, at most 24), once a field per number (at most 80;
 * what the caps leave out is named in a comment), a table a `tables:`
 * entry (a series of its header's columns when single blanks part its
 * cells), and `detect` the most distinctive template that claims this
 * file and no built-in parser's example, else the file's first line:
 * every proposal detects its file.  Deterministic: the same bytes give
 * the same YAML.
 *
 * A big file is sampled (suggest_file()): its first and last MiB and 32
 * blocks of 64 KiB spread between, each cut at line ends. */
#ifndef LOGDOWN_SUGGEST_H
#define LOGDOWN_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"

struct parser_set;

/* One token of a line. */
enum sg_kind {
	SG_WORD,  /* letters, digits after them, '_': "Loss", "fc1", "eval_loss" */
	SG_NUM,   /* -12, 3.5, 1e-3, 1,234.5 */
	SG_DUR,   /* 01:49, 1:02:03.5 */
	SG_TIME,  /* 2024-03-30, 2024-03-30 14:09:43,663, 2024-04-08T09:03:33Z */
	SG_SPACE, /* a run of blanks */
	SG_PUNCT, /* a run of one other character: ":", "=====" */
};

struct sg_tok {
	enum sg_kind kind;
	const char *s;
	size_t n;
};

/* Cuts s[0..n) into at most cap tokens; returns how many there are
 * (more than cap when the line holds more: only cap are written). */
size_t suggest_tokenise(const char *s, size_t n, struct sg_tok *out, size_t cap);

/* Is the token a slot (a number, a duration or a timestamp)? */
static inline bool sg_is_slot(enum sg_kind k)
{
	return k == SG_NUM || k == SG_DUR || k == SG_TIME;
}

/* The names suggest gives the slots of the line s[0..n), in order, as
 * a NULL-terminated list ("Step=100, Loss=2.3" gives step, loss).
 * Caller frees with strv_free(). */
char **suggest_names(const char *s, size_t n);

/* s[0..n) as a PCRE2 pattern that matches it literally: the
 * metacharacters \ ^ $ . | ? * + ( ) [ ] { } escaped, a control byte or
 * a byte of invalid UTF-8 as \xHH. */
void suggest_put_literal(struct buf *b, const char *s, size_t n);

/* s as a YAML single-quoted scalar ('it''s'). */
void suggest_put_quoted(struct buf *b, const char *s);

/* One proposal, for the summary `logdown parse FILE` shows when no
 * parser claims it. */
struct sg_item {
	char *name;    /* "loss", or "train.loss" for a series' column */
	char *value;   /* its first value, as written */
	long line;     /* its first line (0: in the sample, past the head) */
	size_t rows;   /* a series' rows (in the sample); 0 for a field */
};

struct suggestion {
	char *yaml;            /* the parser definition */
	struct sg_item *items; /* the proposals, best first */
	size_t nitems;
	size_t nfields, nseries, ntables;
};

/* Mines text[0..len) (the whole file; shown names it in messages) and
 * writes a definition named name into *out.  The detect pattern is
 * checked against the examples of the parsers in set (NULL: none).
 * A binary text, one of a single line, of one line repeated, or
 * without numbers, is an error through d (at shown): false then. */
bool suggest_text(const char *text, size_t len, const char *shown, const char *name,
		  const struct parser_set *set, struct suggestion *out, struct diag *d);

/* The same for the file at path, sampled when it is big.  An unreadable
 * file is an error too. */
bool suggest_file(const char *path, const char *name, const struct parser_set *set,
		  struct suggestion *out, struct diag *d);

void suggestion_free(struct suggestion *s);

#endif
