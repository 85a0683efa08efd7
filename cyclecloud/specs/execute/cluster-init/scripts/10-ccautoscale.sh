#!/bin/bash
# SPDX-License-Identifier: MIT
# The execute spec: nothing to do.  The stock cyclecloud/slurm:execute or
# cyclecloud/pbspro:execute spec sets this node up, and ccautoscale, on the
# scheduler, works with what it does (the drop-in contract): this spec exists
# so that a cluster may list the ccautoscale project on every node, and it
# changes nothing here.
echo "ccautoscale: nothing to do on execute nodes (ccautoscale runs on the scheduler)"
