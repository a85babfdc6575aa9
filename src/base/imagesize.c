/* imagesize.c: an image's size read from its header, never decoded. */
#include "base/imagesize.h"

#include <string.h>

static unsigned long be16(const unsigned char *p)
{
	return (unsigned long)p[0] << 8 | p[1];
}

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 |
	       p[3];
}

static unsigned long le16(const unsigned char *p)
{
	return (unsigned long)p[1] << 8 | p[0];
}

static unsigned long le24(const unsigned char *p)
{
	return (unsigned long)p[2] << 16 | (unsigned long)p[1] << 8 | p[0];
}

/* JPEG: the segments after SOI up to the first start of frame (SOF0 to
 * SOF15 but DHT, JPG and DAC), whose height and width follow the
 * precision byte.  EXIF and other APPn segments come first, so this
 * seeks from one segment's length to the next; a count caps a file of
 * empty segments. */
static const char *jpeg_size(FILE *f, unsigned long *w, unsigned long *h)
{
	if (fseek(f, 2, SEEK_SET) != 0)
		return NULL;
	for (int seg = 0; seg < 10000; seg++) {
		int c = fgetc(f);
		if (c != 0xFF)
			return NULL;
		while ((c = fgetc(f)) == 0xFF) /* fill bytes */
			;
		if (c == EOF || c == 0xD9 || c == 0xDA) /* end of image, start of scan */
			return NULL;
		if (c == 0x01 || (c >= 0xD0 && c <= 0xD7)) /* no length */
			continue;
		unsigned char len[2];
		if (fread(len, 1, 2, f) != 2 || be16(len) < 2)
			return NULL;
		if (c >= 0xC0 && c <= 0xCF && c != 0xC4 && c != 0xC8 && c != 0xCC) {
			unsigned char sof[5];
			if (be16(len) < 7 || fread(sof, 1, 5, f) != 5)
				return NULL;
			*h = be16(sof + 1);
			*w = be16(sof + 3);
			return "JPEG";
		}
		if (fseek(f, (long)be16(len) - 2, SEEK_CUR) != 0)
			return NULL;
	}
	return NULL;
}

const char *image_size(FILE *f, unsigned long *w, unsigned long *h)
{
	unsigned char b[32];
	if (fseek(f, 0, SEEK_SET) != 0)
		return NULL;
	size_t n = fread(b, 1, sizeof b, f);
	/* PNG: the signature, then IHDR first: length, type, width, height */
	if (n >= 24 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(b + 12, "IHDR", 4) == 0) {
		*w = be32(b + 16);
		*h = be32(b + 20);
		return "PNG";
	}
	if (n >= 4 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
		return jpeg_size(f, w, h);
	if (n >= 10 && (memcmp(b, "GIF87a", 6) == 0 || memcmp(b, "GIF89a", 6) == 0)) {
		*w = le16(b + 6);
		*h = le16(b + 8);
		return "GIF";
	}
	if (n >= 20 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0) {
		const unsigned char *c = b + 12, *d = b + 20;
		if (n >= 30 && memcmp(c, "VP8X", 4) == 0) { /* canvas size, minus one */
			*w = le24(d + 4) + 1;
			*h = le24(d + 7) + 1;
			return "WebP";
		}
		if (n >= 25 && memcmp(c, "VP8L", 4) == 0 && d[0] == 0x2F) { /* 14 bits each, minus one */
			unsigned long bits = d[1] | (unsigned long)d[2] << 8 |
					     (unsigned long)d[3] << 16 | (unsigned long)d[4] << 24;
			*w = (bits & 0x3FFF) + 1;
			*h = (bits >> 14 & 0x3FFF) + 1;
			return "WebP";
		}
		if (n >= 30 && memcmp(c, "VP8 ", 4) == 0 && d[3] == 0x9D && d[4] == 0x01 && d[5] == 0x2A) {
			*w = le16(d + 6) & 0x3FFF;
			*h = le16(d + 8) & 0x3FFF;
			return "WebP";
		}
	}
	return NULL;
}

const char *image_size_path(const char *path, unsigned long *w, unsigned long *h)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	const char *kind = image_size(f, w, h);
	fclose(f);
	return kind;
}
