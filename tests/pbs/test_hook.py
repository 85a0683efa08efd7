# SPDX-License-Identifier: MIT
# test_hook.py: the periodic hook shim (pbs_hook/ccautoscale_hook.py) with a
# stand-in `pbs` module.  `python3 test_hook.py CASE` runs one case and exits
# non-zero if it fails; so does `python2.7 test_hook.py CASE` (PBS
# Professional's hooks run under Python 2.7), this file being both's too:
#   ok        the pass exits 0: the event is accepted, nothing logged as an error
#   partial   exit 4 (some nodes could not be had) is not an error either
#   failure   exit 5: accepted, and the program's one stderr line logged as an error
#   lines     exit 5 with several lines on stderr: every line is logged, in order
#   badconfig a config that is not JSON, or none: accepted, and the log says which file and what to do
#   timeout   a pass longer than the hook's timeout is killed and said so
#   missing   a program that does not exist is reported, the event still accepted
#   argv      the program gets --config FILE pbs autoscale --quiet, and no shell
#   conf      pbs_conf_file in the config reaches the program as PBS_CONF_FILE
import json
import os
import shutil
import sys
import tempfile
import types

sys.dont_write_bytecode = True  # never a __pycache__ in the source tree (read-only under distcheck)

HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pbs_hook", "ccautoscale_hook.py")


class Event:
    def __init__(self):
        self.accepted = False
        self.rejected = None

    def accept(self):
        self.accepted = True

    def reject(self, msg=""):
        self.rejected = msg


def stand_in_pbs(config_path):
    pbs = types.ModuleType("pbs")
    pbs.LOG_DEBUG, pbs.LOG_ERROR = 4, 1
    pbs.hook_config_filename = config_path
    pbs.logged = []
    pbs.logmsg = lambda level, msg: pbs.logged.append((level, msg))
    pbs.the_event = Event()
    pbs.event = lambda: pbs.the_event
    return pbs


def program(tmp, body):
    path = os.path.join(tmp, "ccautoscale")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def run_hook(cfg, text=None):
    tmp = cfg.pop("_tmp")
    path = os.path.join(tmp, "hook.json")
    with open(path, "w") as f:
        f.write(text if text is not None else json.dumps(cfg))
    pbs = stand_in_pbs(path if text != "" else None)
    sys.modules["pbs"] = pbs
    load(HOOK).main()
    return pbs


def load(path):
    """The hook as a module named __test__ (so it does not run main itself)."""
    if sys.version_info[0] < 3:
        import imp
        return imp.load_source("__test__", path)
    import importlib.util
    spec = importlib.util.spec_from_file_location("__test__", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def errors(pbs):
    return [m for level, m in pbs.logged if level == pbs.LOG_ERROR]


def case(name, tmp):
    if name in ("ok", "partial"):
        pbs = run_hook({"_tmp": tmp, "program": program(tmp, "exit %d" % (0 if name == "ok" else 4))})
        assert pbs.the_event.accepted and not errors(pbs), pbs.logged
    elif name == "failure":
        prog = program(tmp, "echo 'ccautoscale: qstat: exit 1: cannot connect' >&2; exit 5")
        pbs = run_hook({"_tmp": tmp, "program": prog})
        assert pbs.the_event.accepted
        assert errors(pbs) == ["ccautoscale: pbs autoscale exited 5: ccautoscale: qstat: exit 1: cannot connect"], pbs.logged
    elif name == "lines":
        prog = program(tmp, "printf 'ccautoscale: pbs: n1: joined failed: qmgr: Unknown node\\n"
                            "ccautoscale: pbs: n2: joined failed: qmgr: Unknown node\\n' >&2; exit 5")
        pbs = run_hook({"_tmp": tmp, "program": prog})
        assert pbs.the_event.accepted
        assert errors(pbs) == ["ccautoscale: pbs autoscale exited 5 (2 lines follow)",
                               "ccautoscale:   ccautoscale: pbs: n1: joined failed: qmgr: Unknown node",
                               "ccautoscale:   ccautoscale: pbs: n2: joined failed: qmgr: Unknown node"], pbs.logged
    elif name == "badconfig":
        pbs = run_hook({"_tmp": tmp}, text="{not json")
        assert pbs.the_event.accepted
        e = errors(pbs)
        assert len(e) == 1 and e[0].startswith("ccautoscale: cannot read the hook config " + tmp), pbs.logged
        assert "install-hook" in e[0], pbs.logged
        pbs = run_hook({"_tmp": tmp}, text="")
        assert pbs.the_event.accepted
        assert errors(pbs) == ["ccautoscale: the hook has no config file: run 'ccautoscale pbs install-hook' "
                               "again"], pbs.logged
    elif name == "timeout":
        pbs = run_hook({"_tmp": tmp, "program": program(tmp, "exec sleep 30"), "timeout": 1})
        assert pbs.the_event.accepted
        assert errors(pbs) == ["ccautoscale: pbs autoscale did not finish within 1 s (killed)"], pbs.logged
    elif name == "missing":
        pbs = run_hook({"_tmp": tmp, "program": os.path.join(tmp, "nothing-here")})
        assert pbs.the_event.accepted
        assert errors(pbs) and errors(pbs)[0].startswith("ccautoscale: cannot run "), pbs.logged
    elif name == "argv":
        out = os.path.join(tmp, "argv")
        prog = program(tmp, 'for a in "$@"; do echo "$a"; done >%s' % out)
        pbs = run_hook({"_tmp": tmp, "program": prog, "config": "/etc/x y.json"})
        with open(out) as f:
            got = f.read().splitlines()
        assert got == ["--config", "/etc/x y.json", "pbs", "autoscale", "--quiet"], got
        assert pbs.the_event.accepted and not errors(pbs)
    elif name == "conf":
        out = os.path.join(tmp, "env")
        prog = program(tmp, 'echo "$PBS_CONF_FILE" >%s' % out)
        pbs = run_hook({"_tmp": tmp, "program": prog, "pbs_conf_file": "/srv/pbs/pbs.conf"})
        with open(out) as f:
            assert f.read().strip() == "/srv/pbs/pbs.conf"
        assert pbs.the_event.accepted and not errors(pbs)
    else:
        raise SystemExit("unknown case %s" % name)


if __name__ == "__main__":
    tmp = tempfile.mkdtemp()
    try:
        case(sys.argv[1], tmp)
    finally:
        shutil.rmtree(tmp)
