package corpus

import (
	"strings"
	"testing"
)

func TestParseTextPages(t *testing.T) {
	text, pages, err := ParseText(strings.NewReader("Cover   page\n\fItem 7. Management's Discussion\nMargins fell.\n\fLast page\n\f"))
	if err != nil {
		t.Fatal(err)
	}
	if pages != 3 {
		t.Fatalf("pages = %d, want 3 (an empty page after the last break is not a page)", pages)
	}
	idx := NewPageIndex(text)
	for _, tt := range []struct {
		needle string
		page   int
	}{{"Cover", 1}, {"Margins fell", 2}, {"Last page", 3}} {
		if got := idx.Page(strings.Index(text, tt.needle)); got != tt.page {
			t.Errorf("page of %q = %d, want %d", tt.needle, got, tt.page)
		}
	}
	if got := NewPageIndex("no breaks").Page(3); got != 0 {
		t.Errorf("page in a text without breaks = %d, want 0", got)
	}
}

func TestParseTextRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":  "",
		"blank":  " \n\f\n ",
		"binary": "\x00\x01\x02PK\x03\x04",
	} {
		if _, _, err := ParseText(strings.NewReader(in)); err == nil {
			t.Errorf("%s: ParseText accepted %q", name, in)
		}
	}
}

func FuzzParseText(f *testing.F) {
	f.Add("a\fb\fc")
	f.Add("\x00")
	f.Add("Item 7. Management's Discussion and Analysis\n" + strings.Repeat("Sales grew. ", 200))
	f.Fuzz(func(t *testing.T, s string) {
		text, pages, err := ParseText(strings.NewReader(s))
		if err != nil {
			return
		}
		if Canonicalize(text) != text {
			t.Fatalf("ParseText output is not canonical: %q", text)
		}
		if pages < 0 || pages > strings.Count(text, "\f")+1 {
			t.Fatalf("pages = %d for %d breaks", pages, strings.Count(text, "\f"))
		}
		for _, c := range SplitChunks("doc", text, &ChunkOpts{Size: 64, Overlap: 16}) {
			if text[c.Start:c.End] != c.Text || c.Start >= c.End {
				t.Fatalf("chunk %+v does not address its text", c)
			}
		}
	})
}

func TestPageIndexMainPage(t *testing.T) {
	text := "aaaa\fbbbbbbbbbb\fcc"
	p := NewPageIndex(text)
	for _, tt := range []struct{ start, end, want int }{
		{0, 4, 1},   // inside page 1
		{2, 12, 2},  // two bytes of page 1, six of page 2
		{0, 8, 1},   // four of page 1, three of page 2
		{10, 19, 2}, // six of page 2, two of page 3
		{17, 19, 3},
	} {
		if got := p.MainPage(tt.start, tt.end); got != tt.want {
			t.Errorf("MainPage(%d, %d) = %d, want %d", tt.start, tt.end, got, tt.want)
		}
	}
	if got := NewPageIndex("no pages").MainPage(0, 8); got != 0 {
		t.Errorf("MainPage without pages = %d, want 0", got)
	}
}
