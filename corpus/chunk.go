package corpus

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ChunkOpts sets the chunk size. The zero value means the defaults.
type ChunkOpts struct {
	Size    int // target chunk length in bytes; 0 means 1000
	Overlap int // bytes shared with the previous chunk; 0 means 150
}

func (o *ChunkOpts) sizes() (size, overlap int) {
	size, overlap = 1000, 150
	if o != nil && o.Size > 0 {
		size = o.Size
	}
	if o != nil && o.Overlap > 0 {
		overlap = o.Overlap
	}
	if overlap > size/2 {
		overlap = size / 2
	}
	return size, overlap
}

// SplitChunks cuts a canonical text into chunks of about opts.Size bytes
// overlapping by about opts.Overlap, ending at a sentence end where one lies
// near the target, else at a line end, else between words. Chunks never
// cross a section boundary, so each records one section; each records the
// page holding most of it (PageIndex.MainPage), so a chunk that opens with
// the last lines of one page and fills the next is found on the next.
// Chunk text is exactly text[Start:End].
func SplitChunks(documentID, text string, opts *ChunkOpts) []Chunk {
	size, overlap := opts.sizes()
	pages := NewPageIndex(text)
	var chunks []Chunk
	for _, sec := range Sections(text) {
		pos := sec.Start
		for pos < sec.End {
			pos = skipSpace(text, pos, sec.End)
			if pos >= sec.End {
				break
			}
			end := sec.End
			if end-pos > size+size/5 {
				end = cutPoint(text, pos, size)
			}
			trimmed := trimSpaceEnd(text, pos, end)
			if trimmed > pos {
				ord := len(chunks)
				chunks = append(chunks, Chunk{
					ID:         ChunkID(documentID, ord),
					DocumentID: documentID,
					Ordinal:    ord,
					Section:    sec.Name,
					Page:       pages.MainPage(pos, trimmed),
					Start:      pos,
					End:        trimmed,
					Text:       text[pos:trimmed],
				})
			}
			if end >= sec.End {
				break
			}
			next := wordStart(text, end-overlap, end)
			if next <= pos {
				next = end
			}
			pos = next
		}
	}
	return chunks
}

// cutPoint returns where a chunk starting at pos should end: the last
// sentence end in [pos+0.7·size, pos+1.1·size], else the last line end,
// else the last space, else a hard cut on a rune boundary.
func cutPoint(text string, pos, size int) int {
	lo, hi := pos+size*7/10, min(pos+size*11/10, len(text))
	window := text[lo:hi]
	best := -1
	for i := 0; i+1 < len(window); i++ {
		c := window[i]
		if (c == '.' || c == '?' || c == '!') && isSpaceByte(window[i+1]) && sentenceEnd(text, lo+i) {
			best = i + 1
		}
	}
	if best < 0 {
		best = strings.LastIndexByte(window, '\n')
	}
	if best < 0 {
		best = strings.LastIndexByte(window, ' ')
	}
	if best <= 0 {
		end := pos + size
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
		return end
	}
	return lo + best
}

// sentenceEnd reports whether the period at i ends a sentence rather than
// an abbreviation or a number ("Inc.", "U.S.", "1.5").
func sentenceEnd(text string, i int) bool {
	if text[i] != '.' {
		return true
	}
	j := i
	for j > 0 && !isSpaceByte(text[j-1]) {
		j--
	}
	word := text[j:i]
	if len(word) <= 1 || strings.Contains(word, ".") {
		return false
	}
	switch strings.ToLower(word) {
	case "inc", "corp", "co", "ltd", "no", "mr", "ms", "dr", "vs", "approx", "e.g", "i.e":
		return false
	}
	return true
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\f' || c == '\t' }

func skipSpace(text string, pos, end int) int {
	for pos < end {
		r, n := utf8.DecodeRuneInString(text[pos:])
		if !unicode.IsSpace(r) {
			break
		}
		pos += n
	}
	return pos
}

func trimSpaceEnd(text string, start, end int) int {
	for end > start {
		r, n := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return end
}

// wordStart returns the first word start at or after from (and before
// limit), so an overlapping chunk does not open mid-word.
func wordStart(text string, from, limit int) int {
	if from < 0 {
		from = 0
	}
	for from < limit && !utf8.RuneStart(text[from]) {
		from++
	}
	if from > 0 && !isSpaceByte(text[from-1]) {
		sp := strings.IndexAny(text[from:limit], " \n\f")
		if sp < 0 {
			return limit
		}
		from += sp
	}
	return skipSpace(text, from, limit)
}
