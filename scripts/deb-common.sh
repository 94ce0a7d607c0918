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

# `make release` plus full RELRO (-z now, lintian's hardening-no-bindnow): only the link step
# differs, so switching between the two relinks in a second instead of rebuilding.
deb_flags=(-c release --static-swift-stdlib -Xswiftc -warnings-as-errors -Xlinker -z -Xlinker now)

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
deb_shlibs() {
    local tag=$1 package=$2 binary=$3 scratch shlibs
    scratch=$(mktemp -d)
    mkdir "$scratch/debian"
    printf 'Source: breeze-agent\n\nPackage: %s\nArchitecture: any\n' "$package" > "$scratch/debian/control"
    shlibs=$(cd "$scratch" && dpkg-shlibdeps -O -e "$binary" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
    rm -rf "$scratch"
    [ -n "$shlibs" ] || { echo "$tag: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
    # Packed relative relocations (lld -z pack-relative-relocs, Package.swift) need glibc 2.36:
    # the loader checks the GLIBC_ABI_DT_RELR version node, which dpkg-shlibdeps (symbols only)
    # does not see.
    if readelf -V "$binary" | grep -q 'GLIBC_ABI_DT_RELR'; then
        shlibs=$(echo "$shlibs" | sed -E 's/libc6 \(>= 2\.([0-9]|[12][0-9]|3[0-5])(\.[0-9]+)?\)/libc6 (>= 2.36)/')
        case "$shlibs" in *"libc6 ("*) ;; *) shlibs="libc6 (>= 2.36), $shlibs" ;; esac
    fi
    echo "$shlibs"
}
