//go:build ibmmq

package daemontest

// binaryTags are the build tags Binary builds the daemon with: the test
// binary's own.
const binaryTags = "ibmmq"
