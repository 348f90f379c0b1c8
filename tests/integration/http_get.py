#!/usr/bin/env python3
"""One HTTP request to 127.0.0.1, its reply taken apart, for the tests of
ibfmd's streamed /metrics (metrics_stream.sh).

http_get.py PORT PATH OUT [--http10] [--head] [--close-after N]
            [--pause N MARK GO]

The reply's head goes to OUT.head, its body to OUT (chunks joined when
it came chunked); stdout says "chunks N" (0: not chunked). Exit 1 when
a chunked body is not whole (no last chunk) or not chunks at all.
--close-after N: close after N bytes of body came, and exit 0.
--pause N MARK GO: a slow client: a 4 KB receive buffer, and once N
bytes came, the count in MARK, then nothing read until the file GO is
there (at most 60 s).
"""
import os
import socket
import sys
import time


def main():
    port, path, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    args = sys.argv[4:]
    http10 = '--http10' in args
    method = 'HEAD' if '--head' in args else 'GET'
    close_after = pause = None
    if '--close-after' in args:
        close_after = int(args[args.index('--close-after') + 1])
    if '--pause' in args:
        i = args.index('--pause')
        pause = (int(args[i + 1]), args[i + 2], args[i + 3])
    s = socket.socket()
    if pause:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(60)
    s.connect(('127.0.0.1', port))
    s.sendall(('%s %s HTTP/1.%d\r\nHost: 127.0.0.1\r\n\r\n' %
               (method, path, 0 if http10 else 1)).encode())
    data = bytearray()
    paused = False
    while True:
        if pause and not paused and len(data) >= pause[0]:
            with open(pause[1], 'w') as f:
                f.write('%d\n' % len(data))
            for _ in range(600):
                if os.path.exists(pause[2]):
                    break
                time.sleep(0.1)
            paused = True
        if close_after is not None and len(data) >= close_after:
            s.close()
            return 0
        b = s.recv(65536 if not pause or paused else 1024)
        if not b:
            break
        data += b
    s.close()
    head, _, body = bytes(data).partition(b'\r\n\r\n')
    with open(out + '.head', 'wb') as f:
        f.write(head + b'\r\n')
    chunked = b'transfer-encoding: chunked' in head.lower()
    chunks = 0
    if chunked:
        joined = bytearray()
        at = 0
        while True:
            eol = body.find(b'\r\n', at)
            if eol < 0:
                print('not whole: a chunk size line cut')
                return 1
            size = int(body[at:eol], 16)
            at = eol + 2
            if size == 0:
                if body[at:] != b'\r\n':
                    print('not whole: no empty line after the last chunk')
                    return 1
                break
            if len(body) < at + size + 2 or body[at + size:at + size + 2] != b'\r\n':
                print('not whole: a chunk cut')
                return 1
            joined += body[at:at + size]
            at += size + 2
            chunks += 1
        body = bytes(joined)
    with open(out, 'wb') as f:
        f.write(body)
    print('chunks %d' % chunks)
    return 0


sys.exit(main())
