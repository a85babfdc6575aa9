/* serve.c: `logdown serve`, the preview server (SPEC section 10).
 *
 * Threads: libmicrohttpd runs a few worker threads, each with its own
 * epoll set (poll where there is no epoll), never one thread per
 * connection, so the number of connections is bounded by the file
 * descriptors the process may open (connection_limit()), not by
 * select()'s 1,024.  A connection idle for IDLE_SECS is closed.  An
 * event stream that has nothing to send is suspended and resumed when a
 * build ends or every second for a ping (struct events).
 *
 * The main thread builds and polls the watched files.  SIGINT and
 * SIGTERM are blocked in every thread and taken by a watchdog thread,
 * which asks the main thread to stop and, when a build holds it longer
 * than STOP_GRACE_MS (a slow file, a huge log), ends the process itself:
 * serve stops within a second whatever it is doing, however many signals
 * come, with exit 0.  A child forked at the start, the sweeper, then
 * removes what that build had begun to write (sweeper()).
 *
 * Files are served from the output folder as the last build left it,
 * opened one path segment at a time with O_NOFOLLOW: a symbolic link is
 * never followed, a FIFO, socket or device never opened (request_open()).
 * When the output folder is removed or replaced (by a link, say), the
 * last good site is served from the folder held open since its build,
 * and a build is run again; one that would write through a link is not
 * run.
 *
 * A change rebuilds only what it affects: the build tells which report
 * read which file; a report whose source, bundle and result files did
 * not change has its folder copied from the previous output, and
 * result files that did not change are not parsed again (a parse
 * cache kept for the whole session).  site.yaml, templates, static
 * files, parsers, a report that appears or goes, or a failed last
 * build: everything is rendered again. */
#include "cmd/serve.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/outdir.h"
#include "base/util.h"
#include "cmd/httpd.h"
#include "cmd/request.h"
#include "cmd/snapshot.h"
#include "cmd/wake.h"
#include "data/cache.h"
#include "data/config.h"
#include "parse/runs.h"

#define EVENTS_PATH "/__logdown/events"

/* libmicrohttpd's functions (httpd.h): set as serve_run() starts. */
static const struct httpd *mhd;
/* The poll, when inotify does not wake serve first (cmd/wake.h): a
 * save is seen at once, then built once nothing changed for SETTLE_MS
 * (an editor's write and rename, a burst of a job's appends). */
#define POLL_MS 300
#define SETTLE_MS 80
/* A connection that sends or takes nothing for this long is closed: a
 * half-sent request, a kept-alive connection, a client that stopped
 * reading.  Event streams are pinged every second, so they stay. */
#define IDLE_SECS 10
/* At most this many connections at once, whatever the descriptor limit
 * allows; one address may hold three quarters of them. */
#define MAX_CONNECTIONS 10000
/* Descriptors kept for the build (result files, images, the output). */
#define FD_RESERVE 512
/* How long a signal waits for the main thread to finish its build and
 * stop cleanly before the watchdog ends the process. */
#define STOP_GRACE_MS 500

struct stream;

/* What the pages are told: a generation bumped by every build, and the
 * diagnostics of the last one when it failed.  Event streams with
 * nothing to send wait in `waiting`, suspended; they are resumed (and
 * the list emptied) under the lock, by the thread that has news. */
struct events {
	pthread_mutex_t lock;
	unsigned long gen;
	char *error; /* NULL after a good build */
	bool stopping;
	struct stream **waiting;
	size_t nwaiting, waiting_cap;
	/* While a build runs, a request for what the output lacks waits for
	 * its end (suspended) and is answered from the site it leaves: the
	 * output's folders move while it is swapped (outdir_commit()). */
	bool building;
	struct MHD_Connection **held;
	size_t nheld, held_cap;
};

struct server {
	char *out_real; /* the output folder, canonical */
	struct events ev;
	/* The folder of the last good site, held open: served from when the
	 * output folder is gone or no longer one of logdown's (-1 before a
	 * build wrote one). */
	pthread_mutex_t root_lock;
	int last_good;
};

/* The script injected before </body> of every HTML page served here,
 * never into `logdown build` output.  A named "error" event carries
 * data; the EventSource's own connection errors do not.  The overlay
 * sits at the bottom of the window, so the page's header and title stay
 * readable, and its button closes it (the next good build reloads the
 * page, which clears it too).  Its text keeps its lines, so that a caret
 * stays under what it points at, and none of the page's styles. */
static const char live_script[] =
	"<script>(function(){var es=new EventSource('" EVENTS_PATH "');"
	"es.addEventListener('reload',function(){location.reload();});"
	"es.addEventListener('error',function(e){if(typeof e.data!=='string')return;"
	"var b=document.getElementById('__logdown-overlay');"
	"if(!b){b=document.createElement('div');b.id='__logdown-overlay';"
	"b.setAttribute('role','alert');"
	"b.style.cssText='position:fixed;left:1em;right:1em;bottom:1em;max-height:45vh;"
	"overflow:auto;z-index:2147483647;margin:0;padding:.75em 1em;background:#fff8f8;"
	"color:#600;border:2px solid #c00;border-radius:4px;"
	"font:13px/1.4 monospace;box-shadow:0 4px 16px rgba(0,0,0,.3)';"
	"var x=document.createElement('button');x.type='button';x.textContent='\\u00d7';"
	"x.title='Close';x.setAttribute('aria-label','Close');"
	"x.style.cssText='position:sticky;top:0;float:right;margin:-.25em -.5em 0 .5em;"
	"padding:0 .3em;border:0;background:none;color:#600;font:22px/1 sans-serif;"
	"cursor:pointer';"
	"x.onclick=function(){b.remove();};"
	"var h=document.createElement('p');h.style.cssText='margin:0 0 .75em';"
	"h.textContent='logdown: the last rebuild failed; showing the last good page';"
	"var p=document.createElement('pre');"
	"p.style.cssText='all:unset;display:block;white-space:pre;overflow-x:auto;"
	"font:inherit;color:inherit';"
	"b.appendChild(x);b.appendChild(h);b.appendChild(p);document.body.appendChild(b);}"
	"b.lastChild.textContent=e.data;"
	"});})();</script>\n";

/* --- events --- */

/* One open /__logdown/events stream: what is still to be sent. */
struct stream {
	struct server *s;
	struct MHD_Connection *c;
	unsigned long gen; /* the last generation announced */
	struct buf pending;
	size_t off;
	bool started;
	bool ping; /* resumed by the ticker: send a comment */
};

