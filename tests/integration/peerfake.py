#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile peers, for tests/integration/ha/peers_hostile.sh (no key needed).

  peerfake.py trickle PORT SECONDS  listen on 127.0.0.1:PORT; to each
                                    connection send a greeting a byte every
                                    1.5 s, for SECONDS in all
  peerfake.py idle PORT N SECONDS   hold N idle connections to PORT, opening
                                    again those the peer closes (every 0.5 s)
  peerfake.py big PORT N MB         N connections at once, each sending a
                                    PREPARE head and a body of MB megabytes

The holding commands print "ready N" once they hold.
"""
import socket
import sys
import threading
import time

from flood import hold, send_all, tcp


def trickle(port, seconds):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)
    print("ready 1", flush=True)
    end = time.time() + seconds

    def drip(c):
        for b in b"IBFMPEER1 " + b"0" * 32 + b"\n":
            if time.time() > end or not send_all(c, bytes([b])):
                break
            time.sleep(1.5)
        c.close()

    srv.settimeout(0.5)
    while time.time() < end:
        try:
            c, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=drip, args=(c,), daemon=True).start()


def closed(s):
    """Whether the peer hung up 's' (non-blocking peek)."""
    try:
        s.setblocking(False)
        return s.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def idle(port, n, seconds):
    socks = [tcp(port) for _ in range(n)]
    print("ready", len(socks), flush=True)
    end = time.time() + seconds
    while time.time() < end:
        for i, s in enumerate(socks):
            if closed(s):
                s.close()
                try:
                    socks[i] = tcp(port)
                except OSError:
                    pass
        time.sleep(0.5)


def big(port, n, mb):
    head = b"PREPARE drain.list 1 %d %s\n" % (mb << 20, b"0" * 64)
    chunk = b"b" * (1 << 20)

    def one():
        try:
            s = tcp(port)
        except OSError:
            return
        if send_all(s, head):
            for _ in range(mb):
                if not send_all(s, chunk):
                    break
        s.close()

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("sent", n, flush=True)


def main(argv):
    cmd, port = argv[1], int(argv[2])
    if cmd == "trickle":
        trickle(port, float(argv[3]))
    elif cmd == "idle":
        idle(port, int(argv[3]), float(argv[4]))
    elif cmd == "big":
        big(port, int(argv[3]), int(argv[4]))
    else:
        sys.exit("usage: see the top of " + argv[0])


if __name__ == "__main__":
    main(sys.argv)
