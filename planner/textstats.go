package planner

import (
	"container/heap"
	"hash/fnv"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/tools"
)

// StatsDoc is one filing as NewTextStats counts it.
type StatsDoc struct {
	ID     string // the document's id
	Issuer string // its issuer's ticker; "" makes the document an issuer of its own
	Text   string // canonical text: prose, and table rows whose cells are joined by " | "
	// Names are the issuer's own names and tickers ("Apple Inc.",
	// "AAPL"), masked in sentence shapes; their forms without a legal
	// suffix ("Apple") are masked too.
	Names []string
}

// TextStats is what a corpus says of its words and sentences: how many of
// its documents use each word (for IDF), and which sentence shapes recur
// across its issuers (boilerplate). It is immutable once built, so any
// number of goroutines may read it; a nil *TextStats is valid and knows
// nothing (IDF 1, Boilerplate 0).
type TextStats struct {
	docs, issuers int
	df            map[string]int32  // WordKey -> documents holding the word
	owner         map[string]string // WordKey -> the issuer whose documents use the word, where one issuer's do (OwnIssuer)
	// common holds, sorted, the hashes of the shingles that filings of at
	// least commonIssuers(issuers) issuers hold.
	common []uint64
	names  nameMask
	abbrev map[string]map[string]string // issuer -> the short forms its filings define -> their long forms
	long   map[string]map[string]string // issuer -> long forms of several words -> their short forms
	// aliases holds, per issuer, the other names its filings give their
	// terms ("A paid membership (also referred to as a paid
	// subscription)").
	aliases map[string][]alias
	// segments holds, per issuer, the names its filings call segments
	// ("our Intelligent Cloud segment"), lower case.
	segments map[string]map[string]bool
	// joined holds, per issuer, the pairs of words its filings join with
	// "and" ("content and services"), by the hash of "a b", lower case.
	joined map[string]map[uint64]struct{}
	// totals holds, per issuer, the figures its filings' sentences state as
	// a total that a row may print without the word ("the Company had
	// total deferred revenue of $12.8 billion" beside the balance sheet's
	// current "Deferred revenue"): the words after "total", lower case.
	totals map[string]map[string]bool
	// before counts, per issuer, the word its filings print right before
	// a figure's name ("cash capital expenditures"): "cash capital
	// expenditures" -> uses, lower case.
	before map[string]map[string]int32
}

// A word is an issuer's own (OwnIssuer) when its documents use it at least
// ownerMinUses times and ownerShare times as often as all other issuers'
// documents together.
const (
	ownerMinUses = 3
	ownerShare   = 5
)

// Shingle size and the share of issuers that makes a shingle common.
const (
	shingleWords   = 5
	commonMin      = 3   // a shingle is common in no fewer issuers than this
	commonFraction = 0.3 // nor in fewer than this share of the issuers
)

// commonIssuers returns how many issuers must hold a shingle for it to be
// common: max(3, ⌈30% of issuers⌉). With fewer than 3 issuers nothing is.
func commonIssuers(issuers int) int {
	return max(commonMin, int(math.Ceil(commonFraction*float64(issuers)-1e-9)))
}

