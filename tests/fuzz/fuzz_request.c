/* fuzz_request.c: serve's request paths (cmd/request.c) on any bytes a
 * client may send as a URL.
 *
 * A site is made once under /tmp: pages and folders, a symbolic link to
 * a folder outside it and one to a file outside it, a FIFO, and a
 * hidden marker.  The input, cut at its first NUL (MHD hands the path
 * over as a C string), is the raw path.  Then:
 *
 *   - a path request_decode() accepts starts with '/', holds no NUL, no
 *     backslash and no segment starting with a dot;
 *   - what request_open() opens is a regular file or a folder whose real
 *     path is the site's followed by the decoded path's segments: never
 *     a FIFO, never through a link, never outside the site;
 *   - a folder's redirect (request_folder_location()) starts with one
 *     '/', never two, holds no byte a Location header could be split by
 *     or a browser would read as another host, and decodes back to the
 *     same folder;
 *   - every name has a MIME type. */
#include "fuzz.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "cmd/request.h"

static char *root;
static int root_fd = -1;

static void put(const char *rel, const char *text)
{
	char *path = path_join(root, rel);
	if (!file_write(path, text, strlen(text)))
		abort();
	free(path);
}

/* The site, once. */
static void setup(void)
{
	if (root)
		return;
	char tmpl[] = "/tmp/logdown-fuzz-request-XXXXXX";
	if (!mkdtemp(tmpl))
		abort();
	char *outside = path_join(tmpl, "outside");
	char *site = path_join(tmpl, "site");
	char *deep = path_join(site, "r/logs/deep");
	char *secret = path_join(outside, "secret.html");
	if (!mkdir_p(outside) || !mkdir_p(deep) || !file_write(secret, "secret", 6))
		abort();
	root = site;
	put("index.html", "<p>home</p>");
	put(".logdown-site", "");
	put("r/index.html", "<p>r</p>");
	put("r/logs/run.log", "loss 1.5\n");
	put("r/logs/deep/a b%.txt", "x");
	char *l1 = path_join(site, "out"), *l2 = path_join(site, "r/secret.html");
	char *fifo = path_join(site, "r/pipe.log");
	if (symlink(outside, l1) != 0 || symlink(secret, l2) != 0 || mkfifo(fifo, 0600) != 0)
		abort();
	root_fd = open(site, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		abort();
	free(l1);
	free(l2);
	free(fifo);
	free(outside);
	free(secret);
	free(deep);
}

/* The decoded path's segments, one slash between, no slash at either
 * end. */
static char *segments(const char *path)
{
	struct buf b = BUF_INIT;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n) {
			if (b.len)
				buf_putc(&b, '/');
			buf_put(&b, p, n);
		}
		p += n;
	}
	return buf_detach(&b);
}

/* fd's real path is the site's joined with rel (or the site itself). */
static void is_in_site(int fd, const char *rel)
{
	char link[64], real[PATH_MAX + 1];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, PATH_MAX);
	if (n < 0)
		abort();
	real[n] = '\0';
	char *want = *rel ? path_join(root, rel) : xstrdup(root);
	if (strcmp(real, want) != 0) {
		fprintf(stderr, "opened %s for %s\n", real, want);
		abort();
	}
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	char *url = xstrndup((const char *)data, size); /* cut at a NUL */
	struct buf path = BUF_INIT;
	if (!request_decode(url, &path))
		goto out;
	const char *p = buf_data(&path);
	if (p[0] != '/' || strlen(p) != path.len || strchr(p, '\\'))
		abort();
	for (const char *seg = p; *seg; seg += strcspn(seg, "/"))
		if (*(seg += *seg == '/') == '.')
			abort();
	(void)request_mime_type(p);

	int fd = -1;
	struct stat st;
	enum request_found f = request_open(root_fd, p, &fd, &st);
	if (f == REQUEST_FILE || f == REQUEST_FOLDER) {
		if (f == REQUEST_FILE ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))
			abort();
		char *rel = segments(p);
		is_in_site(fd, rel);
		free(rel);
		close(fd);
	}
	if (f == REQUEST_FOLDER) {
		char *to = request_folder_location(url);
		if (to[0] != '/' || to[1] == '/' || strpbrk(to, "\r\n\\ \"<>") ||
		    to[strlen(to) - 1] != '/')
			abort();
		for (const char *c = to; *c; c++)
			if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
				abort();
		/* back to the same folder */
		struct buf again = BUF_INIT;
		if (!request_decode(to, &again))
			abort();
		char *a = segments(p), *b = segments(buf_data(&again));
		if (strcmp(a, b) != 0)
			abort();
		free(a);
		free(b);
		buf_free(&again);
		free(to);
	}
out:
	buf_free(&path);
	free(url);
	return 0;
}
