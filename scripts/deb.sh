#!/usr/bin/env bash
# `make deb`: builds build/breeze-agent_<version>_<arch>.deb from a stripped release build
# (static Swift runtime), with Depends computed by dpkg-shlibdeps plus ca-certificates and tzdata.
#
# Environment (the upgrade test in scripts/test-deb.sh uses these; normal builds need none):
#   ARCH               the Debian architecture: this machine's (default) or arm64 (cross-built
#                      by scripts/arm64-toolchain.sh; `make deb ARCH=arm64`)
#   BREEZE_VERSION     package version (default: the VERSION file)
#   BREEZE_DEB_CONFIG  file shipped as /etc/breeze-agent/config.yaml
#                      (default: config/breeze-agent.example.yaml)
#   BREEZE_MAINTAINER  the Maintainer field, `Name <address>` (default: the placeholder
#                      `breeze-agent maintainers <maintainers@breeze-agent.invalid>`; set a real
#                      address when building packages for others, see docs/installing.md)
# Prints the path of the .deb on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

scripts/deps.sh dpkg-dev binutils >&2

. scripts/deb-common.sh
deb_identity deb
config_src=${BREEZE_DEB_CONFIG:-config/breeze-agent.example.yaml}
deb_build deb breeze-agent
name=breeze-agent_${version}_${arch}
out=build/$name.deb
stage=build/deb/$name

rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
doc=$stage/usr/share/doc/breeze-agent

# Files. dpkg-deb --root-owner-group makes everything root:root; the config's group comes from
# the dpkg-statoverride that preinst registers (see packaging/preinst for why not a chown).
install -D -m 0755 "$bin" "$stage/usr/bin/breeze-agent"
# The flags dh_strip uses: symbols and the .comment/.note sections go, Swift's metadata
# sections (swift5_*) are allocated sections and stay.
"$strip_tool" --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/usr/bin/breeze-agent"
deb_check_machine deb "$stage/usr/bin/breeze-agent" "$arch"
install -D -m 0640 "$config_src" "$stage/etc/breeze-agent/config.yaml"
# Debian 12 keeps units in /lib (usrmerge is not final there; lintian 2.116 expects /lib).
install -D -m 0644 packaging/breeze-agent.service "$stage/lib/systemd/system/breeze-agent.service"
install -D -m 0644 packaging/breeze-agent.1 "$stage/usr/share/man/man1/breeze-agent.1"
gzip -9n "$stage/usr/share/man/man1/breeze-agent.1"
install -D -m 0644 packaging/copyright "$doc/copyright"
install -m 0644 docs/installing.md "$doc/installing.md"
if [ -f README.md ]; then install -m 0644 README.md "$doc/README.md"; fi
install -D -m 0644 packaging/lintian-overrides "$stage/usr/share/lintian/overrides/breeze-agent"

deb_changelog "$doc"

# Depends: the shared libraries the binary really links (libcurl, libmosquitto, libyaml,
# libstdc++, libgcc_s, libc).
shlibs=$(deb_shlibs deb breeze-agent "$PWD/$stage/usr/bin/breeze-agent")

installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@INSTALLED_SIZE@|$installed_size|" \
    -e "s#@SHLIBS_DEPENDS@#$shlibs#" -e "s|@MAINTAINER@|$maintainer|" packaging/control.in > "$stage/DEBIAN/control"
install -m 0644 packaging/conffiles "$stage/DEBIAN/conffiles"
for script in preinst postinst prerm postrm; do
    install -m 0755 "packaging/$script" "$stage/DEBIAN/$script"
done
# md5sums of everything but the conffiles (dpkg tracks those itself), as dh_md5sums does.
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort \
    | grep -vxF -f <(sed 's|^/||' DEBIAN/conffiles) | xargs md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums"

# Reproducible timestamps: everything dated from the last commit.
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH=$epoch
find "$stage" -exec touch -h -d "@$epoch" {} +

mkdir -p build
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >&2
deb_sbom deb breeze-agent "$out" "$shlibs"
echo "deb: $out ($(du -h "$out" | cut -f1), installed $installed_size KiB)" >&2
echo "deb: Depends: $(dpkg-deb -f "$out" Depends)" >&2
echo "$out"
