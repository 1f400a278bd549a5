package planner

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/tools"
)

// Abbreviations a filing defines.
//
// A filing defines its own short forms the way writers do, a long form and
// then its short form in parentheses: "our traffic acquisition costs
// (TAC)", "Asia-Pacific (APAC)", "remaining performance obligations
// (RPO)". A question that writes such a short form ("Alphabet's TAC rate")
// names the issuer's own term, not another issuer whose ticker it happens
// to be (TAC is TransAlta's). definedAbbreviations finds them by the method
// of Schwartz and Hearst (2003): a short form of two to eight characters,
// upper-case letters among them, in parentheses, whose characters are
// found in order, right to left, in the words just before it, its first
// character starting a word. Only the short forms are kept, per issuer.

// Bounds of a definition.
const (
	minShortForm = 2
	maxShortForm = 8
)

// abbreviation is a short form a text defines and the long form it
// stands for, in lower case ("reality labs" for "RL").
type abbreviation struct{ Short, Long string }

// definedAbbreviations returns the short forms text defines, each once,
// with the long form of its first definition.
func definedAbbreviations(text string) []abbreviation {
	var out []abbreviation
	seen := map[string]bool{}
	for i := 0; ; {
		open := strings.IndexByte(text[i:], '(')
		if open < 0 {
			break
		}
		open += i
		end := strings.IndexByte(text[open:], ')')
		if end < 0 {
			break
		}
		end += open
		i = open + 1
		// A short form may be quoted inside its parentheses: "average
		// monthly revenue per paying membership (“ARM”)".
		short := trimQuotes(text[open+1 : end])
		if !shortForm(short) || seen[short] {
			continue
		}
		// The words before the parenthesis on its line, at most
		// min(|short|+5, 2|short|) of them.
		lineStart := strings.LastIndexAny(text[:open], "\n\f") + 1
		words := strings.Fields(text[lineStart:open])
		n := min(len(short)+5, 2*len(short))
		if len(words) > n {
			words = words[len(words)-n:]
		}
		before := strings.Join(words, " ")
		if start, ok := longFormStart(short, before); ok {
			seen[short] = true
			out = append(out, abbreviation{Short: short, Long: strings.ToLower(string([]rune(before)[start:]))})
		}
	}
	return out
}

// trimQuotes returns s without one pair of straight or curly double
// quotes around it.
func trimQuotes(s string) string {
	for _, q := range [][2]string{{"\"", "\""}, {"“", "”"}} {
		if inner, ok := strings.CutPrefix(s, q[0]); ok {
			if inner, ok := strings.CutSuffix(inner, q[1]); ok {
				return inner
			}
		}
	}
	return s
}

// shortForm reports whether s may be a short form: two to eight letters
// or digits (and "&" or "-"), beginning with a letter, at least two of
// them upper-case and no lower-case letter but after an upper-case one.
func shortForm(s string) bool {
	if n := utf8.RuneCountInString(s); n < minShortForm || n > maxShortForm {
		return false
	}
	upper := 0
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			if upper == 0 {
				return false
			}
		case unicode.IsDigit(r) || r == '&' || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return upper >= 2
}

// longFormStart reports whether long ends in a long form of short: the
// short form's letters and digits found in long in order, right to left,
// case aside, the first of them at the start of a word; and where, in
// runes, that long form starts.
func longFormStart(short, long string) (int, bool) {
	s := []rune(strings.ToLower(short))
	l := []rune(strings.ToLower(long))
	li := len(l) - 1
	for si := len(s) - 1; si >= 0; si-- {
		c := s[si]
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			continue
		}
		for li >= 0 && (l[li] != c || si == 0 && li > 0 && (unicode.IsLetter(l[li-1]) || unicode.IsDigit(l[li-1]))) {
			li--
		}
		if li < 0 {
			return 0, false
		}
		li--
	}
	return li + 1, true
}

// Defines reports whether a filing of issuer defines short as an
// abbreviation of its own (definedAbbreviations).
func (s *TextStats) Defines(issuer, short string) bool {
	if s == nil {
		return false
	}
	_, ok := s.abbrev[issuer][short]
	return ok
}

// LongForm returns the long form, in lower case, of the short form a
// filing of issuer defines ("daily active people" for "DAP"); "" when none
// does.
func (s *TextStats) LongForm(issuer, short string) string {
	if s == nil {
		return ""
	}
	return s.abbrev[issuer][short]
}

// ShortForms returns, for each long form a filing of issuer defines a
// short form of in several words ("reality labs"), that short form
// ("RL"). The map is the stats' own: read it, do not change it.
func (s *TextStats) ShortForms(issuer string) map[string]string {
	if s == nil {
		return nil
	}
	return s.long[issuer]
}

