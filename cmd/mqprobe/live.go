package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"
)

// counter is one figure of a progress line, as the live line shows it
// ("recv 1198") and as a plain line logs it ("received=1198").
type counter struct {
	live, plain string
}

// progressLine shows a running command: on a terminal one line rewritten
// in place, otherwise (logs, pipes) a plain line at most every `every`.
// send test and send produce|consume --wait share it.
type progressLine struct {
	w     io.Writer
	tty   bool
	every time.Duration

	last    time.Time // of the last plain line
	drawn   int       // width of the live line on screen; 0 when none
	printed bool
}

// show draws the progress: frac is how far the command is, 0..1, or -1
// when unknown; limit is its planned length, 0 when it has none.
func (p *progressLine) show(frac float64, elapsed, limit time.Duration, counters []counter, now time.Time) {
	head := progressOf(frac, elapsed, limit)
	if p.tty {
		const width = 20
		bar := strings.Repeat("?", width)
		if frac >= 0 {
			n := int(min(frac, 1) * width)
			bar = strings.Repeat("#", n) + strings.Repeat("-", width-n)
		}
		parts := []string{"[" + bar + "] " + head}
		for _, c := range counters {
			parts = append(parts, c.live)
		}
		line := strings.Join(parts, "  ")
		pad := ""
		if n := p.drawn - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprint(p.w, "\r"+line+pad)
		p.drawn = len(line)
		return
	}
	if p.printed && now.Sub(p.last) < p.every {
		return
	}
	p.printed, p.last = true, now
	plain := make([]string, len(counters))
	for i, c := range counters {
		plain[i] = c.plain
	}
	fmt.Fprintln(p.w, "progress "+head+"  "+strings.Join(plain, " "))
}

// end finishes the live line so what follows starts on a line of its own.
func (p *progressLine) end() {
	if p.drawn > 0 {
		fmt.Fprintln(p.w)
		p.drawn = 0
	}
}

// progressOf is "12.4s/30s  41%": elapsed, the limit when known, the
// fraction when known.
func progressOf(frac float64, elapsed, limit time.Duration) string {
	s := elapsed.Round(time.Second).String()
	if elapsed < time.Minute {
		s = strconv.FormatFloat(elapsed.Seconds(), 'f', 1, 64) + "s"
	}
	if limit > 0 {
		s += "/" + limit.String()
	}
	if frac >= 0 {
		s += fmt.Sprintf(" %3.0f%%", min(frac, 1)*100)
	}
	return s
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