/* Appends an SSE event; each line of data becomes a "data:" line.  A
 * line ends at LF, CR LF or a lone CR, as an event stream's reader reads
 * one: a CR from a file's name or a log line then starts another "data:"
 * line, never a field of its own ("event: reload"). */
static void sse_event(struct buf *b, const char *name, const char *data)
{
	buf_printf(b, "event: %s\n", name);
	const char *p = data;
	do {
		size_t n = strcspn(p, "\r\n");
		buf_puts(b, "data: ");
		buf_put(b, p, n);
		buf_putc(b, '\n');
		p += n;
		if (*p == '\r' && p[1] == '\n')
			p++;
		if (*p)
			p++;
	} while (*p);
	buf_putc(b, '\n');
}

/* Resumes every waiting stream, each told whether it is only for a
 * ping.  Called with ev->lock held. */
static void events_wake(struct events *ev, bool ping)
{
	for (size_t i = 0; i < ev->nwaiting; i++) {
		ev->waiting[i]->ping = ping;
		mhd->resume_connection(ev->waiting[i]->c);
	}
	ev->nwaiting = 0;
}

/* The stream's reader.  With something to send (the start, a build's
 * news, a ping) it sends it; else it suspends its connection, which no
 * longer costs a thread or a poll, until events_wake().  Suspending and
 * resuming both happen under ev->lock, so a stream is resumed exactly
 * once for each time it was suspended, and never after `stopping` (the
 * daemon may only stop with no connection suspended). */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	(void)pos;
	struct stream *st = cls;
	struct events *ev = &st->s->ev;
	if (st->off == st->pending.len) {
		buf_clear(&st->pending);
		st->off = 0;
		pthread_mutex_lock(&ev->lock);
		if (!st->started) {
			/* A page opened after a failed build shows it at once. */
			st->started = true;
			st->gen = ev->gen;
			buf_puts(&st->pending, "retry: 1000\n\n");
			if (ev->error)
				sse_event(&st->pending, "error", ev->error);
		} else if (ev->stopping) {
			pthread_mutex_unlock(&ev->lock);
			return MHD_CONTENT_READER_END_OF_STREAM;
		} else if (ev->gen != st->gen) {
			st->gen = ev->gen;
			if (ev->error)
				sse_event(&st->pending, "error", ev->error);
			else
				sse_event(&st->pending, "reload", "");
		} else if (st->ping) {
			/* so that a page closed meanwhile is noticed */
			st->ping = false;
			buf_puts(&st->pending, ": ping\n\n");
		} else {
			if (ev->nwaiting == ev->waiting_cap) {
				ev->waiting_cap = ev->waiting_cap ? 2 * ev->waiting_cap : 16;
				ev->waiting = xrealloc(ev->waiting,
						       ev->waiting_cap * sizeof *ev->waiting);
			}
			ev->waiting[ev->nwaiting++] = st;
			mhd->suspend_connection(st->c);
			pthread_mutex_unlock(&ev->lock);
			return 0;
		}
		pthread_mutex_unlock(&ev->lock);
	}
	size_t n = st->pending.len - st->off;
	if (n > max)
		n = max;
	memcpy(out, st->pending.data + st->off, n);
	st->off += n;
	return (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct stream *st = cls;
	buf_free(&st->pending);
	free(st);
}

/* Announces the end of a build: error is the diagnostics of a failed
 * one (copied), NULL after success. */
static void events_publish(struct events *ev, const char *error)
{
	pthread_mutex_lock(&ev->lock);
	free(ev->error);
	ev->error = error ? xstrdup(error) : NULL;
	ev->gen++;
	events_wake(ev, false);
	pthread_mutex_unlock(&ev->lock);
}

/* Every second: each waiting stream sends a comment. */
static void events_ping(struct events *ev)
{
	pthread_mutex_lock(&ev->lock);
	events_wake(ev, true);
	pthread_mutex_unlock(&ev->lock);
}

/* Ends every stream, now and from now on. */
static void events_stop(struct events *ev)
{
	pthread_mutex_lock(&ev->lock);
	ev->stopping = true;
	ev->building = false;
	events_wake(ev, false);
	for (size_t i = 0; i < ev->nheld; i++)
		mhd->resume_connection(ev->held[i]);
	ev->nheld = 0;
	pthread_mutex_unlock(&ev->lock);
}

/* A build begins (true) or has ended (false); at its end the requests
 * held for it are resumed, and answered again. */
static void events_building(struct events *ev, bool building)
{
	pthread_mutex_lock(&ev->lock);
	ev->building = building;
	if (!building) {
		for (size_t i = 0; i < ev->nheld; i++)
			mhd->resume_connection(ev->held[i]);
		ev->nheld = 0;
	}
	pthread_mutex_unlock(&ev->lock);
}

/* Holds connection c until the running build ends; false when none
 * runs.  Called from the request's handler, which returns MHD_YES and is
 * called again once c is resumed. */
static bool events_hold(struct events *ev, struct MHD_Connection *c)
{
	pthread_mutex_lock(&ev->lock);
	bool hold = ev->building && !ev->stopping;
	if (hold) {
		if (ev->nheld == ev->held_cap) {
			ev->held_cap = ev->held_cap ? 2 * ev->held_cap : 16;
			ev->held = xrealloc(ev->held, ev->held_cap * sizeof *ev->held);
		}
		ev->held[ev->nheld++] = c;
		mhd->suspend_connection(c);
	}
	pthread_mutex_unlock(&ev->lock);
	return hold;
}

/* --- requests --- */

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type,
				 const char *text)
{
	struct MHD_Response *r = mhd->create_response_from_buffer(strlen(text), (void *)text,
								  MHD_RESPMEM_MUST_COPY);
	mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd->add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = mhd->queue_response(c, status, r);
	mhd->destroy_response(r);
	return ret;
}

/* A 404 page that still listens for builds: a report that failed its
 * first build appears, or shows its errors, without a manual reload. */
static enum MHD_Result send_not_found(struct MHD_Connection *c)
{
	char *page = xasprintf("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
			       "<title>Not found</title></head>\n<body>\n<h1>Not found</h1>\n"
			       "%s</body></html>\n",
			       live_script);
	enum MHD_Result ret = send_text(c, MHD_HTTP_NOT_FOUND, "text/html; charset=utf-8", page);
	free(page);
	return ret;
}

