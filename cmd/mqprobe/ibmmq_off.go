//go:build !ibmmq

package main

// ibmmqCompiledIn: built without -tags ibmmq, only the embedded queue
// manager is available.
const ibmmqCompiledIn = false
