# Sourced by scripts/test-brokers.sh: starts a private RabbitMQ node (Debian's rabbitmq-server
# with the rabbitmq_mqtt plugin) with its own node name, ports (AMQP, MQTT, Erlang distribution,
# epmd) and directories under one temp folder, so it never touches a system RabbitMQ or epmd.
# Exports BREEZE_TEST_RABBITMQ_PORT (its MQTT port) and stops the node, its epmd and the folder
# when the calling script exits.
#   start_rabbitmq    (takes 8–15 s on the 2-core test machine)
start_rabbitmq() {
    local amqp mqtt dist epmd started
    amqp=$(scripts/free-port.sh); mqtt=$(scripts/free-port.sh); dist=$(scripts/free-port.sh); epmd=$(scripts/free-port.sh)
    rabbitmq_dir=$(mktemp -d /tmp/breeze-rabbitmq.XXXXXX)
    sed -e "s/@AMQP_PORT@/$amqp/" -e "s/@MQTT_PORT@/$mqtt/" test/rabbitmq/rabbitmq.conf > "$rabbitmq_dir/rabbitmq.conf"
    echo '[rabbitmq_mqtt].' > "$rabbitmq_dir/enabled_plugins"
    # Everything the node and rabbitmqctl read: HOME holds the Erlang cookie.
    rabbitmq_env=(
        HOME="$rabbitmq_dir" RABBITMQ_NODENAME="breeze-test-$$@localhost" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
        RABBITMQ_NODE_PORT="$amqp" RABBITMQ_DIST_PORT="$dist" ERL_EPMD_PORT="$epmd" ERL_EPMD_ADDRESS=127.0.0.1
        RABBITMQ_CONFIG_FILE="$rabbitmq_dir/rabbitmq" RABBITMQ_ENABLED_PLUGINS_FILE="$rabbitmq_dir/enabled_plugins"
        RABBITMQ_MNESIA_BASE="$rabbitmq_dir/mnesia" RABBITMQ_LOG_BASE="$rabbitmq_dir/log"
        RABBITMQ_PLUGINS_EXPAND_DIR="$rabbitmq_dir/plugins-expand" RABBITMQ_PID_FILE="$rabbitmq_dir/pid"
        RABBITMQ_ADVANCED_CONFIG_FILE="$rabbitmq_dir/advanced.config" RABBITMQ_CONF_ENV_FILE="$rabbitmq_dir/env.conf"
        RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" RABBITMQ_LOGS=-
    )
    started=$(date +%s)
    env "${rabbitmq_env[@]}" /usr/lib/rabbitmq/bin/rabbitmq-server >"$rabbitmq_dir/server.log" 2>&1 &
    rabbitmq_pid=$!
    trap stop_rabbitmq EXIT
    for _ in $(seq 1 240); do
        (exec 3<>"/dev/tcp/127.0.0.1/$mqtt") 2>/dev/null && break
        kill -0 "$rabbitmq_pid" 2>/dev/null || { cat "$rabbitmq_dir/server.log" >&2; echo "rabbitmq: the node exited" >&2; return 1; }
        sleep 0.25
    done
    (exec 3<>"/dev/tcp/127.0.0.1/$mqtt") 2>/dev/null || { tail -20 "$rabbitmq_dir/server.log" >&2; echo "rabbitmq: MQTT port $mqtt not open after 60 s" >&2; return 1; }
    BREEZE_TEST_RABBITMQ_PORT=$mqtt
    export BREEZE_TEST_RABBITMQ_PORT
    echo "rabbitmq: node breeze-test-$$@localhost, MQTT on 127.0.0.1:$mqtt, up in $(( $(date +%s) - started )) s" >&2
}

stop_rabbitmq() {
    [ -n "${rabbitmq_dir:-}" ] || return 0
    env "${rabbitmq_env[@]}" /usr/lib/rabbitmq/bin/rabbitmqctl stop >/dev/null 2>&1 || kill "$rabbitmq_pid" 2>/dev/null || true
    wait "$rabbitmq_pid" 2>/dev/null || true
    # The node started its own epmd on the private port: ask exactly that one to exit.
    env "${rabbitmq_env[@]}" epmd -kill >/dev/null 2>&1 || true
    rm -rf "$rabbitmq_dir"
    rabbitmq_dir=
}
