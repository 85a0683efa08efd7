# SPDX-License-Identifier: MIT
"""autoscale_json.py: write ccautoscale's autoscale.json from a CycleCloud node's settings.

    python3 autoscale_json.py --jetpack JETPACK --out FILE [--base FILE] [--set KEY=JSON]...

FILE is created with mode 0600 (it holds the password) and must not exist.  It gets:
  - the object in --base FILE (what `ccautoscale slurm import-azslurm` made of azslurm's
    autoscale.json, or `ccautoscale pbs import-azpbs` of azpbs's), under all that follows;
  - "password": read here from `jetpack config cyclecloud.config.password`, so that it
    is never on a command line or in an environment;
  - each --set KEY=JSON (KEY dotted: slurm.conf_dir), the values the spec decided;
  - the site's own settings from the node's Configuration `ccautoscale.autoscale`
    (`jetpack config --json ccautoscale.autoscale`, a nested object; values that are
    strings of numbers or booleans, as template Configuration gives them, become
    numbers and booleans), over the --set values, except the connection's.
Keys come out sorted, so that the same settings always make the same file.
"""
import json
import os
import subprocess
import sys

# what the site's settings may not replace: the connection comes from CycleCloud
PROTECTED = ("url", "username", "password", "password_file", "cluster_name")


def jetpack(exe, *args):
    """jetpack's answer, or None when it has none (an unset key)."""
    p = subprocess.run([exe, "config"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        return None
    return p.stdout


def typed(value):
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "false"):
            return low == "true"
        for conv in (int, float):
            try:
                return conv(value.strip())
            except ValueError:
                pass
    return value


def put(doc, dotted, value):
    keys = dotted.split(".")
    for k in keys[:-1]:
        doc = doc.setdefault(k, {})
        if not isinstance(doc, dict):
            raise SystemExit("ccautoscale: %s: '%s' is not an object" % (dotted, k))
    doc[keys[-1]] = value


def merge(into, over):
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            merge(into[k], v)
        else:
            into[k] = v


def main(argv):
    exe, out, base, sets = None, None, None, []
    args = iter(argv)
    for a in args:
        if a == "--jetpack":
            exe = next(args)
        elif a == "--out":
            out = next(args)
        elif a == "--base":
            base = next(args)
        elif a == "--set":
            sets.append(next(args))
        else:
            raise SystemExit("autoscale_json.py: unknown argument '%s'" % a)
    if not exe or not out:
        raise SystemExit(__doc__)
    doc = {}
    if base:
        with open(base, encoding="utf-8") as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                sys.stderr.write("ccautoscale: %s is not JSON: %s\n" % (base, e))
                return 1
        if not isinstance(doc, dict):
            sys.stderr.write("ccautoscale: %s must hold an object\n" % base)
            return 1
    for s in sets:
        key, _, value = s.partition("=")
        put(doc, key, json.loads(value))
    password = jetpack(exe, "cyclecloud.config.password", "")
    password = (password or "").rstrip("\n")
    if not password:
        sys.stderr.write("ccautoscale: no CycleCloud password: 'jetpack config cyclecloud.config.password' is empty\n")
        return 1
    doc["password"] = password
    extra = jetpack(exe, "--json", "ccautoscale.autoscale")
    if extra and extra.strip() not in ("", "null"):
        try:
            site = typed(json.loads(extra))
        except ValueError as e:
            sys.stderr.write("ccautoscale: the Configuration ccautoscale.autoscale is not JSON: %s\n" % e)
            return 1
        if not isinstance(site, dict):
            sys.stderr.write("ccautoscale: the Configuration ccautoscale.autoscale must be an object\n")
            return 1
        for k in PROTECTED:
            if k in site:
                sys.stderr.write("ccautoscale: warning: ccautoscale.autoscale.%s ignored: it comes from the "
                                 "node's CycleCloud settings\n" % k)
                del site[k]
        merge(doc, site)
    text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
