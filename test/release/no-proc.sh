#!/usr/bin/env bash
# The release binary in a tree without /proc (a chroot, as image builders and maintainer-script
# runners use): it must still see its own command line (Sources/CProcess) and never turn a
# command it cannot read into the daemon. The tree holds the binary, the libraries ldd names and
# one config file with its zone; nothing else (no /proc, no /etc/breeze-agent).
# With a sysroot (`make test-arm64`: the arm64 binary, run by qemu-user through binfmt inside
# the tree), the libraries are the binary's NEEDED entries, followed, found in the sysroot.
set -uo pipefail
bin=${1:?usage: no-proc.sh path/to/breeze-agent [sysroot]}
sysroot=${2:-}
root=$(mktemp -d /tmp/breeze-noproc.XXXXXX)
trap 'rm -rf "$root"' EXIT
passed=0 failed=0

check() { # name, expected, actual
    if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "ok: $1"
    else failed=$((failed + 1)); echo "FAIL: $1: expected [$2], got [$3]"; fi
}
contains() { # name, expected substring, haystack
    if grep -qF -- "$2" <<<"$3"; then passed=$((passed + 1)); echo "ok: $1"
    else failed=$((failed + 1)); echo "FAIL: $1: expected to find [$2] in [$3]"; fi
}

cp "$bin" "$root/breeze-agent"
if [ -z "$sysroot" ]; then
    libs=$(ldd "$bin" | grep -o '/[^ ]*')
else
    # The loader (PT_INTERP), then each NEEDED name looked up in the sysroot's library
    # folders, until no new one comes.
    interp=$(readelf -l "$bin" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
    libs=$interp todo=$bin seen=" "
    while [ -n "$todo" ]; do
        next=
        for file in $todo; do
            for name in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
                case $seen in *" $name "*) continue ;; esac
                seen="$seen$name "
                found=
                for dir in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib /usr/lib; do
                    if [ -e "$sysroot$dir/$name" ]; then found=$dir/$name; break; fi
                done
                [ -n "$found" ] || { echo "no-proc: $name not in $sysroot" >&2; exit 1; }
                libs="$libs $found" next="$next $sysroot$found"
            done
        done
        todo=$next
    done
fi
for lib in $libs; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "${sysroot}$lib" "$root$lib"
done
# The one zone the config names (a location's zone is read when the config is loaded).
mkdir -p "$root/usr/share/zoneinfo"
cp -L /usr/share/zoneinfo/UTC "$root/usr/share/zoneinfo/UTC"
cat >"$root/c.yaml" <<YAML
mqtt: {host: broker.invalid}
locations:
  - {id: here, latitude: 10, longitude: 10, timezone: UTC}
YAML
[ ! -e "$root/proc" ] || { echo "no-proc: $root/proc exists" >&2; exit 1; }

in_tree() { # args… → stdout in $out, stderr in $err, exit code in $code
    local runner=(chroot "$root")
    [ "$(id -u)" = 0 ] || runner=(unshare --map-root-user chroot "$root")
    # A daemon that starts by mistake must not hang the test.
    timeout 20 "${runner[@]}" /breeze-agent "$@" >"$root.out" 2>"$root.err"
    code=$?
    out=$(cat "$root.out") err=$(cat "$root.err")
    rm -f "$root.out" "$root.err"
}

in_tree --version
check "--version exits 0" 0 "$code"
contains "--version prints the version" "breeze-agent $(cat "$(dirname "$0")/../../VERSION")" "$out"

in_tree check-config --config /x
check "check-config of a missing file is a configuration error" 78 "$code"
contains "the error names the file asked for" "/x" "$err"
if grep -qF /etc/breeze-agent/config.yaml <<<"$err"; then
    failed=$((failed + 1)); echo "FAIL: check-config --config /x read the default config: $err"
else passed=$((passed + 1)); echo "ok: the default config is not read"; fi

in_tree check-config --config /c.yaml
check "check-config of a good config exits 0" 0 "$code"
contains "the effective config names the broker" "broker.invalid" "$out"

in_tree no-such-command
check "an unknown command is a usage error" 64 "$code"

echo "no-proc: $passed passed, $failed failed"
[ "$failed" = 0 ]
