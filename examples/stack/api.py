"""An HTTP API stand-in: listens on $PORT (default 8765) and answers /health with 200.

Ready on its port (`ready = { port = 8765 }`) or on its URL
(`ready = { http = "http://127.0.0.1:8765/health" }`).
"""

import http.server
import os
import signal
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"ok\n" if self.path == "/health" else b"hello from the api\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        print("api:", format % args, flush=True)


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    port = int(os.environ.get("PORT", "8765"))
    server = http.server.HTTPServer(("127.0.0.1", port), Handler)
    print(f"api: listening on http://127.0.0.1:{port}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
