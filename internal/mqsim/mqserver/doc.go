// Package mqserver serves the queue managers of the embedded backend
// (internal/mq/embedded) to MQI clients over TCP, in the project's own wire
// protocol (internal/mqsim/PROTOCOL.md). Its client is the project's MQ
// client library (internal/mqsim/clientlib), so IBM's mq-golang
// binding, the ibmmq adapter and C programs written for IBM's client all
// meet one queue manager that several processes can share.
//
// The package owns what sits between the wire and the queue manager:
// frames and their size bound, channels and their TLS (CipherSpecs,
// SSLCAUTH, SSLPEER; tls.go), users and passwords, the
// negotiated message length (2010), and the MQI's rules for options and
// descriptors (MQOO, MQPMO, MQGMO, MQMD, MQINQ selectors) with their reason
// codes. Queue semantics (ordering, units of work, browse cursors, expiry,
// truncation, depth and size limits, aliases and remote definitions,
// injected faults) are the embedded queue manager's.
//
// A Server runs one goroutine per TCP connection, owned by the server:
// Close stops them all, and a connection that drops backs out its unit of
// work, as a queue manager does for a lost client. Stats counts open
// connections and handles so tests can check nothing leaks.
package mqserver
