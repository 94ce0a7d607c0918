# breeze-agent — the two commands a newcomer needs are `make run` and `make test` (README.md).
SWIFT ?= swift
# The same words as scripts/release-build.sh: every stage and `make run` use one release build.
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -warnings-as-errors -Xlinker -z -Xlinker now
CONFIG ?= config/local.yaml

.PHONY: run test build release deps clean deb deb-render test-deb test-ha test-addon-config fuzz sanitize soak bench test-brokers screenshots \
	arm64-toolchain test-arm64 image test-image addon-image test-addon-image

deps:
	scripts/deps.sh

build: deps
	$(SWIFT) build -Xswiftc -warnings-as-errors

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

run: release
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

# The package checks on this machine, then install/run/upgrade/purge of the amd64 and arm64
# packages in Debian 12 and 13 rootfs trees (arm64 under qemu; docs/installing.md).
test-deb:
	scripts/test-deb.sh
	scripts/test-deb-rootfs.sh

# The arm64 cross toolchain, set up once into /var/cache/breeze-agent-ci/arm64 (root).
arm64-toolchain:
	scripts/arm64-toolchain.sh

# The end-to-end suites and the release calendar against the arm64 release binary under qemu.
test-arm64:
	scripts/test-arm64.sh

# build/breeze-agent_<version>_<arch>.oci.tar, no registry involved (docs/installing.md).
image:
	ARCH=$(ARCH) scripts/image.sh

# Both images run under podman against a loopback broker; sizes against the 80 MB goal.
test-image:
	scripts/test-image.sh

# build/breeze-agent-addon_<version>_<arch>.oci.tar: the image above with the Home Assistant
# add-on's Dockerfile applied (entrypoint `breeze-agent addon`, root, io.hass labels).
addon-image:
	ARCH=$(ARCH) scripts/addon-image.sh

# Both add-on images under podman against a stand-in Supervisor, APIs and a login-only broker.
test-addon-image:
	scripts/test-addon-image.sh

# Conformance against a real Home Assistant (docs/home-assistant.md); first run builds a cache.
test-ha:
	scripts/test-ha.sh

# The Home Assistant add-on's files (ha-addon/) against the Supervisor's rules (docs/home-assistant.md).
test-addon-config:
	scripts/test-addon-config.sh

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
