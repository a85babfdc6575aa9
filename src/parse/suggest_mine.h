/* suggest_mine.h: the templates the miner (suggest.c) found in a log,
 * which the writer (suggest_yaml.c) makes a parser definition of.
 * Private to parse/. */
#ifndef LOGDOWN_SUGGEST_MINE_H
#define LOGDOWN_SUGGEST_MINE_H

#include "parse/suggest.h"

/* Lines longer than this, or of more tokens, are passed over: no
 * template of a log is that long, and a dump line is no parser's. */
#define SG_MAX_LINE 2000
#define SG_MAX_TOKENS 160

/* One line template: the lines whose constant tokens are the same. */
struct sg_tmpl {
	char *key;           /* the tokens, each slot a marker */
	size_t count;        /* lines of it (in the sample) */
	long first_line;     /* its first line; 0 when past the sample's head */
	unsigned long long first_off; /* its first line's byte offset */
	char *example;       /* its first line, normalised */
	char *above;         /* the non-blank line above it, or NULL */
	struct sg_tok *toks; /* the example's tokens (into example) */
	size_t ntok;
	size_t nslots;       /* numbers, durations and timestamps (and
			      * word slots) */
	size_t nnum;         /* numbers and durations */
	char **names;        /* a name per slot, made unique in the line */
	size_t order;        /* when it was first seen */
	/* Word slots (sg_merge_words()): per token, 0 a constant, SG_WSLOT
	 * a word that varies, SG_WLEVEL one whose words are log levels;
	 * NULL when the template has none.  wvals: the words each word
	 * slot takes, in order, for the comment ("train, val"). */
	unsigned char *wslot;
	char **wvals;
};

#define SG_WSLOT 1
#define SG_WLEVEL 2

/* Is token k of x a slot: a number, a duration, a timestamp or a word
 * slot? */
static inline bool sg_slot_at(const struct sg_tmpl *x, size_t k)
{
	return sg_is_slot(x->toks[k].kind) || (x->wslot && x->wslot[k]);
}

/* A table: a header line, then a ruler or rows of cells. */
struct sg_table {
	char *name;
	char *header;  /* the header line, normalised */
	char *row;     /* its first row */
	long line;     /* the header's line; 0 when past the head */
	unsigned long long off;
	size_t rows;
	/* A table aligned with single blanks too, which no `tables:` entry
	 * reads (its cells are apart by two blanks or more): proposed as a
	 * series, a column per header cell (cols), each row's cells a
	 * number ('n') or a word ('w') as shape says. */
	char **cols;
	char *shape;
};

struct sg_mine {
	struct sg_tmpl **v; /* in first-seen order */
	size_t n, cap;
	size_t *slot;       /* open addressing: index + 1, 0 empty */
	size_t hcap;
	struct sg_table *tables;
	size_t ntables;
	size_t lines;       /* non-blank lines read */
	size_t numbered;    /* of them with a number */
	char *first;        /* the first non-blank line */
	bool all_same;      /* every non-blank line is `first` */
	long nul_line;      /* the line of a NUL byte (a binary file), else 0 */
	const char *head;   /* the text detect sees: the file's first MiB */
	size_t head_len;
	bool sampled;       /* a sample of a big file, not the whole */
};

/* Writes the definition of m's templates, named name, into out (yaml,
 * items and counts); detect checked against set's examples. */
void sg_write(struct sg_mine *m, const char *shown, const char *name,
	      const struct parser_set *set, struct suggestion *out);

/* Is w a word that names nothing by itself ("in", "of", "the")? */
bool sg_stopword(const char *s, size_t n);

/* Is s[0..n) a log level (INFO, WARNING, ...)? */
bool sg_log_level(const char *s, size_t n);

/* Merges the templates of m that differ in a word or two into one with
 * word slots, in the manner of Drain (suggest_words.c). */
void sg_merge_words(struct sg_mine *m);

#endif
