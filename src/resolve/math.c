/* math.c: TeX math to MathML.  KaTeX does the TeX (Debian's
 * libjs-katex, compiled into the binary as a file like the theme); it
 * runs in duktape, a small embeddable JavaScript engine, started on the
 * first formula of a build: about 0.2 s, then a millisecond or two a
 * formula.  KaTeX gives MathML Core, which current browsers draw
 * natively; the page needs no script. */
#include "resolve/math.h"

#include <duktape.h>
#include <pthread.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "base/embedded.h"
#include "base/util.h"
#include "data/limit.h"


static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static duk_context *engine;
static bool engine_failed;

static void fatal(void *udata, const char *msg)
{
	(void)udata;
	fprintf(stderr, "logdown: the math engine failed: %s\n", msg ? msg : "(no message)");
	abort();
}

/* The engine with KaTeX loaded, or NULL (said once). */
static duk_context *start(void)
{
	if (engine || engine_failed)
		return engine;
	const struct embedded_file *js = embedded_find(EMBEDDED_KATEX);
	duk_context *ctx = js ? duk_create_heap(NULL, NULL, NULL, NULL, fatal) : NULL;
	if (!ctx) {
		engine_failed = true;
		return NULL;
	}
	/* KaTeX's UMD wrapper sets katex on `self` when there is no module
	 * system; the global object serves. */
	duk_eval_string_noresult(ctx, "var self = this;");
	/* duktape is ES5 and a bit: KaTeX's arrays (matrices, cases) call
	 * Array.prototype.fill, ES2015's */
	duk_eval_string_noresult(
		ctx, "if (!Array.prototype.fill) Array.prototype.fill = function (v, a, b) {"
		     "  var n = this.length >>> 0; a = a === undefined ? 0 : a | 0;"
		     "  b = b === undefined ? n : b | 0;"
		     "  if (a < 0) a = Math.max(n + a, 0); if (b < 0) b = Math.max(n + b, 0);"
		     "  for (var i = a; i < Math.min(b, n); i++) this[i] = v; return this; };");
	if (duk_peval_lstring(ctx, js->data, js->len) != 0) {
		duk_destroy_heap(ctx);
		engine_failed = true;
		return NULL;
	}
	duk_pop(ctx);
	duk_eval_string_noresult(
		ctx, "var ld_refused = [];"
		     "function ld_math(tex, display) {"
		     "  ld_refused = [];"
		     "  return katex.renderToString(tex, {output: 'mathml', displayMode: display,"
		     "    throwOnError: true, strict: 'ignore', trust: function (c) {"
		     "      if (c.command === '\\\\href' && /^ldv:[0-9]+$/.test(c.url)) return true;"
		     "      ld_refused.push(c.command); return false; },"
		     "    maxExpand: 1000});"
		     "}");
	engine = ctx;
	return engine;
}

/* KaTeX wraps the <math> in <span class="katex">: the element alone. */
static char *unwrap(const char *html)
{
	const char *from = strstr(html, "<math");
	const char *to = from ? strstr(from, "</math>") : NULL;
	if (!to)
		return xstrdup(html);
	return xstrndup(from, (size_t)(to + strlen("</math>") - from));
}

/* The place of tex[i] in the source: at when tex_at is unknown. */
static struct loc place(const char *tex, size_t i, struct loc at, struct loc tex_at)
{
	if (tex_at.col <= 0)
		return at;
	struct loc where = tex_at;
	for (size_t k = 0; k < i; k++) {
		if (tex[k] == '\n') {
			where.line++;
			where.col = 1;
		} else {
			where.col++; /* columns count bytes (diag.h) */
		}
	}
	where.len = 1;
	return where;
}

/* Whether the command at tex[i] (a backslash) is name: the letters
 * after the backslash are exactly name's, "\\left" is not "\\leftarrow". */
static bool command_is(const char *tex, size_t i, size_t len, const char *name)
{
	size_t n = strlen(name);
	if (i + n > len || strncmp(tex + i, name, n) != 0)
		return false;
	return i + n == len || !isalpha((unsigned char)tex[i + n]);
}

/* TeX's macro definitions: KaTeX 0.16.4 bounds macro expansion
 * (maxExpand) but not what \edef builds (CVE-2024-28243), so that a
 * formula of 163 bytes may cost seconds; a report's math defines none. */
static const char *const definitions[] = {
	"\\def", "\\edef", "\\gdef", "\\xdef", "\\let", "\\futurelet", "\\global",
	"\\newcommand", "\\renewcommand", "\\providecommand",
};

/* Within the limits math_size and math_depth (groups: braces, \left,
 * \begin), which keep one formula's work bounded, and free of macro
 * definitions?  Reports it if not. */
