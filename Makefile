# breeze-agent — the two commands a newcomer needs are `make run` and `make test` (README.md).
SWIFT ?= swift
# The same words as scripts/release-build.sh: every stage and `make run` use one release build.
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -warnings-as-errors -Xlinker -z -Xlinker now \
	-Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=/src -Xcc -ffile-prefix-map=$(CURDIR)=/src \
	-Xswiftc -Xfrontend -Xswiftc -no-clang-module-breadcrumbs \
	-Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen
CONFIG ?= config/local.yaml

.PHONY: run test build binary deps clean deb deb-render test-deb test-ha test-addon-config fuzz sanitize soak bench test-brokers screenshots \
	arm64-toolchain test-arm64 image image-full test-image addon-image test-addon-image release release-preflight verify-release pages-branch pages-push release-repro publish test-release test-docs apt-resign lint-workflows test-addon-private security-check

deps:
	scripts/deps.sh

build: deps
	$(SWIFT) build -Xswiftc -warnings-as-errors

# The release binary only (static Swift runtime); `make release` is the whole release below.
binary: deps
	$(SWIFT) build $(RELEASE_FLAGS)

run: binary
	scripts/run.sh $(CONFIG) $(ARGS)

test:
	scripts/test.sh

# Broker tests beyond mosquitto: a private RabbitMQ node (installed if missing), docs/brokers.md.
test-brokers:
	scripts/test-brokers.sh

clean:
	rm -rf .build

# The README's screenshots of the status page: the browser test's --demo run, kept in docs/images.
screenshots:
	scripts/deps.sh chromium
	BREEZE_SCREENSHOT_DIR=$(CURDIR)/docs/images $(SWIFT) test --filter 'StatusPageBrowserTests/demoPage'

# ARCH=arm64 cross-builds for the Raspberry Pi (Swift 6.2.3 from Debian sid in a cached chroot,
# scripts/arm64-toolchain.sh); the default is this machine's architecture.
ARCH ?=

deb:
	ARCH=$(ARCH) scripts/deb.sh

# The image helper as its own package (docs/images.md); breeze-agent Recommends it.
deb-render:
	ARCH=$(ARCH) scripts/deb-render.sh

# The package checks on this machine (lintian, install, the unit, upgrade, purge). The installs in
# the Debian 12 and 13 trees of both architectures go through the signed apt repository in
# `make test-release`.
test-deb:
	scripts/test-deb.sh

# A release (SPEC §18, docs/releasing.md): build/release/<version>/ — the .debs, the images and
# their amd64+arm64 indexes, the signed apt repository, SBOMs, SHA256SUMS(.asc), release notes.
# Needs BREEZE_RELEASE_KEY; refuses a tree with changes or a version that differs anywhere, a
# RELEASE_TAG that is not v<VERSION>, and a key that cannot sign without a passphrase — all before
# it builds. Stopping make stops it (a parent-death signal).
release:
	setpriv --pdeathsig TERM scripts/release.sh

# Every refusal of `make release` that needs no build, and nothing else: RELEASE_TAG (when given)
# is v<VERSION>, the tree is committed and says VERSION everywhere, BREEZE_RELEASE_KEY is set,
# imports and signs without a passphrase (the release workflow's first step). RELEASE_TAG reaches
# the script through the environment (make exports a variable given on its command line).
release-preflight:
	setpriv --pdeathsig TERM scripts/release.sh --preflight

# The checks of a release folder before it is published (scripts/verify-release.sh): complete and
# signed, then published to local stand-ins and installed, pulled and run from there as users
# do. RELEASE_DIR defaults to build/release/<VERSION>. Needs no key.
RELEASE_DIR ?= build/release/$(shell tr -d '[:space:]' <VERSION)
verify-release:
	scripts/verify-release.sh "$(RELEASE_DIR)"

# GitHub Pages' branch gh-pages, made in the git repository PAGES_GIT (a URL or folder) when it
# has none: an orphan commit with .nojekyll (scripts/pages.sh).
pages-branch:
	scripts/pages.sh branch "$(PAGES_GIT)"

