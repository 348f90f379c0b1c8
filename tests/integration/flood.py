#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Clients that misbehave, for tests/integration/ibfmd/listeners.sh.

  flood.py http PORT TEXT             send TEXT (Python escapes) to
                                      127.0.0.1:PORT, print the status line
  flood.py slow PORT SECONDS          send a request head a byte a second;
                                      print how long until ibfmd hung up
  flood.py big PORT head|body MB      send a head or a body of MB megabytes;
                                      print the status line (or "closed") and
                                      the seconds it took
  flood.py tcp PORT N SECONDS         hold N idle TCP connections
  flood.py unix PATH N SECONDS        hold N idle connections to a socket
  flood.py unread PATH N K CMD SECONDS
                                      N clients each send K requests CMD
                                      (what ibfmd takes within 3 s) and read
                                      nothing, for SECONDS
  flood.py partial PATH N BYTES SECONDS
                                      N clients each send BYTES of a line
                                      with no newline (what ibfmd takes
                                      within 3 s), for SECONDS

The holding commands print "ready N" (connections made) once they hold.
"""
import select
import socket
import sys
import time


def tcp(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    return s


def status_line(s):
    """The reply's first line, or "closed" when none came."""
    data = b""
    try:
        while b"\n" not in data:
            got = s.recv(4096)
            if not got:
                break
            data += got
    except OSError:
        pass
    line = data.split(b"\r\n")[0].decode("latin-1")
    return line or "closed"


def send_all(s, data):
    """Sends what the peer takes; False when it hung up first."""
    try:
        s.sendall(data)
        return True
    except OSError:
        return False


def hold(socks, seconds):
    print("ready", len(socks), flush=True)
    time.sleep(seconds)


def main(argv):
    cmd = argv[1]
    if cmd == "http":
        s = tcp(int(argv[2]))
        send_all(s, argv[3].encode().decode("unicode_escape").encode("latin-1"))
        print(status_line(s))
    elif cmd == "slow":
        s = tcp(int(argv[2]))
        limit = float(argv[3])
        t = time.time()
        head = b"GET /metrics HTTP/1.1\r\n" + b"X-Slow: " + b"a" * 1000
        for i, b in enumerate(head):
            if time.time() - t > limit or not send_all(s, bytes([b])):
                break
            if i == 0:
                print("ready 1", flush=True)
            # A second, unless ibfmd says something (or hangs up) first.
            if select.select([s], [], [], 1.0)[0]:
                break
        s.settimeout(max(0.5, limit - (time.time() - t)))
        try:
            while s.recv(4096):
                pass
        except socket.timeout:
            print("still open after %.0f s" % (time.time() - t))
            return
        except OSError:
            pass
        print("closed after %.0f s" % (time.time() - t))
    elif cmd == "big":
        s = tcp(int(argv[2]))
        mb = int(argv[4])
        t = time.time()
        if argv[3] == "head":
            send_all(s, b"GET /metrics HTTP/1.1\r\nX-Big: ")
            chunk = b"a" * (1 << 20)
        else:
            send_all(s, b"POST /metrics HTTP/1.1\r\nContent-Length: %d\r\n\r\n"
                     % (mb << 20))
            chunk = b"b" * (1 << 20)
        for _ in range(mb):
            if not send_all(s, chunk):
                break
        print("%s in %.1f s" % (status_line(s), time.time() - t))
    elif cmd == "tcp":
        socks = []
        for _ in range(int(argv[3])):
            try:
                socks.append(tcp(int(argv[2])))
            except OSError:
                break
        hold(socks, float(argv[4]))
    elif cmd == "unix":
        socks = []
        for _ in range(int(argv[3])):
            s = socket.socket(socket.AF_UNIX)
            s.connect(argv[2])
            socks.append(s)
        hold(socks, float(argv[4]))
    elif cmd in ("unread", "partial"):
        n = int(argv[3])
        if cmd == "partial":
            req = b'{"cmd":"status","x":"' + b"x" * int(argv[4])
        else:
            req = ('{"cmd":"%s"}\n' % argv[5]).encode() * int(argv[4])
        socks = []
        for _ in range(n):
            s = socket.socket(socket.AF_UNIX)
            s.connect(argv[2])
            s.setblocking(False)
            socks.append([s, memoryview(req)])
        # Sends what ibfmd takes, reading nothing, for up to 3 s.
        t = time.time()
        while time.time() - t < 3 and any(len(e[1]) for e in socks):
            sent = False
            for e in socks:
                if len(e[1]):
                    try:
                        w = e[0].send(e[1])
                        e[1] = e[1][w:]
                        sent = True
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:  # refused (too many clients): done
                        e[1] = e[1][len(e[1]):]
            if not sent:
                time.sleep(0.01)
        hold([e[0] for e in socks], float(argv[-1]))
    else:
        sys.exit("flood.py: unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
