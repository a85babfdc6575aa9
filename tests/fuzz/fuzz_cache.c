/* fuzz_cache.c: the build cache's reader (data/cache.c) on cache files
 * mutated and fixed up, as one who knows the format would fix them.
 *
 * The first byte picks the file and how it is made:
 *   bits 0-1  the kind: 1 the file list, 2 a run (0 too), 3 a report list;
 *             bit 3 set: 4, a report's memo (data/memo.h), whatever bits 0-1;
 *   bit 2     clear: the rest is the file's body, given a right header
 *             and sealed with the harness's key, then checksummed: what
 *             the decoders see is arbitrary.  Set: the rest is the whole
 *             file but its checksum (header and seal included), and only
 *             the XXH3-64 checksum is fixed up: the header checks and the
 *             seal must turn it away.
 * A run is a run store (runstore.c), whose forgeries with the seal made
 * again are fuzz_runstore's: here its rest is the whole file as it is,
 * and one accepted must carry the seal of its bytes under the key.
 * The file is put in a project's .logdown-cache, opened with
 * cache_open(), and read the way a build reads that kind; a file list
 * is also asked for the hash of a file that grew since a row of its
 * name may have been made (`grown`: a name fixed for the seeds, under
 * /tmp, not the project's random folder), so that a row's proof (its pieces, of
 * 64 bytes here: LOGDOWN_TEST_PIECE, and its saved hash states) is
 * checked and gone on from.  FUZZ_CACHE_SEED=FILE writes a genuine such
 * file list there as a seed (seed.sh).  Nothing may
 * crash, leak, hang or read past the file; a forged file (bit 2) must
 * never give a run, nor a memo entry. */
#include "fuzz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "base/version.h"
#include "data/cache.h"
#include "data/memo.h"
#include "data/seal.h"

#define MAGIC "logdown-cache\n"

static char *root, *cache_dir, *out;
static char grown[64];
static struct seal_key key;

static size_t header(struct buf *b, uint32_t kind);

/* A project with a tagged cache folder and an output folder, and a key
 * home (XDG_CACHE_HOME) holding a fixed key; once. */
static void setup(void)
{
	if (root)
		return;
	char tmpl[] = "/tmp/logdown-fuzz-cache-XXXXXX";
	if (!mkdtemp(tmpl))
		abort();
	root = xstrdup(tmpl);
	cache_dir = path_join(root, CACHE_DIR);
	char *runs = path_join(cache_dir, "runs"), *tag = path_join(cache_dir, "CACHEDIR.TAG");
	char *home = path_join(root, "keyhome"), *kdir = path_join(home, "logdown");
	char *kfile = path_join(kdir, "key");
	out = path_join(root, "_site");
	char *marker = path_join(out, ".logdown-site");
	unsigned char raw[SEAL_KEY_BYTES];
	memset(raw, 0x42, sizeof raw);
	static const char tag_text[] = "Signature: 8a477f597d28d172789f06886806bc55\n";
	if (!mkdir_p(runs) || !file_write(tag, tag_text, sizeof tag_text - 1) || !mkdir_p(kdir) ||
	    chmod(kdir, 0700) != 0 || !file_write(kfile, (const char *)raw, sizeof raw) ||
	    chmod(kfile, 0600) != 0 || !mkdir_p(out) || !file_write(marker, "", 0))
		abort();
	setenv("XDG_CACHE_HOME", home, 1);
	seal_key_from(&key, raw);
	/* `grown`: its first 192 bytes, hashed and kept with their proof
	 * when a seed is asked for, then 64 more */
	snprintf(grown, sizeof grown, "/tmp/logdown-fuzz-cache-grown-%ld", (long)getuid());
	setenv("LOGDOWN_TEST_PIECE", "64", 1);
	struct buf g = BUF_INIT;
	for (int i = 0; g.len < 192; i++) {
		char line[16];
		snprintf(line, sizeof line, "row %06d\n", i);
		buf_put(&g, line, strlen(line));
	}
	g.len = 192;
	if (!file_write(grown, g.data, g.len))
		abort();
	const char *seed = getenv("FUZZ_CACHE_SEED");
	if (seed) {
		struct cache_key h;
		struct buf b = BUF_INIT, probe = BUF_INIT;
		size_t hlen = header(&probe, 1);
		struct cache *c = cache_open(root, true);
		if (!cache_file_hash(c, grown, &h))
			abort();
		cache_close(c);
		char *files = path_join(cache_dir, "files");
		if (!file_read(files, &b, NULL) || b.len < hlen + SEAL_BYTES + 8)
			abort();
		/* its body, after the selector of a file list */
		struct buf body = BUF_INIT;
		buf_putc(&body, 1);
		buf_put(&body, b.data + hlen, b.len - hlen - SEAL_BYTES - 8);
		if (!file_write(seed, body.data, body.len))
			abort();
		unlink(files);
		free(files);
		buf_free(&body);
		buf_free(&b);
		buf_free(&probe);
	}
	for (int i = 0; i < 64; i++)
		buf_putc(&g, 'x');
	if (!file_write(grown, g.data, g.len))
		abort();
	buf_free(&g);
	free(runs);
	free(tag);
	free(home);
	free(kdir);
	free(kfile);
	free(marker);
}

