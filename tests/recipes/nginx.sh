#!/usr/bin/env bash
# Follows the publishing recipe in docs/deploy/nginx.conf: serves a build under
# Debian's nginx, in the foreground on 127.0.0.1, and checks what a browser
# gets: the page as HTML that is revalidated, hashed files as long-lived
# wasm or JavaScript, gzip where the build wrote it, CORS on everything.
# Usage: tests/recipes/nginx.sh [DIST]  (a build made with --base /docs/stampede/)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

dist=$(realpath "${1:-dist}")
work=$(mktemp -d)
pid=
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The recipe as a reader edits it: its folder and a local port.
sed -e "s|/srv/stampede/dist/|$dist/|" -e "s|listen 80;|listen 127.0.0.1:$port;|" \
  docs/deploy/nginx.conf > "$work/stampede.conf"
grep -q "listen 127.0.0.1:$port;" "$work/stampede.conf" ||
  { echo "nginx recipe: no 'listen 80;' to point at a local port" >&2; exit 1; }
# The smallest http block around the recipe, writing only inside $work.
cat > "$work/nginx.conf" <<CONF
daemon off;
pid $work/nginx.pid;
error_log stderr warn;
events {}
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path $work/body;
  proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi;
  uwsgi_temp_path $work/uwsgi;
  scgi_temp_path $work/scgi;
  include $work/stampede.conf;
}
CONF

nginx -t -q -p "$work" -c "$work/nginx.conf"
nginx -p "$work" -c "$work/nginx.conf" &
pid=$!
base="http://127.0.0.1:$port/docs/stampede"
for _ in $(seq 50); do
  curl -fs -o /dev/null "$base/" && break
  sleep 0.1
done

failures=0
# expect PATH HEADER PATTERN [CURL ARGS…]: the response to PATH has HEADER
# matching PATTERN (case-insensitive, as HTTP header names are).
expect() {
  local path=$1 header=$2 pattern=$3
  shift 3
  local value
  value=$(curl -fsS -o /dev/null -D - "$@" "$base/$path" | tr -d '\r' |
    awk -v h="$header" 'tolower($0) ~ "^" tolower(h) ":" { sub(/^[^:]*: */, ""); print; exit }')
  if [[ "$value" =~ $pattern ]]; then
    echo "ok - $path: $header: $value"
  else
    echo "not ok - $path: $header is \"$value\", expected /$pattern/"
    failures=$((failures + 1))
  fi
}

wasm=$(cd "$dist" && ls stampede-*_bg.wasm | head -1)
expect "" Content-Type '^text/html'
expect "" Cache-Control '^no-cache$'
expect "" Access-Control-Allow-Origin '^\*$'
expect "$wasm" Content-Type '^application/wasm$'
expect "$wasm" Cache-Control 'immutable'
expect "$wasm" Access-Control-Allow-Origin '^\*$'
if [[ -f "$dist/$wasm.gz" ]]; then
  expect "$wasm" Content-Encoding '^gzip$' -H 'Accept-Encoding: gzip'
fi
expect js/stampede.js Content-Type 'javascript'
expect js/stampede.js Cache-Control '^no-cache$'
# The book, which scripts/build copies into the build.
expect docs/ Content-Type '^text/html'

if ((failures > 0)); then
  echo "nginx recipe: $failures checks failed" >&2
  exit 1
fi
echo "nginx recipe: every check passed"
