#!/usr/bin/env bash
# make deb: BUILD/deb/notifwait_VERSION_ARCH.deb with Debian's own tools:
# the files laid out by `make install PREFIX=/usr`, Depends computed by
# dpkg-shlibdeps from the libraries the binary links, built by dpkg-deb.
#   usage: mkdeb.sh BUILD
set -euo pipefail
build=$(realpath "${1:?usage: $0 BUILD}")
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture; do
	command -v "$tool" >/dev/null ||
		{ echo "notifwait: make deb needs $tool (apt-get install dpkg-dev)" >&2; exit 1; }
done

# DEB_MAINTAINER: the name and address the package is signed off by.
maintainer=${DEB_MAINTAINER:-notifwait developers <notifwait@example.org>}
version=$("$build/notifwait" --version | awk '{ print $2 }')
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
out=$build/deb
stage=$out/notifwait_${version}_$arch
deb=$out/notifwait_${version}_$arch.deb
rm -rf "$stage" "$deb"
mkdir -p "$stage/DEBIAN"

# Debian's layout: units under /lib while bookworm's packages ship them there.
make --no-print-directory -s -C "$root" install BUILD="$build" \
	DESTDIR="$stage" PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system >/dev/null
doc=$stage/usr/share/doc/notifwait
mkdir -p "$doc" "$stage/etc/default"
mv "$stage/usr/share/notifwait/notifwait.default" "$stage/etc/default/notifwait"
gzip -9n "$stage/usr/share/man/man8/notifwait.8"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$stage/usr/sbin/notifwait"
install -m 0644 "$root/packaging/copyright" "$doc/copyright"
install -m 0644 "$root/README.md" "$doc/README.md"
for f in "$root"/docs/*.md; do
	[ -e "$f" ] && install -m 0644 "$f" "$doc/"
done
sed -e "s/@VERSION@/$version/" -e "s/@MAINTAINER@/$maintainer/" "$root/packaging/changelog" | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# dpkg-shlibdeps wants a debian/control; a scratch one names the package.
shlib=$out/shlibdeps
rm -rf "$shlib"
mkdir -p "$shlib/debian"
printf 'Source: notifwait\n\nPackage: notifwait\nArchitecture: any\n' >"$shlib/debian/control"
depends=$(cd "$shlib" && dpkg-shlibdeps -O "$stage/usr/sbin/notifwait" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "notifwait: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<END
Package: notifwait
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Section: admin
Priority: optional
Description: trace seccomp user-notification waits and the signals they delay
 notifwait follows each seccomp user notification (SECCOMP_RET_USER_NOTIF)
 with BPF: when it was created, received and answered, when the target's
 wait became killable, and every signal sent to the target meanwhile, how
 long it stayed pending and its effect (deferred, interrupted, ...).
 .
 Output: one line per notification, JSON Lines, histograms, summary tables,
 Prometheus metrics (HTTP and node_exporter textfile), an SVG timeline, and
 a check that deferred signals were bounded by the supervisor's reply. A
 systemd unit runs it as an exporter.
END
echo /etc/default/notifwait >"$stage/DEBIAN/conffiles"
(cd "$stage" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' |
	LC_ALL=C sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "deb: $deb (Depends: $depends)"
