// Package e2e holds the daemon's end-to-end suites (package e2e_test): the
// daemon as a process — `mqprobe run` started, restarted, upgraded,
// attacked and walked through the documentation, in embedded and aws mode —
// and aws mode over AWS emulators, in-process and as processes: commands
// over SQS, SNS and EventBridge, results to SQS and SNS, records in
// DynamoDB, fault injection and the aws-mode benchmarks. Its TestMain runs
// the aws-mode tests against goaws (SQS, SNS) with dynalite (DynamoDB), and
// against moto, the second, independent emulator. The in-process
// embedded-mode tests are in the parent directory. The package has no code
// of its own; what the test packages share is in
// internal/daemon/daemontest.
package e2e