# The site folder SITE (a clone of gh-pages that `make publish` wrote into) committed and pushed
# to its origin's gh-pages (scripts/pages.sh).
pages-push:
	scripts/pages.sh push "$(SITE)"

# The apt repository's signatures renewed in place (Valid-Until 30 days on), with the release key
# handled as make release does: APT_DIR=<the site's apt/ folder> (.github/workflows/apt-resign.yml).
apt-resign:
	setpriv --pdeathsig TERM scripts/release.sh --resign $(APT_DIR)

# Two releases of one commit, in two clones at two times, compared byte for byte (diffoscope).
release-repro:
	scripts/release-repro.sh

# The images to $(REGISTRY) (default ghcr.io/breeze-agent), the apt repository and the release
# files to $(PUBLISH_TARGET) (a folder or an rsync destination).
publish:
	scripts/publish.sh

# The release workflow rehearsed on the loopback, its targets in its order with a throw-away key:
# release-preflight, pages-branch, release, verify-release (pulls, installs, an upgrade,
# refusals), publish and pages-push to local stand-ins, apt-resign.
test-release:
	scripts/test-release.sh

# The install, upgrade and removal recipes of docs/installing.md and the add-on's DOCS.md, run as
# written (scripts/test-docs.sh) against a release: they are make verify-release's install steps,
# which need a release, so this is the rehearsal.
test-docs:
	scripts/test-release.sh

# The arm64 cross toolchain, set up once into /var/cache/breeze-agent-ci/arm64 (root).
arm64-toolchain:
	scripts/arm64-toolchain.sh

# The end-to-end suites and the release calendar against the arm64 release binary under qemu.
test-arm64:
	scripts/test-arm64.sh

# build/breeze-agent_<version>_<arch>.oci.tar, no registry involved (docs/installing.md).
image:
	ARCH=$(ARCH) scripts/image.sh

# build/breeze-agent-full_<version>_<arch>.oci.tar (localhost/breeze-agent:<version>-full-<arch>):
# the image above plus the render helper, its library closure and its fonts (SPEC §19); the
# add-on's base.
image-full:
	ARCH=$(ARCH) BREEZE_IMAGE_FULL=1 scripts/image.sh

# Both images run under podman against a loopback broker; sizes against the 80 MB goal.
test-image:
	scripts/test-image.sh

# build/breeze-agent-addon_<version>_<arch>.oci.tar: the -full image above with the Home Assistant
# add-on's Dockerfile applied (entrypoint `breeze-agent addon`, root, io.hass labels).
addon-image:
	ARCH=$(ARCH) scripts/addon-image.sh

# Both add-on images under podman against a stand-in Supervisor, APIs and a login-only broker,
# with `images:` drawn by the helper inside and read back from the broker.
test-addon-image:
	scripts/test-addon-image.sh

# Conformance against a real Home Assistant (docs/home-assistant.md); first run builds a cache.
test-ha:
	scripts/test-ha.sh

# The Home Assistant add-on's files (ha-addon/) against the Supervisor's rules (docs/home-assistant.md).
test-addon-config:
	scripts/test-addon-config.sh

# Whether Debian has newer versions of what a release was made from (its SBOMs against bookworm,
# -updates and -security): the signal to cut it again. RELEASE=<folder> (default this version's).
security-check:
	scripts/security-check.sh $(RELEASE)

# The add-on's start with the agent in a folder only root may enter, the breeze-agent user present
# (scripts/test-addon-private.sh; after make test and make test-deb).
test-addon-private:
	scripts/test-addon-private.sh

# zizmor's audit of .github/workflows (scripts/workflow-lint.sh): no finding, or one ignored on
# its line with the reason.
lint-workflows:
	scripts/workflow-lint.sh

fuzz:
	fuzz/run.sh

sanitize:
	scripts/sanitize.sh

soak:
	scripts/soak.sh

bench:
	scripts/bench.sh

# The add-on's icon.png and logo.png, drawn by the render helper (scripts/addon-art.sh).
.PHONY: addon-art
addon-art:
	scripts/addon-art.sh
