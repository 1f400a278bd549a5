package jobs

import (
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// retryPolicy is River's retry policy for runs. The delay before the next
// attempt starts at first and doubles with each further attempt, up to
// limit, with "equal jitter" as executor.RetryPolicy's backoff: half of it
// is kept and a random part of up to the other half added. Runs that failed
// together (a database that blinked) come back spread out, yet none comes
// back at once into a database that may still be recovering; one that
// stays down is not hammered.
type retryPolicy struct {
	first, limit time.Duration
	// rand draws the jitter: a uniformly random duration in [0, n), n > 0.
	// nil means math/rand/v2's. River calls NextRetry concurrently. Tests
	// set it to make the delays exact.
	rand func(n time.Duration) time.Duration
}

// NextRetry is when job's next attempt may start.
func (p retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(p.backoff(job.Attempt))
}

// backoff is the wait after attempt (1 for the first) failed: first, doubled
// per attempt after the first, up to limit; then jittered, within
// [d/2, d].
func (p retryPolicy) backoff(attempt int) time.Duration {
	d := min(p.first, p.limit)
	for i := 1; i < attempt && d < p.limit; i++ {
		if d > p.limit/2 {
			d = p.limit // doubling would pass limit (or overflow)
			break
		}
		d *= 2
	}
	if d > 1 {
		d = d/2 + p.jitter(d/2+1)
	}
	return d
}

// jitter is a random duration in [0, n).
func (p retryPolicy) jitter(n time.Duration) time.Duration {
	if p.rand == nil {
		return rand.N(n)
	}
	return min(max(p.rand(n), 0), n-1) // a source out of range cannot stretch a wait past limit
}
