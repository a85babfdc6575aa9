/* parser.h: a parser as its definition loaded it (parserdef.c), which
 * detection and the scanner read.  Private to parse/: logparse.h keeps
 * struct parser opaque. */
#ifndef LOGDOWN_PARSE_PARSER_H
#define LOGDOWN_PARSE_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcre2.h>

#include "base/diag.h"
#include "parse/logparse.h"
#include "parse/structured.h"
#include "parse/valuetype.h"

enum pformat { FMT_TEXT, FMT_JSON, FMT_YAML, FMT_CSV, FMT_XML, FMT_JUNIT, FMT_TFEVENTS, FMT_DLLOGGER };
/* The format's name as a definition writes it (`format: json`). */
const char *format_name(enum pformat f);

/* What a binary file is told: the formats logdown reads. */
#define FORMATS_LIST                                                                         \
	"text logs, JSON, JSON Lines, YAML, CSV and TSV, XML and Jupyter notebooks, and of " \
	"binary files TensorBoard event files"
#define FORMATS_READ "logdown reads " FORMATS_LIST

/* Whether a parser of format f reads binary files.  The text formats
 * (a log, JSON, YAML, CSV) refuse a file with a NUL byte in its first
 * 64 KiB, saying so with FORMATS_READ; a format of binary records (a
 * TensorBoard event file) answers true here and is handed the file. */
static inline bool format_reads_binary(enum pformat f)
{
	switch (f) {
	case FMT_TEXT:
	case FMT_JSON:
	case FMT_YAML:
	case FMT_CSV:
	case FMT_XML:
	case FMT_JUNIT:
	case FMT_DLLOGGER:
		return false;
	case FMT_TFEVENTS:
		return true;
	}
	return false;
}

struct pattern {
	char *src;
	size_t len;
	struct loc loc; /* the pattern's scalar in the definition */
	pcre2_code *code;
	bool jit;
	char *lit; /* bytes every match contains (the prefilter), or NULL */
	size_t litlen;
	size_t rare1, rare2; /* the offsets of lit's two rarest bytes */
	bool lit_prefix;     /* every match starts with lit */
	bool never;          /* wants blanks after '^': warned about at load */
};

/* pick: sum and count take every match rather than one. */
enum field_agg { AGG_NONE, AGG_SUM, AGG_COUNT };

struct pfield {
	char *name; /* "*": each match names its field with group "name" */
	struct loc loc;
	struct pattern pat;
	bool first;
	enum field_agg agg;
	/* sum and count: a line it matches starts them again (code NULL:
	 * none), as gtest's --gtest_repeat starts each iteration's banner */
	struct pattern reset;
	enum vtype type;
	int group; /* -1: the first group that took part (the whole match without groups) */
	int name_group, value_group;
	char *def; /* default: its text, or NULL */
	size_t def_len;
	/* value: what a match gives, whatever it captured (has_value);
	 * NULL with has_value: a match makes the field missing. */
	bool has_value;
	char *value;
	size_t value_len;
	/* A field given as a list of alternatives is one pfield each, one
	 * after another: the first has nalts, the others alt. */
	size_t nalts;
	bool alt;
};

struct pseries {
	char *name;
	struct loc loc;
	struct pattern pat;
	char **cols;
	int *groups;
	enum vtype *types;
	size_t ncols;
	/* more: the lines after a row's line that go on in one of its cells
	 * (a GoogleTest failure's message). */
	int more_col;             /* the cell, or -1 */
	struct pattern more_until; /* a line that ends them (code NULL: none) */
	size_t more_max;          /* at most this many lines */
	bool optional;            /* may have no rows: no warning then */
	bool slow; /* more or carried columns: rows built off the common path */
	/* Carried columns (the parser's `carry`) come after the pattern's
	 * own: column nown + k is carried column carried[k] of the parser. */
	size_t nown;
	size_t *carried;
	long table; /* the table of its name (a file holds one of them), or -1 */
};

#define MORE_LINES 20    /* lines `more` takes by default */
#define MORE_LINES_MAX 10000

struct ptable {
	char *name;
	struct loc loc;
	struct pattern header;
	/* types: {column: type}; the columns are the header's cells, known
	 * only once the header is read. */
	char **type_cols;
	enum vtype *types;
	size_t ntypes;
	/* columns: {name: [alias, ...]}: a header cell whose snake_case is
	 * alias[k] gives the column alias_to[k]; names[] are the names, in
	 * the order of the definition. */
	char **names;
	size_t nnames;
	char **alias;
	char **alias_to; /* borrowed from names[] */
	size_t nalias;
	bool optional; /* may be absent: no warning then */
	/* delimiter: ',', ';', '|' or '\t': rows of cells apart by it,
	 * with CSV quoting (0: the table's look tells its kind). */
	char delim;
	/* fill_down: columns whose blank cells take the value above them,
	 * by name (the columns are known once the header is read). */
	char **fill;
	size_t nfill;
	size_t *carried; /* the parser's carried columns its rows get */
	size_t ncarried;
	long series;   /* the series of its name, or -1 */
};

