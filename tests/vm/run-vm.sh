#!/bin/bash
# run-vm.sh - boot the notifwait kernel under qemu (TCG) and run tests in it.
#
# usage: run-vm.sh test|run|shell
#
# Settings come from the environment (kernel.mk sets them):
#   VM_KERNEL         bzImage to boot (required)
#   VM_ROOT           checkout root, as seen by host and guest (required)
#   VM_BUILD          project build directory, relative to VM_ROOT or absolute
#   VM_SELFTEST       seccomp_bpf selftest binary (test mode)
#   VM_FENTRY         fentry_check binary (test mode)
#   VM_FENTRY_FUNCS   functions fentry_check must attach to (test mode)
#   VM_GUEST_SUITE    command for notifwait's suite (test mode; empty: default)
#   VM_BACKENDS       backends guest-suite.sh runs the suite with
#   VM_BTF_EXPECT     func: seccomp_do_user_notification must be in BTF;
#                     clone: it must be absent, a clone of it in kallsyms
#   VM_CMD            command to run (run mode)
#   VM_RUN_BASE       where run directories go (default /var/cache/notifwait/run)
#   VM_TIMEOUT        hard timeout in seconds (default 1500)
#   VM_MEM VM_SMP     guest memory and vCPUs (default 2G, 2)
#   VM_TCG_THREAD     single (default: one host thread for all vCPUs) or
#                     multi (a thread per vCPU: guests hung at patched code)
#   VM_QEMU_ARGS      extra qemu arguments
#
# The guest's root is the host's / over virtio-9p, read-only; its init is
# tests/vm/guest-init.sh. Results come back through a run directory shared
# writable; the serial console goes to VM_RUN_BASE/<run>/serial.log, which
# is kept. Exits non-zero with one line "vm-...: ..." saying why on any
# failure.
set -euo pipefail

mode=${1:-}
case $mode in
test | run | shell) ;;
*)
	echo "usage: $0 test|run|shell" >&2
	exit 2
	;;
esac
me=vm-$mode

die() {
	echo "$me: $*" >&2
	exit 1
}

: "${VM_KERNEL:?}" "${VM_ROOT:?}"
VM_BUILD=${VM_BUILD:-build}
VM_RUN_BASE=${VM_RUN_BASE:-/var/cache/notifwait/run}
VM_TIMEOUT=${VM_TIMEOUT:-1500}
VM_MEM=${VM_MEM:-2G}
VM_SMP=${VM_SMP:-2}
VM_FENTRY_FUNCS=${VM_FENTRY_FUNCS:-seccomp_do_user_notification wait_for_completion_interruptible wait_for_completion_killable}

