/* request.h: what a request's path names in the folder `logdown serve`
 * serves (serve.c).  Nothing here follows a symbolic link, opens a
 * FIFO, socket or device, or names anything outside the folder; the
 * fuzz harness fuzz_request holds them to it. */
#ifndef LOGDOWN_REQUEST_H
#define LOGDOWN_REQUEST_H

#include <stdbool.h>
#include <sys/stat.h>

#include "base/util.h"

/* A longer request path is refused. */
#define REQUEST_MAX_URL 1024

/* The Content-Type for a file of that name (by its extension);
 * application/octet-stream for an unknown one. */
const char *request_mime_type(const char *path);

/* Decodes the raw request path into out (percent-decoding) and checks
 * it: it must start with '/', be at most REQUEST_MAX_URL bytes, hold no
 * NUL or backslash (even encoded), no "." or ".." segment and no
 * segment starting with a dot (the output's marker; nothing hidden is
 * served).  False to refuse (403). */
bool request_decode(const char *raw, struct buf *out);

/* What a decoded path is in the site. */
enum request_found {
	REQUEST_FILE,    /* a regular file, open */
	REQUEST_FOLDER,  /* a folder, open */
	REQUEST_MISSING, /* 404 */
	REQUEST_REFUSED, /* 403: a symbolic link, a FIFO, a socket, a device */
};

/* Opens the decoded path (request_decode()) inside the folder open at
 * root, one segment at a time, never through a symbolic link: each
 * entry's type is read without following it, a folder is opened with
 * O_DIRECTORY | O_NOFOLLOW, and a file only when it is a regular one
 * (O_NONBLOCK | O_NOFOLLOW, and checked again on the descriptor, so one
 * swapped meanwhile is refused): a FIFO, socket or device planted in
 * the output is never opened, which could block or act.  Empty segments
 * are skipped.  On REQUEST_FILE and REQUEST_FOLDER, *fd is open (caller
 * closes) and *st its status. */
enum request_found request_open(int root, const char *path, int *fd, struct stat *st);

/* Where a folder's URL without its slash is sent: its decoded path with
 * its slashes one at a time, percent-encoded but for the characters a
 * path segment may hold, and a slash at the end.  Never "//host/" (a
 * request for //evil.example would send the browser there) and never a
 * line break.  Caller frees. */
char *request_folder_location(const char *url);

#endif
