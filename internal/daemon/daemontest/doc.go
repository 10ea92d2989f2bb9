// Package daemontest holds what the end-to-end tests of internal/daemon
// (embedded mode, in-process) and internal/daemon/e2e (the daemon as a
// process, and aws mode on local AWS emulators) share, and nothing either uses alone: a daemon running
// in-process (Start, Harness), `mqprobe run` processes (Binary, Process,
// StartProcess), the fault-injection suite's figures and MQ probes
// (FaultFigures, ReportFault, FaultProduce, QueueDepth), trace-tree
// rendering (Recording, Tree) and the closed-loop benchmark driver
// (ClosedLoop, BenchPost).
//
// Like net/http/httptest it is for tests only: its functions take a
// testing.TB and fail it rather than return errors.
package daemontest
