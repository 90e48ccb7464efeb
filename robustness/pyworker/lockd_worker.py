"""lockd_worker: the robustness suite's Python lockd worker.

It does what rbworker --lockd does with plain Locks, through the Python
client (lockstep.lockd, installed from lockd/python): pick a lock id, lock it
through a session on its lockd, read the fenced register with the lock's
fencing token and the unfenced counter, work, write both incremented, unlock
— and records every operation as one JSON line in rbworker's history format
(robustness/history: acquire, write, lost, release; mode "lockd"; times in ns
since the run's shared epoch on the monotonic clock). Given several lockds
(--lockd A,B) its session fails over (the client's several endpoints) and
each move goes to --moves-history as a history.Move (lang "python").

A hold ends, when lost, at the instant the worker saw the client count it
lost: a watcher thread asks session.lost(lock) every few milliseconds (the
client decides a lock's loss when asked), as rbworker's goroutine watches a
Go lock's Lost channel, and notes the lock's own deadline
(session.valid_until) as it goes. When the sighting is at or past that
deadline, the lock's time ran out: the hold ends at the deadline and its
lost record says expired (a worker paused past the deadline sees the loss
late, but its client counted the lock lost from the deadline on). A session that is lost is dropped (it lapses at
lockd) and the next acquisition opens a new one.

--plant skip-adopt is the robustness control's defect, planted in this
worker, not in the client: a move that skips the adoption (SetToken) — as a
buggy client that reopens elsewhere without carrying its peer token would —
so every lock it held is lost at the move, which the lockd-loss checker must
catch.

Standard library and the installed lockstep.lockd only.
"""

import argparse
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from lockstep.lockd import Client, LockdError, Lost
from lockstep.lockd import failover

NEVER = 2**63 - 1  # history.Never: an unknown outcome's return


class Clock:
    """ns since the run's epoch (Unix ns), on the monotonic clock: the wall
    clock is read once, as history.NewClock does."""

    def __init__(self, epoch_unix_ns):
        mono, wall = time.monotonic_ns(), time.time_ns()
        if epoch_unix_ns == 0:
            epoch_unix_ns = wall
        self.origin, self.offset = mono, wall - epoch_unix_ns

    def now(self):
        return self.offset + time.monotonic_ns() - self.origin

    def at(self, mono_seconds):
        """A time.monotonic() reading as ns since the epoch."""
        return self.offset + int(mono_seconds * 1e9) - self.origin


class Lines:
    """A JSON-lines file written one line per write call, from any thread."""

    def __init__(self, path):
        self.f = open(path, "w", buffering=1)
        self.mu = threading.Lock()

    def write(self, rec):
        line = json.dumps(rec, separators=(",", ":")) + "\n"
        with self.mu:
            self.f.write(line)
            self.f.flush()

    def close(self):
        with self.mu:
            os.fsync(self.f.fileno())
            self.f.close()


