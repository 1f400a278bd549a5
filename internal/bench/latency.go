package bench

import (
	"encoding/json"
	"slices"
	"time"
)

// Latency summarises the durations of timed operations. Percentiles are
// nearest-rank: P95 is the smallest duration at least 95% of the
// operations took no longer than.
type Latency struct {
	N    int
	Mean time.Duration
	P50  time.Duration
	P95  time.Duration
	P99  time.Duration
	Max  time.Duration
}

// Summarize returns the latency summary of ds; the zero Latency when ds is
// empty. ds is not modified.
func Summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return Latency{
		N:    len(sorted),
		Mean: sum / time.Duration(len(sorted)),
		P50:  percentile(sorted, 50),
		P95:  percentile(sorted, 95),
		P99:  percentile(sorted, 99),
		Max:  sorted[len(sorted)-1],
	}
}

// percentile returns the nearest-rank p-th percentile of sorted, which is
// not empty: the value at rank ⌈p·n/100⌉.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

// MarshalJSON writes the durations as milliseconds.
func (l Latency) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N    int     `json:"n"`
		Mean float64 `json:"mean_ms"`
		P50  float64 `json:"p50_ms"`
		P95  float64 `json:"p95_ms"`
		P99  float64 `json:"p99_ms"`
		Max  float64 `json:"max_ms"`
	}{l.N, ms(l.Mean), ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max)})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
