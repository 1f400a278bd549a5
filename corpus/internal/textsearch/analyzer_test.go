package textsearch

import (
	"fmt"
	"testing"
)

func TestLexemes(t *testing.T) {
	tests := []struct {
		text string
		want string // term:pos ...
	}{
		{"Total net sales | 391,035 | 383,285", "total:0 net:1 sale:2 391:3 035:4 383:5 285:6"},
		{"The Company's gross margin", "compani:1 gross:3 margin:4"},
		{"grew 3.5% to $4.5 billion; 1,234.56", "grew:0 3.5:1 4.5:3 billion:4 1:5 234.56:6"},
		{"version 1.2.3. End.", "version:0 1.2.3:1 end:2"},
		{"Q3 2024 Item 1A 10-K", "q3:0 2024:1 item:2 1a:3 10:4 k:5"},
		{"forward-looking statements", "forward:0 look:1 statement:2"},
		{"MANUFACTURES and Manufacturing", "manufactur:0 manufactur:2"},
		{"don't stop", "stop:2"},
		{"café Naïve résumés", "café:0 naïv:1 résumé:2"},
		{"snake_case\ttab\fpage", "snake:0 case:1 tab:2 page:3"},
		{"", ""},
		{"... --- !!!", ""},
	}
	for _, tt := range tests {
		got := ""
		for i, l := range Lexemes(tt.text) {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("%s:%d", l.Term, l.Pos)
		}
		if got != tt.want {
			t.Errorf("Lexemes(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestAnalyzerReuse(t *testing.T) {
	var a Analyzer
	first := a.Lexemes(nil, "Margins decreased")
	again := a.Lexemes(nil, "MARGINS decreased")
	if len(first) != 2 || len(again) != 2 || first[0] != again[0] || first[1] != again[1] {
		t.Fatalf("cached analysis differs: %v vs %v", first, again)
	}
}

func BenchmarkAnalyzer(b *testing.B) {
	text := "Products gross margin percentage decreased during 2024 compared to 2023 due to weaker foreign " +
		"currencies and a different mix of products, partially offset by cost savings. Total net sales | 391,035 | 383,285 "
	var a Analyzer
	var lx []Lexeme
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		lx = a.Lexemes(lx[:0], text)
	}
}
