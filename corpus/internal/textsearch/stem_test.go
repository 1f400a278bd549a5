package textsearch

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestLexemesMatchPostgres holds single words to the lexemes Postgres'
// english configuration gives them (testdata/postgres_stems.tsv).
func TestLexemesMatchPostgres(t *testing.T) {
	f, err := os.Open("testdata/postgres_stems.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		var got string
		switch lx := Lexemes(word); len(lx) {
		case 0:
		case 1:
			got = lx[0].Term
		default:
			t.Errorf("Lexemes(%q) = %v, want one lexeme", word, lx)
			continue
		}
		if got != want {
			t.Errorf("%q: got lexeme %q, Postgres gives %q", word, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 300 {
		t.Fatalf("only %d words in the table", n)
	}
}

func TestStem(t *testing.T) {
	tests := map[string]string{
		"running": "run", "generously": "generous", "margins": "margin", "pressures": "pressur",
		"gross": "gross", "revenue": "revenu", "consolidated": "consolid", "discussion": "discuss",
		"analysis": "analysi", "operations": "oper", "quantitative": "quantit",
		// Exceptions, and words too short to stem.
		"only": "onli", "skies": "sky", "news": "news", "succeeded": "succeed", "at": "at", "by": "by",
		// A 'y' after a vowel is a consonant.
		"saying": "say", "enjoying": "enjoy", "yield": "yield",
		"": "", "'s": "'s",
	}
	for word, want := range tests {
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestStopWords(t *testing.T) {
	if len(stopWords) != 127 {
		t.Errorf("%d stop words, want Postgres' 127", len(stopWords))
	}
	for _, w := range []string{"the", "and", "of", "s", "t", "don", "now"} {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false", w)
		}
	}
	if IsStopWord("margin") {
		t.Error(`IsStopWord("margin") = true`)
	}
}
