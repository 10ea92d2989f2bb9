// Package config owns mqprobe's configuration: the Config
// struct and its built-in defaults (embedded mode, zero setup), loading one
// YAML file, overriding it from MQPROBE_* environment variables, validating
// every setting with errors that name the dotted key, redacting secrets for
// printing, and the key listing the configuration reference (docs/configuration.md) is
// generated from.
//
// The environment rule is one for every key: key a.b.c is set by
// MQPROBE_A_B_C (upper-cased, dots become underscores), so
// idempotency.recordTTL is MQPROBE_IDEMPOTENCY_RECORDTTL. Entries of
// targets.profiles are addressed by their upper-cased name
// (MQPROBE_TARGETS_PROFILES_QM1_QUEUE) but only when the file declares the
// profile; list entries (mq.embedded.queueManagers) are YAML only. An
// MQPROBE_* variable that names no key is an error, except those matched by
// NonConfigEnv. Standard AWS_* and OTEL_* variables are left to their SDKs.
//
// It does not resolve secret references (passwordRef and friends) nor build
// any component: callers map these sections onto their own packages.
package config
