/* lazylib.h: a shared library opened the first time it is needed, not
 * when logdown starts (lazylib.c).
 *
 * Every library a binary names is mapped and relocated before main()
 * runs, with everything it names in turn: logdown's 69 took 10 ms of
 * every start, of which librsvg (for SVG figures in PDFs) and
 * libmicrohttpd (for serve, with GnuTLS behind it) were 5 ms.  A
 * rebuild in the preview loop, or each of the test suite's thousands
 * of runs, paid for them without using them.  These two are opened
 * with dlopen() instead, by the code that calls them:
 *
 *	static struct { __typeof__(f) *f; } fns;
 *	static const struct lazysym syms[] = {{"f", &fns.f}, {NULL, NULL}};
 *	static struct lazylib lib = {.soname = "libx.so.1", .package = "libx1",
 *				     .syms = syms};
 *	...
 *	const char *why;
 *	if (!lazylib_load(&lib, &why))
 *		... say why (it names the file, the package and dlerror()) ...
 *	fns.f(...);
 *
 * __typeof__ of the header's own declaration keeps each pointer's type
 * the function's.  Loaded once, on any thread; never unloaded. */
#ifndef LOGDOWN_BASE_LAZYLIB_H
#define LOGDOWN_BASE_LAZYLIB_H

#include <stdbool.h>

/* One function of the library: its name and the address of the
 * function pointer it is stored in. */
struct lazysym {
	const char *name;
	void *slot;
};

struct lazylib {
	const char *soname;         /* what dlopen() opens: "librsvg-2.so.2" */
	const char *package;        /* Debian's package that installs it */
	const struct lazysym *syms; /* ended by {NULL, NULL} */
	bool tried, ok;             /* zero at first: lazylib_load() sets them */
	char why[512];
};

/* Opens l's library and binds every one of its syms, the first time it
 * is called (on any thread; the others wait).  False when it could not:
 * *why (not freed) says which file or function and what to install. */
bool lazylib_load(struct lazylib *l, const char **why);

#endif
