/* gfmchars.c: cmark-gfm's special inline characters, added once.
 *
 * cmark-gfm keeps the characters that stop a run of text, and those an
 * emphasis looks past, in tables for the whole process (SPECIAL_CHARS
 * and SKIP_CHARS in its inlines.c).  cmark_parser_finish() adds the
 * characters of the parser's inline extensions ('~' of strikethrough,
 * autolink's) through cmark_manage_extensions_special_characters()
 * before it parses the inlines, and removes them after: two parses at
 * once pull the tables from under each other (github/cmark-gfm#221).  Every
 * parse of logdown's with extensions attaches the same ones, so the
 * table they need is always the same: it is set once here, and the
 * library's later calls are dropped by a definition of the function in
 * the executable, which the library's calls reach through its PLT
 * (symbol interposition).  Whether they do is not assumed: a self-check
 * at the first call proves it, and without proof nothing is dropped and
 * the caller parses one at a time, as before.  The reasoning, and what
 * a parse without extensions sees then, are in docs/internals.md,
 * "cmark-gfm on several threads". */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "gfmchars.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/util.h"

typedef void manage_fn(cmark_parser *parser, int add);

static manage_fn *real_manage; /* the library's own definition */
static bool stable;	       /* set once: later changes are dropped */
static int probe_calls;	       /* calls seen while probing */
static bool probing;

/* The statics are written only by the first gfmchars_init(), under its
 * lock, and read after it (init_done orders the two), by the library's
 * calls from parses that come after it too. */
void cmark_manage_extensions_special_characters(cmark_parser *parser, int add);

void cmark_manage_extensions_special_characters(cmark_parser *parser, int add)
{
	if (probing)
		probe_calls++;
	if (!stable && real_manage)
		real_manage(parser, add);
}

static bool init_ok;

#define PROBE_STRUCK "a ~~b~~ c\n"
#define PROBE_SKIP "a~_b_\n"

static cmark_parser *parser_with(const char *const *names, size_t n)
{
	cmark_parser *p = cmark_parser_new(CMARK_OPT_DEFAULT);
	for (size_t i = 0; i < n; i++) {
		cmark_syntax_extension *ext = cmark_find_syntax_extension(names[i]);
		if (ext)
			cmark_parser_attach_syntax_extension(p, ext);
	}
	return p;
}

/* Parses text (with the extensions named, or none) and counts the
 * nodes of a type ("text", "strikethrough") in the tree. */
static size_t count_nodes(const char *const *names, size_t n, const char *text, const char *type)
{
	cmark_parser *p = parser_with(names, n);
	cmark_parser_feed(p, text, strlen(text));
	cmark_node *root = cmark_parser_finish(p);
	size_t count = 0;
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE)
		count += ev == CMARK_EVENT_ENTER &&
			 strcmp(cmark_node_get_type_string(cmark_iter_get_node(it)), type) == 0;
	cmark_iter_free(it);
	cmark_node_free(root);
	cmark_parser_free(p);
	return count;
}

static void init(const char *const *names, size_t n)
{
	cmark_gfm_core_extensions_ensure_registered();
	/* copied, not cast: ISO C has no conversion from void * to a
	 * function pointer; POSIX guarantees the bytes are one */
	void *sym = dlsym(RTLD_NEXT, "cmark_manage_extensions_special_characters");
	memcpy(&real_manage, &sym, sizeof real_manage);
	if (!real_manage)
		return; /* no definition after ours (a static link): leave the lock */
	/* 1. the library's own calls reach the definition above: a parse
	 * with extensions adds, then removes, its characters through it;
	 * and '~' is not in the table between parses: "a~_b_" without
	 * extensions has an emphasis (the '~' before '_' is punctuation) */
	probing = true;
	probe_calls = 0;
	size_t struck = count_nodes(names, n, PROBE_STRUCK, "strikethrough");
	probing = false;
	if (probe_calls < 2 || struck != 1 || count_nodes(NULL, 0, PROBE_SKIP, "emph") != 1)
		return;
	/* 2. add the characters for good */
	cmark_parser *p = parser_with(names, n);
	real_manage(p, 1);
	stable = true;
	/* 3. after a parse with extensions has ended (and asked for its
	 * characters to go), '~' is still in the table: strikethrough is
	 * an emphasis extension, so cmark-gfm looks past its '~' when it
	 * judges a delimiter's flanks, and "a~_b_" has no emphasis (the
	 * '_' is inside a word) */
	if (count_nodes(names, n, PROBE_STRUCK, "strikethrough") != 1 ||
	    count_nodes(NULL, 0, PROBE_SKIP, "emph") != 0) {
		stable = false;
		real_manage(p, 0);
	}
	cmark_parser_free(p);
	init_ok = stable;
}

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool init_done;

bool gfmchars_init(const char *const *names, size_t n)
{
	if (atomic_load_explicit(&init_done, memory_order_acquire))
		return init_ok;
	pthread_mutex_lock(&init_lock);
	if (!atomic_load_explicit(&init_done, memory_order_relaxed)) {
		init(names, n);
		atomic_store_explicit(&init_done, true, memory_order_release);
	}
	pthread_mutex_unlock(&init_lock);
	return init_ok;
}
