package ledger_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

// A run records what its tools found; the same span found again is a
// duplicate, a span inside one held is contained, and only new spans count
// for the stop rule.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ledger-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := embeddedledger.Open(dir, nil) // or pgledger.New(pool, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	doc := strings.Repeat("9b", 32) // a document id: the hex sha256 of its canonical text
	if _, _, err := store.OpenRun(ctx, ledger.Run{ID: "run-1", Question: "Did gross margin fall?",
		CorpusSnapshot: ledger.CorpusSnapshot([]string{doc})}); err != nil {
		log.Fatal(err)
	}
	if _, err := store.AddRequirements(ctx, "run-1", []ledger.Requirement{{ID: "margin", Issuer: "ACME", Period: "FY2024"}}); err != nil {
		log.Fatal(err)
	}

	margin := ledger.Evidence{Kind: ledger.KindPassage, DocumentID: doc, Start: 100, End: 160, Excerpt: "Gross margin fell to 41.25%."}
	value := ledger.Evidence{Kind: ledger.KindFact, DocumentID: doc, Start: 121, End: 127, Excerpt: "41.25%"}
	for _, callID := range []string{"search-1", "search-2"} {
		res, err := store.RecordToolResult(ctx, "run-1", &ledger.ToolResult{
			Call:     ledger.ToolCall{ID: callID, Tool: "search_filings", RequirementID: "margin"},
			Evidence: []ledger.Evidence{margin, value},
			Facts: []ledger.Fact{{EvidenceID: ledger.EvidenceID(doc, 121, 127), Concept: "GrossMarginPercent",
				Value: decimal.RequireFromString("41.25"), Unit: "pure"}},
			Search: &ledger.Search{Query: "gross margin", CandidatesSeen: 8},
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(callID, res.Evidence, "new:", res.NewEvidence)
	}
	rep, err := ledger.Export(ctx, store, "run-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rep.Evidence), "evidence,", len(rep.SearchHistory), "searches, fact", rep.Facts[0].Value)
	// Output:
	// search-1 [E6ef905d93eea new E604a2f7de8fb contained in E6ef905d93eea] new: 1
	// search-2 [E6ef905d93eea duplicate E604a2f7de8fb duplicate] new: 0
	// 2 evidence, 2 searches, fact 41.25
}
