package jobs

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// TestRetryPolicy holds the delays exactly, with the jitter drawn from a
// fixed source: "low" draws nothing (the delay's kept half), "high" the
// most it may (the whole delay).
func TestRetryPolicy(t *testing.T) {
	low := func(time.Duration) time.Duration { return 0 }
	high := func(n time.Duration) time.Duration { return n - 1 }
	worker := retryPolicy{first: time.Second, limit: time.Minute} // NewWorker's
	with := func(p retryPolicy, rand func(time.Duration) time.Duration) retryPolicy {
		p.rand = rand
		return p
	}
	tests := []struct {
		name    string
		policy  retryPolicy
		attempt int
		want    time.Duration
	}{
		{"attempt 0 is the first", with(worker, high), 0, time.Second},
		{"first retry, high", with(worker, high), 1, time.Second},
		{"first retry, low", with(worker, low), 1, 500 * time.Millisecond},
		{"second retry doubles", with(worker, high), 2, 2 * time.Second},
		{"third retry doubles twice, low", with(worker, low), 3, 2 * time.Second},
		{"capped at limit, high", with(worker, high), 7, time.Minute},
		{"capped at limit, low", with(worker, low), 7, 30 * time.Second},
		{"no overflow far out", with(worker, high), 100, time.Minute},
		{"no overflow far out, low", with(worker, low), 1 << 20, 30 * time.Second},
		{"first above limit", retryPolicy{first: time.Hour, limit: time.Minute, rand: high}, 1, time.Minute},
		{"odd limit, high", retryPolicy{first: 3, limit: 5, rand: high}, 2, 4},
		{"a nanosecond has no jitter", retryPolicy{first: 1, limit: time.Second, rand: high}, 1, 1},
		{"a source below range", with(worker, func(time.Duration) time.Duration { return -time.Hour }), 1, 500 * time.Millisecond},
		{"a source above range", with(worker, func(time.Duration) time.Duration { return time.Hour }), 1, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.backoff(tt.attempt); got != tt.want {
				t.Errorf("backoff(%d) = %s, want %s", tt.attempt, got, tt.want)
			}
		})
	}

	// The source is asked for a duration in [0, half the delay].
	var asked []time.Duration
	p := with(worker, func(n time.Duration) time.Duration { asked = append(asked, n); return 0 })
	p.backoff(2)
	if len(asked) != 1 || asked[0] != time.Second+1 {
		t.Errorf("jitter asked for below %v; want one draw, below 1.000000001s", asked)
	}
}

// TestRetryPolicySpread: with the default source, retries of runs that
// failed together come back within [d/2, d] of each other's failure, and
// spread out over it.
func TestRetryPolicySpread(t *testing.T) {
	p := retryPolicy{first: time.Second, limit: time.Minute}
	seen := map[time.Duration]bool{}
	for range 20 {
		before := time.Now()
		got := p.NextRetry(&rivertype.JobRow{Attempt: 7}).Sub(before)
		if got < 30*time.Second || got > time.Minute+time.Second {
			t.Fatalf("attempt 7: retry in %s; want within [30s, 1m]", got)
		}
		seen[got.Round(100*time.Millisecond)] = true
	}
	if len(seen) < 5 {
		t.Errorf("20 retries of the same attempt fall on %d instants; want them spread", len(seen))
	}
}
