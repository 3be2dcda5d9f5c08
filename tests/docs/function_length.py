#!/usr/bin/env python3
"""No function (or lambda-free function body) in src/ or tests/ runs over 200 lines.

A long function mixes concerns; split it at its phases. The scan is lexical:
comments, string and character literals are blanked, then every brace block
that opens right after a parameter list `)` (with const/noexcept/override,
a trailing return type or a constructor's initialiser list between) and is not
inside another function body is one function; its length is the lines from
its opening to its closing brace. Usage: function_length.py REPO_ROOT [LIMIT]
"""
import os, re, sys

root = sys.argv[1]
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 200


def blank(text):
    keep_lines = lambda m: "\n" * m.group(0).count("\n")
    text = re.sub(r'R"(\w*)\((.*?)\)\1"', lambda m: '""' + keep_lines(m), text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", keep_lines, text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", text)


opens_function = re.compile(r"\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*|final\s*)*(?:->[^{;]*)?(?::[^{;]*)?$")


def long_functions(path):
    text = blank(open(path, errors="replace").read())
    found, stack, line, start = [], [], 1, 0
    for i, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif ch == "{":
            before = text[max(0, i - 400):i]
            in_function = any(kind == "fn" for kind, _ in stack)
            kind = "fn" if not in_function and opens_function.search(before.rstrip()) else "block"
            stack.append((kind, line))
        elif ch == "}" and stack:
            kind, first = stack.pop()
            if kind == "fn" and line - first > limit:
                found.append((line - first, first))
    return found


bad = []
for top in ("src", "tests"):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if n.endswith((".cpp", ".h", ".cu")):
                p = os.path.join(dirpath, n)
                for length, first in long_functions(p):
                    bad.append(f"{os.path.relpath(p, root)}:{first}: a function of {length} lines (limit {limit})")
for b in sorted(bad):
    print(b)
print(f"{len(bad)} function(s) over {limit} lines")
sys.exit(1 if bad else 0)
