"""The channels between the grader and its workers and zygotes: JSON on a ``multiprocessing``
connection.

Nothing that arrives is unpickled: a worker runs beside the learner's code, so what it sends
back is read as plain data only (``Graded.to_plain`` / ``from_plain`` in records.py).
"""

from __future__ import annotations

import json


def send_plain(conn, obj) -> None:
    """Send JSON-able ``obj`` on a ``multiprocessing`` connection (never pickled)."""
    conn.send_bytes(json.dumps(obj).encode())


def recv_plain(conn, maxlength: int = 64 * 2**20):
    """The JSON value sent by :func:`send_plain`: plain data, nothing runs while it is read."""
    return json.loads(conn.recv_bytes(maxlength).decode())