// NewTextStats counts docs: the documents holding each word (by WordKey,
// over the whole text, tables included), and the shingles of the shapes of
// their sentences (see Boilerplate), keeping those common across issuers.
// Sentences come from Sentences over the text without its table rows
// (lines holding " | "). The result depends on docs alone, not their order.
func NewTextStats(docs []StatsDoc) *TextStats {
	s := &TextStats{docs: len(docs), df: map[string]int32{}, owner: map[string]string{}, abbrev: map[string]map[string]string{}, long: map[string]map[string]string{},
		before: map[string]map[string]int32{}}
	var names []string
	for _, d := range docs {
		names = append(names, d.Names...)
	}
	s.names = newNameMask(names)

	byIssuer := map[string][]uint64{} // issuer -> its documents' shingles, sorted, distinct
	seen := map[string]int32{}        // a document's words, by WordKey, and how often it uses each
	// The issuer whose documents use each word most, how often, and how
	// often every other issuer's do.
	type use struct {
		issuer    string
		own, rest int32
	}
	uses := map[string]use{}
	keys := map[string]string{} // the keys of df, by themselves
	var pending []pendingName   // names whose first words the text just used (countBefore)
	var (
		toks  []shapeToken
		words []string
		doc   []uint64
	)
	s.segments = map[string]map[string]bool{}
	for _, d := range docs {
		if d.Issuer != "" {
			for _, n := range calledSegments(d.Text) {
				if s.segments[d.Issuer] == nil {
					s.segments[d.Issuer] = map[string]bool{}
				}
				s.segments[d.Issuer][n] = true
			}
			for _, n := range statedTotals(d.Text) {
				if s.totals == nil {
					s.totals = map[string]map[string]bool{}
				}
				if s.totals[d.Issuer] == nil {
					s.totals[d.Issuer] = map[string]bool{}
				}
				s.totals[d.Issuer][n] = true
			}
			for _, a := range definedAliases(d.Text) {
				if s.aliases == nil {
					s.aliases = map[string][]alias{}
				}
				if !slices.ContainsFunc(s.aliases[d.Issuer], func(o alias) bool { return o.key == a.key }) {
					s.aliases[d.Issuer] = append(s.aliases[d.Issuer], a)
				}
			}
			for _, a := range definedAbbreviations(d.Text) {
				if s.abbrev[d.Issuer] == nil {
					s.abbrev[d.Issuer], s.long[d.Issuer] = map[string]string{}, map[string]string{}
				}
				if _, ok := s.abbrev[d.Issuer][a.Short]; ok {
					continue // the first definition read stands
				}
				s.abbrev[d.Issuer][a.Short] = a.Long
				if _, ok := s.long[d.Issuer][a.Long]; !ok && strings.Contains(a.Long, " ") {
					s.long[d.Issuer][a.Long] = a.Short
				}
			}
		}
		clear(seen)
		pending = pending[:0]
		var prev, before, last string // the words before w: before, then last
		for w := range textWords(d.Text) {
			seen[WordKey(w)]++
			if d.Issuer != "" {
				pending, prev = s.countBefore(pending, d.Issuer, prev, w)
				if strings.EqualFold(last, "and") && before != "" {
					s.join(d.Issuer, before, w)
				}
				before, last = last, w
			}
		}
		for k, n := range seen {
			// Count under a copy of the key, not a slice of the text, which
			// the map would keep: assigning to a string key stores the key
			// given, so every count goes through the one copy.
			c, ok := keys[k]
			if !ok {
				c = strings.Clone(k)
				keys[c] = c
			}
			s.df[c]++
			switch u := uses[c]; {
			case d.Issuer != "" && u.issuer == d.Issuer:
				u.own += n
				uses[c] = u
			case d.Issuer != "" && n > u.own:
				uses[c] = use{issuer: d.Issuer, own: n, rest: u.rest + u.own}
			default:
				u.rest += n
				uses[c] = u
			}
		}

		doc = doc[:0]
		for _, sen := range Sentences(withoutTables(d.Text)) {
			toks, words = s.shape(toks[:0], words, sen)
			doc = appendShingles(doc, toks)
		}
		slices.Sort(doc)
		doc = slices.Compact(doc)
		issuer := d.Issuer
		if issuer == "" {
			issuer = "\x00" + d.ID
		}
		byIssuer[issuer] = mergeSorted(byIssuer[issuer], doc)
	}
	s.issuers = len(byIssuer)
	for k, u := range uses {
		if u.issuer != "" && u.own >= ownerMinUses && u.own >= ownerShare*u.rest {
			s.owner[k] = u.issuer
		}
	}
	if s.issuers < commonMin {
		return s
	}

	sets := make([][]uint64, 0, len(byIssuer))
	for _, sh := range byIssuer {
		sets = append(sets, sh)
	}
	s.common = heldByAtLeast(sets, commonIssuers(s.issuers))
	return s
}

// Documents returns the number of documents counted.
func (s *TextStats) Documents() int {
	if s == nil {
		return 0
	}
	return s.docs
}

// Issuers returns the number of distinct issuers counted (a document
// without one counts as its own).
func (s *TextStats) Issuers() int {
	if s == nil {
		return 0
	}
	return s.issuers
}

