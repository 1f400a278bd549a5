package planner

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
)

func TestWordKey(t *testing.T) {
	same := [][]string{
		{"margin", "margins", "Margins"},
		{"increase", "increased", "increasing", "increases", "Increasingly"},
		{"expect", "expected", "expects", "expecting", "expectation", "expectations"},
		{"revenue", "revenues", "Revenue's"},
		{"company", "companies", "Company’s"},
		{"invest", "invested", "investing", "investment", "investments"},
		{"sale", "sales"},
		{"use", "used", "uses", "using"},
		{"base", "based", "bases"},
		{"note", "notes", "noted"},
		{"plan", "planned", "planning", "plans"},
		{"manage", "managed", "managing", "management"},
		{"tax", "taxes"},
		{"loss", "losses"},
		{"business", "businesses"},
		{"apply", "applied", "applies"},
		{"quarter", "quarterly", "quarters"},
		{"develop", "developed", "development", "developer"},
	}
	for _, forms := range same {
		t.Run(forms[0], func(t *testing.T) {
			want := WordKey(forms[0])
			for _, f := range forms[1:] {
				if got := WordKey(f); got != want {
					t.Errorf("WordKey(%q) = %q, want %q as for %q", f, got, want, forms[0])
				}
			}
		})
	}

	distinct := [][2]string{
		{"margin", "market"}, {"revenue", "reserve"}, {"segment", "seg"}, {"statement", "state"},
		{"interest", "internal"}, {"sales", "salary"}, {"cost", "costco"}, {"operating", "operation"},
		{"need", "ne"}, {"status", "stat"}, {"basis", "base"}, {"only", "on"}, {"thing", "th"},
		{"income", "incomplete"}, {"gross", "grow"}, {"net", "need"},
	}
	for _, p := range distinct {
		if a, b := WordKey(p[0]), WordKey(p[1]); a == b {
			t.Errorf("WordKey(%q) = WordKey(%q) = %q, want them apart", p[0], p[1], a)
		}
	}

	exact := []struct{ in, want string }{
		{"Increasing", "increas"},
		{"expectations", "expect"},
		{"margins", "margin"},
		{"significantly", "signifi"},
		{"planned", "plan"},
		{"billing", "bill"},
		{"added", "add"},
		{"need", "need"},
		{"proceeds", "proceed"},
		{"companies", "company"},
		{"2024", "2024"},
		{"391,035", "391,035"},
		{"forward-looking", "forward-looking"},
		{"Café", "café"},
		{"", ""},
		{"'s", "'s"},
	}
	for _, tc := range exact {
		if got := WordKey(tc.in); got != tc.want {
			t.Errorf("WordKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTextStatsIDF(t *testing.T) {
	s := NewTextStats([]StatsDoc{
		{ID: "a", Issuer: "AAA", Text: "Revenue increased. Semiconductor supply was tight."},
		{ID: "b", Issuer: "BBB", Text: "Revenues decreased on lower demand."},
		{ID: "c", Issuer: "CCC", Text: "Total revenue | 1,000 | 900\nRevenue grew."},
		{ID: "d", Issuer: "CCC", Text: "Revenue and demand grew."},
	})
	if got := s.Documents(); got != 4 {
		t.Errorf("Documents() = %d, want 4", got)
	}
	if got := s.Issuers(); got != 3 {
		t.Errorf("Issuers() = %d, want 3", got)
	}
	maxIDF := math.Log(5) + 1
	tests := []struct {
		word string
		want float64
	}{
		{"revenue", 1}, // in every document: ln(5/5) + 1
		{"Revenues", 1},
		{"demand", math.Log(5.0/3) + 1},
		{"semiconductor", math.Log(5.0/2) + 1},
		{"tight", math.Log(5.0/2) + 1},
		{"unheard", maxIDF},
	}
	for _, tc := range tests {
		if got := s.IDF(tc.word); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("IDF(%q) = %v, want %v", tc.word, got, tc.want)
		}
	}
	if !(s.IDF("revenue") < s.IDF("demand") && s.IDF("demand") < s.IDF("semiconductor") && s.IDF("semiconductor") < s.IDF("unheard")) {
		t.Errorf("IDF not ordered common < rarer < rare < unknown")
	}
}

// safeHarbour is a forward-looking-statement sentence for company.
func safeHarbour(company, date string) string {
	return company + " undertakes no obligation to revise or update any forward-looking statements to reflect events or circumstances after " + date + ", except as required by law."
}

// boilerplateDocs returns n issuers' filings, each with the safe harbour
// under its own name and date, and a sentence of its own.
func boilerplateDocs(n int) []StatsDoc {
	companies := []struct{ ticker, name, own string }{
		{"AAPL", "Apple Inc.", "Products gross margin increased due to cost savings and a favourable mix of iPhone models."},
		{"WMT", "Walmart Inc.", "Comparable sales in the U.S. rose on grocery strength and higher transaction counts at stores."},
		{"NFLX", "Netflix, Inc.", "Paid memberships grew in every region as the ad-supported plan drew price-sensitive viewers."},
		{"NVDA", "NVIDIA Corporation", "Data Center revenue tripled as hyperscale customers deployed Hopper systems for training."},
		{"COST", "Costco Wholesale Corporation", "Membership fee income rose with renewals and the fee increase in September."},
	}
	var docs []StatsDoc
	for i, c := range companies[:n] {
		text := fmt.Sprintf("%s\n\n%s\n\n%s", c.own, safeHarbour(c.name, fmt.Sprintf("January %d, 202%d", 20+i, i)), "Item 7. Discussion | 2024 | 2023")
		docs = append(docs, StatsDoc{ID: c.ticker + "-10k", Issuer: c.ticker, Text: text, Names: []string{c.name, c.ticker}})
	}
	return docs
}

func TestBoilerplate(t *testing.T) {
	four := NewTextStats(boilerplateDocs(4))
	two := NewTextStats(boilerplateDocs(2))
	var none *TextStats
	tests := []struct {
		name     string
		s        *TextStats
		sentence string
		min, max float64
	}{
		{"safe harbour of a filing", four, safeHarbour("Apple Inc.", "January 20, 2020"), 0.8, 1},
		{"safe harbour with other numbers", four, safeHarbour("Apple Inc.", "December 31, 1999"), 0.8, 1},
		{"safe harbour under another name and date", four, safeHarbour("NVIDIA", "February 3, 2031"), 0.8, 1},
		{"safe harbour with we", four, strings.Replace(safeHarbour("We", "May 1, 2019"), "undertakes", "undertake", 1), 0.8, 1},
		// A name the stats do not know breaks the shingles it is in.
		{"safe harbour of an issuer not counted", four, safeHarbour("Costco Wholesale Corporation", "October 4, 2022"), 0.7, 0.8},
		{"issuer's own sentence", four, "Products gross margin increased due to cost savings and a favourable mix of iPhone models.", 0, 0.2},
		{"another issuer's own sentence", four, "Data Center revenue tripled as hyperscale customers deployed Hopper systems for training.", 0, 0.2},
		{"short", four, "As required by law.", 0, 0},
		{"five words", four, "Except as required by law.", 1, 1},
		{"every run spans a number", four, "Revenue was $1.2 billion in 2024 and 2023 respectively 5%.", 0, 0},
		{"table row", four, "Item 7. Discussion | 2024 | 2023", 0, 0},
		{"two issuers", two, safeHarbour("Apple Inc.", "January 20, 2020"), 0, 0},
		{"nil", none, safeHarbour("Apple Inc.", "January 20, 2020"), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.Boilerplate(tc.sentence)
			if got < tc.min || got > tc.max {
				t.Errorf("Boilerplate(%q) = %.2f, want in [%.2f, %.2f]", tc.sentence, got, tc.min, tc.max)
			}
		})
	}
	if got := commonIssuers(4); got != 3 {
		t.Errorf("commonIssuers(4) = %d, want 3", got)
	}
	if got := commonIssuers(12); got != 4 {
		t.Errorf("commonIssuers(12) = %d, want 4 (30%% of 12 rounded up)", got)
	}
	if got := commonIssuers(200); got != 60 {
		t.Errorf("commonIssuers(200) = %d, want 60", got)
	}
}

func TestTextStatsHeldByAtLeast(t *testing.T) {
	sets := [][]uint64{{1, 2, 5, 9}, {2, 5, 7}, {}, {0, 2, 7, 9}, {2, 9}}
	tests := []struct {
		need int
		want []uint64
	}{
		{1, []uint64{0, 1, 2, 5, 7, 9}},
		{2, []uint64{2, 5, 7, 9}},
		{3, []uint64{2, 9}},
		{4, []uint64{2}},
		{5, nil},
	}
	for _, tc := range tests {
		if got := heldByAtLeast(slices.Clone(sets), tc.need); !slices.Equal(got, tc.want) {
			t.Errorf("heldByAtLeast(%d) = %v, want %v", tc.need, got, tc.want)
		}
	}
}

func TestTextStatsNil(t *testing.T) {
	var s *TextStats
	if got := s.IDF("revenue"); got != 1 {
		t.Errorf("nil IDF = %v, want 1", got)
	}
	if got := s.Boilerplate(safeHarbour("We", "today")); got != 0 {
		t.Errorf("nil Boilerplate = %v, want 0", got)
	}
	if s.Issuers() != 0 || s.Documents() != 0 {
		t.Errorf("nil Issuers, Documents = %d, %d, want 0, 0", s.Issuers(), s.Documents())
	}
	empty := NewTextStats(nil)
	if empty.IDF("revenue") != 1 || empty.Boilerplate(safeHarbour("We", "today")) != 0 {
		t.Errorf("empty stats: IDF %v, Boilerplate %v; want 1, 0", empty.IDF("revenue"), empty.Boilerplate(safeHarbour("We", "today")))
	}

	var cat *Catalog
	if cat.TextStats() != nil {
		t.Error("nil catalog has stats")
	}
	cat = smallCatalog()
	if cat.TextStats() != nil {
		t.Error("new catalog has stats")
	}
	stats := NewTextStats(boilerplateDocs(3))
	cat.SetTextStats(stats)
	if cat.TextStats() != stats || cat.WithoutFigures().TextStats() != stats {
		t.Error("TextStats() does not return what SetTextStats gave")
	}
}

func TestTextStatsDeterministic(t *testing.T) {
	docs := boilerplateDocs(5)
	a := NewTextStats(docs)
	slices.Reverse(docs)
	b := NewTextStats(docs)
	if !slices.Equal(a.common, b.common) || !maps.Equal(a.df, b.df) || a.issuers != b.issuers || a.docs != b.docs {
		t.Errorf("stats differ with the order of the documents")
	}
	if len(a.common) == 0 {
		t.Fatal("no common shingles")
	}

	// Readers share the stats.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, d := range docs {
				for _, sen := range Sentences(d.Text) {
					a.Boilerplate(sen)
					for w := range textWords(sen) {
						a.IDF(w)
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestTextStatsKeepsNoText checks that no word key is a slice of a
// document's text, which would keep the whole text alive with the stats.
func TestTextStatsKeepsNoText(t *testing.T) {
	docs := boilerplateDocs(5)
	docs = append(docs, docs[0]) // words seen again are counted under the first copy
	s := NewTextStats(docs)
	for k := range s.df {
		p := uintptr(unsafe.Pointer(unsafe.StringData(k)))
		for _, d := range docs {
			start := uintptr(unsafe.Pointer(unsafe.StringData(d.Text)))
			if p >= start && p < start+uintptr(len(d.Text)) {
				t.Errorf("word key %q is a slice of the text of %s", k, d.ID)
			}
		}
	}
}

func TestTextStatsSampleCorpus(t *testing.T) {
	docs := sampleStatsDocs(t)
	s := NewTextStats(docs)
	t.Logf("%d documents of %d issuers; %d common shingles (in %d+ issuers), %d word keys",
		s.Documents(), s.Issuers(), len(s.common), commonIssuers(s.Issuers()), len(s.df))

	// The most boilerplate sentences, one per shape, longest first among
	// equals.
	type scored struct {
		score     float64
		shingles  int
		doc, text string
	}
	var all []scored
	shapes := map[string]bool{}
	for _, d := range docs {
		for _, sen := range Sentences(withoutTables(d.Text)) {
			toks, _ := s.shape(nil, nil, sen)
			var words []string
			for _, tk := range toks {
				words = append(words, tk.word)
			}
			key := strings.Join(words, " ")
			if shapes[key] {
				continue
			}
			shapes[key] = true
			all = append(all, scored{s.shapeBoilerplate(toks), len(appendShingles(nil, toks)), d.ID, sen})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.shingles, a.shingles))
	})
	for _, sc := range all[:min(10, len(all))] {
		t.Logf("%.2f %s: %s", sc.score, filepath.Base(sc.doc), strings.Join(strings.Fields(sc.text), " "))
	}

	// Sentences as the filings write them.
	find := func(ticker, prefix string) string {
		t.Helper()
		for _, d := range docs {
			if d.Issuer != ticker {
				continue
			}
			for _, sen := range Sentences(withoutTables(d.Text)) {
				if flat := strings.Join(strings.Fields(sen), " "); strings.HasPrefix(flat, prefix) {
					return sen
				}
			}
		}
		t.Fatalf("no sentence of %s starts %q", ticker, prefix)
		return ""
	}
	tests := []struct {
		name     string
		sentence string
		min, max float64
	}{
		{"forward-looking statements", find("GOOGL", "Given these risks and uncertainties, readers are cautioned not to place undue reliance"), 0.5, 1},
		{"safe harbour act", find("AAPL", "This Annual Report on Form 10-K (“Form 10-K”) contains forward-looking statements"), 0.5, 1},
		{"auditor's procedures", find("NVDA", "Such procedures included examining, on a test basis"), 0.5, 1},
		{"Apple MD&A", "Products gross margin and Products gross margin percentage increased during 2024 compared to 2023 due to cost savings", 0, 0.2},
		{"Apple MD&A in the filing", find("AAPL", "Products gross margin and Products gross margin percentage increased during 2024"), 0, 0.2},
		{"Netflix MD&A", find("NFLX", "Streaming revenues for the year ended December 31, 2024 increased"), 0, 0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Boilerplate(tc.sentence)
			if got < tc.min || got > tc.max {
				t.Errorf("Boilerplate(%q) = %.2f, want in [%.2f, %.2f]", tc.sentence, got, tc.min, tc.max)
			}
			t.Logf("%.2f %s", got, strings.Join(strings.Fields(tc.sentence), " "))
		})
	}
}

// BenchmarkTextStats measures NewTextStats over the sample corpus's
// filings (text as ingest reads it; the PDF, a copy of a text 10-Q, left
// out). retained-B is the heap the stats keep after a GC.
//
//	go test ./planner/ -run '^$' -bench TextStats -benchmem
func BenchmarkTextStats(b *testing.B) {
	docs := sampleStatsDocs(b)
	var s *TextStats
	for b.Loop() {
		s = NewTextStats(docs)
	}
	b.StopTimer()
	// Count over copies of the texts, dropped after, so what the stats
	// keep of them shows.
	var before, after runtime.MemStats
	s = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	copies := slices.Clone(docs)
	for i := range copies {
		copies[i].Text = strings.Clone(copies[i].Text)
	}
	s = NewTextStats(copies)
	copies = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "retained-B")
	b.ReportMetric(float64(len(s.common)), "common-shingles")
	runtime.KeepAlive(s)
}