static void put_u32(struct buf *b, uint32_t v)
{
	buf_put(b, (const char *)&v, sizeof v);
}

/* The header cache.c writes for kind. */
static size_t header(struct buf *b, uint32_t kind)
{
	buf_put(b, MAGIC, sizeof MAGIC - 1);
	put_u32(b, 5); /* the format */
	put_u32(b, kind);
	uint64_t n = strlen(LOGDOWN_VERSION);
	buf_put(b, (const char *)&n, sizeof n);
	buf_put(b, LOGDOWN_VERSION, n);
	buf_put(b, (const char *)key.id, SEAL_ID_BYTES);
	return b->len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	setup();
	unsigned kind = data[0] & 8u ? 4u : data[0] & 3u ? data[0] & 3u : 2u;
	bool forged = data[0] & 4u;
	data++;
	size--;

	struct buf file = BUF_INIT;
	struct buf probe = BUF_INIT;
	size_t hlen = header(&probe, kind);
	buf_free(&probe);
	if (kind == 2) {
		buf_put(&file, (const char *)data, size);
	} else if (forged) {
		buf_put(&file, (const char *)data, size);
	} else {
		header(&file, kind);
		buf_put(&file, (const char *)data, size);
		unsigned char seal[SEAL_BYTES];
		seal_make(&key, file.data, hlen, file.data + hlen, file.len - hlen, seal);
		buf_put(&file, (const char *)seal, sizeof seal);
	}
	uint64_t sum = XXH3_64bits(file.data, file.len);
	if (kind != 2)
		buf_put(&file, (const char *)&sum, sizeof sum);

	/* A run store is named after its key, at 24 in its header; the
	 * report list's key is the body's first bytes, a memo's first
	 * entry's after its count. */
	struct cache_key rk;
	memset(&rk, 0, sizeof rk);
	size_t kat = kind == 2 ? 24 : kind == 4 ? hlen + 8 : hlen;
	if (file.len >= kat + sizeof rk.b)
		memcpy(rk.b, file.data + kat, sizeof rk.b);
	char name[64], hex[33];
	for (size_t i = 0; i < sizeof rk.b; i++)
		snprintf(hex + 2 * i, 3, "%02x", rk.b[i]);
	if (kind == 1)
		snprintf(name, sizeof name, "files");
	else if (kind == 2)
		snprintf(name, sizeof name, "runs/%s.run", hex);
	else if (kind == 4)
		snprintf(name, sizeof name, "memo-%016llx",
			 (unsigned long long)XXH3_64bits("content/r.md", 12));
	else
		snprintf(name, sizeof name, "reports-%016llx",
			 (unsigned long long)XXH3_64bits(out, strlen(out)));
	char *path = path_join(cache_dir, name);
	if (!file_write(path, file.data, file.len))
		abort();

	struct cache *c = cache_open(root, false);
	if (kind == 1) {
		struct cache_key h;
		char *marker = path_join(out, ".logdown-site");
		cache_file_hash(c, marker, &h);
		free(marker);
		cache_file_hash(c, grown, &h);
	} else if (kind == 2) {
		struct run *r = cache_run_get(c, &rk);
		/* a store not sealed with the key (as one copied whole from a
		 * seed is) was trusted: its seal at 88 covers the 88 bytes
		 * before it and the body after its 128-byte header */
		if (r && (file.len < 128 ||
			  !seal_check(&key, file.data, 88, file.data + 128, file.len - 128,
				      (const unsigned char *)file.data + 88)))
			abort();
		for (size_t i = 0; r && i < run_field_count(r); i++)
			(void)run_field_at(r, i);
		run_free(r);
	} else if (kind == 4) {
		struct memo *m = memo_open(c, "content/r.md");
		struct span got;
		if (memo_get(m, &rk, &got)) {
			if (forged)
				abort();
			/* an entry's bytes, read as an entry is */
			struct wire_rd r = {got.p, got.p + got.len, false};
			while (!r.bad && r.p < r.end) {
				free(memo_rd_str(&r));
				(void)wire_f64(&r);
			}
		}
		memo_close(m);
	} else {
		struct cache_reports *set = cache_reports_load(c, out);
		(void)cache_reports_has(set, "r", &rk);
		cache_reports_free(set);
	}
	struct diag *d = fuzz_diag();
	cache_report(c, d);
	diag_free(d);
	cache_close(c);

	unlink(path);
	free(path);
	buf_free(&file);
	return 0;
}
