#!/bin/bash
# build-kernel.sh - extract, patch, configure and build the notifwait kernel.
#
# usage: build-kernel.sh TARBALL KERNEL_DIR CONFIG_FRAGMENT [PATCH...]
#
# Builds in KERNEL_DIR, a cache directory named by kernel.mk after a hash
# of everything that goes into the kernel, so an existing, complete
# KERNEL_DIR is up to date by construction. Stages leave stamps in
# KERNEL_DIR, so an interrupted build resumes where it stopped; a tree
# whose extraction or patching did not complete is thrown away and redone.
#
# Produces KERNEL_DIR/arch/x86/boot/bzImage, KERNEL_DIR/vmlinux (with BTF)
# and KERNEL_DIR/tools/testing/selftests/seccomp/seccomp_bpf. Any failure
# exits non-zero with one line "kernel: ..." saying why.
set -euo pipefail

die() {
	echo "kernel: $*" >&2
	exit 1
}

[ $# -ge 3 ] || die "usage: $0 TARBALL KERNEL_DIR CONFIG_FRAGMENT [PATCH...]"
tarball=$1
kdir=$2
fragment=$3
shift 3

jobs=${KERNEL_JOBS:-$(nproc)}
log=$kdir.log

[ -r "$tarball" ] || die "no kernel source tarball $tarball (apt-get install linux-source-6.1)"
[ -r "$fragment" ] || die "no config fragment $fragment"
for p in "$@"; do
	[ -r "$p" ] || die "patch $p listed in the series does not exist"
done

stage() {
	printf 'kernel: %s\n' "$*"
}

# 1. Extract and patch, from scratch unless a previous run finished this.
if [ ! -e "$kdir/.nw-patched" ]; then
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp"
	stage "extracting $tarball"
	tar -xf "$tarball" -C "$kdir.tmp" --strip-components=1 ||
		die "cannot extract $tarball"
	for p in "$@"; do
		stage "applying $(basename "$p")"
		if ! out=$(patch -d "$kdir.tmp" -p1 --batch --forward --fuzz=0 \
				 --no-backup-if-mismatch -i "$(realpath "$p")" 2>&1); then
			printf '%s\n' "$out" >&2
			die "patch $(basename "$p") does not apply to $(basename "$tarball")"
		fi
		if grep -q '^Hunk .* with offset' <<<"$out"; then
			stage "  (applied with offset)"
		fi
	done
	touch "$kdir.tmp/.nw-patched"
	mv "$kdir.tmp" "$kdir"
fi

# 2. Configure: allnoconfig + fragment, then check the fragment survived.
if [ ! -e "$kdir/.nw-configured" ]; then
	stage "configuring (allnoconfig + $(basename "$fragment"))"
	make -C "$kdir" -s allnoconfig >/dev/null
	"$kdir/scripts/kconfig/merge_config.sh" -m -O "$kdir" \
		"$kdir/.config" "$fragment" >/dev/null
	make -C "$kdir" -s olddefconfig >/dev/null
	missing=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) ;;
		*) continue ;;
		esac
		if ! grep -qxF -- "$line" "$kdir/.config"; then
			sym=${line%%=*}
			got=$(grep -E "^(# )?$sym[= ]" "$kdir/.config" || true)
			echo "kernel: $line from $(basename "$fragment") did not survive olddefconfig (got: ${got:-unset})" >&2
			missing=$((missing + 1))
		fi
	done <"$fragment"
	[ "$missing" -eq 0 ] || die "$missing option(s) of $(basename "$fragment") lost; add their dependencies to it"
	touch "$kdir/.nw-configured"
fi

# 3. Build bzImage (vmlinux with BTF on the way), the headers and the
#    seccomp selftests. make is incremental, so just run it.
stage "building bzImage with -j$jobs (log: $log)"
start=$(date +%s)
if ! make -C "$kdir" -j"$jobs" bzImage >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "bzImage build failed; log: $log"
fi
stage "bzImage built in $(($(date +%s) - start)) s"

btf_funcs=$(bpftool btf dump file "$kdir/vmlinux" 2>/dev/null |
	    grep -c "FUNC 'seccomp_do_user_notification'" || true)
stage "BTF of vmlinux has $btf_funcs FUNC seccomp_do_user_notification"
if [ -n "${KERNEL_REQUIRE_BTF_FUNC:-}" ] && [ "$btf_funcs" -lt 1 ]; then
	die "seccomp_do_user_notification is not in the BTF of $kdir/vmlinux"
fi

if ! make -C "$kdir" -s headers >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "make headers failed; log: $log"
fi
# OUTPUT: lib.mk only defaults it when not run from another make.
st=$kdir/tools/testing/selftests/seccomp
if ! make -C "$st" OUTPUT="$st" >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "seccomp selftests build failed; log: $log"
fi
[ -x "$st/seccomp_bpf" ] || die "no seccomp_bpf after the selftests build"
stage "seccomp selftests built: $st/seccomp_bpf"
touch "$kdir/.nw-built"
