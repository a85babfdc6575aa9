#!/bin/sh
# Installs the Debian packages logdown needs to build and test, if any
# are missing.  Run by `make site` and `make test`; safe to run again.
set -eu

PKGS="make gcc pkg-config libcmark-gfm-dev libcmark-gfm-extensions-dev libyaml-dev
libpcre2-dev libcairo2-dev libpango1.0-dev libcmocka-dev fonts-dejavu-core
libmicrohttpd-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

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
