package planner

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A causal question ("did X cause Y?") is answered by a sentence that
// states the link, not by one that merely names both: "Free cash flows are
// driven primarily by increasing operating income and ... capital
// expenditures" names capital expenditures and operating income together
// but says neither caused the other, and "Operating income increased due
// to higher sales, partially offset by capital expenditures" names the
// second as a counterweight, not a cause. Linked reads the shape of the
// sentence: the effect, then a connective that introduces a reason, then
// the cause ("Y increased primarily due to X"); or the cause, then a verb
// of causing, then the effect ("X drove Y"). A cause that only appears in
// an offsetting clause ("partially offset by X") is not a cause.

// reasonConnectives introduce the cause after the effect.
var reasonConnectives = []string{
	"due to", "driven by", "because", "as a result of", "result of", "resulting from", "attributable to",
	"primarily from", "primarily reflects", "reflects", "reflecting", "reflected", "owing to", "caused by",
	"related to", "from higher", "from lower", "from increased", "from the growth", "benefited from",
	"benefiting from", "helped by", "thanks to", "led by", "fueled by", "supported by",
}

// causingVerbs introduce the effect after the cause.
var causingVerbs = []string{
	"drove", "drives", "driving", "contributed to", "contributes to", "led to", "leads to", "resulted in",
	"results in", "caused", "causes", "boosted", "helped", "lifted", "pressured", "hurt", "impacted",
	"affected", "weighed on",
}

// closeConnectives closes up a connective split by an adverb ("due
// primarily to", "driven in part by", "partially offset largely by"),
// keeping every other word where it was: the words move to the end of the
// span, padded with spaces.
func closeConnectives(s string) string {
	return splitConnective.ReplaceAllStringFunc(s, func(m string) string {
		sub := splitConnective.FindStringSubmatch(m)
		joined := sub[1] + " " + sub[3]
		return joined + strings.Repeat(" ", len(m)-len(joined))
	})
}

// splitConnective matches a connective's head, one or more adverbs, and
// its preposition.
var splitConnective = regexp.MustCompile(`\b(due|driven|caused|attributable|offset|helped|hurt|led|fueled|fuelled|supported|resulting|benefited|benefiting|related)\s+((?:[a-z]+ly|in\s+(?:large\s+|small\s+|significant\s+)?part|in\s+turn|mainly)\s+)+(to|by|from)\b`)

// memberMarkers start a list of what a whole holds.
var memberMarkers = []string{"which includes", "which include", "which included", "including", "includes", "such as", "comprised of", "consisting of", "comprising"}

// offsetMarkers start a clause of counterweights, not causes.
var offsetMarkers = []string{"offset by", "offset in part", "partially offset", "partly offset", "despite", "although", "except"}

// Linked reports whether sentence states that the cause groups (every one
// of groups but the last; a word of each) brought about the effect (a word
// of the last group), by the shape described above. With fewer than two
// groups it is false.
func Linked(sentence string, groups [][]string) bool {
	if len(groups) < 2 {
		return false
	}
	m := compileGroups(groups)
	cause, effect := m.groups[:len(m.groups)-1], m.groups[len(m.groups)-1]
	s := closeConnectives(normalizeText(sentence))
	effects := termPositions(s, effect)
	if len(effects) == 0 {
		return false
	}
	offset := firstOf(s, offsetMarkers, 0)
	// Effect, then a reason connective, then every cause before any
	// offsetting clause that follows the connective.
	for _, k := range positionsOf(s, reasonConnectives) {
		if !anyBefore(effects, k) {
			continue
		}
		end := len(s)
		if o := firstOf(s, offsetMarkers, k+1); o >= 0 {
			end = o
		}
		if allWithin(s, cause, k, end) {
			return true
		}
	}
	// Cause, then a causing verb, then the effect; the cause stands in no
	// offsetting clause.
	for _, k := range positionsOf(s, causingVerbs) {
		if offset >= 0 && offset < k {
			continue
		}
		if allWithin(s, cause, 0, k) && anyAfter(effects, k) {
			return true
		}
	}
	return false
}

// termPositions returns where any of the normalised terms starts in s, on
// the word boundaries termIn uses.
func termPositions(s string, terms []string) []int {
	var out []int
	for _, t := range terms {
		if pl, ok := iesPlural(t); ok {
			out = append(out, termPositions(s, []string{pl})...)
		}
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], t)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if termIn(s[i:min(len(s), i+len(t)+3)], t) && (i == 0 || !isWordBefore(s, i)) {
				out = append(out, i)
			}
		}
	}
	return out
}