/* An HTML page streamed from its file with the live-reload script
 * inserted at `at`: the page is never read whole, however big, and
 * however many clients fetch it. */
struct page {
	int fd;
	uint64_t at, size; /* the file's bytes */
};

#define SCRIPT_LEN (sizeof live_script - 1)

static size_t at_most(size_t max, uint64_t n)
{
	return n < max ? (size_t)n : max;
}
#define PAGE_BLOCK (64 * 1024)

/* Where the script goes: before the page's last "</body>" (any case),
 * found by reading back from the end a block at a time (blocks overlap
 * by six bytes, so a tag across two is found); at the end when there is
 * none or the file cannot be read. */
static uint64_t body_end(int fd, uint64_t size)
{
	static const char tag[] = "</body>";
	const size_t tl = sizeof tag - 1;
	char *b = xmalloc(PAGE_BLOCK + tl);
	uint64_t found = size, end = size;
	while (end >= tl) {
		uint64_t start = end > PAGE_BLOCK + tl ? end - PAGE_BLOCK - tl : 0;
		size_t len = (size_t)(end - start), got = 0;
		while (got < len) {
			ssize_t r = pread(fd, b + got, len - got, (off_t)(start + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got < len)
			break;
		for (size_t i = len - tl + 1; i-- > 0;)
			if (strncasecmp(b + i, tag, tl) == 0) {
				found = start + i;
				goto out;
			}
		if (start == 0)
			break;
		end = start + tl - 1;
	}
out:
	free(b);
	return found;
}

/* Reads the page at its file's offset p into out; a file cut short
 * since it was opened ends the response with an error. */
static ssize_t page_pread(int fd, char *out, size_t n, uint64_t p)
{
	for (;;) {
		ssize_t r = pread(fd, out, n, (off_t)p);
		if (r < 0 && errno == EINTR)
			continue;
		return r > 0 ? r : MHD_CONTENT_READER_END_WITH_ERROR;
	}
}

static ssize_t page_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct page *pg = cls;
	if (pos < pg->at)
		return page_pread(pg->fd, out, at_most(max, pg->at - pos), pos);
	if (pos < pg->at + SCRIPT_LEN) {
		size_t n = at_most(max, pg->at + SCRIPT_LEN - pos);
		memcpy(out, live_script + (pos - pg->at), n);
		return (ssize_t)n;
	}
	uint64_t p = pos - SCRIPT_LEN;
	if (p >= pg->size)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return page_pread(pg->fd, out, at_most(max, pg->size - p), p);
}

static void page_free(void *cls)
{
	struct page *pg = cls;
	close(pg->fd);
	free(pg);
}

/* The response for the HTML page open at fd (which it takes).  A page
 * of up to PAGE_BLOCK bytes (most pages) is read once into the buffer it
 * is sent from, with the script: one copy of a bounded size costs less
 * than a streamed response's calls.  A bigger one is streamed. */
static struct MHD_Response *page_response(int fd, uint64_t size)
{
	if (size <= PAGE_BLOCK) {
		char *b = xmalloc((size_t)size + SCRIPT_LEN);
		size_t got = 0;
		while (got < size) {
			ssize_t r = pread(fd, b + got, (size_t)size - got, (off_t)got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		close(fd);
		if (got < size) {
			free(b);
			return NULL;
		}
		size_t at = (size_t)size;
		for (size_t i = size >= 7 ? (size_t)size - 7 + 1 : 0; i-- > 0;)
			if (strncasecmp(b + i, "</body>", 7) == 0) {
				at = i;
				break;
			}
		memmove(b + at + SCRIPT_LEN, b + at, (size_t)size - at);
		memcpy(b + at, live_script, SCRIPT_LEN);
		return mhd->create_response_from_buffer((size_t)size + SCRIPT_LEN, b,
							 MHD_RESPMEM_MUST_FREE);
	}
	struct page *pg = xmalloc(sizeof *pg);
	pg->fd = fd;
	pg->size = size;
	pg->at = body_end(fd, size);
	struct MHD_Response *r = mhd->create_response_from_callback(size + SCRIPT_LEN, PAGE_BLOCK,
								    page_read, pg, page_free);
	if (!r)
		page_free(pg);
	return r;
}

/* Whether the folder open at dir is a site logdown wrote: it holds the
 * marker, a regular file. */
static bool site_marked(int dir)
{
	struct stat st;
	return fstatat(dir, OUTDIR_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* The folder to serve a request from: the output folder when it is
 * still one logdown wrote (a folder, not a link, with the marker), else
 * the last good site held open since its build.  The output is opened
 * for each request, so one swapped in by a build is served at once.
 * Returns a descriptor (caller closes), or -1 when there is no site. */
static int site_root(struct server *s)
{
	int fd = open(s->out_real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && site_marked(fd))
		return fd;
	if (fd >= 0)
		close(fd);
	pthread_mutex_lock(&s->root_lock);
	fd = s->last_good >= 0 ? fcntl(s->last_good, F_DUPFD_CLOEXEC, 0) : -1;
	pthread_mutex_unlock(&s->root_lock);
	return fd;
}

/* Answers GET or HEAD url from the site.  With may_hold, a request for
 * something the output lacks while a build runs is held until it ends
 * (events_hold()): *held says so, and nothing is queued. */
static enum MHD_Result serve_file(struct server *s, struct MHD_Connection *c, const char *url,
				  bool may_hold, bool *held)
{
	struct buf path = BUF_INIT;
	if (!request_decode(url, &path)) {
		buf_free(&path);
		return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain; charset=utf-8", "forbidden\n");
	}
	enum MHD_Result ret;
	int root = site_root(s), fd = -1;
	struct stat st;
	enum request_found f = root >= 0 ? request_open(root, buf_data(&path), &fd, &st) : REQUEST_MISSING;
	if (root >= 0)
		close(root);
	const char *name = buf_data(&path);
	if (f == REQUEST_FOLDER) {
		if (!str_has_suffix(name, "/")) {
			/* /x to /x/, so that the page's relative links work */
			close(fd);
			buf_free(&path);
			char *to = request_folder_location(url);
			struct MHD_Response *r =
				mhd->create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
			mhd->add_response_header(r, MHD_HTTP_HEADER_LOCATION, to);
			ret = mhd->queue_response(c, MHD_HTTP_MOVED_PERMANENTLY, r);
			mhd->destroy_response(r);
			free(to);
			return ret;
		}
		int dir = fd;
		name = "index.html";
		f = request_open(dir, name, &fd, &st);
		close(dir);
		if (f == REQUEST_FOLDER) {
			close(fd);
			f = REQUEST_MISSING;
		}
	}
	if (f == REQUEST_MISSING && may_hold && events_hold(&s->ev, c)) {
		buf_free(&path);
		*held = true;
		return MHD_YES;
	}
	if (f != REQUEST_FILE) {
		buf_free(&path);
		if (f == REQUEST_REFUSED)
			return send_text(c, MHD_HTTP_FORBIDDEN, "text/plain; charset=utf-8",
					 "forbidden\n");
		return send_not_found(c);
	}
	const char *type = request_mime_type(name);
	buf_free(&path);
	bool html = str_has_prefix(type, "text/html");
	char etag[96];
	snprintf(etag, sizeof etag, "\"%llx-%llx-%llx%s\"", (unsigned long long)st.st_size,
		 (unsigned long long)st.st_mtim.tv_sec, (unsigned long long)st.st_mtim.tv_nsec,
		 html ? "-live" : "");
	const char *inm = mhd->lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	struct MHD_Response *r;
	unsigned status = MHD_HTTP_OK;
	if (inm && strstr(inm, etag)) {
		close(fd);
		r = mhd->create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_NOT_MODIFIED;
	} else if (html) {
		r = page_response(fd, (uint64_t)st.st_size); /* takes fd */
	} else {
		/* sent with sendfile(); MHD closes fd */
		r = mhd->create_response_from_fd64((uint64_t)st.st_size, fd);
		if (!r)
			close(fd);
	}
	if (!r)
		return MHD_NO;
	mhd->add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
	mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	if (status == MHD_HTTP_OK)
		mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd->queue_response(c, status, r);
	mhd->destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	(void)version;
	(void)upload_data;
	static int seen, held_once;
	struct server *s = cls;
	/* Refused at once, without reading a body: the connection closes. */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
				 "only GET and HEAD\n");
	/* A response queued on the first call, before MHD has read the whole
	 * request, closes the connection: answer on the next call so that it
	 * is kept alive.  A GET's body, if any, is read and ignored. */
	if (*con_cls != &seen && *con_cls != &held_once) {
		*con_cls = &seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, EVENTS_PATH) == 0) {
		struct stream *st = xcalloc(1, sizeof *st);
		st->s = s;
		st->c = c;
		struct MHD_Response *r = mhd->create_response_from_callback(
			MHD_SIZE_UNKNOWN, 4096, stream_read, st, stream_free);
		mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
		mhd->add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
		enum MHD_Result ret = mhd->queue_response(c, MHD_HTTP_OK, r);
		mhd->destroy_response(r);
		return ret;
	}
	/* held once at most: resumed, it is answered from what is there */
	bool held = false;
	enum MHD_Result ret = serve_file(s, c, url, *con_cls == &seen, &held);
	if (held)
		*con_cls = &held_once;
	return ret;
}

/* The request path reaches handle() as sent: request_decode() decodes it,
 * so that an encoded NUL is refused instead of cutting the path short. */
static size_t keep_escaped(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return strlen(s);
}

/* What libmicrohttpd says when a browser closes a connection first (a
 * reload, a closed tab, a page left while a file was loading, the event
 * stream of a page going away): normal for a preview server, and not
 * an error to show.  Its messages are matched since it passes no errno. */
static const char *const peer_closed[] = {
	"closed by remote",          /* an incomplete request */
	"forcibly closed",           /* ECONNRESET while sending */
	"no longer available",       /* EPIPE while sending */
	"has been disconnected",     /* while reading a request */
	"connection reset",
	"broken pipe",
};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char msg[1024], low[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	size_t n = strlen(msg);
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)msg[i]);
	for (size_t i = 0; i < ARRAY_LEN(peer_closed); i++)
		if (strstr(low, peer_closed[i]))
			return;
	fprintf(stderr, "logdown: http: %s%s", msg, n && msg[n - 1] == '\n' ? "" : "\n");
}

/* --- listening --- */

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >>
			24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
	return false;
}

