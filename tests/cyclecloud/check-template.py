#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-template.py: a structural check of CycleCloud cluster templates (a test tool).

    check-template.py TEMPLATE...            check each; exit 1 and name file:line for each problem
    check-template.py --names TEMPLATE       print what a site fills and what nodes read, one a line:
                                             "parameter NAME", "node NAME", "nodearray NAME",
                                             "config NODE KEY", "cluster-init NODE PROJECT:SPEC"
    --project-ini FILE   also check [[[cluster-init P:S:V]]] of that project: S is one of its
                         specs (a folder beside project.ini), V its version

What a template must be, as CycleCloud's template reference describes it:
  - sections nest by their bracket count: [cluster] and [parameters] at rank 1;
    [[node]] and [[nodearray]] in a [cluster]; [[parameters]] in a [parameters];
    [[[parameter]]] in a [[parameters]]; [[[configuration]]], [[[configuration NAME]]],
    [[[cluster-init SPEC]]], [[[volume]]], [[[network-interface]]] and [[[input-endpoint]]]
    in a node or nodearray;
  - every other line is blank, a comment, or "key = value" / "key := value" (a value
    may be a '''...''' block over several lines);
  - every parameter referenced ($Name, the names in ${...} expressions and in the
    Conditions.* expressions of parameters) is defined by a [[[parameter Name]]];
  - Extends names a node or nodearray of the template; no name is defined twice.
"""
import os
import re
import sys

SECTION = re.compile(r"^(\[+)\s*([^\[\]]*?)\s*(\]+)\s*$")
KEYVAL = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)\s*(:?=)\s*(.*)$")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"' + r"|'(?:[^'\\]|\\.)*'")

# (rank, kind) -> the kinds of the section it may sit in
PARENTS = {
    (1, "cluster"): None,
    (1, "parameters"): None,
    (1, "environment"): None,
    (1, "noderef"): None,
    (2, "node"): "cluster",
    (2, "nodearray"): "cluster",
    (2, "parameters"): "parameters",
    (3, "parameter"): "parameters",
    (3, "configuration"): ("node", "nodearray"),
    (3, "cluster-init"): ("node", "nodearray"),
    (3, "volume"): ("node", "nodearray"),
    (3, "network-interface"): ("node", "nodearray"),
    (3, "input-endpoint"): ("node", "nodearray"),
}
# names in ${...} that are not parameters: the template language's functions,
# constants and words, and the cluster's own attributes
NOT_PARAMETERS = {
    "undefined", "true", "false", "True", "False", "null", "is", "isnt", "and", "or", "not",
    "ClusterName", "ClusterId",
}


class Problem(Exception):
    pass


def parse(path):
    """The template's sections: dicts with rank, kind, name, line, keys [(key, op, value, line)]."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sections, problems, stack = [], [], []
    cur = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        lineno = i + 1
        i += 1
        if not line or line.startswith("#"):
            continue
        m = SECTION.match(line)
        if m:
            opening, body, closing = m.groups()
            rank = len(opening)
            if rank != len(closing):
                problems.append(f"{path}:{lineno}: unbalanced brackets in '{line}'")
                continue
            kind, _, name = body.partition(" ")
            kind, name = kind.strip(), name.strip()
            if (rank, kind) not in PARENTS:
                problems.append(f"{path}:{lineno}: '{line}': no section '{kind}' at rank {rank}")
                continue
            want = PARENTS[(rank, kind)]
            stack = stack[: rank - 1]
            if want is not None:
                parent = stack[-1] if len(stack) == rank - 1 and stack else None
                kinds = want if isinstance(want, tuple) else (want,)
                if parent is None or parent["kind"] not in kinds:
                    problems.append(f"{path}:{lineno}: '{line}' must be inside a {' or '.join(kinds)} section")
                    continue
            cur = {"rank": rank, "kind": kind, "name": name, "line": lineno, "keys": [],
                   "parent": stack[-1] if stack else None}
            stack.append(cur)
            sections.append(cur)
            continue
        m = KEYVAL.match(line)
        if not m:
            problems.append(f"{path}:{lineno}: neither a section, a comment nor 'key = value': '{line}'")
            continue
        if cur is None:
            problems.append(f"{path}:{lineno}: '{line}' before the first section")
            continue
        key, op, value = m.groups()
        if value.startswith("'''") and (value.count("'''") < 2):
            # a value of several lines, up to the closing '''
            start = lineno
            parts = [value]
            while i < len(lines) and "'''" not in lines[i]:
                parts.append(lines[i])
                i += 1
            if i >= len(lines):
                problems.append(f"{path}:{start}: ''' value never closed")
                break
            parts.append(lines[i])
            i += 1
            value = "\n".join(parts)
        cur["keys"].append((key, op, value, lineno))
    return sections, problems


