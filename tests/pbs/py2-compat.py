# SPDX-License-Identifier: MIT
# py2-compat.py: does a Python file use what Python 2.7 lacks?  PBS
# Professional 18 runs its hooks under Python 2.7, OpenPBS 20 and later under
# Python 3, and ccautoscale's hook must run under both.  Where no Python 2.7
# is at hand (Debian 12 has none) this is the check: `python3 py2-compat.py
# FILE` parses FILE and prints each use, FILE:LINE: what, exiting 1 if any:
#   syntax    f-strings, nonlocal, annotations, async/await, `yield from`,
#             keyword-only arguments, starred targets, the walrus, positional-
#             only arguments, matrix multiplication, the `print` of Python 2
#             used as a statement (a syntax error in Python 3, never here);
#   library   what Python 3 added that 2.7 has not: subprocess.run, DEVNULL,
#             TimeoutExpired, CompletedProcess; time.monotonic and
#             perf_counter; shutil.which; importlib.util; TemporaryDirectory;
#             os.makedirs(exist_ok=); open(encoding=); str.format_map;
#             FileNotFoundError and the other OSError subclasses (2.7 raises
#             IOError or OSError); `except OSError` where open() may fail (2.7
#             raises IOError, which OSError does not catch);
#   semantics bytes.decode of what a str() in 2.7 would already be is fine,
#             but `b"" + ""` mixing and print(..., end=) are flagged.
# It cannot prove the file runs under 2.7 (only running it there can); it
# catches what is commonly written without noticing.
import ast
import sys

PY3_ONLY_ATTRS = {
    ("subprocess", "run"), ("subprocess", "DEVNULL"), ("subprocess", "TimeoutExpired"),
    ("subprocess", "CompletedProcess"), ("time", "monotonic"), ("time", "perf_counter"),
    ("time", "process_time"), ("shutil", "which"), ("importlib", "util"), ("tempfile", "TemporaryDirectory"),
    ("os", "replace"), ("os", "scandir"), ("os", "fsencode"), ("os", "fsdecode"),
}
PY3_ONLY_NAMES = {
    "FileNotFoundError", "FileExistsError", "PermissionError", "TimeoutError", "ProcessLookupError",
    "ChildProcessError", "ConnectionError", "BrokenPipeError", "InterruptedError", "IsADirectoryError",
    "NotADirectoryError", "ModuleNotFoundError", "RecursionError", "nonlocal",
}


class Check(ast.NodeVisitor):
    def __init__(self, path):
        self.path = path
        self.found = []

    def say(self, node, what):
        self.found.append("%s:%d: %s" % (self.path, getattr(node, "lineno", 0), what))

    def visit_JoinedStr(self, node):
        self.say(node, "an f-string")
        self.generic_visit(node)

    def visit_Nonlocal(self, node):
        self.say(node, "nonlocal")

    def visit_AnnAssign(self, node):
        self.say(node, "a variable annotation")
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node):
        self.say(node, "async def")
        self.generic_visit(node)

    def visit_Await(self, node):
        self.say(node, "await")
        self.generic_visit(node)

    def visit_YieldFrom(self, node):
        self.say(node, "yield from")
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.say(node, "an assignment expression (:=)")
        self.generic_visit(node)

    def visit_MatMult(self, node):
        self.say(node, "the @ operator")

    def visit_Starred(self, node):
        if isinstance(getattr(node, "ctx", None), ast.Store):
            self.say(node, "a starred assignment target")
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        a = node.args
        if a.kwonlyargs:
            self.say(node, "keyword-only arguments")
        if getattr(a, "posonlyargs", []):
            self.say(node, "positional-only arguments")
        if node.returns is not None or any(x.annotation is not None for x in a.args + a.kwonlyargs):
            self.say(node, "a function annotation")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in PY3_ONLY_ATTRS:
            self.say(node, "%s.%s (Python 3 only)" % (node.value.id, node.attr))
        if node.attr == "format_map":
            self.say(node, "str.format_map (Python 3 only)")
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if (node.module, alias.name) in PY3_ONLY_ATTRS:
                self.say(node, "from %s import %s (Python 3 only)" % (node.module, alias.name))

    def visit_Name(self, node):
        if node.id in PY3_ONLY_NAMES:
            self.say(node, "%s (Python 3 only)" % node.id)

    def visit_Call(self, node):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for kw in node.keywords:
            if kw.arg is None:
                continue
            if name == "makedirs" and kw.arg == "exist_ok":
                self.say(node, "os.makedirs(exist_ok=) (Python 3 only)")
            if name == "open" and kw.arg in ("encoding", "errors", "newline"):
                self.say(node, "open(%s=) (Python 3 only: io.open in 2.7)" % kw.arg)
            if name == "print" and kw.arg in ("end", "sep", "file", "flush"):
                self.say(node, "print(%s=) (a statement in Python 2.7)" % kw.arg)
            if name in ("Popen", "call", "check_call", "check_output", "wait", "communicate") and kw.arg == "timeout":
                self.say(node, "%s(timeout=) (Python 3 only)" % name)
        self.generic_visit(node)

    def visit_Try(self, node):
        # open() raises IOError in 2.7, which `except OSError` does not catch
        opens = any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "open"
                    for stmt in node.body for n in ast.walk(stmt))
        for h in node.handlers:
            names = []
            if isinstance(h.type, ast.Name):
                names = [h.type.id]
            elif isinstance(h.type, ast.Tuple):
                names = [e.id for e in h.type.elts if isinstance(e, ast.Name)]
            if opens and "OSError" in names and "IOError" not in names and "EnvironmentError" not in names:
                self.say(h, "except OSError around open(): Python 2.7 raises IOError (catch both)")
        self.generic_visit(node)


def main():
    bad = 0
    for path in sys.argv[1:]:
        with open(path) as f:
            source = f.read()
        c = Check(path)
        c.visit(ast.parse(source, path))
        for line in c.found:
            print(line)
        bad += len(c.found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
