# SPDX-License-Identifier: MIT
# serve.sh: run `ccautoscale serve` in a shell test and call it as a node
# would (after tap.sh and ccsim.sh; $CCAS is the program, the configuration
# is $CCAUTOSCALE_CONFIG).  The nodes' addresses are loopback aliases
# (ccsim --ip-base 127.0.0.10): a request "from" a node binds its address.
#
#   serve_start [OPTIONS...]         # start it on 127.0.0.1:0; exports SERVE_URL, SERVE_PID
#   serve_stop                       # SIGTERM; it must exit 0 within 120 s (valgrind writes its report)
#   serve_ask FROM QUERY [CURL...]   # GET /autostop?QUERY from address FROM (- for
#                                    # 127.0.0.1): prints the status, the body goes to answer.json
#   serve_get PATH [CURL...]         # GET PATH from 127.0.0.1: the same
#   node_field NAME FIELD            # a field of node NAME's record in ccsim (PrivateIp, InstanceId, NodeId)
#   terminated                       # the names ccsim was asked to terminate, one a line

SERVE_SCHEME=http

serve_start () {
    local portfile=$TEST_TMP/serve.port i=0
    rm -f "$portfile"
    "$CCAS" serve --listen 127.0.0.1:0 --port-file "$portfile" "$@" >>"$TEST_TMP/serve.out" 2>&1 &
    SERVE_PID=$!
    test_at_exit "kill_pid $SERVE_PID"
    while [ ! -s "$portfile" ]; do
        if ! kill -0 "$SERVE_PID" 2>/dev/null || [ $i -ge 600 ]; then
            echo "ccautoscale serve did not start:" >&2
            cat "$TEST_TMP/serve.out" >&2
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
    case " $* " in *" --cert "*) SERVE_SCHEME=https ;; *) SERVE_SCHEME=http ;; esac
    SERVE_URL=$SERVE_SCHEME://127.0.0.1:$(cat "$portfile")
    export SERVE_URL SERVE_PID
}

serve_stop () {
    local i=0 rc=0
    kill -TERM "$SERVE_PID" 2>/dev/null || { echo "serve was not running" >&2; return 1; }
    while kill -0 "$SERVE_PID" 2>/dev/null && [ $i -lt 1200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    wait "$SERVE_PID" || rc=$?
    test_equal "$rc" 0 "serve's exit status after SIGTERM"
}

serve_ask () {
    local from=$1 query=$2
    shift 2
    if [ "$from" = - ]; then
        curl -sS -o answer.json -w '%{http_code}' "$@" "$SERVE_URL/autostop?$query"
    else
        curl -sS -o answer.json -w '%{http_code}' --interface "$from" "$@" "$SERVE_URL/autostop?$query"
    fi
}

serve_get () {
    local path=$1
    shift
    curl -sS -o answer.json -w '%{http_code}' "$@" "$SERVE_URL$path"
}

node_field () {
    ccsim_get /ccsim/state | jq -r --arg n "$1" --arg f "$2" '.nodes[] | select(.Name == $n) | .[$f]'
}

terminated () {
    ccsim_acted terminate
}