class Register:
    """The harness register's HTTP client (robustness/register): each
    request bounded by timeout; an error after sending is an unknown
    outcome."""

    def __init__(self, base, process, timeout):
        self.base, self.process, self.timeout = base.rstrip("/"), process, timeout

    def _do(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return json.loads(res.read())
        except urllib.error.HTTPError as err:
            if err.code == 409:  # a rejected fenced write still replies
                return json.loads(err.read())
            raise

    def read_fenced(self, lock, token):
        q = urllib.parse.urlencode({"process": self.process, "token": token})
        r = self._do("GET", f"/fenced/{urllib.parse.quote(lock, safe='')}?{q}")
        return r.get("value", 0)

    def write_fenced(self, lock, token, prev, value):
        r = self._do("POST", f"/fenced/{urllib.parse.quote(lock, safe='')}",
                     {"process": self.process, "token": token, "prev": prev, "value": value})
        return bool(r.get("accepted", False))

    def read_counter(self, lock):
        q = urllib.parse.urlencode({"process": self.process})
        return self._do("GET", f"/counter/{urllib.parse.quote(lock, safe='')}?{q}").get("value", 0)

    def write_counter(self, lock, prev, value):
        self._do("POST", f"/counter/{urllib.parse.quote(lock, safe='')}", {"process": self.process, "prev": prev, "value": value})


class Hold:
    """One held lock: its id, fencing token, lock_id, when Lock returned, and
    (once the watcher saw it) when the client counted it lost."""

    def __init__(self, lock, held, held_at):
        self.lock, self.held, self.token, self.held_at = lock, held, held.token, held_at
        self.lost_at = 0
        self.expired = False
        self.recorded_lost = False
        self.done = threading.Event()


class Worker:
    def __init__(self, a):
        self.a = a
        self.clk = Clock(a.epoch_unix_ns)
        self.hist = Lines(a.history)
        self.moves = Lines(a.moves_history) if a.moves_history else None
        self.reg = Register(a.register, a.process, a.request_timeout)
        self.rng = random.Random(a.seed)
        self.client = Client(a.lockd, token=None)
        self.session = None
        self.stop = threading.Event()
        self.stats = {"acquired": 0, "failed": 0, "lost": 0, "accepted": 0, "rejected": 0, "unknown": 0, "moves": 0}

    # -- records

    def record(self, **r):
        rec = {"process": self.a.process, "scope": "global"}
        rec.update(r)
        self.hist.write(rec)

    def on_move(self, m):
        self.stats["moves"] += 1
        rec = {"process": self.a.process, "lang": "python", "from": m.from_endpoint, "began_ns": self.clk.at(m.began),
               "ended_ns": self.clk.at(m.ended), "kept": m.kept, "lost": m.lost}
        if m.to_endpoint:
            rec["to"] = m.to_endpoint
        if m.error:
            rec["err"] = m.error
        self.moves.write(rec)

    # -- the session

    def live_session(self):
        s = self.session
        if s is not None and not s.lost():
            return s
        # A lost session is dropped: its lockd may be down or cut off, and
        # it lapses there by itself. Why goes to the worker's log.
        if s is not None:
            print(f"lockd_worker {self.a.process}: at {self.clk.now() / 1e9:.3f}s session {s.id} at {s.endpoint} lost: {s.lost_reason()}",
                  file=sys.stderr)
        self.session = None
        on_move = self.on_move if self.moves is not None else None
        self.session = self.client.session(ttl=self.a.lockd_session_ttl, name=self.a.process, on_move=on_move)
        return self.session

    # -- the loop

    def loop(self, until):
        while not self.stop.is_set() and time.monotonic() < until:
            lock = f"{self.a.lock_prefix}{self.rng.randrange(self.a.locks)}"
            self.once(lock)

    def once(self, lock):
        inv = self.clk.now()
        try:
            s = self.live_session()
            held = s.lock(lock, timeout=self.a.lock_timeout)
        except (LockdError, ValueError) as err:
            self.stats["failed"] += 1
            self.record(lock=lock, op="acquire", token=0, invoke_ns=inv, return_ns=self.clk.now(), outcome="fail", err=str(err))
            self.stop.wait(self.rng.random() * 0.1)
            return
        ret = self.clk.now()
        self.stats["acquired"] += 1
        h = Hold(lock, held, ret)
        self.record(lock=lock, op="acquire", token=h.token, mode="lockd", invoke_ns=inv, return_ns=ret, outcome="ok",
                    owner=s.id, lease_deadline_ns=ret)
        watcher = threading.Thread(target=self.watch, args=(s, h), daemon=True)
        watcher.start()
        self.critical(s, h)
        self.release(s, h)
        h.done.set()
        watcher.join()

    def watch(self, s, h):
        """Notes when the client first counts h lost, and whether its own
        time had run out then (the deadline last seen has passed)."""
        until = None
        while not h.done.is_set():
            if s.lost(h.held):
                self.sighted(s, h, until)
                return
            until = s.valid_until(h.held) or until
            h.done.wait(0.005)

    def sighted(self, s, h, until=None):
        """Notes, once, the instant the client counted h lost: now, or its
        deadline if that had passed (its time ran out: expired). until is
        the deadline last seen, for a lock a move has forgotten."""
        if h.lost_at:
            return
        seen = time.monotonic()
        at = self.clk.at(seen)
        until = s.valid_until(h.held) or until
        if until is not None and seen >= until:
            at, h.expired = min(at, self.clk.at(until)), True
        h.lost_at = at

    def lost(self, s, h):
        """Whether h is lost, recording the first sighting."""
        if s.lost(h.held):
            self.sighted(s, h)
            self.record_lost(h, self.clk.now())
            return True
        return False

    def record_lost(self, h, seen, in_unlock=False):
        """Records h's lost op once. in_unlock: the loss surfaced in an
        Unlock invoked at seen while the lock was not lost (rbworker's
        history.Record.InUnlock); the record then carries known_ns, when
        the loss was first sighted, the evidence the checker compares with
        the Unlock's invocation."""
        if h.recorded_lost:
            return
        h.recorded_lost = True
        self.stats["lost"] += 1
        d = h.lost_at
        if d == 0:
            # The watcher polls: a sighting here may come first by a few ms.
            deadline = time.monotonic() + 0.1
            while h.lost_at == 0 and time.monotonic() < deadline:
                time.sleep(0.002)
            d = h.lost_at or seen
        rec = dict(lock=h.lock, op="lost", token=h.token, mode="lockd", invoke_ns=min(d, seen), return_ns=seen, outcome="ok",
                   lease_deadline_ns=d)
        if h.expired and h.lost_at:
            rec["expired"] = True
        if in_unlock and h.lost_at:
            rec.update(in_unlock=True, known_ns=h.lost_at)
        self.record(**rec)

    def critical(self, s, h):
        if self.lost(s, h):
            return
        try:
            v = self.reg.read_fenced(h.lock, h.token)
            c = self.reg.read_counter(h.lock)
        except Exception:
            return
        if self.lost(s, h):
            return
        work = self.a.min_hold + self.rng.random() * (self.a.hold - self.a.min_hold)
        time.sleep(work)  # the work runs to its end, as rbworker's does
        self.write(h, "fenced", v, lambda: self.reg.write_fenced(h.lock, h.token, v, v + 1))
        self.write(h, "counter", c, lambda: (self.reg.write_counter(h.lock, c, c + 1), True)[1])
        self.lost(s, h)

    def write(self, h, register, read, do):
        inv = self.clk.now()
        rec = dict(lock=h.lock, op="write", token=h.token, mode="lockd", invoke_ns=inv, outcome="ok", register=register,
                   read=read, value=read + 1)
        try:
            ok = do()
            rec["return_ns"] = self.clk.now()
            if not ok:
                rec["outcome"] = "fail"
                self.stats["rejected"] += 1
            elif register == "fenced":
                self.stats["accepted"] += 1
        except Exception as err:
            rec.update(outcome="unknown", return_ns=NEVER, err=str(err))
            self.stats["unknown"] += 1
        self.record(**rec)

    def release(self, s, h):
        inv = self.clk.now()
        rec = dict(lock=h.lock, op="release", token=h.token, mode="lockd", invoke_ns=inv, outcome="ok")
        was_open = not s.lost(h.held)  # a loss Unlock reports afterwards surfaced in it
        err = None
        for _ in range(2):
            try:
                s.unlock(h.held)
                err = None
                break
            except Lost as e:
                self.sighted(s, h)
                self.record_lost(h, inv, was_open)
                err = None
                break
            except LockdError as e:
                err = e
                if s.lost():
                    self.sighted(s, h)
                    self.record_lost(h, inv, was_open)
                    err = None
                    break
        rec["return_ns"] = self.clk.now()
        if err is not None:
            rec.update(outcome="unknown", return_ns=NEVER, err=str(err))
        self.record(**rec)

    def close(self):
        s = self.session
        if s is not None and not s.lost():
            t = threading.Thread(target=self._close_session, args=(s,), daemon=True)
            t.start()
            t.join(4 * self.a.request_timeout)
        self.client.close()
        self.hist.close()
        if self.moves is not None:
            self.moves.close()

    @staticmethod
    def _close_session(s):
        try:
            s.close()
        except LockdError:
            pass


def skip_adopt():
    """The planted defect: a move that opens the session elsewhere without
    adopting its peer token, so it carries no lock."""
    move_to = failover._move_to

    def without_token(s, endpoint, peer, deadline):
        return move_to(s, endpoint, None, deadline)

    failover._move_to = without_token


def parse(argv):
    p = argparse.ArgumentParser(prog="lockd_worker", description=__doc__.split("\n\n")[0])
    p.add_argument("--process", required=True)
    p.add_argument("--lockd", required=True, help="host:port of its lockd, then those it fails over to, comma-separated")
    p.add_argument("--lockd-session-ttl", type=float, default=2.0, help="session TTL, seconds")
    p.add_argument("--register", required=True)
    p.add_argument("--history", required=True)
    p.add_argument("--moves-history", default="")
    p.add_argument("--locks", type=int, default=8)
    p.add_argument("--lock-prefix", default="lock-", help="lock ids are <prefix>0 .. <prefix>N-1")
    p.add_argument("--duration", type=float, default=60.0, help="seconds")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hold", type=float, default=1.0)
    p.add_argument("--min-hold", type=float, default=0.0)
    p.add_argument("--lock-timeout", type=float, default=16.0)
    p.add_argument("--request-timeout", type=float, default=2.0)
    p.add_argument("--epoch-unix-ns", type=int, default=0)
    p.add_argument("--plant", default="", choices=["", "skip-adopt"])
    a = p.parse_args(argv)
    a.lockd = [e.strip() for e in a.lockd.split(",") if e.strip()]
    if len(a.lockd) > 1 and not a.moves_history:
        p.error("several --lockd endpoints fail over: add --moves-history, the file the moves are recorded to")
    if len(a.lockd) < 2 and a.moves_history:
        p.error("--moves-history records fail-overs: give --lockd several endpoints, or drop it")
    if a.plant == "skip-adopt" and len(a.lockd) < 2:
        p.error("--plant skip-adopt is a fail-over defect: give --lockd several endpoints")
    if not 0 <= a.min_hold <= a.hold or a.locks < 1 or a.duration <= 0:
        p.error("want 0 <= --min-hold <= --hold, --locks >= 1 and a positive --duration")
    return a


def main(argv):
    a = parse(argv)
    if a.plant == "skip-adopt":
        skip_adopt()
    w = Worker(a)
    signal.signal(signal.SIGTERM, lambda *_: w.stop.set())
    signal.signal(signal.SIGINT, lambda *_: w.stop.set())
    try:
        w.loop(time.monotonic() + a.duration)
    finally:
        w.close()
    st = w.stats
    print(f"lockd_worker {a.process}: {st['acquired']} acquired, {st['failed']} failed acquisitions, {st['lost']} lost, "
          f"fenced writes {st['accepted']} accepted {st['rejected']} rejected {st['unknown']} unknown, {st['moves']} moves",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
