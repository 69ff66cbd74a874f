#!/usr/bin/env python3
"""A loopback git smart-HTTP server over `git http-backend`.

usage: httpgit.py ROOT [USER:PASS]
Serves the bare repositories under ROOT at http://127.0.0.1:PORT/NAME.git;
prints PORT on stdout once listening, and logs every request line (the
path and query as received) on stderr. With USER:PASS every request
without that Basic credential gets 401.
"""
import base64
import http.server
import os
import socketserver
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1])
AUTH = sys.argv[2] if len(sys.argv) > 2 else ""
BACKEND = os.path.join(subprocess.check_output(["git", "--exec-path"], text=True).strip(), "git-http-backend")


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s auth=%s\n" % (self.command, self.path, self.headers.get("Authorization", "")))
        sys.stderr.flush()

    def run(self):
        if AUTH:
            want = "Basic " + base64.b64encode(AUTH.encode()).decode()
            if self.headers.get("Authorization", "") != want:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="lab"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        path, _, query = self.path.partition("?")
        env = dict(os.environ)
        env.update({
            "GIT_PROJECT_ROOT": ROOT, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
            "QUERY_STRING": query, "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "REMOTE_USER": "lab", "REMOTE_ADDR": "127.0.0.1",
            "GIT_CONFIG_NOSYSTEM": "1",
        })
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers.get("Content-Encoding")
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers.get("Git-Protocol")
        body = b""
        n = int(self.headers.get("Content-Length", "0") or 0)
        if n:
            body = self.rfile.read(n)
        elif self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        env["CONTENT_LENGTH"] = str(len(body))
        p = subprocess.run([BACKEND], input=body, env=env, capture_output=True)
        head, _, rest = p.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.split(b"\r\n"):
            if not line:
                continue
            k, _, v = line.decode().partition(":")
            if k.lower() == "status":
                status = int(v.strip().split()[0])
            else:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    do_GET = run
    do_POST = run


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = S(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
