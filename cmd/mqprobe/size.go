package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"
)

// sizeValue is a size flag: plain bytes (1024) or a size with a unit,
// binary (2KiB, 1MiB) or decimal (2KB, 1MB), as users write them.
type sizeValue struct{ bytes *int }

// sizeVar defines a size flag holding bytes in p.
func sizeVar(f *pflag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	f.Var(sizeValue{p}, name, usage+"; plain bytes or with a unit: 2KiB, 1MiB (1024-based), 2KB, 1MB (1000-based)")
}

func (v sizeValue) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil || n > math.MaxInt32 {
		return fmt.Errorf("give bytes (1024) or a size with a unit: 2KiB, 1MiB (1024-based), 2KB, 1MB (1000-based)")
	}
	*v.bytes = int(n)
	return nil
}

func (v sizeValue) String() string {
	if v.bytes == nil {
		return "0"
	}
	return strconv.Itoa(*v.bytes)
}

func (v sizeValue) Type() string { return "size" }
