package corpus

import (
	"testing"
	"unicode/utf8"
)

func TestNeighbourIDs(t *testing.T) {
	tests := []struct{ id, before, after string }{
		{"a9c4c2495e2d1b6a-00011", "a9c4c2495e2d1b6a-00010", "a9c4c2495e2d1b6a-00012"},
		{"a9c4c2495e2d1b6a-00000", "", "a9c4c2495e2d1b6a-00001"},
		{"doc-99999", "doc-99998", "doc-100000"},
	}
	for _, tt := range tests {
		b, a, ok := NeighbourIDs(tt.id)
		if !ok || b != tt.before || a != tt.after {
			t.Errorf("NeighbourIDs(%q) = %q, %q, %v; want %q, %q", tt.id, b, a, ok, tt.before, tt.after)
		}
	}
	for _, bad := range []string{"", "nodash", "doc-x1", "-00001"} {
		if _, _, ok := NeighbourIDs(bad); ok {
			t.Errorf("NeighbourIDs(%q) ok; want false", bad)
		}
	}
}

// A span cut mid-sentence on either side is widened to the sentences it
// cuts, and no further; a span on sentence boundaries is left alone.
func TestWholeSentences(t *testing.T) {
	const text = "Sales rose. As of May 31, 2023, we employed approximately 164,000 full-time employees, of which\n" +
		"approximately 62,000 were employed in the U.S. and 102,000 internationally. Costs fell 2.5% in 2023.\n\nNext paragraph."
	at := func(s string) int {
		for i := 0; i+len(s) <= len(text); i++ {
			if text[i:i+len(s)] == s {
				return i
			}
		}
		t.Fatalf("%q not in text", s)
		return -1
	}
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{"cut at both ends", at("164,000"), at("62,000") + 6,
			"As of May 31, 2023, we employed approximately 164,000 full-time employees, of which\napproximately 62,000 were employed in the U.S. and 102,000 internationally."},
		{"whole already", at("Sales"), at("Sales") + len("Sales rose."), "Sales rose."},
		{"the text's first sentence starts the text", at("rose"), at("rose") + 2, "Sales rose."},
		{"a decimal is no end", at("Costs"), at("2.5") + 2, "Costs fell 2.5% in 2023."},
		{"a paragraph ends a sentence", at("in 2023.") + 3, at("Next") + 4, "Costs fell 2.5% in 2023.\n\nNext paragraph."},
	}
	for _, tt := range tests {
		s, e := WholeSentences(text, tt.start, tt.end, 600)
		if got := text[s:e]; got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	// Within the limit only: a sentence start further back is not sought.
	if s, _ := WholeSentences(text, at("164,000"), at("164,000")+7, 10); s != at("164,000") {
		t.Errorf("widened past the limit to %d", s)
	}
}

// WholeSentences only ever widens, within its limit, to a span of the
// text on rune boundaries.
func FuzzWholeSentences(f *testing.F) {
	f.Add("Sales rose. We employed 164,000 people.\n\nNext.", 14, 30, 600)
	f.Add("• one. two? “Three.” 4.5 U.S. Inc. end", 3, 9, 8)
	f.Fuzz(func(t *testing.T, text string, start, end, limit int) {
		if start < 0 || end > len(text) || start >= end || limit < 0 || limit > 4096 {
			return
		}
		s, e := WholeSentences(text, start, end, limit)
		if s > start || e < end || start-s > limit || e-end > limit {
			t.Fatalf("WholeSentences(%q, %d, %d, %d) = %d, %d", text, start, end, limit, s, e)
		}
		if s != start && !utf8.RuneStart(text[s]) {
			t.Fatalf("start %d is inside a rune", s)
		}
		if e != end && e < len(text) && !utf8.RuneStart(text[e]) {
			t.Fatalf("end %d is inside a rune", e)
		}
	})
}