def expr_names(expr):
    """Identifiers of an expression that are neither function calls, strings nor constants."""
    text = STRING.sub('""', expr)
    names = []
    for m in IDENT.finditer(text):
        word = m.group(0)
        rest = text[m.end():].lstrip()
        if rest.startswith("("):
            continue  # a function
        before = text[: m.start()]
        if before.endswith(".") or re.search(r"[0-9]$", before):
            continue  # part of a dotted name or a number
        if word in NOT_PARAMETERS:
            continue
        names.append(word)
    return names


def references(value):
    """Parameters a value refers to: $Name and the names inside ${...}."""
    refs = []
    j = 0
    while True:
        k = value.find("$", j)
        if k < 0:
            break
        if value.startswith("${", k):
            depth, end = 0, None
            for n in range(k + 1, len(value)):
                if value[n] == "{":
                    depth += 1
                elif value[n] == "}":
                    depth -= 1
                    if depth == 0:
                        end = n
                        break
            if end is None:
                refs.append(("unclosed", value[k:]))
                break
            refs.extend(("name", n) for n in expr_names(value[k + 2: end]))
            j = end + 1
        else:
            m = IDENT.match(value, k + 1)
            if m:
                if m.group(0) not in NOT_PARAMETERS:
                    refs.append(("name", m.group(0)))
                j = m.end()
            else:
                j = k + 1
    return refs


def project_info(ini):
    version, specs = None, set()
    with open(ini, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\s*version\s*=\s*(\S+)", line)
            if m and version is None:
                version = m.group(1)
            m = re.match(r"^\[spec\s+([^\]]+)\]", line.strip())
            if m:
                specs.add(m.group(1).strip())
    base = os.path.dirname(os.path.abspath(ini))
    name = None
    with open(ini, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\s*name\s*=\s*(\S+)", line)
            if m:
                name = m.group(1)
                break
    return name, version, specs, base


def check(path, project):
    sections, problems = parse(path)
    params = {}
    nodes = {}
    for s in sections:
        if s["kind"] == "parameter":
            if s["name"] in params:
                problems.append(f"{path}:{s['line']}: parameter '{s['name']}' defined twice "
                                f"(first at line {params[s['name']]})")
            params.setdefault(s["name"], s["line"])
        elif s["kind"] in ("node", "nodearray"):
            if s["name"] in nodes:
                problems.append(f"{path}:{s['line']}: {s['kind']} '{s['name']}' defined twice")
            nodes.setdefault(s["name"], s)
    if not any(s["kind"] == "cluster" for s in sections):
        problems.append(f"{path}: no [cluster NAME] section")
    for s in sections:
        for key, op, value, lineno in s["keys"]:
            refs = references(value)
            if s["kind"] == "parameter" and key.startswith("Conditions.") and op == ":=":
                refs += [("name", n) for n in expr_names(value)]
            for kind, name in refs:
                if kind == "unclosed":
                    problems.append(f"{path}:{lineno}: '${{' never closed in {key}")
                elif name not in params:
                    problems.append(f"{path}:{lineno}: {key} refers to parameter '{name}', "
                                    f"which no [[[parameter {name}]]] defines")
            if key == "Extends" and s["kind"] in ("node", "nodearray") and value.strip() not in nodes:
                problems.append(f"{path}:{lineno}: Extends '{value.strip()}': no such node or nodearray")
        if s["kind"] == "cluster-init" and project:
            pname, version, specs, base = project
            m = re.match(r"^(?:[^/]+/)?([^:]+):([^:]+)(?::(.+))?$", s["name"])
            if not m:
                problems.append(f"{path}:{s['line']}: cluster-init '{s['name']}' is not PROJECT:SPEC[:VERSION]")
            elif m.group(1) == pname:
                if m.group(2) not in specs or not os.path.isdir(os.path.join(base, "specs", m.group(2))):
                    problems.append(f"{path}:{s['line']}: spec '{m.group(2)}' is not a spec of project '{pname}'")
                if m.group(3) != version:
                    problems.append(f"{path}:{s['line']}: {s['name']}: the project's version is {version}")
    return sections, problems


def names(sections):
    out = []
    for s in sections:
        if s["kind"] == "parameter":
            out.append(f"parameter {s['name']}")
        elif s["kind"] in ("node", "nodearray"):
            out.append(f"{s['kind']} {s['name']}")
        elif s["kind"] == "configuration" and s["parent"]:
            node = s["parent"]["name"]
            prefix = s["name"] + "." if s["name"] else ""
            out.extend(f"config {node} {prefix}{k}" for k, _, _, _ in s["keys"])
        elif s["kind"] == "cluster-init" and s["parent"]:
            out.append(f"cluster-init {s['parent']['name']} {s['name']}")
    return out


def main(argv):
    project = None
    want_names = False
    files = []
    args = iter(argv)
    for a in args:
        if a == "--names":
            want_names = True
        elif a == "--project-ini":
            project = project_info(next(args))
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    failed = False
    for path in files:
        sections, problems = check(path, project)
        for p in problems:
            print(p, file=sys.stderr)
        failed = failed or bool(problems)
        if want_names:
            print("\n".join(names(sections)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
