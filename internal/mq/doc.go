// Package mq is the MQ port: what the handlers need from IBM MQ,
// independent of how it is reached.
//
// It owns:
//   - Target: how to reach a queue manager (connName list, channel, CCDT,
//     TLS, user and an already-resolved password that never prints);
//   - Backend, Conn and Queue: connect, open, put, get/browse with wait and
//     msgId/correlId selection, inquire queue and queue manager,
//     commit/backout;
//   - Message: the MQMD fields, properties and payload, designed for reuse so
//     put/get loops do not allocate per message;
//   - Batch and PutBatch: a run of messages sharing a descriptor, put in one
//     call where the queue is a BatchPutter (IBM MQ: one crossing into the
//     client library), one Put each elsewhere;
//   - Error and Reason: MQ completion and reason codes with IBM's names and
//     the transient/permanent classification that decides retry or failure;
//   - Pool: connections shared per target, replaced with exponential backoff
//     and jitter when they break.
//
// Backends live in subpackages: embedded (an in-process queue manager) and
// ibmmq (the IBM MQ client via mq-golang, build tag ibmmq). mqtest holds the
// one test suite both must pass.
package mq
