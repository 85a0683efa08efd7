# SPDX-License-Identifier: MIT
# ccautoscale_hook.py: the PBS periodic hook.  It only runs
# `ccautoscale pbs autoscale` with a time limit below the hook's alarm and
# reports through pbs.logmsg; everything else is in the C program.
# Its config (imported with `ccautoscale pbs install-hook`) is JSON:
#   {"program": "/usr/sbin/ccautoscale", "config": "/etc/ccautoscale/autoscale.json", "timeout": 100}
import json
import subprocess

import pbs


def load_config():
    path = getattr(pbs, "hook_config_filename", None)
    if not path:
        return {}
    with open(path) as f:
        return json.load(f)


def argv_for(cfg):
    argv = [cfg.get("program", "/usr/sbin/ccautoscale")]
    if cfg.get("config"):
        argv += ["--config", cfg["config"]]
    return argv + ["pbs", "autoscale", "--quiet"]


def run(cfg):
    argv = argv_for(cfg)
    timeout = float(cfg.get("timeout", 100))
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "ccautoscale: pbs autoscale did not finish within %g s (killed)" % timeout
    except OSError as e:
        return "ccautoscale: cannot run %s: %s" % (argv[0], e)
    if done.returncode not in (0, 4):
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "ccautoscale: pbs autoscale exited %d: %s" % (done.returncode, err[-1] if err else "no message")
    return None


def main():
    event = pbs.event()
    try:
        problem = run(load_config())
    except Exception as e:  # a hook must never take the server's periodic event down with it
        problem = "ccautoscale: hook error: %s" % e
    if problem:
        pbs.logmsg(pbs.LOG_ERROR, problem)
    else:
        pbs.logmsg(pbs.LOG_DEBUG, "ccautoscale: pass done")
    event.accept()


if __name__ != "__test__":
    main()
