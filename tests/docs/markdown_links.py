#!/usr/bin/env python3
"""Every relative link in the repository's Markdown resolves inside the repository.

A link [text](target) whose target is not a URL must name a file or folder that
exists, reached without leaving the repository; a #fragment must name a heading
of the target page (GitHub's slug rules: lower case, punctuation dropped, spaces
to dashes). Usage: markdown_links.py REPO_ROOT
"""
import os, re, subprocess, sys

root = os.path.realpath(sys.argv[1])
files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
                       capture_output=True, text=True, check=True).stdout.split()
link = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
fence = re.compile(r"^\s*```")

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[`*_]", "", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")

def anchors(path):
    out, in_code = set(), False
    for line in open(path, encoding="utf-8"):
        if fence.match(line): in_code = not in_code; continue
        if not in_code and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out

bad = []
for rel in files:
    path = os.path.join(root, rel)
    if not os.path.exists(path): continue
    in_code = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if fence.match(line): in_code = not in_code; continue
        if in_code: continue
        line = re.sub(r"`[^`]*`", "", line)  # code spans hold no links
        for target in link.findall(line):
            if re.match(r"^[a-z]+:", target): continue  # http:, https:, mailto:
            target, _, frag = target.partition("#")
            dest = os.path.realpath(os.path.join(os.path.dirname(path), target)) if target else path
            if not (dest == root or dest.startswith(root + os.sep)):
                bad.append(f"{rel}:{n}: link leaves the repository: {target}")
            elif not os.path.exists(dest):
                bad.append(f"{rel}:{n}: no such file: {target}")
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append(f"{rel}:{n}: no heading #{frag} in {os.path.relpath(dest, root)}")
for b in bad: print(b)
print(f"{len(files)} Markdown files, {len(bad)} broken links")
sys.exit(1 if bad else 0)