// IDF returns the smoothed inverse document frequency of word (by its
// WordKey): ln((N+1)/(df+1)) + 1 over N documents, df of which use it. A
// word no document uses gets the largest value, ln(N+1) + 1; a nil
// *TextStats returns 1 for every word.
func (s *TextStats) IDF(word string) float64 {
	if s == nil {
		return 1
	}
	df := s.df[WordKey(word)]
	return math.Log(float64(s.docs+1)/float64(df+1)) + 1
}

// DocumentFrequency returns how many documents use word (by its WordKey);
// 0 for a nil *TextStats.
func (s *TextStats) DocumentFrequency(word string) int {
	if s == nil {
		return 0
	}
	return int(s.df[WordKey(word)])
}

// join records that issuer's filings join words a and b with "and".
func (s *TextStats) join(issuer, a, b string) {
	if s.joined == nil {
		s.joined = map[string]map[uint64]struct{}{}
	}
	if s.joined[issuer] == nil {
		s.joined[issuer] = map[uint64]struct{}{}
	}
	s.joined[issuer][pairHash(a, b)] = struct{}{}
}

func pairHash(a, b string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(a)))
	h.Write([]byte{' '})
	h.Write([]byte(strings.ToLower(b)))
	return h.Sum64()
}

// Joins reports whether issuer's filings print "a and b" ("content and
// services"): a name that holds "and", not two things listed, where a
// question writes it so ("Xbox content and services growth").
func (s *TextStats) Joins(issuer, a, b string) bool {
	if s == nil {
		return false
	}
	_, ok := s.joined[issuer][pairHash(a, b)]
	return ok
}

// Unclipped returns, for a word no filing uses that clips a word the
// filings use ("avg" of "average", "govt" of "government"), that word's
// key (WordKey), which matches the word's forms as a term: the most
// documents' among the words it clips that begin with its first two
// letters. It returns "" for a word the filings use, one that clips
// none, or one that clips several as often. Keys hold a word's first keyLen letters, so a clip taking letters
// from further in ("intl") is not found.
func (s *TextStats) Unclipped(w string) string {
	w = strings.ToLower(w)
	if s == nil || len(w) < 3 || s.DocumentFrequency(w) > 0 {
		return ""
	}
	best, bestDF, tied := "", int32(0), false
	for k, df := range s.df {
		if len(k) < 2 || k[:2] != w[:2] || !clips(w, k) {
			continue
		}
		switch {
		case df > bestDF:
			best, bestDF, tied = k, df, false
		case df == bestDF:
			tied = true
		}
	}
	if tied {
		return "" // "rev": revenue, review or receive, as often each
	}
	return best
}

// CommonPrefix reports whether prefix, a word no filing uses, begins a
// word (by its key) that at least half the documents use: "exp" of
// "expense".
func (s *TextStats) CommonPrefix(prefix string) bool {
	prefix = strings.ToLower(prefix)
	if s == nil || s.Documents() == 0 || s.DocumentFrequency(prefix) > 0 {
		return false
	}
	for k, df := range s.df {
		if len(k) > len(prefix) && strings.HasPrefix(k, prefix) && int(df)*2 >= s.Documents() {
			return true
		}
	}
	return false
}

// OwnIssuer returns the issuer a word (by its WordKey) is a name of, such
// as a product's ("Azure"): the issuer whose documents use it at least
// ownerMinUses times and ownerShare times as often as every other
// issuer's together (another issuer's filing may name a partner's
// product). It is "" for any other word and for a nil *TextStats.
func (s *TextStats) OwnIssuer(word string) string {
	if s == nil {
		return ""
	}
	return s.owner[WordKey(word)]
}

// Everywhere reports whether word is in every document the statistics
// were made from (and there are at least three): a word that tells no
// filing's passage from another's.
func (s *TextStats) Everywhere(word string) bool {
	if s == nil || s.docs < 3 {
		return false
	}
	return int(s.df[WordKey(word)]) >= s.docs
}

