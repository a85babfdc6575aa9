/* gfmchars.h: cmark-gfm's table of special inline characters, made
 * stable so that parses with extensions may run on several threads at
 * once (gfmchars.c; docs/internals.md, "cmark-gfm on several threads"). */
#ifndef RESOLVE_GFMCHARS_H
#define RESOLVE_GFMCHARS_H

#include <stdbool.h>
#include <stddef.h>

/* Once a process, from any thread (later calls wait for the first):
 * registers cmark-gfm's core extensions, then, if a self-check proves
 * that the library's own calls that add and remove its extensions'
 * characters reach gfmchars.c, adds the characters of the extensions
 * named in names[0..n) for good and drops every later change.  Every
 * parse with extensions must attach exactly these.  Returns true when
 * it did (parses with and without extensions may then run at once),
 * false when the library is left to itself (one parse with extensions
 * at a time, and none without them meanwhile: the caller locks). */
bool gfmchars_init(const char *const *names, size_t n);

#endif
