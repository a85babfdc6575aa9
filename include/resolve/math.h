/* math.h: TeX math to MathML, by KaTeX (Debian's libjs-katex) run in an
 * embedded JavaScript engine (duktape). */
#ifndef LOGDOWN_MATH_H
#define LOGDOWN_MATH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* The MathML of tex (len bytes): a <math> element, display="block" when
 * display.  NULL after an error, reported at its place when tex_at
 * (the line and column of tex's first byte) is known, that is when
 * tex_at.col > 0 (the TeX is the source as written), else at `at`.
 * Caller frees.  Thread-safe: one engine, started on the first call,
 * serves the process. */
char *math_mathml(const char *tex, size_t len, bool display, struct loc at, struct loc tex_at,
		  struct diag *d);

/* Stops the engine (at exit; tests). */
void math_shutdown(void);

#endif