// Boilerplate returns how much of sentence's shape recurs across issuers,
// in [0, 1]: the share of its shingles that are common.
//
// A sentence's shape is its words by WordKey, with each number replaced by
// a placeholder, and each name of an issuer (StatsDoc.Names, written with
// a capital, or in capitals for a ticker) and each generic self-reference
// ("we", "our", "us", a capitalized "Company" or "Registrant") by another.
// Its shingles are its runs of 5 words that span no number: numbers carry
// a sentence's facts, and with them masked "$6.0 billion and $3.0 billion
// as of June 30" would be a shape every issuer shares. A shingle is common
// when the filings of at least max(3, ⌈30%⌉ of) the issuers hold it; with
// fewer than 3 issuers none is. So "Apple Inc. assumes no obligation to
// update any forward-looking statements" and "We assume no obligation..."
// share one shape, common when enough issuers write it. A sentence of
// under 5 words, one whose every run of 5 spans a number, and a nil
// *TextStats give 0.
func (s *TextStats) Boilerplate(sentence string) float64 {
	if s == nil || len(s.common) == 0 {
		return 0
	}
	toks, _ := s.shape(nil, nil, sentence)
	return s.shapeBoilerplate(toks)
}

// shapeBoilerplate is Boilerplate of a sentence's shape.
func (s *TextStats) shapeBoilerplate(toks []shapeToken) float64 {
	if len(toks) < shingleWords {
		return 0
	}
	sh := appendShingles(nil, toks)
	common := 0
	for _, h := range sh {
		if _, ok := slices.BinarySearch(s.common, h); ok {
			common++
		}
	}
	if len(sh) == 0 {
		return 0
	}
	return float64(common) / float64(len(sh))
}

// SetTextStats gives the catalog the corpus's word and sentence statistics.
func (c *Catalog) SetTextStats(s *TextStats) { c.stats = s }

// TextStats returns the statistics SetTextStats gave, or nil (which
// callers may use as it is: it knows nothing).
func (c *Catalog) TextStats() *TextStats {
	if c == nil {
		return nil
	}
	return c.stats
}

// --- words ---

// keyLen caps a WordKey.
const keyLen = 7

// WordKey returns the key word is counted under. It is word in lower case
// without a possessive "'s"; a word of ASCII letters is then stemmed
// lightly and cut to 7 letters, so "margin" and "margins", "increase",
// "increased", "increasing" and "increases", "expect", "expected" and
// "expectations" share a key. Stemming, in order:
//
//  1. a plural: "-ies" -> "-y", "-sses" -> "-ss", "-xes", "-ches" and
//     "-shes" lose "-es", else a final "s" goes unless after "s", "u" or
//     "i" ("loss", "status", "basis" stay);
//  2. while a rule applies: "-ation" goes when 4 letters stay, "-ment"
//     when 6 do ("investment" -> "invest"; "segment", "statement" stay),
//     "-ition", "-itive" and "-itor" when 4 do ("competition",
//     "competitive" and "competitor" -> "compet"; "position" stays),
//     "-ied" -> "-y", "-ly" goes when 4 letters stay ("only", "early"
//     stay), "-ing" and "-ed" go when the stem keeps a vowel and 3
//     letters (2 for a vowel and a consonant: "used"), though not "-eed"
//     ("need", "proceed"); after "-ing" or "-ed" a doubled final
//     consonant other than l, s, z or f is undoubled ("planned" -> "plan"),
//     and a 3-letter stem of consonant, vowel, consonant gets back its
//     "e" ("based" -> "base", "using" -> "use");
//  3. a final "e" goes when 4 letters stay ("increase" -> "increas";
//     "base", "note" and "sale" stay).
//
// The cut at 7 letters joins the forms of a family the rules miss
// ("develop", "developer", "development"; "depreciate", "depreciation")
// at the price of a few strangers ("internal" and "international"). Words
// with digits or letters outside ASCII are only lower-cased.
func WordKey(w string) string {
	w = strings.ToLower(w)
	w = trimPossessive(w)
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	if len(w) >= 4 {
		w = stem(w)
	}
	if len(w) > keyLen {
		w = w[:keyLen]
	}
	return w
}

func trimPossessive(w string) string {
	for _, p := range []string{"'s", "’s", "'S", "’S"} {
		if t, ok := strings.CutSuffix(w, p); ok && t != "" {
			return t
		}
	}
	return w
}

