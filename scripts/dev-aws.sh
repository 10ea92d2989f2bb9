#!/usr/bin/env bash
# Runs mqprobe in aws mode against local emulators, no Docker: goaws (SQS,
# SNS) on 127.0.0.1:4100 and dynalite (DynamoDB) on 127.0.0.1:4567, with the
# command queue (redriven to a DLQ after 5 receives), the results topic and a
# results queue subscribed to it, and the idempotency table; then the daemon
# (configs/aws-local.yaml) in the foreground. Ctrl-C stops everything.
#
# Ports: MQPROBE_DEV_SQS_PORT (4100), MQPROBE_DEV_DYNAMODB_PORT (4567), and
# the daemon's 8080 (MQPROBE_HTTP_ADDR to move it); checked before anything
# starts, naming the process that holds a port.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
state="$root/.build/dev-aws"
sqs_port=${MQPROBE_DEV_SQS_PORT:-4100}
ddb_port=${MQPROBE_DEV_DYNAMODB_PORT:-4567}

http_port=${MQPROBE_HTTP_ADDR:-127.0.0.1:8080}
http_port=${http_port##*:}

# port_holder prints "name (pid N)" of the process listening on TCP port $1,
# "another user's process" when it cannot be seen, or nothing when the port
# is free.
port_holder() {
  local port=$1 line inode fd
  if command -v ss >/dev/null 2>&1; then
    line=$(ss -Hltnp "sport = :$port" 2>/dev/null | head -1)
    [ -n "$line" ] || return 0
    if [[ $line =~ users:\(\(\"([^\"]+)\",pid=([0-9]+) ]]; then
      echo "${BASH_REMATCH[1]} (pid ${BASH_REMATCH[2]})"
    else
      echo "another user's process"
    fi
    return 0
  fi
  # No ss: the listening socket's inode from /proc/net/tcp{,6} (state 0A),
  # then the process holding it.
  inode=$(awk -v p="$(printf ':%04X' "$port")" '$4 == "0A" && substr($2, length($2) - 4) == p { print $10; exit }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  [ -n "$inode" ] || return 0
  for fd in /proc/[0-9]*/fd/*; do
    if [ "$(readlink "$fd" 2>/dev/null)" = "socket:[$inode]" ]; then
      fd=${fd#/proc/}
      echo "$(cat "/proc/${fd%%/*}/comm" 2>/dev/null) (pid ${fd%%/*})"
      return 0
    fi
  done
  echo "another user's process"
}

busy=0
for check in "$sqs_port goaws (SQS, SNS; MQPROBE_DEV_SQS_PORT)" "$ddb_port dynalite (DynamoDB; MQPROBE_DEV_DYNAMODB_PORT)" \
  "$http_port the daemon's HTTP API (MQPROBE_HTTP_ADDR)"; do
  port=${check%% *}
  holder=$(port_holder "$port")
  if [ -n "$holder" ]; then
    echo "dev-aws: port $port, for ${check#* }, is taken by $holder: stop it or choose another port" >&2
    busy=1
  fi
done
[ "$busy" -eq 0 ] || exit 1

stop() {
  bash scripts/goaws.sh stop "$state/goaws" >/dev/null 2>&1 || true
  bash scripts/dynalite.sh stop "$state/dynalite" >/dev/null 2>&1 || true
}
trap stop EXIT
mkdir -p "$state"

sqs=$(bash scripts/goaws.sh start "$state/goaws" "$sqs_port")
ddb=$(bash scripts/dynalite.sh start "$state/dynalite" "$ddb_port")
export AWS_ENDPOINT_URL_SQS=$sqs AWS_ENDPOINT_URL_SNS=$sqs AWS_ENDPOINT_URL_DYNAMODB=$ddb
export AWS_REGION=${AWS_REGION:-us-east-1} AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}

# query calls goaws's query API (form posts, XML answers): no client needed.
query() { curl -sf -X POST "$sqs/" --data-urlencode "$@"; }
xml() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" | head -1; }

query Action=CreateQueue -d QueueName=mqprobe-commands-dlq >/dev/null
dlq_arn=$(query Action=GetQueueAttributes -d QueueUrl="$sqs/100010001000/mqprobe-commands-dlq" -d AttributeName.1=QueueArn | xml Value)
query Action=CreateQueue -d QueueName=mqprobe-commands \
  -d Attribute.1.Name=RedrivePolicy --data-urlencode "Attribute.1.Value={\"deadLetterTargetArn\":\"$dlq_arn\",\"maxReceiveCount\":\"5\"}" \
  -d Attribute.2.Name=VisibilityTimeout -d Attribute.2.Value=60 >/dev/null
query Action=CreateQueue -d QueueName=mqprobe-results >/dev/null
results_arn=$(query Action=GetQueueAttributes -d QueueUrl="$sqs/100010001000/mqprobe-results" -d AttributeName.1=QueueArn | xml Value)
topic=$(query Action=CreateTopic -d Name=mqprobe-results | xml TopicArn)
sub=$(query Action=Subscribe -d TopicArn="$topic" -d Protocol=sqs -d Endpoint="$results_arn" | xml SubscriptionArn)
query Action=SetSubscriptionAttributes -d SubscriptionArn="$sub" -d AttributeName=RawMessageDelivery -d AttributeValue=true >/dev/null

make -s build-bin
export MQPROBE_CONFIG=configs/aws-local.yaml MQPROBE_RESULTS_SNSTOPICARN=$topic
./bin/mqprobe store init

cat <<EOT

  SQS/SNS   $sqs      command queue  $sqs/100010001000/mqprobe-commands
  DynamoDB  $ddb      table          mq-probe-idempotency
  results   $topic -> $sqs/100010001000/mqprobe-results

EOT
./bin/mqprobe run
