#!/usr/bin/env python3
"""Fails when a user-visible string has no finished Simplified Chinese translation.

usage: check-translations.py LUPDATE SOURCE_DIR

Runs lupdate over the studio's sources (app/, ui/, common/) into a scratch copy of
translations/tuneframe_zh_CN.ts, so the committed file is never touched, and lists every message
that comes out new or unfinished there with its context. A tr() string added without its
translation then fails the tests instead of showing in English in the Chinese studio.
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree


def missing_translations(ts_path):
    missing = []
    for context in ElementTree.parse(ts_path).getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            translation = message.find("translation")
            forms = translation.findall("numerusform") if translation is not None else []
            texts = [form.text for form in forms] if forms else [translation.text if
                                                                translation is not None else None]
            unfinished = translation is None or translation.get("type") == "unfinished"
            if unfinished or not all(text and text.strip() for text in texts):
                missing.append((name, message.findtext("source")))
    return missing


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    lupdate, source = sys.argv[1], pathlib.Path(sys.argv[2])
    committed = source / "translations" / "tuneframe_zh_CN.ts"
    with tempfile.TemporaryDirectory() as scratch:
        updated = pathlib.Path(scratch) / committed.name
        shutil.copyfile(committed, updated)
        folders = [str(source / folder) for folder in ("app", "ui", "common")]
        run = subprocess.run([lupdate, "-silent", "-no-obsolete", "-locations", "none", *folders,
                              "-ts", str(updated)], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"lupdate failed ({run.returncode}):\n{run.stderr}", file=sys.stderr)
            return 1
        missing = missing_translations(updated)
    if missing:
        print(f"{len(missing)} string(s) without a finished zh_CN translation in {committed}:")
        for context, text in missing:
            print(f"  {context}: {text!r}")
        print("Add each to the file (a <message> in its <context>) with its translation.")
        return 1
    print(f"every string in app/, ui/ and common/ is translated in {committed.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
