#!/usr/bin/env bash
# Inside the VM: notifwait's integration suite once per backend (the seed
# kernel lets fentry load), each scratch in the guest's tmpfs. Prints the
# per-backend lines and their sum as "N passed, N failed, N skipped".
#   guest-suite.sh [BUILD]  NW_VM_BACKENDS="fentry tracepoint" (default
#   VM_BACKENDS from the host, by kernel flavour)
#   NW_VM_TESTS="pat1 pat2" runs only tests matching one of the patterns.
#   NW_VM_SUITES: the suite_*.py run besides the core scenarios. Default: the
#   ones about the kernel (filters, backends, chains, supervisor); the outputs built on
#   top (metrics, bound check, timeline, Go) run in the host suite.
#   NW_VM_SCRATCH: where the scratch goes instead of /tmp ("$NW_VM_RUN", the
#   host's writable run directory, keeps a failure's files for the host);
#   NW_IT_RECORD=1 adds --record to each run.
set -uo pipefail
build=${1:-${VM_BUILD:-build}}
backends=${NW_VM_BACKENDS:-${VM_BACKENDS:-fentry tracepoint}}
passed=0 failed=0 skipped=0 rc=0
ks=()
# TCG: a woken task may wait several ms for a vCPU (see checks.py)
export NW_TEST_WAKE_MARGIN_NS=${NW_TEST_WAKE_MARGIN_NS:-10000000}
# and a supervisor already running takes a notification first more often
export NW_TEST_NOTIFY_UNSEEN_PCT=${NW_TEST_NOTIFY_UNSEEN_PCT:-20}
for pat in ${NW_VM_TESTS:-}; do ks+=(-k "$pat"); done
for backend in $backends; do
	log=/tmp/nw-suite-$backend.log
	echo "== notifwait suite, backend $backend"
	python3 tests/integration/run.py --build "$build" --scratch "${NW_VM_SCRATCH:-/tmp}/nw-it-$backend" \
		--backend "$backend" --suites "${NW_VM_SUITES-filters,backends,chains,supervisor}" "${ks[@]}" 2>&1 | tee "$log" | sed "s/^/[$backend] /"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		continue
	fi
	read -r p f s <<<"$(sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\1 \2 \4/' <<<"$line")"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
