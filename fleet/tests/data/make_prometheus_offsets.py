"""Prints where Prometheus scrapes each target, one row per fleet line.

Run from the repository root (Go's standard library only, so no module
download; PyPI xxhash for XXH64, the hash Prometheus takes with
github.com/cespare/xxhash/v2):
    pip install xxhash==4.1.0
    python3 fleet/tests/data/make_prometheus_offsets.py > fleet/tests/data/prometheus_offsets.tsv

Made with Go 1.19.8 (/usr/bin/go) and PyPI xxhash 4.1.0 (libxxhash 0.8.4); the
first comment line of the output names the versions that made it.

Prometheus 3.14.0 (scrape/target.go, scrape/manager.go) computes

    target = FNV-1a64(fmt.Sprintf("%016d", labels.Hash()) + URL.String())
    seed   = FNV-1a64(fqdn + externalLabels.String())
    offset = (target ^ seed) % interval

Go itself parses each URL= (url.Parse, url.ParseQuery), writes the scrape
URL (url.URL.String, url.Values.Encode), formats the label hash, quotes the
external labels (strconv.Quote) and takes both FNV-1a 64 hashes (hash/fnv).
This script builds the label set that PopulateLabels gives a static target
(prometheus v3.14.0, prometheus/common v0.70.1 durations), encodes it as
the default stringlabels build does and hashes it with xxhash.xxh64.

Each row: address, spec, then the options Job, Labels, URL, Server and
ExternalLabels as a fleet line gives them (empty: not given), then Go's
scrape URL, the label hash, the target hash, the offset seed, the offset in
ns, and the first three scrapes in [FROM, FROM + 7 days) as Unix
microseconds (⌊ns / 1000⌋), comma-separated. No field holds a tab or a
newline.
"""

import json
import os
import subprocess
import sys
import tempfile

import xxhash

FROM = 1_708_905_600  # 2024-02-26T00:00:00Z
WEEK = 7 * 86_400
MS = 1_000_000  # ns

GO_PROGRAM = r"""
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"sort"
	"strconv"
)

type request struct {
	Mode       string              `json:"mode"`
	Address    string              `json:"address"`
	URL        string              `json:"url"`
	Scheme     string              `json:"scheme"`
	Path       string              `json:"path"`
	Params     map[string][]string `json:"params"`
	LabelsHash uint64              `json:"labels_hash"`
	Server     string              `json:"server"`
	External   [][2]string         `json:"external"`
	Interval   uint64              `json:"interval"`
}

func legacyName(n string) bool {
	if n == "" {
		return false
	}
	for i, b := range n {
		if !((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || (b >= '0' && b <= '9' && i > 0)) {
			return false
		}
	}
	return true
}

func labelsString(pairs [][2]string) string {
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	s := "{"
	for i, p := range pairs {
		if i > 0 {
			s += ", "
		}
		if legacyName(p[0]) {
			s += p[0]
		} else {
			s += strconv.Quote(p[0])
		}
		s += "=" + strconv.Quote(p[1])
	}
	return s + "}"
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			panic(err)
		}
		if r.Mode == "parse" {
			u, err := url.Parse(r.URL)
			if err != nil {
				panic(err)
			}
			q, err := url.ParseQuery(u.RawQuery)
			if err != nil {
				panic(err)
			}
			if u.Host != r.Address {
				panic("host " + u.Host + " is not " + r.Address)
			}
			out.Encode(map[string]interface{}{"scheme": u.Scheme, "path": u.Path, "params": q})
			continue
		}
		params := url.Values{}
		for k, v := range r.Params {
			params[k] = v
		}
		u := &url.URL{Scheme: r.Scheme, Host: r.Address, Path: r.Path, RawQuery: params.Encode()}
		h := fnv.New64a()
		fmt.Fprintf(h, "%016d", r.LabelsHash)
		h.Write([]byte(u.String()))
		target := h.Sum64()
		s := fnv.New64a()
		fmt.Fprintf(s, "%s%s", r.Server, labelsString(r.External))
		seed := s.Sum64()
		out.Encode(map[string]interface{}{
			"url": u.String(), "target": target, "seed": seed,
			"offset": (target ^ seed) % r.Interval,
		})
	}
}
"""

