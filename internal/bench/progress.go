package bench

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress writes timestamped lines, with the time since the run began, so
// that a long run shows where it is. It is safe for concurrent use.
type progress struct {
	start time.Time

	mu sync.Mutex
	w  io.Writer // guarded by mu
}

func newProgress(w io.Writer) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{start: time.Now(), w: w}
}

func (p *progress) printf(format string, args ...any) {
	now := time.Now()
	line := fmt.Sprintf(format, args...)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s %+8.1fs  %s\n", now.Format("15:04:05"), now.Sub(p.start).Seconds(), line)
}

// every returns a func to call after each of n items that prints a line
// with what, the count and the rate at most every interval.
func (p *progress) every(what string, n int, interval time.Duration) func(done int) {
	start := time.Now()
	var mu sync.Mutex
	last := start
	return func(done int) {
		mu.Lock()
		now := time.Now()
		if now.Sub(last) < interval && done < n {
			mu.Unlock()
			return
		}
		last = now
		mu.Unlock()
		elapsed := now.Sub(start).Seconds()
		p.printf("%s: %d/%d (%.0f/s)", what, done, n, float64(done)/max(elapsed, 1e-9))
	}
}