var sampleText struct {
	once sync.Once
	docs []StatsDoc
	err  error
}

// sampleStatsDocs returns the sample corpus's filings as ingest reads
// their text, with their company names, short names and tickers; the test is skipped,
// or fails under CI, when the corpus is absent (see corpustest.Dir).
func sampleStatsDocs(t testing.TB) []StatsDoc {
	t.Helper()
	dir := corpustest.Dir(t)
	entries := corpustest.Entries(t)
	cat := sampleCatalog(t)
	sampleText.once.Do(func() {
		for _, e := range entries {
			p := e.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			var text string
			switch strings.ToLower(filepath.Ext(p)) {
			case ".html", ".htm":
				f, err := os.Open(p)
				if err != nil {
					sampleText.err = err
					return
				}
				parsed, err := corpus.ParseHTML(f)
				f.Close()
				if err != nil {
					sampleText.err = fmt.Errorf("%s: %w", p, err)
					return
				}
				text = parsed.Text
			case ".txt":
				f, err := os.Open(p)
				if err != nil {
					sampleText.err = err
					return
				}
				text, _, err = corpus.ParseText(f)
				f.Close()
				if err != nil {
					sampleText.err = fmt.Errorf("%s: %w", p, err)
					return
				}
			default:
				continue
			}
			sampleText.docs = append(sampleText.docs, StatsDoc{
				ID: filepath.Base(p), Issuer: e.Ticker, Text: text, Names: []string{e.Company, e.Ticker, cat.ShortName(e.Ticker)},
			})
		}
	})
	if sampleText.err != nil {
		t.Fatal(sampleText.err)
	}
	return sampleText.docs
}

