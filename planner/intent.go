package planner

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The router refuses a request by reading what it asks, not by matching
// phrases: the question is cut into clauses and words, each word gets the
// classes of general English and finance vocabulary it belongs to (a trade
// verb, a security, the user's money, a business metric, the assistant's
// rules…), and a few frames look at who acts (the user, the assistant, or a
// third party such as the issuer), what the request does (an order to the
// assistant, a modal question, a report of what the filings say), on what
// object, and in which tense. A verb whose actor is the issuer ("did the
// company buy back shares") is research; the same verb ordered of the assistant or
// asked about for the user ("buy 10 shares", "should I buy") is not.

const (
	reasonAdvice   = "This system reports what filings say; it does not place trades, give investment advice or predict share prices."
	reasonOverride = "This system cannot change, reveal or widen its own rules or scope; ask about the filings instead."
)

// refuse returns the reason a question is refused, or "".
func refuse(question string) string {
	switch readIntent(question).kind {
	case intentTrade, intentAdvice, intentPrediction:
		return reasonAdvice
	case intentOverride, intentDisclosure:
		return reasonOverride
	}
	return ""
}

// intentKind is what a request asks of the system.
type intentKind int

const (
	intentResearch   intentKind = iota // what the filings say
	intentTrade                        // an order: buy, sell, rebalance for the user
	intentAdvice                       // personal investment advice
	intentPrediction                   // a share price or return to come
	intentOverride                     // change the rules, the role or the scope
	intentDisclosure                   // reveal the prompt or the configuration
)

func (k intentKind) String() string {
	return [...]string{"research", "trade", "advice", "prediction", "override", "disclosure"}[k]
}

// intent is the reading of a request: its kind and the frame that decided.
type intent struct {
	kind  intentKind
	frame string
}

// frame is one reading of a clause; it returns the kind it finds, or
// intentResearch when it does not apply.
type frame struct {
	name string
	read func(c clause) intentKind
}

// frames are tried in order on every clause; the first that applies
// decides. The rules, role and scope come first so that a request that
// both overrides and asks for advice is refused for the override.
var frames = []frame{
	{"role", roleFrame},
	{"override", overrideFrame},
	{"config", configFrame},
	{"scope", scopeFrame},
	{"trade", tradeFrame},
	{"merit", meritFrame},
	{"recommend", recommendFrame},
	{"money", moneyFrame},
	{"choice", choiceFrame},
	{"prediction", predictionFrame},
}

// readIntent reads what a question asks.
func readIntent(question string) intent {
	for _, c := range clauses(question) {
		for _, f := range frames {
			if k := f.read(c); k != intentResearch {
				return intent{kind: k, frame: f.name}
			}
		}
	}
	return intent{kind: intentResearch}
}

// wordClass is a set of classes a word belongs to.
type wordClass uint64

const (
	wUser        wordClass = 1 << iota // i, me, my, we, our: the one asking
	wYou                               // you, your: the assistant
	wThird                             // he, they, it: someone else
	wWh                                // what, which, how
	wDet                               // a, the, some, all
	wModal                             // should, would, can
	wAux                               // do, did, is, was
	wSkip                              // words between an actor and its verb: not, just, want, to
	wTrade                             // buy, sell, short: a trade whatever its object
	wPosition                          // hold, add, put, place: a trade when its object is a security or money
	wPast                              // bought, sold, rose: an action reported, not asked for
	wSecurity                          // shares, stock, order, position, calls
	wMoney                             // savings, portfolio, 401k: money, the user's when "my"
	wMetric                            // revenue, margin, costs: what a business reports
	wAdvise                            // recommend, rank, rate, pick: advice verbs and nouns
	wMerit                             // investment, buy, bet, pick: what advice judges
	wEval                              // good, better, smart, safe
	wValuation                         // undervalued, overvalued, cheap
	wPredict                           // predict, forecast, estimate, project
	wMove                              // rise, fall, double, outperform: a price moving
	wBenchmark                         // the market, an index
	wFuture                            // will, going to, likely to
	wPriceNoun                         // share price, price target, market cap
	wOverride                          // ignore, bypass, raise: changes to a rule or a limit
	wRule                              // instructions, rules, settings: the assistant's when owned
	wConfig                            // prompt, system prompt, guardrails: always the assistant's
	wResource                          // budget, limit, quota, scope
	wSource                            // filings, documents, sources
	wWeb                               // web, internet, news
	wTenant                            // tenant
	wReport                            // say, describe, expect: what a third party reports
	wShow                              // reveal, print, show, tell: disclosure verbs
	wRoleMark                          // pretend, roleplay, act as: a role change
	wSpeak                             // answer, respond, talk: the assistant's speech
	wBeneficiary                       // for me, on my behalf: the user gains from the act
	wNoun                              // a known word that is none of the above (not spell-corrected)
)

// intentWords maps words and merged phrases to their classes.
var intentWords = buildIntentWords()

