/* fsutil.c: files, folders and paths on POSIX. */
#define _GNU_SOURCE /* copy_file_range(); realpath() */
#include "base/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h> /* FICLONE */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

bool file_read(const char *path, struct buf *out, const size_t *limit)
{
	/* O_NONBLOCK: opening a FIFO must not hang the build. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (limit && (size_t)st.st_size > *limit) {
		errno = EFBIG;
		goto fail;
	}
	/* The size, and a byte to see the end by: a file read whole costs
	 * its size, not a read chunk more (a build keeps 1,000 reports). */
	buf_grow(out, (size_t)st.st_size + 1);
	for (;;) {
		if (out->cap - out->len < 2)
			buf_grow(out, 65536);
		ssize_t n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->data[out->len] = '\0';
		if (limit && out->len > *limit) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	return true;
fail: {
	int e = errno;
	close(fd);
	errno = e;
	return false;
}
}

bool file_write(const char *path, const char *data, size_t len)
{
	struct span one = {data, len};
	return file_write_spans(path, &one, 1);
}

bool file_write_spans(const char *path, const struct span *parts, size_t n)
{
	/* O_NOFOLLOW: a link planted where logdown writes is refused
	 * (ELOOP), never written through. */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *data = parts[i].p;
		size_t len = parts[i].len;
		while (len > 0) {
			ssize_t w = write(fd, data, len);
			if (w < 0) {
				if (errno == EINTR)
					continue;
				int e = errno;
				close(fd);
				errno = e;
				return false;
			}
			data += w;
			len -= (size_t)w;
		}
	}
	return close(fd) == 0;
}

bool file_copy(const char *from, const char *to)
{
	int in = open_regular(from, NULL);
	if (in < 0)
		return false;
	bool ok = file_copy_fd(in, to);
	int e = errno;
	close(in);
	errno = e;
	return ok;
}

bool file_copy_fd(int in, const char *to)
{
	/* In chunks: a result file may be far larger than memory wants. */
	if (lseek(in, 0, SEEK_SET) != 0)
		return false;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (out < 0)
		return false;
	/* A reflink where the file system shares extents (Btrfs, XFS,
	 * bcachefs, OCFS2): the copy costs no read and no space until one
	 * of the two is written, and is atomic against a writer of the
	 * source.  Else in the kernel where it can (no copy through this
	 * process), else in chunks. */
	bool ok = true;
	off_t copied = 0;
	if (ioctl(out, FICLONE, in) == 0)
		goto done;
	for (;;) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			copied += n;
			continue;
		}
		if (n == 0)
			goto done;
		/* Not for these two files: an old kernel, another file
		 * system, a special one.  Nothing was written yet? Then
		 * read and write; else it is a real error. */
		if (copied == 0 && (errno == ENOSYS || errno == EXDEV || errno == EINVAL ||
				    errno == EOPNOTSUPP || errno == EBADF || errno == EPERM))
			break;
		ok = false;
		goto done;
	}
	enum { CHUNK = 1 << 20 };
	char *buf = xmalloc(CHUNK);
	for (;;) {
		ssize_t n = read(in, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ok = false;
				break;
			}
			done += w;
		}
		if (!ok)
			break;
	}
	int saved = errno;
	free(buf);
	errno = saved;
done:;
	int e = errno;
	if (close(out) != 0 && ok) {
		e = errno;
		ok = false;
	}
	errno = e;
	return ok;
}

bool file_same(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int fb = open(b, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sa, sb;
	bool same = fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
		    S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_size == sb.st_size;
	enum { CHUNK = 1 << 16 };
	char *x = same ? xmalloc(2 * CHUNK) : NULL;
	while (same) {
		ssize_t n = read(fa, x, CHUNK);
		if (n <= 0) {
			same = n == 0;
			break;
		}
		for (ssize_t got = 0; same && got < n;) {
			ssize_t m = read(fb, x + CHUNK + got, (size_t)(n - got));
			if (m <= 0)
				same = false;
			else
				got += m;
		}
		same = same && memcmp(x, x + CHUNK, (size_t)n) == 0;
	}
	int e = errno;
	free(x);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	errno = e;
	return same;
}

bool mkdir_p(const char *path)
{
	if (!*path) {
		errno = ENOENT;
		return false;
	}
	/* Most folders asked for are there already, or their parent is:
	 * try the folder itself before walking down from the root. */
	if (mkdir(path, 0755) == 0)
		return true;
	if (errno == EEXIST) {
		if (is_dir(path))
			return true;
		errno = ENOTDIR;
		return false;
	}
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			free(p);
			return false;
		}
		*s = '/';
	}
	bool ok = mkdir(p, 0755) == 0 || (errno == EEXIST && is_dir(p));
	if (!ok && errno == EEXIST)
		errno = ENOTDIR;
	free(p);
	return ok;
}

