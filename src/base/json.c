/* json.c: JSON strings, for `--diagnostics=json` and `logdown parse
 * --json`, which both quote bytes from logs. */
#include "base/json.h"

#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

/* Bytes that are not UTF-8 (a binary log) become U+FFFD, so that the
 * output is always valid JSON; control characters, C1 ones too, are
 * \u escapes, never raw. */
void json_put_string(FILE *out, const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	json_buf_string(&b, s, n);
	fwrite(b.data, 1, b.len, out);
	buf_free(&b);
}

void json_put_cstr(FILE *out, const char *s)
{
	json_put_string(out, s, strlen(s));
}

void json_buf_string(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	buf_putc(b, '"');
	size_t plain = 0; /* the start of bytes copied as they are */
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7F) {
			i++;
			continue;
		}
		unsigned long cp = 0;
		size_t len = c >= 0x80 ? utf8_decode(p + i, n - i, NULL, &cp) : 0;
		if (len && cp > 0x9F) {
			i += len;
			continue;
		}
		buf_put(b, s + plain, i - plain);
		if (c == '"' || c == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (char)c);
		} else if (c == '\n') {
			buf_puts(b, "\\n");
		} else if (c == '\t') {
			buf_puts(b, "\\t");
		} else if (c == '\r') {
			buf_puts(b, "\\r");
		} else if (c < 0x20 || c == 0x7F) {
			buf_printf(b, "\\u%04x", c);
		} else if (len) {
			/* a C1 control (U+0080..U+009F, 0x9B is a terminal's
			 * CSI): valid JSON raw, but never raw in what we write */
			buf_printf(b, "\\u%04lx", cp);
			plain = i += len;
			continue;
		} else {
			buf_puts(b, "\\ufffd"); /* a stray byte */
		}
		plain = ++i;
	}
	buf_put(b, s + plain, n - plain);
	buf_putc(b, '"');
}