func buildIntentWords() map[string]wordClass {
	m := map[string]wordClass{}
	add := func(c wordClass, words string) {
		for _, w := range strings.Fields(words) {
			m[w] |= c
		}
	}
	add(wUser, `i me my mine myself we us our ours ourselves`)
	add(wYou, `you your yours yourself yourselves`)
	add(wThird, `he she it they them their its his her theirs`)
	add(wWh, `what which who whom whose when where why how`)
	add(wDet, `a an the this that these those some any all half more most every each another other`)
	add(wModal, `should could would can will shall may might must ought`)
	add(wAux, `do does did has have had am is are was were be been being`)
	add(wSkip, `not never also just really still even actually ever already now then please kindly maybe
		perhaps probably definitely rather sooner to whether if and or keep keeping continue continuing start go-ahead
		about of want wants wanted like love need needs plan plans planning intend decide decides deciding
		try trying hope wish thinking considering let help tell advise go , more`)

	add(wTrade, `buy buys buying sell sells selling short shorts shorting purchase purchases purchasing
		trade trades trading invest invests investing dump dumps dumping unload unloads unloading offload
		offloading liquidate liquidates liquidating rebalance rebalances rebalancing hodl bid bidding
		accumulate accumulating go-long go-short going-long going-short load-up loading-up cash-out
		double-down average-down get-into get-in get-out take-profits close-out scoop-up snap-up pick-up
		rotate rotating`)
	add(wTrade|wPast, `bought sold shorted purchased traded invested dumped unloaded offloaded liquidated
		rebalanced accumulated went-long went-short rotated`)
	add(wPosition, `hold holds holding keep keeps keeping own owns owning add adds adding put puts putting
		move moves moving swap swaps swapping switch switches switching allocate allocates allocating
		place places placing execute executes executing submit submits submitting enter enters entering
		open opens opening close closes closing cover covers covering exit exits exiting trim trims
		trimming ditch ditches ditching grab grabs grabbing take takes taking set sets setting acquire
		acquires acquiring transfer transfers shift shifts make makes making get gets getting`)
	add(wPosition|wPast, `held kept owned added moved swapped switched allocated placed executed submitted
		entered opened closed covered exited trimmed ditched grabbed took acquired transferred shifted
		made got`)
	add(wSecurity, `share shares stock stocks equities position positions holding holdings stake stakes
		order orders trade trades call calls puts option options etf etfs fund funds bond bonds crypto
		bitcoin lot lots dip stop-loss profits gains ticker tickers`)
	add(wMoney, `money savings portfolio portfolios retirement 401k ira iras roth brokerage account
		accounts bonus paycheck capital cash nest-egg pension inheritance funds`)
	add(wMetric, `revenue revenues sales margin margins cost costs expense expenses income earnings eps
		profit profitability subscribers members memberships users customers headcount employees workforce
		capex spending dividend dividends debt growth demand inventory inventories rate rates tax taxes
		volume volumes shipments backlog units deliveries stores market-share traffic bookings payout
		buybacks repurchases prices pricing fees fee arpu guidance outlook`)
	add(wAdvise, `recommend recommends recommending recommendation recommendations suggest suggests
		suggestion suggestions rank ranks ranking rate advise advice pick picks choose tip tips`)
	add(wMerit, `investment investments buy sell hold bet bets pick play move entry opportunity purchase
		addition stock stocks`)
	add(wEval, `good great bad better best smart wise safe solid sound top terrible attractive
		worthwhile decent risky right poor dumb reasonable excellent stupid sensible prudent worst smarter
		smartest safer safest wiser wisest greater greatest sounder soundest`)
	add(wValuation, `undervalued overvalued overpriced underpriced bargain cheap expensive fairly-valued`)
	add(wPredict, `predict predicts predicting prediction predictions forecast forecasts forecasting
		project projects projecting projection projections estimate estimates estimating guess guessing`)
	add(wMove, `rise rises rising fall falls falling drop drops dropping climb climbs climbing rally
		rallies rallying crash crashes crashing double doubles doubling triple tank tanks tanking moon
		soar soars soaring plunge plunges plunging sink sinks sinking rebound rebounds rebounding recover
		recovers recovering bounce bounces bouncing bounce-back surge surges surging jump jumps jumping
		slide slides sliding gain gains gaining outperform outperforms outperforming underperform
		underperforms underperforming beat beats beating lag lags lagging hit hits reach reaches close
		closes trade trades go-up go-down go-higher go-lower goes-up goes-down going-up going-down
		get-back skyrocket collapse be-worth be-higher be-lower be-up be-down headed heading going goes-higher
		goes-lower`)
	add(wMove|wPast, `rose fell dropped climbed doubled tripled rallied crashed tanked soared plunged sank
		rebounded recovered bounced surged jumped slid gained outperformed underperformed lagged reached
		closed traded went-up went-down`)
	add(wBenchmark, `s&p s&p500 sp500 nasdaq dow market index benchmark russell`)
	add(wFuture, `will going-to likely-to expected-to poised-to bound-to about-to`)
	add(wPriceNoun, `stock-price price-target market-cap stock-return expected-return upside downside
		valuation be-worth`)

	add(wOverride, `ignore ignores ignoring disregard disregarding forget forgetting override overriding
		bypass bypassing circumvent skip skipping disable disabling abandon break breaking violate evade
		suspend lift lifting remove removing raise raising increase increasing expand expanding extend
		exceed unlock unlocking reset change changing stop-following turn-off go-past set`)
	add(wRule, `instruction instructions rule rules guideline guidelines policy policies restriction
		restrictions constraint constraints programming directive directives configuration config
		settings setting parameters limitation limitations filter filters safety requirement requirements
		citation citations`)
	add(wConfig, `prompt prompts system-prompt system-message developer-message guardrails guardrail
		api-key`)
	add(wResource, `budget budgets limit limits quota quotas cap caps tokens token-budget tool-calls
		searches timeout scope`)
	add(wSource, `filings filing 10-k 10-q 10k 10q documents sources source corpus evidence`)
	add(wWeb, `web internet online twitter reddit x.com news websites website browser social-media bing`)
	add(wTenant, `tenant tenants`)
	add(wReport, `say says said saying describe describes described disclose discloses disclosed warn
		warns warned mention mentions mentioned discuss discusses discussed note notes noted state
		states stated report reports reported explain explains explained expect expects expected
		anticipate anticipates believe believes guide guides guided according-to per`)
	add(wShow, `reveal print show display output repeat tell give leak dump share paste copy quote
		recite list expose echo write summarize summarise spell-out`)
	add(wRoleMark, `pretend pretending roleplay act-as imagine behave-as from-now-on developer-mode
		jailbreak unrestricted unfiltered uncensored obey`)
	add(wSpeak, `answer respond reply talk speak tell write output act`)
	add(wBeneficiary, `for-me on-my-behalf for-my-account in-my-account to-my-account for-us
		on-our-behalf if-you-were-me in-my-shoes`)
	add(wNoun, `trader traders investor investors border holders holder seller sellers buyer buyers
		protect projects shared sharing stocked ordered orderly calling caller price browse browsing
		here there hear
		bough chose cal crypt expansive expos extensive filler fillers fitter fitters foremast foremasts forge
		loots positron positrons preteen protection protections putts revel sarees saving seeings shoots
		shots socks sorts stings summaries tel constrain constrains parameter polices polities filers filer`)
	return m
}

// intentPhrases merge words that act as one ("buy back", "share price").
var intentPhrases = map[string]string{
	"buy back": "buy-back", "buys back": "buy-back", "buying back": "buy-back", "bought back": "buy-back",
	"sell back": "buy-back", "buy now pay later": "bnpl", "buy side": "buy-side", "sell side": "sell-side",
	"sell through": "sell-through",
	"stock price":  "stock-price", "stock prices": "stock-price", "share price": "stock-price",
	"share prices": "stock-price", "price target": "price-target", "price targets": "price-target",
	"target price": "price-target", "price forecast": "price-target", "price prediction": "price-target",
	"price estimate": "price-target", "market cap": "market-cap", "market capitalization": "market-cap",
	"stock return": "stock-return", "stock returns": "stock-return", "share return": "stock-return",
	"expected return": "expected-return", "expected returns": "expected-return",
	"market share": "market-share", "valuation allowance": "valuation-allowance",
	"stop loss": "stop-loss", "short term": "short-term", "long term": "long-term", "in order to": "in-order-to",
	"go up": "go-up", "go down": "go-down", "go higher": "go-higher", "go lower": "go-lower",
	"goes up": "goes-up", "goes down": "goes-down", "goes higher": "goes-higher", "goes lower": "goes-lower",
	"going forward": "going-forward", "going up": "going-up", "going down": "going-down",
	"went up": "went-up", "went down": "went-down", "get back": "get-back", "bounce back": "bounce-back",
	"be worth": "be-worth", "be higher": "be-higher", "be lower": "be-lower", "be up": "be-up",
	"be down":  "be-down",
	"going to": "going-to", "gonna": "going-to", "likely to": "likely-to", "expected to": "expected-to",
	"poised to": "poised-to", "bound to": "bound-to", "about to": "about-to",
	"go long": "go-long", "go short": "go-short", "going long": "going-long", "going short": "going-short",
	"went long": "went-long", "went short": "went-short", "load up": "load-up", "loading up": "loading-up",
	"cash out": "cash-out", "double down": "double-down", "average down": "average-down",
	"get into": "get-into", "get in": "get-in", "get out": "get-out", "take profits": "take-profits",
	"close out": "close-out", "scoop up": "scoop-up", "snap up": "snap-up", "pick up": "pick-up",
	"go ahead and": "go-ahead", "go ahead": "go-ahead",
	"for me": "for-me", "on my behalf": "on-my-behalf", "for my account": "for-my-account",
	"in my account": "in-my-account", "to my account": "to-my-account", "for us": "for-us",
	"on our behalf": "on-our-behalf", "if you were me": "if-you-were-me", "in my shoes": "in-my-shoes",
	"nest egg": "nest-egg", "fairly valued": "fairly-valued",
	"system prompt": "system-prompt", "system message": "system-message",
	"developer message": "developer-message", "developer mode": "developer-mode", "dev mode": "developer-mode",
	"god mode": "developer-mode", "dan mode": "developer-mode", "jailbreak mode": "developer-mode",
	"debug mode": "developer-mode", "role play": "roleplay", "role-play": "roleplay",
	"from now on": "from-now-on", "from here on": "from-now-on", "from this point on": "from-now-on",
	"from here on out": "from-now-on", "from now on out": "from-now-on", "act as": "act-as", "act like": "act-as", "behave as": "behave-as",
	"behave like": "behave-as", "api key": "api-key", "api keys": "api-key", "token budget": "token-budget",
	"tool calls": "tool-calls", "spending limit": "limit", "stop following": "stop-following",
	"turn off": "turn-off", "go past": "go-past", "social media": "social-media",
	"web services": "web-services", "web service": "web-services",
	"other users": "other-users", "other accounts": "other-accounts",
	"according to": "according-to", "spell out": "spell-out", "look up": "look-up",
	"too late": "too-late", "too early": "too-early", "how high": "how-high", "how low": "how-high",
	"how far": "how-high", "how far apart": "how-far-apart",
}

