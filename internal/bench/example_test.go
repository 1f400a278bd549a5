package bench_test

import (
	"fmt"
	"time"

	"github.com/ledgerline/research/internal/bench"
)

func ExampleSummarize() {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := bench.Summarize(ds)
	fmt.Println(l.N, l.P50, l.P95, l.P99, l.Mean)
	// Output: 100 50ms 95ms 99ms 50.5ms
}

func ExampleRecall() {
	exact := []string{"a", "b", "c", "d"}
	fmt.Println(bench.Recall([]string{"a", "c", "x", "y"}, exact))
	// Output: 0.5
}
