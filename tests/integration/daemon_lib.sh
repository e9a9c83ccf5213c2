# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the daemon's integration tests (sourced after lib.sh's
# conventions): start biobenchd on a free loopback port with a private
# config, database and web root, talk to it with curl, validate answers
# against schema/openapi.yaml, stop it with SIGTERM.
#
# usage of a test: script.sh path/to/biobenchd [path/to/biobench]
DAEMON=${1:?usage: $0 path/to/biobenchd [path/to/biobench]}
CLI=${2:-}
# lib.sh takes the CLI as its $1 (BIN); the daemon tests may run without it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "${CLI:-/bin/false}"

[ -x "$DAEMON" ] || skip "$DAEMON is not an executable"
command -v curl >/dev/null || skip "curl is not installed"
/usr/bin/python3 -c 'import yaml, jsonschema' 2>/dev/null \
  || skip "python3-yaml and python3-jsonschema are needed"

DPID=
DPORT=
DLOG=$TMP/biobenchd.log
DDB=$TMP/biobench.db
DWEB=$TMP/web
DCONF=$TMP/biobenchd.conf
TOKEN=          # sent as "Authorization: Bearer $TOKEN" when set
API_STATUS=     # of the last api call
API_BODY=$TMP/api.body
API_HEADERS=$TMP/api.headers

