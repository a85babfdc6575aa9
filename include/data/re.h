/* re.h: PCRE2 as logdown matches logs with it: compiling, matching
 * under the caps of limit.h, and the words a diagnostic says when a
 * match hits one.  The parsers (parse/) and {log} (resolve/) both match
 * this way.
 *
 * Patterns are 8-bit and never UTF, so that invalid UTF-8 in a log is
 * just bytes, and JIT-compiled.  A match is bounded three ways: limit
 * pcre_match (backtracking steps), limit pcre_depth (nesting) and a
 * heap of 256 MiB.  Hitting a bound is an error the caller reports with
 * re_error() and re_hint().
 *
 * Threads: patterns are read-only once compiled and may be shared; a
 * struct re_matcher is one thread's.  Nothing here keeps state between
 * calls: texts are constants or written into the caller's buffer. */
#ifndef LOGDOWN_RE_H
#define LOGDOWN_RE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcre2.h>

/* Compiles src[0..len) as above.  *jit (may be NULL) says whether JIT
 * compiled it (never when built with LOGDOWN_NO_JIT: valgrind cannot
 * follow JIT code).  On a bad pattern, returns NULL with PCRE2's message
 * in msg (size bytes, cut to fit) and the offset in src where it went
 * wrong in *erroff.  Caller frees with pcre2_code_free(). */
pcre2_code *re_compile(const char *src, size_t len, bool *jit, char *msg, size_t size,
		       size_t *erroff);

/* re_compile() without the JIT compile, for code that is JIT-compiled
 * later by re_jit(), or never (a parser no build uses). */
pcre2_code *re_compile_plain(const char *src, size_t len, char *msg, size_t size,
			     size_t *erroff);

/* JIT-compiles code (from re_compile_plain()); true when it did (never
 * with LOGDOWN_NO_JIT).  Not to be called on code another thread may be
 * matching. */
bool re_jit(pcre2_code *code);

/* Backtracking budget of one match on one line: a sane pattern needs a
 * few hundred steps per line; (a+)+$ on 30 a's needs billions.  JIT
 * reaches the limit in about 50 ms.  The budget is limit pcre_match
 * (default 5,000,000). */
uint32_t re_line_limit(void);

/* Match data and a match context for one thread: the match limit given,
 * the depth limit pcre_depth, the heap cap and a JIT stack of up to
 * 1 MiB. */
struct re_matcher {
	pcre2_match_data *md;
	PCRE2_SIZE *ov; /* md's ovector, which stays where it is */
	uint32_t ov_pairs;
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack;
};

/* groups: the most capture groups of any pattern it will match (fewer
 * only lose the groups' places, not the match).  limit: the match limit,
 * re_line_limit() for a line.  Aborts when out of memory.  Free with
 * re_matcher_free(). */
void re_matcher_init(struct re_matcher *m, uint32_t groups, uint32_t limit);
/* Sets m's match limit to limit and its depth limit to pcre_depth again
 * (a matcher kept for later calls, when the limits may have changed). */
void re_matcher_limit(struct re_matcher *m, uint32_t limit);
void re_matcher_free(struct re_matcher *m);

/* One match of code in subj[0..n) from start: 1 on a match (its places
 * in md), 0 on none, or the negative PCRE2 code of what stopped it (a
 * limit).  jit: what re_compile() said.  Inline: the log scanner calls
 * it for every line that may match. */
static inline int re_match(const pcre2_code *code, bool jit, const char *subj, size_t n,
			   size_t start, pcre2_match_data *md, pcre2_match_context *mctx)
{
	int rc = jit ? pcre2_jit_match(code, (PCRE2_SPTR)subj, n, start, 0, md, mctx)
		     : pcre2_match(code, (PCRE2_SPTR)subj, n, start, 0, md, mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return rc;
}

/* What a failed match hit, for a diagnostic: "the match limit", "the
 * depth limit", "the heap limit", "the JIT stack limit", else "an
 * error".  Constant. */
const char *re_error(int rc);

#define RE_HINT_SIZE 160

/* " (limit pcre_match: raise it with limits: in site.yaml or
 * LOGDOWN_LIMIT_PCRE_MATCH)" when rc is a limit one can raise (match or
 * depth), written into buf (size bytes; RE_HINT_SIZE is enough) and
 * returned; else the constant "". */
const char *re_hint(int rc, char *buf, size_t size);

#endif
