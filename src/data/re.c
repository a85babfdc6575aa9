/* re.c: PCRE2 compiling and matching with the caps of limit.h, and the
 * words for a match that hit one (re.h).  It lives in data/, not base/,
 * because the caps and their hints are limit.h's. */
#include "data/re.h"

#include <stdio.h>
#include <stdlib.h>

#include "data/limit.h"

#define HEAP_LIMIT_KIB (256u * 1024u)

pcre2_code *re_compile_plain(const char *src, size_t len, char *msg, size_t size,
			     size_t *erroff)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)src, len, PCRE2_NEVER_UTF, &err, &off, NULL);
	if (!code) {
		if (size)
			pcre2_get_error_message(err, (PCRE2_UCHAR *)msg, size);
		*erroff = (size_t)off;
	}
	return code;
}

bool re_jit(pcre2_code *code)
{
#ifdef LOGDOWN_NO_JIT
	(void)code;
	return false; /* valgrind cannot follow JIT code: make valgrind */
#else
	return pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
#endif
}

pcre2_code *re_compile(const char *src, size_t len, bool *jit, char *msg, size_t size,
		       size_t *erroff)
{
	pcre2_code *code = re_compile_plain(src, len, msg, size, erroff);
	if (!code)
		return NULL;
	bool ok = re_jit(code);
	if (jit)
		*jit = ok;
	return code;
}

uint32_t re_line_limit(void)
{
	return (uint32_t)limit_get(LIMIT_PCRE_MATCH);
}

void re_matcher_init(struct re_matcher *m, uint32_t groups, uint32_t limit)
{
	m->md = pcre2_match_data_create(groups + 1, NULL);
	m->mctx = pcre2_match_context_create(NULL);
	m->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (!m->md || !m->mctx) {
		fprintf(stderr, "logdown: out of memory (PCRE2 match data)\n");
		abort();
	}
	m->ov = pcre2_get_ovector_pointer(m->md);
	m->ov_pairs = pcre2_get_ovector_count(m->md);
	if (m->jstack)
		pcre2_jit_stack_assign(m->mctx, NULL, m->jstack);
	re_matcher_limit(m, limit);
}

void re_matcher_limit(struct re_matcher *m, uint32_t limit)
{
	pcre2_set_match_limit(m->mctx, limit);
	pcre2_set_depth_limit(m->mctx, (uint32_t)limit_get(LIMIT_PCRE_DEPTH));
	pcre2_set_heap_limit(m->mctx, HEAP_LIMIT_KIB);
}

void re_matcher_free(struct re_matcher *m)
{
	pcre2_match_data_free(m->md);
	pcre2_match_context_free(m->mctx);
	pcre2_jit_stack_free(m->jstack);
}

const char *re_error(int rc)
{
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
		return "the match limit";
	case PCRE2_ERROR_DEPTHLIMIT:
		return "the depth limit";
	case PCRE2_ERROR_HEAPLIMIT:
		return "the heap limit";
	case PCRE2_ERROR_JIT_STACKLIMIT:
		return "the JIT stack limit";
	default:
		return "an error";
	}
}

/* Written into the caller's buffer: worker threads report failed
 * matches at the same time. */
const char *re_hint(int rc, char *buf, size_t size)
{
	enum limit_id id;
	if (rc == PCRE2_ERROR_MATCHLIMIT)
		id = LIMIT_PCRE_MATCH;
	else if (rc == PCRE2_ERROR_DEPTHLIMIT)
		id = LIMIT_PCRE_DEPTH;
	else
		return "";
	snprintf(buf, size, " (%s)", limit_hint(id));
	return buf;
}
