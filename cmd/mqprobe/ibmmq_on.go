//go:build ibmmq

package main

// ibmmqCompiledIn: built with -tags ibmmq, mq.backend ibmmq is available.
const ibmmqCompiledIn = true