/* Binds host:port itself, so that a port in use is named clearly and
 * port 0 can be read back.  Returns the socket, or after a message -2
 * for an address that is not one and -1 when it cannot be listened on;
 * *port_out is the bound port, shown the address as a URL host. */
static int listen_on(const char *host, unsigned port, unsigned *port_out, char *shown,
		     size_t shown_size)
{
	struct addrinfo hints = {0}, *ai = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	char service[16];
	snprintf(service, sizeof service, "%u", port);
	int e = getaddrinfo(host, service, &hints, &ai);
	if (e != 0) {
		fprintf(stderr, "logdown: --host %s: not a numeric address (%s)\n", host,
			gai_strerror(e));
		return -2;
	}
	if (!is_loopback(ai->ai_addr))
		fprintf(stderr, "logdown: warning: listening on %s: other machines can read the "
				"site; use 127.0.0.1 to keep it local\n",
			host);
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
		int err = errno;
		fprintf(stderr, "logdown: cannot listen on %s port %u: %s%s\n", host, port,
			strerror(err),
			err == EADDRINUSE ? " (another server uses it: pick another with --port, "
					    "or --port 0 for a free one)"
					  : "");
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	getsockname(fd, (struct sockaddr *)&ss, &len);
	*port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						   : ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(shown, shown_size, ai->ai_family == AF_INET6 ? "[%s]" : "%s", host);
	freeaddrinfo(ai);
	return fd;
}

/* --- watching --- */

/* A report the last build included, and the files it depends on. */
struct wreport {
	char *slug;
	char *source;  /* its .md file */
	char *bundle;  /* its folder when it is a bundle, else NULL */
	char **inputs; /* result files it read, as the build named them */
	char **reals;  /* and canonical (NULL when unresolved) */
	size_t ninputs;
	bool rendered; /* rendered by the last build, not reused */
};

struct watch {
	struct wreport *reports;
	size_t nreports;
	struct wreport *prev; /* during a build: the build before's */
	size_t nprev;
	/* with --no-cache: what the last build left in each report's
	 * folder (build_opts.listings) */
	struct cache_reports *listings;
};

