"""counter.py ADDR ID FILE EVENTS K NAME: the Python worker of seed 003's
counter scenario (lockd/examples/counter's doc), with lockd/python's client
installed in the venv whose python runs it.
ADDR is host:port (gRPC)."""

import sys
import time

from lockstep.lockd import Client  # the package as installed: lockd/scripts/phpunit


def event(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def main():
    addr, lock_id, path, events, k, name = sys.argv[1:7]
    client = Client(addr)
    with client.session(ttl=10, name=name) as session:
        for _ in range(int(k)):
            lock = session.lock(lock_id, timeout=60)
            event(events, "enter " + name)
            try:
                with open(path) as f:
                    n = int(f.read().strip() or 0)
            except FileNotFoundError:
                n = 0
            time.sleep(0.001)  # widen the window a lost update needs
            with open(path, "w") as f:
                f.write(str(n + 1))
            event(events, "leave " + name)
            if session.lost(lock):
                raise SystemExit("lock lost during an increment")
            session.unlock(lock)
    client.close()


if __name__ == "__main__":
    main()
