#!/usr/bin/env python3
"""A loopback server that accepts and then never finishes answering.

usage: stall.py MODE     (prints the port once listening)
  silent        accept, read, send nothing
  http-headers  send an HTTP 200 status line and headers, then nothing
  git-banner    send the first pkt-line of a git:// ref advertisement, then nothing
  ssh-banner    send an ssh version banner, then nothing
  http-401      answer every request 401 (for credential helpers)
  git-refs      git://: an endless ref advertisement, as fast as it goes
  http-refs     http: an endless ref advertisement (chunked), as fast as it goes
"""
import socket
import sys
import threading
import time

MODE = sys.argv[1]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []


def serve(c):
    held.append(c)
    try:
        c.settimeout(None)
        if MODE == "http-401":
            while True:
                data = b""
                while b"\r\n\r\n" not in data:
                    d = c.recv(4096)
                    if not d:
                        return
                    data += d
                c.sendall(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"lab\"\r\nContent-Length: 0\r\n\r\n")
        if MODE in ("git-refs", "http-refs"):
            c.recv(4096)
            sha = b"1" * 40
            def pkt(b):
                return b"%04x" % (len(b) + 4) + b
            chunked = MODE == "http-refs"
            if chunked:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nTransfer-Encoding: chunked\r\n\r\n")
            def send(b):
                if chunked:
                    b = b"%x\r\n" % len(b) + b + b"\r\n"
                c.sendall(b)
            if chunked:
                send(pkt(b"# service=git-upload-pack\n") + b"0000")
            send(pkt(sha + b" HEAD\0multi_ack ofs-delta side-band-64k symref=HEAD:refs/heads/main\n"))
            i = 0
            while True:
                buf = b"".join(pkt(sha + b" refs/heads/b%012d\n" % (i + j)) for j in range(2000))
                i += 2000
                send(buf)
        if MODE == "http-headers":
            c.recv(4096)
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nContent-Length: 100000\r\n\r\n001e# service=git-upload-pack\n")
        elif MODE == "git-banner":
            c.recv(4096)
            c.sendall(b"003f")
        elif MODE == "ssh-banner":
            c.sendall(b"SSH-2.0-OpenSSH_9.0\r\n")
        while True:
            if not c.recv(4096):
                time.sleep(3600)
    except OSError:
        pass


while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
