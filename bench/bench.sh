#!/usr/bin/env bash
# make bench: what notifwait costs, as ratios of traced to untraced work
# measured in one run (bench/bench.py does the work; its header lists the
# sizes, all overridable from the environment), then the README's overhead
# table regenerated from the newest results file.
#   bench/bench.sh [BUILD] [bench.py options]
#   OUT_DIR=DIR    where the results file goes (default bench/results)
#   TABLE=0        do not regenerate the README table
# bench.py turns kernel.bpf_stats_enabled on for one pass and restores it;
# this trap restores it too if bench.py itself is killed.
set -euo pipefail
build=${1:-build}
shift || true
out_dir=${OUT_DIR:-bench/results}
sysctl=/proc/sys/kernel/bpf_stats_enabled
saved=$(cat "$sysctl")
trap 'echo "$saved" >"$sysctl"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
python3 bench/bench.py --build "$build" --out-dir "$out_dir" "$@"
if [ "${TABLE:-1}" != 0 ]; then
	python3 bench/overhead_table.py --results "$out_dir" README.md
fi
