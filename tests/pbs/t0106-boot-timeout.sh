#!/bin/bash
# SPDX-License-Identifier: MIT
# t0106-boot-timeout.sh: a VM that never boots is terminated once it has been
# booting longer than boot_timeout, and the job that asked for it gets
# another.  Against ccsim (a boot_failure fault in hang mode: the VM stays
# Acquiring) and the fake PBS; the hung VM never reached PBS.  boot_timeout
# counts from the first pass that sees the VM (the pass after its create);
# passes run until one terminates it, however long the machine takes.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

terminates () {
    ccsim_requests "POST .*/nodes/terminate" | wc -l
}

terminated () {  # a pass, which terminated a VM
    pbs_pass && test "$(terminates)" -ge 1
}

test_expect_success 'start: boot_timeout 3 s; the next two VMs never boot' '
    pbs_start "" ".boot_timeout = 3" &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"hang\", \"count\": 2}"
'

test_expect_success 'a VM no job waits for any more is terminated once booting longer than boot_timeout' '
    id=$(fakepbs qsub -l select=1:ncpus=2) && pbs_pass &&
    test_equal "$(ccsim_node_count Acquiring)" 1 "VMs acquiring" &&
    fakepbs finish "$id" && pbs_pass && wait_for 60 terminated &&
    test_equal "$(terminates)" 1 "terminate requests" &&
    grep "terminate: boot timeout: Acquiring for [0-9]* s (boot_timeout 3 s)" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(jq ".pbs | [.[][]] | length" pass.out)" 0 "PBS actions (it never reached PBS)" &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0"
'

# the node is marked before matching, so the job is given a replacement in the
# same pass that terminates the hung VM
test_expect_success 'a VM that never boots is terminated after boot_timeout while its job waits, and the job gets another at once' '
    ccsim_delete /ccsim/requests >/dev/null &&
    fakepbs qsub -l select=1:ncpus=2 >/dev/null && pbs_pass &&
    test_equal "$(ccsim_node_count Acquiring)" 1 "VMs acquiring" &&
    pbs_pass && wait_for 60 terminated &&
    test_equal "$(terminates)" 1 "terminate requests" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 2 "create requests (the hung VM, its replacement)" &&
    pbs_pass &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 2 "create requests a pass later"
'

test_done
