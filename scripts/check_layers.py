#!/usr/bin/env python3
"""Checks the dependency rules of docs/architecture.md against the code's includes.

The rules are the fenced block tagged `layers` in docs/architecture.md:

    part NAME = FOLDER/STEM ...        files of a folder that form a component of their own
    COMPONENT -> DEP, DEP, ...         what COMPONENT's files may include ("->" alone: nothing)

A component is a folder of src/ (src/<folder>/**), a part (its files by path without extension,
e.g. service/health/probe_main for service/health/probe_main.cpp), or `workloads`: the worker code under the
top-level problems/ folder. Every `#include "COMPONENT/..."` in src/**/*.{h,cpp,cu,cuh} and
problems/**/*.{h,cpp,cu,cuh} is an arrow from the including file's component to the included
file's. Fails (exit 1), naming the file and line, on:
  - an include whose arrow the block does not allow;
  - an arrow the block allows that no include makes any more (the page would be stale);
  - a folder of src/ the block does not name, or a component the block names that does not exist;
  - with --readme: a top-level folder or a src/ folder that README.md's "## Layout" section does
    not name, or a src/ folder that docs/architecture.md's component list does not name;
  - SQLite's header included outside src/store/;
  - a namespace that the ```namespaces block of docs/architecture.md does not give the file's folder
    (each folder of src/ is one namespace; see read_namespaces);
  - a .cpp file of src/ whose first line is not a `// ` comment (what the file is for);
  - a unit test's source file (tests/unit/**/*.{h,cpp,cu,cuh}) outside a component folder
    tests/unit/<component>/, or a folder of tests/unit/ that names no component: a folder of src/,
    or a top-level folder with code of its own besides tests/ (knowledge/: the prompt's packs).
--print writes the arrows the code has today in the block's format (to regenerate the block).
Python 3.11, standard library only.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

SOURCE_SUFFIXES = {".h", ".cpp", ".cu", ".cuh"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
WORKLOADS = "workloads"  # the worker code in the top-level problems/ folder


def read_block(doc: Path) -> list[tuple[int, str]]:
    lines = doc.read_text(encoding="utf-8").splitlines()
    block, inside = [], False
    for n, line in enumerate(lines, 1):
        if not inside and line.strip() == "```layers":
            inside = True
            continue
        if inside:
            if line.strip().startswith("```"):
                return block
            block.append((n, line))
    raise SystemExit(f"{doc}: no ```layers block (or it is not closed)")


def parse_rules(doc: Path):
    parts: dict[str, str] = {}  # "folder/stem" -> part name
    part_names: set[str] = set()
    rules: dict[str, set[str]] = {}
    where: dict[str, int] = {}
    errors = []
    for n, raw in read_block(doc):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("part "):
            m = re.fullmatch(r"part\s+(\w+)\s*=\s*(.+)", line)
            if not m:
                errors.append(f"{doc}:{n}: expected 'part NAME = FOLDER/STEM ...': {raw.strip()}")
                continue
            part_names.add(m.group(1))
            for stem in m.group(2).split():
                parts[stem] = m.group(1)
            continue
        m = re.fullmatch(r"(\w+)\s*->\s*(.*)", line)
        if not m:
            errors.append(f"{doc}:{n}: expected 'COMPONENT -> DEP, ...': {raw.strip()}")
            continue
        name = m.group(1)
        if name in rules:
            errors.append(f"{doc}:{n}: {name} has a second rule line")
        deps = {d.strip() for d in m.group(2).split(",") if d.strip()}
        rules[name] = deps
        where[name] = n
    return parts, part_names, rules, where, errors


def component_of(path: str, parts: dict[str, str]) -> str:
    """`path` relative to src/ (e.g. fixit/builder.h) -> its component."""
    stem = os.path.splitext(path)[0]
    return parts.get(stem, path.split("/", 1)[0])


def scan(root: Path, src_components: set[str], parts: dict[str, str]):
    """(from, to) -> [file:line, ...] for every include across components."""
    arrows: dict[tuple[str, str], list[str]] = defaultdict(list)
    trees = [(root / "src", None), (root / "problems", WORKLOADS)]
    for tree, fixed in trees:
        for dirpath, _, files in os.walk(tree):
            for f in sorted(files):
                p = Path(dirpath) / f
                if p.suffix not in SOURCE_SUFFIXES:
                    continue
                rel = p.relative_to(tree).as_posix()
                src = fixed or component_of(rel, parts)
                for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                    m = INCLUDE.match(line)
                    if not m or "/" not in m.group(1):
                        continue
                    target = m.group(1)
                    if target.split("/", 1)[0] not in src_components:
                        continue  # a local, generated, problem-common or third-party header
                    dst = component_of(target, parts)
                    if dst != src:
                        arrows[(src, dst)].append(f"{p.relative_to(root).as_posix()}:{n}")
    return arrows


def layout_section(readme: Path) -> str:
    text = readme.read_text(encoding="utf-8")
    m = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


def top_level_folders(root: Path) -> list[str]:
    ignored = set()
    gi = root / ".gitignore"
    if gi.exists():
        for line in gi.read_text().splitlines():
            m = re.fullmatch(r"/?([^/*!#]+)/(\*)?", line.strip())
            if m:
                ignored.add(m.group(1))
    return sorted(d.name for d in root.iterdir()
                  if d.is_dir() and not d.name.startswith(".") and d.name not in ignored)


def unit_test_layout(root: Path, src_components: set[str]) -> list[str]:
    """tests/unit mirrors src/: each test file in tests/unit/<component>/ (any depth below it)."""
    unit = root / "tests" / "unit"
    if not unit.is_dir():
        return []
    errors = []
    for entry in sorted(unit.iterdir()):
        rel = entry.relative_to(root).as_posix()
        if entry.is_file():
            if entry.suffix in SOURCE_SUFFIXES:
                errors.append(f"{rel}: a unit test outside a component folder (move it to "
                              "tests/unit/<component>/, named after the src/ folder of the code it tests)")
            continue
        name = entry.name
        if name in src_components or (name != "tests" and (root / name).is_dir() and not name.startswith(".")):
            continue
        errors.append(f"{rel}/: no src/{name}/ (nor a top-level {name}/) for this unit test folder to mirror")
    return errors


# The workspace database's engine belongs to the store alone (docs/architecture.md: "store alone owns
# the schema"): SQLite's header is included only under src/store/.
SQLITE_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]sqlite3\.h[>"]')


def sqlite_outside_store(root: Path) -> list[str]:
    errors = []
    for p in sorted((root / "src").rglob("*")):
        if p.suffix not in SOURCE_SUFFIXES or p.relative_to(root / "src").parts[0] == "store":
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if SQLITE_INCLUDE.match(line):
                errors.append(f"{p.relative_to(root)}:{n}: includes SQLite outside src/store/ (reach the "
                              "workspace or an index through the store's interfaces)")
    return errors


NAMESPACE = re.compile(r"^\s*namespace\s+([A-Za-z_][\w:]*)\s*\{")


def read_namespaces(doc: Path) -> tuple[dict[str, str], set[str], list[str]]:
    """The ```namespaces block: `NAMESPACE = FOLDER ...` lines (each folder of src/ in exactly one, its
    subfolders with it) and one `nested = NAME ...` line (the helper namespaces a file may open inside
    its folder's: written `namespace FOLDER_NS::NAME {` or, nested, `namespace NAME {`)."""
    text = doc.read_text(encoding="utf-8").splitlines()
    folder_ns: dict[str, str] = {}
    nested: set[str] = set()
    errors: list[str] = []
    inside = False
    for n, raw in enumerate(text, 1):
        if not inside:
            inside = raw.strip() == "```namespaces"
            continue
        if raw.strip().startswith("```"):
            return folder_ns, nested, errors
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([\w:]+)\s*=\s*(.+)", line)
        if not m:
            errors.append(f"{doc}:{n}: expected 'NAMESPACE = FOLDER ...' or 'nested = NAME ...': {raw.strip()}")
            continue
        if m.group(1) == "nested":
            nested |= set(m.group(2).split())
            continue
        for folder in m.group(2).split():
            if folder in folder_ns:
                errors.append(f"{doc}:{n}: src/{folder}/ is given a second namespace")
            folder_ns[folder] = m.group(1)
    if not inside:
        errors.append(f"{doc}: no ```namespaces block")
    else:
        errors.append(f"{doc}: the ```namespaces block is not closed")
    return folder_ns, nested, errors


def namespace_errors(root: Path, doc: Path, src_components: set[str]) -> list[str]:
    folder_ns, nested, errors = read_namespaces(doc)
    for c in sorted(src_components - set(folder_ns)):
        errors.append(f"{doc}: src/{c}/ has no namespace in the namespaces block")
    for c in sorted(set(folder_ns) - src_components):
        errors.append(f"{doc}: the namespaces block names src/{c}/, which does not exist")
    for p in sorted((root / "src").rglob("*")):
        if p.suffix not in SOURCE_SUFFIXES:
            continue
        own = folder_ns.get(p.relative_to(root / "src").parts[0])
        if own is None:
            continue
        allowed = {own} | {f"{own}::{h}" for h in nested} | nested
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            m = NAMESPACE.match(line)
            if m and m.group(1) not in allowed:
                errors.append(f"{p.relative_to(root)}:{n}: namespace {m.group(1)}: a file of this folder is in "
                              f"{own} (helpers inside it: {', '.join(sorted(nested))}; docs/architecture.md, "
                              "namespaces block)")
    return errors


def cpp_purpose_lines(root: Path) -> list[str]:
    """Every .cpp of src/ opens with a one-line `// ` comment saying what the file is for."""
    errors = []
    for p in sorted((root / "src").rglob("*.cpp")):
        first = p.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        if not first.startswith("// ") or len(first.strip()) < 12:
            errors.append(f"{p.relative_to(root)}:1: does not open with a `// ` line saying what the file is for")
    return errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--doc", type=Path, help="default: ROOT/docs/architecture.md")
    ap.add_argument("--readme", action="store_true", help="also check README.md's and the page's folder lists")
    ap.add_argument("--print", action="store_true", help="print the arrows the code has today")
    args = ap.parse_args()
    root = args.root
    doc = args.doc or root / "docs" / "architecture.md"

    src_components = {d.name for d in (root / "src").iterdir() if d.is_dir()}
    parts, part_names, rules, where, errors = parse_rules(doc)
    arrows = scan(root, src_components, parts)

    if args.print:
        actual: dict[str, set[str]] = defaultdict(set)
        for (a, b) in arrows:
            actual[a].add(b)
        for c in sorted(src_components | part_names | {WORKLOADS}):
            print(f"{c} -> {', '.join(sorted(actual.get(c, ())))}".rstrip())
        return 0

    known = src_components | part_names | {WORKLOADS}
    for c in sorted(src_components - set(rules)):
        errors.append(f"{doc}: src/{c}/ has no rule line in the layers block")
    for c, deps in sorted(rules.items()):
        if c not in known:
            errors.append(f"{doc}:{where[c]}: {c} is no folder of src/ and no part")
        for d in sorted(deps - known):
            errors.append(f"{doc}:{where[c]}: {c} -> {d}: {d} is no folder of src/ and no part")
    for stem, part in sorted(parts.items()):
        folder = root / "src" / os.path.dirname(stem)
        if not any(folder.glob(os.path.basename(stem) + ext) for ext in SOURCE_SUFFIXES):
            errors.append(f"{doc}: part {part} names src/{stem}.*, which does not exist")

    for (a, b), sites in sorted(arrows.items()):
        if b not in rules.get(a, set()):
            for s in sites:
                errors.append(f"{s}: {a} -> {b} is not allowed by {doc.name}'s layers block")
    for c, deps in sorted(rules.items()):
        for d in sorted(deps):
            if (c, d) not in arrows and c in known and d in known:
                errors.append(f"{doc}:{where[c]}: {c} -> {d} is declared but no include makes it "
                              "(remove it from the block)")

    errors += unit_test_layout(root, src_components)
    errors += sqlite_outside_store(root)
    errors += namespace_errors(root, doc, src_components)
    errors += cpp_purpose_lines(root)

    if args.readme:
        layout = layout_section(root / "README.md")
        if not layout:
            errors.append("README.md: no '## Layout' section")
        for d in top_level_folders(root):
            if not re.search(rf"`{re.escape(d)}/", layout):
                errors.append(f"README.md, Layout: the top-level folder {d}/ is not named (as `{d}/...`)")
        for c in sorted(src_components):
            if not re.search(rf"\b{re.escape(c)}\b", layout):
                errors.append(f"README.md, Layout: src/{c}/ is not named")
            if f"src/{c}/" not in doc.read_text(encoding="utf-8"):
                errors.append(f"{doc}: src/{c}/ is not named in the page")

    if errors:
        print("\n".join(errors))
        print(f"check_layers: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    n = sum(len(v) for v in arrows.values())
    print(f"check_layers: {len(arrows)} arrows over {n} includes, all allowed and all declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
