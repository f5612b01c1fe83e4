#!/bin/bash
# guest-init.sh - init (PID 1) of the notifwait test VM.
#
# The guest's root is the host's root, read-only over virtio-9p. The host
# (tests/vm/run-vm.sh) passes NW_VM_RUN=<dir> on the kernel command line;
# that host directory is shared again, writable, as 9p tag "nwrun" and
# mounted over itself here. It holds "env" (the settings, written by the
# host) and receives the results. Progress lines "nw-vm: ..." go to the
# serial console, which the host logs to a file.
#
# Modes (VM_MODE in env): test (selftests, notifwait's suite, BTF and
# fentry checks), run (VM_CMD), shell (interactive shell on ttyS0).
# Whatever happens, the VM ends with a sysrq reboot (qemu -no-reboot).
set -euo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

say() {
	echo "nw-vm: $*" >/dev/console
}

finish() {
	trap - EXIT
	sync
	if [ -n "${NW_VM_RUN:-}" ] && [ -n "${nw_run_mounted:-}" ]; then
		: >"$NW_VM_RUN/done" || true
		umount "$NW_VM_RUN" || true
	fi
	say "done, rebooting"
	# Only the guest's own procfs; if it is not mounted, exiting init
	# panics, and panic=-1 reboots just the same.
	if [ "$(stat -f -c %T /proc 2>/dev/null)" = proc ]; then
		echo b >/proc/sysrq-trigger
		sleep 10
	fi
	exit 1
}
trap finish EXIT

# Mount unconditionally: the directories of the 9p root are the host's
# mount points and can look like mount points here; what is under them
# (the host's /proc, /sys, ...) must be covered, never used.
mount_fs() { # TYPE DIR [OPTIONS]
	mount -t "$1" ${3:+-o "$3"} "$1" "$2"
}

mount_fs proc /proc
mount_fs sysfs /sys
# CONFIG_DEVTMPFS_MOUNT has mounted /dev already, normally.
grep -q '^devtmpfs /dev ' /proc/mounts || mount_fs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount_fs devpts /dev/pts
mount_fs tmpfs /dev/shm
mount_fs tmpfs /tmp mode=1777
mount_fs tmpfs /run mode=755
mount_fs bpf /sys/fs/bpf
# cgroup v2 (cgroup.freeze) for the freezer scenario of suite_chains
mount_fs cgroup2 /sys/fs/cgroup || true
mount_fs debugfs /sys/kernel/debug
mount_fs tracefs /sys/kernel/tracing
ulimit -l unlimited
ip link set lo up 2>/dev/null || true

[ -n "${NW_VM_RUN:-}" ] || { say "FAIL: no NW_VM_RUN= on the kernel command line"; exit 1; }
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 nwrun "$NW_VM_RUN" ||
	{ say "FAIL: cannot mount the run directory $NW_VM_RUN"; exit 1; }
nw_run_mounted=1
# shellcheck source=/dev/null
. "$NW_VM_RUN/env"
say "up after $(uptime_s) s: $(uname -r), mode $VM_MODE"

results=$NW_VM_RUN/results
: >"$results"

