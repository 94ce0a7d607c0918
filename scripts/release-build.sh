# Sourced: the one release build of this machine's architecture that every stage reuses — the
# README's `make run`/`make binary` (Makefile RELEASE_FLAGS, the same words), scripts/test.sh's
# calendar cases, test-ha, the packages (scripts/deb-common.sh), the images and test-arm64's
# amd64 side. One set of flags means one build per run: another flag set would relink (or
# rebuild) the products in the same .build folder, and a stage that used it would test a binary
# other than the one that ships.
#   static Swift runtime (the binary runs without the toolchain), warnings as errors, and full
#   RELRO (-z now: lintian's hardening-no-bindnow);
#   the same bytes from any clone (docs/releasing.md, "Reproducible builds"): the clone's path is
#   written as /src in the debug info of Swift and C objects (-file-prefix-map, -ffile-prefix-map;
#   the arm64 chroot builds at /src already); no DWARF skeleton units pointing at the build's clang
#   module cache (-no-clang-module-breadcrumbs: their names hash the module maps' paths and their
#   ids the .pcm files, which record file times; only a debugger on the build machine reads
#   them); and no per-object hash of the LLVM module in .swift_modhash
#   (-disable-incremental-llvm-codegen: the module's identifier is the object's absolute output
#   path, which no prefix map reaches; the hash only lets a rebuild skip LLVM); and the
#   compiler without address-space randomisation (fixed_layout below).
release_flags=(-c release --static-swift-stdlib -Xswiftc -warnings-as-errors -Xlinker -z -Xlinker now
    -Xswiftc -file-prefix-map -Xswiftc "$(pwd -P)=/src" -Xcc "-ffile-prefix-map=$(pwd -P)=/src"
    -Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs
    -Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen)

# release_build [swift build args…]: builds (a no-op when nothing changed) and prints the folder
# the binaries are in; the build's own output goes to stderr. A failed build fails the call:
# callers run it in a command substitution, where `set -e` does not reach, and a package of the
# previous binary went out when it printed the folder anyway.
# The compiler runs without address-space randomisation: a few of its passes order work by
# pointer values, and with ASLR one function of BreezeConfig (EffectiveConfig.swift) came out in
# one of two instruction orders from build to build in the same folder (2 of 5 rebuilds); with
# `setarch -R` 10 of 10 rebuilds in two clones gave the same object. Where the personality
# cannot be set (a container whose seccomp profile refuses it), the build runs as it is and
# says so: it works, it is only not guaranteed to be reproducible.
# The compiler's own Swift code (its optimizer passes) hashes with a fixed seed, not one per
# process: the arm64 cross compiler (Swift 6.2.3) still gave one BreezeConfig function in two
# instruction orders with setarch -R alone.
export SWIFT_DETERMINISTIC_HASHING=1
fixed_layout=(setarch "$(uname -m)" -R)
if ! "${fixed_layout[@]}" true 2>/dev/null; then
    echo "release-build: setarch -R is refused here; building with address-space randomisation (not reproducible)" >&2
    fixed_layout=()
fi

release_build() {
    "${fixed_layout[@]}" swift build "${release_flags[@]}" "$@" >&2 || return
    swift build "${release_flags[@]}" --show-bin-path
}