// stem strips w (lower-case ASCII letters) as WordKey says.
func stem(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) >= 5:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && len(w) >= 4 && !strings.ContainsRune("sui", rune(w[len(w)-2])):
		w = w[:len(w)-1]
	}
	for {
		next, ok := stemOnce(w)
		if !ok {
			break
		}
		w = next
	}
	if len(w) >= 5 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func stemOnce(w string) (string, bool) {
	if t, ok := strings.CutSuffix(w, "ation"); ok && len(t) >= 4 {
		return t, true
	}
	if t, ok := strings.CutSuffix(w, "ment"); ok && len(t) >= 6 {
		return t, true
	}
	for _, suf := range []string{"ition", "itive", "itor"} {
		if t, ok := strings.CutSuffix(w, suf); ok && len(t) >= 4 {
			return t, true
		}
	}
	if t, ok := strings.CutSuffix(w, "ied"); ok && len(t) >= 2 {
		return t + "y", true
	}
	if t, ok := strings.CutSuffix(w, "ly"); ok && len(t) >= 4 {
		return t, true
	}
	for _, suf := range []string{"ing", "ed"} {
		t, ok := strings.CutSuffix(w, suf)
		if !ok || !strings.ContainsAny(t, "aeiouy") || (suf == "ed" && strings.HasSuffix(t, "e")) {
			continue
		}
		switch n := len(t); {
		case n >= 4 && t[n-1] == t[n-2] && !isVowel(t[n-1]) && !strings.ContainsRune("lszf", rune(t[n-1])):
			return t[:n-1], true
		case n == 3 && !isVowel(t[0]) && isVowel(t[1]) && !isVowel(t[2]) && !strings.ContainsRune("wxy", rune(t[2])):
			return t + "e", true
		case n == 2 && isVowel(t[0]) && !isVowel(t[1]) && !strings.ContainsRune("wxy", rune(t[1])):
			return t + "e", true
		case n >= 3:
			return t, true
		}
	}
	return w, false
}

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

// textWords yields the words of text: runs of letters and digits, with the
// separators of a number ("391,035", "46.2") and apostrophes inside a word
// kept.
func textWords(text string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i <= len(text); {
			r, size := rune(0), 1
			if i < len(text) {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			word := unicode.IsLetter(r) || unicode.IsDigit(r)
			if !word && start >= 0 && i+size < len(text) && (r == '.' || r == ',' || r == '\'' || r == '’') {
				prev, _ := utf8.DecodeLastRuneInString(text[:i])
				next, _ := utf8.DecodeRuneInString(text[i+size:])
				if r == '.' || r == ',' {
					word = unicode.IsDigit(prev) && unicode.IsDigit(next)
				} else {
					word = unicode.IsLetter(prev) && unicode.IsLetter(next)
				}
			}
			switch {
			case word && start < 0:
				start = i
			case !word && start >= 0:
				if !yield(text[start:i]) {
					return
				}
				start = -1
			}
			i += size
		}
	}
}