step_start=0
result() { # STEP PASSED FAILED SKIPPED NOTE...
	local step=$1 p=$2 f=$3 s=$4 took
	shift 4
	took=$(awk -v a="$step_start" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
	echo "$step $p $f $s ${took}s $*" >>"$results"
	say "result $step: $p passed, $f failed, $s skipped in ${took}s${*:+ ($*)}"
}

# Run "$@" with output to LOG and the console; return its status.
run_logged() { # LOG CMD...
	local log=$1 rc
	shift
	set +e
	"$@" </dev/null 2>&1 | tee "$log" >/dev/console
	rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

step_selftest() {
	local log=$NW_VM_RUN/selftest.log rc=0 totals p f s
	step_start=$(uptime_s)
	say "step selftest: $VM_SELFTEST"
	(cd /tmp && run_logged "$log" "$VM_SELFTEST") || rc=$?
	totals=$(grep -E '^# Totals: ' "$log" | tail -n 1 || true)
	if [ -z "$totals" ]; then
		result selftest 0 1 0 "rc=$rc, no Totals line"
		return
	fi
	# "# Totals: pass:N fail:N xfail:N xpass:N skip:N error:N"
	p=$(sed -E 's/.* pass:([0-9]+).*/\1/' <<<"$totals")
	f=$(($(sed -E 's/.* fail:([0-9]+).*/\1/' <<<"$totals") + \
	     $(sed -E 's/.* error:([0-9]+).*/\1/' <<<"$totals")))
	s=$(sed -E 's/.* skip:([0-9]+).*/\1/' <<<"$totals")
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	result selftest "$p" "$f" "$s" "rc=$rc"
	grep -E '^(not )?ok [0-9]+ .*(wait_killable|addfd)' "$log" |
		sed 's/^/nw-vm:   /' >/dev/console || true
}

step_suite() {
	local log=$NW_VM_RUN/suite.log rc=0 cmd=${VM_GUEST_SUITE:-} line p f s
	step_start=$(uptime_s)
	if [ "$cmd" = none ]; then
		result suite 0 0 1 "not run: NW_GUEST_SUITE=none"
		return
	fi
	if [ -z "$cmd" ]; then
		if [ -e "$VM_ROOT/tests/integration/run.py" ]; then
			cmd="python3 tests/integration/run.py --build $VM_BUILD --scratch /tmp/nw-it"
		else
			result suite 0 0 1 "no NW_GUEST_SUITE and no tests/integration/run.py"
			return
		fi
	fi
	say "step suite: $cmd"
	(cd "$VM_ROOT" && run_logged "$log" bash -c "$cmd") || rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
	if [ -z "$line" ]; then
		result suite 0 1 0 "rc=$rc, no 'N passed, N failed' line"
		return
	fi
	p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
	s=0
	if grep -qE ', [0-9]+ skipped' <<<"$line"; then
		s=$(sed -E 's/.*, ([0-9]+) skipped.*/\1/' <<<"$line")
	fi
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	result suite "$p" "$f" "$s" "rc=$rc"
}

step_btf() {
	local log=$NW_VM_RUN/btf.log func proto
	step_start=$(uptime_s)
	say "step btf: bpftool btf dump file /sys/kernel/btf/vmlinux"
	bpftool btf dump file /sys/kernel/btf/vmlinux >/tmp/btf.txt 2>&1 || true
	func=$(grep -E "^\[[0-9]+\] FUNC 'seccomp_do_user_notification' " /tmp/btf.txt || true)
	if [ "${VM_BTF_EXPECT:-func}" = clone ]; then
		# unpatched: a compiler clone, absent from BTF, named in kallsyms
		clone=$(grep -oE ' seccomp_do_user_notification\.[a-z]+\.[0-9]+$' /proc/kallsyms | head -n 1 || true)
		echo "BTF: ${func:-no FUNC seccomp_do_user_notification}; kallsyms:${clone:- none}" |
			tee "$log" | sed 's/^/nw-vm:   /' >/dev/console
		if [ -z "$func" ] && [ -n "$clone" ]; then
			result btf 1 0 0 "clone$clone only, as unpatched 6.1 has it"
		else
			result btf 0 1 0 "expected a clone of seccomp_do_user_notification only"
		fi
		return
	fi
	if [ -z "$func" ]; then
		grep -E "seccomp_do_user_notification" /tmp/btf.txt >"$log" || true
		result btf 0 1 0 "FUNC seccomp_do_user_notification not in BTF"
		return
	fi
	proto=$(sed -E 's/.*type_id=([0-9]+).*/\1/' <<<"$func")
	{
		echo "$func"
		grep -A4 -E "^\[$proto\] FUNC_PROTO" /tmp/btf.txt | sed -n '1,4p'
	} | tee "$log" | sed 's/^/nw-vm:   /' >/dev/console
	result btf 1 0 0 "$func"
}

step_fentry() {
	local log=$NW_VM_RUN/fentry.log rc=0 line
	step_start=$(uptime_s)
	say "step fentry: $VM_FENTRY $VM_FENTRY_FUNCS"
	# shellcheck disable=SC2086
	run_logged "$log" "$VM_FENTRY" $VM_FENTRY_FUNCS || rc=$?
	line=$(grep -E '^fentry_check: [0-9]+ attached, [0-9]+ failed' "$log" || true)
	if [ -z "$line" ]; then
		result fentry 0 1 0 "rc=$rc, no summary line"
		return
	fi
	result fentry "$(sed -E 's/.*: ([0-9]+) attached.*/\1/' <<<"$line")" \
		"$(sed -E 's/.*, ([0-9]+) failed.*/\1/' <<<"$line")" 0 "rc=$rc"
}

case $VM_MODE in
test)
	step_selftest
	step_suite
	step_btf
	step_fentry
	;;
run)
	say "run: $VM_CMD"
	rc=0
	(cd "$VM_ROOT" && bash -c "$VM_CMD") </dev/null >"$NW_VM_RUN/output" 2>&1 || rc=$?
	echo "$rc" >"$NW_VM_RUN/status"
	say "run: exit status $rc"
	;;
shell)
	say "shell on ttyS0; exit the shell to stop the VM"
	cd "$VM_ROOT"
	setsid --ctty --wait bash -i </dev/ttyS0 >/dev/ttyS0 2>&1 || true
	;;
*)
	say "FAIL: unknown VM_MODE '$VM_MODE'"
	;;
esac
