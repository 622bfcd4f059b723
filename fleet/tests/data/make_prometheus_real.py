"""Records where a real Prometheus scrapes its targets, one row per target.

Run from the repository root, as root (one target listens on port 80, so
that its address can be written without a port), with the `prometheus`
binary on PATH (Debian 12's package: `apt-get install -y prometheus`):

    python3 fleet/tests/data/make_prometheus_real.py core/tests/data/prometheus_real_2_42

writes STEM.tsv, the observations, and STEM_server_N.yml, the configuration
server N ran (with a `# version: X.Y` comment taken from the binary).

Two Prometheus servers run in the foreground on 127.0.0.1, each with its own
configuration (one with external labels and a global scrape_timeout, one
without either), against local HTTP targets served from this script: one
port each, with different jobs, intervals, timeouts, paths, params and
labels. Each target logs the arrival of every request (time.time_ns() when
the request's headers have been read). After RUN_SECONDS both servers are
stopped and each target's arrivals are written as phases, arrival mod
interval, in ns.

Each row: the server's number, the fleet line's fields (address, spec, Job, Labels, URL,
Timeout, ExternalLabels; empty: not given) and the comma-separated phases
of the target's scrapes. The header names `prometheus --version`. The
server's FQDN is what Go finds for this host's name (`localhost` where
the name resolves to 127.0.0.1 and that address back to `localhost`).
"""

import http.server
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

RUN_SECONDS = 80
FIRST_PORT = 19100
NS = {"ms": 1_000_000, "s": 1_000_000_000}

# Each server: its global section and its jobs. A job's targets are
# (address, port) pairs; port None listens on 80 for an address written
# without one.
SERVERS = [
    {
        "global": {
            "scrape_interval": "10s",
            "scrape_timeout": "3s",
            "external_labels": {"cluster": "eu1", "replica": "A"},
        },
        "jobs": [
            {"job_name": "node", "scrape_interval": "2s", "labels": {"team": "infra"},
             "targets": ["127.0.0.1:{}", "localhost:{}"]},
            {"job_name": "blackbox probe", "scrape_interval": "5s", "metrics_path": "/probe",
             "params": {"module": ["http_2xx"], "target": ["example.com"]},
             "targets": ["127.0.0.1:{}"]},
            {"job_name": "api", "scrape_interval": "7s", "scrape_timeout": "1500ms",
             "metrics_path": "/custom path/metrics", "targets": ["127.0.0.1:{}"]},
            {"job_name": "default", "targets": ["127.0.0.1:{}"]},
        ],
    },
    {
        "global": {"scrape_interval": "15s"},
        "jobs": [
            {"job_name": "node", "scrape_interval": "3s", "targets": ["127.0.0.1:{}"]},
            {"job_name": "node-prod", "scrape_interval": "3s", "labels": {"env": "prod"},
             "targets": ["127.0.0.1:{}"]},
            {"job_name": "web", "scrape_interval": "4s", "scrape_timeout": "4s",
             "targets": ["127.0.0.1"]},
            {"job_name": "federate", "scrape_interval": "6s", "metrics_path": "/federate",
             "params": {"match[]": ['{job="node"}', "up"]}, "targets": ["127.0.0.1:{}"]},
            {"job_name": "slow", "scrape_interval": "12s", "scrape_timeout": "12s",
             "targets": ["localhost:{}"]},
        ],
    },
]


def duration_ns(text):
    """model.ParseDuration for the few forms used here (`2s`, `1500ms`)."""
    for unit in ("ms", "s"):
        if text.endswith(unit):
            return int(text[: -len(unit)]) * NS[unit]
    raise ValueError(text)


def duration_string(ns):
    """model.Duration.String for durations under a minute."""
    ms = ns // NS["ms"]
    seconds, ms = divmod(ms, 1000)
    return (f"{seconds}s" if seconds else "") + (f"{ms}ms" if ms else "") or "0s"


def yaml_string(text):
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def query(params):
    """url.Values.Encode for the ASCII params used here."""
    from urllib.parse import quote

    parts = []
    for key in sorted(params):
        for value in params[key]:
            parts.append(quote(key, safe="-_.~") + "=" + quote(value, safe="-_.~"))
    return "&".join(parts)


