package jobs

import (
	"context"
	"testing"
)

// BenchmarkSubmit measures one submission: the corpus snapshot, the
// insert-only River client and the transaction writing the run, its
// submission row and its job.
func BenchmarkSubmit(b *testing.B) {
	ctx := context.Background()
	pool := setupBench(b)
	for b.Loop() {
		if _, err := Submit(ctx, pool, "acme", Submission{Question: questions[0]}); err != nil {
			b.Fatal(err)
		}
	}
}
