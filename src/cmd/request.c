/* request.c: what a request's path names in the served folder, for
 * `logdown serve` (request.h).  Kept apart from serve.c, which owns the
 * connections, so that fuzz_request can drive it without a server. */
#define _GNU_SOURCE
#include "cmd/request.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/util.h"

const char *request_mime_type(const char *path)
{
	static const char *const types[][2] = {
		{".html", "text/html; charset=utf-8"},
		{".htm", "text/html; charset=utf-8"},
		{".css", "text/css; charset=utf-8"},
		{".js", "text/javascript; charset=utf-8"},
		{".json", "application/json"},
		{".svg", "image/svg+xml"},
		{".png", "image/png"},
		{".jpg", "image/jpeg"},
		{".jpeg", "image/jpeg"},
		{".gif", "image/gif"},
		{".webp", "image/webp"},
		{".ico", "image/x-icon"},
		{".pdf", "application/pdf"},
		{".csv", "text/csv; charset=utf-8"},
		{".txt", "text/plain; charset=utf-8"},
		{".log", "text/plain; charset=utf-8"},
		{".out", "text/plain; charset=utf-8"},
		{".err", "text/plain; charset=utf-8"},
		{".yaml", "text/plain; charset=utf-8"},
		{".md", "text/plain; charset=utf-8"},
	};
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash : path, '.');
	if (dot)
		for (size_t i = 0; i < ARRAY_LEN(types); i++)
			if (strcasecmp(dot, types[i][0]) == 0)
				return types[i][1];
	return "application/octet-stream";
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool request_decode(const char *raw, struct buf *out)
{
	if (strlen(raw) > REQUEST_MAX_URL || raw[0] != '/')
		return false;
	for (const char *p = raw; *p; p++) {
		char c = *p;
		if (c == '%') {
			int hi = hex_digit(p[1]), lo = hi < 0 ? -1 : hex_digit(p[2]);
			if (lo < 0)
				return false;
			c = (char)(hi * 16 + lo);
			p += 2;
			if (c == '\0')
				return false;
		}
		if (c == '\\')
			return false;
		buf_putc(out, c);
	}
	/* Segments, after decoding: "%2e%2e%2f" is "../". */
	for (const char *seg = buf_data(out); *seg;) {
		seg += *seg == '/';
		if (*seg == '.')
			return false;
		seg += strcspn(seg, "/");
	}
	return true;
}

enum request_found request_open(int root, const char *path, int *fd, struct stat *st)
{
	int dir = fcntl(root, F_DUPFD_CLOEXEC, 0);
	if (dir < 0)
		return REQUEST_MISSING;
	const char *p = path;
	for (;;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0) {
			if (fstat(dir, st) != 0) {
				close(dir);
				return REQUEST_MISSING;
			}
			*fd = dir;
			return REQUEST_FOLDER;
		}
		char name[NAME_MAX + 1];
		if (n > NAME_MAX) {
			close(dir);
			return REQUEST_MISSING;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		struct stat ls;
		if (fstatat(dir, name, &ls, AT_SYMLINK_NOFOLLOW) != 0) {
			int err = errno;
			close(dir);
			return err == ENOENT || err == ENOTDIR ? REQUEST_MISSING : REQUEST_REFUSED;
		}
		if (S_ISDIR(ls.st_mode)) {
			int next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int err = errno;
			close(dir);
			if (next < 0)
				return err == ENOENT ? REQUEST_MISSING : REQUEST_REFUSED;
			dir = next;
			if (!*p) {
				if (fstat(dir, st) != 0) {
					close(dir);
					return REQUEST_MISSING;
				}
				*fd = dir;
				return REQUEST_FOLDER;
			}
			continue;
		}
		if (!S_ISREG(ls.st_mode)) {
			close(dir);
			return REQUEST_REFUSED;
		}
		if (*p) { /* a file where the path wants a folder */
			close(dir);
			return REQUEST_MISSING;
		}
		int f = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		int err = errno;
		close(dir);
		if (f < 0)
			return err == ENOENT ? REQUEST_MISSING : REQUEST_REFUSED;
		if (fstat(f, st) != 0 || !S_ISREG(st->st_mode) || st->st_dev != ls.st_dev ||
		    st->st_ino != ls.st_ino) {
			close(f);
			return REQUEST_REFUSED;
		}
		*fd = f;
		return REQUEST_FILE;
	}
}

char *request_folder_location(const char *url)
{
	struct buf path = BUF_INIT, to = BUF_INIT;
	request_decode(url, &path);
	const char *p = buf_data(&path);
	for (size_t i = 0; p[i]; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '/') {
			if (!to.len || to.data[to.len - 1] != '/')
				buf_putc(&to, '/');
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			   strchr("-._~!$&'()*+,;=:@", c)) {
			buf_putc(&to, (char)c);
		} else {
			buf_printf(&to, "%%%02X", c);
		}
	}
	if (!to.len || to.data[to.len - 1] != '/')
		buf_putc(&to, '/');
	buf_free(&path);
	return buf_detach(&to);
}