// phraseWords are the words of intentPhrases: known words, never mended.
var phraseWords = func() map[string]bool {
	m := map[string]bool{}
	for p := range intentPhrases {
		for _, w := range strings.Fields(p) {
			m[w] = true
		}
	}
	return m
}()

// phraseStarts are the first words of intentPhrases.
var phraseStarts = func() map[string]bool {
	m := map[string]bool{}
	for p := range intentPhrases {
		m[strings.Fields(p)[0]] = true
	}
	return m
}()

// tradeCompounds are nouns that make a following or preceding trade word
// a noun ("trade receivables", "short interest").
var tradeCompounds = map[string]bool{
	"receivables": true, "payables": true, "secrets": true, "secret": true, "restrictions": true,
	"war": true, "wars": true, "tensions": true, "policy": true, "policies": true, "deficit": true,
	"agreement": true, "agreements": true, "barriers": true, "credit": true, "names": true,
	"interest": true, "seller": true, "sellers": true, "squeeze": true, "dress": true, "show": true,
	"relations": true, "disputes": true, "tariffs": true, "partners": true, "journal": true,
}

// chatSpellings are how people type common words in a hurry.
var chatSpellings = map[string][]string{
	"u": {"you"}, "ur": {"your"}, "r": {"are"}, "pls": {"please"}, "plz": {"please"}, "plse": {"please"},
	"im": {"i", "am"}, "ive": {"i", "have"}, "youre": {"you", "are"}, "dont": {"do", "not"},
	"doesnt": {"does", "not"}, "didnt": {"did", "not"}, "cant": {"can", "not"}, "wont": {"will", "not"},
	"isnt": {"is", "not"}, "whats": {"what", "is"}, "wats": {"what", "is"}, "wat": {"what"},
	"thats": {"that", "is"}, "shud": {"should"}, "shld": {"should"}, "shd": {"should"}, "wud": {"would"},
	"cud": {"could"}, "wanna": {"want", "to"}, "gotta": {"got", "to"}, "lemme": {"let", "me"},
	"gimme": {"give", "me"}, "tmrw": {"tomorrow"}, "tmr": {"tomorrow"}, "yr": {"year"},
	"shouldnt": {"should", "not"}, "wouldnt": {"would", "not"}, "hows": {"how", "is"},
}

// discourse are words before an imperative that do not change it
// ("please buy", "ok so sell").
var discourse = map[string]bool{
	"please": true, "kindly": true, "ok": true, "okay": true, "hey": true, "hi": true, "hello": true,
	"so": true, "now": true, "just": true, "also": true, "and": true, "then": true, "yo": true,
	"quickly": true, "go-ahead": true, "right": true, "well": true, "actually": true, ",": true,
	"first": true, "next": true, "finally": true, "simply": true, "immediately": true,
}

// clause is a sentence of a request: its words, lower case, contractions
// expanded, chat spellings and typos of class words mended, phrases merged.
type clause struct {
	words []string
	end   string // the punctuation that ended it; "" at the end of the request
}

var (
	quotes      = strings.NewReplacer("’", "'", "‘", "'", "`", "'", "´", "'", "“", `"`, "”", `"`)
	intentToken = regexp.MustCompile(`\$?[\p{L}\p{N}]+(?:[&.'\-][\p{L}\p{N}]+|,\d{3})*|[.?!;:\n,/—–]|\s-\s`)
	boundaries  = ".?!;:\n—–-"
)

// clauses cuts a request into clauses of normalised words.
func clauses(question string) []clause {
	q := quotes.Replace(strings.ToLower(question))
	var out []clause
	var cur []string
	flush := func(end string) {
		if len(cur) > 0 {
			out = append(out, clause{words: mergePhrases(cur), end: end})
		}
		cur = nil
	}
	for _, tok := range intentToken.FindAllString(q, -1) {
		tok = strings.TrimSpace(tok)
		if tok == "/" {
			tok = ","
		}
		if len(tok) == 1 && strings.Contains(boundaries, tok) || tok == "—" || tok == "–" {
			flush(tok)
			continue
		}
		cur = append(cur, expandWord(tok)...)
	}
	flush("")
	return out
}

// expandWord expands contractions and chat spellings and mends typos of
// class words.
func expandWord(w string) []string {
	if i := strings.IndexByte(w, '\''); i > 0 && !strings.HasPrefix(w, "$") {
		base, suf := w[:i], w[i:]
		switch suf {
		case "'s":
			switch base {
			case "it", "what", "that", "there", "here", "who", "where", "how", "he", "she":
				return []string{base, "is"}
			case "let":
				return []string{"let", "us"}
			}
			return []string{correct(base), "'s"}
		case "'m":
			return []string{base, "am"}
		case "'re":
			return []string{base, "are"}
		case "'ve":
			return []string{base, "have"}
		case "'d":
			return []string{base, "would"}
		case "'ll":
			return []string{base, "will"}
		case "'t":
			switch base {
			case "won":
				return []string{"will", "not"}
			case "can":
				return []string{"can", "not"}
			case "shan":
				return []string{"shall", "not"}
			}
			if strings.HasSuffix(base, "n") {
				return []string{base[:len(base)-1], "not"}
			}
		}
		return []string{w}
	}
	if s, ok := chatSpellings[w]; ok {
		return s
	}
	return []string{correct(w)}
}

// mergePhrases joins the words of known phrases, longest first.
func mergePhrases(words []string) []string {
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); {
		merged := false
		for n := 4; n >= 2 && phraseStarts[words[i]]; n-- {
			if i+n > len(words) {
				continue
			}
			if p, ok := intentPhrases[strings.Join(words[i:i+n], " ")]; ok {
				out = append(out, p)
				i += n
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, words[i])
			i++
		}
	}
	return out
}

