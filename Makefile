# logdown: Markdown + result files -> a static report site.
#
#   make site       install missing Debian packages, build, build the example site
#   make test       the same packages, then check-all, the fuzzers briefly
#                   (fuzz-smoke) and the e2e tests under valgrind
#   make check-all  the stage-include check, every unit, e2e and golden test
#                   under ASan+UBSan, and the fuzz regressions replayed
#   make bench      logdown against the tools people use instead (tools/bench.sh)
#   make parser-score  the built-in parsers over the corpus of real logs
#                   (tests/corpus): facts right and detection right, per kind
#                   (tools/parser_score.c; docs/parsers.md)
#   make suggest-score the parsers `logdown parse --suggest` writes, over
#                   the logs no built-in parser reads (tests/corpus-suggest)
#   make install    PREFIX=/usr/local DESTDIR= (make uninstall removes it)
#   make clean      remove build/, ./logdown and _site/
#
# make fuzz, fuzz-smoke, fuzz-replay, valgrind, attack and tsan:
# tests/hardening.mk.
#
# Local tweaks (CC, CFLAGS) go in an untracked config.mk.
-include config.mk

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g

PKGS    = libcmark-gfm yaml-0.1 libpcre2-8 cairo pangocairo libmicrohttpd librsvg-2.0 \
          libxxhash expat duktape harfbuzz libgvc nettle
WARN    = -Wall -Wextra -Wpedantic -Wstrict-prototypes -Wmissing-prototypes \
          -Wwrite-strings -Wshadow
ifeq ($(CI),true)
WARN   += -Werror
endif
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -DPCRE2_CODE_UNIT_WIDTH=8 \
          -Iinclude -Ibuild $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
          $(WARN) -MMD -MP $(CFLAGS)
# librsvg (SVG in PDFs) and libmicrohttpd (serve) are opened when first
# used (base/lazylib.h), not linked: each start of logdown would map
# and relocate them and the 18 libraries behind them (5 of its 10 ms).
# Their sonames, as the -dev packages' links name them.
LAZY    = -lrsvg-2 -lmicrohttpd
soname  = $(shell objdump -p $$(pkg-config --variable=libdir $(1) 2>/dev/null)/$(2) 2>/dev/null | \
          sed -n 's/^ *SONAME *//p')
RSVG_SONAME := $(or $(call soname,librsvg-2.0,librsvg-2.so),librsvg-2.so.2)
MHD_SONAME  := $(or $(call soname,libmicrohttpd,libmicrohttpd.so),libmicrohttpd.so.12)
LIBS    = $(filter-out $(LAZY),$(shell pkg-config --libs $(PKGS) 2>/dev/null)) -lm -pthread
# The test builds (this one, valgrind's and TSan's) honour the test hooks
# that write into a log, kill the build or fail its steps on purpose
# (test_hook_env(), base/util.h); the release binary ignores them.
TEST_HOOKS = -DLOGDOWN_TEST_HOOKS
SAN     = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all $(TEST_HOOKS)