// shortForms lets the plan find what a filing says under its own short
// forms: Meta's discussion writes "RL operating losses" once it has
// defined "Reality Labs (RL)". A search of an issuer's filings whose query
// holds a long form the issuer defines is also run with the short form in
// its place, and a term of a passage condition holding one gains the same
// term under the short form.
func (b *builder) shortForms() {
	stats := b.cat.TextStats()
	replace := func(issuer, s string) (string, bool) {
		forms := stats.ShortForms(issuer)
		if len(forms) == 0 {
			return s, false
		}
		longs := slices.Collect(maps.Keys(forms))
		slices.SortFunc(longs, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
		out := strings.ToLower(s)
		changed := false
		for _, long := range longs {
			if termIn(out, long) {
				out = strings.ReplaceAll(out, long, strings.ToLower(forms[long]))
				changed = true
			}
		}
		return out, changed
	}
	for i, n := 0, len(b.g.Nodes); i < n; i++ {
		node := b.g.Nodes[i]
		if node.Tool != tools.SearchFilings {
			continue
		}
		var args tools.SearchArgs
		if err := json.Unmarshal(node.Args, &args); err != nil || len(args.Tickers) != 1 {
			continue
		}
		q, ok := replace(args.Tickers[0], args.Query)
		if !ok {
			continue
		}
		args.Query = q
		b.addNode(tools.SearchFilings, args, slices.Clone(node.Serves), slices.Clone(node.DependsOn)...)
	}
	for i := range b.g.Requirements {
		r := &b.g.Requirements[i]
		if r.Completion.Kind != CondPassage {
			continue
		}
		for j, grp := range r.Completion.AllOf {
			for _, term := range grp {
				if short, ok := replace(cmp.Or(r.Completion.Issuer, r.Issuer), term); ok && !slices.Contains(grp, short) {
					r.Completion.AllOf[j] = append(r.Completion.AllOf[j], short)
				}
			}
		}
	}
}

// Other names a filing gives its terms.
//
// A filing may name a term by another name it also goes by: "A paid
// membership (also referred to as a paid subscription)", "building
// improvements (also referred to as "fit-outs")". An analyst who writes the
// other name ("Netflix paid subscribers") asks the filing's term.
// definedAliases finds them: a parenthesis that opens with "also referred
// to as", "also known as" or "also called", the other name inside it, and
// up to maxAliasWords words before it on its line, the term.

// maxAliasWords bounds the words of a term read before its alias.
const maxAliasWords = 4

// alias is another name of a filing's term.
type alias struct {
	key  string   // the other name's stems, joined by a space (stems)
	term []string // the words before the parenthesis, lower case, at most maxAliasWords
}

// aliasOpeners open a parenthesis that gives a term's other name.
var aliasOpeners = []string{"(also referred to as ", "(also known as ", "(also called "}

// definedAliases returns the other names text gives its terms.
func definedAliases(text string) []alias {
	var out []alias
	lower := strings.ToLower(text)
	for _, opener := range aliasOpeners {
		for i := 0; ; {
			k := strings.Index(lower[i:], opener)
			if k < 0 {
				break
			}
			open := i + k
			i = open + len(opener)
			end := strings.IndexByte(lower[i:], ')')
			if end < 0 || end > 80 {
				continue
			}
			other := aliasWords(lower[i : i+end])
			lineStart := strings.LastIndexAny(lower[:open], "\n\f") + 1
			before := aliasWords(lower[lineStart:open])
			if len(other) == 0 || len(other) > maxAliasWords || len(before) == 0 {
				continue
			}
			if len(before) > maxAliasWords {
				before = before[len(before)-maxAliasWords:]
			}
			out = append(out, alias{key: strings.Join(stems(other), " "), term: before})
		}
	}
	return out
}

// aliasWords splits s into words of letters (a hyphen kept), leaving out
// articles and quotes.
func aliasWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		w = strings.Trim(w, "-")
		if w == "" || w == "a" || w == "an" || w == "the" {
			continue
		}
		out = append(out, w)
	}
	return out
}

// AliasTerms returns the terms a filing of issuer gives words as another
// name of ("paid subscribers" for "paid membership"), compared by stems,
// each as the words that end before the parenthesis, the longest run
// first: the caller finds which of them its filing labels.
func (s *TextStats) AliasTerms(issuer string, words []string) [][]string {
	if s == nil || len(words) == 0 {
		return nil
	}
	asked := stems(words)
	key := strings.Join(asked, " ")
	var out [][]string
	for _, a := range s.aliases[issuer] {
		// The other name itself, or with one more word that qualifies it
		// ("paid streaming subscribers" of "paid subscription").
		// Or its head noun alone ("subscribers" of "paid subscription"),
		// where the other name qualifies it.
		ak := strings.Fields(a.key)
		head := len(asked) == 1 && len(ak) >= 2 && ak[len(ak)-1] == asked[0]
		if a.key != key && !(len(asked) == len(ak)+1 && allIn(ak, asked)) && !head {
			continue
		}
		for n := len(a.term); n >= 1; n-- {
			out = append(out, a.term[len(a.term)-n:])
		}
	}
	return out
}