func ExampleTextStats_Boilerplate() {
	harbour := " undertakes no obligation to update any forward-looking statements, except as required by law."
	s := NewTextStats([]StatsDoc{
		{ID: "a", Issuer: "ACME", Names: []string{"Acme Corp", "ACME"}, Text: "Anvil revenue rose 4% on desert demand.\n\nAcme Corp" + harbour},
		{ID: "b", Issuer: "BOLT", Names: []string{"Bolt Industries", "BOLT"}, Text: "Fastener revenue fell after the plant retooled.\n\nBolt Industries" + harbour},
		{ID: "c", Issuer: "CRUX", Names: []string{"Crux Labs", "CRUX"}, Text: "Assay revenue grew with new hospital networks.\n\nCrux Labs" + harbour},
	})
	fmt.Printf("%.2f\n", s.Boilerplate("We undertake no obligation to update any forward-looking statements, except as required by law."))
	fmt.Printf("%.2f\n", s.Boilerplate("Anvil revenue rose 4% on desert demand."))
	fmt.Println(s.IDF("revenues") < s.IDF("anvil"))
	// Output:
	// 1.00
	// 0.00
	// true
}

// TestUnclipped: a word no filing uses that clips one the filings use is
// read as that word; a word the filings use, or one clipping none, is not.
func TestUnclipped(t *testing.T) {
	t.Parallel()
	s := NewTextStats([]StatsDoc{
		{ID: "a", Issuer: "AAA", Text: "The average price per ad rose. Our international sales. An advantage. We review revenue we receive."},
		{ID: "b", Issuer: "BBB", Text: "Average selling price. International markets. We review revenue we receive."},
	})
	for w, want := range map[string]string{
		"avg":   WordKey("average"), // not "advantage": its second letter differs
		"rev":   "",                 // revenue, review and receive, as often each
		"price": "",                 // the filings use it
		"xyz":   "",                 // clips nothing
	} {
		if got := s.Unclipped(w); got != want {
			t.Errorf("Unclipped(%q) = %q, want %q", w, got, want)
		}
	}
	if got := (*TextStats)(nil).Unclipped("avg"); got != "" {
		t.Errorf("nil statistics: %q", got)
	}
}

