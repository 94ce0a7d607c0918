#!/usr/bin/env bash
# `make test-brokers`: the broker tests that need more than mosquitto. Installs rabbitmq-server
# if missing, starts a private node (scripts/rabbitmq-broker.sh) and runs the RabbitMQ suite
# against it; the node is stopped whatever happens. The mosquitto and bridge tests run in
# `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh rabbitmq-server
. scripts/rabbitmq-broker.sh
start_rabbitmq
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build --filter RabbitMQTests
