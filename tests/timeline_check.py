#!/usr/bin/env python3
"""timeline_check.py: what tests/timeline.sh reads out of hloproof timeline's
output, printed as one line per panel so that the test compares exact text.

  timeline_check.py dom FILE.html     (a page, or Chromium's --dump-dom of it)
      panel N COMPUTATION lanes=L rest=R bars=B copies=C hazards=H reuse=U
          while=W peak=BYTES@POS
      plus one "elements img=I script=S b=B" line: elements a hostile name
      could have smuggled in
  timeline_check.py trace FILE.json   (Trace Event JSON)
      process PID NAME slices=S counters=C copies=K hazards=H
      after checking the structure: every event has ph, pid; X events have
      ts >= 0, dur > 0 and nest on their track; C events carry args.bytes.
      Exits 1 with the reason when the structure is wrong.
  timeline_check.py field FILE.json NAME KEY: the args[KEY] of the first
      slice named NAME (exact text, for the escaping test)
  timeline_check.py many FILE...: each .json checked as by `trace`, each
      .html must have a peak label in its first panel; prints "FILE: why"
      for each that fails and exits 1 when one did (one process for a corpus)
"""
import html.parser
import json
import sys


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.panels = []
        self.stack = []  # (tag, panel index or None)
        self.counts = {"img": 0, "script": 0, "b": 0}

    VOID = ("meta", "br", "img", "input", "link", "hr")

    def handle_startendtag(self, tag, attrs):
        self.element(tag, attrs, False)

    def handle_starttag(self, tag, attrs):
        self.element(tag, attrs, tag not in self.VOID)

    def element(self, tag, attrs, opens):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag in self.counts:
            self.counts[tag] += 1
        cur = self.panels[-1] if self.panels and self.open_panel() else None
        if tag == "g" and "panel" in cls:
            self.panels.append({"name": a.get("data-computation"), "lanes": 0, "rest": 0,
                                "bars": 0, "copy": 0, "hazard": 0, "reuse": 0, "while": 0,
                                "peak": None})
            if opens:
                self.stack.append((tag, True))
            return
        if cur is not None:
            if tag == "g" and "lane" in cls:
                cur["lanes"] += 1
                cur["rest"] += "rest" in cls
            elif "bar" in cls:
                cur["bars"] += int(a.get("data-n", "1"))
            elif tag == "g" and "mark" in cls:
                for k in ("copy", "hazard", "reuse", "while"):
                    if k in cls:
                        cur[k] += int(a.get("data-n", "1"))
            elif "peak-label" in cls:
                cur["peak"] = "%s@%s" % (a.get("data-peak"), a.get("data-pos"))
        if opens:
            self.stack.append((tag, False))

    def open_panel(self):
        return any(p for _, p in self.stack)

    def handle_endtag(self, tag):
        if any(t == tag for t, _ in self.stack):
            while self.stack:
                t, _ = self.stack.pop()
                if t == tag:
                    break


def dom(path):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    for i, p in enumerate(d.panels):
        print("panel %d %s lanes=%d rest=%d bars=%d copies=%d hazards=%d reuse=%d while=%d peak=%s"
              % (i, p["name"], p["lanes"], p["rest"], p["bars"], p["copy"], p["hazard"],
                 p["reuse"], p["while"], p["peak"]))
    print("elements img=%d script=%d b=%d" % (d.counts["img"], d.counts["script"], d.counts["b"]))


class Bad(Exception):
    pass


def fail(msg):
    raise Bad(msg)


def trace(path, quiet=False):
    t = json.load(open(path, encoding="utf-8"))
    ev = t.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        fail("no traceEvents list")
    procs, tracks = {}, {}
    for e in ev:
        if "ph" not in e or "pid" not in e:
            fail("event without ph or pid: %r" % e)
        p = procs.setdefault(e["pid"], {"name": None, "X": 0, "C": 0, "copy": 0, "hazard": 0})
        ph = e["ph"]
        if ph == "M":
            if e["name"] == "process_name":
                p["name"] = e["args"]["name"]
        elif ph == "X":
            if e["ts"] < 0 or e["dur"] <= 0 or "tid" not in e:
                fail("bad slice %r" % e)
            for k in ("instruction", "bytes", "source"):
                if k not in e["args"]:
                    fail("slice without args.%s" % k)
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
            p["X"] += 1
        elif ph == "C":
            if not isinstance(e["args"].get("bytes"), int):
                fail("counter without bytes")
            p["C"] += 1
        elif ph == "i":
            if e.get("cat") in ("copy", "hazard"):
                p[e["cat"]] += 1
        else:
            fail("unexpected phase %r" % ph)
    # slices of one track nest (here: never overlap at all)
    for key, sl in tracks.items():
        sl.sort()
        for (a0, a1), (b0, b1) in zip(sl, sl[1:]):
            if b0 < a1:
                fail("slices overlap on track %r: [%s,%s) [%s,%s)" % (key, a0, a1, b0, b1))
    for pid in sorted(procs) if not quiet else []:
        p = procs[pid]
        print("process %d %s slices=%d counters=%d copies=%d hazards=%d"
              % (pid, p["name"], p["X"], p["C"], p["copy"], p["hazard"]))


def field(path, name, key):
    for e in json.load(open(path, encoding="utf-8"))["traceEvents"]:
        if e.get("ph") == "X" and e.get("name") == name:
            sys.stdout.write(e["args"].get(key, "") + "\n")
            return
    fail("no slice %s" % name)


def many(paths):
    failed = 0
    for path in paths:
        try:
            if path.endswith(".json"):
                trace(path, quiet=True)
            else:
                d = Dom()
                d.feed(open(path, encoding="utf-8").read())
                if not d.panels or not d.panels[0]["peak"]:
                    fail("no panel with a peak label")
        except (Bad, ValueError, KeyError, TypeError) as e:
            print("%s: %s" % (path, e))
            failed = 1
    sys.exit(failed)


try:
    if sys.argv[1] == "dom":
        dom(sys.argv[2])
    elif sys.argv[1] == "trace":
        trace(sys.argv[2])
    elif sys.argv[1] == "many":
        many(sys.argv[2:])
    else:
        field(sys.argv[2], sys.argv[3], sys.argv[4])
except Bad as e:
    print("trace: %s" % e)
    sys.exit(1)