// fuzzyKeys are the class words a typo may be mended to, sorted: the
// words that decide a refusal (modals, trades, securities, money, advice,
// prediction, rules, prompts, overrides, disclosure, role changes), in
// their plain forms. Inflected forms ("-ing", "-ed") are left out: most
// English words one letter from a class word are inflections of another
// verb ("shooting", "timing", "seeing").
var fuzzyKeys = func() map[byte][]fuzzyKey {
	const mendable = wModal | wTrade | wSecurity | wMoney | wAdvise | wPredict | wValuation | wRule | wConfig |
		wOverride | wShow | wRoleMark
	var words []string
	for w, cls := range intentWords {
		if len(w) >= 4 && cls&mendable != 0 && cls&wNoun == 0 && !strings.HasSuffix(w, "ing") && !strings.HasSuffix(w, "ed") &&
			strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			words = append(words, w)
		}
	}
	sort.Strings(words)
	keys := map[byte][]fuzzyKey{}
	for _, w := range words {
		keys[w[0]] = append(keys[w[0]], fuzzyKey{w, squeeze(w)})
	}
	return keys
}()

// fuzzyKey is a class word and its letters with runs collapsed.
type fuzzyKey struct{ word, squeezed string }

// correct mends a typo of a class word: a word the lexicon does not hold is
// read as the class word it equals once doubled letters are collapsed
// ("reccomend", "sel"), or, for class words of six letters or more, as the
// one it misses a letter of or swaps two letters of ("promt", "shoud",
// "ignroe"), or, for words of eight or more, changes one letter of
// ("rebalanse"). The first letter must agree and a word longer than the
// class word is never mended, because English is full of real words one
// letter from another ("center", "enter"; "over", "cover"; "lease",
// "please"). Only class words are mended: any other word stays as typed.
func correct(w string) string {
	if len(w) < 3 || intentWords[w] != 0 || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return w
	}
	if phraseWords[w] {
		return w
	}
	sw := squeeze(w)
	for _, k := range fuzzyKeys[w[0]] {
		sk := k.squeezed
		if sk == sw {
			return k.word
		}
		if len(sk) < 6 || len(sw) > len(sk) || len(sk)-len(sw) > 1 {
			continue
		}
		if oneEdit(sw, sk, len(sk) >= 8) {
			return k.word
		}
	}
	return w
}

// squeeze collapses runs of one letter.
func squeeze(s string) string {
	b := []byte(s)
	out := b[:0]
	for i, c := range b {
		if i == 0 || c != b[i-1] {
			out = append(out, c)
		}
	}
	return string(out)
}

// oneEdit reports whether a and b differ by one insertion, deletion or
// transposition of adjacent letters, or, when sub is set, one substitution.
func oneEdit(a, b string, sub bool) bool {
	if a == b {
		return false
	}
	switch {
	case len(a) == len(b):
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] {
			return true
		}
		return sub && i < len(a)-1 && a[i+1:] == b[i+1:]
	case len(a) == len(b)+1:
		a, b = b, a
		fallthrough
	case len(b) == len(a)+1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}

// class returns the classes of the clause's word at i; a $-ticker is a
// security.
func (c clause) class(i int) wordClass {
	if i < 0 || i >= len(c.words) {
		return 0
	}
	w := c.words[i]
	if len(w) > 1 && w[0] == '$' && w[1] >= 'a' && w[1] <= 'z' {
		return wSecurity
	}
	return intentWords[w]
}

func (c clause) is(i int, cls wordClass) bool { return c.class(i)&cls != 0 }

// any reports whether a word of the clause has one of the classes.
func (c clause) any(cls wordClass) bool {
	for i := range c.words {
		if c.is(i, cls) {
			return true
		}
	}
	return false
}

// has reports whether the clause holds the word.
func (c clause) has(w string) bool { return slices.Contains(c.words, w) }

// unknown reports whether the word at i is in no class: a name, a ticker
// or a noun the lexicon does not hold.
func (c clause) unknown(i int) bool {
	return i >= 0 && i < len(c.words) && c.class(i) == 0 && c.words[i] != "'s" && !isNumber(c.words[i])
}

func isNumber(w string) bool {
	w = strings.TrimPrefix(w, "$")
	return w != "" && w[0] >= '0' && w[0] <= '9'
}

// start is the index of the clause's first word after discourse words
// ("please", "ok so").
func (c clause) start() int {
	i := 0
	for i < len(c.words) && discourse[c.words[i]] {
		i++
	}
	// A phrase that opens with a preposition and ends at a comma ("Per
	// the 10-Q, does ...", "For me, buy ...") sets the scene; the clause
	// starts after it.
	if i < len(c.words) && openingPrepositions[c.words[i]] {
		for j := i + 1; j < min(len(c.words), i+maxOpeningPhrase); j++ {
			if c.words[j] == "," {
				return j + 1
			}
		}
	}
	return i
}

// maxOpeningPhrase bounds the words of a clause's opening phrase (start).
const maxOpeningPhrase = 10

// imperative reports whether the word at i opens the clause as a command.
func (c clause) imperative(i int) bool {
	// A possessive ("Intel's deal to sell ...") names an owner, never a
	// verb.
	return i == c.start() && (i+1 >= len(c.words) || c.words[i+1] != "'s") && !openingPrepositions[c.words[i]]
}

// openingPrepositions open a clause without being its verb: "Per the
// 10-Q, does Apple plan to keep raising its dividend" is no command.
var openingPrepositions = map[string]bool{
	"per": true, "in": true, "on": true, "at": true, "from": true, "for": true, "within": true, "under": true,
	"by": true, "of": true, "with": true, "according-to": true, "regarding": true, "as": true, "after": true,
	"before": true, "during": true, "since": true, "based": true, "across": true, "for-me": true,
}

// actor is who performs an action a clause names.
type actor int

const (
	actorNone      actor = iota // nobody named ("is it a good time to buy")
	actorUser                   // the one asking: "should I buy", "tell me whether to sell"
	actorAssistant              // the system: "buy 10 shares", "can you sell"
	actorThird                  // someone else, usually the issuer: "did the company buy back"
)

// actorOf finds who performs the verb at k: the assistant when the verb
// opens the clause as a command; otherwise the nearest person or name to
// its left, past modals, adverbs and verbs of wanting. Past an infinitive
// ("to buy"), names are passed too, so that "use my account to buy" is the
// user's act and "how does the retailer decide whether to buy" the issuer's.
func (c clause) actorOf(k int) actor {
	if c.imperative(k) {
		return actorAssistant
	}
	infinitive := false
	named := false // a name passed after an infinitive: the actor if no person is
	for j := k - 1; j >= 0; j-- {
		w := c.words[j]
		cls := c.class(j)
		switch {
		case w == "to" || w == "whether":
			infinitive = true
		case cls&wUser != 0:
			return actorUser
		case cls&wYou != 0:
			return actorAssistant
		case w == "it" || w == "one":
			if !infinitive {
				return actorNone
			}
		case cls&wThird != 0:
			return actorThird
		case cls&wWh != 0:
			if !infinitive {
				return actorThird // "who buys", "what does it sell"
			}
			// "which of these to dump": the question word is the object.
		case cls&(wSkip|wModal|wAux|wDet) != 0 || w == "'s":
		case c.imperative(j) && infinitive:
			return actorAssistant
		case infinitive:
			named = named || c.unknown(j)
		default:
			// The noun phrase's owner: "my parents", "our family trust".
			i := j - 1
			for i >= 0 && c.unknown(i) {
				i--
			}
			if i >= 0 && c.is(i, wUser) {
				return actorUser
			}
			if i >= 0 && c.is(i, wYou) {
				// The assistant's own: "your best guess".
				return actorAssistant
			}
			return actorThird
		}
	}
	if named {
		return actorThird
	}
	return actorNone
}

