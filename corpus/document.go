package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Format is the source format of a filing.
type Format string

// Source formats understood by the ingester.
const (
	FormatHTML Format = "html" // EDGAR inline-XBRL HTML
	FormatText Format = "text" // plain text, pages separated by form feeds
	FormatPDF  Format = "pdf"  // PDF, read through pdftotext -layout
)

// Preference orders the copies of one filing by how well they read: the
// inline-XBRL HTML (0), then a text conversion (1), then a PDF (2), then
// any other format.
func (f Format) Preference() int {
	switch f {
	case FormatHTML:
		return 0
	case FormatText:
		return 1
	case FormatPDF:
		return 2
	}
	return 3
}

// Document is one filing in canonical form.
type Document struct {
	ID         string    // hex sha256 of Text
	Ticker     string    // upper case, as the SEC lists it
	Company    string    // registrant name
	Form       string    // "10-K", "10-Q", ...
	FiscalYear int       // fiscal year the filing reports on
	PeriodEnd  time.Time // last day of the reported period (UTC midnight)
	Filed      time.Time // filing date; zero when unknown
	Source     string    // path or URL the document was read from
	Format     Format    // source format
	Pages      int       // number of pages; 0 when the source has no page breaks
	Embedder   string    // identity of the embedder that embedded its chunks
	Entity     Entity    // what the filing says of its issuer; zero for text and PDF sources
	Text       string    // canonical text; empty in listings
}

// Entity is what a filing's own inline XBRL says of its issuer: the names a
// question may use for it, read from data rather than written down.
type Entity struct {
	Registrant string   `json:"registrant,omitempty"` // dei:EntityRegistrantName as displayed; "" when untagged
	CIK        string   `json:"cik,omitempty"`        // dei:EntityCentralIndexKey without leading zeros; "" when untagged
	Symbols    []string `json:"symbols,omitempty"`    // dei:TradingSymbol values, upper case, sorted, distinct
	// Members are the distinct explicit dimension members of the filing's
	// facts, qualified ("amzn:AmazonWebServicesSegmentMember"), sorted. The
	// issuer's own members (its prefix, not a standard taxonomy's) name its
	// segments, products and brands.
	Members []string `json:"members,omitempty"`
}

// IsZero reports whether the filing said nothing of its issuer.
func (e Entity) IsZero() bool {
	return e.Registrant == "" && e.CIK == "" && len(e.Symbols) == 0 && len(e.Members) == 0
}

// DocumentID returns the identity of a canonical text: its hex sha256.
func DocumentID(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])
}

// Chunk is a span of a document's canonical text, the unit of retrieval.
type Chunk struct {
	ID         string    // ChunkID(DocumentID, Ordinal)
	DocumentID string    // owning document
	Ordinal    int       // position in the document, from 0
	Section    string    // "Item 7", "Item 1A", ...; "" before the first item
	Page       int       // 1-based page holding most of the chunk; 0 when the source has no pages
	Start      int       // byte offset of the first byte in the canonical text
	End        int       // byte offset one past the last byte
	Text       string    // canonical text[Start:End]
	Embedding  []float32 // nil until embedded
}

// ChunkID returns the stable id of the ordinal-th chunk of a document.
func ChunkID(documentID string, ordinal int) string {
	prefix := documentID
	if len(prefix) > 16 {
		prefix = prefix[:16]
	}
	return fmt.Sprintf("%s-%05d", prefix, ordinal)
}

// Fact kinds: where a fact was read from.
const (
	FactXBRL  = "xbrl"  // an inline-XBRL ix:nonFraction element
	FactTable = "table" // a cell of a financial table: of a text or PDF filing, or untagged in an HTML one
)

// A table fact for one part of the business (a segment, a region) carries
// the part in its Dimensions under TablePartAxis, as TablePartPrefix and
// the part's name as the filing prints it ("part:Data Center Group"); its
// Label is then the figure's ("Operating income (loss)"). The same cell may
// also be a fact of its own row label, without dimensions, where that label
// names one figure only. See TableFacts.
const (
	TablePartAxis   = "table:PartAxis"
	TablePartPrefix = "part:"
)

// TablePartMember returns the member naming the part name.
func TablePartMember(name string) string { return TablePartPrefix + name }

// Fact is one reported number: a tagged inline-XBRL fact (an
// ix:nonFraction element), or a cell of a financial table read from a text
// or PDF filing or left untagged in an HTML one. Where both exist for a
// figure, the tagged fact wins.
type Fact struct {
	DocumentID  string
	Kind        string            // FactXBRL or FactTable; "" is read as FactXBRL
	Concept     string            // qualified name, e.g. "us-gaap:Revenues"; "" for a table fact
	Label       string            // the row label the filing prints beside the value ("Total net sales"); "" when none
	Value       decimal.Decimal   // scale and sign applied
	Unit        string            // "USD", "shares", "USD/shares", "pure", ...
	Decimals    string            // as tagged: "-6", "2", "INF"; "" when absent
	PeriodStart time.Time         // zero for an instant
	PeriodEnd   time.Time         // end of a duration, or the instant
	Instant     bool              // true when the context is an instant
	Dimensions  map[string]string // explicit members by axis; empty for the default context
	ContextID   string            // contextRef as tagged
	Start       int               // byte span of the displayed value in the canonical text;
	End         int               // Start == End == -1 for a fact not displayed (in ix:hidden)
}

// SearchResult is one retrieved chunk with its document's metadata.
type SearchResult struct {
	ChunkID    string    `json:"chunk_id"`
	DocumentID string    `json:"document_id"`
	Ticker     string    `json:"ticker"`
	Company    string    `json:"company"`
	Form       string    `json:"form"`
	FiscalYear int       `json:"fiscal_year"`
	PeriodEnd  time.Time `json:"period_end"`
	Section    string    `json:"section"`
	Page       int       `json:"page"` // 0 (JSON null) when the source has no pages
	Start      int       `json:"start"`
	End        int       `json:"end"`
	Score      float64   `json:"score"`
	Text       string    `json:"text"`
}

// MarshalJSON writes the fields in the documented order, PeriodEnd as
// YYYY-MM-DD and a missing page as null.
func (r SearchResult) MarshalJSON() ([]byte, error) {
	var page *int
	if r.Page > 0 {
		page = &r.Page
	}
	return json.Marshal(struct {
		ChunkID    string  `json:"chunk_id"`
		DocumentID string  `json:"document_id"`
		Ticker     string  `json:"ticker"`
		Company    string  `json:"company"`
		Form       string  `json:"form"`
		FiscalYear int     `json:"fiscal_year"`
		PeriodEnd  string  `json:"period_end"`
		Section    string  `json:"section"`
		Page       *int    `json:"page"`
		Start      int     `json:"start"`
		End        int     `json:"end"`
		Score      float64 `json:"score"`
		Text       string  `json:"text"`
	}{r.ChunkID, r.DocumentID, r.Ticker, r.Company, r.Form, r.FiscalYear, r.PeriodEnd.Format(time.DateOnly),
		r.Section, page, r.Start, r.End, r.Score, r.Text})
}