static void wreport_free(struct wreport *r)
{
	free(r->slug);
	free(r->source);
	free(r->bundle);
	for (size_t i = 0; i < r->ninputs; i++) {
		free(r->inputs[i]);
		free(r->reals[i]);
	}
	free(r->inputs);
	free(r->reals);
}

static void wreports_free(struct wreport *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wreport_free(&v[i]);
	free(v);
}

static void wreport_input(struct wreport *r, const char *path)
{
	r->inputs = xrealloc(r->inputs, (r->ninputs + 1) * sizeof *r->inputs);
	r->reals = xrealloc(r->reals, (r->ninputs + 1) * sizeof *r->reals);
	r->inputs[r->ninputs] = xstrdup(path);
	r->reals[r->ninputs] = path_real(path);
	r->ninputs++;
}

static void watch_add_report(void *ctx, const char *slug, const char *source, const char *bundle,
			     bool reused)
{
	struct watch *w = ctx;
	w->reports = xrealloc(w->reports, (w->nreports + 1) * sizeof *w->reports);
	struct wreport *r = &w->reports[w->nreports++];
	memset(r, 0, sizeof *r);
	r->slug = xstrdup(slug);
	r->source = xstrdup(source);
	r->bundle = bundle ? xstrdup(bundle) : NULL;
	r->rendered = !reused;
	/* A reused report read nothing this time: it still depends on what
	 * it read when its output was made (with the cache, the build also
	 * names those files; the snapshot keeps each once). */
	for (size_t i = 0; reused && i < w->nprev; i++)
		if (strcmp(w->prev[i].slug, slug) == 0)
			for (size_t k = 0; k < w->prev[i].ninputs; k++)
				wreport_input(r, w->prev[i].inputs[k]);
}

static void watch_add_input(void *ctx, const char *slug, const char *path)
{
	struct watch *w = ctx;
	if (w->nreports && strcmp(w->reports[w->nreports - 1].slug, slug) == 0)
		wreport_input(&w->reports[w->nreports - 1], path);
}

/* The versions of every file the site depends on: the source folders,
 * site.yaml, the parser folders it lists, and the result files the
 * last build read.  s is overwritten; free it with snapshot_free(). */
static void watch_snapshot(const struct watch *w, const char *root, struct snapshot *s)
{
	static const char *const trees[] = {"content", "templates", "static", "parsers"};
	s->f = NULL;
	s->n = 0;
	for (size_t i = 0; i < ARRAY_LEN(trees); i++) {
		char *p = path_join(root, trees[i]);
		snapshot_tree(s, p);
		free(p);
	}
	char *yaml = path_join(root, "site.yaml");
	snapshot_add(s, yaml);
	free(yaml);
	/* the parser folders site.yaml lists: their changes rebuild
	 * everything, as parsers/ does */
	FILE *sink = fopen("/dev/null", "w");
	struct diag *quiet = diag_new(sink, DIAG_TEXT, false);
	struct config cfg;
	config_load(&cfg, root, quiet);
	for (size_t i = 0; cfg.parsers && cfg.parsers[i]; i++) {
		char *p = path_join(root, cfg.parsers[i]);
		snapshot_tree(s, p);
		free(p);
	}
	config_free(&cfg);
	diag_free(quiet);
	if (sink)
		fclose(sink);
	for (size_t i = 0; i < w->nreports; i++)
		for (size_t k = 0; k < w->reports[i].ninputs; k++)
			snapshot_add(s, w->reports[i].inputs[k]);
	snapshot_sort(s);
}

/* What a set of changes affects. */
struct affected {
	const struct watch *w;
	const char *root;
	bool *dirty;      /* per report of w */
	bool everything;  /* render every report */
	bool parsers;     /* and forget the parsed runs */
};

static bool under_dir(const char *path, const char *root, const char *dir)
{
	char *d = path_join(root, dir);
	bool under = path_under(path, d) != NULL;
	free(d);
	return under;
}

/* Sorts one changed path.  A report's source or a file of its bundle
 * affects that report; a result file, the reports that read it;
 * templates and static files, every page; anything else (site.yaml,
 * parsers, a report that appeared or went) everything, and the parsed
 * runs are forgotten. */
static void classify_change(void *ctx, const char *path, bool existed, bool exists)
{
	struct affected *a = ctx;
	if (under_dir(path, a->root, "templates") || under_dir(path, a->root, "static")) {
		a->everything = true;
		return;
	}
	bool found = false;
	char *real = exists ? path_real(path) : NULL;
	for (size_t i = 0; i < a->w->nreports; i++) {
		const struct wreport *r = &a->w->reports[i];
		bool hit = false;
		if (strcmp(r->source, path) == 0) {
			if (!exists || !existed) { /* a report went or came */
				a->everything = a->parsers = true;
				free(real);
				return;
			}
			hit = true;
		}
		if (!hit && r->bundle && path_under(path, r->bundle))
			hit = true;
		for (size_t k = 0; !hit && k < r->ninputs; k++)
			hit = strcmp(r->inputs[k], path) == 0 ||
			      (real && r->reals[k] && strcmp(r->reals[k], real) == 0);
		if (hit)
			a->dirty[i] = found = true;
	}
	free(real);
	if (!found)
		a->everything = a->parsers = true;
}

/* --- the loop --- */

/* Builds once, reusing the output of every report not marked in dirty
 * (NULL: none is reused).  The diagnostics go to a memory stream, then
 * to stderr (the terminal shows what the page shows); *diags gets them
 * after a failed build (caller frees), NULL after a good one. */
/* A duration as the terminal shows it: "35 ms", "1.2 s". */
static void put_duration(struct buf *b, double secs)
{
	if (secs < 1)
		buf_printf(b, "%.0f ms", secs * 1000);
	else
		buf_printf(b, "%.1f s", secs);
}

static double since(struct timespec t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
}

/* What a good build did, for the terminal: "built 4 reports in 210 ms"
 * the first time, then "rebuilt 1 of 4 reports (hw07) in 35 ms", naming
 * up to three of the reports rendered again. */
