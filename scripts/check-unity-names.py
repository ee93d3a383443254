#!/usr/bin/env python3
"""Refuses two files of one unity-built target that define a file-local function of one name.

A unity build compiles a target's files as one translation unit, so helpers in anonymous
namespaces (or `static`) share one scope: an identical signature fails to compile, but a
different one becomes an overload, and a call can silently bind to the other file's helper
(`whole_number(args, "--seed", 42, 0)` took command_launch's `int` version over
command_sample's `int64_t` one). Rename one of the pair.

    scripts/check-unity-names.py BUILD_DIR
"""
import collections
import pathlib
import re
import sys

IDENT = re.compile(r"(?:operator\s*\S+|~?[A-Za-z_]\w*)\s*$")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "alignof",
            "static_assert", "noexcept", "requires", "catch"}


def strip_comments_and_strings(text):
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\])*"|'
                         r"'(?:\\.|[^'\\])*'", re.S)
    return pattern.sub(lambda m: " " if m.group(0).startswith("/") else '""', text)


def local_functions(text):
    """Names of functions defined at the top level of an anonymous namespace, or `static`."""
    text = strip_comments_and_strings(text)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    names = set()
    # Depth stack entries: "anon", "ns" or "other" for each open brace.
    stack, statement = [], ""
    for ch in text:
        if ch == "{":
            head = statement.strip()
            if re.search(r"\bnamespace\s*$", head):
                stack.append("anon")
            elif re.search(r"\bnamespace\s+[\w:]+\s*$", head) or re.search(r'extern\s+""\s*$', head):
                stack.append("ns")
            else:
                in_anon = "anon" in stack
                at_namespace_level = all(kind in ("anon", "ns") for kind in stack)
                if at_namespace_level and (in_anon or re.match(r"(?:inline\s+)?static\b", head)):
                    name = function_name(head)
                    if name:
                        names.add(name)
                stack.append("other")
            statement = ""
        elif ch == "}":
            if stack:
                stack.pop()
            statement = ""
        elif ch == ";":
            statement = ""
        else:
            statement += ch
    return names


def function_name(head):
    if re.match(r"(?:template\s*<.*>\s*)?(?:struct|class|union|enum)\b", head, re.S):
        return None
    depth, end = 0, None
    # The name stands before the first parenthesis that is not inside template brackets.
    for i, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            end = i
            break
    if end is None or "=" in head[:end]:
        return None
    match = IDENT.search(head[:end])
    if not match or match.group(0).strip() in KEYWORDS or re.fullmatch(r"[A-Z][A-Z0-9_]*", match.group(0).strip()):
        return None
    return re.sub(r"\s+", "", match.group(0))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    build = pathlib.Path(sys.argv[1])
    targets = collections.defaultdict(list)
    for unity in build.rglob("Unity/unity_*.cxx"):
        for line in unity.read_text().splitlines():
            match = re.match(r'#include "(.+)"', line)
            if match:
                targets[unity.parent.parent].append(pathlib.Path(match.group(1)))
    if not targets:
        print(f"unity names: no unity sources under {build}, nothing to check")
        return 0
    clashes = 0
    for target, sources in sorted(targets.items()):
        owners = collections.defaultdict(list)
        for source in sources:
            for name in local_functions(source.read_text(errors="replace")):
                owners[name].append(source)
        for name, files in sorted(owners.items()):
            if len(files) > 1:
                clashes += 1
                print(f"{target.name}: '{name}' is file-local in " +
                      ", ".join(str(f) for f in sorted(files)))
    if clashes:
        print(f"error: {clashes} file-local function name(s) shared within a unity target; "
              "rename them so no call can bind to another file's helper", file=sys.stderr)
        return 1
    print(f"unity names: {sum(len(s) for s in targets.values())} files in {len(targets)} targets, "
          "no shared file-local function names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
