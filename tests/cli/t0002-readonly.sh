#!/bin/sh
# SPDX-License-Identifier: MIT
# status, buckets, nodes and config check against ccsim: tables, JSON, filters, request counts.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

test_expect_success 'start ccsim with the small cluster and two nodes' '
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.2 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" &&
    ccsim_post /clusters/test/nodes/create "{\"sets\": [{\"nodearray\": \"htc\", \"count\": 2}]}" >/dev/null &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Ready\\\")] | length\") = 2"
'

test_expect_success 'buckets prints one row per bucket' '
    "$CCAS" buckets >out &&
    test $(grep -c "^htc \|^hpc \|^gpu " out) = 4 &&
    test_grep "Standard_HB120rs_v3" out
'

test_expect_success 'buckets --json makes exactly one status request and no other' '
    ccsim_delete /ccsim/requests >/dev/null &&
    "$CCAS" buckets --json >out.json &&
    jq -e "length == 4" out.json &&
    jq -e ".[] | select(.machine_type == \"Standard_F2s_v2\") | .active_count == 2" out.json &&
    jq -e ".[] | select(.machine_type == \"Standard_HB120rs_v3\") | .max_placement_group_size == 4" out.json &&
    test "$(ccsim_requests)" = "GET /clusters/test/status 200"
'

test_expect_success 'buckets filters by nodearray and machine type (wildcards)' '
    "$CCAS" buckets --nodearray htc --json | jq -e "length == 2" &&
    "$CCAS" buckets --machine-type "Standard_NC*" --json | jq -e "length == 1 and .[0].nodearray == \"gpu\""
'

test_expect_success 'nodes lists nodes, filters by status and nodearray, --json keeps whole records' '
    "$CCAS" nodes >out &&
    test_grep "^htc-1 " out &&
    "$CCAS" nodes --status ready --json | jq -e "length == 2 and .[0].Status == \"Ready\" and .[0].PrivateIp != null" &&
    "$CCAS" nodes --nodearray hpc --json | jq -e "length == 0" &&
    "$CCAS" nodes --name "htc-*" --json | jq -e "length == 2"
'

test_expect_success 'status shows limits and nodes by state' '
    "$CCAS" status >out &&
    test_grep "^cluster test: Started" out &&
    "$CCAS" status --json | jq -e ".nodearrays[] | select(.name == \"htc\") | .nodes.ready == 2 and .max_count == 20"
'

test_expect_success 'slurm conf on one machine (node_port_base) gives every node its own slurmd port' '
    ccsim_write_config one-machine.json ".slurm.node_port_base = 30000" &&
    "$CCAS" -c one-machine.json slurm conf >conf.out &&
    sed -n "s/.*Port=\\([0-9\\[-]*\\).*/\\1/p" conf.out | tr -d "[" |
        awk -F- "{ last = \$2 == \"\" ? \$1 : \$2; for (p = \$1; p <= last; p++) print p }" >ports &&
    test "$(wc -l <ports)" -gt 8 &&
    test -z "$(sort ports | uniq -d)" &&
    test "$(sort -n ports | head -1)" = 30001
'

test_expect_success 'config check prints the effective config, password masked' '
    "$CCAS" config check >out 2>err &&
    jq -e ".password == \"****\" and .idle_timeout == 300 and .verify_certificates == true" out &&
    test_grep "configuration is valid" err &&
    test_no_grep "s3cret-pw" out
'

test_expect_success 'config check warns of idle_timeout and boot_timeout on a Slurm-only site' '
    test_no_grep "warning" err &&
    jq ".slurm = {} | .idle_timeout = 600 | .nodearrays = {hpc: {boot_timeout: 900}}" "$CCAUTOSCALE_CONFIG" >slurm.json &&
    chmod 600 slurm.json &&
    "$CCAS" -c slurm.json config check >out 2>err &&
    test_grep "slurm.json: warning: idle_timeout: set on a Slurm-only site .* Slurm.s SuspendTime decides" err &&
    test_grep "warning: nodearrays.hpc.boot_timeout: set on a Slurm-only site .* Slurm.s ResumeTimeout decides" err &&
    test_grep "configuration is valid" err &&
    jq ".pbs = {}" slurm.json >both.json && chmod 600 both.json &&
    "$CCAS" -c both.json config check >out 2>err &&
    test_no_grep "warning" err
'

test_expect_success 'config keys lists every key, also as JSON' '
    "$CCAS" config keys >out &&
    test_grep "^idle_timeout " out &&
    "$CCAS" config keys --json | jq -e "map(.key) | index(\"slurm.node_prefix\") != null"
'

# every key of the table, named as a reader writes it (nodearrays.NAME.x),
# has its row in the Markdown reference and its entry in the man page
every_key_documented () {
    jq -r '.[].key | gsub("[*]"; "NAME")' keys.json >names &&
    test -s names &&
    while read -r key; do
        grep -qF "| \`$key\` |" ref.md || { echo "$key: not in --markdown"; return 1; }
        grep -qxF "\\fB$key\\fR" ref.5 || { echo "$key: not in --roff"; return 1; }
    done <names
}

test_expect_success 'config keys --markdown and --roff document every key; --json has their facts' '
    "$CCAS" config keys --json >keys.json &&
    jq -e "[.[] | select(.required) | .key] == [\"url\", \"username\", \"cluster_name\"]" keys.json &&
    jq -e "[.[] | select(.secret) | .key] == [\"password\"]" keys.json &&
    jq -e ".[] | select(.key == \"slurm.suspend_action\") | .values == [\"shutdown\", \"terminate\", \"deallocate\"]" keys.json &&
    jq -e ".[] | select(.key == \"retries\") | .min == 0 and .max == 20" keys.json &&
    "$CCAS" config keys --markdown >ref.md &&
    "$CCAS" config keys --roff >ref.5 &&
    test_grep "^## Slurm$" ref.md &&
    test_grep "^.TH ccautoscale.json 5" ref.5 &&
    every_key_documented
'

test_expect_success 'config keys takes one output format' '
    rc=0; "$CCAS" config keys --json --markdown 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "exclude each other" err
'

test_expect_success '-c names the configuration; a missing one exits 2 naming it' '
    rc=0; "$CCAS" -c "$TEST_TMP/nope.json" buckets 2>err || rc=$? ;
    test "$rc" = 2 && test_grep "nope.json: No such file or directory" err &&
    "$CCAS" buckets -c "$CCAUTOSCALE_CONFIG" --json | jq -e "length == 4"
'

test_expect_success 'a server that is not there exits 3 with a clear message' '
    ccsim_write_config "$TEST_TMP/dead.json" ".url = \"http://127.0.0.1:1\" | .retries = 0" &&
    rc=0; "$CCAS" -c "$TEST_TMP/dead.json" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_grep "GET /clusters/test/status: cannot connect to http://127.0.0.1:1" err
'

test_done
