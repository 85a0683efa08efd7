# SPDX-License-Identifier: MIT
# ccsim.sh: start and drive the CycleCloud simulator from a shell test (after tap.sh).
#
#   ccsim_start CLUSTER_FILE [ccsim options...]   # exports CCSIM_URL, CCSIM_PID
#   ccsim_get PATH; ccsim_post PATH [JSON]; ccsim_delete PATH
#   ccsim_fault '{"kind": "http", "status": 503, "count": 1}'
#   ccsim_node_count [STATUS]                      # nodes (in that status)
#   ccsim_requests [FILTER]                        # the request log, as "METHOD PATH STATUS" lines
#   ccsim_made; ccsim_acted [ACTION]               # names the log's creates made / actions were carried out on
#   ccsim_made_once "NAME..."                      # the log's creates made exactly these, each once
#   ccsim_acted_once ACTION "NAME..."              # the log's ACTIONs (""; any) were carried out on exactly these, each once
#   ccsim_hold_answer PATH COMMAND [ARGS...]       # start COMMAND; return once ccsim holds back its answer on PATH ($held_pid)
#   ccsim_release                                  # let every held answer go (and clear every fault)
#   ccsim_kill_in_flight PATH COMMAND [ARGS...]     # SIGKILL COMMAND while ccsim holds back its answer on PATH
#   ccsim_state_whole                              # every state file of ccsim_write_config's state_dir parses
#   ccsim_holds_end                                # every capacity window in that state_dir ends now
#   ccsim_write_config FILE [jq expression]        # a ccautoscale config for this ccsim (mode 0600)
#   ccsim_config_update FILE JQ                    # change that config in place, atomically

CCSIM_BIN=${CCSIM:-$top_builddir/tests/ccsim/ccsim}
CCSIM_CLUSTERS=${CCSIM_CLUSTERS:-$top_srcdir/tests/ccsim/clusters}

ccsim_start () {
    local cluster=$1
    shift
    local portfile=$TEST_TMP/ccsim.port.$$
    rm -f "$portfile"
    "$CCSIM_BIN" --cluster "$cluster" --port-file "$portfile" "$@" >"$TEST_TMP/ccsim.out" 2>&1 &
    CCSIM_PID=$!
    test_at_exit "kill_pid $CCSIM_PID"
    WAIT_FOR_INTERVAL=0.1 wait_for 60 ccsim_started_ "$portfile"
    if [ ! -s "$portfile" ]; then
        echo "ccsim did not start:" >&2
        cat "$TEST_TMP/ccsim.out" >&2
        return 1
    fi
    local scheme=http
    case " $* " in *" --tls-cert "*) scheme=https ;; esac
    CCSIM_PORT=$(cat "$portfile")
    CCSIM_URL=$scheme://127.0.0.1:$CCSIM_PORT
    export CCSIM_URL CCSIM_PID CCSIM_PORT
}

# ccsim wrote its port, or died trying
ccsim_started_ () {
    [ -s "$1" ] || ! kill -0 "$CCSIM_PID" 2>/dev/null
}

ccsim_stop () {
    kill_pid "$CCSIM_PID"
}

ccsim_get () {
    curl -sS -k "$CCSIM_URL$1"
}

ccsim_post () {
    curl -sS -k -X POST -H 'Content-Type: application/json' -d "${2:-{\}}" "$CCSIM_URL$1"
}

ccsim_delete () {
    curl -sS -k -X DELETE "$CCSIM_URL$1"
}

# a fault ccsim refuses (a key its kind does not read) fails the test, with ccsim's message
ccsim_fault () {
    curl -sS -k --fail-with-body -X POST -H 'Content-Type: application/json' -d "$1" "$CCSIM_URL/ccsim/faults" >"$TEST_TMP/fault.out" ||
        { cat "$TEST_TMP/fault.out" >&2; echo >&2; return 1; }
}

ccsim_node_count () {
    if [ -n "${1:-}" ]; then
        ccsim_get /ccsim/state | jq --arg s "$1" '[.nodes[] | select(.Status == $s)] | length'
    else
        ccsim_get /ccsim/state | jq '.nodes | length'
    fi
}

ccsim_requests () {
    ccsim_get /ccsim/requests | jq -r '.[] | "\(.method) \(.path) \(.status)"' | grep -E "${1:-.}" || true
}

# The names the server made, one a line in the order made, from the request
# log (since it was last cleared): a create whose answer was lost, or that a
# killed client never heard, is there too, and a name made twice is there twice.
ccsim_made () {
    ccsim_get /ccsim/requests |
        jq -r '.[] | select(.method == "POST" and (.path | test("/nodes/create|/scale/"))) | .nodes // [] | .[]'
}

