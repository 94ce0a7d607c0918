#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The public web hosts of the install recipes, served on the loopback over HTTPS for the docs
tests (scripts/test-docs.sh): one server, told apart by the Host header, with a certificate the
test's own CA signed for every name.

  breeze-agent.github.io   GitHub Pages: /breeze-agent/<path> from the published site folder
  github.com               a GitHub release's downloads: /<owner>/<repo>/releases/download/v<V>/<file>
                           from <releases>/<V>/<file>, and .../releases/latest/download/<file>
                           answered, as GitHub does, with a redirect to the newest version's
                           (the newest folder under <releases>, by version order)

Every request is logged (host, path, status) to --log, one line each, for the test's checks.
"""

import argparse
import http.server
import os
import re
import ssl
import urllib.parse


def version_key(text):
    return [int(p) if p.isdigit() else p for p in re.split(r"[.+~-]", text)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bind", required=True)
    ap.add_argument("--port", type=int, default=443)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--site", required=True, help="the Pages site folder (PUBLISH_TARGET)")
    ap.add_argument("--releases", required=True, help="a folder of <version>/ release folders")
    ap.add_argument("--project", default="breeze-agent/breeze-agent")
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    owner = args.project.split("/")[0]

    def send_file(handler, path):
        if not os.path.isfile(path):
            return handler.reply(404, b"not found\n")
        with open(path, "rb") as f:
            body = f.read()
        handler.reply(200, body, "application/octet-stream")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def reply(self, status, body, kind="text/plain", headers=()):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            with open(args.log, "a") as log:
                log.write(f"{self.headers.get('Host', '-')} {self.command} {self.path} {status}\n")

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            host = (self.headers.get("Host") or "").split(":")[0]
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            if ".." in path.split("/"):
                return self.reply(400, b"bad path\n")
            if host == f"{owner}.github.io":
                prefix = "/" + args.project.split("/")[1] + "/"
                if not path.startswith(prefix):
                    return self.reply(404, b"not found\n")
                return send_file(self, os.path.join(args.site, path[len(prefix):]))
            if host == "github.com":
                base = f"/{args.project}/releases/"
                if not path.startswith(base):
                    return self.reply(404, b"not found\n")
                rest = path[len(base):].split("/")
                if rest[:2] == ["latest", "download"] and len(rest) == 3:
                    versions = sorted(os.listdir(args.releases), key=version_key)
                    if not versions:
                        return self.reply(404, b"no release\n")
                    where = f"{base}download/v{versions[-1]}/{rest[2]}"
                    return self.reply(302, b"", headers=[("Location", where)])
                if rest[0] == "download" and len(rest) == 3 and rest[1].startswith("v"):
                    return send_file(self, os.path.join(args.releases, rest[1][1:], rest[2]))
                return self.reply(404, b"not found\n")
            return self.reply(421, b"misdirected\n")

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer((args.bind, args.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
