# SPDX-License-Identifier: MIT
# ccautoscale_hook.py: the PBS periodic hook.  It only runs
# `ccautoscale pbs autoscale` with a time limit below the hook's alarm and
# reports through pbs.logmsg (PBS's server log); everything else is in the C
# program, which also writes its own log.
# Its config (imported with `ccautoscale pbs install-hook`) is JSON:
#   {"program": "/usr/sbin/ccautoscale", "config": "/etc/ccautoscale/autoscale.json", "timeout": 100,
#    "pbs_conf_file": "/etc/pbs.conf"}
# pbs_conf_file (optional) is handed to the pass as PBS_CONF_FILE, which
# pbs_server does not give its hooks: PBS's commands read it to find the server.
# It runs inside pbs_server's own Python: 3 for OpenPBS 20 and later, 2.7 for
# PBS Professional 18 and earlier, so it uses what both have (no f-strings,
# no subprocess.run, no time.monotonic; the program's output goes to
# temporary files, not pipes, so that waiting with a time limit needs no
# thread).
import json
import os
import subprocess
import tempfile
import time

import pbs

# at most this many lines of a failed pass's messages go to the server log
MAX_LINES = 50


class ConfigError(Exception):
    pass


def load_config():
    path = getattr(pbs, "hook_config_filename", None)
    if not path:
        raise ConfigError("the hook has no config file: run 'ccautoscale pbs install-hook' again")
    try:
        with open(path) as f:
            cfg = json.load(f)
    except (IOError, OSError, ValueError) as e:  # Python 2: open() raises IOError
        raise ConfigError("cannot read the hook config %s: %s; run 'ccautoscale pbs install-hook' again"
                          % (path, e))
    if not isinstance(cfg, dict):
        raise ConfigError("the hook config %s is not a JSON object; run 'ccautoscale pbs install-hook' again"
                          % path)
    return cfg


def argv_for(cfg):
    argv = [cfg.get("program", "/usr/sbin/ccautoscale")]
    if cfg.get("config"):
        argv += ["--config", cfg["config"]]
    return argv + ["pbs", "autoscale", "--quiet"]


def text(data):
    """What a program printed (bytes) as the str of this Python."""
    if isinstance(data, str):
        return data  # Python 2: bytes are str
    return data.decode("utf-8", "replace")


def wait(proc, timeout):
    """The exit status, or None when `timeout` seconds passed (it is then killed)."""
    deadline = time.time() + timeout
    while proc.poll() is None:
        if time.time() >= deadline:
            proc.kill()
            proc.wait()
            return None
        time.sleep(0.05)
    return proc.returncode


def run(cfg):
    """None when the pass went well, else the lines to log as errors."""
    argv = argv_for(cfg)
    timeout = float(cfg.get("timeout", 100))
    env = dict(os.environ)
    if cfg.get("pbs_conf_file"):
        env["PBS_CONF_FILE"] = cfg["pbs_conf_file"]
    devnull = open(os.devnull, "rb")
    out = tempfile.TemporaryFile()
    err_file = tempfile.TemporaryFile()
    try:
        try:
            proc = subprocess.Popen(argv, stdin=devnull, stdout=out, stderr=err_file, env=env, close_fds=True)
        except OSError as e:
            return ["ccautoscale: cannot run %s: %s" % (argv[0], e)]
        status = wait(proc, timeout)
        if status is None:
            return ["ccautoscale: pbs autoscale did not finish within %g s (killed)" % timeout]
        if status in (0, 4):
            return None
        err_file.seek(0)
        err = [line for line in text(err_file.read()).splitlines() if line.strip()]
    finally:
        devnull.close()
        out.close()
        err_file.close()
    head = "ccautoscale: pbs autoscale exited %d" % status
    if not err:
        return [head + ": no message"]
    if len(err) == 1:
        return [head + ": " + err[0]]
    lines = [head + " (%d lines follow)" % len(err)] + ["ccautoscale:   " + line for line in err[:MAX_LINES]]
    if len(err) > MAX_LINES:
        lines.append("ccautoscale:   ... and %d more lines" % (len(err) - MAX_LINES))
    return lines


def main():
    event = pbs.event()
    start = time.time()
    try:
        problem = run(load_config())
    except ConfigError as e:
        problem = ["ccautoscale: %s" % e]
    except Exception as e:  # a hook must never take the server's periodic event down with it
        problem = ["ccautoscale: hook error: %s" % e]
    if problem:
        for line in problem:
            pbs.logmsg(pbs.LOG_ERROR, line)
    else:
        pbs.logmsg(pbs.LOG_DEBUG, "ccautoscale: pass done in %.2f s" % (time.time() - start))
    event.accept()


if __name__ != "__test__":
    main()
