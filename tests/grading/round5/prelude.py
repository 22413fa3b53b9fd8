# ruff: noqa: E501
"""Code shared by the round-5 attack notebooks (pasted into their first cell as text)."""

PRELUDE = r'''
import json, os, sys, time, ctypes, signal, resource, struct, socket, select, threading
libc = ctypes.CDLL(None, use_errno=True)

def meminfo():
    d = {}
    for line in open('/proc/meminfo'):
        k, v = line.split(':')
        d[k] = int(v.split()[0]) // 1024
    return {k: d.get(k, 0) for k in ('MemAvailable', 'Shmem', 'PageTables', 'Slab', 'SUnreclaim', 'KernelStack')}

def delta(a, b):
    return {k: b[k] - a[k] for k in a}

CHUNKS = []

def report(**d):
    """The attack's observations, into its feedback (errors the notebook raised; the feedback keeps
    about 300 characters of each): the first chunk now, the others from the `more()` cells."""
    d.pop('attack', None)
    text = json.dumps(d, default=str, separators=(',', ':'))
    parts = [text[i:i + 280] for i in range(0, len(text), 280)]
    CHUNKS.extend(parts[1:])
    raise Exception('R5 ' + parts[0])

def more():
    if CHUNKS:
        raise Exception('R5+ ' + CHUNKS.pop(0))

def hold(seconds):
    t = time.time()
    while time.time() - t < seconds:
        time.sleep(0.5)
'''

WRONG_RELU = "def relu(x):\n    return x.abs()\n"
