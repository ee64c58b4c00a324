#!/usr/bin/env python3
"""Checks on the "source" objects of `check --format=json` (tests/cli.sh).

  json_source.py at FILE.json NAME FILE LINE COL FUNCTION
      the copy NAME and every finding at instruction NAME have that place,
      and some finding has it; prints "ok" or what differs.
  json_source.py first FILE.json NAME FILE LINE COL FUNCTION
      the copy NAME's place is that (with --frames=all: the innermost frame).
  json_source.py null FILE.json
      every copy, donation and finding has "source": null; prints the count.
"""
import json
import sys


def place(s):
    return None if s is None else (s.get("file"), s.get("line"), s.get("column"), s.get("function"))


def main(argv):
    mode, path = argv[1], argv[2]
    d = json.load(open(path))
    mods = d.get("modules", [])
    if mode == "null":
        items = [x for m in mods for k in ("copies", "donations", "findings") for x in m.get(k, [])]
        bad = [x for x in items if x.get("source", "absent") is not None]
        print("%d %d" % (len(items), len(bad)))
        return 0
    name, want = argv[3], (argv[4], int(argv[5]), int(argv[6]), argv[7])
    copies = [c for m in mods for c in m.get("copies", []) if c["name"] == name]
    if not copies:
        print("no copy %s" % name)
        return 1
    if place(copies[0].get("source")) != want:
        print("copy %s: %s" % (name, place(copies[0].get("source"))))
        return 1
    if mode == "at":
        # the findings at the copy have its place; a finding elsewhere may
        # carry it too (a donation's, on the header entry, placed at the
        # write), and at least one finding says it
        fs = [f for m in mods for f in m.get("findings", [])]
        at = [f for f in fs if f.get("instruction") == name]
        wrong = [f for f in at if place(f.get("source")) != want]
        said = [f for f in fs if place(f.get("source")) == want]
        if not said or wrong:
            print("%d of %d findings at %s have another place, %d have it" % (len(wrong), len(at), name, len(said)))
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