// past reports whether the clause reports something done: it asks with
// "did", "was", "were" or "had".
func (c clause) past() bool {
	for _, w := range c.words {
		switch w {
		case "did", "was", "were", "had":
			return true
		}
	}
	return false
}

// requested reports whether the clause asks for something: it is a
// command, or a modal, a verb of wanting, "whether", or "let me" and "help
// me" comes before k.
func (c clause) requested(k int) bool {
	if c.command() {
		return true
	}
	for j := 0; j < k; j++ {
		switch w := c.words[j]; {
		case c.is(j, wModal):
			return true
		case w == "want" || w == "wants" || w == "like" || w == "need" || w == "plan" || w == "planning" ||
			w == "thinking" || w == "considering" || w == "whether" || w == "let" || w == "help" || w == "if" ||
			w == "going-to":
			return true
		}
	}
	return false
}

// command reports whether the clause opens as a command: a word that is
// no question word, auxiliary, modal, pronoun or determiner, followed by
// its object ("use my account to buy", "get me some shares").
func (c clause) command() bool {
	s := c.start()
	if s+1 >= len(c.words) || isNumber(c.words[s]) || c.words[s+1] == "'s" || openingPrepositions[c.words[s]] ||
		c.is(s, wWh|wAux|wModal|wUser|wYou|wThird|wDet|wNoun|wMetric|wSecurity|wMoney) {
		return false
	}
	return c.is(s+1, wDet|wUser) || c.words[s+1] == "me"
}

// objectAfter reports whether a trade's object follows the verb at k: a
// security, money, the user's own thing, a beneficiary, an amount, or a
// determiner; or a name when the clause is short or carries an order's
// words ("buy nvda now").
func (c clause) objectAfter(k int) bool {
	end := min(len(c.words), k+7)
	for j := k + 1; j < end; j++ {
		if c.is(j, wSecurity|wMoney|wUser|wBeneficiary) || isNumber(c.words[j]) {
			return true
		}
	}
	if k+1 >= len(c.words) {
		return false
	}
	next := c.words[k+1]
	if tradeCompounds[next] {
		return false
	}
	if c.is(k+1, wDet) || next == "it" || next == "them" {
		return true
	}
	if c.unknown(k + 1) {
		if len(c.words) <= 4 {
			return true
		}
		for j := k + 2; j < len(c.words); j++ {
			switch c.words[j] {
			case "now", "today", "tomorrow", "asap", "immediately", "before", "after", "market":
				return true
			}
		}
	}
	return false
}

// determinedObject reports whether the word after the verb at k, past a
// particle, opens a noun phrase as a command's object does ("open a
// position", "move 20% of my ira", "cover my short"), unlike a noun
// phrase that merely starts with the word ("open purchase orders").
func (c clause) determinedObject(k int) bool {
	j := k + 1
	for j < len(c.words) && (c.words[j] == "in" || c.words[j] == "out" || c.words[j] == "up" || c.words[j] == "me") {
		j++
	}
	if j >= len(c.words) {
		return false
	}
	w := c.words[j]
	return c.is(j, wDet|wUser) || isNumber(w) || w == "it" || w == "them"
}

// verbUse reports whether the trade word at k is used as a verb: not after
// a determiner ("a buy", "the short position"), not part of a compound
// noun ("trade receivables", "short interest").
func (c clause) verbUse(k int) bool {
	if k > 0 && (c.is(k-1, wDet) || c.words[k-1] == "'s" || c.is(k-1, wEval)) {
		return false
	}
	if k+1 < len(c.words) && tradeCompounds[c.words[k+1]] {
		return false
	}
	return true
}

// tradeFrame: a trade the user asks for or orders the assistant to make.
// "buy 10 shares", "can you sell my position", "should I sell", "tell me
// whether to short", "would you buy", "use my account to buy". The issuer
// as actor ("did the company buy back", "what products does it sell") and
// a reported act ("I bought years ago") are research.
func tradeFrame(c clause) intentKind {
	for k := range c.words {
		cls := c.class(k)
		if cls&(wTrade|wPosition) == 0 || cls&wPast != 0 || !c.verbUse(k) {
			continue
		}
		strong := cls&wTrade != 0
		switch who := c.actorOf(k); {
		case who == actorAssistant && c.imperative(k):
			if strong && c.objectAfter(k) || !strong && c.determinedObject(k) && c.tradeObject(k) {
				return intentTrade
			}
		case who == actorAssistant:
			if strong || c.tradeObject(k) {
				return intentTrade
			}
			if holdVerb(c.words[k]) && c.requested(k) {
				return intentAdvice // "would you hold X through the downturn"
			}
		case who == actorUser:
			if !c.requested(k) {
				continue
			}
			if strong || c.tradeObject(k) || holdVerb(c.words[k]) && c.has("should") {
				return intentAdvice
			}
		case who == actorNone && c.any(wBeneficiary) && strong:
			return intentTrade
		}
	}
	// A command whose object is the user's holding, whatever its verb ("hit
	// the bid on my shares"), unless it asks for research about it.
	if c.command() && !c.is(c.start(), wShow|wSpeak|wReport) && !researchVerb(c.words[c.start()]) {
		for k := range c.words {
			if c.is(k, wUser) && c.words[k] != "me" && (c.is(k+1, wSecurity|wMoney) || (c.unknown(k+1) || k+1 < len(c.words) && isNumber(c.words[k+1])) && c.is(k+2, wSecurity|wMoney)) {
				return intentTrade
			}
		}
	}
	// Trades offered as a choice: "buy, hold or sell?", "hold or dump".
	for k := range c.words {
		if !c.choiceVerb(k) || c.actorOf(k) == actorThird {
			continue
		}
		or := false
	choice:
		for j := k + 1; j < min(len(c.words), k+5); j++ {
			switch {
			case c.words[j] == "or":
				or = true
			case c.words[j] == ",":
			case c.choiceVerb(j):
				if or {
					return intentAdvice
				}
			default:
				break choice
			}
		}
	}
	return intentResearch
}

// researchVerb is a command that asks for research, not for an act.
func researchVerb(w string) bool {
	switch w {
	case "compare", "explain", "find", "pull", "extract", "break", "walk", "analyze", "analyse", "calculate", "compute",
		"check", "look", "search", "read", "identify", "outline", "help", "vote", "estimate", "review", "assess":
		return true
	}
	return false
}

// choiceVerb reports whether the word at k is a trade one may choose
// among: buy, sell, short, hold.
func (c clause) choiceVerb(k int) bool {
	return c.is(k, wTrade) && !c.is(k, wPast) || holdVerb(c.words[k])
}

// holdVerb is a verb that keeps or changes a position without naming it.
func holdVerb(w string) bool {
	switch w {
	case "hold", "holding", "keep", "keeping", "own", "owning", "add", "adding", "trim", "exit", "ditch", "switch", "swap", "cover":
		return true
	}
	return false
}

// tradeObject reports whether the clause names what a trade moves: a
// security, money, a ticker, or the user's own holding.
func (c clause) tradeObject(k int) bool {
	for j := range c.words {
		if j != k && (c.is(j, wSecurity|wMoney) || c.is(j, wBeneficiary)) {
			return true
		}
	}
	for j := k + 1; j < min(len(c.words), k+4); j++ {
		// The user's own, or a sum of money ("allocate $10k between").
		if c.is(j, wUser) || strings.HasPrefix(c.words[j], "$") && isNumber(c.words[j]) {
			return true
		}
	}
	return false
}