/* split: each line the pattern matches starts a new run of the file
 * (see scan_split() in scan.c); its named groups are fields of that
 * run, but the name group, which names the run. */
struct psplit {
	struct pattern pat; /* code NULL: no split */
	struct loc loc;     /* the key */
	int name_group;     /* -1: runs named run1, run2, ... */
	bool end;           /* end: the line ends a run; the next starts after it */
	char **fields;      /* the other named groups, in group order */
	int *groups;
	size_t nfields;
};

/* A line whose named groups are carried into the rows after it
 * (`carry`): its columns are the parser's carry_cols[first, first +
 * ncols), and a line `reset` matches clears them. */
struct pcarry {
	struct pattern pat;
	struct pattern reset; /* code NULL: none */
	size_t first, ncols;
	int *groups; /* per column, its group in pat */
};

struct pderive {
	char *name;
	struct loc loc;
	struct expr *e;
	/* A derive given as a list: one pderive each, the first with
	 * nalts, the others alt (the first that can be computed wins). */
	size_t nalts;
	bool alt;
};

struct parser {
	char *name;
	char *description;
	char *example; /* a few lines of what the parser reads, as a tool prints them */
	char *file;   /* the definition, as diagnostics name it */
	char *origin; /* "built-in" or the path */
	const char *source; /* a built-in's text (static) */
	size_t source_len;
	char *own_text; /* a project parser's text, for parser_source() */
	size_t own_len;
	bool builtin;
	bool keep_cr; /* cr: keep -- lines are not cut at carriage returns */
	enum pformat format;
	bool styled; /* number_style given: numbers are read in `style` */
	struct numstyle style;
	bool run_style; /* style is a run's own (runs.c), not the definition's */
	struct csv_options csv; /* format csv: delimiter, columns, header */
	/* number_style: {from: pattern}: the style is told per file from the
	 * number its first matching line captures (logparse.c); NULL if not. */
	struct pattern *style_from;
	size_t nstyle_from;
	struct pattern *detect;
	size_t ndetect;
	char **exts;
	size_t nexts;
	/* leave_out: lists inside a JSON file's rows it drops silently
	 * ("results.times"). */
	char **leave_out;
	size_t nleave_out;
	struct pfield *fields;
	size_t nfields;
	struct pseries *series;
	size_t nseries;
	struct ptable *tables;
	size_t ntables;
	struct pcarry *carries;
	size_t ncarries;
	char **carry_cols; /* every carried column, NULL-ended */
	size_t ncarry_cols;
	struct pderive *derives;
	size_t nderives;
	bool shared; /* a table and a series share a name */
	struct psplit split;
	/* parser_jit() and parser_jit_detect() have JIT-compiled the
	 * patterns (under their lock) */
	bool jitted, detect_jitted;
};

/* A definition that did not load: a run that names it is told so. */
struct broken_def {
	char *name;
	char *file;
};

struct parser_set {
	struct parser **v;
	size_t n, cap;
	struct broken_def *broken;
	size_t nbroken;
};

/* The parser's number style, NULL when it declares none. */
static inline const struct numstyle *parser_style(const struct parser *p)
{
	return p->styled ? &p->style : NULL;
}

/* Whose number_style a message names: "parser's" or "run's". */
static inline const char *style_owner(const struct parser *p)
{
	return p->run_style ? "run's" : "parser's";
}

/* The number of capture groups of pat. */
uint32_t pattern_groups(const struct pattern *pat);
/* JIT-compiles every pattern of p, once whatever the threads: a parser
 * is JIT-compiled when a file is first read with it, not when it is
 * loaded.  A copy of a parser made by value (a run's own number style)
 * is made after the original was JIT-compiled, so that it carries its
 * patterns' jit flags. */
void parser_jit(const struct parser *p);
/* The same for p's detect patterns alone (parsers_detect()). */
void parser_jit_detect(const struct parser *p);
/* The parsers' names, NULL-terminated; caller frees the array. */
const char **set_names(const struct parser_set *set);
/* Up to this many parsers, a message that asks for one lists them. */
#define AVAILABLE_LISTED 12
/* "available: a, b and c", or, past AVAILABLE_LISTED of them (a list too
 * long to read), "`logdown parsers` lists them": the end of a message
 * that asks the user to name a parser. */
void put_available(struct buf *b, const struct parser_set *set);

#endif
