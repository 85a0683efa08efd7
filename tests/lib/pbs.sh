# SPDX-License-Identifier: MIT
# pbs.sh: a fake PBS server (tests/pbs/fakepbs) beside ccsim, for the PBS suites (after tap.sh and ccsim.sh).
#
#   pbs_start [CLUSTER_FILE] [jq expression for the config]
#       starts ccsim, puts qstat, pbsnodes, qmgr and qalter in $TEST_TMP/pbsbin, writes
#       $CCAS_CONF with pbs.bin_dir pointing there (idle_timeout an hour: an idle node
#       stays until a test shortens it); exports FAKEPBS_STATE
#   fakepbs ARGS...            the test's hand on the fake server (qsub, sched, finish, fail, state)
#   pbs_reset                  start again from nothing (same cluster and config)
#   pbs_pass                   one `ccautoscale pbs autoscale` (output in pass.out, exit status kept)
#   pbs_node_state NAME        the node's PBS state ("" when PBS has no such node)
#   ccsim_wait_ready           wait until every VM ccsim has is Ready

FAKEPBS_BIN=$top_srcdir/tests/pbs/fakepbs
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")

PBS_CLUSTER=$top_srcdir/tests/ccsim/clusters/pbs.json
PBS_EXTRA=.

pbs_start () {
    local cluster=${1:-$PBS_CLUSTER} extra=${2:-$PBS_EXTRA}
    PBS_CLUSTER=$cluster PBS_EXTRA=$extra
    mkdir -p "$TEST_TMP/pbsbin" &&
    for c in qstat pbsnodes qmgr qalter; do ln -sf "$FAKEPBS_BIN" "$TEST_TMP/pbsbin/$c"; done &&
    FAKEPBS_STATE=$TEST_TMP/pbs.state.json && export FAKEPBS_STATE &&
    : >"$FAKEPBS_STATE" &&
    ccsim_start "$cluster" --boot-delay "${CCSIM_BOOT_DELAY:-1}" &&
    CCAS_CONF=$TEST_TMP/autoscale.json && export CCAS_CONF CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json &&
    CCSIM_CLUSTER_FILE=$cluster ccsim_write_config "$CCAS_CONF" \
        ".pbs = {bin_dir: \"$TEST_TMP/pbsbin\", command_timeout: 10} | .logging.level = \"debug\" | .idle_timeout = 3600 | $extra" &&
    fakepbs_site_resources
}

# a fresh ccsim, fake PBS and state directory, with the same cluster and config
pbs_reset () {
    ccsim_stop && rm -rf "$TEST_TMP/state" && pbs_start
}

fakepbs () {
    "$FAKEPBS_BIN" "$@"
}

# what `pbs install-hook` sets up — its resources with their types, and the
# server's and scheduler's placement sets — so that the suites that do not
# install it join nodes and run jobs as on a site that did (t0103 checks that
# install-hook does the same); one fakepbs process, not eleven
fakepbs_site_resources () {
    local r args=()
    for r in slot_type group_id ungrouped vm_size nodearray ccnodeid instance_id; do
        args+=("create resource $r type=string, flag=h")
    done
    fakepbs qmgr "${args[@]}" "create resource ngpus type=long, flag=nh" "create resource disk type=size, flag=nh" \
        "set server node_group_enable = True" "set server node_group_key = group_id" \
        "set sched only_explicit_psets = False" "set sched do_not_span_psets = True"
}

# a failing pass says why in the test's log (its exit status is kept for test_expect_code)
pbs_pass () {
    local rc=0
    "$CCAS" pbs autoscale --json >pass.out 2>pass.err || rc=$?
    if [ "$rc" != 0 ]; then
        echo "pbs autoscale exited $rc:" >&2
        tail -n 5 pass.err | sed 's/^/  pass.err| /' >&2
    fi
    return $rc
}

pbs_node_state () {
    fakepbs state | jq -r --arg n "$1" '.nodes[$n].state // ""'
}

# wait until every VM ccsim has is Ready (booted)
ccsim_wait_ready () {
    wait_for 120 ccsim_all_ready
}

ccsim_all_ready () {
    test "$(ccsim_get /ccsim/state | jq '[.nodes[] | select(.Status != "Ready")] | length')" = 0
}
