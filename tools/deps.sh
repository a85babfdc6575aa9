#!/bin/sh
# Installs the Debian packages logdown needs to build and test, if any
# are missing.  Run by `make site` and `make test`; safe to run again.
set -eu

PKGS="make gcc pkg-config libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-dev
libpcre2-dev libcairo2-dev libpango1.0-dev libcmocka-dev fonts-dejavu-core
libmicrohttpd-dev"

# The browser test of `logdown serve` (tests/e2e/test_browser.c) needs
# Debian's Chromium and playwright-core from npm: CI installs them; a
# user's `make test` skips that test unless LOGDOWN_BROWSER_TESTS=1.
browser=""
if [ "${CI:-}" = "true" ] || [ "${LOGDOWN_BROWSER_TESTS:-}" = "1" ]; then
	browser=1
	command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
	command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
	PKGS="$PKGS chromium"
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

playwright() {
	[ -n "$browser" ] || return 0
	[ -d tests/browser/node_modules/playwright-core ] && return 0
	echo "logdown: installing playwright-core for the browser test"
	npm install --prefix tests/browser --no-audit --no-fund --silent >/dev/null 2>&1 ||
		echo "logdown: npm install failed: the browser test will be skipped" >&2
}

if [ -z "$missing" ]; then
	playwright
	exit 0
fi

echo "logdown: installing missing Debian packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	echo "logdown: cannot install packages without root; run as root:" >&2
	echo "    apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
playwright