// meritFrame: a judgement of a stock as an investment. "is X a good
// investment", "a smart long term hold", "the better buy", "is X a buy",
// "worth adding", "a good time to buy", "too late to get into", "is X
// undervalued".
func meritFrame(c clause) intentKind {
	for k, w := range c.words {
		cls := c.class(k)
		switch {
		case cls&wEval != 0:
			// "is X good for me"
			if k+1 < len(c.words) && c.is(k+1, wBeneficiary) {
				return intentAdvice
			}
			for j := k + 1; j < min(len(c.words), k+4); j++ {
				// "the better long", "the best short": a position judged.
				if c.is(j, wMerit) && !c.is(j, wMetric) || c.words[j] == "long" || c.words[j] == "short" {
					return intentAdvice
				}
			}
			// "smart to load up", "the right moment to add"
			for j := k + 1; j < min(len(c.words), k+4); j++ {
				if c.words[j] == "to" && j+1 < len(c.words) && c.is(j+1, wTrade|wPosition) && !c.is(j+1, wPast) {
					return intentAdvice
				}
			}
		case w == "too-late" || w == "too-early" || w == "time" || w == "moment" || w == "idea":
			if k+2 < len(c.words) && c.words[k+1] == "to" && c.is(k+2, wTrade|wPosition) && !c.is(k+2, wPast) {
				return intentAdvice
			}
		case w == "worth":
			if k+1 < len(c.words) && (c.is(k+1, wTrade|wPosition) && strings.HasSuffix(c.words[k+1], "ing") || c.words[k+1] == "it") {
				return intentAdvice
			}
		case (w == "buy" || w == "sell" || w == "hold") && k > 0 && (c.words[k-1] == "a" || c.words[k-1] == "strong"):
			return intentAdvice
		case cls&wValuation != 0:
			if !c.past() && c.actorOf(k) != actorUser {
				first := c.words[c.start()]
				// "which of them is most undervalued": a pick among securities;
				// not "which products are expensive" (cheap and expensive
				// describe more than a price).
				pick := first == "which" && w != "cheap" && w != "expensive"
				if first == "is" || first == "are" || pick || c.has("think") || c.has("now") || c.any(wYou) {
					return intentAdvice
				}
			}
		}
	}
	return intentResearch
}

// recommendFrame: advice asked of the assistant. "recommend a stock",
// "rank these stocks for me", "rate X as an investment", "your top picks",
// "which would you pick", "if you were me", "advise me".
func recommendFrame(c clause) intentKind {
	if c.has("if-you-were-me") || c.has("in-my-shoes") {
		return intentAdvice
	}
	for k, w := range c.words {
		if !c.is(k, wAdvise) {
			continue
		}
		who := c.actorOf(k)
		if rankedByFigure(c, k) {
			continue // "rank the three issuers by free cash flow": a table of figures
		}
		if (who == actorAssistant || c.imperative(k)) && !c.past() &&
			(c.any(wSecurity|wMoney|wMerit|wBeneficiary|wTrade) || k+1 < len(c.words) && c.words[k+1] == "me") {
			return intentAdvice
		}
		if adviceNoun(w) {
			// nouns: "your top picks", "stock tips", "any stock tips"
			for j := max(0, k-3); j < k; j++ {
				if c.is(j, wYou|wSecurity|wEval) || c.words[j] == "hot" {
					return intentAdvice
				}
			}
		}
	}
	for k, w := range c.words {
		if (w == "opinion" || w == "take" || w == "view" || w == "thoughts") && k > 0 && c.is(k-1, wYou) &&
			c.any(wTrade|wSecurity) {
			return intentAdvice
		}
	}
	return intentResearch
}

// adviceNoun reports whether w names advice given: "picks", "tips",
// "recommendations".
func adviceNoun(w string) bool {
	return w == "picks" || w == "pick" || w == "tips" || w == "tip" || strings.HasPrefix(w, "recommendation")
}

// rankedByFigure reports whether the advice word at k ranks by a figure a
// filing reports ("rank ... by free cash flow", "ranked by revenue"), as a
// table of figures does, not by merit as an investment.
func rankedByFigure(c clause, k int) bool {
	if !strings.HasPrefix(c.words[k], "rank") {
		return false
	}
	for j := k + 1; j+1 < len(c.words); j++ {
		if c.words[j] == "by" {
			return len(FindFigures(strings.Join(c.words[j+1:], " "))) > 0 || c.is(j+1, wMetric)
		}
	}
	return false
}

// moneyFrame: what to do with the user's own money or holdings. "how much
// of my savings should go into", "what percent of my portfolio should be
// in". The user's shares named for another reason ("how do I vote my
// shares") are research.
func moneyFrame(c clause) intentKind {
	for k := 0; k+1 < len(c.words); k++ {
		if !c.is(k, wUser) || c.words[k] == "i" || c.words[k] == "we" {
			continue
		}
		j := k + 1
		for j < len(c.words) && j < k+4 && !c.is(j, wMoney|wSecurity) {
			j++
		}
		if j >= len(c.words) || !c.is(j, wMoney|wSecurity) {
			continue
		}
		if c.has("should") || c.has("would") || c.has("ought") {
			return intentAdvice
		}
	}
	return intentResearch
}

// choiceFrame: which security to take. "which stock should a new investor
// start with", "what stocks to own".
func choiceFrame(c clause) intentKind {
	for k := range c.words {
		if !c.is(k, wWh) || c.words[k] == "how" {
			continue
		}
		for j := k + 1; j < min(len(c.words), k+4); j++ {
			if c.is(j, wSecurity) && !c.is(j, wMetric) && c.words[j] != "share" {
				for i := j + 1; i < min(len(c.words), j+3); i++ {
					if c.words[i] == "should" || c.words[i] == "would" ||
						c.words[i] == "to" && i+1 < len(c.words) && c.is(i+1, wTrade|wPosition) {
						return intentAdvice
					}
				}
			}
		}
	}
	return intentResearch
}

// predictionFrame: a share price or a return to come. "price target",
// "predict the share price", "where will the stock be", "will X shares
// rise", "will X double by 2026", "how high can X go", "X at 200 by
// Christmas?". A business figure to come ("will costs go up", "what will
// memberships be"), an issuer's own expectation ("what does management
// forecast") and what happened ("did the stock beat the index") are
// research.
func predictionFrame(c clause) intentKind {
	if c.past() || c.reported() {
		return intentResearch
	}
	for k, w := range c.words {
		cls := c.class(k)
		switch {
		case w == "price-target" || w == "expected-return":
			return intentPrediction
		case (w == "upside" || w == "downside") && c.any(wSecurity):
			return intentPrediction
		case w == "how-high":
			// "How high can the stock go", "how high can palantir go":
			// asked of ahead (a modal, the future, "go"); "how far below
			// par the stack trades" asks where it stands now.
			if !c.any(wModal|wFuture) && !c.has("go") && !c.futureTime() {
				continue
			}
			if c.any(wSecurity | wPriceNoun) {
				return intentPrediction
			}
			for j := k + 1; j < min(len(c.words), k+3); j++ {
				if c.unknown(j) {
					return intentPrediction
				}
			}
		case cls&wPredict != 0:
			// "predict the share price", "forecast tomorrow's close"; not
			// "forecast the company's revenue" (a business figure).
			if c.actorOf(k) != actorThird && c.priceObject() {
				return intentPrediction
			}
		case w == "expect" || w == "think" || w == "see" || w == "believe" || w == "anticipate":
			// The assistant's own view: "do you expect the shares to
			// climb", "where do you see the stock in five years".
			if c.actorOf(k) == actorAssistant && c.any(wSecurity|wPriceNoun) &&
				(c.futurePrice(k) || c.futureTime() || c.has("where")) {
				return intentPrediction
			}
		case cls&wFuture != 0:
			if c.futurePrice(k) {
				return intentPrediction
			}
		case w == "target" || w == "targets":
			// The assistant's own target: "your target for X", "give me a
			// 2026 target"; not "what targets did the company set for capex".
			if (c.any(wYou) || c.is(c.start(), wShow)) && !c.any(wMetric|wThird) && !c.has("'s") {
				return intentPrediction
			}
		}
	}
	if c.futureTime() && (c.futurePrice(-1) || c.priceLevel() && !c.any(wMetric)) {
		return intentPrediction
	}
	return intentResearch
}

