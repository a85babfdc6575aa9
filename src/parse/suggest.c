/* suggest.c: the template miner of `logdown parse --suggest`
 * (include/parse/suggest.h): lines cut into tokens, grouped by their
 * constant tokens, each slot named from the words next to it; tables
 * found; a big file sampled.  suggest_yaml.c writes the definition. */
#define _GNU_SOURCE /* memrchr */
#include "suggest_mine.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crline.h"
#include "base/fsutil.h"
#include "parse/structured.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (unsigned char)c >= 0x80;
}

static bool is_word_char(char c)
{
	return is_word_start(c) || is_digit(c);
}

/* n digits at s[i..], within len. */
static bool digits_at(const char *s, size_t len, size_t i, size_t n)
{
	if (i + n > len)
		return false;
	for (size_t k = 0; k < n; k++)
		if (!is_digit(s[i + k]))
			return false;
	return true;
}

/* A timestamp at s[i]: 2024-03-30, then [T ]14:09(:43([.,]663)?)?, then
 * Z or a zone.  Its length, or 0. */
static size_t time_at(const char *s, size_t n, size_t i)
{
	if (!digits_at(s, n, i, 4) || i + 10 > n || s[i + 4] != '-' || !digits_at(s, n, i + 5, 2) ||
	    s[i + 7] != '-' || !digits_at(s, n, i + 8, 2))
		return 0;
	size_t e = i + 10;
	if (e + 6 <= n && (s[e] == 'T' || s[e] == ' ') && digits_at(s, n, e + 1, 2) &&
	    s[e + 3] == ':' && digits_at(s, n, e + 4, 2)) {
		e += 6;
		if (e + 3 <= n && s[e] == ':' && digits_at(s, n, e + 1, 2)) {
			e += 3;
			if (e + 1 < n && (s[e] == '.' || s[e] == ',') && is_digit(s[e + 1])) {
				e++;
				while (e < n && is_digit(s[e]))
					e++;
			}
		}
		if (e < n && s[e] == 'Z')
			e++;
		else if (e + 5 <= n && (s[e] == '+' || s[e] == '-') && digits_at(s, n, e + 1, 2) &&
			 (digits_at(s, n, e + 3, 2) ||
			  (e + 6 <= n && s[e + 3] == ':' && digits_at(s, n, e + 4, 2))))
			e += s[e + 3] == ':' ? 6 : 5;
	}
	if (e < n && is_word_char(s[e]))
		return 0;
	return e - i;
}

/* A duration or a time of day at s[i]: 1:02, 01:49, 1:02:03.5.  Its
 * length, or 0. */
static size_t dur_at(const char *s, size_t n, size_t i)
{
	size_t e = i;
	while (e < n && e - i < 3 && is_digit(s[e]))
		e++;
	if (e == i || e >= n || s[e] != ':' || !digits_at(s, n, e + 1, 2))
		return 0;
	e += 3;
	if (e + 3 <= n && s[e] == ':' && digits_at(s, n, e + 1, 2))
		e += 3;
	if (e + 1 < n && (s[e] == '.' || s[e] == ',') && is_digit(s[e + 1])) {
		e++;
		while (e < n && is_digit(s[e]))
			e++;
	}
	if (e < n && (is_digit(s[e]) || s[e] == ':'))
		return 0;
	return e - i;
}

/* A number at s[i] (its sign included when the caller allows one):
 * 12, 3.5, 1e-3, 1,234,567.5.  Its length, or 0. */
static size_t num_at(const char *s, size_t n, size_t i)
{
	size_t e = i;
	if (e < n && (s[e] == '-' || s[e] == '+'))
		e++;
	if (e >= n || !is_digit(s[e]))
		return 0;
	while (e < n && is_digit(s[e]))
		e++;
	/* thousands: ",ddd" not followed by a digit */
	while (e + 4 <= n && s[e] == ',' && digits_at(s, n, e + 1, 3) &&
	       (e + 4 == n || !is_digit(s[e + 4])))
		e += 4;
	if (e + 1 < n && s[e] == '.' && is_digit(s[e + 1])) {
		e++;
		while (e < n && is_digit(s[e]))
			e++;
	}
	if (e + 1 < n && (s[e] == 'e' || s[e] == 'E')) {
		size_t x = e + 1;
		if (x < n && (s[x] == '-' || s[x] == '+'))
			x++;
		if (x < n && is_digit(s[x])) {
			while (x < n && is_digit(s[x]))
				x++;
			if (x >= n || !is_word_start(s[x]))
				e = x;
		}
	}
	return e - i;
}

size_t suggest_tokenise(const char *s, size_t n, struct sg_tok *out, size_t cap)
{
	size_t k = 0, i = 0;
	while (i < n) {
		char c = s[i];
		enum sg_kind kind;
		size_t len;
		if (c == ' ' || c == '\t') {
			len = 1;
			while (i + len < n && (s[i + len] == ' ' || s[i + len] == '\t'))
				len++;
			kind = SG_SPACE;
		} else if (is_word_start(c)) {
			len = 1;
			while (i + len < n && is_word_char(s[i + len]))
				len++;
			kind = SG_WORD;
		} else {
			/* A sign belongs to a number after a blank or an opener
			 * ("loss=-0.3", "(-1"), not after a digit ("1-5"). */
			bool sign_ok = (c == '-' || c == '+') &&
				       (i == 0 || strchr(" \t=:([{,", s[i - 1]));
			if (is_digit(c) && (len = time_at(s, n, i)) > 0) {
				kind = SG_TIME;
			} else if (is_digit(c) && (len = dur_at(s, n, i)) > 0) {
				kind = SG_DUR;
			} else if ((is_digit(c) || sign_ok) && (len = num_at(s, n, i)) > 0) {
				kind = SG_NUM;
			} else {
				len = 1;
				while (i + len < n && s[i + len] == c && !is_digit(c))
					len++;
				kind = is_digit(c) ? SG_NUM : SG_PUNCT;
			}
		}
		if (k < cap)
			out[k] = (struct sg_tok){kind, s + i, len};
		k++;
		i += len;
	}
	return k;
}

