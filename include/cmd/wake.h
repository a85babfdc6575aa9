/* wake.h: serve's poll woken at once when a watched folder changes
 * (Linux inotify), so that a save shows in the page in milliseconds
 * rather than at the next poll.  Only a wake-up: what changed is still
 * decided by comparing snapshots (snapshot.h), and serve still polls
 * where inotify is missing or out of watches. */
#ifndef LOGDOWN_WAKE_H
#define LOGDOWN_WAKE_H

#include <stdbool.h>

struct snapshot;
struct wake;

/* Starts a thread that calls fn(ctx) after each batch of changes in the
 * watched folders; NULL when inotify cannot be had (serve polls). */
struct wake *wake_start(void (*fn)(void *ctx), void *ctx);

/* Watches the folder of every path in s and every folder above it up to
 * root (a new file, a new folder, a save by rename show there).  Folders
 * watched before stay watched (inotify drops one that is removed). */
void wake_watch(struct wake *w, const struct snapshot *s, const char *root);

/* Stops the thread and frees w (NULL: nothing). */
void wake_stop(struct wake *w);

#endif
