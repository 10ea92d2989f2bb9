//go:build ibmmq

package main

// versionIBMMQLine is what `mqprobe version` says of IBM MQ in this build.
const versionIBMMQLine = "\n  IBM MQ:      compiled in (build tag ibmmq)\n"