def plan():
    """Assigns ports; returns each server's YAML and the targets' rows."""
    port = FIRST_PORT
    configs, targets = [], []
    for index, server in enumerate(SERVERS):
        glob = server["global"]
        lines = ["global:"]
        for key in ("scrape_interval", "scrape_timeout"):
            if key in glob:
                lines.append(f"  {key}: {glob[key]}")
        external = glob.get("external_labels", {})
        if external:
            lines.append("  external_labels:")
            lines += [f"    {k}: {yaml_string(v)}" for k, v in external.items()]
        lines.append("scrape_configs:")
        global_interval = duration_ns(glob.get("scrape_interval", "60s"))
        global_timeout = duration_ns(glob["scrape_timeout"]) if "scrape_timeout" in glob \
            else min(10 * NS["s"], global_interval)
        for job in server["jobs"]:
            name = job["job_name"]
            lines.append(f"  - job_name: {yaml_string(name)}")
            for key in ("scrape_interval", "scrape_timeout", "metrics_path"):
                if key in job:
                    lines.append(f"    {key}: {yaml_string(job[key])}")
            if "params" in job:
                lines.append("    params:")
                for key, values in job["params"].items():
                    lines.append(f"      {yaml_string(key)}: [{', '.join(map(yaml_string, values))}]")
            interval = duration_ns(job.get("scrape_interval", glob.get("scrape_interval", "60s")))
            timeout = duration_ns(job["scrape_timeout"]) if "scrape_timeout" in job \
                else min(global_timeout, interval)
            addresses = []
            for template in job["targets"]:
                if "{}" in template:
                    addresses.append((template.format(port), port))
                    port += 1
                else:
                    addresses.append((template, 80))
            lines.append("    static_configs:")
            lines.append(f"      - targets: [{', '.join(yaml_string(a) for a, _ in addresses)}]")
            if job.get("labels"):
                lines.append("        labels:")
                lines += [f"          {k}: {yaml_string(v)}" for k, v in job["labels"].items()]
            path = job.get("metrics_path", "/metrics")
            for address, listen in addresses:
                url = "http://" + address + path.replace(" ", "%20")
                if "params" in job:
                    url += "?" + query(job["params"])
                targets.append({
                    "server": index,
                    "port": listen,
                    "address": address,
                    "spec": duration_string(interval),
                    "Job": name,
                    "Labels": ",".join(f"{k}={v}" for k, v in job.get("labels", {}).items()),
                    "URL": url,
                    "Timeout": duration_string(timeout),
                    "ExternalLabels": ",".join(f"{k}={v}" for k, v in external.items()),
                    "interval": interval,
                    "arrivals": [],
                })
        configs.append("\n".join(lines) + "\n")
    return configs, targets


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        arrived = time.time_ns()
        self.server.target["arrivals"].append(arrived)
        body = b"# TYPE stampede_probe gauge\nstampede_probe 1\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    stem = sys.argv[1]
    configs, targets = plan()
    listeners = []
    for target in targets:
        listener = Server(("127.0.0.1", target["port"]), Handler)
        listener.target = target
        threading.Thread(target=listener.serve_forever, daemon=True).start()
        listeners.append(listener)
    version = subprocess.run(["prometheus", "--version"], capture_output=True, text=True)
    version = (version.stdout + version.stderr).splitlines()
    # "prometheus, version 2.42.0+ds (...)": the release, as X.Y.
    release = ".".join(version[0].split()[2].split(".")[:2])
    configs = [f"# version: {release}\n{config}" for config in configs]
    work = tempfile.mkdtemp()
    servers = []
    try:
        for index, config in enumerate(configs):
            path = os.path.join(work, f"prometheus-{index}.yml")
            with open(path, "w") as file:
                file.write(config)
            log = open(os.path.join(work, f"prometheus-{index}.log"), "w")
            servers.append(subprocess.Popen([
                "prometheus", f"--config.file={path}",
                f"--storage.tsdb.path={os.path.join(work, f'data-{index}')}",
                f"--web.listen-address=127.0.0.1:{19090 + index}",
            ], stdout=log, stderr=subprocess.STDOUT))
        time.sleep(RUN_SECONDS)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait()
        for listener in listeners:
            listener.shutdown()
    for index, config in enumerate(configs):
        with open(f"{stem}_server_{index}.yml", "w") as file:
            file.write(config)
    shutil.rmtree(work)
    name = os.path.basename(stem)
    with open(f"{stem}.tsv", "w") as out:
        out.write("# Arrivals at targets scraped by the real Prometheus below, on 127.0.0.1 (Go's FQDN here: localhost)\n")
        for line in version:
            out.write(f"#   {line.strip()}\n")
        out.write(f"# made with: python3 fleet/tests/data/make_prometheus_real.py core/tests/data/{name}"
                  f" ({RUN_SECONDS} s; configurations in {name}_server_N.yml)\n")
        out.write("# columns: server address spec Job Labels URL Timeout ExternalLabels phases_ns\n")
        for target in targets:
            arrivals = target["arrivals"]
            assert len(arrivals) >= 3, (target["address"], arrivals)
            phases = ",".join(str(at % target["interval"]) for at in arrivals)
            keys = ("address", "spec", "Job", "Labels", "URL", "Timeout", "ExternalLabels")
            columns = [str(target["server"])] + [target[key] for key in keys] + [phases]
            out.write("\t".join(columns) + "\n")

if __name__ == "__main__":
    main()
