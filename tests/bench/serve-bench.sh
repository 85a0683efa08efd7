# SPDX-License-Identifier: MIT
# serve-bench.sh: `ccautoscale serve` answering autostops (sourced by
# bench.sh, whose target, figure and requests it uses).  The cluster is
# ccsim's, 1,000 Ready nodes at loopback aliases from 127.0.1.1; the callers
# are tests/cli/serveload, one connection per request from its node's own
# address, 100 at once, 1,000 requests a round (BENCH_RUNS rounds, the best
# median kept, as bench.sh keeps the best wall time):
#   - refused: the target holds every node (what a cluster sees while nodes
#     ask and demand stays) — the issue's target, a median under 50 ms;
#   - the same over HTTPS, with an ECDSA and with an RSA certificate made
#     here (the handshake is most of the service's CPU then; the 100 clients'
#     own handshakes share the machine's cores with it);
#   - a burst of stops: the target 100 below the nodes, so 100 are granted
#     and terminated while 900 are refused.
# Counted and judged in every run: each request answered, exactly the
# stops the target allows made (ccsim's request log), status reads per
# autostop.  The median's 50 ms is a target_time: it gates with
# BENCH_STRICT=1 (`./run-tests --suite bench`, or `make -C tests/bench
# bench-serve BENCH_STRICT=1`); in the full run it is a figure, since that
# run shares the machine with the steps beside it.
# Writes serve.rows (a table for the page) when it ran.