static const char *const stopwords[] = {
	"a",     "about", "after", "an",   "and",  "are",  "as",   "at",    "be",   "before",
	"by",    "each",  "every", "for",  "from", "had",  "has",  "have",  "in",   "into",
	"is",    "it",    "of",    "on",   "or",   "over", "per",  "than",  "that", "the",
	"this",  "to",    "took",  "used", "using", "was", "were", "with",  "within",
};

bool sg_stopword(const char *s, size_t n)
{
	char w[16];
	if (n == 0 || n >= sizeof w)
		return false;
	for (size_t i = 0; i < n; i++)
		w[i] = (char)tolower((unsigned char)s[i]);
	w[n] = '\0';
	size_t lo = 0, hi = sizeof stopwords / sizeof *stopwords;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(w, stopwords[mid]);
		if (c == 0)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

bool sg_log_level(const char *s, size_t n)
{
	static const char *const levels[] = {"INFO", "WARNING", "WARN", "DEBUG", "ERROR",
					     "TRACE", "CRITICAL", "NOTICE", "FATAL"};
	for (size_t i = 0; i < sizeof levels / sizeof *levels; i++)
		if (strlen(levels[i]) == n && strncasecmp(levels[i], s, n) == 0)
			return true;
	return false;
}

static bool tok_is(const struct sg_tok *t, const char *lit)
{
	return t->n == strlen(lit) && memcmp(t->s, lit, t->n) == 0;
}

/* A word that is a unit glued to a number ("3s", "1ms", "12GB"). */
static bool glued_unit(const struct sg_tok *t, size_t i, size_t n)
{
	return i + 1 < n && t[i + 1].kind == SG_WORD && t[i + 1].n <= 5;
}

/* A word of a name, its camelCase parts apart ("GlobalRate" gives
 * "Global Rate"). */
static void put_word(struct buf *b, const struct sg_tok *w)
{
	for (size_t i = 0; i < w->n; i++) {
		char c = w->s[i];
		if (i > 0 && c >= 'A' && c <= 'Z' && w->s[i - 1] >= 'a' && w->s[i - 1] <= 'z')
			buf_putc(b, ' ');
		buf_putc(b, c);
	}
}

/* The name of the slot t[k], prev the token index of the slot before
 * it (or SIZE_MAX), pname that slot's name (or NULL), ws the word
 * slots (sg_tmpl's wslot, or NULL).  Caller frees. */
static char *slot_name(const struct sg_tok *t, size_t n, size_t k, size_t prev, const char *pname,
		       const unsigned char *ws)
{
	bool word = ws && ws[k];
	struct buf phrase = BUF_INIT;
	const struct sg_tok *words[3];
	size_t nw = 0;
	bool sep = false, stop = false;
	size_t j = k;
	/* "Epoch [1/10]", "Loss (0.3)": the opener is passed over. */
	if (j > 0 && j - 1 != prev && t[j - 1].kind == SG_PUNCT && (tok_is(&t[j - 1], "[") || tok_is(&t[j - 1], "(")))
		j--;
	while (j > 0 && j - 1 != prev && t[j - 1].kind == SG_SPACE)
		j--;
	if (j > 0 && j - 1 != prev && t[j - 1].kind == SG_PUNCT &&
	    (tok_is(&t[j - 1], "=") || tok_is(&t[j - 1], ":") || tok_is(&t[j - 1], ":=") ||
	     tok_is(&t[j - 1], "=>") || tok_is(&t[j - 1], "->") || tok_is(&t[j - 1], "|"))) {
		sep = true;
		j--;
		while (j > 0 && j - 1 != prev && t[j - 1].kind == SG_SPACE)
			j--;
	}
	size_t cap = sep ? 3 : 2;
	while (j > 0 && j - 1 != prev && nw < cap) {
		const struct sg_tok *w = &t[j - 1];
		if (w->kind == SG_WORD) {
			/* "it=100": a key may be any word; before a
			 * number without one, "in", "of" name nothing */
			if (sg_stopword(w->s, w->n) && !(sep && nw == 0)) {
				stop = nw == 0;
				break;
			}
			words[nw++] = w;
		} else if (w->kind == SG_SPACE) {
			/* a blank, or " - " between a word and its key */
			if (j >= 2 && t[j - 2].kind == SG_PUNCT && tok_is(&t[j - 2], "-"))
				break;
		} else if (w->kind == SG_PUNCT &&
			   (tok_is(w, "(") || tok_is(w, ")") || tok_is(w, "-") || tok_is(w, ".") ||
			    tok_is(w, "/") || tok_is(w, "%"))) {
			if (tok_is(w, "-") && j >= 2 && t[j - 2].kind == SG_SPACE)
				break;
			if (tok_is(w, "%"))
				words[nw++] = w;
		} else {
			break;
		}
		j--;
	}
	/* What follows: a glued unit ("3s"), or a noun after a blank
	 * ("512000 sample(s)") that is not the key of the next slot. */
	const struct sg_tok *unit = NULL, *unit2 = NULL, *noun = NULL;
	bool plural = false;
	if (glued_unit(t, k, n)) {
		unit = &t[k + 1];
		if (k + 3 < n && tok_is(&t[k + 2], "/") && t[k + 3].kind == SG_WORD)
			unit2 = &t[k + 3];
	} else if (k + 1 < n && tok_is(&t[k + 1], "%")) {
		unit = &t[k + 1];
	} else if (k + 2 < n && t[k + 1].kind == SG_SPACE && t[k + 2].kind == SG_WORD &&
		   !sg_stopword(t[k + 2].s, t[k + 2].n) && !(ws && ws[k + 2])) {
		size_t a = k + 3;
		if (a + 2 < n && tok_is(&t[a], "(") && tok_is(&t[a + 1], "s") && tok_is(&t[a + 2], ")")) {
			plural = true;
			a += 3;
		}
		size_t b = a;
		while (b < n && (t[b].kind == SG_SPACE || (t[b].kind == SG_PUNCT && (tok_is(&t[b], "=") || tok_is(&t[b], ":")))))
			b++;
		bool key_of_next = b < n && b > a && (sg_is_slot(t[b].kind) || (ws && ws[b]));
		if (a < n && a + 1 == b && tok_is(&t[a], ":"))
			key_of_next = true;
		if (!key_of_next || plural)
			noun = &t[k + 2];
	}
	if (word) {
		/* a word slot: its key, the words before it (not a log
		 * level: "INFO [rank0]"), else what its words are */
		for (size_t i = 0; i < nw && !sep; i++)
			if (sg_log_level(words[i]->s, words[i]->n))
				nw = 0;
		for (size_t i = nw; i-- > 0;) {
			put_word(&phrase, words[i]);
			buf_putc(&phrase, ' ');
		}
		if (!nw)
			buf_puts(&phrase, ws[k] == SG_WLEVEL ? "level" : "word");
	} else if (t[k].kind == SG_TIME && !(sep && nw)) {
		buf_puts(&phrase, "time");
	} else if (sep && nw) {
		for (size_t i = nw; i-- > 0;) {
			put_word(&phrase, words[i]);
			buf_putc(&phrase, ' ');
		}
	} else if (noun && !sep) {
		if (nw && !stop) {
			put_word(&phrase, words[0]);
			buf_putc(&phrase, ' ');
		}
		put_word(&phrase, noun);
		if (plural)
			buf_putc(&phrase, 's');
	} else if (nw) {
		for (size_t i = nw; i-- > 0;) {
			put_word(&phrase, words[i]);
			buf_putc(&phrase, ' ');
		}
		if (unit && t[k].kind == SG_NUM && !tok_is(unit, "%")) {
			/* "time 3.2s": time_s */
			buf_put(&phrase, unit->s, unit->n);
		} else if (unit) {
			buf_puts(&phrase, "%");
		}
	} else if (unit) {
		buf_put(&phrase, unit->s, unit->n);
		if (unit2) {
			buf_putc(&phrase, ' ');
			buf_put(&phrase, unit2->s, unit2->n);
		}
	} else if (pname && prev != SIZE_MAX && prev + 2 == k && tok_is(&t[prev + 1], "/")) {
		/* "Epoch 1/10": the second number is how many epochs */
		size_t pl = strlen(pname);
		buf_puts(&phrase, pname);
		buf_puts(&phrase, pl && pname[pl - 1] == 's' ? "_total" : "s");
	} else if (t[k].kind == SG_TIME || t[k].kind == SG_DUR) {
		buf_puts(&phrase, "time");
	} else {
		buf_puts(&phrase, "number");
	}
	char *name = snake_case(buf_data(&phrase), phrase.len);
	buf_free(&phrase);
	/* PCRE2 takes group names of up to 32 bytes: room for "_99" */
	if (strlen(name) > 24) {
		char *cut = name + 24;
		*cut = '\0';
		char *us = strrchr(name, '_');
		if (us && us > name + 8)
			*us = '\0';
	}
	if (!*name || is_digit(name[0])) {
		char *v = xasprintf("n_%s", name);
		free(name);
		name = v;
	}
	return name;
}

/* The names of the slots of t[0..n) (ws its word slots, or NULL),
 * unique in the line. */
static char **names_of(const struct sg_tok *t, size_t n, size_t nslots, const unsigned char *ws)
{
	char **v = xcalloc(nslots + 1, sizeof *v);
	size_t s = 0, prev = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		if (!sg_is_slot(t[k].kind) && !(ws && ws[k]))
			continue;
		char *name = slot_name(t, n, k, prev, s ? v[s - 1] : NULL, ws);
		for (int dup = 2;; dup++) {
			bool clash = false;
			for (size_t i = 0; i < s && !clash; i++)
				clash = strcmp(v[i], name) == 0;
			if (!clash)
				break;
			char *base = xstrdup(name);
			char *p = strrchr(base, '_');
			if (dup > 2 && p)
				*p = '\0';
			free(name);
			name = xasprintf("%s_%d", base, dup);
			free(base);
		}
		v[s++] = name;
		prev = k;
	}
	return v;
}

