# Sourced by scripts/deb.sh and scripts/deb-render.sh: what both binary packages of the one
# source share — the version and maintainer checks, the release flags, the changelog, and the
# Depends computed by dpkg-shlibdeps. Each function names its caller's tag in its errors.

# Sets `version` and `maintainer` from BREEZE_VERSION / BREEZE_MAINTAINER (or the VERSION file
# and the placeholder maintainer), or exits naming what is wrong.
deb_identity() {
    local tag=$1
    version=${BREEZE_VERSION:-$(tr -d '[:space:]' < VERSION)}
    if ! [[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
        echo "$tag: '$version' is not a Debian native version (digits first; letters, digits, . + ~)" >&2
        exit 1
    fi
    maintainer=${BREEZE_MAINTAINER:-breeze-agent maintainers <maintainers@breeze-agent.invalid>}
    # One name and one address (Debian policy 5.6.2); `|` and `&` would break the seds of the callers.
    if ! [[ $maintainer =~ ^[^\<\>,\|\&@]+\ \<[^\<\>\ \|\&@]+@[A-Za-z0-9.-]+\.[A-Za-z0-9-]+\>$ ]]; then
        echo "$tag: BREEZE_MAINTAINER '$maintainer' is not 'Name <user@host.domain>'" >&2
        exit 1
    fi
}

# The release flags every stage shares (scripts/release-build.sh): the package carries the binary
# the tests ran.
. scripts/release-build.sh
deb_flags=("${release_flags[@]}")

# Sets `arch` (ARCH, default this machine's), builds the release for it and sets `bin` to
# <product>'s binary, `strip_tool` to a strip that knows the target, and for a foreign arch
# `sysroot` to the target's libraries (dpkg-shlibdeps reads their packages' symbols there).
# arm64 is cross-compiled by Swift 6.2.3 in the cached chroot of scripts/arm64-toolchain.sh.
deb_build() {
    local tag=$1 product=$2
    arch=${ARCH:-$(dpkg --print-architecture)}
    sysroot=""
    case "$arch" in
    "$(dpkg --print-architecture)")
        echo "$tag: release build ($arch, $(swift --version 2>&1 | head -1))" >&2
        bin=$(release_build --product "$product")/$product
        strip_tool=strip
        swift_version=$(swift --version 2>&1 | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)
        ;;
    arm64)
        scripts/deps.sh binutils-aarch64-linux-gnu >&2
        echo "$tag: release build (arm64, cross, Swift 6.2.3 in the toolchain chroot)" >&2
        "${fixed_layout[@]}" scripts/arm64-toolchain.sh build "${deb_flags[@]}" --scratch-path /src/.build/arm64 --product "$product" >&2
        bin=.build/arm64/aarch64-unknown-linux-gnu/release/$product
        strip_tool=aarch64-linux-gnu-strip
        sysroot=$(scripts/arm64-toolchain.sh sysroot)
        swift_version=$(scripts/arm64-toolchain.sh swift-version)
        ;;
    *)
        echo "$tag: ARCH=$arch is not supported (this machine's $(dpkg --print-architecture), or arm64)" >&2
        exit 1
        ;;
    esac
    [ -x "$bin" ] || { echo "$tag: the build left no $bin" >&2; exit 1; }
}

# Fails unless <binary> is an ELF executable for the Debian architecture <arch>: a package must
# never carry a binary for another machine (an amd64 build inside the arm64 .deb).
deb_check_machine() {
    local tag=$1 binary=$2 arch=$3 want got
    case "$arch" in
    amd64) want="x86-64" ;;
    arm64) want="ARM aarch64" ;;
    *) echo "$tag: no ELF machine known for $arch" >&2; exit 1 ;;
    esac
    got=$(file -b "$binary")
    case "$got" in
    "ELF 64-bit LSB"*", $want,"*) ;;
    *) echo "$tag: $binary is not an $arch ($want) executable: $got" >&2; exit 1 ;;
    esac
}

# Writes <doc>/changelog.gz: the source's changelog, whose top entry must name the version being
# built; a version given through BREEZE_VERSION (test builds) gets a generated entry on top.
deb_changelog() {
    local doc=$1 top
    top=$(sed -n '1s/^breeze-agent (\([^)]*\)).*/\1/p' packaging/changelog)
    {
        if [ "$top" != "$version" ]; then
            printf 'breeze-agent (%s) stable; urgency=medium\n\n  * Test build of %s.\n\n' "$version" "$version"
            printf ' -- %s  %s\n\n' "$maintainer" "$(date -R)"
        fi
        cat packaging/changelog
    } | gzip -9n > "$doc/changelog.gz"
    chmod 0644 "$doc/changelog.gz"
}

