package executor

import (
	"context"
	"testing"

	"github.com/ledgerline/research/internal/benchq"
	"github.com/ledgerline/research/ledger"
)

// BenchmarkRunThreeIssuers runs the three-issuer comparison end to end in
// rules mode over the sample corpus (embedded stores), with the default
// semaphores and with every semaphore at one slot, so the real graph runs
// one node at a time. One run before the timing builds what an engine
// builds once (the corpus's text statistics), so an op is a run of an
// engine in service.
func BenchmarkRunThreeIssuers(b *testing.B) {
	for _, mode := range []struct {
		name  string
		slots int
	}{{"concurrent", 0}, {"serial", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			eng, _ := newBenchEngine(b, mode.slots)
			run := func() {
				res, err := eng.Run(context.Background(), Request{Question: threeIssuers})
				if err != nil {
					b.Fatal(err)
				}
				if res.Status != ledger.StatusSupported {
					b.Fatalf("status %s", res.Status)
				}
			}
			run()
			for b.Loop() {
				run()
			}
		})
	}
}

// BenchmarkRunService runs the load test's eight questions in turn, one
// op each, in rules mode over the sample corpus (embedded stores): the
// CPU a worker spends per run, which bounds the API's runs per second.
func BenchmarkRunService(b *testing.B) {
	eng, _ := newBenchEngine(b, 0)
	run := func(q string) {
		res, err := eng.Run(context.Background(), Request{Question: q, Mode: ledger.ModeRules})
		if err != nil {
			b.Fatal(err)
		}
		if res.Status == ledger.StatusFailed {
			b.Fatalf("%q: status %s", q, res.Status)
		}
	}
	run(benchq.Service[0])
	i := 0
	for b.Loop() {
		run(benchq.Service[i%len(benchq.Service)])
		i++
	}
}