# The names node actions were carried out on (ACTION: terminate, start, ...; default any)
ccsim_acted () {
    ccsim_get /ccsim/requests |
        jq -r --arg a "${1:-terminate|deallocate|shutdown|start|remove|restart|reimage}" '.[] | select(.method == "POST" and (.path | test("/nodes/(" + $a + ")$"))) | .nodes // [] | .[]'
}

# The names in $1 (one a line) are those in $2 (separated by spaces), in
# any order, each as often; $3 says what they are.
ccsim_same_names () {
    # shellcheck disable=SC2086 # the lists are split into names on purpose
    test_equal "$(printf '%s\n' $1 | sort | tr '\n' ' ')" "$(printf '%s\n' $2 | sort | tr '\n' ' ')" "$3"
}

# The creates in the log made exactly the names in $1 (any order), none twice:
# not one VM more than asked for, even for a moment.
ccsim_made_once () {
    ccsim_same_names "$(ccsim_made)" "$1" "names made (from ccsim's request log)"
}

# The log's actions ACTION ($1; "" for any) were carried out on exactly the
# names in $2, each once.
ccsim_acted_once () {
    ccsim_same_names "$(ccsim_acted "$1")" "$2" "names given ${1:-an action} (from ccsim's request log)"
}

# Start COMMAND in the background (its pid in $held_pid, its output in
# held.out) and return once ccsim has carried out its request to PATH and
# holds the answer back (a latency "after": the request log shows the
# request at once).  The answer is held until ccsim_release, so the test
# looks at the program waiting for as long as it needs (the client's
# request_timeout, 60 s from ccsim_write_config, is the limit).  The log must
# hold no earlier request to PATH.
ccsim_hold_answer () {
    local path=$1
    shift
    ccsim_fault "{\"kind\": \"latency\", \"ms\": 3600000, \"when\": \"after\", \"match\": \"$path\", \"count\": 1}" &&
    { "$@" >held.out 2>&1 & held_pid=$!; } &&
    wait_for 60 ccsim_logged_once "$path"
}

# Every answer ccsim holds back goes now; every fault is cleared with them.
ccsim_release () {
    ccsim_delete /ccsim/faults >/dev/null
}

# ccsim's request log holds exactly one request whose path matches PATH (a
# regular expression).  Through ccsim_get, so it reaches ccsim wherever curl
# does (openpbs.sh runs curl inside its namespace).
ccsim_logged_once () {
    ccsim_get /ccsim/requests | jq -e --arg p "$1" '[.[] | select(.path | test($p))] | length == 1'
}

# Run COMMAND and kill it with SIGKILL while ccsim holds back its answer on
# PATH: a client that never hears what the server did.
ccsim_kill_in_flight () {
    local path=$1
    shift
    ccsim_hold_answer "$path" "$@" &&
    kill -KILL "$held_pid" && { wait "$held_pid"; true; } &&
    ccsim_release
}

ccsim_state_whole () {
    local f
    for f in "$TEST_TMP"/state/*.json; do
        [ -e "$f" ] || continue
        jq -e . "$f" >/dev/null || { echo "$f is not whole" >&2; return 1; }
    done
}

# Capacity windows: a test holds a bucket back with a long
# capacity_failure_backoff for as long as it looks at it held, then ends the
# window here, as if its time had passed.  Under the lock, as a run takes it
# to change the file.
ccsim_holds_end () {
    flock "$TEST_TMP/lock" sh -c 'f=$1/state/holds.json; [ ! -e "$f" ] ||
        { jq --argjson now "$(date +%s)" "map_values(if type == \"object\" then .until = \$now else . end)" "$f" >"$f.tmp" && mv "$f.tmp" "$f"; }' sh "$TEST_TMP"
}

# The timeouts are generous (a busy machine is slow; a test of a timeout sets
# its own), so that a held answer is not mistaken for a lost one.
ccsim_write_config () {
    local file=$1 extra=${2:-.}
    local name
    name=$(jq -r '.clusterName // "test"' "${CCSIM_CLUSTER_FILE:-$CCSIM_CLUSTERS/small.json}")
    jq -n --arg url "$CCSIM_URL" --arg name "$name" --arg dir "$TEST_TMP" \
        '{url: $url, username: "admin", password: "s3cret-pw", cluster_name: $name,
          state_dir: ($dir + "/state"), lock_file: ($dir + "/lock"),
          logging: {syslog: false, file: ($dir + "/ccautoscale.log")},
          connect_timeout: 10, request_timeout: 60}' | jq "$extra" >"$file"
    chmod 600 "$file"
}

# Change a configuration ccsim_write_config wrote: the JQ expression applied
# to it, written beside it and renamed over it (a run reading it meanwhile
# sees the old file or the new one, never half), mode 0600 kept.
ccsim_config_update () {
    local file=$1
    jq "$2" "$file" >"$file.tmp" && chmod 600 "$file.tmp" && mv "$file.tmp" "$file"
}