// TestSegmentOwner: a name one issuer's filings alone call a segment,
// written with a capital, names that issuer: a name of several words, or
// one word the issuer's own; a common word ("Total"), a name two issuers
// call a segment, or a name in lower case names none.
func TestSegmentOwner(t *testing.T) {
	t.Parallel()
	s := NewTextStats([]StatsDoc{
		{ID: "w", Issuer: "WMT", Text: "Our Sam's Club segment grew. Our International segment. The Total segment. Sam's Club. Sam's Club."},
		{ID: "a", Issuer: "AMZN", Text: "Our International segment grew. Total sales rose. Our AWS segment grew. AWS grew. AWS rose. AWS again."},
		{ID: "m", Issuer: "META", Text: "Reality Labs (RL) grew. Our RL segment lost money. Our Reality Labs segment grew."},
	})
	for q, want := range map[string]string{
		// letters whose lower case is longer or shorter in bytes leave
		// the name read where it is written
		strings.Repeat("İ", 12) + " Sam's Club net sales": "WMT",
		"Sam's Club net sales in fiscal 2022?":            "WMT",
		"Reality Labs operating loss 2024?":               "META", // the short form's long form
		"AWS operating income?":                           "AMZN",
		"International segment sales?":                    "", // two issuers call it so
		"Total sales in 2024?":                            "", // no issuer's own word
		"what were sam's club net sales?":                 "", // not written as a name
	} {
		if got, _ := s.SegmentOwner(q); got != want {
			t.Errorf("SegmentOwner(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestJoins: the pairs of words an issuer's filings join with "and" are
// read per issuer.
func TestJoins(t *testing.T) {
	t.Parallel()
	s := NewTextStats([]StatsDoc{
		{ID: "m", Issuer: "MSFT", Text: "Xbox content and services revenue increased 3%."},
		{ID: "c", Issuer: "COST", Text: "Paid members rose. The renewal rate was 93%."},
	})
	if !s.Joins("MSFT", "content", "services") || !s.Joins("MSFT", "Content", "Services") {
		t.Error("Joins(MSFT, content, services) = false")
	}
	if s.Joins("COST", "content", "services") || s.Joins("COST", "members", "renewal") {
		t.Error("another issuer's pair, or words never joined, read as joined")
	}
}
