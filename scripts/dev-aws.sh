#!/usr/bin/env bash
# Runs mqprobe in aws mode against local emulators, no Docker: goaws (SQS,
# SNS) on 127.0.0.1:4100 and dynalite (DynamoDB) on 127.0.0.1:4567, with the
# command queue (redriven to a DLQ after 5 receives), the results topic and a
# results queue subscribed to it, and the idempotency table; then the daemon
# (configs/aws-local.yaml) in the foreground. Ctrl-C stops everything.
#
# Ports: MQPROBE_DEV_SQS_PORT (4100), MQPROBE_DEV_DYNAMODB_PORT (4567).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
state="$root/.build/dev-aws"
sqs_port=${MQPROBE_DEV_SQS_PORT:-4100}
ddb_port=${MQPROBE_DEV_DYNAMODB_PORT:-4567}

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