static void put_built(struct buf *b, const struct watch *w, bool first, size_t nrendered,
		      size_t nreports, double secs)
{
	const char *s = nreports == 1 ? "" : "s";
	if (first) {
		buf_printf(b, "built %zu report%s in ", nreports, s);
		put_duration(b, secs);
		return;
	}
	buf_printf(b, "rebuilt %zu of %zu report%s", nrendered, nreports, s);
	size_t named = 0;
	for (size_t i = 0; i < w->nreports; i++) {
		if (!w->reports[i].rendered)
			continue;
		if (named < 3)
			buf_printf(b, "%s%s", named ? ", " : " (", w->reports[i].slug);
		named++;
	}
	if (named > 3)
		buf_printf(b, " and %zu more", named - 3);
	if (named)
		buf_putc(b, ')');
	buf_puts(b, " in ");
	put_duration(b, secs);
}

static int build_once(const struct serve_opts *so, struct watch *w, struct parse_cache *cache,
		      const bool *dirty, char **out_real, char **diags, struct buf *said)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) {
		fprintf(stderr, "logdown: cannot capture diagnostics: %s\n", strerror(errno));
		return EXIT_IO;
	}
	struct diag *d = diag_new(mem, DIAG_TEXT, false);
	diag_set_strict(d, so->strict);
	struct build_opts o = so->build;
	size_t nreports = 0, nrendered = 0;
	char **reuse = xcalloc(w->nreports + 1, sizeof *reuse);
	size_t nreuse = 0;
	for (size_t i = 0; dirty && i < w->nreports; i++)
		if (!dirty[i])
			reuse[nreuse++] = w->reports[i].slug;
	o.write = true;
	o.summary = false;
	o.against = NULL;
	o.on_report = watch_add_report;
	o.on_input = watch_add_input;
	o.input_ctx = w;
	o.cache = cache;
	/* With the build cache, the build itself knows which pages still
	 * hold (cache.h): the watch only says when to build. */
	o.reuse = dirty && o.no_cache ? reuse : NULL;
	o.nreuse = nreuse;
	o.listings = o.no_cache ? &w->listings : NULL;
	o.nreports = &nreports;
	o.nrendered = &nrendered;
	o.output_dir = out_real && !*out_real ? out_real : NULL;
	bool first = !*out_real;
	w->prev = w->reports;
	w->nprev = w->nreports;
	w->reports = NULL;
	w->nreports = 0;
	int rc = site_build(&o, d);
	wreports_free(w->prev, w->nprev);
	w->prev = NULL;
	w->nprev = 0;
	free(reuse);
	/* What the build freed goes back to the system: serve lives on,
	 * and a first build over a big log leaves hundreds of MB of freed
	 * chunks in malloc's arenas otherwise. */
	malloc_trim(0);
	size_t errors = diag_errors(d);
	diag_free(d);
	fclose(mem);
	fputs(text, stderr);
	*diags = NULL;
	if (rc == EXIT_OK) {
		/* the first build's line also says where to look: serve_run()
		 * prints it once the server listens */
		put_built(said, w, first, nrendered, nreports, since(t0));
		free(text);
	} else {
		if (rc == EXIT_CONTENT && first)
			buf_printf(said, "the build has %zu error%s (above)", errors,
				   errors == 1 ? "" : "s");
		else if (rc == EXIT_CONTENT)
			buf_printf(said, "%zu error%s; still serving the last good pages", errors,
				   errors == 1 ? "" : "s");
		*diags = text;
	}
	return rc;
}

/* --- stopping --- */

/* Between the watchdog, which takes the signals, and the main thread. */
struct stopper {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC */
	bool stop;           /* a signal came: the main thread is to stop */
	bool changed;        /* a watched folder changed (wake.h) */
	bool done;           /* the main thread has stopped everything */
	sigset_t set;        /* SIGINT and SIGTERM */
	struct events *ev;   /* pinged every second */
	pthread_t thread;
};

static struct timespec deadline_in(long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* The watchdog: pings the event streams every second until SIGINT or
 * SIGTERM, then tells the main thread to stop and gives it STOP_GRACE_MS
 * to do so.  A main thread still in a build then (one reading a slow or
 * huge file cannot be cut short from outside) is not waited for: the
 * process ends here, with exit 0.  Its staging folder, if the build had
 * made one, is what a killed build leaves: the sweeper removes it once
 * this process is gone (and the next build would); the previous site is
 * untouched (outdir.h). */
static void *watchdog(void *arg)
{
	struct stopper *k = arg;
	for (;;) {
		struct timespec second = {1, 0};
		int sig = sigtimedwait(&k->set, NULL, &second);
		pthread_mutex_lock(&k->lock);
		bool done = k->done;
		pthread_mutex_unlock(&k->lock);
		if (done)
			return NULL;
		if (sig > 0)
			break;
		if (errno == EAGAIN)
			events_ping(k->ev);
	}
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_broadcast(&k->cond);
	struct timespec until = deadline_in(STOP_GRACE_MS);
	while (!k->done)
		if (pthread_cond_timedwait(&k->cond, &k->lock, &until) == ETIMEDOUT)
			break;
	bool done = k->done;
	pthread_mutex_unlock(&k->lock);
	if (done)
		return NULL;
	fputs("logdown: stopped during a rebuild (it is dropped; the site stays as the last "
	      "good build left it)\n",
	      stderr);
	_exit(EXIT_OK);
}

/* Waits up to ms for a stop, or with on_change also for a change in a
 * watched folder; returns whether a stop was asked for. */
static bool stop_wait(struct stopper *k, long ms, bool on_change)
{
	struct timespec until = deadline_in(ms);
	pthread_mutex_lock(&k->lock);
	while (!k->stop && !(on_change && k->changed))
		if (pthread_cond_timedwait(&k->cond, &k->lock, &until) == ETIMEDOUT)
			break;
	if (on_change)
		k->changed = false;
	bool stop = k->stop;
	pthread_mutex_unlock(&k->lock);
	return stop;
}

/* POLL_MS, or for tests only LOGDOWN_TEST_POLL_MS (test_serve: a poll
 * of ten minutes shows that a save is seen through inotify alone). */
static long poll_ms(void)
{
	const char *v = getenv("LOGDOWN_TEST_POLL_MS");
	long ms = v ? atol(v) : 0;
	return ms > 0 ? ms : POLL_MS;
}

/* wake.h's call: a watched folder changed. */
static void wake_changed(void *arg)
{
	struct stopper *k = arg;
	pthread_mutex_lock(&k->lock);
	k->changed = true;
	pthread_cond_broadcast(&k->cond);
	pthread_mutex_unlock(&k->lock);
}

/* --- after serve --- */

/* The sweeper, a child forked before any thread starts (so it may do
 * what any process does): it waits on a pipe only serve holds open.  At
 * its end of file, however serve ended (returned, stopped by the
 * watchdog during a build, killed), it takes the output folder serve
 * wrote there, waits until serve is gone (a process that still exists
 * keeps its staging folder), sweeps beside the output what a dropped
 * build left (outdir_sweep(): its staging folder, and folders a cut
 * commit had moved, put back), and ends. */
static void sweeper(int rfd, pid_t parent)
{
	signal(SIGINT, SIG_IGN); /* Ctrl-C goes to the whole group */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/* It says nothing, and must not keep serve's output open: a reader
	 * waiting for its end (a pipe to tee, a test) would wait for it. */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	struct buf out = BUF_INIT;
	char b[4096];
	for (;;) {
		ssize_t n = read(rfd, b, sizeof b);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_put(&out, b, (size_t)n);
	}
	for (int i = 0; i < 1000 && kill(parent, 0) == 0; i++) {
		struct timespec ms10 = {0, 10000000L};
		nanosleep(&ms10, NULL);
	}
	if (out.len && kill(parent, 0) != 0 && errno == ESRCH)
		outdir_sweep(buf_data(&out));
	_exit(EXIT_OK);
}

/* Starts the sweeper; returns the pipe's end serve writes the output
 * folder to, or -1 when there is none (nothing is swept then). */
static int sweeper_start(void)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		sweeper(p[0], parent);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	/* not inherited by what the build starts */
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	return p[1];
}

