/* util.h: memory, growable buffers and borrowed spans used by every module. */
#ifndef LOGDOWN_UTIL_H
#define LOGDOWN_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation that never returns NULL: on exhaustion it prints a message
 * and aborts.  Bad input never reaches these failure paths. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Caller frees the result of xasprintf(). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer that always ends in NUL.  Start one with
 * `struct buf b = BUF_INIT;`; release it with buf_free(). */
struct buf {
	char *data;
	size_t len;
	size_t cap;
};
#define BUF_INIT {NULL, 0, 0}

void buf_grow(struct buf *b, size_t extra);
void buf_put(struct buf *b, const char *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* Appends s with & < > " ' escaped for HTML text and attribute values. */
void buf_put_html(struct buf *b, const char *s, size_t n);
void buf_clear(struct buf *b);
/* Returns a NUL-terminated string ("" for an empty buffer) that the
 * caller frees with free(); the buffer is left empty. */
char *buf_detach(struct buf *b);
/* buf_data() of an empty buffer is "", never NULL. */
const char *buf_data(const struct buf *b);
void buf_free(struct buf *b);

/* A borrowed slice of someone else's bytes: never freed through a span. */
struct span {
	const char *p;
	size_t len;
};

bool span_eq(struct span s, const char *lit);
bool str_has_suffix(const char *s, const char *suffix);
bool str_has_prefix(const char *s, const char *prefix);

/* The first byte of [p, end) that is one of the 1 to 4 bytes of the
 * NUL-terminated set, or end: sixteen bytes at a time where SSE2 is (a
 * plain loop took about 6 instructions a byte). */
const char *mem_first_of(const char *p, const char *end, const char *set);

/* True when a browser would run or load the URL in s[0..n) as script or
 * a local file: a javascript:, vbscript:, file: or data: scheme (data:
 * images in PNG, GIF, JPEG or WebP excepted), in any case, with the
 * blanks and control characters browsers skip.  cmark's safe-mode
 * rule. */
bool url_is_dangerous(const char *s, size_t n);

/* A 64-bit FNV-1a hash of the string s: compared before the strings
 * themselves where many long names (paths) are looked up. */
uint64_t str_hash(const char *s);

/* Sorts the n strings of v in place, in strcmp() order: as qsort() with
 * strcmp, in about a third of its time where most strings differ in
 * their first 8 bytes (words), since those are compared as one integer
 * without a call.  O(n log n) whatever the order given. */
void str_sort(char **v, size_t n);

/* The same order without moving v: order[0..n) gets the indexes of v's
 * strings, in strcmp() order.  n is at most UINT32_MAX. */
void str_sort_order(char *const *v, size_t n, uint32_t *order);

/* Appends the NULL-terminated names joined with ", ". */
void buf_put_names(struct buf *b, const char *const *names);

/* Levenshtein distance, capped: returns cap+1 when the distance exceeds
 * cap.  Used for did-you-mean suggestions. */
size_t edit_distance(const char *a, const char *b, size_t cap);
/* Of the NULL-terminated candidates, the one closest to name, if it is
 * close enough to be a plausible typo; NULL otherwise.  Borrowed. */
const char *closest_name(const char *name, const char *const *candidates);

/* Can s be written as a name in an expression: a letter or '_', then
 * letters, digits and '_'? */
bool is_identifier(const char *s);
/* s made a name an expression can write: each run of other characters
 * than ASCII letters, digits and '_' becomes one '_', and a name that
 * starts with a digit gets a '_' in front ("bs-512" -> "bs_512", "512b"
 * -> "_512b", "" -> "_").  Caller frees. */
char *identifier_of(const char *s);

/* The setting of a fault-injecting test hook, the environment variable
 * `name` (LOGDOWN_TEST_KILL_AT and the others that write into a log, kill
 * the build or fail its steps on purpose): in the test builds, compiled
 * with -DLOGDOWN_TEST_HOOKS (the ASan, valgrind and TSan builds), its
 * value or NULL; in the release binary always NULL, so that no variable
 * left in a user's environment can change their logs or their site. */
const char *test_hook_env(const char *name);

#endif
