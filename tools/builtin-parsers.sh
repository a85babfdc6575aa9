#!/bin/sh
# Rewrites the generated part of docs/builtin-parsers.md: everything after
# its marker comment is `logdown parsers --markdown` run outside any
# project (tests/e2e/test_describe.c checks that it is).
# Usage: sh tools/builtin-parsers.sh [LOGDOWN]   (default ./logdown)
set -eu
bin=$(cd "$(dirname "${1:-./logdown}")" && pwd)/$(basename "${1:-./logdown}")
page=docs/builtin-parsers.md
marker='regenerate it with `sh tools/builtin-parsers.sh`. -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v m="$marker" '{ print } $0 == m { exit }' "$page" > "$tmp/page"
printf '\n' >> "$tmp/page"
(cd "$tmp" && mkdir empty && cd empty && "$bin" parsers --markdown) >> "$tmp/page"
cp "$tmp/page" "$page"