char **suggest_names(const char *s, size_t n)
{
	struct sg_tok t[SG_MAX_TOKENS];
	size_t nt = suggest_tokenise(s, n, t, SG_MAX_TOKENS);
	if (nt > SG_MAX_TOKENS)
		nt = SG_MAX_TOKENS;
	size_t slots = 0;
	for (size_t k = 0; k < nt; k++)
		slots += sg_is_slot(t[k].kind);
	return names_of(t, nt, slots, NULL);
}

/* ---- tables ---- */

/* The cells of a line: apart by '|' when it has one, else by two
 * blanks or more.  Returns how many; the cells' letters and numbers
 * counted in *words and *nums. */
static size_t cells_of(const char *s, size_t n, size_t *words, size_t *nums)
{
	bool pipes = memchr(s, '|', n) != NULL;
	size_t cells = 0;
	*words = *nums = 0;
	size_t i = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || (pipes && s[i] == '|')))
			i++;
		if (i >= n)
			break;
		size_t b = i;
		while (i < n) {
			if (pipes ? s[i] == '|'
				  : ((s[i] == ' ' || s[i] == '\t') && i + 1 < n &&
				     (s[i + 1] == ' ' || s[i + 1] == '\t')) || s[i] == '\t')
				break;
			i++;
		}
		size_t e = i;
		while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		if (e > b) {
			cells++;
			bool letter = false, digit = false, other = false;
			for (size_t k = b; k < e; k++) {
				if (is_word_start(s[k]) && s[k] != '_')
					letter = true;
				else if (is_digit(s[k]))
					digit = true;
				else if (!strchr(".,-+%eE ", s[k]))
					other = true;
			}
			if (digit && !letter && !other)
				(*nums)++;
			else if (letter && !digit)
				(*words)++;
		}
	}
	return cells;
}