static bool within_limits(const char *tex, size_t len, struct loc at, struct loc tex_at,
			  struct diag *d)
{
	if (len > limit_get(LIMIT_MATH_SIZE)) {
		diag_error(d, at, "this formula is %zu bytes of TeX, over %lu (%s)", len,
			   limit_get(LIMIT_MATH_SIZE), limit_hint(LIMIT_MATH_SIZE));
		return false;
	}
	unsigned long depth = 0, max = limit_get(LIMIT_MATH_DEPTH);
	for (size_t i = 0; i < len; i++) {
		if (tex[i] == '\\' && i + 1 < len && !isalpha((unsigned char)tex[i + 1])) {
			i++; /* an escaped brace, a line break, \, or \; */
			continue;
		}
		bool cmd = tex[i] == '\\';
		for (size_t k = 0; cmd && k < ARRAY_LEN(definitions); k++) {
			if (command_is(tex, i, len, definitions[k])) {
				struct loc where = place(tex, i, at, tex_at);
				where.len = (int)strlen(definitions[k]);
				diag_error(d, where,
					   "TeX: %s defines a macro, which logdown does not run in "
					   "math: write the formula out",
					   definitions[k]);
				return false;
			}
		}
		bool open = tex[i] == '{' ||
			    (cmd && (command_is(tex, i, len, "\\left") || command_is(tex, i, len, "\\begin")));
		bool close = tex[i] == '}' ||
			     (cmd && (command_is(tex, i, len, "\\right") || command_is(tex, i, len, "\\end")));
		if (close && depth)
			depth--;
		if (open && ++depth > max) {
			diag_error(d, place(tex, i, at, tex_at), "this formula nests deeper than %lu (%s)",
				   max, limit_hint(LIMIT_MATH_DEPTH));
			return false;
		}
	}
	return true;
}

/* The byte offset in tex of KaTeX's position, which counts characters
 * (JavaScript's string indices; duktape keeps a character beyond the
 * BMP as one, not as a surrogate pair), where a column counts bytes. */
static size_t byte_offset(const char *tex, size_t len, size_t chars)
{
	size_t i = 0;
	for (size_t c = 0; i < len && c < chars; c++) {
		unsigned char b = (unsigned char)tex[i];
		size_t n = b < 0xC0 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
		i += n < len - i ? n : len - i;
	}
	return i;
}

char *math_mathml(const char *tex, size_t len, bool display, struct loc at, struct loc tex_at,
		  struct diag *d)
{
	char *out = NULL;
	if (!within_limits(tex, len, at, tex_at, d))
		return NULL;
	pthread_mutex_lock(&lock);
	duk_context *ctx = start();
	if (!ctx) {
		pthread_mutex_unlock(&lock);
		diag_error(d, at, "math cannot be shown: this logdown was built without KaTeX");
		return NULL;
	}
	duk_get_global_string(ctx, "ld_math");
	duk_push_lstring(ctx, tex, len);
	duk_push_boolean(ctx, display);
	if (duk_pcall(ctx, 2) == 0) {
		out = unwrap(duk_safe_to_string(ctx, -1));
		/* a command KaTeX runs only when trusted (\\href, \\url,
		 * \\includegraphics, \\htmlClass...) shows as its TeX in red:
		 * said, once a formula */
		duk_get_global_string(ctx, "ld_refused");
		if (duk_get_length(ctx, -1) > 0) {
			duk_get_prop_index(ctx, -1, 0);
			diag_warning(d, at,
				     "TeX: %s is not run in a report's math (links, images and "
				     "HTML from math are left out): it shows as written",
				     duk_safe_to_string(ctx, -1));
			duk_pop(ctx);
		}
		duk_pop(ctx);
	} else {
		/* a ParseError: its message without KaTeX's prefix, and the
		 * offset in tex where it is */
		int pos = -1;
		if (duk_is_object(ctx, -1)) {
			duk_get_prop_string(ctx, -1, "position");
			if (duk_is_number(ctx, -1))
				pos = duk_get_int(ctx, -1);
			duk_pop(ctx);
			duk_get_prop_string(ctx, -1, "message");
		} else {
			duk_dup(ctx, -1);
		}
		const char *msg = duk_safe_to_string(ctx, -1);
		if (str_has_prefix(msg, "KaTeX parse error: "))
			msg += strlen("KaTeX parse error: ");
		/* KaTeX quotes the place ("at position 6: \\frac{1"): the
		 * caret shows it */
		size_t keep = strlen(msg);
		const char *quote = strstr(msg, " at position ");
		if (quote)
			keep = (size_t)(quote - msg);
		else if ((quote = strstr(msg, " at end of input")) != NULL)
			keep = (size_t)(quote - msg);
		struct loc where = at;
		if (pos >= 0)
			where = place(tex, byte_offset(tex, len, (size_t)pos), at, tex_at);
		diag_error(d, where, "TeX: %.*s", (int)keep, msg);
		duk_pop(ctx);
	}
	duk_pop(ctx);
	pthread_mutex_unlock(&lock);
	return out;
}

void math_shutdown(void)
{
	pthread_mutex_lock(&lock);
	if (engine)
		duk_destroy_heap(engine);
	engine = NULL;
	engine_failed = false;
	pthread_mutex_unlock(&lock);
}
