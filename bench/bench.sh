#!/usr/bin/env bash
# Overhead of notifwait, as ratios measured in one run (timings on shared
# machines are noisy; ratios of interleaved runs are not). Each load runs
# ROUNDS times alternately without and with the tracer; medians are kept.
#   bench/bench.sh [BUILD]    (make bench)
# ROUNDS, NOTIFS, SYSCALLS, PINGPONGS size it; BACKEND (default auto) is the
# tracer's --backend, to compare backends where several load (the VM).
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
notifs=${NOTIFS:-20000}
syscalls=${SYSCALLS:-2000000}
pingpongs=${PINGPONGS:-100000}
backend=${BACKEND:-auto}
tmp=$(mktemp -d)
trap '[ -n "$tracer" ] && kill "$tracer" 2>/dev/null; rm -rf "$tmp"' EXIT
tracer=

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# ns per notification round trip of one target thread, supervisor replying at once
roundtrip() {
	local t0 t1
	t0=$(date +%s%N)
	"$build/nw-workload" --threads 1 --iterations "$notifs" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / notifs))
}

start_tracer() {
	"$build/notifwait" --backend "$backend" -j -o "$tmp/out.jsonl" 2>"$tmp/err" &
	tracer=$!
	until grep -q 'notifwait: tracing' "$tmp/err"; do
		kill -0 "$tracer" 2>/dev/null || { cat "$tmp/err" >&2; exit 1; }
		sleep 0.05
	done
}

stop_tracer() {
	kill -INT "$tracer"
	wait "$tracer" || true
	tracer=
}

measure() { # name command...
	local name=$1 i
	shift
	: >"$tmp/$name.off"
	: >"$tmp/$name.on"
	for i in $(seq "$rounds"); do
		"$@" >>"$tmp/$name.off"
		start_tracer
		"$@" >>"$tmp/$name.on"
		stop_tracer
	done
	local off on
	off=$(median <"$tmp/$name.off")
	on=$(median <"$tmp/$name.on")
	printf '%-34s %10.1f %10.1f %8.2fx\n' "$name" "$off" "$on" \
		"$(awk -v a="$on" -v b="$off" 'BEGIN {print a / b}')"
}

start_tracer
echo "backend: $(grep -o 'backend: [a-z ]*' "$tmp/err" | head -n 1 | cut -d' ' -f2-)"
stop_tracer
printf '%-34s %10s %10s %9s\n' "load (ns per operation, median)" "untraced" "traced" "ratio"
measure "notification round trip" roundtrip
measure "unrelated getppid()" "$build/loops" syscall "$syscalls"
measure "unrelated pipe ping-pong" "$build/loops" pingpong "$pingpongs"
start_tracer
"$build/nw-workload" --threads 1 --iterations "$notifs" >/dev/null
stop_tracer
n=$(grep -c '"type":"notif"' "$tmp/out.jsonl")
lost=$(grep -o '"events":[0-9]*' "$tmp/out.jsonl" | cut -d: -f2)
echo "check: $n notifications traced system-wide while $notifs were made, $lost records lost"