# Prints the Depends of <binary> in package <package>: the shared libraries it really links,
# from their packages' shlibs/symbols files. dpkg-shlibdeps wants a debian/control to read, so
# it runs in a scratch directory with a minimal one.
# With `sysroot` set (a foreign arch) the libraries, their packages and symbols files come from
# the sysroot's dpkg database, for DEB_HOST_ARCH=$arch.
deb_shlibs() {
    local tag=$1 package=$2 binary=$3 scratch shlibs lib
    local -a cross=()
    if [ -n "${sysroot:-}" ]; then
        cross=("--admindir=$sysroot/var/lib/dpkg")
        for lib in "$sysroot"/lib/aarch64-linux-gnu "$sysroot"/usr/lib/aarch64-linux-gnu; do cross+=("-l$lib"); done
    fi
    scratch=$(mktemp -d)
    mkdir "$scratch/debian"
    printf 'Source: breeze-agent\n\nPackage: %s\nArchitecture: any\n' "$package" > "$scratch/debian/control"
    shlibs=$(cd "$scratch" && DEB_HOST_ARCH=$arch dpkg-shlibdeps "${cross[@]}" -O -e "$binary" 2>"$scratch/err" \
        | sed -n 's/^shlibs:Depends=//p') || true
    [ -n "$shlibs" ] || { echo "$tag: dpkg-shlibdeps found no dependencies: $(tr '\n' ' ' < "$scratch/err")" >&2; rm -rf "$scratch"; exit 1; }
    rm -rf "$scratch"
    [ -n "$shlibs" ] || { echo "$tag: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
    # Packed relative relocations (lld -z pack-relative-relocs, Package.swift) need glibc 2.36:
    # the loader checks the GLIBC_ABI_DT_RELR version node, which dpkg-shlibdeps (symbols only)
    # does not see.
    # The whole listing is read first: `readelf | grep -q` under pipefail failed whenever grep
    # quit at the match before readelf had written the rest (SIGPIPE), and the package then
    # said libc6 (>= 2.35) — in one of every two builds (make release-repro).
    local versions
    versions=$(readelf -V "$binary")
    if [[ $versions == *GLIBC_ABI_DT_RELR* ]]; then
        shlibs=$(echo "$shlibs" | sed -E 's/libc6 \(>= 2\.([0-9]|[12][0-9]|3[0-5])(\.[0-9]+)?\)/libc6 (>= 2.36)/')
        case "$shlibs" in *"libc6 ("*) ;; *) shlibs="libc6 (>= 2.36), $shlibs" ;; esac
    fi
    # Debian 13 renamed libraries whose ABI changed with 64-bit time_t on 32-bit machines
    # (libcurl4 -> libcurl4t64, …); one package installs on Debian 12 and 13 with both names.
    local renamed
    for renamed in $deb_t64_renamed; do
        shlibs=$(echo "$shlibs" | sed -E "s/(^|, )$renamed( \(([^)]*)\))?(,|\$)/\1$renamed\2 | ${renamed}t64\2\4/")
    done
    echo "$shlibs"
}
# The libraries the packages depend on that Debian 13 (trixie) knows only under a t64 name.
deb_t64_renamed="libcurl4 libmicrohttpd12"

# Writes <deb>'s SPDX 2.3 SBOM next to it (<deb>.spdx.json, scripts/sbom.py): the
# package, the Swift runtime linked into it, and the Debian packages of the shared libraries it
# needs (the first alternative of each Depends entry <shlibs> names, at the version installed
# where it was linked: this machine, or the arm64 sysroot).
deb_sbom() {
    local tag=$1 package=$2 deb=$3 shlibs=$4 name
    local -a names=()
    for name in $(echo "$shlibs" | tr ',' '\n' | sed -E 's/^ *//; s/[ (|].*//'); do names+=(--package "$name"); done
    python3 scripts/sbom.py --name "$package" --version "$version" --arch "$arch" --kind deb --file "$deb" \
        --root "${sysroot:-/}" "${names[@]}" --relation DEPENDS_ON --swift-version "$swift_version" \
        --distro debian-12 --epoch "$SOURCE_DATE_EPOCH" --out "$deb.spdx.json" \
        || { echo "$tag: the SBOM of $deb could not be written" >&2; exit 1; }
}
