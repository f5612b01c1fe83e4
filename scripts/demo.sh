#!/usr/bin/env bash
# make demo: the tracer on the built-in workload (deferred and interrupting
# signals, addfd), as a stream, then histograms and the summary tables.
set -euo pipefail
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== notifwait -- nw-workload --demo (stream of finished notifications)"
"$build/notifwait" -o "$out/stream.txt" -- "$build/nw-workload" --demo >/dev/null
cat "$out/stream.txt"
echo
echo "== notifwait -H --summary -- nw-workload --demo (histograms and tables)"
"$build/notifwait" -H --summary -o "$out/hist.txt" -- "$build/nw-workload" --demo >/dev/null
cat "$out/hist.txt"