/* --- the output folder --- */

/* What is at the output folder's path, as lstat() sees it. */
struct out_state {
	int kind; /* 0 nothing, 1 a folder, 2 a symbolic link, 3 something else */
	dev_t dev;
	ino_t ino;
};

static struct out_state out_state(const char *path)
{
	struct out_state o = {0, 0, 0};
	struct stat st;
	if (lstat(path, &st) != 0)
		return o;
	o.kind = S_ISDIR(st.st_mode) ? 1 : S_ISLNK(st.st_mode) ? 2 : 3;
	o.dev = st.st_dev;
	o.ino = st.st_ino;
	return o;
}

static bool out_state_same(struct out_state a, struct out_state b)
{
	return a.kind == b.kind && a.dev == b.dev && a.ino == b.ino;
}

/* After a build: holds the output folder open as the last good site
 * when it is a folder logdown wrote (a failed build left the previous
 * one there, which is the last good site too).  Returns what is at the
 * output's path now. */
static struct out_state hold_site(struct server *s)
{
	int fd = open(s->out_real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && site_marked(fd)) {
		pthread_mutex_lock(&s->root_lock);
		int old = s->last_good;
		s->last_good = fd;
		pthread_mutex_unlock(&s->root_lock);
		if (old >= 0)
			close(old);
	} else if (fd >= 0) {
		close(fd);
	}
	return out_state(s->out_real);
}

/* --- the loop --- */

/* As many connections as the process may open files, less a reserve
 * for the build, and at most MAX_CONNECTIONS: the soft descriptor limit
 * is raised towards the hard one for that (a shell's default soft limit
 * is often 1,024). */
static unsigned connection_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 256;
	rlim_t want = MAX_CONNECTIONS + FD_RESERVE;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		struct rlimit up = rl;
		up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl = up;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return MAX_CONNECTIONS;
	return (unsigned)(rl.rlim_cur > 2 * FD_RESERVE ? rl.rlim_cur - FD_RESERVE : rl.rlim_cur / 2);
}

/* After a build: replaces *seen with what it saw, and frees *before,
 * the snapshot taken before it (at start, as snapshot_clock() read).
 * Taken afresh after the build, *seen alone would hold the version of a
 * file changed while the build ran, after the build had read it: that
 * change would never be rebuilt.  snapshot_as_of() keeps before's
 * versions instead (and marks a file first read by this build and
 * changed since start), so the next poll sees the change. */
static void watched(const struct watch *w, const char *root, struct snapshot *before,
		    struct timespec start, struct snapshot *seen)
{
	snapshot_free(seen);
	watch_snapshot(w, root, seen);
	snapshot_as_of(seen, before, start);
	snapshot_free(before);
}

/* Whether a rebuild may run: not when the output folder's path has
 * become a symbolic link, which the build would write through.  Says
 * why not in *diags (caller frees) and on the terminal. */
static bool may_build(const struct server *s, char **diags)
{
	if (out_state(s->out_real).kind != 2)
		return true;
	*diags = xasprintf("logdown: error: the output folder %s is now a symbolic link: serve does "
			   "not build through it, and keeps serving the last good site (remove the "
			   "link to build again)\n",
			   s->out_real);
	fputs(*diags, stderr);
	return false;
}

