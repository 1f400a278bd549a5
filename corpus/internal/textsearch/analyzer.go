package textsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWordLen is the longest word indexed, in bytes; Postgres skips longer
// words too.
const maxWordLen = 2047

// Lexeme is a normalised word of a text and its position among the text's
// words. Stop words take a position but yield no lexeme, so phrase distances
// survive their removal as they do in Postgres.
type Lexeme struct {
	Term string
	Pos  int
}

// Analyzer turns text into lexemes the way Postgres' english text search
// configuration does, closely enough that both stores match the same chunks
// for the same query:
//
//   - A word is a run of letters and digits; everything else separates
//     words. A '.' between two digits stays inside the word, so "3.5" is one
//     word, as in Postgres. A ',' does not: "391,035" is the two words "391"
//     and "035" (again as in Postgres), and the query "391,035" is the
//     phrase of both, so it still finds exactly that figure.
//   - Words are lower-cased. Words with a digit ("2024", "1a", "q3") are
//     kept as they are; other words are dropped when they are stop words and
//     stemmed with [Stem] otherwise.
//
// Known differences from Postgres' parser, none of which changes what a
// plain query matches: a hyphenated word ("forward-looking") yields only
// its parts, not also the compound; a leading minus is not part of a number
// ("-3.5" is "3.5"); e-mail addresses, URLs, host and file names are split
// into their words.
//
// The zero Analyzer is ready to use. It caches stems, so reuse one for many
// texts. It is not safe for concurrent use.
type Analyzer struct {
	terms map[string]string // lower-case word → its lexeme; "" for a stop word
	buf   []byte
}

// Lexemes appends the lexemes of text to dst and returns the result.
func (a *Analyzer) Lexemes(dst []Lexeme, text string) []Lexeme {
	pos := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if !isASCIIAlnum(c) {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		start, ascii, digit := i, true, false
	word:
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				switch {
				case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
				case '0' <= c && c <= '9':
					digit = true
				case c == '.' && isASCIIDigit(text[i-1]) && i+1 < len(text) && isASCIIDigit(text[i+1]):
				default:
					break word
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			digit = digit || unicode.IsDigit(r)
			ascii = false
			i += size
		}
		if i-start <= maxWordLen {
			if term := a.term(text[start:i], ascii, digit); term != "" {
				dst = append(dst, Lexeme{Term: term, Pos: pos})
			}
		}
		pos++
	}
	return dst
}

// Lexemes returns the lexemes of text; see [Analyzer].
func Lexemes(text string) []Lexeme {
	var a Analyzer
	return a.Lexemes(nil, text)
}

// term returns the lexeme of one word, or "" for a stop word.
func (a *Analyzer) term(word string, ascii, digit bool) string {
	a.buf = a.buf[:0]
	if ascii {
		for i := 0; i < len(word); i++ {
			c := word[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			a.buf = append(a.buf, c)
		}
	} else {
		a.buf = append(a.buf, strings.ToLower(word)...)
	}
	if t, ok := a.terms[string(a.buf)]; ok {
		return t
	}
	lower := string(a.buf)
	t := lower
	switch {
	case digit:
	case stopWords[lower]:
		t = ""
	default:
		t = Stem(lower)
	}
	if a.terms == nil {
		a.terms = make(map[string]string)
	}
	a.terms[lower] = t
	return t
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

func isASCIIAlnum(c byte) bool {
	return isASCIIDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