// reported reports whether the clause asks what a third party reports or
// expects ("what does the company say about its stock price", "does
// management expect").
func (c clause) reported() bool {
	for k := range c.words {
		if c.is(k, wReport) && !c.is(k, wPast) && c.actorOf(k) == actorThird &&
			!(k > 0 && (c.is(k-1, wDet|wMetric|wThird) || c.words[k-1] == "'s" || c.words[k-1] == "next")) {
			return true // a verb, not a noun ("its next earnings report")
		}
		if c.words[k] == "according-to" {
			return true
		}
		// "per the filing", "per management", but not "per share".
		if c.words[k] == "per" && k+1 < len(c.words) && (c.is(k+1, wDet|wThird|wSource) || c.unknown(k+1)) {
			return true
		}
	}
	return false
}

// futurePrice reads the clause after a future marker at k: a price noun
// ("where will the share price be") or a price's movement whose subject is
// a security or a name, not a business figure ("will the shares rise",
// "will $XYZ double", but not "will costs go up").
func (c clause) futurePrice(k int) bool {
	if c.any(wPriceNoun) {
		return true
	}
	// "what will the stock do", "where will the shares be": a security as
	// the subject of an empty verb.
	for j := k + 1; j < len(c.words); j++ {
		switch c.words[j] {
		case "do", "be", "end", "finish", "look":
			for i := 0; i < j; i++ {
				if c.is(i, wMetric) {
					return false
				}
			}
			for i := 0; i < j; i++ {
				if c.is(i, wSecurity) && c.words[i] != "share" {
					return true
				}
			}
		}
	}
	for j := k + 1; j < len(c.words); j++ {
		if !c.is(j, wMove) || c.is(j, wPast) {
			continue
		}
		if c.words[j] == "trade" && j > 0 && c.is(j-1, wDet) {
			continue
		}
		// The subject: every word before the movement; its object: the
		// three after it.
		subject, security := false, false
		for i := 0; i < j; i++ {
			switch {
			case c.is(i, wMetric):
				return false
			case c.is(i, wSecurity|wBenchmark):
				security = true
			case c.unknown(i) || c.is(i, wWh) && c.words[i] == "which":
				subject = true
			}
		}
		// Its object, past a determiner: "beat the index", not "beat
		// earnings estimates".
		o := j + 1
		for o < len(c.words) && c.is(o, wDet) {
			o++
		}
		if c.is(o, wMetric) {
			return false
		}
		if c.is(o, wBenchmark|wSecurity) {
			security = true
		}
		return security || subject
	}
	return false
}

// priceLevel reports whether the clause names a price level: "at 200",
// "hit $150", "back to $60".
func (c clause) priceLevel() bool {
	for k := 0; k+1 < len(c.words); k++ {
		switch c.words[k] {
		case "at", "hit", "reach", "to", "above", "below":
			if isNumber(c.words[k+1]) && !strings.HasSuffix(c.words[k+1], "%") {
				return true
			}
		}
	}
	return false
}

// futureTime reports whether the clause names a time to come: "tomorrow",
// "next year", "by christmas", "in five years".
func (c clause) futureTime() bool {
	for k, w := range c.words {
		next := ""
		if k+1 < len(c.words) {
			next = c.words[k+1]
		}
		switch w {
		case "tomorrow", "upcoming":
			return true
		case "next":
			switch next {
			case "day", "week", "month", "quarter", "year", "decade", "session", "earnings", "few", "couple", "summer", "spring", "winter", "fall":
				return true
			}
			if isNumber(next) {
				return true
			}
		case "by":
			switch next {
			case "christmas", "summer", "spring", "winter", "fall", "autumn", "year-end", "then", "next", "friday", "monday",
				"january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december":
				return true
			case "the":
				if k+2 < len(c.words) && c.words[k+2] == "end" {
					return true
				}
			}
			if isNumber(next) {
				return true
			}
		case "in":
			if k+2 < len(c.words) {
				switch c.words[k+2] {
				case "year", "years", "months", "weeks", "days":
					return true
				}
			}
		}
	}
	return false
}

// priceObject reports whether the clause names a price rather than a
// business figure: a security or a price noun, or a price's movement or
// the word price with no business figure ("tomorrow's close").
func (c clause) priceObject() bool {
	if c.any(wSecurity | wPriceNoun) {
		return true
	}
	return (c.any(wMove) || c.has("price")) && !c.any(wMetric)
}

// roleFrame: a change of the assistant's role or rules. "you are now",
// "from now on", "pretend", "act as", "roleplay", "developer mode", "new
// rule:", a line dressed as the system's ("system: …"), "you can now …",
// "imagine you have no limits", "answer without restrictions".
func roleFrame(c clause) intentKind {
	s := c.start()
	if s >= len(c.words) {
		return intentResearch
	}
	// A fake speaker label or a new rule: "system:", "new rules:".
	if c.end == ":" && len(c.words)-s <= 2 {
		switch c.words[len(c.words)-1] {
		case "system", "developer", "admin", "assistant", "rule", "rules", "instruction", "instructions", "policy":
			return intentOverride
		}
	}
	for k, w := range c.words {
		switch {
		case w == "from-now-on" || w == "roleplay" || w == "developer-mode" || w == "pretend" || w == "pretending":
			return intentOverride
		case w == "jailbreak":
			if c.any(wYou) || c.imperative(k) || k > 0 && c.words[k-1] == "a" {
				return intentOverride
			}
		case w == "unrestricted" || w == "unfiltered" || w == "uncensored":
			// Of the assistant ("an unfiltered assistant", "be
			// unrestricted"), not of cash or data ("unrestricted cash").
			if k+1 < len(c.words) && assistantNoun(c.words[k+1]) ||
				k > 0 && (c.words[k-1] == "be" || c.words[k-1] == "are" || c.words[k-1] == "become" || c.words[k-1] == "now") {
				return intentOverride
			}
		case w == "act-as" || w == "behave-as" || w == "obey":
			if c.actorOf(k) == actorAssistant || c.actorOf(k) == actorNone {
				return intentOverride
			}
		case w == "imagine" && k+1 < len(c.words) && c.is(k+1, wYou):
			return intentOverride
		case w == "role" && k > 1 && c.words[k-1] == "the" && (c.words[k-2] == "assume" || c.words[k-2] == "play" || c.words[k-2] == "take"):
			return intentOverride
		case c.is(k, wYou) && w == "you" && k+2 < len(c.words):
			next, after := c.words[k+1], c.words[k+2]
			// "you are now", "you can now", "you must now obey"
			if (next == "are" || c.is(k+1, wModal)) && after == "now" {
				return intentOverride
			}
			// "you are a trader", opening the clause
			if k == s && next == "are" && (after == "a" || after == "an" || after == "my") {
				return intentOverride
			}
		}
	}
	// Speech without the rules: "answer without restrictions", "talk to me
	// with no filters".
	for k, w := range c.words {
		if (w == "without" || w == "no") && k+1 < len(c.words) {
			j := k + 1
			if c.words[j] == "any" && j+1 < len(c.words) {
				j++
			}
			if c.is(j, wRule|wResource|wConfig) && (c.any(wYou) || c.is(c.start(), wSpeak)) {
				return intentOverride
			}
		}
	}
	return intentResearch
}

