#!/bin/sh
# Installs the Debian packages logdown needs to build and test, if any
# are missing.  Run by `make site` and `make test`; safe to run again.
set -eu

PKGS="make gcc pkg-config libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-dev
libpcre2-dev libcairo2-dev libpango1.0-dev libcmocka-dev fonts-dejavu-core
libmicrohttpd-dev libxxhash-dev librsvg2-dev libexpat1-dev poppler-utils
clang libclang-rt-dev valgrind libjs-katex duktape-dev fonts-texgyre-math
libgtksourceview-5-common libgraphviz-dev nettle-dev time"

# libjs-katex (KaTeX, compiled into the binary) and duktape-dev (the
# JavaScript engine it runs in) turn TeX math into MathML;
# fonts-texgyre-math has the math font the site ships.
# libgtksourceview-5-common: the language files of code highlighting
# (data only), compiled into the binary (Makefile GSV_LANGS).
# libgraphviz-dev: Graphviz's libgvc and libcgraph lay out and draw the
# ```dot diagrams (docs/internals.md says why).
# clang and libclang-rt-dev (libFuzzer) build the fuzzers of make fuzz,
# valgrind runs make valgrind; make test runs both.
# nettle-dev: HMAC-SHA256 seals the build cache with the user's key
# (docs/internals.md says why nettle).
# time (/usr/bin/time) measures the peak memory of the logdown runs the
# hostile-input tests bound (tests/e2e/bounded.h).

# The browser test of `logdown serve` (tests/e2e/test_browser.c) needs
# Debian's Chromium and playwright-core from npm: CI installs them; a
# user's `make test` skips that test unless LOGDOWN_BROWSER_TESTS=1.
# They are a best effort: when they cannot be had, that test says it
# skipped, and nothing else fails.
BROWSER_PKGS=""
if [ "${CI:-}" = "true" ] || [ "${LOGDOWN_BROWSER_TESTS:-}" = "1" ]; then
	command -v node >/dev/null 2>&1 || BROWSER_PKGS="$BROWSER_PKGS nodejs"
	command -v npm >/dev/null 2>&1 || BROWSER_PKGS="$BROWSER_PKGS npm"
	BROWSER_PKGS="$BROWSER_PKGS chromium"
fi

missing_of() {
	out=""
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			out="$out $p"
		fi
	done
	echo "$out"
}

# shellcheck disable=SC2086
missing=$(missing_of $PKGS)
# shellcheck disable=SC2086
missing_browser=$(missing_of $BROWSER_PKGS)

if [ -n "$missing$missing_browser" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		SUDO=""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	elif [ -n "$missing" ]; then
		echo "logdown: cannot install packages without root; run as root:" >&2
		echo "    apt-get update && apt-get install -y$missing" >&2
		exit 1
	else
		echo "logdown: no root to install$missing_browser: the browser test will be skipped" >&2
		missing_browser=""
	fi
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "logdown: installing missing Debian packages:$missing"
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi
if [ -n "$missing_browser" ]; then
	echo "logdown: installing for the browser test:$missing_browser"
	# shellcheck disable=SC2086
	{ [ -n "$missing" ] || $SUDO apt-get update -q; } >/dev/null 2>&1 &&
		$SUDO apt-get install -y -q --no-install-recommends $missing_browser >/dev/null 2>&1 ||
		echo "logdown: could not install$missing_browser: the browser test will be skipped" >&2
fi
if [ -n "$BROWSER_PKGS" ] && [ ! -d tests/browser/node_modules/playwright-core ] &&
	command -v npm >/dev/null 2>&1; then
	echo "logdown: installing playwright-core for the browser test"
	npm install --prefix tests/browser --no-audit --no-fund --silent >/dev/null 2>&1 ||
		echo "logdown: npm install failed: the browser test will be skipped" >&2
fi
exit 0
