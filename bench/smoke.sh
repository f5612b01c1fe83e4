#!/usr/bin/env bash
# The benchmark's smoke pass (make test, suite "bench"): make bench at tiny
# sizes into a temporary directory (never bench/results), then check that
# the results file has every part and is well-formed, that the README table
# regenerates from it, that the checker rejects a broken file, and that
# kernel.bpf_stats_enabled is as before. Part 6 (guests) is skipped.
# Ends with "bench: N passed, N failed".
#   bench/smoke.sh [BUILD]
set -uo pipefail
build=${1:-build}
sysctl=/proc/sys/kernel/bpf_stats_enabled
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # name, then the command that must succeed
	local name=$1
	shift
	if "$@"; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		failed=$((failed + 1))
	fi
}

before=$(cat "$sysctl")
waiting=100
start=$(date +%s)
if PAIRS=5 RT_PINNED=2000 RT_UNPINNED=200 SYSCALLS=20000 PINGPONGS=300 \
	JOB_FILES=1 JOB_TAR=bench PEAK_THREADS=2 PEAK_SUPERVISORS=2 \
	PEAK_ITERATIONS=300 RINGBUF_MIN=65536 RINGBUF_MAX=4194304 WAITING=$waiting GROUPED=1 \
	OUT_DIR="$tmp/results" TABLE=0 bench/bench.sh "$build" >"$tmp/log" 2>&1; then
	echo "PASS make bench at tiny sizes ($(($(date +%s) - start)) s)"
	passed=$((passed + 1))
else
	echo "FAIL make bench at tiny sizes exited non-zero:"
	tail -n 5 "$tmp/log" | sed 's/^/    /'
	failed=$((failed + 1))
fi
check "kernel.bpf_stats_enabled restored ($before)" [ "$(cat "$sysctl")" = "$before" ]

files=("$tmp"/results/*.json)
check "exactly one results file, named DATE-HOST.json" \
	bash -c '[ $# -eq 1 ] && [[ $(basename "$1") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}-.+\.json$ ]]' _ "${files[@]}"
python3 bench/check_results.py --min-pairs 5 --waiting "$waiting" --readme README.md \
	"$tmp/results" | tee "$tmp/check"
line=$(grep -E '^bench: [0-9]+ passed, [0-9]+ failed' "$tmp/check")
if [ -n "$line" ]; then
	passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
	failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
else
	echo "FAIL check_results.py printed no count"
	failed=$((failed + 1))
fi

# The checker must be able to fail: a file with a load's ratio missing and
# another with a lost record.
if [ -e "${files[0]}" ]; then
	python3 - "${files[0]}" "$tmp/bad1.json" "$tmp/bad2.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
bad = json.loads(json.dumps(res)); del bad["roundtrip_pinned"]["ratio"]
json.dump(bad, open(sys.argv[2], "w"))
bad = json.loads(json.dumps(res)); bad["peak"]["lost"] = 1
json.dump(bad, open(sys.argv[3], "w"))
PY
	check "checker rejects a load without its ratio" \
		bash -c '! python3 bench/check_results.py "$1" >/dev/null' _ "$tmp/bad1.json"
	check "checker rejects a peak with lost records" \
		bash -c '! python3 bench/check_results.py "$1" >/dev/null' _ "$tmp/bad2.json"
fi
echo "bench: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