serve_bench () {
    local load=$top_builddir/tests/cli/serveload saved=${CCAUTOSCALE_CONFIG:-} i kind
    local cpu0 cpu_http cpu_tls
    if ! "$CCAS" serve --help >/dev/null 2>&1; then
        echo "# skipped the serve benchmark: this build has no 'ccautoscale serve'"
        return 0
    fi
    [ -x "$load" ] || make -s -C "$top_builddir/tests/cli" serveload >/dev/null || return 1
    . "$top_srcdir/tests/lib/serve.sh"
    [ -z "${CCSIM_PID:-}" ] || ccsim_stop
    "$GEN/gen-cluster" servebench 1 1 1000 >servecluster.json
    CCSIM_CLUSTER_FILE=servecluster.json ccsim_start servecluster.json --boot-delay 0 --ip-base 127.0.1.1 >/dev/null || return 1
    export CCAUTOSCALE_CONFIG=$TEST_TMP/serve.json
    CCSIM_CLUSTER_FILE=servecluster.json ccsim_write_config "$CCAUTOSCALE_CONFIG" \
        ".state_dir = \"$TEST_TMP/serve-state\" | .logging.level = \"warning\""
    wait_for 30 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 1000"
    serve_want () {
        echo "[{\"Name\": \"htc\", \"TargetCount\": $1}]" >servereq.json &&
            "$CCAS" autoscale update --expiration 3600 servereq.json >/dev/null
    }
    serve_requests () {
        ccsim_get /ccsim/state |
            jq -r --arg u "$SERVE_URL/autostop" '.nodes[] | select(.TargetState == "Started") | "\($u)?instance=\(.InstanceId | @uri) \(.PrivateIp) -"'
    }
    # serve_round NAME [serveload options]: one round of every running node asking
    serve_round () {
        local name=$1
        shift
        serve_requests >"$name.req"
        "$load" -c 100 -t 300 "$@" "$name.req" >"$name.json" || { cat "$name.json"; return 1; }
    }
    # serve_best NAME: the round of NAME.1 ... NAME.RUNS with the lowest median, as NAME.json
    serve_best () {
        local f best=""
        for f in "$1".[0-9]*.json; do
            if [ -z "$best" ] || [ "$(jq -n "$(jq .latency_ms.median "$f") < $(jq .latency_ms.median "$best")")" = true ]; then
                best=$f
            fi
        done
        cp "$best" "$1.json"
    }
    serve_cpu () { # the service's CPU time so far, in ms
        awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' "/proc/$SERVE_PID/stat"
    }
    serve_row () { # NAME WHAT: a row of the page's table
        jq -r --arg what "$2" '"| \($what) | \(.requests) | \(.concurrency) | \(.answered) | \(.latency_ms.median) | \(.latency_ms.p90) | \(.latency_ms.p99) | \(.wall_ms) |"' \
            "$1.json" >>serve.rows
    }
    : >serve.rows
    serve_want 1000 && serve_start || return 1

    # refused: every node asks, the target holds them all
    ccsim_delete /ccsim/requests >/dev/null
    cpu0=$(serve_cpu)
    for i in $(seq "$RUNS"); do
        serve_round "refused.$i" || return 1
    done
    cpu_http=$(jq -n "($(serve_cpu) - $cpu0) / (1000 * $RUNS) * 1000 | round / 1000")
    serve_best refused
    target "serve: autostops answered (1,000 nodes, 100 at once, $RUNS rounds)" \
        "$(jq -s 'map(.answered) | add' refused.[0-9]*.json)" -eq "$((1000 * RUNS))" req
    target "serve: nodes stopped while the target needs them all" "$(requests "POST .*/nodes/terminate")" -eq 0 nodes
    target "serve: status reads per 1,000 autostops (one kept serve.status_max_age)" \
        "$(jq -n "$(requests "GET .*/status") / $RUNS | . * 10 | round / 10")" -le 50 reads
    curl -s "$SERVE_URL/metrics" | sed -n 's/^ccautoscale_serve_connections_peak //p' >peak.txt
    target_time "serve: autostop median, 1,000 nodes, 100 at once (refused)" "$(jq .latency_ms.median refused.json)" -le 50 ms
    figure "serve: autostop p90 (refused)" "$(jq .latency_ms.p90 refused.json)" ms
    figure "serve: the service's CPU per autostop (refused, HTTP)" "$cpu_http" ms
    figure "serve: connections open at once at the service, at most" "$(cat peak.txt)" conn
    serve_row refused "refused (the target holds every node), HTTP; $cpu_http ms of the service's CPU each"

    # the same over HTTPS, with an ECDSA P-256 certificate and with an RSA 2048 one
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1" -keyout serve-ec.key -out serve-ec.pem 2>/dev/null &&
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
            -addext "subjectAltName=IP:127.0.0.1" -keyout serve-rsa.key -out serve-rsa.pem 2>/dev/null &&
        chmod 600 serve-ec.key serve-rsa.key || return 1
    for kind in ec rsa; do
        serve_stop && serve_start --cert "serve-$kind.pem" --key "serve-$kind.key" || return 1
        cpu0=$(serve_cpu)
        for i in $(seq "$RUNS"); do
            serve_round "tls-$kind.$i" -a "serve-$kind.pem" || return 1
        done
        cpu_tls=$(jq -n "($(serve_cpu) - $cpu0) / (1000 * $RUNS) * 1000 | round / 1000")
        serve_best "tls-$kind"
        target "serve: autostops answered over HTTPS, $kind certificate ($RUNS rounds)" \
            "$(jq -s 'map(.answered) | add' "tls-$kind".[0-9]*.json)" -eq "$((1000 * RUNS))" req
        figure "serve: autostop median over HTTPS, $kind certificate (refused)" "$(jq .latency_ms.median "tls-$kind.json")" ms
        figure "serve: the service's CPU per autostop over HTTPS, $kind" "$cpu_tls" ms
        serve_row "tls-$kind" "refused, HTTPS ($([ $kind = ec ] && echo "ECDSA P-256" || echo "RSA 2048") certificate; $cpu_tls ms of the service's CPU each)"
    done
    serve_stop && serve_start || return 1

    # a burst of stops: 100 granted, 900 refused, in one round
    serve_want 900
    ccsim_delete /ccsim/requests >/dev/null
    serve_round burst || return 1
    target "serve: burst of 1,000 autostops: answered" "$(jq .answered burst.json)" -eq 1000 req
    target "serve: burst: nodes stopped, the target 100 below the nodes" "$(requests "POST .*/nodes/terminate")" -eq 100 nodes
    target "serve: burst: nodes left running" \
        "$(ccsim_get /ccsim/state | jq '[.nodes[] | select(.TargetState == "Started")] | length')" -eq 900 nodes
    figure "serve: burst: autostop median (100 granted, 900 refused)" "$(jq .latency_ms.median burst.json)" ms
    figure "serve: burst: whole burst" "$(jq .wall_ms burst.json)" ms
    serve_row burst "a burst: 100 granted and terminated, 900 refused"
    serve_stop
    ccsim_stop
    CCSIM_PID=
    export CCAUTOSCALE_CONFIG=$saved
}
