package corpus

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NeighbourIDs returns the ids of the chunks before and after chunk id in
// its document ("" for none before the first), read from the id's ordinal
// (see ChunkID); false when id is not a chunk id.
func NeighbourIDs(id string) (before, after string, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 {
		return "", "", false
	}
	ord, err := strconv.Atoi(id[i+1:])
	if err != nil || ord < 0 {
		return "", "", false
	}
	prefix := id[:i]
	if ord > 0 {
		before = prefix + "-" + pad(ord-1)
	}
	return before, prefix + "-" + pad(ord+1), true
}

func pad(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 5 {
		s = "0" + s
	}
	return s
}

// WholeSentences widens the span [start, end) of window to whole
// sentences: start moves back to the start of the sentence it falls in,
// end forward to the end of the sentence it falls in, each by at most
// limit bytes. A side that already lies on a sentence boundary, or finds
// none within limit, keeps its bound. Boundaries are a sentence's end
// (".", "?" or "!" before white space, not an abbreviation's or a
// number's period), a blank line, a form feed and a list bullet. The
// result is a span of window, so its text is verbatim.
func WholeSentences(window string, start, end, limit int) (int, int) {
	if start < 0 || end > len(window) || start >= end {
		return start, end
	}
	return sentenceStart(window, start, limit), sentenceStop(window, end, limit)
}

// sentenceStart returns where the sentence holding window[at] starts.
func sentenceStart(w string, at, limit int) int {
	if atBoundaryBefore(w, at) {
		return at
	}
	lo := max(0, at-limit)
	for i := at - 1; i >= lo; i-- {
		if atBoundaryBefore(w, i) && !unicode.IsSpace(rune(w[i])) && utf8.RuneStart(w[i]) {
			return i
		}
	}
	return at
}

// atBoundaryBefore reports whether a sentence may start at w[i]: the text
// before it ends a sentence or a paragraph.
func atBoundaryBefore(w string, i int) bool {
	if i == 0 {
		return true
	}
	j := i
	for j > 0 && (w[j-1] == ' ' || w[j-1] == '\t' || w[j-1] == '\r') {
		j--
	}
	if j == 0 {
		return true
	}
	if strings.HasPrefix(w[i:], "•") {
		return true
	}
	switch w[j-1] {
	case '\f':
		return true
	case '\n':
		// A blank line ends a paragraph; a single line break ends a
		// sentence only after its closing mark.
		k := j - 1
		for k > 0 && (w[k-1] == ' ' || w[k-1] == '\t' || w[k-1] == '\r') {
			k--
		}
		if k == 0 || w[k-1] == '\n' || w[k-1] == '\f' {
			return true
		}
		return j-1 > 0 && closesSentence(w, k-1)
	}
	return j < i && closesSentence(w, j-1)
}

// closesSentence reports whether w[i] (after any closing quotes or
// parentheses) is a mark that ends a sentence.
func closesSentence(w string, i int) bool {
	for i > 0 && strings.ContainsRune(")]\"'", rune(w[i])) {
		i--
	}
	if i >= 3 && strings.HasSuffix(w[:i+1], "”") {
		i -= len("”")
	}
	switch w[i] {
	case '?', '!':
		return true
	case '.':
		return sentenceEnd(w, i) && (i == 0 || !unicode.IsDigit(rune(w[i-1])) || i+1 >= len(w) || !unicode.IsDigit(rune(w[i+1])))
	}
	return false
}

// sentenceStop returns where the sentence holding window[at-1] ends.
func sentenceStop(w string, at, limit int) int {
	if at >= len(w) || closesSentence(w, at-1) && (at == len(w) || isSpaceByte(w[at])) {
		return at
	}
	hi := min(len(w), at+limit)
	for i := at; i < hi; i++ {
		switch {
		case w[i] == '\f' || w[i] == '\n' && i+1 < len(w) && w[i+1] == '\n':
			return trimSpaceEnd(w, at, i)
		case (w[i] == '.' || w[i] == '?' || w[i] == '!') && (i+1 == len(w) || isSpaceByte(w[i+1])) && closesSentence(w, i):
			return i + 1
		}
	}
	return at
}
