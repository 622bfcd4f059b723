#!/usr/bin/env bash
# Regenerates import_prometheus.tsv: the URL Prometheus scrapes a static
# target at, as Go's own net/url writes it.
#
#   bash fleet/tests/data/make_import_prometheus.sh > fleet/tests/data/import_prometheus.tsv
#
# Needs Go 1.19 (/usr/bin/go, the standard library only). The driver below
# builds each URL the way Target.URL() in prometheus/prometheus v3.5.0
# (scrape/target.go) does: a url.URL with the scheme, the address as host,
# metrics_path as path and the params' url.Values.Encode() as the query,
# then String(). Each row is one target: scheme, address, metrics_path and
# params as JSON (JSON is YAML's flow style, so a test pastes them into a
# prometheus.yml as they are), then the URL. The inputs mix unicode,
# blanks, reserved characters, several values and unsorted keys.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/main.go" <<'GO'
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"runtime"
	"strings"
)

var schemes = []string{"http", "https"}
var addresses = []string{
	"localhost:9100", "10.0.0.7:9100", "[::1]:9090", "node-1.example.com:9100",
	"exämple.com:8080", "blackbox", "db.internal:9187", "münchen.example:443",
}
var paths = []string{
	"/metrics", "/probe", "metrics", "/federate", "/a b/metrics", "/ünï/cödé",
	"/x;y=z/@me", "/path/with%percent", "/q?mark", "/$dollar&amp+plus,comma:colon",
	"/it's(ok)*!", "/tilde~_-.", "",
}
var keys = []string{"module", "target", "match[]", "a b", "ключ", "x&y", "z", "A", "_"}
var values = []string{
	"http_2xx", "http 2xx", "https://example.com/path?x=1&y=2", "{job=\"node\"}",
	"café", "日本", "", "a+b", "100%", "slash/and:colon", "tilde~", "🚀",
}

func encode(value interface{}) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func main() {
	rng := rand.New(rand.NewSource(20260101))
	fmt.Printf("# Go %s net/url: scheme, address, metrics_path, params (JSON), URL\n", runtime.Version())
	for row := 0; row < 120; row++ {
		scheme := schemes[rng.Intn(len(schemes))]
		address := addresses[rng.Intn(len(addresses))]
		path := paths[rng.Intn(len(paths))]
		params := url.Values{}
		for k := rng.Intn(4); k > 0; k-- {
			key := keys[rng.Intn(len(keys))]
			for v := 1 + rng.Intn(2); v > 0; v-- {
				params[key] = append(params[key], values[rng.Intn(len(values))])
			}
		}
		u := url.URL{Scheme: scheme, Host: address, Path: path, RawQuery: params.Encode()}
		// JSON writes a map's keys sorted, and so does Encode: the order
		// the keys were drawn in is not kept by either.
		fmt.Printf("%s\t%s\t%s\t%s\t%s\n", encode(scheme), encode(address), encode(path), encode(map[string][]string(params)), u.String())
	}
}
GO
cd "$work"
go run main.go