/* A ruler: ----  ----, +---+---+, |---|:--:|. */
static bool is_ruler(const char *s, size_t n)
{
	size_t marks = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-' || s[i] == '=')
			marks++;
		else if (!strchr("+|: \t", s[i]))
			return false;
	}
	return marks >= 3;
}

/* Does s[0..n) hold a number (a table's row)? */
static bool has_number(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_digit(s[i]) && (i == 0 || !is_word_char(s[i - 1])))
			return true;
	return false;
}

/* ---- the miner ---- */

struct line {
	const char *s;
	size_t n;
	size_t ind;             /* the blanks cut before s */
	long no;                /* 0: unknown */
	unsigned long long off;
};

static void grow_hash(struct sg_mine *m)
{
	size_t cap = m->hcap ? m->hcap * 2 : 1024;
	size_t *slot = xcalloc(cap, sizeof *slot);
	for (size_t i = 0; i < m->n; i++) {
		size_t h = (size_t)str_hash(m->v[i]->key) & (cap - 1);
		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = i + 1;
	}
	free(m->slot);
	m->slot = slot;
	m->hcap = cap;
}

static void add_template_line(struct sg_mine *m, const struct line *ln, const struct line *above,
			      const struct sg_tok *t, size_t nt)
{
	struct buf key = BUF_INIT;
	size_t slots = 0, nums = 0;
	for (size_t k = 0; k < nt; k++) {
		switch (t[k].kind) {
		case SG_NUM:
		case SG_DUR:
			nums++;
			/* fall through */
		case SG_TIME:
			slots++;
			buf_putc(&key, '\x01');
			buf_putc(&key, (char)('0' + t[k].kind));
			break;
		case SG_SPACE:
			buf_putc(&key, ' ');
			break;
		default:
			buf_put(&key, t[k].s, t[k].n);
			buf_putc(&key, '\x02');
		}
	}
	if (nums)
		m->numbered++;
	if (m->n * 2 >= m->hcap)
		grow_hash(m);
	size_t h = (size_t)str_hash(buf_data(&key)) & (m->hcap - 1);
	while (m->slot[h]) {
		struct sg_tmpl *x = m->v[m->slot[h] - 1];
		if (strcmp(x->key, buf_data(&key)) == 0) {
			x->count++;
			buf_free(&key);
			return;
		}
		h = (h + 1) & (m->hcap - 1);
	}
	struct sg_tmpl *x = xcalloc(1, sizeof *x);
	x->key = buf_detach(&key);
	x->count = 1;
	x->first_line = ln->no;
	x->first_off = ln->off;
	x->example = xstrndup(ln->s, ln->n);
	x->above = above ? xstrndup(above->s, above->n) : NULL;
	x->toks = xcalloc(nt ? nt : 1, sizeof *x->toks);
	for (size_t k = 0; k < nt; k++)
		x->toks[k] = (struct sg_tok){t[k].kind, x->example + (t[k].s - ln->s), t[k].n};
	x->ntok = nt;
	x->nslots = slots;
	x->nnum = nums;
	x->order = m->n;
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->v = xrealloc(m->v, m->cap * sizeof *m->v);
	}
	m->v[m->n++] = x;
	m->slot[h] = m->n;
}

/* The cells of a line apart by blanks: where each starts and ends (as
 * columns of the line as written, ind its blanks cut before s) and
 * whether it is a number.  Returns how many (more than cap: only cap
 * are written). */
#define SG_PLAIN_COLS 32
static size_t blank_cells(const char *s, size_t n, size_t ind, size_t *at, size_t *to, bool *num,
			  size_t cap)
{
	size_t k = 0, i = 0;
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		size_t b = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		if (k < cap) {
			at[k] = ind + b;
			to[k] = ind + i;
			num[k] = num_at(s, n, b) == i - b;
		}
		k++;
	}
	return k;
}

