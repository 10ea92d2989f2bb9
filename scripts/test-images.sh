#!/usr/bin/env bash
# Builds the Dockerfile's embedded and ibmmq images with podman (`make docker
# DOCKER=podman`) and runs them as a user would: as the image's non-root
# user, read-only root filesystem, records in a volume, the image's
# HEALTHCHECK, a PRODUCE over HTTP; the embedded image in aws mode against
# moto (commands from SQS, results to SNS, records in DynamoDB, driven by
# the image's own CLI); the ibmmq image against mqserver over the host
# network, plainly and through a TLS profile.
# Prints the images' sizes and the time taken.
#
# No image registry is reachable from CI, so the bases the Dockerfile names
# are made here from Debian's packages and kept (they are slow to make):
# debian:<release>-slim by mmdebstrap --variant=minbase, golang:<go>-<release>
# from it plus the local Go toolchain. IBM's client is replaced by the
# project's client library (scripts/build-mqstub.sh), packed as IBM's
# redistributable tarball is laid out and served from a local file through
# MQ_CLIENT_URL with its checksum: the Dockerfile does with it what it does
# with IBM's. The mqprobe images and containers are removed at the end
# (podman's layer and build caches make them quick to rebuild); rerunning
# the script is safe.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$root"
started=$SECONDS