UNITS = [("y", 365 * 86_400_000), ("w", 7 * 86_400_000), ("d", 86_400_000),
         ("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)]


def parse_duration(text):
    """model.ParseDuration for the well-formed specs below, in ns."""
    total, rest, last = 0, text, -1
    while rest:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        unit_end = digits
        while unit_end < len(rest) and not rest[unit_end].isdigit():
            unit_end += 1
        unit = rest[digits:unit_end]
        position = [name for name, _ in UNITS].index(unit)
        assert position > last, text
        last = position
        total += int(rest[:digits]) * UNITS[position][1] * MS
        rest = rest[unit_end:]
    return total


def duration_string(ns):
    """model.Duration.String."""
    ms = ns // MS
    if ms == 0:
        return "0s"
    out = ""
    for index, (unit, size) in enumerate(UNITS):
        if index < 2 and ms % size != 0:
            continue
        if ms // size > 0:
            out += f"{ms // size}{unit}"
            ms -= ms // size * size
    return out


def pairs(text):
    result = []
    for item in text.split(",") if text else []:
        name, value = item.split("=", 1)
        result.append((name.strip(" "), value.strip(" ")))
    return result


def target_labels(address, job, interval, scheme, path, params, extra):
    """PopulateLabels for a static target without relabelling."""
    labels = dict(extra)
    defaults = {
        "job": job,
        "__scrape_interval__": duration_string(interval),
        "__scrape_timeout__": duration_string(min(interval, 10_000 * MS)),
        "__metrics_path__": path,
        "__scheme__": scheme,
        "__convert_classic_histograms_to_nhcb__": "false",
        "__always_scrape_classic_histograms__": "false",
        "__scrape_native_histograms__": "false",
    }
    for name, values in params.items():
        defaults["__param_" + name] = values[0]
    for name, value in defaults.items():
        if labels.get(name, "") == "":
            labels[name] = value
    labels["__address__"] = address
    if labels.get("instance", "") == "":
        labels["instance"] = address
    return {name: value for name, value in labels.items() if value != ""}


def stringlabels(labels):
    """The stringlabels encoding: length-prefixed names and values."""
    data = b""
    for name in sorted(labels, key=lambda n: n.encode()):
        for text in (name, labels[name]):
            raw = text.encode()
            if len(raw) < 255:
                data += bytes([len(raw)])
            else:
                data += bytes([255]) + len(raw).to_bytes(3, "little")
            data += raw
    return data


ADDRESSES = [
    "node-1:9100", "10.0.0.7:9100", "[2001:db8::1]:9090", "localhost:9090",
    "api.internal.example.com:443", "café.local:8080", "my host:9100",
    "日本.example:9100", "x", "exporter_42:9187", "db-primary.prod:9187",
    "[::1]:9100", "hôte ünïcode:1234", "a!b$c&d'e(f)g*h+i,j;k=l:1",
]
SPECS = [
    "15s", "1m", "1m30s", "500ms", "30s", "5m", "1h", "2h30m", "10s", "1s",
    "250ms", "1d", "90s", "1500ms", "7d", "1w", "60m", "3600s", "45s", "1y",
    "20s", "2m", "1h1ms", "7s",
]
JOBS = ["node", "prometheus", "blackbox", "api server", "日本語ジョブ", "team/app", "x"]
LABELS = [
    "", "env=prod", "env=prod,team=web", "region=eu-west-1, tier = db",
    "équipe=données", "instance=custom-name", "job=override", "zz=1,aa=2",
    "emoji=🚀", "long=" + "v" * 300, "edge=" + "e" * 254, "edge=" + "f" * 249,
    "name with space=value with space", "l" * 260 + "=short",
]
URLS = [
    "", "https://{a}/metrics", "http://{a}/probe?module=http_2xx&target=example.com",
    "https://{a}/federate?match[]={{job=\"node\"}}&match[]=up",
    "http://{a}/custom%20path/metrics", "HTTPS://{a}/metrics?x=a+b&x=c&empty=",
    "http://{a}/m?=novalue", "http://{a}/caf%C3%A9?q=%E6%97%A5&r=%2F%3F%26",
    "http://{a}/a:b@c/$&+,;=?k%20ey=v%20al&&",
]
SERVERS = [
    "prometheus-0.example.org", "prom.internal", "localhost", "prométhée.example",
    "mon-01", "prom-1.example.org.", "prometheus-k8s-1.prometheus-operated.monitoring.svc.cluster.local",
]
EXTERNAL = [
    "", "cluster=eu1", "cluster=eu1,replica=A", "région=ouest", 'note=say "hi"',
    "path=C:\\dir", "emoji=☕🚀", "zw=a\u200bb", "pua=\ue000", "bell=\x07x",
    "ctl=a\x01\x7fb", "nbsp=a\u00a0b", "x-y=1", "_ok=1,1bad=2", "soft=a\u00adb",
    "cjk=日本語,greek=αβγ", "max=\U0010fffd", "sep=a\u2028b",
]
# Addresses a URL can name: Go's parser refuses spaces and such in a host.
URL_SAFE = [a for a in ADDRESSES if all(c.isascii() and c not in " !$&'()*+,;=" for c in a)]


def cases():
    rows = []
    for index in range(160):
        # Odd rows scrape http://ADDRESS/metrics; even rows walk the URLs.
        address = ADDRESSES[(index // 2) % len(ADDRESSES)]
        url = "" if index % 2 else URLS[(index // 2) % len(URLS)]
        if url:
            address = URL_SAFE[index % len(URL_SAFE)]
            url = url.format(a=address)
        rows.append({
            "address": address,
            "spec": SPECS[(index * 7) % len(SPECS)],
            "Job": JOBS[(index * 5) % len(JOBS)],
            "Labels": LABELS[(index * 3) % len(LABELS)],
            "URL": url,
            "Server": SERVERS[(index * 11) % len(SERVERS)],
            "ExternalLabels": EXTERNAL[(index * 13) % len(EXTERNAL)],
        })
    return rows


def main():
    rows = cases()
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "offsets.go")
        with open(source, "w") as file:
            file.write(GO_PROGRAM)
        env = dict(os.environ, GO111MODULE="off", GOPROXY="off", GOFLAGS="")

        def go(requests):
            text = "".join(json.dumps(r) + "\n" for r in requests)
            done = subprocess.run(["go", "run", source], input=text.encode(), env=env,
                                  capture_output=True, check=True)
            return [json.loads(line) for line in done.stdout.decode().splitlines()]

        parsed = go([{"mode": "parse", "address": r["address"], "url": r["URL"]}
                     for r in rows if r["URL"]])
        parsed.reverse()
        requests = []
        for row in rows:
            part = parsed.pop() if row["URL"] else {"scheme": "http", "path": "/metrics", "params": {}}
            params = part["params"] or {}
            interval = parse_duration(row["spec"])
            labels = target_labels(row["address"], row["Job"], interval, part["scheme"],
                                   part["path"], params, pairs(row["Labels"]))
            row["labels_hash"] = xxhash.xxh64_intdigest(stringlabels(labels))
            row["interval"] = interval
            requests.append({
                "mode": "hash", "address": row["address"], "scheme": part["scheme"],
                "path": part["path"], "params": params, "labels_hash": row["labels_hash"],
                "server": row["Server"], "external": pairs(row["ExternalLabels"]),
                "interval": interval,
            })
        hashed = go(requests)
    version = subprocess.run(["go", "version"], capture_output=True, check=True).stdout.decode().strip()
    print(f"# {version}; PyPI xxhash {xxhash.VERSION} (libxxhash {xxhash.XXHASH_VERSION}); Python {sys.version.split()[0]}")
    print("# Derived from Prometheus 3.14.0's source (stringlabels), not made by a running Prometheus")
    print("# made with: python3 fleet/tests/data/make_prometheus_offsets.py > fleet/tests/data/prometheus_offsets.tsv")
    print("# columns: address spec Job Labels URL Server ExternalLabels url labels_hash target_hash offset_seed offset_ns starts_us")
    for row, result in zip(rows, hashed):
        offset, interval = result["offset"], row["interval"]
        start = FROM * 1_000_000_000
        first = start + (offset - start) % interval
        starts = [
            str(at // 1000)
            for at in range(first, (FROM + WEEK) * 1_000_000_000, interval)[:3]
        ]
        columns = [row[key] for key in ("address", "spec", "Job", "Labels", "URL", "Server", "ExternalLabels")]
        columns += [result["url"], str(row["labels_hash"]), str(result["target"]),
                    str(result["seed"]), str(offset), ",".join(starts)]
        assert not any("\t" in c or "\n" in c for c in columns), columns
        print("\t".join(columns))


if __name__ == "__main__":
    main()
