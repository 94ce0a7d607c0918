# Sourced by scripts/test.sh, sanitize.sh and soak.sh: starts a private mosquitto on a free
# loopback port from test/mosquitto/test.conf, exports BREEZE_TEST_MQTT_PORT for the tests,
# and stops it (and removes its folder) when the calling script exits. A caller that sets an
# EXIT trap of its own after this calls stop_test_broker from it.
#   start_test_broker NAME    (NAME labels the temp folder and the log line)
start_test_broker() {
    local name=$1
    BREEZE_TEST_MQTT_PORT=$(scripts/free-port.sh)
    export BREEZE_TEST_MQTT_PORT
    test_broker_dir=$(mktemp -d "/tmp/breeze-$name.XXXXXX")
    sed "s/@PORT@/$BREEZE_TEST_MQTT_PORT/" test/mosquitto/test.conf > "$test_broker_dir/mosquitto.conf"
    mosquitto -c "$test_broker_dir/mosquitto.conf" >"$test_broker_dir/mosquitto.log" 2>&1 &
    test_broker_pid=$!
    trap stop_test_broker EXIT
    for _ in $(seq 1 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$BREEZE_TEST_MQTT_PORT") 2>/dev/null && break
        sleep 0.1
    done
    echo "$name: mosquitto on 127.0.0.1:$BREEZE_TEST_MQTT_PORT" >&2
}

stop_test_broker() {
    if [ -n "${test_broker_pid:-}" ]; then
        kill "$test_broker_pid" 2>/dev/null || true
        wait "$test_broker_pid" 2>/dev/null || true
        test_broker_pid=
    fi
    if [ -n "${test_broker_dir:-}" ]; then rm -rf "$test_broker_dir"; fi
}