[ -r "$VM_KERNEL" ] || die "no kernel image $VM_KERNEL (make kernel)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed (make kernel-deps)"
VM_ROOT=$(realpath "$VM_ROOT")
mkdir -p "$VM_RUN_BASE"
VM_RUN_BASE=$(realpath "$VM_RUN_BASE")
# The guest mounts tmpfs over /tmp and /run: nothing it needs may live there.
case $VM_RUN_BASE/ in
/tmp/* | /run/*) die "$VM_RUN_BASE is under /tmp or /run, which the guest hides" ;;
esac
hidden_root=
case $VM_ROOT/ in
/tmp/* | /run/*) hidden_root=$VM_ROOT ;;
esac
if [ "$mode" = test ]; then
	[ -x "${VM_SELFTEST:-}" ] || die "no seccomp_bpf selftest at '${VM_SELFTEST:-}' (make kernel)"
	[ -x "${VM_FENTRY:-}" ] || die "no fentry_check at '${VM_FENTRY:-}'"
fi
if [ "$mode" = run ] && [ -z "${VM_CMD:-}" ]; then
	die "no command: make vm-run CMD='...'"
fi

run=$(mktemp -d "$VM_RUN_BASE/run.XXXXXX")
chmod 755 "$run"
if [ -n "$hidden_root" ]; then
	# A checkout under /tmp (a CI clone, say) is shown to the guest through
	# a bind mount outside it; paths into it follow.
	mkdir "$run/checkout"
	mount --bind "$hidden_root" "$run/checkout" ||
		die "cannot bind-mount $hidden_root for the guest (needs root)"
	trap 'umount "$run/checkout" 2>/dev/null' EXIT
	VM_ROOT=$run/checkout
	VM_BUILD=${VM_BUILD/#$hidden_root/$VM_ROOT}
	VM_FENTRY=${VM_FENTRY:+${VM_FENTRY/#$hidden_root/$VM_ROOT}}
	VM_SELFTEST=${VM_SELFTEST:+${VM_SELFTEST/#$hidden_root/$VM_ROOT}}
fi
log=$run/serial.log
: >"$log"
{
	for v in VM_MODE VM_ROOT VM_BUILD VM_SELFTEST VM_FENTRY VM_FENTRY_FUNCS \
		 VM_GUEST_SUITE VM_CMD VM_BTF_EXPECT VM_BACKENDS; do
		if [ "$v" = VM_MODE ]; then val=$mode; else val=${!v:-}; fi
		printf 'export %s=%q\n' "$v" "$val"
	done
} >"$run/env"

append="console=ttyS0 root=hostroot rootfstype=9p"
append+=" rootflags=trans=virtio,version=9p2000.L,msize=262144 ro"
append+=" init=$VM_ROOT/tests/vm/guest-init.sh panic=-1 oops=panic"
# TCG: the clocksource watchdog finds the emulated TSC "unstable" and, with
# no HPET or ACPI PM timer, falls back to refined-jiffies (4 ms steps).
append+=" tsc=reliable"
append+=" NW_VM_RUN=$run"

qemu=(qemu-system-x86_64 -accel "tcg,thread=${VM_TCG_THREAD:-single}" -smp "$VM_SMP" -m "$VM_MEM"
      -nodefaults -display none -no-reboot
      -kernel "$VM_KERNEL" -append "$append"
      -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
      -virtfs "local,path=$run,mount_tag=nwrun,security_model=none,multidevs=remap")
if [ "$mode" = shell ]; then
	qemu+=(-serial mon:stdio)
else
	qemu+=(-serial "file:$log")
fi
# shellcheck disable=SC2206
qemu+=(${VM_QEMU_ARGS:-})

echo "$me: booting $VM_KERNEL (tcg, ${VM_SMP} vCPUs, $VM_MEM, timeout ${VM_TIMEOUT}s)"
echo "$me: serial log: $log"
start=$(date +%s)
rc=0
if [ "$mode" = shell ]; then
	echo "$me: Ctrl-A X quits qemu"
	timeout --foreground -k 10 "$VM_TIMEOUT" "${qemu[@]}" || rc=$?
else
	timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" </dev/null &
	qpid=$!
	follow=$log
	[ "$mode" = run ] && follow=$run/output && : >"$follow"
	if [ "$mode" = run ]; then
		tail -n +1 -F --pid="$qpid" "$follow" 2>/dev/null &
	else
		tail -n +1 -F --pid="$qpid" "$follow" 2>/dev/null |
			tr -d '\r' | grep --line-buffered '^nw-vm: ' &
	fi
	wait "$qpid" || rc=$?
	wait || true
fi
elapsed=$(($(date +%s) - start))

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	die "timeout after ${VM_TIMEOUT}s; serial log: $log"
fi
[ "$rc" -eq 0 ] || die "qemu exited with status $rc; serial log: $log"
if grep -q 'Kernel panic' "$log"; then
	die "guest kernel panic: $(tr -d '\r' <"$log" | grep -m1 'Kernel panic'); serial log: $log"
fi
[ -e "$run/done" ] || die "guest did not finish (no $run/done); serial log: $log"
echo "$me: VM ran ${elapsed}s"

case $mode in
shell)
	exit 0
	;;
run)
	[ -r "$run/status" ] || die "guest wrote no exit status; serial log: $log"
	status=$(cat "$run/status")
	echo "$me: exit status $status (output: $run/output)"
	exit "$status"
	;;
esac

# test: add up the guest's results, one line per step.
tp=0 tf=0 ts=0 bad=()
while read -r step p f s took note; do
	printf '%s: %-8s %d passed, %d failed, %d skipped in %s  %s\n' "$me" "$step" "$p" "$f" "$s" "$took" "$note"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	[ "$f" -eq 0 ] || bad+=("$step")
done <"$run/results"
for step in selftest suite btf fentry; do
	grep -q "^$step " "$run/results" || { bad+=("$step(missing)"); tf=$((tf + 1)); }
done
echo "$me: logs: $run/{selftest,suite,btf,fentry}.log, serial log: $log"
echo "$tp passed, $tf failed, $ts skipped"
[ "${#bad[@]}" -eq 0 ] || die "failed: ${bad[*]}; serial log: $log"