/* A cell that is a key, not a header's or a row's ("gamma:", "lr=",
 * "\"inv\""): the lines are "key: value" ones. */
static bool key_cell(const char *s, size_t n)
{
	return n && (strchr(":=,;", s[n - 1]) || memchr(s, '"', n) || memchr(s, '\'', n) ||
		     memchr(s, '=', n));
}

/* A table aligned with blanks, without a ruler: a header of words
 * ("name  time  ops"), then two rows or more of as many cells, of the
 * same shape (words, and as many numbers or more: rows of numbers alone
 * are a template the header names, name_templates()), each cell under its header cell
 * (their columns overlap, give or take two), whose words differ from
 * row to row (rows of one line template are that template's).  How many lines it takes, else 0; *wide
 * when every cell is apart by two blanks or a tab (a `tables:` entry
 * reads it), *shape_out the rows' shape. */
static size_t plain_table_at(const struct line *l, size_t nl, size_t i, bool *wide,
			     char **shape_out)
{
	size_t hat[SG_PLAIN_COLS], hto[SG_PLAIN_COLS], at[SG_PLAIN_COLS], to[SG_PLAIN_COLS];
	bool hnum[SG_PLAIN_COLS], num[SG_PLAIN_COLS];
	size_t hc = blank_cells(l[i].s, l[i].n, l[i].ind, hat, hto, hnum, SG_PLAIN_COLS);
	if (hc < 2 || hc > SG_PLAIN_COLS)
		return 0;
	for (size_t k = 0; k < hc; k++) {
		bool letter = false;
		for (size_t c = hat[k]; c < hto[k] && !letter; c++)
			letter = is_word_start(l[i].s[c - l[i].ind]) && l[i].s[c - l[i].ind] != '_';
		if (hnum[k] || !letter || key_cell(l[i].s + hat[k] - l[i].ind, hto[k] - hat[k]))
			return 0;
	}
	size_t w, nu;
	*wide = cells_of(l[i].s, l[i].n, &w, &nu) == hc;
	char shape[SG_PLAIN_COLS + 1];
	size_t wat[SG_PLAIN_COLS], wto[SG_PLAIN_COLS]; /* the first row's cells */
	bool differ = false;
	size_t r = i + 1;
	for (; r < nl && l[r].n && r - i <= 100000; r++) {
		if (blank_cells(l[r].s, l[r].n, l[r].ind, at, to, num, SG_PLAIN_COLS) != hc)
			break;
		bool same = true, differs = false;
		size_t any_num = 0, any_word = 0;
		for (size_t k = 0; k < hc && same; k++) {
			same = at[k] < hto[k] + 2 && hat[k] < to[k] + 2;
			if (same && !num[k] && r > i + 1 &&
			    (to[k] - at[k] != wto[k] - wat[k] ||
			     memcmp(l[r].s + at[k] - l[r].ind, l[i + 1].s + wat[k] - l[i + 1].ind,
				    to[k] - at[k]) != 0))
				differs = true;
			if (r > i + 1)
				same = same && (shape[k] == 'n') == num[k];
			any_num += num[k];
			any_word += !num[k];
			if (!num[k] && key_cell(l[r].s + at[k] - l[r].ind, to[k] - at[k]))
				same = false;
		}
		if (!same || !any_word || any_num < any_word)
			break;
		differ |= differs;
		if (r == i + 1) {
			for (size_t k = 0; k < hc; k++)
				shape[k] = num[k] ? 'n' : 'w';
			shape[hc] = '\0';
			memcpy(wat, at, sizeof wat);
			memcpy(wto, to, sizeof wto);
		}
		if (cells_of(l[r].s, l[r].n, &w, &nu) != hc)
			*wide = false;
	}
	if (r - i - 1 < 2 || !differ)
		return 0;
	*shape_out = xstrdup(shape);
	return r - i;
}

/* The names of a plain table's columns, from its header's cells, as
 * group names: snake_case, unique, of at most 28 bytes.  NULL when a
 * cell gives none. */
static char **plain_columns(const char *s, size_t n, size_t cols)
{
	char **v = xcalloc(cols + 1, sizeof *v);
	size_t k = 0, i = 0;
	while (i < n && k < cols) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		size_t b = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		char *name = snake_case(s + b, i - b);
		if (!*name || is_digit(name[0]) || strlen(name) > 28) {
			free(name);
			strv_free(v);
			return NULL;
		}
		for (int dup = 2;; dup++) {
			bool clash = false;
			for (size_t j = 0; j < k && !clash; j++)
				clash = strcmp(v[j], name) == 0;
			if (!clash)
				break;
			char *d = xasprintf("%s_%d", name, dup);
			free(name);
			name = d;
		}
		v[k++] = name;
	}
	return v;
}

