// Package config assembles mqprobe's configuration from the packages that
// own it, as Loki's pkg/loki does: each package's Config (mq.PoolConfig,
// embedded.Config, idempotency.Config, command.DecoderConfig,
// admission.Config, targets.Settings, tenant.Config, httpapi.Settings,
// awsbus.SubscriberConfig, and the results and bus keys of executor, result,
// httpapi and awsbus) carries its keys' yaml and desc tags, its defaults and
// a Validate naming the dotted key; Config embeds them beside the daemon's
// own sections (mode, console, idempotency stores, aws, log...).
// This package loads one YAML file over the built-in defaults (embedded
// mode, zero setup), overrides it from MQPROBE_* environment variables,
// validates the daemon's sections and the rules that span sections, redacts
// secrets for printing, and lists the keys the configuration reference
// (docs/configuration.md) is generated from.
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
// any component: the daemon hands each package its section.
package config
