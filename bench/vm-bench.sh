#!/usr/bin/env bash
# make vm-bench: part 6 of the benchmark, the round trip and getppid ratios
# per backend inside the 6.1 guests (make vm-run): the patched kernel
# (fentry, tracepoint) and the unpatched one (kprobe, fentry on the caller,
# tracepoint; VM_BACKENDS of kernel-patches/kernel.mk). The guests' vCPUs
# are emulated (TCG): absolute times mean nothing, the ratios rank the
# backends. Each flavour's JSON goes to BUILD/vm-bench/FLAVOR.json (make
# bench picks them up), and is merged into the newest bench/results file,
# whose README table is then regenerated.
#   bench/vm-bench.sh [BUILD]
#   FLAVORS="seed vanilla"   kernels to run
#   GUEST_PAIRS=5 GUEST_RT=5000 GUEST_SYSCALLS=1000000   sizes in the guest
#   OUT_DIR=bench/results    the results file to merge into; MERGE=0: don't
set -euo pipefail
build=${1:-build}
out=$build/vm-bench
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for flavor in ${FLAVORS:-seed vanilla}; do
	echo "vm-bench: $flavor kernel"
	cmd="GROUPED=1 PAIRS=${GUEST_PAIRS:-5} RT_PINNED=${GUEST_RT:-5000}"
	cmd+=" SYSCALLS=${GUEST_SYSCALLS:-1000000} python3 bench/bench.py --build $build --guest"
	make --no-print-directory vm-run BUILD="$build" KERNEL_FLAVOR="$flavor" CMD="$cmd" |
		tee "$tmp/$flavor.log" | grep -v '^nw-bench-json: '
	json=$(grep -a '^nw-bench-json: ' "$tmp/$flavor.log" | tail -n 1 | cut -d' ' -f2-)
	[ -n "$json" ] || { echo "vm-bench: the $flavor guest printed no results" >&2; exit 1; }
	printf '%s\n' "$json" >"$out/$flavor.json.tmp"
	mv "$out/$flavor.json.tmp" "$out/$flavor.json"
	echo "vm-bench: wrote $out/$flavor.json"
done
out_dir=${OUT_DIR:-bench/results}
if [ "${MERGE:-1}" != 0 ] && ls "$out_dir"/*.json >/dev/null 2>&1; then
	python3 - "$out_dir" "$out" <<'PY'
import glob, json, os, sys
sys.path.insert(0, "bench")
from overhead_table import newest
path = newest(sys.argv[1])
res = json.load(open(path))
res.setdefault("guests", {})
for g in sorted(glob.glob(os.path.join(sys.argv[2], "*.json"))):
    res["guests"][os.path.basename(g)[:-5]] = json.load(open(g))
with open(path + ".tmp", "w") as f:
    json.dump(res, f, indent=1)
    f.write("\n")
os.replace(path + ".tmp", path)
print(f"vm-bench: merged into {path}")
PY
	python3 bench/overhead_table.py --results "$out_dir" README.md
fi
