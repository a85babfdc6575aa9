# Fuzzing (tests/fuzz) and memcheck (tests/valgrind.sh): included by the
# Makefile, which defines MODULES, ALL_CFLAGS, LIBS and the e2e tests.
#
#   make fuzz            each harness for FUZZ_TIME seconds (default 60)
#   make fuzz-smoke      each harness for FUZZ_SMOKE_TIME seconds (5), from
#                        FUZZ_SMOKE_SEED (1) and a fresh corpus
#   make fuzz-replay     every file in tests/fuzz/regressions/<harness>/
#                        through its harness (check-all runs this)
#   make valgrind        the end-to-end tests against build/vg/logdown
#                        under valgrind memcheck
#   make tsan            the tests of the code that runs on threads, and
#                        the end-to-end tests that build on several, under
#                        ThreadSanitizer (tests/tsan.sh; not part of make
#                        test: run it after changing threaded code)
#
#   make attack          the attack campaign (issue 23): the e2e tests that
#                        plant links, swap files mid-build, poison the
#                        cache, and feed bombs and hostile input, under
#                        ATTACK_TIME seconds in all (default 900), then the
#                        cache reader's fuzz regressions
#
# The harnesses are built with clang's libFuzzer against the modules
# compiled by clang into build/fuzz/ (build/asan/ uses cc).

FUZZ_CC   ?= clang
FUZZ_TIME ?= 60
FUZZ_SMOKE_TIME ?= 5
FUZZ_SAN  = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_OBJS = $(MODULES:%=build/fuzz/%.o) build/fuzz/embedded.o
FUZZERS   = $(patsubst tests/fuzz/%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-replay valgrind attack tsan

build/fuzz:
	mkdir -p $@

build/fuzz/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<
build/fuzz/embedded.o: build/embedded.c | build/fuzz
	$(FUZZ_CC) $(ALL_CFLAGS) -Wno-overlength-strings $(FUZZ_SAN) -c -o $@ $<
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LIBS)

# Kept between runs: make would otherwise delete them as intermediates
# and compile every module again for the next harness run.
.SECONDARY: $(FUZZ_OBJS)

fuzz-build: $(FUZZERS)

fuzz: $(FUZZERS)
	@sh tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZERS)

# A fixed seed and a fresh corpus of its own: CI's run goes through the
# inputs a local run of the same length (or longer) went through.
FUZZ_SMOKE_SEED ?= 1
fuzz-smoke: $(FUZZERS)
	@FUZZ_SEED=$(FUZZ_SMOKE_SEED) FUZZ_CORPUS=build/fuzz/smoke-corpus \
		sh tests/fuzz/run.sh $(FUZZ_SMOKE_TIME) $(FUZZERS)

fuzz-replay: $(FUZZERS)
	@sh tests/fuzz/run.sh -replay $(FUZZERS)

# The attack campaign as a named subset of check-all's tests (which
# runs them all already): each asserts the exit status, the exact
# diagnostic, its time and memory bounds (bounded.h), and that nothing
# from outside the project is read, written or served.
#   test_confine   links out of the project, in the old output, planted
#                  staging folders, permission errors
#   test_readswap  files swapped for links out while builds run
#   test_cache     a poisoned, forged, foreign or linked cache, unsafe keys
#   test_swap      SIGKILL at every step of the output's swap
#   test_imgbomb   decompression bombs (PNG, SVG sizes, entity expansion)
#   test_badinput  truncated, binary, huge, nested, overflowing input
#   test_escaping  one hostile payload in every place a string comes from
#   test_memoize   an altered, truncated or foreign memo of values and charts
ATTACK_TESTS = $(addprefix build/asan/,test_confine test_readswap test_cache test_swap \
		test_imgbomb test_badinput test_escaping test_serve test_memoize)
ATTACK_FUZZ = $(addprefix build/fuzz/,fuzz_cache fuzz_runstore fuzz_scanstate fuzz_request)
ATTACK_TIME ?= 900
attack: $(ATTACK_TESTS) build/asan/logdown logdown $(ATTACK_FUZZ)
	@timeout $(ATTACK_TIME) sh tests/run.sh $(ATTACK_TESTS)
	@sh tests/fuzz/run.sh -replay $(ATTACK_FUZZ)

# A plain build for memcheck: valgrind cannot run an ASan binary, nor
# follow PCRE2's JIT code (its reads look uninitialised to it), so the
# patterns are interpreted by pcre2_match() here; and Debian's valgrind
# 3.19 does not know openat2() (it warns in the log of every run that
# calls it), so open_below() walks folder by folder here (site/reuse.c).
VG_CFLAGS = -O1 -DLOGDOWN_NO_JIT -DLOGDOWN_NO_OPENAT2 $(TEST_HOOKS)
VG_OBJS = $(MODULES:%=build/vg/%.o) build/vg/embedded.o
build/vg:
	mkdir -p $@
build/vg/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(VG_CFLAGS) -c -o $@ $<
build/vg/embedded.o: build/embedded.c | build/vg
	$(CC) $(ALL_CFLAGS) -Wno-overlength-strings $(VG_CFLAGS) -c -o $@ $<
build/vg/logdown: $(VG_OBJS) build/vg/cmd/main.o
	$(CC) $(ALL_CFLAGS) $(VG_CFLAGS) -o $@ $^ $(LIBS)

# The browser test drives Chromium against `logdown serve`: under
# memcheck it measures valgrind, not logdown.
VG_TESTS = $(filter-out build/asan/test_browser,$(E2E_TESTS))
valgrind: build/vg/logdown $(VG_TESTS)
	@sh tests/valgrind.sh $(VG_TESTS)

# ThreadSanitizer: every module compiled with -fsanitize=thread into
# build/tsan/, a logdown binary the end-to-end tests run (LOGDOWN=), and
# the unit tests of the threaded code linked against those modules.
TSAN_CFLAGS = -O1 -fsanitize=thread -fno-omit-frame-pointer $(TEST_HOOKS)
TSAN_OBJS = $(MODULES:%=build/tsan/%.o) build/tsan/embedded.o
TSAN_UNIT = $(addprefix build/tsan/,test_runstore test_cachefile test_split test_gfmchars test_gfmarena test_font test_re)
TSAN_E2E  = $(addprefix build/asan/,test_jobs test_build test_cache test_memoize test_appends test_search)
build/tsan:
	mkdir -p $@
build/tsan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TSAN_CFLAGS) -c -o $@ $<
build/tsan/embedded.o: build/embedded.c | build/tsan
	$(CC) $(ALL_CFLAGS) -Wno-overlength-strings $(TSAN_CFLAGS) -c -o $@ $<
build/tsan/logdown: $(TSAN_OBJS) build/tsan/cmd/main.o
	$(CC) $(ALL_CFLAGS) $(TSAN_CFLAGS) -o $@ $^ $(LIBS)
build/tsan/test_%: tests/unit/test_%.c $(TSAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(TSAN_CFLAGS) -o $@ $(filter %.c %.o,$^) $(LIBS) -lcmocka
.SECONDARY: $(TSAN_OBJS)
tsan: build/tsan/logdown $(TSAN_UNIT) $(TSAN_E2E)
	@sh tests/tsan.sh $(TSAN_UNIT) -- $(TSAN_E2E)

-include $(wildcard build/fuzz/*.d build/vg/*.d build/tsan/*.d build/fuzz/*/*.d build/vg/*/*.d build/tsan/*/*.d)
