package validator

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/ledger"
)

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "  a  b ", "‘quoted’ “text” – — ′″", "a\u00a0\u2009b\u200bc", "\ufeff x \u00ad", "tab\tnew\nline", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if Normalize(n) != n {
			t.Fatalf("Normalize is not idempotent: %q -> %q -> %q", s, n, Normalize(n))
		}
		if strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Fatalf("Normalize(%q) = %q keeps extra white space", s, n)
		}
		for _, r := range n {
			if r != ' ' && unicode.IsSpace(r) {
				t.Fatalf("Normalize(%q) = %q keeps %U", s, n, r)
			}
			if strings.ContainsRune("‘’‚‛“”„‟′″–—", r) {
				t.Fatalf("Normalize(%q) = %q keeps %q", s, n, r)
			}
		}
		if n != "" && !Verbatim(s, s) {
			t.Fatalf("Verbatim(%q, itself) = false", s)
		}
		if n != "" && !Verbatim(s, "prefix "+s+" suffix") {
			t.Fatalf("%q is not verbatim inside a longer text", s)
		}
	})
}

func FuzzMarkers(f *testing.F) {
	for _, s := range []string{
		"Margins rose [3]. Margins fell [1].",
		"Both [1, 2]. [2][1] first. [9] lost.",
		"[1 [9]] nested [[2]]",
		"- Item [1].\n\n- Gone [7].\nRevenue was $5 billion.",
		"[1,,2] [1, 2 ] [ 1] [0] [999999] [1234567]",
		"\"Quoted.\" [2] Next [1]",
	} {
		f.Add(s)
	}
	e1 := newEvidence("docA", 0, ledger.KindPassage, "AAPL", "FY2024", salesText)
	e2 := newEvidence("docA", 500, ledger.KindPassage, "AAPL", "FY2024", riskText)
	l := &ledger.RunLedger{Evidence: []ledger.Evidence{e1, e2}}
	cites := []Citation{
		{Index: 1, EvidenceID: e1.ID, Excerpt: "Gross margin percentage"},
		{Index: 2, EvidenceID: e2.ID, Excerpt: "future gross margins"},
		{Index: 3, EvidenceID: e1.ID, Excerpt: "Total net sales"},
		{Index: 4, EvidenceID: "Emissing", Excerpt: "x"},
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range parseMarkers(s) {
			if g.start < 0 || g.end > len(s) || g.start >= g.end || s[g.start] != '[' || s[g.end-1] != ']' || len(g.refs) == 0 {
				t.Fatalf("bad group %+v in %q", g, s)
			}
		}
		if strings.Join(splitSentences(s), "") != s {
			t.Fatalf("splitSentences(%q) does not rejoin", s)
		}
		out, rep := Validate(&Input{Answer: &Answer{Answer: s, Citations: cites}, Ledger: l})
		k := len(out.Citations)
		for i, c := range out.Citations {
			if c.Index != i+1 {
				t.Fatalf("citation %d has index %d", i, c.Index)
			}
		}
		referenced := make(map[int]bool)
		for _, g := range parseMarkers(out.Answer) {
			for _, r := range g.refs {
				if r < 1 || r > k {
					t.Fatalf("output %q has marker %d outside 1..%d (input %q)", out.Answer, r, k, s)
				}
				referenced[r] = true
			}
		}
		for i := 1; i <= k; i++ {
			if !referenced[i] {
				t.Fatalf("citation %d of %q is not referenced (input %q)", i, out.Answer, s)
			}
		}
		if rep.Kept != k || out.Answer == "" {
			t.Fatalf("report %+v, answer %q", rep, out.Answer)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out.Answer) {
			t.Fatalf("valid input %q gave invalid output %q", s, out.Answer)
		}
	})
}
