# shellcheck shell=bash
# Helpers shared by the scripts that run test servers; sourced, not run.
# Sets root (the repository).

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# log writes to stderr, prefixed with the running script's name.
log() { echo "$(basename "$0"): $*" >&2; }

# port_free reports whether nothing listens on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# http_ok URL reports whether URL answers with a 2xx status (within 2 s).
http_ok() { curl -fsS -m 2 -o /dev/null "$1" 2>/dev/null; }

# wait_ready PID SECONDS WHAT CHECK [ARGS...] waits until CHECK ARGS succeeds
# (e.g. http_ok URL), trying every 0.1 s, for the server PID that this shell
# has just started in the background. It fails when PID exits first (and
# reaps it), or, after killing PID, when SECONDS pass; then it logs that
# WHAT did not answer.
wait_ready() {
  local pid=$1 tries=$(($2 * 10)) seconds=$2 what=$3
  shift 3
  for _ in $(seq 1 "$tries"); do
    "$@" && return 0
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 1; }
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  log "$what did not answer within ${seconds}s"
  return 1
}

# ensure_aws_cli puts an AWS CLI on PATH, an outside client tests hold
# mqprobe to: the machine's, else awscli installed by pip into
# .build/tools/awscli. It fails when neither can be had.
ensure_aws_cli() {
  command -v aws >/dev/null && return 0
  local awscli="$root/.build/tools/awscli"
  if [ ! -x "$awscli/bin/aws" ]; then
    log "installing the AWS CLI into $awscli"
    if ! { python3 -m venv "$awscli" && "$awscli/bin/pip" install --quiet "awscli==1.45.11"; } >&2; then
      log "no aws on PATH, and pip could not install awscli"
      return 1
    fi
  fi
  export PATH="$awscli/bin:$PATH"
}

# stop_pid FILE ends the process whose pid FILE holds (TERM, KILL after 5 s)
# and removes FILE; without FILE there is nothing to stop.
stop_pid() {
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

# build_tool NAME [NOTE] builds tools/NAME (a Go module of its own, outside
# mqprobe's dependency graph) into .build/tools/NAME when the binary is
# missing or older than its sources. It writes a temporary file and renames
# it, so concurrent starts never run a half-written binary.
build_tool() {
  local src="$root/tools/$1" bin="$root/.build/tools/$1"
  if [ -x "$bin" ] && [ -z "$(find "$src" -type f -newer "$bin" -print -quit)" ]; then
    return 0
  fi
  log "building $bin${2:+ ($2)}"
  mkdir -p "$(dirname "$bin")"
  local tmp="$bin.tmp.$$"
  (cd "$src" && go build -o "$tmp" .) >&2
  mv -f "$tmp" "$bin"
}