// withoutTables returns text with its table rows (lines holding " | ")
// blanked, so no sentence runs into a table.
func withoutTables(text string) string {
	if !strings.Contains(text, " | ") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for line := range strings.Lines(text) {
		if strings.Contains(line, " | ") {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// --- shapes ---

// Placeholders of a shape; no word spells them.
const (
	numberWord = "#"
	selfWord   = "@"
)

// shapeToken is a word of a sentence's shape and its hash.
type shapeToken struct {
	word string
	hash uint64
}

// selfWords refer to the filer whatever its name.
var selfWords = map[string]bool{"we": true, "us": true, "our": true, "ours": true, "ourselves": true}

// selfTitles refer to the filer when capitalized ("the Company").
var selfTitles = map[string]bool{"company": true, "registrant": true}

// shape appends the shape of sentence to dst: see Boilerplate. words is
// scratch space for the words as written, returned for reuse.
func (s *TextStats) shape(dst []shapeToken, words []string, sentence string) ([]shapeToken, []string) {
	words = words[:0]
	for w := range textWords(sentence) {
		words = append(words, trimPossessive(w))
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		lower := strings.ToLower(w)
		switch {
		case strings.ContainsFunc(w, unicode.IsDigit):
			lower = numberWord
		case selfWords[lower] || selfTitles[lower] && startsUpper(w):
			lower = selfWord
		default:
			if n := s.names.match(words[i:]); n > 0 {
				lower = selfWord
				i += n - 1
			} else {
				lower = WordKey(lower)
			}
		}
		dst = append(dst, shapeToken{lower, hashWord(lower)})
	}
	return dst, words
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// appendShingles appends the hashes of the shingles of toks to dst,
// leaving out those that span a number: numbers carry a sentence's facts,
// and with them masked "$6.0 billion and $3.0 billion as of June 30" would
// be a shape every issuer shares.
func appendShingles(dst []uint64, toks []shapeToken) []uint64 {
	next := 0 // the first window that can start after the latest number
	for i, t := range toks {
		if t.word == numberWord {
			next = i + 1
			continue
		}
		start := i - shingleWords + 1
		if start < next {
			continue
		}
		h := uint64(fnvOffset)
		for _, t := range toks[start : i+1] {
			h = (h ^ t.hash) * fnvPrime
		}
		dst = append(dst, mix(h))
	}
	return dst
}

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashWord(w string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * fnvPrime
	}
	return h
}

// mix is splitmix64's finalizer: it spreads a hash's bits.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// heldByAtLeast returns, sorted, the values that at least need of sets
// (each sorted and distinct) hold. It merges the sets as they are, so the
// count needs no more memory than a heap of cursors.
func heldByAtLeast(sets [][]uint64, need int) []uint64 {
	h := make(cursors, 0, len(sets))
	for _, set := range sets {
		if len(set) > 0 {
			h = append(h, set)
		}
	}
	heap.Init(&h)
	var out []uint64
	for len(h) > 0 {
		v, n := h[0][0], 0
		for len(h) > 0 && h[0][0] == v {
			n++
			if h[0] = h[0][1:]; len(h[0]) == 0 {
				heap.Pop(&h)
			} else {
				heap.Fix(&h, 0)
			}
		}
		if n >= need {
			out = append(out, v)
		}
	}
	return slices.Clip(out)
}

// cursors is a min-heap of sorted sets by their first values.
type cursors [][]uint64

func (h cursors) Len() int           { return len(h) }
func (h cursors) Less(i, j int) bool { return h[i][0] < h[j][0] }
func (h cursors) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)        { *h = append(*h, x.([]uint64)) }
func (h *cursors) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeSorted returns the union of sorted, distinct a and b.
func mergeSorted(a, b []uint64) []uint64 {
	if len(a) == 0 {
		return slices.Clone(b)
	}
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// nameMask finds issuers' names in a sentence's words.
type nameMask struct {
	names map[string][]maskName // by the first word, lower-case; longest first
}

// maskName is a name as words, lower-case; a ticker matches only when
// written in capitals, another name only when its first word has a capital
// ("Apple", "eBay", not "apple").
type maskName struct {
	words  []string
	ticker bool
}

// newNameMask indexes names and their forms without a legal suffix
// ("Apple Inc." and "Apple").
func newNameMask(names []string) nameMask {
	m := nameMask{names: map[string][]maskName{}}
	add := func(name string, ticker bool) {
		var words []string
		for w := range textWords(name) {
			words = append(words, strings.ToLower(trimPossessive(w)))
		}
		if len(words) == 0 || strings.ContainsFunc(words[0], unicode.IsDigit) {
			return
		}
		n := maskName{words, ticker}
		list := m.names[words[0]]
		if slices.ContainsFunc(list, func(o maskName) bool { return o.ticker == ticker && slices.Equal(o.words, words) }) {
			return
		}
		list = append(list, n)
		slices.SortStableFunc(list, func(a, b maskName) int { return len(b.words) - len(a.words) })
		m.names[words[0]] = list
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		ticker := !strings.ContainsAny(n, " .,") && strings.ToUpper(n) == n && len(n) <= 6
		add(n, ticker)
		if !ticker {
			if short := shortName(n); short != "" {
				add(short, false)
			}
		}
	}
	return m
}

// match returns how many of words (as written) a name spans from the
// first, or 0.
func (m nameMask) match(words []string) int {
	if len(m.names) == 0 || len(words) == 0 {
		return 0
	}
	first := strings.ToLower(words[0])
	for _, n := range m.names[first] {
		if len(n.words) > len(words) {
			continue
		}
		if n.ticker && words[0] != strings.ToUpper(words[0]) || !n.ticker && words[0] == first {
			continue
		}
		ok := true
		for k := 1; k < len(n.words); k++ {
			if strings.ToLower(words[k]) != n.words[k] {
				ok = false
				break
			}
		}
		if ok {
			return len(n.words)
		}
	}
	return 0
}

// segmentCalled finds a name a filing calls a segment: capitalised words
// (joined by "and", "&" or "of" where the name is so written) before
// "segment" or "segments" ("our Intelligent Cloud segment", "the Walmart
// U.S. and Sam's Club segments").
var segmentCalled = regexp.MustCompile(`((?:[A-Z][\w'’.&-]*[ \t]+(?:(?:and|&|of)[ \t]+)?)*[A-Z][\w'’.&-]*)[ \t]+segments?\b`)

// calledSegments returns the names text calls segments, lower case; a
// name listed with another ("the Walmart U.S. and Sam's Club segments")
// is read as itself and as its pieces either side of "and".
func calledSegments(text string) []string {
	var out []string
	add := func(n string) {
		n = strings.ToLower(strings.TrimSpace(strings.TrimRight(n, ".")))
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, m := range segmentCalled.FindAllStringSubmatch(text, -1) {
		name := m[1]
		// The sentence's first word ("Our", "The", "Each") is no part of
		// the name.
		for {
			first, rest, ok := strings.Cut(name, " ")
			if !ok || !segmentLeaders[strings.ToLower(first)] {
				break
			}
			name = rest
		}
		add(name)
		for _, piece := range strings.Split(name, " and ") {
			add(piece)
		}
	}
	return out
}

// SegmentOwner returns the issuer whose filings, alone among the
// issuers', call a name the question writes with a capital a segment
// ("Sam's Club net sales in fiscal 2022": Walmart's "our Sam's Club
// segment"), and that name as its filings write it; "" when no name, or
// more than one issuer, is found so.
func (s *TextStats) SegmentOwner(question string) (issuer, name string) {
	if s == nil {
		return "", ""
	}
	// ASCII-only lowering keeps the question's byte offsets, so a match
	// in lower is read for its capital in q.
	q := strings.ReplaceAll(question, "’", "'")
	lower := asciiLower(q)
	callers := map[string][]string{} // segment name -> issuers calling it so
	for t, names := range s.segments {
		for n := range names {
			callers[n] = appendNew(callers[n], t)
			// A short form the issuer defines ("RL segment") by its long
			// form too ("Reality Labs").
			if long := s.abbrev[t][strings.ToUpper(n)]; long != "" {
				callers[long] = appendNew(callers[long], t)
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(callers)) {
		ts := callers[n]
		if len(ts) != 1 || len(n) < 3 {
			continue
		}
		// A name of one word is the issuer's when the word is ("AWS",
		// "StubHub"); "Total", "Certain" or "Market" are words of every
		// filing.
		if !strings.Contains(n, " ") && s.OwnIssuer(n) != ts[0] {
			continue
		}
		for _, sp := range findWord(lower, n) {
			if !unicode.IsUpper(rune(q[sp.start])) {
				continue // not written as a name
			}
			if issuer != "" && issuer != ts[0] {
				return "", ""
			}
			if issuer == "" || len(n) > len(name) {
				issuer, name = ts[0], n
			}
		}
	}
	return issuer, name
}

// segmentLeaders are the words that open a sentence or a phrase before a
// segment's name, not words of the name. ("Other" is not one: it opens
// names, "Other Bets", "Other International".)
var segmentLeaders = map[string]bool{"our": true, "the": true, "each": true, "this": true, "these": true, "its": true,
	"their": true, "all": true, "in": true, "for": true, "by": true, "both": true, "reportable": true, "operating": true}

// CallsSegment reports whether issuer's filings call name a segment;
// a name printed with its abbreviation ("Data Center Group (DCG)") is
// called so under either form.
func (s *TextStats) CallsSegment(issuer, name string) bool {
	if s == nil {
		return false
	}
	got := s.segments[issuer]
	n := strings.ToLower(strings.TrimRight(strings.TrimSpace(name), "."))
	if got[n] {
		return true
	}
	for long, short := range s.long[issuer] {
		if strings.EqualFold(long, n) && got[strings.ToLower(short)] {
			return true // "Data Center Group", called "DCG segment"
		}
	}
	if i := strings.LastIndex(n, " ("); i > 0 && strings.HasSuffix(n, ")") {
		return got[strings.TrimSpace(n[:i])] || got[n[i+2:len(n)-1]]
	}
	return false
}

// statedTotal matches a sentence stating a total in money: "total deferred
// revenue of $12.8 billion", "total unrecognized compensation cost was
// $1.2 billion". Group 1 is the figure's words after "total".
var statedTotal = regexp.MustCompile(`\b[Tt]otal((?:\s+[a-z][a-z-]*){1,4}?)\s+(?:of|was|were|is|are|totaled|amounted to)\s+(?:approximately\s+|about\s+)?\$\s?\d`)

// statedTotals returns the figures text states as totals in money
// (statedTotal), their words lower case.
func statedTotals(text string) []string {
	var out []string
	for _, m := range statedTotal.FindAllStringSubmatch(text, -1) {
		if n := strings.Join(strings.Fields(m[1]), " "); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// StatesTotal reports whether issuer's filings state, in a sentence, a
// total of the figure named by words ("deferred revenue" in "total
// deferred revenue of $12.8 billion").
func (s *TextStats) StatesTotal(issuer string, words []string) bool {
	if s == nil {
		return false
	}
	return s.totals[issuer][strings.ToLower(strings.Join(words, " "))]
}

// figureNameStarts maps the first word of every catalogue figure's names of
// two words or more to those names, lower case, each with its other words:
// "capital" -> "capital expenditures" ["expenditures"], ...
var figureNameStarts = sync.OnceValue(func() map[string][]pendingName {
	out := map[string][]pendingName{}
	for _, m := range tools.Metrics {
		for _, a := range m.Aliases {
			ws := strings.Fields(a)
			if len(ws) >= 2 && !slices.ContainsFunc(out[ws[0]], func(p pendingName) bool { return p.name == a }) {
				out[ws[0]] = append(out[ws[0]], pendingName{name: a, rest: ws[1:]})
			}
		}
	}
	return out
})

// countBefore notes, for a word w of an issuer's text after prev, the
// figures' names w opens (with the word before) and the names pending from
// earlier words that w goes on or ends; it returns the names still pending
// and the next word's prev.
func (s *TextStats) countBefore(pending []pendingName, issuer, prev, w string) ([]pendingName, string) {
	lw := w
	if strings.IndexFunc(w, unicode.IsUpper) >= 0 {
		lw = strings.ToLower(w)
	}
	kept := pending[:0]
	for _, pn := range pending {
		if pn.rest[0] != lw {
			continue
		}
		if pn.rest = pn.rest[1:]; len(pn.rest) > 0 {
			kept = append(kept, pn)
			continue
		}
		if s.before[issuer] == nil {
			s.before[issuer] = map[string]int32{}
		}
		s.before[issuer][pn.word+" "+pn.name]++
	}
	pending = kept
	if prev != "" && strings.IndexFunc(prev, unicode.IsDigit) < 0 {
		for _, pn := range figureNameStarts()[lw] {
			pn.word = prev
			pending = append(pending, pn)
		}
	}
	return pending, lw
}

// pendingName is a figure's name whose first word a text just used.
type pendingName struct {
	word, name string   // the word before the name, and the name
	rest       []string // its words still to come
}

// PrintsBefore reports whether issuer's filings print word right before
// one of names (a figure's names, lower case) at least twice: "cash"
// before "capital expenditures" in Amazon's ("Cash capital expenditures
// were $48.1 billion"), where it narrows the figure.
func (s *TextStats) PrintsBefore(issuer, word string, names []string) bool {
	if s == nil {
		return false
	}
	for _, n := range names {
		if s.before[issuer][strings.ToLower(word)+" "+strings.ToLower(n)] >= 2 {
			return true
		}
	}
	return false
}
