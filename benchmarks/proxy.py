"""docs/deploy/nginx.conf run for real: nginx of its own in a temporary prefix, on unprivileged ports.

Used by the integration tests (``tests/integration/test_proxy.py``, ``test_downloads.py``,
``test_heavy_pool.py``) and by ``manage.py benchmark --only after-result``: they run the documented file
with only its addresses and certificate paths replaced, so what they measure is what a deployment runs.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from django.conf import settings

from benchmarks.stack import free_port, port_open

EXAMPLE = Path(settings.BASE_DIR) / "docs" / "deploy" / "nginx.conf"
#: The example's server name, kept: requests through nginx send it as Host.
HOST = "ranks.example.org"
#: The upstreams' addresses in the example: the web pool's and the heavy reads' (docs/operations.md).
WEB_UPSTREAM = "server 127.0.0.1:8000;"
HEAVY_UPSTREAM = "server 127.0.0.1:8001;"


def nginx_binary() -> str | None:
    """nginx's binary: on the PATH, or Debian's /usr/sbin/nginx, which a plain user's PATH leaves out."""
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def site_config(
    *, gunicorn_port: int, https_port: int, http_port: int, cert: Path, key: Path, heavy_port: int | None = None
) -> str:
    """The example, with only its addresses and certificate paths replaced (each must be there, once).

    ``heavy_port``: the heavy reads' gunicorn; by default the one gunicorn serves them too."""
    text = EXAMPLE.read_text()
    for old, new in [
        (WEB_UPSTREAM, f"server 127.0.0.1:{gunicorn_port};"),
        (HEAVY_UPSTREAM, f"server 127.0.0.1:{heavy_port or gunicorn_port};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;"),
        ("listen [::]:443 ssl;", ""),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen [::]:80;", ""),
        ("/etc/ssl/cardrank/fullchain.pem", str(cert)),
        ("/etc/ssl/cardrank/privkey.pem", str(key)),
    ]:
        if text.count(old) != 1:
            raise ValueError(f"docs/deploy/nginx.conf no longer has {old!r} once")
        text = text.replace(old, new)
    return text


class Nginx:
    """nginx of its own: a prefix in a temporary directory, unprivileged ports, in the foreground.

    ``key``: the certificate's key, ``"rsa"`` (2,048 bits, as most certificates are) or ``"ec"`` (P-256,
    as Let's Encrypt issues on request: a handshake costs the server about a twentieth of RSA's)."""

    def __init__(self, *, gunicorn_port: int, heavy_port: int | None = None, key: str = "rsa"):
        self.binary = nginx_binary()
        if not self.binary:
            raise RuntimeError("nginx is not installed (apt-get install -y nginx-light)")
        # Not a caller's tmp_path: nginx's workers run as nobody when started as root, and must reach it.
        self.prefix = Path(tempfile.mkdtemp(prefix="cardrank-nginx-"))
        self.prefix.chmod(0o755)
        self.https_port, self.http_port = free_port(), free_port()
        cert, private = self.prefix / "cert.pem", self.prefix / "key.pem"
        kind = ["-newkey", "rsa:2048"]
        if key == "ec":
            kind = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        subprocess.run(
            ["openssl", "req", "-x509", *kind, "-nodes", "-days", "1", "-subj", f"/CN={HOST}",
             "-keyout", str(private), "-out", str(cert)],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        site = site_config(
            gunicorn_port=gunicorn_port,
            heavy_port=heavy_port,
            https_port=self.https_port,
            http_port=self.http_port,
            cert=cert,
            key=private,
        )
        (self.prefix / "cardrank.conf").write_text(site)
        temp = " ".join(
            f"{kind}_temp_path {self.prefix / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (self.prefix / "nginx.conf").write_text(
            f"daemon off;\nworker_processes 1;\npid {self.prefix / 'nginx.pid'};\n"
            f"error_log {self.prefix / 'error.log'} info;\nevents {{ worker_connections 256; }}\n"
            f"http {{\n  access_log {self.prefix / 'access.log'};\n  {temp}\n"
            f"  include {self.prefix / 'cardrank.conf'};\n}}\n"
        )
        self.process: subprocess.Popen | None = None

    def argv(self, *extra: str) -> list[str]:
        return [self.binary, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"),
                "-e", str(self.prefix / "error.log"), *extra]  # fmt: skip

    def start(self) -> None:
        checked = subprocess.run(self.argv("-t"), capture_output=True, text=True, timeout=30)
        if checked.returncode != 0:
            raise RuntimeError(f"nginx -t refused the configuration:\n{checked.stderr}")
        self.process = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while not port_open("127.0.0.1", self.https_port):
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited:\n{self.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not listen in 15 s:\n{self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        path = self.prefix / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.prefix, ignore_errors=True)
