#!/usr/bin/env python3
"""A target that saves its own JSON config once it is ready, as ModernUO does at start-up:
it loads the config, adds a setting it misses with its default, prints its ready line,
then saves the config in place (truncate, then write: json.dump into open(path, "w")),
and idles.

rewriter.py CONFIG [GATES]

With GATES (a directory), each step of the save waits for a file the test creates there,
and marks the step done with a file of its own:
  waits for go-truncate, truncates the config, marks truncated;
  waits for go-half, writes the first half of the document (flushed), marks half;
  waits for go-rest, writes the rest, marks written.
Without GATES it saves again and again (every 50 ms, each save paused 5 ms half-way),
so that a loopbench killed at a random moment may leave any state of a save behind.
"""
import json
import os
import sys
import time


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.005)


def mark(path):
    open(path, "w").close()


def save(text, before, after_truncate, after_half, after_rest):
    half = len(text) // 2
    before()
    with open(CONFIG, "w") as f:
        after_truncate()
        f.write(text[:half])
        f.flush()
        after_half()
        f.write(text[half:])
    after_rest()


CONFIG = sys.argv[1]
gates = sys.argv[2] if len(sys.argv) > 2 else None
with open(CONFIG) as f:
    doc = json.load(f)
doc.setdefault("savedBy", {"name": "rewriter", "version": 1})
text = json.dumps(doc, indent=4) + "\n"
print("ready: loaded " + CONFIG, flush=True)

if gates:
    save(text,
         lambda: wait_for(os.path.join(gates, "go-truncate")),
         lambda: (mark(os.path.join(gates, "truncated")),
                  wait_for(os.path.join(gates, "go-half"))),
         lambda: (mark(os.path.join(gates, "half")),
                  wait_for(os.path.join(gates, "go-rest"))),
         lambda: mark(os.path.join(gates, "written")))
    while True:
        time.sleep(1)
else:
    nothing = lambda: None
    while True:
        save(text, nothing, nothing, lambda: time.sleep(0.005), nothing)
        time.sleep(0.05)
