/* clean.c: logdown clean, which removes what builds made: the build
 * cache and the output folder, each only when logdown made it. */
#include "site_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/outdir.h"
#include "base/util.h"

int site_clean(const char *root, const char *output, struct diag *d)
{
	if (!is_dir(root)) {
		diag_error(d, loc_line(root, 0), "not a project folder: %s",
			   path_exists(root) ? "not a folder" : strerror(ENOENT));
		return EXIT_USAGE;
	}
	struct config config;
	struct diag *quiet = diag_new_deferred(d); /* site.yaml is checked by build */
	config_load(&config, root, quiet);
	diag_free(quiet);
	char *out = output ? xstrdup(output) : path_join(root, config.output);
	config_free(&config);
	outdir_sweep(out);
	/* nothing is removed under a build: its output nor the cache it
	 * reads and writes */
	bool busy;
	int lock = outdir_lock(out, &busy);
	if (busy) {
		diag_error(d, loc_line(NULL, 0),
			   "another build is writing %s (wait for it to end, then clean)", out);
		free(out);
		return EXIT_BUSY;
	}
	int rc = EXIT_OK;
	char *cache = path_join(root, CACHE_DIR);
	bool had_cache = path_exists(cache);
	if (!cache_remove(root)) {
		diag_error(d, loc_line(cache, 0), "cannot remove the build cache: %s%s",
			   strerror(errno),
			   errno == EPERM ? " (no CACHEDIR.TAG inside: not logdown's, left alone)" : "");
		rc = EXIT_IO;
	} else if (had_cache) {
		fprintf(stderr, "logdown: removed %s\n", cache);
	}
	free(cache);
	char *marker = path_join(out, OUTDIR_MARKER);
	if (!path_exists(out)) {
		/* nothing to do */
	} else if (!is_dir(out) || !is_file(marker)) {
		diag_warning(d, loc_line(out, 0),
			     "not removed: logdown did not make it (no " OUTDIR_MARKER " inside)");
	} else if (!remove_tree(out)) {
		diag_error(d, loc_line(out, 0), "cannot remove: %s", strerror(errno));
		rc = EXIT_IO;
	} else {
		fprintf(stderr, "logdown: removed %s\n", out);
	}
	free(marker);
	free(out);
	if (lock >= 0)
		close(lock);
	return rc;
}
