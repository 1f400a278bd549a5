package corpus

import (
	"context"
	"errors"
	"strings"
	"time"
)

// ErrNotFound is returned when a document, chunk or filing is not stored.
var ErrNotFound = errors.New("corpus: not found")

// Filter restricts a search. The zero Filter matches every chunk.
type Filter struct {
	Tickers     []string // any of these tickers (upper case); empty means all
	Form        string   // exact form, e.g. "10-K"; empty means all
	FiscalYears []int    // any of these fiscal years; empty means all
	Section     string   // canonical section name as produced by NormalizeSection ("Item 7"); empty means all
}

// FactFilter selects facts. Empty fields match everything.
type FactFilter struct {
	DocumentID string
	Ticker     string
	Concept    string    // qualified concept name, exact match
	Kind       string    // FactXBRL or FactTable; "" means any
	Label      string    // the row label, exact match
	Member     string    // facts with this explicit dimension member (on any axis)
	PeriodEnd  time.Time // end of the period or the instant; zero means any
	Limit      int       // 0 means no limit
}

// StoreStats summarises what a store holds.
type StoreStats struct {
	Documents int
	Chunks    int
	Facts     int
	Embedders []string // distinct Document.Embedder values, sorted
}

// Store persists documents, chunks and facts and answers the two retrieval
// primitives that hybrid search fuses. Implementations: the Postgres store
// (package pgstore) and the embedded store (package embedded); both pass the
// contract suite in package storetest.
//
// Full-text semantics, shared by both: the query is read like a web search
// (words are ANDed, "quoted phrases" must appear in order, -word excludes,
// "or" between words makes alternatives) with English stemming and stop
// words. When the AND reading finds fewer than k chunks, chunks matching any
// of the words are appended after them, so a long natural-language question
// still finds its best partial matches. Scores are higher-is-better and only
// comparable within one result list.
type Store interface {
	// AddDocument stores a document (with Text), its chunks (with
	// embeddings) and its facts in one transaction. It returns false and no
	// error when a document with the same ID is already stored; nothing
	// changes then.
	AddDocument(ctx context.Context, doc *Document, chunks []Chunk, facts []Fact) (added bool, err error)

	// Document returns the stored document with its Text, or ErrNotFound.
	Document(ctx context.Context, id string) (*Document, error)

	// FindFiling returns the stored document (without Text) for the filing
	// identified by ticker, form and period end, or ErrNotFound.
	FindFiling(ctx context.Context, ticker, form string, periodEnd time.Time) (*Document, error)

	// Documents lists stored documents without their Text, ordered by
	// ticker, period end and form.
	Documents(ctx context.Context) ([]Document, error)

	// Chunks returns the chunks with the given ids, in the order asked, as
	// search results with score 0. Unknown ids are skipped.
	Chunks(ctx context.Context, ids []string) ([]SearchResult, error)

	// FullTextSearch returns up to k chunks matching query under f, best first.
	FullTextSearch(ctx context.Context, query string, f Filter, k int) ([]SearchResult, error)

	// VectorSearch returns the k chunks under f nearest to vec by cosine
	// distance, best first; Score is the cosine similarity. When at least k
	// chunks match f, exactly k are returned.
	VectorSearch(ctx context.Context, vec []float32, f Filter, k int) ([]SearchResult, error)

	// Facts returns the facts matching f, ordered by document and then
	// in the order they were added.
	Facts(ctx context.Context, f FactFilter) ([]Fact, error)

	// Stats summarises the store's contents.
	Stats(ctx context.Context) (StoreStats, error)

	// Close releases the store's resources.
	Close() error
}

// FactLabel is a row label a filing prints beside a figure, with the
// figure's offset in the canonical text.
type FactLabel struct {
	Start int
	Label string
}

// PartLabel is the label a table fact is listed by in FactLabels: its own,
// or for a part's fact (see TablePartAxis) the part's name, which is what
// the row prints; "" for a fact with other dimensions.
func PartLabel(label, part string) string {
	if part == "" {
		return label
	}
	return strings.TrimPrefix(part, TablePartPrefix)
}

// PrintedLabels keeps, of a document's labels (ordered by Start, parts[i]
// telling labels[i] is a part's), a part's label only where no label of
// its own is printed at the same place: a row of a titled table is listed
// once, by its own label.
func PrintedLabels(labels []FactLabel, parts []bool) []FactLabel {
	own := map[int]bool{}
	for i, l := range labels {
		if !parts[i] {
			own[l.Start] = true
		}
	}
	out := labels[:0:0]
	for i, l := range labels {
		if l.Label != "" && (!parts[i] || !own[l.Start]) {
			out = append(out, l)
		}
	}
	return out
}

// FactLabeler is a store that lists the row labels of its facts without
// reading the facts whole: what Searcher reads to rerank tables and to learn
// the filings' line-item vocabulary. Both stores implement it; a store that
// does not is read through Facts.
type FactLabeler interface {
	// FactLabels returns the labelled facts of document documentID that
	// are displayed (Start >= 0), ordered by Start. With documentID "", it
	// returns every distinct label of every document once, with Start -1,
	// in no particular order.
	FactLabels(ctx context.Context, documentID string) ([]FactLabel, error)
}

// ConceptLabel is a row label an issuer's filings print beside a tagged
// XBRL concept in its default context (no dimensions).
type ConceptLabel struct {
	Ticker  string
	Concept string // qualified name, e.g. "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
	Label   string
}

// ConceptLabeler is a store that lists the distinct (ticker, concept,
// label) triples of its XBRL facts in the default context without reading
// the facts whole: what Searcher reads to carry a question's words to the
// searched issuer's own line items. A store that does not implement it is
// read through Facts.
type ConceptLabeler interface {
	ConceptLabels(ctx context.Context) ([]ConceptLabel, error)
}