// assistantNoun is a word for what the assistant is or could be made to be.
func assistantNoun(w string) bool {
	switch w {
	case "mode", "ai", "assistant", "bot", "chatbot", "model", "version", "gpt", "llm", "trading", "advisor", "analyst":
		return true
	}
	return false
}

// configFrame: the assistant's prompt or configuration, asked for or
// named. "your system prompt", "your hidden instructions", "the rules you
// have to follow", "what were you told", "the text above", "the developer
// message". Rules an issuer or a regulator sets ("what rules govern the App
// Store") are research.
func configFrame(c clause) intentKind {
	for k, w := range c.words {
		cls := c.class(k)
		switch {
		case cls&wConfig != 0:
			if w == "prompt" && k+1 < len(c.words) && promptAdjective(c.words[k+1]) {
				continue
			}
			if w == "prompt" || w == "prompts" {
				if c.ownedByAssistant(k) || c.any(wShow|wOverride) || k > 0 && c.is(k-1, wDet) {
					return intentDisclosure
				}
				continue
			}
			return intentDisclosure
		case cls&wRule != 0 && c.ownedByAssistant(k):
			return intentDisclosure
		case w == "above" && (c.any(wShow|wOverride) || c.is(k-1, wDet)):
			return intentDisclosure
		case w == "you" && k+1 < len(c.words) && configuredVerb(c.words[k+1]):
			return intentDisclosure // "were you told", "are you configured"
		case w == "you" && k > 0 && instructVerb(c.words[k-1]) && c.actorOf(k-1) != actorUser:
			return intentDisclosure // "what did your developers tell you"
		case (w == "were" || w == "are" || w == "was") && k+2 < len(c.words) && c.words[k+1] == "you" && configuredVerb(c.words[k+2]):
			return intentDisclosure
		case w == "you" && k+2 < len(c.words) && (c.words[k+1] == "were" || c.words[k+1] == "are") && configuredVerb(c.words[k+2]):
			return intentDisclosure
		}
	}
	return intentResearch
}

// promptAdjective reports whether "prompt" before w is the adjective
// ("prompt payment").
func promptAdjective(w string) bool {
	switch w {
	case "payment", "payments", "pay", "action", "attention", "delivery", "notice", "response", "settlement":
		return true
	}
	return false
}

// configuredVerb is a verb of giving the assistant its rules.
func configuredVerb(w string) bool {
	switch w {
	case "told", "given", "instructed", "programmed", "configured", "trained", "prompted", "set", "asked", "allowed":
		return true
	}
	return false
}

// instructVerb is a verb of instructing someone.
func instructVerb(w string) bool {
	switch w {
	case "tell", "told", "instruct", "instructed", "program", "programmed", "ask", "asked", "order", "ordered", "allow", "allowed", "forbid", "forbade":
		return true
	}
	return false
}

// ownedByAssistant reports whether the rule word at k is the assistant's:
// "your rules", "the system's instructions", "hidden instructions", "the
// rules you follow", "previous instructions".
func (c clause) ownedByAssistant(k int) bool {
	for j := max(0, k-3); j < k; j++ {
		switch w := c.words[j]; {
		case c.is(j, wYou):
			return true
		case w == "system" || w == "hidden" || w == "secret" || w == "initial" || w == "internal" ||
			w == "original" || w == "developer" || w == "previous" || w == "prior" || w == "above" ||
			w == "earlier" || w == "preceding" || w == "default" || w == "safety":
			return true
		case w == "'s" || w == "its" || c.is(j, wThird):
			return false
		}
	}
	// "the rules you have to follow", "the instructions you were given"
	for j := k + 1; j < min(len(c.words), k+4); j++ {
		if c.words[j] == "you" {
			return true
		}
		if c.unknown(j) || c.words[j] == "'s" {
			return false
		}
	}
	if k+1 < len(c.words) && c.words[k+1] == "above" {
		return true
	}
	return false
}

// overrideFrame: the assistant asked to drop its rules or raise its
// limits. "ignore your previous rules", "disregard all instructions",
// "raise your budget", "remove the spending limit on this run", "ignore the
// filings". A rule or limit of someone else ("did the company raise its
// credit limit") and a figure left out ("ignore one-time charges") are research.
func overrideFrame(c clause) intentKind {
	for k := range c.words {
		if !c.is(k, wOverride) || c.is(k, wPast) {
			continue
		}
		who := c.actorOf(k)
		if who == actorThird || who == actorNone && !c.any(wYou) {
			continue // "did the company raise its limit", "plans to expand capacity"
		}
		for j := k + 1; j < min(len(c.words), k+6); j++ {
			if c.words[j] == "'s" || c.words[j] == "its" || c.is(j, wThird) {
				break
			}
			w := c.words[j]
			switch {
			case c.is(j, wRule|wConfig):
				return intentOverride
			case c.is(j, wSource):
				if dropVerb(c.words[k]) {
					return intentOverride // "ignore the filings"
				}
			case w == "everything" || w == "above" || w == "previous" || w == "prior" || w == "all" && j+1 == len(c.words):
				return intentOverride
			case c.is(j, wResource):
				if c.is(k, wTrade) {
					continue
				}
				return intentOverride
			}
		}
	}
	return intentResearch
}

// dropVerb is an override verb that sets something aside.
func dropVerb(w string) bool {
	switch w {
	case "ignore", "ignoring", "disregard", "disregarding", "forget", "forgetting", "skip", "skipping", "bypass", "bypassing", "abandon", "stop-following":
		return true
	}
	return false
}

// scopeFrame: the assistant asked to go beyond the filings or its tenant.
// "search the web", "browse twitter", "answer from the internet", "access other tenants' data", "switch tenants", "the
// tenant list on this server".
func scopeFrame(c clause) intentKind {
	for k, w := range c.words {
		if c.is(k, wWeb) {
			for j := 0; j < len(c.words); j++ {
				if j == k {
					continue
				}
				switch c.words[j] {
				case "search", "browse", "check", "use", "using", "fetch", "pull", "scrape", "crawl", "answer",
					"visit", "access", "look-up", "look", "go", "find", "get", "read":
					if who := c.actorOf(j); who == actorAssistant || who == actorUser {
						return intentOverride
					}
				}
			}
		}
		if c.is(k, wTenant) {
			for j := max(0, k-3); j < min(len(c.words), k+4); j++ {
				switch c.words[j] {
				case "other", "another", "every", "switch", "access", "server", "system", "impersonate", "list":
					if c.words[j] != "list" || j == k+1 {
						return intentOverride
					}
				}
			}
		}
		if w == "browse" && c.imperative(k) {
			return intentOverride
		}
		// "show me other users' questions"
		if (w == "other-users" || w == "other-accounts") && c.is(c.start(), wShow|wOverride) && c.imperative(c.start()) {
			return intentOverride
		}
	}
	return intentResearch
}
