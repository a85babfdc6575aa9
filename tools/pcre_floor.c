/* pcre_floor.c: the floor of row (a) of make bench.
 *
 *   build/pcre-floor PATTERN LITERAL FILE > OUT.csv
 *
 * The plain-Python script's job (../shared/bench/anchors/parse_results.py)
 * done in C with nothing else, on one thread: read(2) in 4 MiB chunks,
 * memchr(3) for each line, memmem(3) for LITERAL (the text every match
 * starts with), pcre2_jit_match() from there, and the groups written as
 * a CSV row, without a header.  No line normalisation, no
 * ranks, no types, no line numbers kept.  No program that runs a PCRE2
 * match on each such line, as logdown does, can do it in much less CPU
 * time: the bench prints this time beside logdown's and Python's so that
 * a target can be judged against what the library allows on the machine.
 *
 * Exit status: 0, or 1 with a message (bad usage, a pattern that does not
 * compile, a file that cannot be read). */
#define _GNU_SOURCE /* memmem, memrchr */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK ((size_t)4 << 20)

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "pcre-floor: %s: %s\n", what, why);
	return 1;
}

/* The groups of one match, as a CSV row (the cells are numbers here:
 * no quoting). */
static void put_row(FILE *out, const char *subj, pcre2_match_data *md, int rc)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	uint32_t groups = pcre2_get_ovector_count(md);
	for (uint32_t g = 1; g < groups; g++) {
		if (g > 1)
			putc_unlocked(',', out);
		if ((int)g < rc && ov[2 * g] != PCRE2_UNSET)
			fwrite_unlocked(subj + ov[2 * g], 1, ov[2 * g + 1] - ov[2 * g], out);
	}
	putc_unlocked('\n', out);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fputs("usage: pcre-floor PATTERN LITERAL FILE > OUT.csv\n", stderr);
		return 2;
	}
	const char *lit = argv[2];
	size_t litlen = strlen(lit);
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)argv[1], PCRE2_ZERO_TERMINATED, PCRE2_NEVER_UTF,
				       &err, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		return fail(argv[1], (const char *)msg);
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int fd = open(argv[3], O_RDONLY);
	if (fd < 0)
		return fail(argv[3], strerror(errno));
	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	char *buf = malloc(CHUNK);
	if (!buf || !md)
		return fail("memory", strerror(ENOMEM));
	size_t have = 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, CHUNK - have);
		if (n < 0)
			return fail(argv[3], strerror(errno));
		have += (size_t)n;
		/* Whole lines; at the end of the file, whatever is left. */
		char *end = n == 0 ? buf + have : memrchr(buf, '\n', have);
		if (!end)
			return fail(argv[3], "a line longer than 4 MiB");
		if (n != 0)
			end++;
		for (char *p = buf; p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			char *le = nl ? nl : end;
			char *at = memmem(p, (size_t)(le - p), lit, litlen);
			if (at) {
				int rc = pcre2_jit_match(re, (PCRE2_SPTR)at, (size_t)(le - at), 0, 0, md,
							 NULL);
				if (rc > 0)
					put_row(stdout, at, md, rc);
			}
			p = le + 1;
		}
		if (n == 0)
			break;
		have = (size_t)(buf + have - end);
		memmove(buf, end, have);
	}
	free(buf);
	close(fd);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return fflush(stdout) == 0 ? 0 : fail("stdout", strerror(errno));
}