int serve_run(const struct serve_opts *so)
{
	const char *why;
	mhd = httpd(&why);
	if (!mhd) {
		fprintf(stderr, "logdown: error: serve needs libmicrohttpd: %s\n", why);
		return EXIT_IO;
	}
	const char *host = so->host ? so->host : "127.0.0.1";
	char shown[80];
	unsigned port = 0;
	int rc = EXIT_OK;
	struct server s = {0};
	s.last_good = -1;
	struct watch w = {0};
	struct parse_cache *cache = parse_cache_new();
	struct MHD_Daemon *daemon = NULL;
	char *diags = NULL;
	/* seen: what the last build saw; now, again: the polls since */
	struct snapshot seen = {0}, now = {0}, again = {0};
	struct buf said = BUF_INIT; /* what the last build did, for the terminal */
	struct stopper k = {0};
	struct wake *wk = NULL;

	/* Blocked before any thread starts, so that they all inherit it and
	 * only the watchdog takes them; never unblocked, so that signals
	 * that come while serve ends change nothing of its exit. */
	sigemptyset(&k.set);
	sigaddset(&k.set, SIGINT);
	sigaddset(&k.set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &k.set, NULL);
	signal(SIGPIPE, SIG_IGN);
	unsigned limit = connection_limit();
	int sweep = sweeper_start();

	int fd = listen_on(host, so->port, &port, shown, sizeof shown);
	if (fd < 0) {
		rc = fd == -2 ? EXIT_USAGE : EXIT_IO;
		goto out;
	}
	pthread_mutex_init(&s.ev.lock, NULL);
	pthread_mutex_init(&s.root_lock, NULL);
	pthread_mutex_init(&k.lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k.cond, &ca);
	pthread_condattr_destroy(&ca);
	k.ev = &s.ev;
	if (pthread_create(&k.thread, NULL, watchdog, &k) != 0) {
		fprintf(stderr, "logdown: cannot start a thread: %s\n", strerror(errno));
		close(fd);
		rc = EXIT_IO;
		goto out_ev;
	}

	/* The sources as they were before the build, so that one changed
	 * while it runs is rebuilt (see watched()). */
	struct timespec start = snapshot_clock();
	watch_snapshot(&w, so->build.root, &now);
	rc = build_once(so, &w, cache, NULL, &s.out_real, &diags, &said);
	watched(&w, so->build.root, &now, start, &seen);
	bool last_ok = rc == EXIT_OK;
	if (rc != EXIT_OK && rc != EXIT_CONTENT) {
		close(fd);
		goto out_k;
	}
	rc = EXIT_OK;
	if (!s.out_real) {
		close(fd);
		rc = EXIT_IO;
		goto out_k;
	}
	struct out_state out_seen = hold_site(&s);
	/* inotify on the folders of what the build read: a save wakes the
	 * poll at once (none: the poll alone) */
	wk = wake_start(wake_changed, &k);
	wake_watch(wk, &seen, so->build.root);
	if (sweep >= 0) {
		/* the sweeper's: what to sweep beside once serve is gone */
		ssize_t n = write(sweep, s.out_real, strlen(s.out_real));
		(void)n;
	}
	events_publish(&s.ev, diags);
	free(diags);
	diags = NULL;

	/* epoll (or poll) in a few threads, suspended event streams, idle
	 * connections closed, and one address kept from taking them all */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads = cpus < 2 ? 2 : cpus > 4 ? 4 : (unsigned)cpus;
	daemon = mhd->start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, NULL,
		NULL, handle, &s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
		MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT, limit,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, limit / 4 * 3, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)IDLE_SECS, MHD_OPTION_END);
	if (!daemon) {
		fprintf(stderr, "logdown: cannot start the HTTP server\n");
		close(fd);
		rc = EXIT_IO;
		goto out_k;
	}
	/* One line says what was built and where to look. */
	fprintf(stderr, "logdown: %s; serving %s at http://%s:%u/\n", buf_data(&said), s.out_real,
		shown, port);

	long poll = poll_ms();
	while (!stop_wait(&k, poll, true)) {
		/* The output folder removed or replaced (the build's own swaps
		 * are seen by hold_site()): build again, at once. */
		struct out_state out_now = out_state(s.out_real);
		bool out_moved = !out_state_same(out_now, out_seen);
		watch_snapshot(&w, so->build.root, &now);
		if (!out_moved && snapshot_diff(&seen, &now, NULL, NULL) == 0) {
			snapshot_free(&now);
			continue;
		}
		/* A burst of changes (an editor's save, a job's appends) gives
		 * one build: wait until nothing changed for SETTLE_MS. */
		bool stop = false;
		for (;;) {
			if ((stop = stop_wait(&k, SETTLE_MS, false)))
				break;
			watch_snapshot(&w, so->build.root, &again);
			bool same = snapshot_diff(&now, &again, NULL, NULL) == 0;
			snapshot_free(&now);
			now = again;
			again.f = NULL;
			again.n = 0;
			if (same)
				break;
		}
		if (stop) {
			snapshot_free(&now);
			break;
		}
		/* Only the reports the changes touch are rendered again, unless
		 * the last build failed (its output is older than its sources)
		 * or the output folder went. */
		struct affected a = {&w, so->build.root, xcalloc(w.nreports + 1, sizeof(bool)),
				     !last_ok || out_moved, false};
		snapshot_diff(&seen, &now, classify_change, &a);
		if (a.parsers)
			parse_cache_clear(cache);
		int brc = EXIT_IO;
		if (may_build(&s, &diags)) {
			fputs(out_moved ? "logdown: the output folder changed; rebuilding\n"
					: "logdown: a source changed; rebuilding\n",
			      stderr);
			start = snapshot_clock();
			buf_clear(&said);
			events_building(&s.ev, true);
			brc = build_once(so, &w, cache, a.everything ? NULL : a.dirty, &s.out_real,
					 &diags, &said);
			if (said.len)
				fprintf(stderr, "logdown: %s\n", buf_data(&said));
			/* before the pages hear of it: one told to reload may
			 * change a file at once */
			watched(&w, so->build.root, &now, start, &seen);
			wake_watch(wk, &seen, so->build.root);
		} else {
			snapshot_free(&seen);
			seen = now;
			now.f = NULL;
			now.n = 0;
		}
		free(a.dirty);
		out_seen = hold_site(&s);
		events_building(&s.ev, false);
		last_ok = brc == EXIT_OK;
		if (brc != EXIT_OK && !diags)
			diags = xstrdup("logdown: the build failed; see the terminal\n");
		events_publish(&s.ev, diags);
		free(diags);
		diags = NULL;
	}
	fputs("logdown: stopped\n", stderr);
	wake_stop(wk);
	wk = NULL;

	/* The event streams wait for a build: end them, then the server
	 * (which may only stop with none suspended). */
	events_stop(&s.ev);
	mhd->stop_daemon(daemon); /* closes fd too */
out_k:
	wake_stop(wk);
	/* The watchdog ends: told by done, woken by a signal of its own
	 * when it waits for one. */
	pthread_mutex_lock(&k.lock);
	k.done = true;
	pthread_cond_broadcast(&k.cond);
	pthread_mutex_unlock(&k.lock);
	pthread_kill(k.thread, SIGTERM);
	pthread_join(k.thread, NULL);
	pthread_cond_destroy(&k.cond);
	pthread_mutex_destroy(&k.lock);
out_ev:
	pthread_mutex_destroy(&s.ev.lock);
	pthread_mutex_destroy(&s.root_lock);
	free(s.ev.error);
	free(s.ev.waiting);
	free(s.ev.held);
	if (s.last_good >= 0)
		close(s.last_good);
out:
	snapshot_free(&seen);
	snapshot_free(&now);
	wreports_free(w.reports, w.nreports);
	cache_reports_free(w.listings);
	parse_cache_free(cache);
	free(s.out_real);
	free(diags);
	buf_free(&said);
	if (sweep >= 0)
		close(sweep); /* the sweeper goes on once serve is gone */
	return rc;
}
