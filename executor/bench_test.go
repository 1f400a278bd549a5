package executor

import (
	"context"
	"testing"

	"github.com/ledgerline/research/ledger"
)

// BenchmarkRunThreeIssuers runs the three-issuer comparison end to end in
// rules mode over the sample corpus (embedded stores), with the default
// semaphores and with every semaphore at one slot, so the real graph runs
// one node at a time.
func BenchmarkRunThreeIssuers(b *testing.B) {
	for _, mode := range []struct {
		name  string
		slots int
	}{{"concurrent", 0}, {"serial", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			eng, _ := newBenchEngine(b, mode.slots)
			for b.Loop() {
				res, err := eng.Run(context.Background(), Request{Question: threeIssuers})
				if err != nil {
					b.Fatal(err)
				}
				if res.Status != ledger.StatusSupported {
					b.Fatalf("status %s", res.Status)
				}
			}
		})
	}
}