# A free TCP port on 127.0.0.1 (bound then released).
free_port() {
  /usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The default config: nop and $TMP/ro/*.dat readable, $TMP/rw/*.dat
# writable; HTTP on CPU 0, jobs on the last CPU.
write_config() {
  local last=$(( $(nproc) - 1 ))
  mkdir -p "$TMP/ro" "$TMP/rw"
  cat >"$DCONF" <<EOF
[server]
http_cpus = 0
bench_cpus = $last
http_threads = 2
max_body = 1m
timeout = 10
[targets]
allow = nop
allow = $TMP/ro/*.dat
allow_write = $TMP/rw/*.dat
EOF
}

# A web root with an index and a symlink pointing out of it.
write_web() {
  mkdir -p "$DWEB/sub"
  echo '<!doctype html><title>biobench</title>' >"$DWEB/index.html"
  echo 'console.log("bb");' >"$DWEB/app.js"
  echo 'body{}' >"$DWEB/app.css"
  echo 'outside' >"$TMP/secret.txt"
  ln -sf ../secret.txt "$DWEB/out.txt"
}

# daemon_start [extra biobenchd args...]: start in the background, wait
# until /api/v1/health answers (10 s).  Fails (1) with the log shown.
daemon_start() {
  [ -f "$DCONF" ] || write_config
  [ -d "$DWEB" ] || write_web
  DPORT=$(free_port)
  # the store: $DSTORE when a test sets it (a PostgreSQL URI, with the
  # local knob journal $DKNOBS, default $TMP/knobs.db), else $DDB
  local store=(--db "$DDB")
  [ -n "${DSTORE:-}" ] && store=(--store "$DSTORE" --knob-journal "${DKNOBS:-$TMP/knobs.db}")
  "$DAEMON" --foreground --config "$DCONF" --listen "127.0.0.1:$DPORT" \
    "${store[@]}" --web-root "$DWEB" "$@" 2>>"$DLOG" &
  DPID=$!
  cleanup_hooks+=("daemon_kill $DPID")
  for _ in $(seq 1 100); do
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$DPORT/api/v1/health"; then
      return 0
    fi
    if ! kill -0 "$DPID" 2>/dev/null; then
      echo "  biobenchd exited early; log:" >&2
      sed 's/^/    /' "$DLOG" >&2
      DPID=
      return 1
    fi
    sleep 0.1
  done
  echo "  biobenchd did not answer /api/v1/health within 10 s; log:" >&2
  sed 's/^/    /' "$DLOG" >&2
  return 1
}

# The daemons of a fleet test, by number: fleet_daemon N NAME [args...]
# starts daemon NAME (--host-name) with its state directory $TMP/NAME (its
# log and knob journal there) and keeps its pid, port and log as
# PIDS[N] PORTS[N] LOGS[N]; fleet_use N makes it the one api talks to.
declare -a PIDS PORTS LOGS
fleet_daemon() {
  local n=$1 name=$2; shift 2
  mkdir -p "$TMP/$name"
  DLOG=$TMP/$name/biobenchd.log DKNOBS=$TMP/$name/knobs.db
  daemon_start --host-name "$name" "$@" || return 1
  PIDS[$n]=$DPID PORTS[$n]=$DPORT LOGS[$n]=$DLOG
}
fleet_use() { DPID=${PIDS[$1]} DPORT=${PORTS[$1]} DLOG=${LOGS[$1]}; }

daemon_kill() {
  kill -0 "$1" 2>/dev/null || return 0
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
}

# daemon_stop: SIGTERM, wait (10 s); returns the daemon's exit status
# (124 when it did not stop).
daemon_stop() {
  local rc=0
  [ -n "$DPID" ] || return 0
  kill -TERM "$DPID" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$DPID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$DPID" 2>/dev/null; then
    kill -KILL "$DPID" 2>/dev/null || true
    wait "$DPID" 2>/dev/null || true
    DPID=
    return 124
  fi
  wait "$DPID" || rc=$?
  DPID=
  return $rc
}

daemon_alive() { [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; }

# api METHOD PATH [BODY [curl args...]]: BODY is text, @FILE, or "-" for
# none.  Status in $API_STATUS and $TMP/api.status, body in $API_BODY,
# headers in $API_HEADERS.  The path is sent as is (no ".." squashing).
api() {
  local method=$1 path=$2 body=${3:--}
  shift 2; [ $# -gt 0 ] && shift
  local args=(-s --path-as-is --max-time 30 -o "$API_BODY" -D "$API_HEADERS"
              -w '%{http_code}')
  if [ "$method" = HEAD ]; then args+=(-I); else args+=(-X "$method"); fi
  [ -n "$TOKEN" ] && args+=(-H "Authorization: Bearer $TOKEN")
  # a POST changes state: the daemon takes it as JSON only (415 else)
  if [ "$body" != "-" ] || [ "$method" = POST ]; then
    args+=(-H 'Content-Type: application/json')
  fi
  [ "$body" != "-" ] && args+=(--data-binary "$body")
  API_STATUS=$(curl "${args[@]}" "$@" "http://127.0.0.1:$DPORT$path" || true)
  echo "$API_STATUS" >"$TMP/api.status"
}

# A field of the last JSON body (python expression on d), "" if absent.
api_get() {
  /usr/bin/python3 - "$API_BODY" "$1" <<'PY' 2>/dev/null || true
import json, sys
try:
    d = json.load(open(sys.argv[1], "rb"))
    v = eval(sys.argv[2], {"d": d})
except Exception:
    sys.exit(0)
print("null" if v is None else json.dumps(v) if not isinstance(v, str) else v)
PY
}

# submit_job JSON: POST it, print the new job's id; 1 (with the answer
# shown) unless it is accepted (201).
submit_job() {
  api POST /api/v1/jobs "$1"
  if [ "$API_STATUS" != 201 ]; then
    echo "  submit failed ($API_STATUS): $(cat "$API_BODY")" >&2
    return 1
  fi
  api_get 'd["id"]'
}

# A response header of the last call (case-insensitive name).
api_header() {
  tr -d '\r' <"$API_HEADERS" | awk -v h="$(echo "$1" | tr A-Z a-z)" -F': ' \
    'tolower($1) == h { sub(/^[^:]*: /, ""); print; exit }'
}

# check_openapi BODY_FILE METHOD PATH STATUS: the body is what
# schema/openapi.yaml documents for that operation and status (path
# templates such as /api/v1/jobs/{id} match; $ref resolved in components;
# nullable honoured).  Non-JSON responses: only that the status is
# documented.  Prints the reason and returns 1 when not.
check_openapi() {
  /usr/bin/python3 - "$ROOT/schema/openapi.yaml" "$@" <<'PY'
import json, re, sys
import yaml, jsonschema

spec_path, body_path, method, path, status = sys.argv[1:6]
spec = yaml.safe_load(open(spec_path))
path = path.split("?", 1)[0]

def template_re(t):
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(t)) + "$")

# exact paths first, then templates, the catch-all /{file} last
cands = sorted(spec["paths"], key=lambda t: (t.count("{"), t == "/{file}"))
item = next((spec["paths"][t] for t in cands if template_re(t).match(path)), None)
error_only = {"responses": {status: {"content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/Error"}}}}}}
if item is None:
    # unknown paths: only errors, in the error shape
    if not status.startswith("4"):
        sys.exit(f"openapi: no path matches {path} (status {status})")
    item = {method.lower(): error_only}
op = item.get(method.lower()) or (item.get("get") if method == "HEAD" else None)
if op is None:
    if status == "405":
        op = {"responses": {"405": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}}}}
    else:
        sys.exit(f"openapi: {method} {path}: no such operation")

def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        cur = spec
        for part in ref.lstrip("#/").split("/"):
            cur = cur[part]
        node = cur
    return node

responses = op.get("responses", {})
resp = responses.get(status) or responses.get("default")
if resp is None and status in ("401", "405", "413", "500", "503"):
    resp = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
if resp is None:
    sys.exit(f"openapi: {method} {path}: status {status} is not documented")
resp = resolve(resp)
content = resp.get("content", {})
if "application/json" not in content:
    sys.exit(0)
schema = content["application/json"].get("schema", {})

def convert(node):
    """OpenAPI 3.0 schema -> JSON Schema: nullable, refs kept."""
    if isinstance(node, list):
        return [convert(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: convert(v) for k, v in node.items() if k != "nullable"}
    for k in ("example", "format", "discriminator", "xml", "externalDocs",
              "deprecated", "readOnly", "writeOnly"):
        out.pop(k, None)
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out

root = convert(schema)
root = dict(root) if isinstance(root, dict) else {"allOf": [root]}
root["components"] = convert(spec["components"])
try:
    doc = json.load(open(body_path, "rb"))
except Exception as e:
    sys.exit(f"openapi: {method} {path} {status}: body is not JSON: {e}")
try:
    jsonschema.validate(doc, root, cls=jsonschema.Draft7Validator)
except jsonschema.ValidationError as e:
    where = "/".join(str(p) for p in e.absolute_path)
    sys.exit(f"openapi: {method} {path} {status}: at '{where}': {e.message[:300]}")
PY
}

# Whether the daemon still answers health with 200.
health_ok() {
  local s
  s=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
      "http://127.0.0.1:$DPORT/api/v1/health" || true)
  [ "$s" = 200 ]
}

# wait_state ID STATE... [timeout via WAIT_S, default 60]: poll the job
# until its state is one of STATEs; prints the final state.
wait_state() {
  local id=$1; shift
  local t=${WAIT_S:-60} st=
  for _ in $(seq 1 $((t * 5))); do
    api GET "/api/v1/jobs/$id"
    st=$(api_get 'd["state"]')
    for want in "$@"; do [ "$st" = "$want" ] && { echo "$st"; return 0; }; done
    sleep 0.2
  done
  echo "$st"
  return 1
}

# api_json METHOD PATH EXPR [BODY]: one call, one field of its answer.
api_json() { api "$1" "$2" "${4:--}"; api_get "$3"; }

# wait_job ID [TIMEOUT_S]: poll until the job has ended; prints its state.
wait_job() {
	local id=$1 timeout=${2:-120} s
	for _ in $(seq $((timeout * 10))); do
		s=$(api_json GET "/api/v1/jobs/$id" 'd["state"]') || return 1
		case $s in done | failed | cancelled | interrupted) echo "$s"; return 0 ;; esac
		sleep 0.1
	done
	echo "timeout($s)"
}
# wait_cond ID PYEXPR [TIMEOUT_S]: poll the job document until PYEXPR on d
# is true.
wait_cond() {
	local id=$1 expr=$2 timeout=${3:-60}
	for _ in $(seq $((timeout * 10))); do
		[ "$(api_json GET "/api/v1/jobs/$id" "bool($expr)" 2>/dev/null)" = true ] && return 0
		sleep 0.1
	done
	return 1
}
submit() { api_json POST /api/v1/jobs 'd["id"]' "$1"; }
