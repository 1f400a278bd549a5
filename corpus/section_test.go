package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sectionNames(secs []Section) []string {
	var out []string
	for _, s := range secs {
		out = append(out, s.Name)
	}
	return out
}

func TestSections(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{
			name: "table of contents with page numbers is skipped",
			text: `FORM 10-K
TABLE OF CONTENTS
Item 1. Business 3
Item 1A. Risk Factors 6
Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations 19
PART I
Item 1. Business
We sell products.
Item 1A. Risk Factors
Our business is risky in many ways that we describe at length here.
Item 7. Management’s Discussion and Analysis of Financial Condition and Results of Operations
Gross margin decreased.
`,
			want: []string{"", "Item 1", "Item 1A", "Item 7"},
		},
		{
			name: "html table rows",
			text: `Item 7. | Management’s Discussion and Analysis of Financial Condition and Results of Operations | 21
Item 8. | Financial Statements and Supplementary Data | 30
Item 7. | Management’s Discussion and Analysis of Financial Condition and Results of Operations
Net sales grew.
Item 8. | Financial Statements and Supplementary Data
Total net sales | 391,035 | 383,285
`,
			want: []string{"", "Item 7", "Item 8"},
		},
		{
			name: "title on the next line",
			text: "Intro\nITEM 1A.\nRISK FACTORS\nMany risks are described in the following paragraphs of this report.\n",
			want: []string{"", "Item 1A"},
		},
		{
			name: "cross reference in a wrapped sentence is not a heading",
			text: "Item 7. Management's Discussion\nAs discussed in Part I,\nItem 1A of this Form 10-K under the heading Risk Factors, margins may fall.\n",
			want: []string{"Item 7"},
		},
		{
			name: "table of contents without page numbers",
			text: "Item 1. Business\nItem 1A. Risk Factors\nItem 2. Properties\nItem 3. Legal Proceedings\n" +
				"PART I\nItem 1. Business\n" + strings.Repeat("We make things. ", 10) + "\nItem 1A. Risk Factors\n" + strings.Repeat("Risks abound. ", 10) +
				"\nItem 2. Properties\nWe own buildings in several places around the world.\nItem 3. Legal Proceedings\nNone.\n",
			want: []string{"", "Item 1", "Item 1A", "Item 2", "Item 3"},
		},
		{
			name: "running headers continue the open item",
			text: "Item 1A. Risk Factors\nRisk one is described here at length.\n\f\nPART I\nItem 1A\nBusiness model competition\nRisk two.\nItem 1B. Unresolved Staff Comments\nNone.\n",
			want: []string{"Item 1A", "Item 1B"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := Canonicalize(tt.text)
			secs := Sections(text)
			if got := sectionNames(secs); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("sections = %q, want %q", got, tt.want)
			}
			// Sections tile the text.
			pos := 0
			for _, s := range secs {
				if s.Start != pos || s.End <= s.Start {
					t.Fatalf("section %+v does not continue at %d", s, pos)
				}
				pos = s.End
			}
			if pos != len(text) {
				t.Fatalf("sections end at %d, text at %d", pos, len(text))
			}
		})
	}
}

func TestNormalizeSection(t *testing.T) {
	for in, want := range map[string]string{"7": "Item 7", "item 1a": "Item 1A", "Item 7A.": "Item 7A", " ITEM 9B ": "Item 9B"} {
		if got, ok := NormalizeSection(in); !ok || got != want {
			t.Errorf("NormalizeSection(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "MD&A", "Item", "123", "7Z"} {
		if got, ok := NormalizeSection(in); ok {
			t.Errorf("NormalizeSection(%q) = %q, want not ok", in, got)
		}
	}
}

// corpusDir locates the shared sample corpus, or skips.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.jsonl")); err != nil {
		t.Skipf("sample corpus not found at %s (set CORPUS)", dir)
	}
	return dir
}

// TestSectionsOnCorpus holds the detector to the real filings: every
// 10-K has its MD&A (Item 7) and risk factors (Item 1A) as substantial
// sections, every 10-Q its MD&A (Item 2), and item order is sane.
func TestSectionsOnCorpus(t *testing.T) {
	dir := corpusDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "text", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no text filings in %s", dir)
	}
	html, err := filepath.Glob(filepath.Join(dir, "edgar", "*.html"))
	if err != nil || len(html) == 0 {
		t.Fatalf("no EDGAR filings in %s", dir)
	}
	files = append(files, html...)
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasPrefix(name, "INTEL_2020") {
			continue // organised by topic with a cross-reference index, not by item
		}
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var text string
			if strings.HasSuffix(path, ".html") {
				p, err := ParseHTML(f)
				if err != nil {
					t.Fatal(err)
				}
				text = p.Text
			} else if text, _, err = ParseText(f); err != nil {
				t.Fatal(err)
			}
			size := map[string]int{}
			for _, s := range Sections(text) {
				size[s.Name] += s.End - s.Start
			}
			want := []string{"Item 1A", "Item 7"}
			if strings.Contains(name, "10Q") || strings.Contains(name, "10-q") {
				want = []string{"Item 2"}
			}
			for _, item := range want {
				if size[item] < 5000 {
					t.Errorf("%s holds %d bytes; want a substantial section", item, size[item])
				}
			}
			if size[""] > len(text)/5 {
				t.Errorf("%d of %d bytes fall before the first item", size[""], len(text))
			}
		})
	}
}