# The modules by stage, in pipeline order (src/README.md): each stage
# may call the stages before it in STAGES, never those after
# (tools/layers.sh checks the includes).  cmd/main.c, the command line,
# is linked into the binary only, not into the tests.
STAGES  = base data draw expr parse resolve render site cmd
MODULES = $(filter-out cmd/main,$(patsubst src/%.c,%,$(foreach s,$(STAGES),$(sort $(wildcard src/$(s)/*.c)))))
OBJS     = $(MODULES:%=build/rel/%.o) build/rel/embedded.o
ASAN_OBJS = $(MODULES:%=build/asan/%.o) build/asan/embedded.o

# Files compiled into the binary: the default theme, templates, the
# built-in parsers, the code highlighter's languages (GtkSourceView's,
# Debian's libgtksourceview-5-common, and logdown's own in lang/), and
# for math KaTeX (Debian's libjs-katex) and the math font that matches
# DejaVu (fonts-texgyre-math).
GSV_LANGS = def sh python python3 c cpp cuda fortran julia octave yaml json javascript \
          javascript-literals toml makefile cmake diff sql markdown
MATH_FONT = /usr/share/texmf/fonts/opentype/public/tex-gyre-math/texgyredejavu-math.otf
EMBED   = templates/page.html templates/index.html static/logdown.css static/toc.js static/copy.js static/search.js \
          $(sort $(wildcard parsers/*.yaml)) $(sort $(wildcard lang/*.lang)) \
          $(GSV_LANGS:%=/usr/share/gtksourceview-5/language-specs/%.lang) \
          /usr/share/javascript/katex/katex.min.js $(MATH_FONT)

UNIT_TESTS = $(patsubst tests/unit/%.c,build/asan/%,$(wildcard tests/unit/test_*.c))
E2E_TESTS  = $(patsubst tests/e2e/%.c,build/asan/%,$(wildcard tests/e2e/test_*.c))

.PHONY: all deps site test test-build check-all bench parser-score suggest-score install uninstall clean

all: logdown

logdown: $(OBJS) build/rel/cmd/main.o
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

build/rel/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) -c -o $@ $<

# The two libraries opened lazily, named where they are opened.
%/render/svglib.o: ALL_CFLAGS += -DRSVG_SONAME='"$(RSVG_SONAME)"'
%/cmd/httpd.o: ALL_CFLAGS += -DMHD_SONAME='"$(MHD_SONAME)"'

# The theme is one long string literal per file.
build/rel/embedded.o: build/embedded.c | build/rel
	$(CC) $(ALL_CFLAGS) -Wno-overlength-strings -c -o $@ $<
build/asan/embedded.o: build/embedded.c | build/asan
	$(CC) $(ALL_CFLAGS) -Wno-overlength-strings $(SAN) -c -o $@ $<

build/embed: tools/embed.c | build
	$(CC) -std=c11 -O1 -o $@ $<
build/embedded.c: build/embed $(EMBED) Makefile
	build/embed $(EMBED) > $@.tmp && mv $@.tmp $@

build build/rel build/asan:
	mkdir -p $@

# The benchmark corpus generator (make bench, tests/e2e/test_gencorpus.c).
build/gencorpus: tools/gencorpus.c | build
	$(CC) -std=c11 $(WARN) -O2 -o $@ $<
build/asan/test_gencorpus: build/gencorpus

# The floor of make bench's row (a): a one-thread C loop with PCRE2 JIT.
build/pcre-floor: tools/pcre_floor.c | build
	$(CC) -std=c11 $(WARN) -O2 $(shell pkg-config --cflags libpcre2-8) -o $@ $< \
		$(shell pkg-config --libs libpcre2-8)

# The floor of make bench's row (b): cmark-gfm alone, one thread.
build/cmark-floor: tools/cmark_floor.c | build
	$(CC) -std=c11 $(WARN) -O2 -o $@ $< -lcmark-gfm-extensions -lcmark-gfm

# The corpus scorer: tools/parser_score.c linked against the modules, as
# the tests are; the sanitized one for tests/e2e/test_corpus.c.
build/parser-score: tools/parser_score.c $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(OBJS) $(LIBS)
build/asan/parser-score: tools/parser_score.c $(ASAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $< $(ASAN_OBJS) $(LIBS)
build/asan/test_corpus: build/asan/parser-score
# Its unit test includes the .c (with its main() left out): compiled once,
# through the test, not also linked beside it.
build/asan/test_parser_score: tests/unit/test_parser_score.c tools/parser_score.c $(ASAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $< $(ASAN_OBJS) $(LIBS) -lcmocka

# The sanitized binary the end-to-end tests run.
build/asan/logdown: $(ASAN_OBJS) build/asan/cmd/main.o
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(LIBS)

build/asan/test_%: tests/unit/test_%.c $(ASAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $(filter %.c %.o,$^) $(LIBS) -lcmocka
build/asan/test_%: tests/e2e/test_%.c tests/e2e/e2e.h $(ASAN_OBJS) build/asan/logdown
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $< $(ASAN_OBJS) $(LIBS) -lcmocka
# The bad-input and streaming tests measure memory on the release binary.
build/asan/test_badinput: logdown
build/asan/test_stream: logdown

# deps runs first and on its own: pkg-config can only answer once the
# packages are there, so the build itself is a second make.
deps:
	@sh tools/deps.sh

site:
	@sh tools/deps.sh
	@$(MAKE) --no-print-directory logdown
	./logdown build .

# Everything test runs is built first, on every core (JOBS); the tests
# themselves then run in their own order.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Each phase says how long it took ("make test: check-all took N s").
PHASE = sh tools/phase.sh
test:
	@$(PHASE) deps sh tools/deps.sh
	@$(PHASE) test-build $(MAKE) --no-print-directory -j$(JOBS) test-build
	@$(PHASE) check-all $(MAKE) --no-print-directory check-all
	@$(PHASE) fuzz-smoke $(MAKE) --no-print-directory fuzz-smoke
	@$(PHASE) valgrind $(MAKE) --no-print-directory valgrind

test-build: $(UNIT_TESTS) $(E2E_TESTS) build/asan/logdown fuzz-build build/vg/logdown

# The stage-include check, then every unit and e2e test (the golden
# cases run in test_golden) under ASan+UBSan, then the fuzz regressions.
check-all: $(UNIT_TESTS) $(E2E_TESTS) build/asan/logdown
	@sh tools/layers.sh
	@sh tests/run.sh $(UNIT_TESTS) $(E2E_TESTS)
	@$(MAKE) --no-print-directory fuzz-replay

# logdown against grep/rg/python, Hugo, gnuplot/matplotlib, python's
# http.server and Chromium, side by side, one table of ratios
# (tools/bench.sh; BENCH_QUICK=1 for a quick run).
bench: logdown build/gencorpus build/pcre-floor build/cmark-floor
	BENCH_QUICK=$(BENCH_QUICK) bash tools/bench.sh

# How well the built-in parsers read real published logs: facts right /
# total and detection right / total, per kind and overall (-v in
# SCORE_FLAGS lists every miss).
parser-score: build/parser-score
	build/parser-score $(SCORE_FLAGS) tests/corpus

# How well the parsers `logdown parse --suggest` writes, unedited, read
# logs of kinds no built-in parser knows: facts right / total (by value,
# under a name made of the words next to it) and detection, per log and
# overall (tools/parser_score.c --suggest; -v in SCORE_FLAGS lists every
# miss with what came closest).
suggest-score: build/parser-score logdown
	build/parser-score --suggest --logdown ./logdown $(SCORE_FLAGS) tests/corpus-suggest

install: logdown
	mkdir -p $(DESTDIR)$(PREFIX)/bin
	install -m 755 logdown $(DESTDIR)$(PREFIX)/bin/logdown

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/logdown

clean:
	rm -rf build logdown _site

# make fuzz, fuzz-smoke, fuzz-replay, valgrind
include tests/hardening.mk

-include $(wildcard build/rel/*.d build/asan/*.d build/rel/*/*.d build/asan/*/*.d)
