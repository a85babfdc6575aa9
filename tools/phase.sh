#!/bin/sh
# Runs one phase of `make test` (its name, then its command) and says how
# long it took, so that a CI log shows where its minutes went:
#   make test: check-all took 742 s
# The command's exit status is the script's.
name=$1
shift
start=$(date +%s)
"$@"
rc=$?
echo "make test: $name took $(($(date +%s) - start)) s$([ $rc -ne 0 ] && echo " and failed ($rc)")"
exit $rc
