package bench

import (
	"slices"
	"testing"
	"time"
)

// durations returns 1ms..n ms in a scrambled order.
func durations(n int) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[(i*7919)%n] = time.Duration(i+1) * time.Millisecond
	}
	return ds
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name string
		in   []time.Duration
		want Latency
	}{
		{"empty", nil, Latency{}},
		{"one", []time.Duration{3 * ms}, Latency{N: 1, Mean: 3 * ms, P50: 3 * ms, P95: 3 * ms, P99: 3 * ms, Max: 3 * ms}},
		{"two", []time.Duration{4 * ms, 2 * ms}, Latency{N: 2, Mean: 3 * ms, P50: 2 * ms, P95: 4 * ms, P99: 4 * ms, Max: 4 * ms}},
		{"ten", durations(10), Latency{N: 10, Mean: 5500 * time.Microsecond, P50: 5 * ms, P95: 10 * ms, P99: 10 * ms, Max: 10 * ms}},
		{"hundred", durations(100), Latency{N: 100, Mean: 50500 * time.Microsecond, P50: 50 * ms, P95: 95 * ms, P99: 99 * ms, Max: 100 * ms}},
		{"two hundred", durations(200), Latency{N: 200, Mean: 100500 * time.Microsecond, P50: 100 * ms, P95: 190 * ms, P99: 198 * ms, Max: 200 * ms}},
		{"outlier", append(slices.Repeat([]time.Duration{ms}, 99), time.Second),
			Latency{N: 100, Mean: 10990 * time.Microsecond, P50: ms, P95: ms, P99: ms, Max: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tt.in)
			if got := Summarize(in); got != tt.want {
				t.Errorf("Summarize = %+v, want %+v", got, tt.want)
			}
			if !slices.Equal(in, tt.in) {
				t.Error("Summarize modified its input")
			}
		})
	}
}

func TestLatencyJSON(t *testing.T) {
	t.Parallel()
	b, err := Summarize([]time.Duration{1500 * time.Microsecond}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"n":1,"mean_ms":1.5,"p50_ms":1.5,"p95_ms":1.5,"p99_ms":1.5,"max_ms":1.5}`
	if string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
}
