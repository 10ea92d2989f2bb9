//go:build !ibmmq

package main

// versionIBMMQLine is what `mqprobe version` says of IBM MQ in this build.
const versionIBMMQLine = "\n  IBM MQ:      not compiled in (embedded queue manager only; build with -tags ibmmq)\n"
