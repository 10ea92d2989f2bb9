// Package awsmode holds the aws-mode end-to-end tests of the daemon
// (package awsmode_test): commands over SQS, SNS and EventBridge, results
// to SQS and SNS, records in DynamoDB, in-process daemons and `mqprobe run`
// processes, fault injection and the aws-mode benchmarks. Its TestMain runs
// them against goaws (SQS, SNS) with dynalite (DynamoDB), and against moto,
// the second, independent emulator; the embedded-mode tests, which need
// neither, are in the parent directory. The package has no code of its own;
// what the two test packages share is in internal/daemon/daemontest.
package awsmode
