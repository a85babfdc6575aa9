/* fuzz_imagesize.c: an image's header size reader (base/imagesize.c) on
 * arbitrary bytes: it must end (a JPEG of empty segments is capped) and
 * read nothing past the bytes it was given. */
#include "fuzz.h"

#include "base/imagesize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	unsigned long w = 0, h = 0;
	const char *kind = image_size(f, &w, &h);
	if (kind && strcmp(kind, "PNG") && strcmp(kind, "JPEG") && strcmp(kind, "GIF") &&
	    strcmp(kind, "WebP"))
		abort();
	fclose(f);
	return 0;
}
