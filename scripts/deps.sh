#!/usr/bin/env bash
# Debian packages the build or the tests need.
#
#   deps.sh check PKG...    exit 1 with one line naming the missing ones
#                           (never calls apt: what a plain `make` does)
#   deps.sh install PKG...  apt-get install the missing ones (root);
#                           apt is not touched when all are installed
#
# Without dpkg (not Debian) the check passes: the compiler says what is missing.
set -euo pipefail
action=${1:-}
shift || true
case $action in
check | install) ;;
*)
	echo "usage: $0 check|install PACKAGE..." >&2
	exit 2
	;;
esac
command -v dpkg-query >/dev/null || exit 0

missing=()
for pkg in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$action" = check ]; then
	echo "notifwait: missing Debian packages: ${missing[*]} (run 'make deps' as root, or apt-get install them)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "notifwait: missing Debian packages: ${missing[*]}; installing them needs root (run as root, or with sudo)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}"
