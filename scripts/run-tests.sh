#!/usr/bin/env bash
# make test: every suite in turn. Each suite ends with "N passed, N failed
# [, N skipped]"; the last line here is their sum. A suite that dies without
# that line counts as one failure. Exit 1 if anything failed.
#   NW_SUITES="unit fuzz integration package bench vm vm-vanilla" picks suites (default: all).
set -uo pipefail
build=${1:-build}
suites=${NW_SUITES:-unit fuzz integration package bench vm vm-vanilla}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0 skipped=0

run_suite() {
	local name=$1 status line p f s
	shift
	echo "== suite: $name"
	"$@" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "notifwait tests: suite '$name' ended (exit $status) without a count line"
		failed=$((failed + 1))
		return
	fi
	p=$(sed -E 's/.*\b([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.*\b([0-9]+) failed.*/\1/' <<<"$line")
	s=0
	grep -q 'skipped' <<<"$line" && s=$(sed -E 's/.*\b([0-9]+) skipped.*/\1/' <<<"$line")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "notifwait tests: suite '$name' exited $status"
		failed=$((failed + 1))
	fi
}

for suite in $suites; do
	case $suite in
	unit) run_suite unit "$build/unit-tests" ;;
	# the recording reader and the replay into the joiner, 12 s each
	fuzz) run_suite fuzz env FUZZ_SECONDS="${FUZZ_TEST_SECONDS:-12}" tests/fuzz/run-fuzz.sh "$build" ;;
	integration) run_suite integration python3 tests/integration/run.py --build "$build" ;;
	# install, the man page and README against --help, the unit, the .deb
	package) run_suite package python3 tests/package/run.py --build "$build" ;;
	# make bench at tiny sizes into a temp dir: the results file is complete
	bench) run_suite bench bench/smoke.sh "$build" ;;
	# The patched kernel and the same 6.1 unpatched, each in a VM: the
	# kernel's seccomp selftests, notifwait's suite under every backend the
	# kernel allows, BTF and fentry checks.
	vm) run_suite vm make --no-print-directory vm-test ;;
	vm-vanilla) run_suite vm-vanilla make --no-print-directory vm-test KERNEL_FLAVOR=vanilla ;;
	*) echo "notifwait tests: unknown suite '$suite'"; failed=$((failed + 1)) ;;
	esac
done
echo "== all suites ($suites)"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