bool remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0;
	size_t n;
	char **names = dir_list(path, &n);
	if (!names)
		return false;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		char *child = path_join(path, names[i]);
		ok = remove_tree(child);
		free(child);
	}
	strv_free(names);
	return ok && rmdir(path) == 0;
}

bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool dir_is_empty(const char *path)
{
	size_t n;
	char **names = dir_list(path, &n);
	strv_free(names);
	return names && n == 0;
}

const char *file_kind_word(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a folder";
	return "not a regular file";
}

bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* A name and its type as the listing gave it (dir_list_typed()). */
struct named {
	char *name;
	unsigned char type;
};

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

char **dir_list_typed(const char *path, size_t *n, unsigned char **types)
{
	DIR *dir = opendir(path);
	if (!dir)
		return NULL;
	size_t count = 0, cap = 16;
	struct named *v = xmalloc(cap * sizeof *v);
	struct dirent *e;
	for (;;) {
		errno = 0;
		if (!(e = readdir(dir)))
			break;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (count + 1 >= cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[count].name = xstrdup(e->d_name);
		v[count++].type = e->d_type;
	}
	/* A listing cut short by an error is an error, not fewer files. */
	int err = errno;
	closedir(dir);
	if (err) {
		for (size_t i = 0; i < count; i++)
			free(v[i].name);
		free(v);
		errno = err;
		return NULL;
	}
	qsort(v, count, sizeof *v, cmp_named);
	char **names = xmalloc((count + 1) * sizeof *names);
	if (types)
		*types = xmalloc(count + 1);
	for (size_t i = 0; i < count; i++) {
		names[i] = v[i].name;
		if (types)
			(*types)[i] = v[i].type;
	}
	names[count] = NULL;
	free(v);
	*n = count;
	return names;
}

char **dir_list(const char *path, size_t *n)
{
	return dir_list_typed(path, n, NULL);
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

char *path_join(const char *a, const char *b)
{
	/* "." joins to nothing, so diagnostics say content/x.md, not ./content/x.md. */
	if (!*a || b[0] == '/' || strcmp(a, ".") == 0)
		return xstrdup(b);
	size_t la = strlen(a);
	while (la > 1 && a[la - 1] == '/')
		la--;
	if (strcmp(b, ".") == 0 || !*b)
		return xstrndup(a, la);
	if (la == 1 && a[0] == '/')
		la = 0; /* "/" + "x" is "/x" */
	/* By hand, not xasprintf(): a build joins paths tens of thousands
	 * of times, and printf twice over each was a fifth of a rebuild. */
	size_t lb = strlen(b);
	char *out = xmalloc(la + 1 + lb + 1);
	memcpy(out, a, la);
	out[la] = '/';
	memcpy(out + la + 1, b, lb + 1);
	return out;
}

char *path_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	return xstrndup(base, n);
}

bool fd_count_lines(int fd, char *buf, size_t cap, long *lines, unsigned long long *bytes)
{
	return fd_count_lines_indexed(fd, buf, cap, lines, bytes, NULL);
}

static void index_add(struct line_index *ix, size_t *cap, off_t at)
{
	if (ix->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		ix->starts = xrealloc(ix->starts, *cap * sizeof *ix->starts);
	}
	ix->starts[ix->n++] = at;
}

void line_count_start(struct line_count *lc, long every)
{
	memset(lc, 0, sizeof *lc);
	lc->last = '\n';
	lc->ix.every = every;
	if (every)
		index_add(&lc->ix, &lc->icap, 0);
}

void line_count_resume(struct line_count *lc, long lines, unsigned long long bytes,
		       const struct line_index *ix, char last)
{
	memset(lc, 0, sizeof *lc);
	/* a last line without its '\n' was counted: it goes on */
	lc->nl = lines - (last != '\n' ? 1 : 0);
	lc->total = bytes;
	lc->last = last;
	lc->ix.every = ix->every;
	lc->ix.n = lc->icap = ix->n;
	lc->ix.starts = xmalloc((ix->n ? ix->n : 1) * sizeof *lc->ix.starts);
	memcpy(lc->ix.starts, ix->starts, ix->n * sizeof *ix->starts);
}

void line_count_feed(struct line_count *lc, const char *p, size_t n)
{
	if (!n)
		return;
	for (const char *q = p, *end = p + n; (q = memchr(q, '\n', (size_t)(end - q))); q++) {
		lc->nl++;
		/* line nl + 1 starts after this newline */
		if (lc->ix.every && lc->nl % lc->ix.every == 0)
			index_add(&lc->ix, &lc->icap,
				  (off_t)(lc->total + (unsigned long long)(q - p) + 1));
	}
	lc->total += n;
	lc->last = p[n - 1];
}

long line_count_lines(const struct line_count *lc)
{
	return lc->nl + (lc->last != '\n' ? 1 : 0);
}

bool fd_count_lines_indexed(int fd, char *buf, size_t cap, long *lines,
			    unsigned long long *bytes, struct line_index *ix)
{
	struct line_count lc;
	line_count_start(&lc, ix ? ix->every : 0);
	for (;;) {
		ssize_t got = read(fd, buf, cap);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(lc.ix.starts);
			return false;
		}
		if (got == 0)
			break;
		line_count_feed(&lc, buf, (size_t)got);
	}
	*lines = line_count_lines(&lc);
	if (bytes)
		*bytes = lc.total;
	if (ix)
		*ix = lc.ix;
	return true;
}

