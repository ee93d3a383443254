#!/usr/bin/env python3
"""Fails when a user-visible string has no finished Simplified Chinese translation, or a %n
string no English plural forms.

usage: check-translations.py LUPDATE SOURCE_DIR

Runs lupdate over the studio's sources (app/, ui/, common/) into scratch copies of
translations/tuneframe_zh_CN.ts (every string) and tuneframe_en.ts (-pluralonly: "%n run(s)"
as "1 run" / "3 runs"), so the committed files are never touched, and lists every message that
comes out new or unfinished with its context. A tr() string added without its translation then
fails the tests instead of showing in English in the Chinese studio, or as "run(s)".
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


def check(lupdate, source, name, options):
    """Returns whether every message of translations/NAME is finished after lupdate."""
    committed = source / "translations" / name
    with tempfile.TemporaryDirectory() as scratch:
        updated = pathlib.Path(scratch) / name
        shutil.copyfile(committed, updated)
        folders = [str(source / folder) for folder in ("app", "ui", "common")]
        run = subprocess.run([lupdate, "-silent", "-no-obsolete", "-locations", "none", *options,
                              *folders, "-ts", str(updated)], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"lupdate failed ({run.returncode}):\n{run.stderr}", file=sys.stderr)
            return False
        missing = missing_translations(updated)
    if missing:
        print(f"{len(missing)} message(s) new or unfinished in {committed}:")
        for context, text in missing:
            print(f"  {context}: {text!r}")
        print("Add each to the file (a <message> in its <context>) with its translation.")
        return False
    print(f"{name}: every message is finished")
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    lupdate, source = sys.argv[1], pathlib.Path(sys.argv[2])
    chinese = check(lupdate, source, "tuneframe_zh_CN.ts", [])
    english = check(lupdate, source, "tuneframe_en.ts", ["-pluralonly"])
    return 0 if chinese and english else 1


if __name__ == "__main__":
    sys.exit(main())
