package textsearch

import (
	"fmt"
	"slices"
	"testing"
)

func newIndex(texts ...string) *Index {
	var ix Index
	for _, t := range texts {
		ix.Add(t)
	}
	return &ix
}

func docs(hits []Hit) []int {
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

func TestSearch(t *testing.T) {
	ix := newIndex(
		"Products gross margin decreased due to tariff costs.",                         // 0
		"Gross margin decreased due to inventory provisions and lower gaming revenue.", // 1
		"Data Center revenue grew on strong demand from hyperscale customers.",         // 2
		"Services gross margin increased due to a different services mix.",             // 3
		"The center of the data was margin.",                                           // 4
		"Cost of revenue rose; the revenue cost fell.",                                 // 5
	)
	tests := []struct {
		query string
		k     int
		want  []int
		any   bool // order not checked
	}{
		{"gross margin decreased", 2, []int{0, 1}, true},
		{"gross margin decreased", 3, []int{0, 1, 3}, true}, // then the best partial match
		{`"data center" revenue`, 1, []int{2}, false},
		{`"data center"`, 1, []int{2}, false},
		{`"data center"`, 2, []int{2}, false},                    // a phrase stays a phrase in the OR reading
		{`"data center" margin`, 10, []int{0, 1, 2, 3, 4}, true}, // no exact match: the phrase or the word
		{`"cost of revenue"`, 1, []int{5}, false},
		{"gross margin -tariff", 2, []int{1, 3}, true},
		{"gross margin -tariff", 10, []int{1, 3, 4}, true},
		{"tariff or hyperscale", 10, []int{0, 2}, true},
		// Fewer than k exact matches: partial matches follow, negations still apply.
		{"tariff inventory provisions hyperscale", 10, []int{1, 0, 2}, false},
		{"gross margin -tariff -inventory", 10, []int{3, 4}, false},
		{"the of", 10, nil, false},
		{"", 10, nil, false},
		{"nothing matches this", 10, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := docs(ix.Search(Parse(tt.query), tt.k, nil))
			if tt.any {
				slices.Sort(got)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Search(%q, k=%d) = %v, want %v", tt.query, tt.k, got, tt.want)
			}
		})
	}
}

func TestSearchExactBeforePartial(t *testing.T) {
	ix := newIndex(
		"margin margin margin margin margin margin", // many hits of one word
		"gross margin",
	)
	hits := ix.Search(Parse("gross margin"), 10, nil)
	if !slices.Equal(docs(hits), []int{1, 0}) {
		t.Fatalf("got %v, want the exact match first, then the partial one", hits)
	}
	hits = ix.Search(Parse("gross margin"), 1, nil)
	if !slices.Equal(docs(hits), []int{1}) {
		t.Fatalf("k=1: got %v, want the exact match only", hits)
	}
}

func TestBM25Ordering(t *testing.T) {
	filler := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"
	t.Run("term frequency", func(t *testing.T) {
		ix := newIndex("revenue "+filler, "revenue revenue revenue "+filler, filler)
		if got := docs(ix.Search(Parse("revenue"), 10, nil)); !slices.Equal(got, []int{1, 0}) {
			t.Fatalf("got %v, want the text with more occurrences first", got)
		}
	})
	t.Run("length", func(t *testing.T) {
		ix := newIndex("revenue "+filler+" "+filler, "revenue "+filler, filler)
		if got := docs(ix.Search(Parse("revenue"), 10, nil)); !slices.Equal(got, []int{1, 0}) {
			t.Fatalf("got %v, want the shorter text first", got)
		}
	})
	t.Run("rarity", func(t *testing.T) {
		ix := newIndex("common rare", "common other", "common other", "common other", "common unrelated", "rare common")
		// Texts 0 and 5 hold both words; add one holding only each word.
		ix.Add("common alone")
		ix.Add("rare alone")
		hits := ix.Search(Parse("common or rare"), 10, nil)
		pos := map[int]int{}
		for i, h := range hits {
			pos[h.Doc] = i
		}
		if pos[7] > pos[6] {
			t.Fatalf("got %v, want the rare word to weigh more than the common one", hits)
		}
	})
	t.Run("ties go to the first added", func(t *testing.T) {
		ix := newIndex("equal text", "equal text", "equal text")
		if got := docs(ix.Search(Parse("equal"), 10, nil)); !slices.Equal(got, []int{0, 1, 2}) {
			t.Fatalf("got %v", got)
		}
	})
}

func TestSearchAllow(t *testing.T) {
	var ix Index
	for i := range 100 {
		ix.Add(fmt.Sprintf("gross margin note %d", i))
	}
	hits := ix.Search(Parse("gross margin"), 5, func(doc int) bool { return doc%10 == 3 })
	if !slices.Equal(docs(hits), []int{3, 13, 23, 33, 43}) {
		t.Fatalf("got %v", docs(hits))
	}
}

func TestSearchRequiresAWord(t *testing.T) {
	ix := newIndex("gross margin", "tariff costs", "services revenue")
	// These could match a text with none of their words; like the Postgres
	// store (querytree() = T), Search finds nothing rather than everything.
	for _, q := range []string{"-tariff", "gross or -margin", "-gross -margin", "--gross"} {
		if hits := ix.Search(Parse(q), 10, nil); len(hits) != 0 {
			t.Errorf("Search(%q) = %v, want nothing", q, hits)
		}
	}
	if hits := ix.Search(Parse("services -tariff"), 10, nil); !slices.Equal(docs(hits), []int{2}) {
		t.Errorf(`Search("services -tariff") = %v`, hits)
	}
}

func BenchmarkSearch(b *testing.B) {
	words := []string{"revenue", "margin", "cost", "growth", "demand", "supply", "risk", "cash", "debt", "tax",
		"segment", "product", "service", "customer", "market", "price", "gross", "net", "income", "operating"}
	var ix Index
	for i := range 20_000 {
		text := ""
		for j := range 120 {
			text += words[(i*7+j*j+j*i)%len(words)] + " "
		}
		ix.Add(text)
	}
	q := Parse(`gross margin "operating income" -tax`)
	for b.Loop() {
		ix.Search(q, 10, nil)
	}
}

func TestBatchesMatchSingleAdds(t *testing.T) {
	texts := []string{
		"gross margin decreased", "services revenue grew", "gross margin gross margin", "tariff costs rose",
		"margin of the services", "revenue revenue", "data center revenue", "the gross of it",
	}
	var one Index
	for _, txt := range texts {
		one.Add(txt)
	}
	var batched Index
	var a Analyzer
	for _, split := range [][]string{texts[:3], texts[3:4], texts[4:]} {
		var b Batch
		for _, txt := range split {
			b.Add(&a, txt)
		}
		if first := batched.AddBatch(&b); first+len(split) != batched.Len() {
			t.Fatalf("AddBatch returned %d for %d texts, now %d", first, len(split), batched.Len())
		}
	}
	for _, q := range []string{"gross margin", "revenue", `"gross margin"`, "services -revenue", "tariff or data"} {
		want, got := one.Search(Parse(q), 10, nil), batched.Search(Parse(q), 10, nil)
		if !slices.Equal(got, want) {
			t.Errorf("%q: batched %v, one by one %v", q, got, want)
		}
	}
}