char *path_dirname(const char *path)
{
	/* As dirname(3): trailing slashes do not count. */
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *slash = NULL;
	for (size_t i = 0; i < n; i++)
		if (path[i] == '/')
			slash = path + i;
	if (!slash)
		return xstrdup(".");
	while (slash > path && slash[-1] == '/')
		slash--;
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *path_real(const char *path)
{
	char *r = realpath(path, NULL);
	if (!r)
		return NULL;
	char *out = xstrdup(r);
	free(r);
	return out;
}

char *path_resolve(const char *path)
{
	struct buf out = BUF_INIT;
	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		buf_puts(&out, cwd);
		free(cwd);
	}
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* out is canonical so far: its last name is no link. */
			char *slash = strrchr(buf_data(&out), '/');
			out.len = slash ? (size_t)(slash - out.data) : 0;
			if (out.data)
				out.data[out.len] = '\0';
		} else {
			buf_putc(&out, '/');
			buf_put(&out, p, n);
			/* out was canonical and a name that is no link keeps it
			 * so: only a link needs resolving (a realpath() of the
			 * whole path for every name cost a readlink() per name
			 * per name: most of a rebuild's system calls). */
			struct stat st;
			if (lstat(out.data, &st) == 0 && S_ISLNK(st.st_mode)) {
				char *real = path_real(out.data);
				if (!real) {
					buf_free(&out);
					return NULL;
				}
				buf_clear(&out);
				buf_puts(&out, strcmp(real, "/") == 0 ? "" : real);
				free(real);
			}
		}
		p += n;
	}
	if (out.len == 0)
		buf_putc(&out, '/');
	return buf_detach(&out);
}

const char *path_under(const char *path, const char *base)
{
	size_t n = strlen(base);
	if (strcmp(base, "/") == 0)
		return path + 1;
	if (strncmp(path, base, n) != 0)
		return NULL;
	if (path[n] == '\0')
		return path + n;
	if (path[n] == '/')
		return path + n + 1;
	return NULL;
}

bool path_inside(const char *path, const char *dir)
{
	char *real = path_real(path), *base = path_real(dir);
	bool inside = real && base && path_under(real, base) != NULL;
	free(real);
	free(base);
	return inside;
}

/* Opens rel (canonical, relative, no "." or "..") below the folder
 * root without following a link anywhere below root: one folder at a
 * time, each with O_NOFOLLOW.  A link where rel's resolution found none
 * (planted since) is ELOOP. */
static int open_beneath(const char *root, const char *rel, struct stat *st)
{
	if (!*rel) {
		errno = EISDIR; /* the project itself */
		return -1;
	}
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	char *copy = xstrdup(rel);
	char *name = copy;
	for (char *slash; (slash = strchr(name, '/'));) {
		*slash = '\0';
		int next = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(dfd);
		if (next < 0) {
			free(copy);
			/* a link as a folder is ELOOP or ENOTDIR, by kernel */
			errno = e == ENOTDIR ? ELOOP : e;
			return -1;
		}
		dfd = next;
		name = slash + 1;
	}
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int e = errno;
	close(dfd);
	free(copy);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		e = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int open_confined(const char *path, const char *root_real, struct stat *st)
{
	struct stat own;
	if (!st)
		st = &own;
	/* A link can be planted between the resolution and the open; the
	 * open then fails on it (ELOOP) and the path is resolved again: a
	 * link inside the project is followed as always, one out refused.
	 * A few times, for one who keeps swapping. */
	for (int attempt = 0; attempt < 4; attempt++) {
		char *real = path_resolve(path);
		if (!real)
			return -1;
		const char *rel = path_under(real, root_real);
		if (!rel) {
			free(real);
			errno = EXDEV;
			return -1;
		}
		int fd = open_beneath(root_real, rel, st);
		int e = errno;
		free(real);
		if (fd >= 0 || e != ELOOP) {
			errno = e;
			return fd;
		}
	}
	errno = ELOOP;
	return -1;
}

bool stat_unchanged(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int open_regular(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat own;
	if (!st)
		st = &own;
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

const char *open_error(int e)
{
	return e == EINVAL ? "not a regular file" : strerror(e);
}
