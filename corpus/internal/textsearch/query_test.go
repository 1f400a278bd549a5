package textsearch

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestParseMatchesPostgres holds Parse to websearch_to_tsquery('english', q)
// as Postgres prints it (testdata/postgres_websearch.tsv).
func TestParseMatchesPostgres(t *testing.T) {
	f, err := os.Open("testdata/postgres_websearch.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		if got := Parse(q).String(); got != want {
			t.Errorf("Parse(%q) = %s, Postgres gives %s", q, got, want)
		}
	}
	if n < 100 {
		t.Fatalf("only %d queries in the table", n)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, query, want string
	}{
		{"words are ANDed", "gross margin", "'gross' & 'margin'"},
		{"phrase", `"gross margin" revenue`, "'gross' <-> 'margin' & 'revenu'"},
		{"phrase keeps stop word distance", `"cost of revenue"`, "'cost' <2> 'revenu'"},
		{"negation", "gross -margin", "'gross' & !'margin'"},
		{"negated phrase", `-"gross margin" revenue`, "!( 'gross' <-> 'margin' ) & 'revenu'"},
		{"or", "gross or margin", "'gross' | 'margin'"},
		{"or binds loosest", "gross margin or revenue", "'gross' & 'margin' | 'revenu'"},
		{"or inside a word is a word", "gross orange", "'gross' & 'orang'"},
		{"trailing or is a stop word", "gross or", "'gross'"},
		{"stop words dropped", "the margin of the company", "'margin' & 'compani'"},
		{"stop words only", "the and of", ""},
		{"nothing", "   ", ""},
		{"lone minus", "-", ""},
		{"empty quotes", `""`, ""},
		{"number with comma is a phrase", "391,035", "'391' <-> '035'"},
		{"tsquery syntax is not syntax", "gross & margin | !foo", "'gross' & 'margin' & 'foo'"},
		{"unclosed quote", `"gross margin`, "'gross' <-> 'margin'"},
		// Differences from Postgres' parser (see Analyzer): compounds give their parts only.
		{"hyphenated word", "forward-looking", "'forward' <-> 'look'"},
		{"hyphen and number", "COVID-19", "'covid' <-> '19'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Parse(tt.query)
			if got := q.String(); got != tt.want {
				t.Errorf("Parse(%q) = %s, want %s", tt.query, got, tt.want)
			}
			if q.Empty() != (tt.want == "") {
				t.Errorf("Parse(%q).Empty() = %v", tt.query, q.Empty())
			}
		})
	}
}

// TestORReading pins the OR reading behind the full-text fallback; it is
// the rewrite the Postgres store applies to websearch_to_tsquery's output.
func TestORReading(t *testing.T) {
	tests := []struct{ query, want string }{
		{"gross margin decreased", "'gross' | 'margin' | 'decreas'"},
		{"gross margin -tariff", "( 'gross' | 'margin' ) & !'tariff'"},
		{`"data center" revenue -gaming`, "( 'data' <-> 'center' | 'revenu' ) & !'game'"},
		{"gross margin or net sales", "'gross' | 'margin' | 'net' | 'sale'"},
		{"gross -tariff or net -services", "'gross' & !'tariff' | 'net' & !'servic'"},
		{"revenue", "'revenu'"},
	}
	for _, tt := range tests {
		q := Parse(tt.query)
		or := &Query{root: q.root.orForm(), terms: q.terms}
		if got := or.String(); got != tt.want {
			t.Errorf("OR reading of %q = %s, want %s", tt.query, got, tt.want)
		}
	}
}

func TestNeedsWord(t *testing.T) {
	for q, want := range map[string]bool{
		"gross": true, "gross -margin": true, "-margin": false, "gross or -margin": false,
		"-gross -margin": false, "a b or c d": true, `-"gross margin" revenue`: true, "--gross": false,
		"gross -a or net": true, "x or y -z": true, "-x or -y": false,
	} {
		if got := Parse(q).root.needsWord(); got != want {
			t.Errorf("needsWord(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestZeroQueryIsEmpty(t *testing.T) {
	var q Query
	if !q.Empty() || q.String() != "" {
		t.Fatal("zero Query is not empty")
	}
	var ix Index
	ix.Add("gross margin")
	if hits := ix.Search(&q, 10, nil); len(hits) != 0 {
		t.Fatalf("zero Query matched %v", hits)
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"gross margin", `"gross margin" -tariff or revenue`, `-"`, "or or or", "a\"b\"c", "gross or(margin)",
		"--x", "café -naïve", "\xff\xfe or \x00", "391,035 -3.5", ":*<>!&|()",
	} {
		f.Add(s)
	}
	var ix Index
	ix.Add("gross margin decreased due to tariff costs")
	ix.Add("services revenue grew")
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s)
		str := q.String()
		if q.Empty() != (str == "") {
			t.Fatalf("Parse(%q): Empty() = %v but String() = %q", s, q.Empty(), str)
		}
		hits := ix.Search(q, 5, nil)
		if q.Empty() && len(hits) > 0 {
			t.Fatalf("empty query %q matched %v", s, hits)
		}
	})
}
