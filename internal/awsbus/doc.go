// Package awsbus holds the AWS transports of the command bus and the results
// destination: a watermill subscriber that takes commands off
// an SQS queue (fed directly, by SNS or by EventBridge), keeps them invisible
// while they run and redelivers nacked ones after the delay the handler asks
// for; and a result publisher to an SNS topic or an SQS queue. Their client
// ends are here too, for the CLI: SendCommand puts a command on the queue or
// topic, AwaitResult takes its result off a results queue.
//
// Bodies are delivered as received: SNS and EventBridge envelopes are
// unwrapped by the command decoder (internal/command).
//
// Their configuration is here as well: SubscriberConfig is the sqs section,
// PublisherConfig the keys results.snsTopicArn and results.sqsQueue.
package awsbus