/* The table of header l[i] and first row *first, of rows rows, into m. */
static void add_table(struct sg_mine *m, const struct line *l, size_t i, const struct line *first,
		      size_t rows, char **cols, char *shape)
{
	struct sg_table tb = {0};
	/* the table's name: a short title line right above, else its
	 * first header cell */
	const char *ns = NULL;
	size_t nn = 0;
	if (i > 0 && l[i - 1].n && l[i - 1].n <= 60 && !is_ruler(l[i - 1].s, l[i - 1].n)) {
		size_t w3, n3;
		if (cells_of(l[i - 1].s, l[i - 1].n, &w3, &n3) == 1 && w3 == 1 && !n3)
			ns = l[i - 1].s, nn = l[i - 1].n;
	}
	if (!ns) {
		const char *s = l[i].s;
		size_t k = 0;
		while (k < l[i].n && (s[k] == '|' || s[k] == ' ' || s[k] == '\t'))
			k++;
		size_t e = k;
		while (e < l[i].n && s[e] != '|' && !(s[e] == ' ' && e + 1 < l[i].n && s[e + 1] == ' ') &&
		       !(shape && (s[e] == ' ' || s[e] == '\t')))
			e++;
		ns = s + k, nn = e - k;
	}
	tb.name = snake_case(ns, nn);
	tb.header = xstrndup(l[i].s, l[i].n);
	tb.row = xstrndup(first->s, first->n);
	tb.line = l[i].no;
	tb.off = l[i].off;
	tb.rows = rows;
	tb.cols = cols;
	tb.shape = shape;
	m->tables = xrealloc(m->tables, (m->ntables + 1) * sizeof *m->tables);
	m->tables[m->ntables++] = tb;
}

/* The table under a ruler, or of pipe rows, whose header is lines[i]:
 * how many lines it takes (header, rulers, rows), else 0. */
static size_t ruled_table_at(struct sg_mine *m, const struct line *l, size_t nl, size_t i)
{
	size_t words, nums;
	size_t hc = cells_of(l[i].s, l[i].n, &words, &nums);
	if (hc < 2 || words < hc || nums || i + 2 >= nl)
		return 0;
	bool pipes = memchr(l[i].s, '|', l[i].n) != NULL;
	size_t r = i + 1;
	bool ruled = false;
	if (is_ruler(l[r].s, l[r].n)) {
		ruled = true;
		r++;
	} else if (!pipes) {
		return 0;
	}
	size_t rows = 0;
	const struct line *first = NULL;
	for (; r < nl && l[r].n; r++) {
		if (is_ruler(l[r].s, l[r].n)) {
			if (rows)
				{ r++; break; }
			continue;
		}
		size_t w2, n2;
		size_t rc = cells_of(l[r].s, l[r].n, &w2, &n2);
		if (rc < 2 || (pipes && rc != hc) || (!pipes && (rc > hc + 1 || rc + 1 < hc)) ||
		    n2 == 0 || r - i > 100000)
			break;
		if (!first)
			first = &l[r];
		rows++;
	}
	if (!rows || (!ruled && rows < 2))
		return 0;
	add_table(m, l, i, first, rows, NULL, NULL);
	return r - i;
}

/* The table whose header is lines[i], if one starts there: how many
 * lines it takes, else 0. */
static size_t table_at(struct sg_mine *m, const struct line *l, size_t nl, size_t i)
{
	size_t span = ruled_table_at(m, l, nl, i);
	if (span || i + 2 >= nl)
		return span;
	bool wide = false;
	char *shape = NULL;
	span = plain_table_at(l, nl, i, &wide, &shape);
	if (!span)
		return 0;
	char **cols = NULL;
	if (wide) {
		free(shape);
		shape = NULL;
	} else if (!(cols = plain_columns(l[i].s, l[i].n, strlen(shape)))) {
		free(shape);
		return 0;
	}
	add_table(m, l, i, &l[i + 1], span - 1, cols, shape);
	return span;
}

/* Mines the lines of text[0..len): their numbers from first_line (0:
 * unknown), their offsets from off. */
static void mine(struct sg_mine *m, const char *text, size_t len, long first_line,
		 unsigned long long off)
{
	size_t nl = 0, cap = 1024;
	struct line *l = xmalloc(cap * sizeof *l);
	const char *p = text, *end = text + len;
	long no = first_line;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = p;
		const char *le = crline_end(s, e, true);
		crline_last(&s, &le, true);
		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		while (le > s && (le[-1] == ' ' || le[-1] == '\t'))
			le--;
		if (nl == cap) {
			cap *= 2;
			l = xrealloc(l, cap * sizeof *l);
		}
		size_t ind = 0;
		for (const char *k = p; k < s; k++)
			ind = *k == '\r' ? 0 : ind + 1;
		l[nl++] = (struct line){s, (size_t)(le - s), ind, no,
					off + (unsigned long long)(p - text)};
		if (no)
			no++;
		p = e + 1;
	}
	struct sg_tok *t = xmalloc((SG_MAX_TOKENS + 1) * sizeof *t);
	for (size_t i = 0; i < nl; i++) {
		if (!l[i].n)
			continue;
		m->lines++;
		if (!m->first) {
			m->first = xstrndup(l[i].s, l[i].n);
			m->all_same = true;
		} else if (m->all_same && (strlen(m->first) != l[i].n || memcmp(m->first, l[i].s, l[i].n) != 0)) {
			m->all_same = false;
		}
		if (l[i].n > SG_MAX_LINE)
			continue;
		bool control = false;
		for (size_t k = 0; k < l[i].n && !control; k++)
			control = (unsigned char)l[i].s[k] < 0x20 && l[i].s[k] != '\t';
		if (control)
			continue;
		size_t span = table_at(m, l, nl, i);
		if (span) {
			/* the table's lines are its, not templates' */
			for (size_t k = i + 1; k < i + span && k < nl; k++)
				if (l[k].n) {
					m->lines++;
					m->numbered += has_number(l[k].s, l[k].n);
					if (m->all_same)
						m->all_same = false;
				}
			i += span - 1;
			continue;
		}
		size_t nt = suggest_tokenise(l[i].s, l[i].n, t, SG_MAX_TOKENS);
		if (nt > SG_MAX_TOKENS)
			continue;
		const struct line *above = NULL;
		for (size_t k = i; k-- > 0 && i - k <= 2;)
			if (l[k].n) {
				above = &l[k];
				break;
			}
		add_template_line(m, &l[i], above, t, nt);
	}
	free(t);
	free(l);
}

