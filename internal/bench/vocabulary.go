package bench

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/ledgerline/research/corpus"
)

// Vocabulary is the word list synthetic text and queries draw from, ranked
// from the most frequent word down; text draws ranks from a Zipf
// distribution, as natural language does.
type Vocabulary struct {
	words []string
	// content holds the ranks of the words the full-text analyzer keeps
	// (not stop words), from which queries draw.
	content []int
}

// NewVocabulary returns the vocabulary of words, most frequent first.
// Duplicates are dropped; at least one word must survive the analyzer.
func NewVocabulary(words []string) (*Vocabulary, error) {
	v := &Vocabulary{}
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.TrimSpace(w)
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		v.words = append(v.words, w)
	}
	// A word the analyzer drops (a stop word) embeds to the zero vector.
	vecs, err := corpus.HashEmbedder{}.Embed(context.Background(), v.words)
	if err != nil {
		return nil, err
	}
	for i, vec := range vecs {
		if slices.ContainsFunc(vec, func(x float32) bool { return x != 0 }) {
			v.content = append(v.content, i)
		}
	}
	if len(v.content) == 0 {
		return nil, fmt.Errorf("bench: vocabulary of %d words has no word the full-text index keeps", len(v.words))
	}
	return v, nil
}

// Len returns the number of words.
func (v *Vocabulary) Len() int { return len(v.words) }

// Words returns the words, most frequent first.
func (v *Vocabulary) Words() []string { return slices.Clone(v.words) }

// BuiltinVocabulary returns a list of a few hundred words of financial
// reports, function words first, followed by rare pseudo-words (product
// names, codenames, place names) generated from seed.
func BuiltinVocabulary(rare int, seed uint64) *Vocabulary {
	words := strings.Fields(builtinWords)
	r := rand.New(rand.NewPCG(seed, 0x766f636162))
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	for len(words) < len(strings.Fields(builtinWords))+rare {
		w := pseudoWord(r)
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	v, err := NewVocabulary(words)
	if err != nil {
		panic(err) // the built-in list has content words
	}
	return v
}

var syllables = strings.Fields(`ka ro vi len dra mos ter quin sol ba xi ne tor pha zu lem cor vek ari ost
	ny gal bri tem hex lum nor pax sen ul vor yen zeb tal mir`)

// pseudoWord returns a pronounceable made-up word of two to four syllables.
func pseudoWord(r *rand.Rand) string {
	var b strings.Builder
	for range 2 + r.IntN(3) {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	return b.String()
}

// ReadVocabulary returns the size most frequent words of the .txt files
// in dir, lower-cased; a word is a run of letters, optionally with inner
// apostrophes or hyphens.
func ReadVocabulary(dir string, size int) (*Vocabulary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("bench: no .txt files in %s", dir)
	}
	counts := map[string]int{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(string(b)), notWordRune) {
			w = strings.Trim(w, "'-")
			if len(w) >= 2 && len(w) <= 24 && !strings.ContainsFunc(w, unicode.IsDigit) {
				counts[w]++
			}
		}
	}
	type wc struct {
		w string
		n int
	}
	ranked := make([]wc, 0, len(counts))
	for w, n := range counts {
		ranked = append(ranked, wc{w, n})
	}
	slices.SortFunc(ranked, func(a, b wc) int {
		return cmp.Or(b.n-a.n, strings.Compare(a.w, b.w))
	})
	words := make([]string, 0, min(size, len(ranked)))
	for _, x := range ranked[:min(size, len(ranked))] {
		words = append(words, x.w)
	}
	return NewVocabulary(words)
}

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r == '\'' || r == '-')
}

// builtinWords are words of 10-K and 10-Q filings, roughly from the most
// frequent down.
const builtinWords = `
the of and to in our we a for or on by as is are with that from be which not may its this at
such these other an have has were was will any certain also than more their if can into
net revenue sales million fiscal year billion company products services income total operating
financial cash compared increase decrease due primarily results period quarter ended december
september june march tax costs expenses business customers market including related based
information assets liabilities stock value fair securities management future risk risks
rate interest debt credit agreement changes additional new certain significant impact adverse
growth margin gross percentage segment segments revenues capital common shares equity
approximately statements consolidated condensed notes accounting reporting standards
reported recognized deferred contracts contract obligations lease leases property plant
equipment depreciation amortization goodwill intangible impairment inventory inventories
supply chain manufacturing suppliers components demand pricing competition competitive
product development research technology data center cloud software hardware devices
platform platforms subscription subscriptions advertising content members users
international foreign currency exchange rates hedging derivative instruments
liquidity resources operations activities investing financing dividends repurchase
repurchases program authorized outstanding diluted basic earnings per share
employees compensation stock-based benefits pension retirement plans
legal proceedings litigation claims regulatory government regulations laws compliance
privacy security cybersecurity breaches incidents systems infrastructure
acquisition acquisitions acquired integration goodwill divestiture restructuring charges
effective provision valuation allowance uncertain positions jurisdictions
americas europe greater china japan asia pacific rest united states
retail online stores wholesale channel partners distribution logistics fulfillment
shipping transportation fuel energy commodity prices inflation tariffs trade
economic conditions macroeconomic recession pandemic disruption disruptions
marketing general administrative selling expense headcount facilities
accounts receivable payable accrued current noncurrent long-term short-term
borrowings notes senior unsecured commercial paper facility revolving maturity
investments marketable equivalents unrealized gains losses available-for-sale
estimates assumptions judgments critical policies recognition performance
obligation transaction price allocated standalone selling unearned
warranty returns allowances rebates incentives discounts
hyperscale gaming automotive enterprise consumer professional visualization
semiconductor wafer foundry capacity node yield fabrication
iphone mac ipad wearables accessories search youtube prime aws azure office
streaming membership originals licensing royalties patents intellectual
controls procedures internal effectiveness material weakness auditor opinion
quantitative qualitative disclosures sensitivity basis points hypothetical
seasonal seasonality holiday fourth first second third quarterly annual
guidance outlook expect expects anticipate believe intend continue
`
