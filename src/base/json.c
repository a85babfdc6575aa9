/* json.c: JSON strings, for `--diagnostics=json` and `logdown parse
 * --json`, which both quote bytes from logs. */
#include "base/json.h"

#include <string.h>

#include "base/utf8.h"

/* Bytes that are not UTF-8 (a binary log) become U+FFFD, so that the
 * output is always valid JSON. */
void json_put_string(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', out);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c == '\r') {
			fputs("\\r", out);
		} else if (c < 0x20 || c == 0x7F) {
			fprintf(out, "\\u%04x", c);
		} else if (c >= 0x80) {
			size_t len = utf8_decode(p + i, n - i, NULL, NULL);
			if (len == 0) {
				fputs("\\ufffd", out);
				i++;
				continue;
			}
			fwrite(p + i, 1, len, out);
			i += len;
			continue;
		} else {
			fputc(c, out);
		}
		i++;
	}
	fputc('"', out);
}

void json_put_cstr(FILE *out, const char *s)
{
	json_put_string(out, s, strlen(s));
}
