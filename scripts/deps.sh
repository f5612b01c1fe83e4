#!/usr/bin/env bash
# Debian packages the build or the tests need.
#
#   deps.sh missing PKG...  print the missing ones on one line (never
#                           calls apt: what a plain `make` does)
#   deps.sh install PKG...  apt-get install the missing ones (root);
#                           apt is not touched when all are installed
#
# Without dpkg (not Debian) nothing is missing: the compiler says what is.
set -euo pipefail
action=${1:-}
shift || true
case $action in
missing | install) ;;
*)
	echo "usage: $0 missing|install PACKAGE..." >&2
	exit 2
	;;
esac
command -v dpkg-query >/dev/null || exit 0

# One dpkg-query for all: unknown names are simply absent from its answer.
installed=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null |
	awk '$1 == "ii" { printf "%s ", $2 }' || true) "
missing=()
for pkg in "$@"; do
	[[ $installed == *" $pkg "* ]] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$action" = missing ]; then
	echo "${missing[*]}"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "notifwait: missing Debian packages: ${missing[*]}; installing them needs root (run as root, or with sudo)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}"
