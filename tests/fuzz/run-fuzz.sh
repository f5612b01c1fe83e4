#!/usr/bin/env bash
# Runs each fuzzer for FUZZ_SECONDS from the committed seed corpus (new
# inputs go to a scratch copy, not into the tree). A crash, a sanitizer
# report or a leak fails its fuzzer. Ends with "N passed, N failed".
#   tests/fuzz/run-fuzz.sh [BUILD]    FUZZ_SECONDS=60 by default
set -uo pipefail
build=${1:-build}
seconds=${FUZZ_SECONDS:-60}
here=$(dirname "$0")
passed=0 failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in fuzz_recording fuzz_replay; do
	bin=$build/fuzz/$name
	mkdir -p "$work/$name"
	cp "$here"/corpus/* "$work/$name/"
	if "$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-rss_limit_mb=1024 -artifact_prefix="$work/$name-" -print_final_stats=1 \
		"$work/$name" >"$work/$name.log" 2>&1; then
		echo "PASS $name: $(grep -E '^stat::number_of_executed_units' "$work/$name.log" | awk '{print $2}') runs in ${seconds}s, $(grep -Eo 'cov: [0-9]+' "$work/$name.log" | tail -n 1)"
		passed=$((passed + 1))
	else
		echo "FAIL $name:"
		tail -n 40 "$work/$name.log"
		for a in "$work/$name"-*; do
			[ -e "$a" ] && cp "$a" "$build/fuzz/" && echo "  input kept: $build/fuzz/$(basename "$a")"
		done
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
