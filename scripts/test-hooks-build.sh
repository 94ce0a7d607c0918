# Sourced: the release build with the test hooks compiled in (`-DBREEZE_TEST_HOOKS`: the
# BREEZE_TEST_* variables of docs/operations.md "Test-only settings", and the test accessors),
# in a folder of its own. The stages that drive a release binary faster than real time — the
# bench (refresh cooldown, a loopback HTTPS API), the Home Assistant tests (timeouts) — run
# this variant; the binary that ships (scripts/release-build.sh, the packages) has no hooks and
# reads none of those variables. Same flags otherwise, so the same code.
#   test_hooks_build [swift build args…]: builds and prints the folder the binaries are in.
. scripts/release-build.sh
test_hooks_flags=("${release_flags[@]}" -Xswiftc -DBREEZE_TEST_HOOKS --scratch-path .build/test-hooks)

test_hooks_build() {
    swift build "${test_hooks_flags[@]}" "$@" >&2 || return
    swift build "${test_hooks_flags[@]}" --show-bin-path
}
