#!/usr/bin/env python3
"""Each library under src/ includes only headers of the libraries it links.

A folder src/X builds the library isocheck_X; its CMakeLists.txt names the
libraries it links (isocheck_link(...) or target_link_libraries(isocheck_X ...)).
Every `#include "Y/..."` in src/X must name X itself or a library X links,
directly or through those it links. The program (src/cli) may include any
library it links. Usage: layering.py REPO_ROOT
"""
import os, re, sys

root = sys.argv[1]
src = os.path.join(root, "src")
folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
# Every stage links isocheck_core (isocheck_stage() in the top CMakeLists.txt).
deps = {d: ({"core"} if d != "core" else set()) for d in folders}
texts = []
for d in folders:
    cm = os.path.join(src, d, "CMakeLists.txt")
    if os.path.exists(cm): texts.append(re.sub(r"#[^\n]*", "", open(cm).read()))
for text in texts:
    for m in re.finditer(r"(?:isocheck_link|target_link_libraries)\(\s*(\S+)([^)]*)\)", text):
        target = m.group(1)
        d = "cli" if target == "isocheck" else target[len("isocheck_"):] if target.startswith("isocheck_") else None
        if d in deps: deps[d] |= set(re.findall(r"isocheck_(\w+)", m.group(2)))

def closure(d, seen=None):
    seen = set() if seen is None else seen
    for x in deps.get(d, ()):
        if x not in seen:
            seen.add(x)
            closure(x, seen)
    return seen

bad = []
inc = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')
for d in folders:
    allowed = closure(d) | {d}
    for dirpath, _, names in os.walk(os.path.join(src, d)):
        for n in names:
            if not n.endswith((".h", ".cpp", ".cu", ".in")): continue
            path = os.path.join(dirpath, n)
            for ln, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = inc.match(line)
                if m and m.group(1) in folders and m.group(1) not in allowed:
                    bad.append(f"{os.path.relpath(path, root)}:{ln}: includes {m.group(1)}/ but "
                               f"{'isocheck' if d == 'cli' else 'isocheck_' + d} does not link isocheck_{m.group(1)}")

# Unit tests: tests/unit/X.cpp (and the tests/common headers it includes) may
# include only the libraries tests/CMakeLists.txt lists for X, and theirs.
tests = os.path.join(root, "tests")
cm = re.sub(r"#[^\n]*", "", open(os.path.join(tests, "CMakeLists.txt")).read())
deps["oracle"] = {"io", "core"}
test_libs = {m.group(1): set(re.findall(r"isocheck_(\w+)", m.group(2)))
             for m in re.finditer(r"set\(libs_(\w+)([^)]*)\)", cm)}
local = re.compile(r'^\s*#\s*include\s+"common/([^"]+)"')
for name, libs in sorted(test_libs.items()):
    allowed = set(libs) | {"core"}
    for l in libs: allowed |= closure(l)
    todo, seen = [os.path.join(tests, "unit", name + ".cpp")], set()
    while todo:
        path = todo.pop()
        if path in seen or not os.path.exists(path): continue
        seen.add(path)
        for ln, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            m = local.match(line)
            if m: todo.append(os.path.join(tests, "common", m.group(1)))
            m = inc.match(line)
            full = re.match(r'^\s*#\s*include\s+"([^"]+)"', line)
            if full and os.path.exists(os.path.join(tests, full.group(1))) and m and m.group(1) != "oracle":
                continue  # a header of the tests themselves (tests/dist/glue.h)
            if m and (m.group(1) in folders or m.group(1) == "oracle") and m.group(1) not in allowed:
                bad.append(f"{os.path.relpath(path, root)}:{ln}: includes {m.group(1)}/ but {name} does not "
                           f"link isocheck_{m.group(1)} (tests/CMakeLists.txt)")
for b in bad: print(b)
print(f"{len(folders)} folders and {len(test_libs)} unit tests, {len(bad)} includes outside what they link")
sys.exit(1 if bad else 0)
