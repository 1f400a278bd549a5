package corpus

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxSourceBytes bounds what one source file may hold; filings are a few MB.
const maxSourceBytes = 256 << 20

// ParseText reads plain text whose pages are separated by form feeds and
// returns its canonical form and page count (1 for text without breaks).
func ParseText(r io.Reader) (text string, pages int, err error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxSourceBytes+1))
	if err != nil {
		return "", 0, fmt.Errorf("corpus: text: %w", err)
	}
	if len(raw) > maxSourceBytes {
		return "", 0, fmt.Errorf("corpus: text: larger than %d MB", maxSourceBytes>>20)
	}
	if !utf8.Valid(raw) {
		raw = []byte(strings.ToValidUTF8(string(raw), "\uFFFD"))
	}
	if looksBinary(raw) {
		return "", 0, fmt.Errorf("corpus: text: input looks binary, not text")
	}
	text = Canonicalize(string(raw))
	if strings.TrimSpace(strings.ReplaceAll(text, "\f", "")) == "" {
		return "", 0, fmt.Errorf("corpus: text: no text")
	}
	return text, pageCount(text), nil
}

// looksBinary reports whether a prefix of raw holds NUL or many control bytes.
func looksBinary(raw []byte) bool {
	n := min(len(raw), 8192)
	ctrl := 0
	for _, c := range raw[:n] {
		switch {
		case c == 0:
			return true
		case c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f':
			ctrl++
		}
	}
	return n > 0 && ctrl*20 > n
}

// pageCount returns the number of pages in a canonical text: one more than
// its form feeds, not counting an empty last page.
func pageCount(text string) int {
	n := strings.Count(text, "\f")
	if n == 0 {
		return 0
	}
	last := strings.LastIndexByte(text, '\f')
	if strings.TrimSpace(text[last+1:]) == "" {
		return n
	}
	return n + 1
}

// PageIndex maps byte offsets of a canonical text to 1-based page numbers.
type PageIndex struct {
	breaks []int // offsets of form feeds, ascending
}

// NewPageIndex indexes the page breaks of text. A text without form feeds
// has no pages: Page returns 0 for every offset.
func NewPageIndex(text string) *PageIndex {
	var breaks []int
	for i := 0; i < len(text); i++ {
		if text[i] == '\f' {
			breaks = append(breaks, i)
		}
	}
	return &PageIndex{breaks: breaks}
}

// Page returns the 1-based page holding offset, or 0 for a text without pages.
func (p *PageIndex) Page(offset int) int {
	if len(p.breaks) == 0 {
		return 0
	}
	lo, hi := 0, len(p.breaks)
	for lo < hi { // count breaks before offset
		m := (lo + hi) / 2
		if p.breaks[m] < offset {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo + 1
}

// MainPage returns the page holding most of text[start:end] (the first of
// equals), or 0 for a text without pages. A chunk that opens with the last
// lines of one page and goes on to fill the next is found on the next.
func (p *PageIndex) MainPage(start, end int) int {
	first, last := p.Page(start), p.Page(max(end-1, start))
	if first == last {
		return first
	}
	best, most := first, -1
	for page := first; page <= last; page++ {
		lo, hi := start, end
		if page > 1 {
			lo = max(lo, p.breaks[page-2]+1)
		}
		if page-1 < len(p.breaks) {
			hi = min(hi, p.breaks[page-1])
		}
		if hi-lo > most {
			best, most = page, hi-lo
		}
	}
	return best
}