/* The slots of x named by the header above it ("Step Temp E_pair"
 * over "0 2.4 -6.7"), when its words are as many as x's slots. */
static void header_names(struct sg_tmpl *x)
{
	struct sg_tok t[SG_MAX_TOKENS];
	size_t n = suggest_tokenise(x->above, strlen(x->above), t, SG_MAX_TOKENS);
	if (n > SG_MAX_TOKENS)
		return;
	/* the header's cells: runs of words and punctuation between blanks
	 * ("Time(%)", "Bandwidth(GB/s)" are one cell each) */
	struct buf cell = BUF_INIT;
	char **cells = xcalloc(x->nslots + 1, sizeof *cells);
	size_t nc = 0;
	bool ok = true;
	for (size_t k = 0; k <= n && ok; k++) {
		if (k == n || t[k].kind == SG_SPACE || (t[k].kind == SG_PUNCT && tok_is(&t[k], "|"))) {
			if (cell.len) {
				if (nc == x->nslots) {
					ok = false;
					break;
				}
				cells[nc++] = snake_case(buf_data(&cell), cell.len);
				buf_clear(&cell);
			}
			continue;
		}
		if (sg_is_slot(t[k].kind))
			ok = false;
		buf_put(&cell, t[k].s, t[k].n);
	}
	buf_free(&cell);
	for (size_t i = 0; ok && i < nc; i++)
		ok = cells[i][0] && !is_digit(cells[i][0]) && strlen(cells[i]) <= 28;
	for (size_t i = 0; ok && i < nc; i++)
		for (size_t k = 0; k < i && ok; k++)
			ok = strcmp(cells[i], cells[k]) != 0;
	if (ok && nc == x->nslots) {
		strv_free(x->names);
		x->names = cells;
	} else {
		strv_free(cells);
	}
}

/* A word slot named by nothing next to it ("word"), whose words share
 * a stem of two letters or more before their digits ("rank0, rank1"):
 * named by the stem, when no other slot has that name. */
static void stem_names(struct sg_tmpl *x)
{
	size_t slot = 0, w = 0;
	for (size_t k = 0; k < x->ntok; k++) {
		if (!sg_slot_at(x, k))
			continue;
		char **name = &x->names[slot++];
		if (!x->wslot[k])
			continue;
		const char *v = x->wvals[w++];
		if (strncmp(*name, "word", 4) != 0 || ((*name)[4] && (*name)[4] != '_'))
			continue;
		/* the letters of the first word, which every word starts
		 * with, then a digit */
		size_t n = 0;
		while (v[n] && !is_digit(v[n]) && v[n] != ',')
			n++;
		if (n < 2 || !is_digit(v[n]))
			continue;
		bool all = true;
		for (const char *p = v; p && all;) {
			all = strcmp(p, "...") == 0 || (strncmp(p, v, n) == 0 && is_digit(p[n]));
			p = strstr(p, ", ");
			if (p)
				p += 2;
		}
		if (!all)
			continue;
		char *stem = snake_case(v, n);
		bool clash = !*stem || is_digit(stem[0]) || strlen(stem) > 24;
		for (size_t i = 0; x->names[i] && !clash; i++)
			clash = strcmp(x->names[i], stem) == 0;
		if (clash) {
			free(stem);
			continue;
		}
		free(*name);
		*name = stem;
	}
}

/* Names every template's slots; a template of numbers alone under a
 * header of as many words takes the header's cells. */
static void name_templates(struct sg_mine *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct sg_tmpl *x = m->v[i];
		x->names = names_of(x->toks, x->ntok, x->nslots, x->wslot);
		if (x->wslot)
			stem_names(x);
		size_t words = 0;
		for (size_t k = 0; k < x->ntok; k++)
			words += x->toks[k].kind == SG_WORD;
		if (x->above && !x->wslot && x->nslots >= 2 && words < x->nslots)
			header_names(x);
	}
}

static void mine_free(struct sg_mine *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct sg_tmpl *x = m->v[i];
		free(x->key);
		free(x->example);
		free(x->above);
		free(x->toks);
		if (x->names)
			strv_free(x->names);
		free(x->wslot);
		if (x->wvals)
			strv_free(x->wvals);
		free(x);
	}
	free(m->v);
	free(m->slot);
	for (size_t i = 0; i < m->ntables; i++) {
		free(m->tables[i].name);
		free(m->tables[i].header);
		free(m->tables[i].row);
		if (m->tables[i].cols)
			strv_free(m->tables[i].cols);
		free(m->tables[i].shape);
	}
	free(m->tables);
	free(m->first);
}

