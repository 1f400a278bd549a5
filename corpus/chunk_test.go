package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// checkChunks asserts the properties every chunking must have.
func checkChunks(t *testing.T, text string, chunks []Chunk, size, overlap int) {
	t.Helper()
	secs := Sections(text)
	pages := NewPageIndex(text)
	covered := make([]bool, len(text))
	for i, c := range chunks {
		if c.Ordinal != i || c.ID != ChunkID(c.DocumentID, i) {
			t.Fatalf("chunk %d has ordinal %d, id %s", i, c.Ordinal, c.ID)
		}
		if c.Start >= c.End || text[c.Start:c.End] != c.Text {
			t.Fatalf("chunk %d [%d,%d) does not address its text", i, c.Start, c.End)
		}
		if c.End-c.Start > size+size/5+8 {
			t.Fatalf("chunk %d is %d bytes, target %d", i, c.End-c.Start, size)
		}
		if unicode.IsSpace(rune(c.Text[0])) || unicode.IsSpace(rune(c.Text[len(c.Text)-1])) {
			t.Fatalf("chunk %d has untrimmed white space: %q", i, c.Text)
		}
		if c.Page != pages.Page(c.Start) {
			t.Fatalf("chunk %d page %d, want %d", i, c.Page, pages.Page(c.Start))
		}
		var sec Section
		for _, s := range secs {
			if s.Start <= c.Start && c.Start < s.End {
				sec = s
			}
		}
		if c.Section != sec.Name || c.End > sec.End {
			t.Fatalf("chunk %d [%d,%d) section %q crosses or misnames section %+v", i, c.Start, c.End, c.Section, sec)
		}
		for j := c.Start; j < c.End; j++ {
			covered[j] = true
		}
		if i > 0 && chunks[i-1].Section == c.Section {
			prev := chunks[i-1]
			if c.Start <= prev.Start {
				t.Fatalf("chunk %d does not advance", i)
			}
			if ov := prev.End - c.Start; ov > overlap+40 {
				t.Fatalf("chunks %d and %d overlap by %d bytes, want about %d", i-1, i, ov, overlap)
			}
		}
	}
	for j, ok := range covered {
		if !ok && !unicode.IsSpace(rune(text[j])) && text[j] < 0x80 {
			t.Fatalf("byte %d (%q) is in no chunk", j, text[max(0, j-20):min(len(text), j+20)])
		}
	}
}

func TestSplitChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("Cover page of the filing.\n")
	for p := range 3 {
		fmt.Fprintf(&b, "Item %d. %s\n", []int{1, 7, 8}[p], []string{"Business", "Management's Discussion and Analysis", "Financial Statements"}[p])
		for s := range 40 {
			fmt.Fprintf(&b, "Sentence %d of part %d explains how net sales and gross margin moved in the year. ", s, p)
			if s%7 == 6 {
				b.WriteString("\n")
			}
			if s == 20 {
				b.WriteString("\f\n")
			}
		}
		b.WriteString("\n")
	}
	text := Canonicalize(b.String())
	chunks := SplitChunks("d0c", text, nil)
	if len(chunks) < 10 {
		t.Fatalf("%d chunks from %d bytes", len(chunks), len(text))
	}
	checkChunks(t, text, chunks, 1000, 150)
	// Cuts prefer sentence ends.
	ends := 0
	for _, c := range chunks {
		if strings.HasSuffix(c.Text, ".") {
			ends++
		}
	}
	if ends < len(chunks)*3/4 {
		t.Errorf("only %d of %d chunks end at a sentence", ends, len(chunks))
	}
	if got := chunks[len(chunks)-1].Page; got != 4 {
		t.Errorf("last chunk on page %d, want 4", got)
	}
}

func TestSplitChunksUnbrokenText(t *testing.T) {
	text := Canonicalize(strings.Repeat("x", 5000) + " " + strings.Repeat("ü", 3000))
	chunks := SplitChunks("d", text, &ChunkOpts{Size: 500, Overlap: 50})
	checkChunks(t, text, chunks, 500, 50)
}

func FuzzSplitChunks(f *testing.F) {
	f.Add("Item 7. Management's Discussion\nSales grew. Margins fell.\fItem 8. Financial Statements\nTotal | 1 | 2", 64, 16)
	f.Add(strings.Repeat("word ", 300), 100, 30)
	f.Fuzz(func(t *testing.T, s string, size, overlap int) {
		if size < 16 || size > 4000 || overlap < 0 || overlap > 2000 {
			return
		}
		text := Canonicalize(strings.ToValidUTF8(s, "?"))
		chunks := SplitChunks("doc", text, &ChunkOpts{Size: size, Overlap: overlap})
		_, ov := (&ChunkOpts{Size: size, Overlap: overlap}).sizes()
		checkChunks(t, text, chunks, size, ov)
	})
}

// BenchmarkSplitChunks chunks the largest text filing of the sample corpus.
func BenchmarkSplitChunks(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", "text", "WALMART_2022_10K.txt"))
	if err != nil {
		b.Skip("sample corpus not found")
	}
	text, _, err := ParseText(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		SplitChunks("doc", text, nil)
	}
}