# This machine's podman: crun fails on its cgroups, and the default ulimits
# exceed its hard limits.
podman=(podman --runtime runc)
limits=(--ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
image=localhost/mqprobe-imagetest
token='image-test-token'

ensure_packages() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  [ ${#missing[@]} = 0 ] && return 0
  [ "$(id -u)" = 0 ] || { log "missing ${missing[*]}; installing needs root: run 'apt-get install ${missing[*]}'"; exit 1; }
  log "installing ${missing[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2
}

# dockerfile_arg NAME prints the default of the Dockerfile's ARG NAME.
dockerfile_arg() { sed -n "s/^ARG $1=//p" Dockerfile; }

# ensure_bases makes the images the Dockerfile starts FROM, unless present.
ensure_bases() {
  local release go_version slim golang goroot tmp
  release=$(dockerfile_arg DEBIAN_RELEASE)
  go_version=$(dockerfile_arg GO_VERSION)
  slim="debian:$release-slim" golang="golang:$go_version-$release"
  goroot=$(go env GOROOT)
  case "$(go env GOVERSION)" in
    "go$go_version" | "go$go_version".*) ;;
    *) log "the local Go is $(go env GOVERSION); the Dockerfile builds with Go $go_version"; exit 1 ;;
  esac
  tmp=$(mktemp -d)
  # shellcheck disable=SC2064 # the directory is known now
  trap "rm -rf '$tmp'" RETURN
  if ! "${podman[@]}" image exists "$slim"; then
    log "making $slim with mmdebstrap (once; kept for later runs)"
    mmdebstrap --quiet --variant=minbase "$release" "$tmp/slim.tar"
    "${podman[@]}" import --quiet "$tmp/slim.tar" "$slim" >/dev/null
    rm -f "$tmp/slim.tar"
  fi
  # Rebuilt when the local Go changes: the label names its version.
  if [ "$("${podman[@]}" image inspect --format '{{index .Labels "go.version"}}' "$golang" 2>/dev/null)" != "$(go env GOVERSION)" ]; then
    log "making $golang from $slim and $goroot (once per Go version)"
    cat >"$tmp/Containerfile" <<EOF
FROM $slim
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates curl gcc libc6-dev git \
 && rm -rf /var/lib/apt/lists/*
COPY . /usr/local/go
ENV GOPATH=/go GOTOOLCHAIN=local PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL go.version=$(go env GOVERSION)
EOF
    "${podman[@]}" build --quiet --pull=never --network host "${limits[@]}" -f "$tmp/Containerfile" -t "$golang" "$goroot" >/dev/null
  fi
}

# pack_client writes $work/www/mqclient.tar.gz: the simulator's client
# library laid out as IBM's redistributable client (lib64/, inc/,
# bin/genmqpkg.sh), plus the OpenSSL libraries it links, which IBM's
# client does not need (GSKit is inside it).
pack_client() {
  local stub="$work/mqstub" pkg="$work/mqclient" lib
  MQSTUB_DIR="$stub" bash scripts/build-mqstub.sh >/dev/null
  mkdir -p "$pkg/lib64" "$pkg/inc" "$pkg/bin" "$work/www"
  cp "$stub"/lib64/libmqm_r.so "$pkg/lib64/"
  cp "$stub"/inc/*.h "$pkg/inc/"
  for lib in libssl.so.3 libcrypto.so.3; do
    cp -L "$(ldd "$stub/lib64/libmqm_r.so" | awk -v l="$lib" '$1 == l { print $3 }')" "$pkg/lib64/"
  done
  # genmqpkg -b DIR copies the runtime subset to DIR: here everything but
  # the SDK (inc/), whatever genmqpkg_inc* says, as TLS is the library's.
  cat >"$pkg/bin/genmqpkg.sh" <<'EOF'
#!/bin/sh
# The simulator's stand-in for IBM's genmqpkg.sh: -b DIR copies the client's
# runtime (lib64/, OpenSSL included) to DIR, leaving the SDK out.
set -eu
[ "${1:-}" = -b ] && [ -n "${2:-}" ] || { echo "usage: genmqpkg.sh -b DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$2"
cp -a "$here/lib64" "$2/"
EOF
  chmod 755 "$pkg/bin/genmqpkg.sh"
  # Reproducible, so that its checksum, and with it podman's cached
  # layers, stay the same from run to run.
  tar -C "$pkg" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -c lib64 inc bin |
    gzip -n >"$work/www/mqclient.tar.gz"
}

# serve_client serves $work/www on a free loopback port (the builds use
# the host's network) and sets client_url.
serve_client() {
  python3 -m http.server --bind 127.0.0.1 --directory "$work/www" 0 >"$work/http.log" 2>&1 &
  http_pid=$!
  local port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' "$work/http.log")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { log "the client's file server did not start: $(cat "$work/http.log")"; exit 1; }
  client_url="http://127.0.0.1:$port/mqclient.tar.gz"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

containers=()
cleanup() {
  local c
  for c in "${containers[@]}"; do
    "${podman[@]}" rm -f -t 5 "$c" >/dev/null 2>&1 || true
    "${podman[@]}" volume rm -f "$c-data" >/dev/null 2>&1 || true
  done
  "${podman[@]}" volume rm -f mqprobe-data >/dev/null 2>&1 || true
  if [ -n "${http_pid:-}" ]; then kill "$http_pid" 2>/dev/null || true; fi
  if [ -n "${mqserver_pid:-}" ]; then kill "$mqserver_pid" 2>/dev/null || true; fi
  if [ -d "$work/moto" ]; then bash scripts/moto.sh stop "$work/moto" || true; fi
  "${podman[@]}" rmi -f "$image:test" "$image:test-embedded" >/dev/null 2>&1 || true
  rm -rf "$work"
}
work=$(mktemp -d)
trap cleanup EXIT

# start NAME IMAGE PORT [podman run options...] runs IMAGE as a user would:
# its own user, read-only root, records in a volume, the host's network
# (to reach servers on loopback), listening on 127.0.0.1:PORT; then waits
# until the image's HEALTHCHECK passes.
start() {
  local name=$1 img=$2 port=$3
  shift 3
  containers+=("$name")
  "${podman[@]}" rm -f -t 5 "$name" >/dev/null 2>&1 || true
  "${podman[@]}" volume rm -f "$name-data" >/dev/null 2>&1 || true
  "${podman[@]}" run -d --name "$name" "${limits[@]}" --network host --read-only \
    -v "$name-data:/var/lib/mqprobe/data" \
    -e MQPROBE_HTTP_ADDR="127.0.0.1:$port" -e MQPROBE_HTTP_AUTHTOKEN="$token" "$@" "$img" >/dev/null
  local i
  for i in $(seq 120); do
    "${podman[@]}" healthcheck run "$name" >/dev/null 2>&1 && break
    if [ "$("${podman[@]}" inspect --format '{{.State.Running}}' "$name")" != true ] || [ "$i" = 120 ]; then
      log "$name did not become healthy:"
      "${podman[@]}" logs "$name" >&2
      exit 1
    fi
    sleep 0.5
  done
  local user
  user=$(awk '/^Uid:/ { print $2 }' "/proc/$("${podman[@]}" inspect --format '{{.State.Pid}}' "$name")/status")
  [ "$user" = 10001 ] || { log "$name runs as uid $user, want 10001"; exit 1; }
  if "${podman[@]}" exec "$name" /usr/local/bin/mqprobe version >/dev/null &&
    "${podman[@]}" exec "$name" sh -c ': > /usr/local/bin/written' 2>/dev/null; then
    log "$name: the root filesystem is writable"
    exit 1
  fi
  log "$name: healthy, uid 10001, read-only root"
}

# produce PORT KEY TARGET_JSON puts 3 messages and checks the reply.
produce() {
  local out
  out=$(curl -sS -m 60 -w '\n%{http_code}' -X POST "http://127.0.0.1:$1/messages/produce" \
    -H "Authorization: Bearer $token" -H "Idempotency-Key: $2" \
    -d "{$3,\"batch\":{\"count\":3,\"messageSizeBytes\":64}}")
  case "$out" in
    *'"status":"COMPLETED"'*201) log "PRODUCE $2: 201, COMPLETED" ;;
    *) log "PRODUCE $2 failed: $out"; exit 1 ;;
  esac
}

ensure_packages
ensure_bases
pack_client
serve_client
sum=$(sha256sum "$work/www/mqclient.tar.gz" | cut -d' ' -f1)

log "building the images with make docker (podman)"
build_started=$SECONDS
# The host's module cache stands in for the network during go mod download.
make --no-print-directory docker DOCKER="${podman[*]}" IMAGE="$image" IMAGE_TAG=test \
  DOCKER_BUILD_FLAGS="--pull=never --network host ${limits[*]} -v $(go env GOMODCACHE):/go/pkg/mod" \
  MQ_CLIENT_URL="$client_url" MQ_CLIENT_SHA256="$sum" >"$work/build.log" 2>&1 ||
  { tail -n 60 "$work/build.log" >&2; exit 1; }
log "images built in $((SECONDS - build_started))s"

# Embedded: the image's own configuration and store (SQLite in the volume).
port=$(free_port)
start mqprobe-imagetest-embedded "$image:test-embedded" "$port"
produce "$port" image-embedded-1 '"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}'
"${podman[@]}" exec mqprobe-imagetest-embedded test -s /var/lib/mqprobe/data/mqprobe.db ||
  { log "the embedded image keeps no records in its volume"; exit 1; }

# aws mode on a private moto: the stack's resources made with the AWS CLI,
# the table by the image's `mqprobe store init`, then the image's CLI
# sends a PRODUCE through SQS and waits for its result (on a queue of its
# own subscribed to the topic), and reads its record from DynamoDB; the
# shared results queue gets the event too.
ensure_aws_cli
moto=$(bash scripts/moto.sh start "$work/moto")
aws_env=(-e AWS_REGION=us-east-1 -e AWS_ACCESS_KEY_ID=image-test -e AWS_SECRET_ACCESS_KEY=image-test
  -e "AWS_ENDPOINT_URL_SQS=$moto" -e "AWS_ENDPOINT_URL_SNS=$moto" -e "AWS_ENDPOINT_URL_DYNAMODB=$moto"
  -e MQPROBE_MODE=aws -e MQPROBE_SQS_COMMANDQUEUE=mqprobe-commands -e MQPROBE_IDEMPOTENCY_STORE=dynamodb
  -e MQPROBE_IDEMPOTENCY_DYNAMODB_TABLE=mq-probe-idempotency -e MQPROBE_TARGETS_ALLOWINLINE=true)
awsm() { AWS_DEFAULT_REGION=us-east-1 AWS_ACCESS_KEY_ID=image-test AWS_SECRET_ACCESS_KEY=image-test aws --endpoint-url "$moto" "$@"; }
awsm sqs create-queue --queue-name mqprobe-commands >/dev/null
results=$(awsm sqs create-queue --queue-name mqprobe-results --query QueueUrl --output text)
results_arn=$(awsm sqs get-queue-attributes --queue-url "$results" --attribute-names QueueArn --query Attributes.QueueArn --output text)
topic=$(awsm sns create-topic --name mqprobe-results --query TopicArn --output text)
awsm sns subscribe --topic-arn "$topic" --protocol sqs --notification-endpoint "$results_arn" --attributes RawMessageDelivery=true >/dev/null
aws_env+=(-e "MQPROBE_RESULTS_SNSTOPICARN=$topic")
"${podman[@]}" run --rm "${limits[@]}" --network host --read-only -e MQPROBE_HTTP_ADDR=127.0.0.1:8080 "${aws_env[@]}" "$image:test-embedded" store init >/dev/null ||
  { log "mqprobe store init in the image failed"; exit 1; }
port=$(free_port)
start mqprobe-imagetest-aws "$image:test-embedded" "$port" "${aws_env[@]}"
reply=$("${podman[@]}" exec mqprobe-imagetest-aws mqprobe send produce --queue DEV.QUEUE.1 --count 3 --key image-aws-1 \
  --wait --timeout 60s --output json 2>&1) || { log "aws mode: send produce --wait failed: $reply"; exit 1; }
case "$reply" in
  *'"status": "COMPLETED"'*) log "aws mode: PRODUCE image-aws-1 through SQS, COMPLETED, its result from SNS" ;;
  *) log "aws mode: send produce --wait replied: $reply"; exit 1 ;;
esac
state=$("${podman[@]}" exec mqprobe-imagetest-aws mqprobe send status PRODUCE image-aws-1 --output json 2>&1) ||
  { log "aws mode: send status failed: $state"; exit 1; }
case "$state" in
  *'"status": "COMPLETED"'*) log "aws mode: send status read the record from DynamoDB" ;;
  *) log "aws mode: send status replied: $state"; exit 1 ;;
esac
shared=$(awsm sqs receive-message --queue-url "$results" --wait-time-seconds 10 --max-number-of-messages 10 --query 'Messages[].Body' --output text)
case "$shared" in
  *'"idempotencyKey":"image-aws-1"'*) log "aws mode: the shared results queue has the event" ;;
  *) log "aws mode: the shared results queue has no event of image-aws-1: $shared"; exit 1 ;;
esac

# ibmmq against mqserver: a plain and a TLS channel. The server's
# certificate is signed by a CA the client's key repository (PKCS #12 in
# a .kdb with its stash, as the simulator's client reads one) trusts.
tls="$work/tls"
mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=mqprobe image test CA" \
  -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=QM1" -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 1 \
  -out "$tls/server.pem" 2>/dev/null
openssl pkcs12 -export -nokeys -in "$tls/ca.pem" -out "$tls/key.kdb" -passout pass:image-test-kdb
python3 -c 'import sys; sys.stdout.buffer.write(bytes(b ^ 0xF5 for b in b"image-test-kdb") + b"\xf5")' >"$tls/key.sth"
chmod 644 "$tls"/key.*
sed -e "s|^  certificateFile: \"\"|  certificateFile: $tls/server.pem|" -e "s|^  keyFile: \"\"|  keyFile: $tls/server.key|" \
  configs/mqserver.yaml >"$work/mqserver.yaml"
go build -o "$work/mqserver" ./cmd/mqserver
mq_port=$(free_port)
export MQ_APP_PASSWORD=image-test-app-password
"$work/mqserver" -listen "127.0.0.1:$mq_port" -config "$work/mqserver.yaml" >"$work/mqserver.log" 2>&1 &
mqserver_pid=$!
wait_ready "$mqserver_pid" 30 mqserver grep -q '^mqserver listening on ' "$work/mqserver.log" ||
  { cat "$work/mqserver.log" >&2; exit 1; }

cat >"$work/ibmmq.yaml" <<EOF
mq:
  backend: ibmmq
targets:
  allowInline: false
  profiles:
    qm1:
      queueManager: QM1
      queue: DEV.QUEUE.1
      channel: DEV.APP.SVRCONN
      connName: 127.0.0.1($mq_port)
      auth: {user: app, passwordRef: "env:MQ_APP_PASSWORD"}
    qm1-tls:
      queueManager: QM1
      queue: DEV.QUEUE.2
      channel: DEV.TLS.SVRCONN
      connName: 127.0.0.1($mq_port)
      auth: {user: app, passwordRef: "env:MQ_APP_PASSWORD"}
      ssl: {enabled: true, cipherSpec: ANY_TLS12_OR_HIGHER, keyStoreRef: "file:/etc/mqprobe/tls/key.kdb"}
EOF
chmod 644 "$work/ibmmq.yaml"
port=$(free_port)
start mqprobe-imagetest-ibmmq "$image:test" "$port" \
  -v "$work/ibmmq.yaml:/etc/mqprobe/ibmmq.yaml:ro" -v "$tls:/etc/mqprobe/tls:ro" -e MQPROBE_CONFIG=/etc/mqprobe/ibmmq.yaml -e MQ_APP_PASSWORD
# Read the whole output before matching: grep -q leaves at its match, and
# under pipefail the lines mqprobe still writes then fail podman exec.
version=$("${podman[@]}" exec mqprobe-imagetest-ibmmq /usr/local/bin/mqprobe version)
grep -q 'compiled in (build tag ibmmq)' <<<"$version" ||
  { log "the ibmmq image's mqprobe version does not report IBM MQ:"; printf '%s\n' "$version" >&2; exit 1; }
produce "$port" image-ibmmq-1 '"targetRef":"qm1"'
produce "$port" image-ibmmq-tls-1 '"targetRef":"qm1-tls"'

# docs/deployment.md's "five minutes" block, as written, with docker as
# this machine's podman (host network: the API moves to a free port).
doc_port=$(free_port)
docker() {
  local args=() arg skip=""
  for arg in "$@"; do
    if [ -n "$skip" ]; then skip=""; continue; fi
    case "$arg" in
      -p) skip=1 ;;
      mqprobe) if [ "$1" = run ]; then args+=("$image:test"); else args+=("$arg"); fi ;;
      *) args+=("$arg") ;;
    esac
  done
  if [ "${args[0]}" = run ]; then
    args=(run "${limits[@]}" --network host -e "MQPROBE_HTTP_ADDR=127.0.0.1:$doc_port" "${args[@]:1}")
  fi
  "${podman[@]}" "${args[@]}"
}
curl() { command curl "${@//127.0.0.1:8080/127.0.0.1:$doc_port}"; }
containers+=(mqprobe-qm1)
"${podman[@]}" rm -f -t 5 mqprobe-qm1 >/dev/null 2>&1 || true
"${podman[@]}" volume rm -f mqprobe-data >/dev/null 2>&1 || true
block=$(awk '/^```sh norun image-test$/ { on = 1; next } on && /^```$/ { exit } on' docs/deployment.md)
[ -n "$block" ] || { log "docs/deployment.md has no \`sh norun image-test\` block"; exit 1; }
reply=$(cd "$work" && MQ_CONN_NAME="127.0.0.1($mq_port)" timeout 300 bash -euo pipefail -c "$(declare -f docker curl)
podman=(${podman[*]}) limits=(${limits[*]}) image=$image doc_port=$doc_port
$block") || { log "docs/deployment.md's five-minute block failed"; "${podman[@]}" logs mqprobe-qm1 >&2 || true; exit 1; }
case "$reply" in
  *'"status":"COMPLETED"'*) log "docs/deployment.md's five-minute block: PRODUCE COMPLETED" ;;
  *) log "docs/deployment.md's five-minute block replied: $reply"; exit 1 ;;
esac
"${podman[@]}" volume rm -f mqprobe-data >/dev/null 2>&1 || true

log "image sizes:"
"${podman[@]}" images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$image" >&2
log "done in $((SECONDS - started))s"
