/* detect.c: which parser reads a file (parsers_detect()): each parser's
 * detect patterns over the file's first 1 MiB as one text, and its
 * extensions over the file's name: either claims the file.  A project
 * parser beats a built-in; then a claim by content and name beats one
 * by content alone, which beats one by name alone.  A notebook's content
 * is the log its cells printed (notebook.h). */
#include "parser.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "data/limit.h"
#include "data/re.h"
#include "parse/notebook.h"
#include "parse/tfevents.h"
#include "literal.h"

#define HEAD_BYTES ((size_t)1 << 20) /* detection looks at this much */
#define BINARY_HEAD ((size_t)64 << 10) /* a NUL byte here: binary, as scan.h's BINARY_PROBE */
/* Detection matches over 1 MiB at once, and may scan all of it: ten
 * times the budget of a line (re_line_limit()). */
#define DETECT_MATCH_LIMIT                                                                   \
	((uint32_t)(limit_get(LIMIT_PCRE_MATCH) > UINT32_MAX / 10 ? UINT32_MAX                \
								    : limit_get(LIMIT_PCRE_MATCH) * 10))

/* "a", "'a' and 'b'", "'a', 'b' and 'c'". */
static void put_quoted_list(struct buf *b, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_puts(b, i + 1 == n ? " and " : ", ");
		buf_printf(b, "'%s'", names[i]);
	}
}

/* Detection. */

/* Does the file's name end in ext (".json", ".nsys.txt"; a leading '*'
 * as in "*.nsys.txt" is passed over), whatever the case?  An ext that
 * ends in '*' instead ("events.out.tfevents.*") is what the name (past
 * its last '/') starts with. */
static bool has_extension(const char *path, const char *ext)
{
	if (*ext == '*')
		ext++;
	size_t n = strlen(path), e = strlen(ext);
	if (e == 0)
		return false;
	if (ext[e - 1] == '*') {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		return strncasecmp(base, ext, e - 1) == 0;
	}
	if (e > n)
		return false;
	for (size_t i = 0; i < e; i++)
		if (tolower((unsigned char)path[n - e + i]) != tolower((unsigned char)ext[i]))
			return false;
	return true;
}

/* Reads up to max bytes of the file at path into b. */
static bool read_head(const char *path, size_t max, struct buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = e;
		return false;
	}
	buf_grow(b, max);
	while (b->len < max) {
		ssize_t n = read(fd, b->data + b->len, max - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return false;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	b->data[b->len] = '\0';
	close(fd);
	return true;
}

const struct parser *parsers_detect(const struct parser_set *set, const char *path,
				    struct loc at, struct diag *d)
{
	return parsers_detect_read(set, path, path, at, d);
}

const struct parser *parsers_detect_read(const struct parser_set *set, const char *from,
					 const char *path, struct loc at, struct diag *d)
{
	struct buf head = BUF_INIT;
	if (!read_head(from, HEAD_BYTES, &head)) {
		diag_error(d, at, "cannot read %s: %s", path, strerror(errno));
		buf_free(&head);
		return NULL;
	}
	/* A notebook is detected by the log its cells printed
	 * (notebook.h), unless a parser claims its name. */
	if (notebook_sniff(path, head.data, head.len)) {
		/* Quietly: the run reads it again and reports its warnings;
		 * only a notebook that cannot be read is reported here. */
		struct notebook nb;
		FILE *null = fopen("/dev/null", "w");
		struct diag *quiet = null ? diag_new(null, DIAG_TEXT, false) : NULL;
		bool ok = notebook_load(from, path, &nb, quiet ? quiet : d);
		if (quiet)
			diag_free(quiet);
		if (null)
			fclose(null);
		if (!ok && quiet) {
			notebook_free(&nb);
			notebook_load(from, path, &nb, d);
		}
		if (!ok) {
			notebook_free(&nb);
			buf_free(&head);
			return NULL;
		}
		buf_clear(&head);
		buf_put(&head, nb.text, nb.len < HEAD_BYTES ? nb.len : HEAD_BYTES);
		notebook_free(&nb);
	}
	struct re_matcher m;
	re_matcher_init(&m, 0, DETECT_MATCH_LIMIT);
	/* A claim's strength: a project parser beats a built-in (4 > 1+2+1),
	 * then content and name beat content (2), which beats name (1). */
	int *score = xcalloc(set->n + 1, sizeof *score);
	int best = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct parser *p = set->v[i];
		bool ext = false, content = false;
		for (size_t j = 0; j < p->nexts; j++)
			ext |= has_extension(path, p->exts[j]);
		if (p->ndetect && head.len)
			parser_jit_detect(p);
		for (size_t j = 0; j < p->ndetect && !content && head.len; j++) {
			int rc = re_match(p->detect[j].code, p->detect[j].jit, head.data, head.len, 0,
					  m.md, m.mctx);
			if (rc < 0) {
				char hint[RE_HINT_SIZE];
				if (p->builtin)
					diag_add_source(d, p->file, p->source, p->source_len);
				diag_warning(d, p->detect[j].loc,
					     "the detect pattern of parser '%s' hit %s on the first "
					     "MiB of %s: it claims nothing%s",
					     p->name, re_error(rc), path, re_hint(rc, hint, sizeof hint));
			}
			content = rc > 0;
		}
		/* An event file is binary: its first record is checked. */
		if (p->format == FMT_TFEVENTS && !content)
			content = tfevents_sniff(head.data, head.len);
		/* A name claims a file without stopping the content from
		 * claiming files of other names. */
		if (!ext && !content)
			continue;
		score[i] = (p->builtin ? 1 : 4) + (content ? 2 : 0) + (ext ? 1 : 0);
		if (score[i] > best)
			best = score[i];
	}
	re_matcher_free(&m);
	const char **cands = xcalloc(set->n + 1, sizeof *cands);
	size_t n = 0;
	const struct parser *winner = NULL;
	for (size_t i = 0; i < set->n; i++)
		if (best && score[i] == best) {
			cands[n++] = set->v[i]->name;
			winner = set->v[i];
		}
	struct buf b = BUF_INIT;
	if (n == 0) {
		buf_printf(&b, "cannot tell which parser reads %s: ", path);
		/* A binary file: no parser of a binary format claims it,
		 * and naming a parser of text would not help. */
		size_t probe = head.len < BINARY_HEAD ? head.len : BINARY_HEAD;
		const char *nul = memchr(head.data, '\0', probe);
		if (nul) {
			buf_printf(&b, "it is a binary file (a NUL byte on line %ld), of no kind "
				       "logdown reads: %s",
				   count_nl(head.data, nul) + 1, FORMATS_LIST);
		} else {
			buf_puts(&b, head.len ? "none recognises it"
					      : "it is empty and none claims its name");
			buf_puts(&b, "; name one with {file: ..., parser: NAME} (");
			put_available(&b, set);
			buf_puts(&b, ")");
		}
		diag_error(d, at, "%s", buf_data(&b));
		winner = NULL;
	} else if (n > 1) {
		buf_printf(&b, "cannot tell which parser reads %s: %s", path, n == 2 ? "both " : "");
		put_quoted_list(&b, cands, n);
		buf_printf(&b, " %smatch; name one with {file: ..., parser: NAME}", n > 2 ? "all " : "");
		diag_error(d, at, "%s", buf_data(&b));
		winner = NULL;
	}
	buf_free(&b);
	free(cands);
	free(score);
	buf_free(&head);
	return winner;
}