/* The clear messages of item 4, or the definition. */
static bool finish(struct sg_mine *m, const char *shown, const char *name,
		   const struct parser_set *set, struct suggestion *out, struct diag *d)
{
	struct loc at = loc_line(shown, 0);
	if (m->nul_line) {
		diag_error(d, at,
			   "a binary file (a NUL byte on line %ld): --suggest reads text logs", m->nul_line);
		return false;
	}
	if (m->lines == 0) {
		diag_error(d, at, "the file is empty (or blank): --suggest needs a log to read");
		return false;
	}
	if (m->lines == 1) {
		diag_error(d, at,
			   "the file has one line: --suggest finds the templates of a log's lines, "
			   "and needs several; write a parser for it by hand (docs/parsers.md)");
		return false;
	}
	if (m->all_same) {
		diag_error(d, at,
			   "every line of the file is the same line: there are no values to extract");
		return false;
	}
	if (m->numbered == 0) {
		diag_error(d, at,
			   "the file has no numbers: --suggest proposes fields and series of "
			   "numbers, and there are none here");
		return false;
	}
	sg_merge_words(m);
	name_templates(m);
	sg_write(m, shown, name, set, out);
	return true;
}

bool suggest_text(const char *text, size_t len, const char *shown, const char *name,
		  const struct parser_set *set, struct suggestion *out, struct diag *d)
{
	memset(out, 0, sizeof *out);
	struct sg_mine m = {0};
	size_t probe = len < 65536 ? len : 65536;
	const char *nul = memchr(text, '\0', probe);
	if (nul) {
		m.nul_line = 1;
		for (const char *p = text; p < nul; p++)
			m.nul_line += *p == '\n';
	} else {
		m.head = text;
		m.head_len = len < (1u << 20) ? len : (1u << 20);
		mine(&m, text, len, 1, 0);
	}
	bool ok = finish(&m, shown, name, set, out, d);
	mine_free(&m);
	return ok;
}

/* Reads n bytes at off into b (appended). */
static bool read_at(int fd, unsigned long long off, size_t n, struct buf *b)
{
	buf_grow(b, n + 1);
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, b->data + b->len + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0;
		got += (size_t)r;
	}
	b->len += got;
	b->data[b->len] = '\0';
	return true;
}

#define SG_WHOLE (4u << 20)  /* a file up to this is read whole */
#define SG_END (1u << 20)    /* its first and last MiB ... */
#define SG_BLOCK (64u << 10) /* ... and blocks this big between */
#define SG_BLOCKS 32

bool suggest_file(const char *path, const char *name, const struct parser_set *set,
		  struct suggestion *out, struct diag *d)
{
	memset(out, 0, sizeof *out);
	struct stat st;
	int fd = open_regular(path, &st);
	if (fd < 0) {
		diag_error(d, loc_line(path, 0), "cannot read: %s", open_error(errno));
		return false;
	}
	unsigned long long size = (unsigned long long)st.st_size;
	struct buf b = BUF_INIT;
	if (size <= SG_WHOLE) {
		bool ok = read_at(fd, 0, (size_t)size, &b);
		close(fd);
		if (!ok) {
			diag_error(d, loc_line(path, 0), "cannot read: %s", strerror(errno));
			buf_free(&b);
			return false;
		}
		ok = suggest_text(b.len ? b.data : "", b.len, path, name, set, out, d);
		buf_free(&b);
		return ok;
	}
	/* A sample: the head (line numbers known), blocks, the tail. */
	struct sg_mine m = {0};
	bool ok = read_at(fd, 0, SG_END, &b);
	const char *nul = ok ? memchr(b.data, '\0', b.len < 65536 ? b.len : 65536) : NULL;
	if (nul) {
		m.nul_line = 1;
		for (const char *p = b.data; p < nul; p++)
			m.nul_line += *p == '\n';
	} else if (ok) {
		const char *last = memrchr(b.data, '\n', b.len);
		size_t hl = last ? (size_t)(last - b.data) + 1 : b.len;
		m.head = b.data;
		m.head_len = hl;
		m.sampled = true;
		mine(&m, b.data, hl, 1, 0);
		struct buf blk = BUF_INIT;
		unsigned long long lo = SG_END, hi = size - SG_END;
		for (unsigned i = 0; ok && i <= SG_BLOCKS; i++) {
			unsigned long long at;
			size_t n;
			if (i < SG_BLOCKS) {
				at = lo + (hi - lo) / SG_BLOCKS * i;
				n = SG_BLOCK;
			} else {
				at = hi;
				n = SG_END;
			}
			buf_clear(&blk);
			ok = read_at(fd, at, n, &blk);
			if (!ok)
				break;
			/* cut at line ends: after the first newline, up to the
			 * last one */
			const char *s = memchr(blk.data, '\n', blk.len);
			const char *e = memrchr(blk.data, '\n', blk.len);
			if (!s || s == e)
				continue;
			s++;
			mine(&m, s, (size_t)(e - s) + 1, 0, at + (unsigned long long)(s - blk.data));
		}
		buf_free(&blk);
	}
	close(fd);
	if (!ok) {
		diag_error(d, loc_line(path, 0), "cannot read: %s", strerror(errno));
		mine_free(&m);
		buf_free(&b);
		return false;
	}
	ok = finish(&m, path, name, set, out, d);
	mine_free(&m);
	buf_free(&b);
	return ok;
}

void suggestion_free(struct suggestion *s)
{
	free(s->yaml);
	for (size_t i = 0; i < s->nitems; i++) {
		free(s->items[i].name);
		free(s->items[i].value);
	}
	free(s->items);
	memset(s, 0, sizeof *s);
}