// concession matches the word opening a concessive clause.
var concession = regexp.MustCompile(`\b(despite|although|though|while|notwithstanding)\b`)

// inConcession reports whether position i of s falls in a concessive
// clause not yet closed by a comma ("Despite the strong sales growth
// described above, operating expenses ... increased primarily due to"
// explains operating expenses, not sales growth).
func inConcession(s string, i int) bool {
	locs := concession.FindAllStringIndex(s[:i], -1)
	return len(locs) > 0 && !strings.ContainsAny(s[locs[len(locs)-1][1]:i], ",;")
}

// ratioBase matches text that ends where the base of a ratio is named, or
// what a cost is the cost of ("the increase in cost of net revenues ...
// was primarily due to" explains a cost, not net revenues).
var ratioBase = regexp.MustCompile(`\b(percentage|percent|share|proportion|fraction|multiple|costs?)\s+of\s+(total\s+|our\s+|the\s+|segment\s+|net\s+)*$|%\s+of\s+(total\s+|our\s+|the\s+)*$`)

// comparedBase matches, at the end of normalised text, the words that make
// what follows the base of a comparison: "than", "than that of", "than
// those of".
var comparedBase = regexp.MustCompile(`\bthan\s+(?:(?:that|those)\s+(?:of|at|in)\s+)?(?:the\s+|our\s+)?$`)

func isWordBefore(s string, i int) bool {
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWord(prev)
}

// positionsOf returns where any of phrases starts in s as whole words.
func positionsOf(s string, phrases []string) []int {
	var out []int
	for _, p := range phrases {
		for _, sp := range findWord(s, p) {
			out = append(out, sp.start)
		}
	}
	return out
}

// firstOf returns the first position at or after from where one of
// phrases starts as whole words, or -1.
func firstOf(s string, phrases []string, from int) int {
	best := -1
	for _, p := range positionsOf(s, phrases) {
		if p >= from && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}

func anyBefore(pos []int, k int) bool {
	for _, p := range pos {
		if p < k {
			return true
		}
	}
	return false
}

func anyAfter(pos []int, k int) bool {
	for _, p := range pos {
		if p > k {
			return true
		}
	}
	return false
}

// allWithin reports whether every group has a term starting in s[from:to].
func allWithin(s string, groups [][]string, from, to int) bool {
	for _, g := range groups {
		ok := false
		for _, p := range termPositions(s, g) {
			if p >= from && p < to {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// namesSubject reports whether normalised s names the term t before any
// reason, counterweight or list of a whole's members it gives
// (SubjectTerm): "Microsoft Cloud revenue, which includes Azure ..., was
// $91.2 billion" states the whole's revenue.
func namesSubject(s, t string) bool {
	s = closeConnectives(s)
	cut := len(s)
	for _, k := range positionsOf(s, slices.Concat(reasonConnectives, offsetMarkers, memberMarkers)) {
		cut = min(cut, k)
	}
	return anyBefore(termPositions(s, []string{t}), cut)
}

// Explains reports whether sentence gives a reason for one of terms: a
// term stands before a connective that introduces a reason ("Total
// revenue ... increased 22% ... due to an increase in advertising
// revenue"), so the sentence is about the term and says why. A sentence
// that names the term only inside the reason ("The increase was driven by
// WhatsApp Business Platform revenue"), or gives no reason ("Our revenue
// growth may not be sustainable"), does not explain it.
func Explains(sentence string, terms []string) bool {
	m := compileGroups([][]string{terms})
	s := closeConnectives(normalizeText(sentence))
	// A figure named as the base of a ratio ("operating expenses as a
	// percentage of net sales decreased due to") is not what the reason
	// explains.
	// Nor is a figure named as what another is compared with ("the gross
	// profit rate is lower than that of Walmart U.S. primarily because").
	at := slices.DeleteFunc(termPositions(s, m.groups[0]), func(i int) bool {
		return ratioBase.MatchString(s[:i]) || comparedBase.MatchString(s[:i]) || inConcession(s, i)
	})
	for _, k := range positionsOf(s, reasonConnectives) {
		if anyBefore(at, k) {
			return true
		}
	}
	return false
}
