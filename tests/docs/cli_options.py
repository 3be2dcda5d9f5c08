#!/usr/bin/env python3
"""docs/cli.md lists exactly the options `isocheck SUBCOMMAND --help` prints.

For each subcommand with a section "## `isocheck SUB …`" in docs/cli.md, the long
options named in the first column of that section's tables must equal the long
options of `isocheck SUB --help` (less --help itself). Usage:
cli_options.py ISOCHECK_BINARY REPO_ROOT
"""
import re, subprocess, sys

binary, root = sys.argv[1], sys.argv[2]
doc = open(f"{root}/docs/cli.md", encoding="utf-8").read()
sections = re.split(r"^## ", doc, flags=re.M)
failures, checked = [], 0
for sec in sections:
    m = re.match(r"`isocheck (\w+)", sec)
    if not m: continue
    sub = m.group(1)
    documented = set()
    for line in sec.split("\n"):
        if line.startswith("|"):
            first = line.split("|")[1]
            documented |= set(re.findall(r"--[a-z][a-z0-9-]*", first))
    help_text = subprocess.run([binary, sub, "--help"], capture_output=True, text=True).stdout
    offered = set()
    for line in help_text.split("\n"):
        m2 = re.match(r"\s+((?:-\w,)?--[a-z][\w-]*(?:,--[a-z][\w-]*)*)", line)
        if m2: offered |= set(re.findall(r"--[a-z][\w-]*", m2.group(1)))
    offered.discard("--help")
    checked += 1
    for o in sorted(offered - documented):
        failures.append(f"docs/cli.md, isocheck {sub}: {o} is in --help but not documented")
    for o in sorted(documented - offered):
        failures.append(f"docs/cli.md, isocheck {sub}: {o} is documented but not in --help")
for f in failures: print(f)
print(f"{checked} subcommands compared, {len(failures)} differences")
sys.exit(1 if failures or checked < 5 else 0)
