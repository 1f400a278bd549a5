package planner

import (
	"regexp"
	"slices"
	"strings"
)

// Parts named together either list several parts, each asked on its own
// ("iPhone and Mac net sales", "Europe and Japan"), or narrow one figure
// twice ("Mac revenue in Europe"): the part of one part, which a filing
// that tabulates each alone does not print.

// partsListed is what stands between two parts of a list: a comma, "and",
// "&", "or", a slash or "vs".
var partsListed = regexp.MustCompile(`(?i)^(,|&|/|and|or|vs\.?|versus|plus|,\s*and|,\s*or)(\s+the)?$`)

// listTail splits the text between two parts' names into the words
// before a list's separator and the separator.
var listTail = regexp.MustCompile(`(?i)^(.+?)\s*(?:,|&|/|\band|\bor|\bvs\.?|\bversus|\bplus)(?:\s+the)?$`)

// repeatedName is the figure's name a list repeats after each part: one
// to four words ("gross margin %"), nothing else.
var repeatedName = regexp.MustCompile(`^[a-z&'%-]+(?: [a-z&'%-]+){0,3}$`)

// listedSegments returns segs as the groups the question asks a figure of:
// each part alone where the question lists them, or all of them as one
// part of a part otherwise (also where a part's name is not found in the
// question's words).
func listedSegments(question string, segs []Segment) [][]Segment {
	between := segmentsBetween(question, segs)
	if between == nil {
		return [][]Segment{segs}
	}
	lower := strings.ToLower(question)
	for _, b := range between {
		if partsListed.MatchString(b) {
			continue
		}
		// The figure's name repeated after each part: "data center
		// revenue and gaming revenue", "AWS operating margin vs North
		// America operating margin".
		if m := listTail.FindStringSubmatch(b); m != nil && repeatedName.MatchString(m[1]) && strings.Count(lower, m[1]) >= 2 {
			continue
		}
		return [][]Segment{segs}
	}
	out := make([][]Segment, len(segs))
	for i, s := range segs {
		out[i] = []Segment{s}
	}
	return out
}

// partOfPart reports whether the question names segs as one part of
// another, each name close after the one before with a word of narrowing
// between ("Mac net sales in Europe", "Europe's Mac revenue"): at most
// three words, each "in", "of", "within", "for", "from", "the" or a word of
// the figure's name.
func partOfPart(question string, segs []Segment, figure []string) bool {
	between := segmentsBetween(question, segs)
	if between == nil {
		return false
	}
	for _, b := range between {
		ws := strings.Fields(b)
		if len(ws) > 3 {
			return false
		}
		for _, w := range ws {
			switch w {
			case "in", "of", "within", "for", "from", "the", "'s", "’s":
			default:
				if !slices.Contains(figure, w) {
					return false
				}
			}
		}
	}
	return true
}

// segmentsBetween returns, lower case, the text between each two of the
// parts' names in the order the question names them; nil where fewer than
// two are named or a name is not found as words of its own.
func segmentsBetween(question string, segs []Segment) []string {
	if len(segs) < 2 {
		return nil
	}
	lower := strings.ToLower(question)
	type mention struct{ at, end int }
	var ms []mention
	for _, s := range segs {
		// By its name, or by its initials ("AWS" for Amazon Web Services).
		at, name := -1, ""
		for _, n := range []string{s.Name, initialsOf(wordsOf(s.Name))} {
			if n = strings.ToLower(n); n != "" {
				if at = wordIndex(lower, n); at >= 0 {
					name = n
					break
				}
			}
		}
		if at < 0 {
			return nil
		}
		ms = append(ms, mention{at, at + len(name)})
	}
	slices.SortFunc(ms, func(a, b mention) int { return a.at - b.at })
	var out []string
	for i := 1; i < len(ms); i++ {
		if ms[i].at < ms[i-1].end {
			return nil
		}
		b := strings.TrimSpace(lower[ms[i-1].end:ms[i].at])
		b = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(b, "'s"), "’s"))
		out = append(out, b)
	}
	return out
}

// wordIndex returns where name stands in s as words of their own, or -1.
func wordIndex(s, name string) int {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], name)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(name)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}
