/* imagesize.h: an image's size in pixels read from its file's header,
 * without decoding it, so that a decompression bomb (a small PNG whose
 * header claims 30000x30000 pixels) can be refused before any decoder
 * allocates its pixels. */
#ifndef LOGDOWN_IMAGESIZE_H
#define LOGDOWN_IMAGESIZE_H

#include <stdio.h>

/* The size f's header claims, read from f's start: "PNG" (IHDR), "JPEG"
 * (the first SOF marker), "GIF" (the logical screen) or "WebP" (VP8,
 * VP8L or VP8X), with *w and *h set; NULL for another format or a header
 * that cannot be read (nothing set).  Moves f's position. */
const char *image_size(FILE *f, unsigned long *w, unsigned long *h);

/* The same for the file at path.  NULL also when it cannot be opened. */
const char *image_size_path(const char *path, unsigned long *w, unsigned long *h);

#endif
