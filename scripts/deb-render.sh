#!/usr/bin/env bash
# `make deb-render`: builds build/breeze-agent-render_<version>_<arch>.deb, the image helper
# (docs/images.md) as its own binary package, so a hub without images never installs Cairo,
# libjpeg or the X11 client libraries Cairo pulls in. breeze-agent Recommends it.
# Installs /usr/libexec/breeze-agent/breeze-agent-render; Depends from dpkg-shlibdeps plus
# fonts-dejavu-core. Same environment as scripts/deb.sh (ARCH, BREEZE_VERSION, BREEZE_MAINTAINER).
# Prints the path of the .deb on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

scripts/deps.sh dpkg-dev binutils libcairo2-dev libjpeg62-turbo-dev fonts-dejavu-core >&2

. scripts/deb-common.sh
deb_identity deb-render
package=breeze-agent-render
deb_build deb-render "$package"
name=${package}_${version}_${arch}
out=build/$name.deb
stage=build/deb/$name

rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
doc=$stage/usr/share/doc/$package
target=$stage/usr/libexec/breeze-agent/$package
install -D -m 0755 "$bin" "$target"
"$strip_tool" --remove-section=.comment --remove-section=.note --strip-unneeded "$target"
deb_check_machine deb-render "$target" "$arch"
install -D -m 0644 packaging/render/copyright "$doc/copyright"
install -m 0644 docs/images.md "$doc/images.md"
install -D -m 0644 packaging/render/lintian-overrides "$stage/usr/share/lintian/overrides/$package"

# The source's changelog (one source, two binary packages).
deb_changelog "$doc"

# Depends: the libraries the helper really links (libcairo2, libjpeg62-turbo, libc, …).
shlibs=$(deb_shlibs deb-render "$package" "$PWD/$target")

installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@INSTALLED_SIZE@|$installed_size|" \
    -e "s#@SHLIBS_DEPENDS@#$shlibs#" -e "s|@MAINTAINER@|$maintainer|" packaging/render/control.in \
    > "$stage/DEBIAN/control"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs md5sum) \
    > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums"

epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH=$epoch
find "$stage" -exec touch -h -d "@$epoch" {} +

mkdir -p build
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >&2
deb_sbom deb-render "$package" "$out" "$shlibs"
echo "deb-render: $out ($(du -h "$out" | cut -f1), installed $installed_size KiB)" >&2
echo "deb-render: Depends: $(dpkg-deb -f "$out" Depends)" >&2
echo "$out"
