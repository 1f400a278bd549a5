package planner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
)

// issuerItem is one line of eval/issuers.jsonl: a question and the issuers
// it names, covered by the sample corpus or not (their SEC tickers, or the
// name as written when the SEC lists none).
type issuerItem struct {
	ID         string   `json:"id"`
	Split      string   `json:"split"` // "tune" or "test"
	Kind       string   `json:"kind"`
	Question   string   `json:"question"`
	Issuers    []string `json:"issuers"`
	NotCovered []string `json:"not_covered"`
}

func loadIssuerItems(t *testing.T) []issuerItem {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "eval", "issuers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []issuerItem
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var it issuerItem
		if err := dec.Decode(&it); err != nil {
			t.Fatalf("eval/issuers.jsonl:%d: %v", n, err)
		}
		if it.ID == "" || it.Question == "" || (it.Split != "tune" && it.Split != "test") {
			t.Fatalf("eval/issuers.jsonl:%d: id, question and a split of tune or test are required", n)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return items
}

// notCoveredTicker is the ticker of a NotCovered entry ("TSLA (Tesla,
// Inc.)" -> "TSLA"), or the entry as written.
func notCoveredTicker(s string) string {
	if t, _, ok := strings.Cut(s, " ("); ok {
		return t
	}
	return s
}

func sameSet(a, b []string) bool {
	x := slices.Clone(a)
	y := slices.Clone(b)
	for i := range x {
		x[i] = strings.ToUpper(x[i])
	}
	for i := range y {
		y[i] = strings.ToUpper(y[i])
	}
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// issuerScore is the exact-match accuracy of one split.
type issuerScore struct {
	n, covered, notCovered, both int
	failures                     []string
}

func scoreIssuers(items []issuerItem, cat *Catalog) map[string]*issuerScore {
	out := map[string]*issuerScore{"tune": {}, "test": {}}
	for _, it := range items {
		rt := RouteQuestion(it.Question, cat, nil)
		var nc []string
		for _, s := range rt.NotCovered {
			nc = append(nc, notCoveredTicker(s))
		}
		s := out[it.Split]
		s.n++
		okC := sameSet(rt.Issuers, it.Issuers)
		okN := sameSet(nc, it.NotCovered)
		if okC {
			s.covered++
		}
		if okN {
			s.notCovered++
		}
		if okC && okN {
			s.both++
		} else {
			s.failures = append(s.failures, fmt.Sprintf("%s %q: issuers %v not covered %v; want %v, %v",
				it.ID, it.Question, rt.Issuers, rt.NotCovered, it.Issuers, it.NotCovered))
		}
	}
	return out
}

// TestIssuerEval measures issuer resolution on eval/issuers.jsonl with a
// catalog of the sample corpus whose inline-XBRL filings say what ingest
// reads of their issuer. The figures of the test half are the reported
// ones (docs/evaluation.md); choices were made on the tune half.
//
//	go test ./planner/ -run TestIssuerEval -v
func TestIssuerEval(t *testing.T) {
	cat := sampleEntityCatalog(t)
	items := loadIssuerItems(t)
	scores := scoreIssuers(items, cat)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| split | items | covered exact | not covered exact | both exact |\n|---|--:|--:|--:|--:|\n")
	for _, split := range []string{"tune", "test"} {
		s := scores[split]
		f := func(k int) float64 { return float64(k) / float64(max(s.n, 1)) }
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.2f |\n", split, s.n, f(s.covered), f(s.notCovered), f(s.both))
	}
	t.Log(b.String())
	for _, split := range []string{"tune", "test"} {
		for _, f := range scores[split].failures {
			t.Logf("%s: %s", split, f)
		}
	}
	test := scores["test"]
	if test.n < 50 {
		t.Fatalf("the test half holds %d items", test.n)
	}
	if float64(test.covered) < 0.95*float64(test.n) || float64(test.notCovered) < 0.95*float64(test.n) {
		t.Errorf("test half: covered %d/%d, not covered %d/%d exact; want 0.95 or more of each",
			test.covered, test.n, test.notCovered, test.n)
	}
}

var (
	deiExpr    = regexp.MustCompile(`(?s)name="dei:(EntityRegistrantName|EntityCentralIndexKey|TradingSymbol)"[^>]*>(.*?)</ix:nonNumeric>`)
	memberExpr = regexp.MustCompile(`<xbrldi:explicitMember[^>]*>\s*([^<\s]+)\s*<`)
	tagExpr    = regexp.MustCompile(`<[^>]+>`)
)

// htmlEntity reads what an inline-XBRL filing says of its issuer, as
// ingest fills corpus.Entity: registrant name, CIK without leading zeros,
// trading symbols and explicit dimension members.
func htmlEntity(t testing.TB, path string) corpus.Entity {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e corpus.Entity
	for _, m := range deiExpr.FindAllSubmatch(b, -1) {
		v := strings.TrimSpace(tagExpr.ReplaceAllString(string(m[2]), ""))
		switch string(m[1]) {
		case "EntityRegistrantName":
			if e.Registrant == "" {
				e.Registrant = v
			}
		case "EntityCentralIndexKey":
			if e.CIK == "" {
				e.CIK = strings.TrimLeft(v, "0")
			}
		case "TradingSymbol":
			if v = strings.ToUpper(v); !slices.Contains(e.Symbols, v) {
				e.Symbols = append(e.Symbols, v)
			}
		}
	}
	for _, m := range memberExpr.FindAllSubmatch(b, -1) {
		if v := string(m[1]); !slices.Contains(e.Members, v) {
			e.Members = append(e.Members, v)
		}
	}
	slices.Sort(e.Symbols)
	slices.Sort(e.Members)
	return e
}

// sampleEntityCatalog is sampleCatalog with the Entity of each inline-XBRL
// filing read from the filing itself.
func sampleEntityCatalog(t testing.TB) *Catalog {
	t.Helper()
	dir := corpustest.Dir(t)
	var docs []corpus.Document
	for _, e := range corpustest.Entries(t) {
		d := corpus.Document{ID: e.Path, Ticker: e.Ticker, Company: e.Company, Form: e.Form, FiscalYear: e.FiscalYear,
			PeriodEnd: e.PeriodEnd, Filed: e.Filed, Source: e.Path, Format: corpus.FormatText}
		switch strings.ToLower(filepath.Ext(e.Path)) {
		case ".html", ".htm":
			d.Format = corpus.FormatHTML
			p := e.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			d.Entity = htmlEntity(t, p)
		case ".pdf":
			d.Format = corpus.FormatPDF
		}
		docs = append(docs, d)
	}
	return NewCatalog(docs)
}

// entityCatalog is a hand-made catalog of the sample corpus's issuers in
// which the inline-XBRL filings carry the Entity ingest reads from them
// (a selection of their members, noise included), and the text filings
// none, as a real ingest leaves them.
func entityCatalog() *Catalog {
	html := func(ticker, company, registrant, cik string, symbols []string, members ...string) corpus.Document {
		return corpus.Document{ID: strings.ToLower(ticker) + "-10k", Ticker: ticker, Company: company, Form: "10-K", FiscalYear: 2024,
			Format: corpus.FormatHTML, Entity: corpus.Entity{Registrant: registrant, CIK: cik, Symbols: symbols, Members: members}}
	}
	text := func(ticker, company string) corpus.Document {
		return corpus.Document{ID: strings.ToLower(ticker) + "-txt", Ticker: ticker, Company: company, Form: "10-K", FiscalYear: 2022, Format: corpus.FormatText}
	}
	return NewCatalog([]corpus.Document{
		html("AAPL", "Apple Inc.", "Apple Inc.", "320193", []string{"AAPL"},
			"aapl:AmericasSegmentMember", "aapl:EuropeSegmentMember", "aapl:GreaterChinaSegmentMember", "aapl:JapanSegmentMember",
			"aapl:RestOfAsiaPacificSegmentMember", "aapl:IPhoneMember", "aapl:IPadMember", "aapl:MacMember",
			"aapl:WearablesHomeandAccessoriesMember", "aapl:DeirdreOBrienMember", "aapl:JeffWilliamsMember", "aapl:VendorOneMember",
			"aapl:A1.375NotesDue2029Member", "us-gaap:ServiceMember", "us-gaap:ProductMember", "srt:MaximumMember"),
		html("NVDA", "NVIDIA Corporation", "NVIDIA CORP", "1045810", []string{"NVDA"},
			"nvda:ComputeAndNetworkingMember", "nvda:GraphicsMember", "nvda:DataCenterMember", "nvda:GamingMember",
			"nvda:AutomotiveMember", "nvda:ProfessionalVisualizationMember", "nvda:ArmLimitedMember", "nvda:MellanoxTechnologiesLtdMember",
			"nvda:CustomerOneMember", "nvda:CustomerTwoMember", "nvda:A2026NotesMember", "us-gaap:OperatingSegmentsMember"),
		html("GOOGL", "Alphabet Inc.", "Alphabet Inc.", "1652044", []string{"GOOG", "GOOGL"},
			"goog:GoogleCloudMember", "goog:GoogleNetworkMember", "goog:GoogleServicesMember", "goog:GoogleSearchOtherMember",
			"goog:GoogleAdvertisingRevenueMember", "goog:YouTubeAdvertisingRevenueMember", "goog:WaymoMember",
			"goog:SundarPichaiMember", "goog:JohnHennessyMember", "goog:JohnHennessyTradingArrangementClassACommonStockMember",
			"goog:Character.aiMember", "goog:CapitalClassAMember", "goog:CapitalClassBMember",
			"us-gaap:AllOtherSegmentsMember", "us-gaap:EMEAMember", "srt:AsiaPacificMember"),
		html("META", "Meta Platforms, Inc.", "Meta Platforms, Inc.", "1326801", []string{"META"},
			"meta:FamilyOfAppsMember", "meta:RealityLabsMember", "meta:USCanadaMember", "meta:RestOfWorldMember",
			"meta:PeggyAlfordMember", "srt:EuropeMember", "srt:AsiaPacificMember", "us-gaap:AdvertisingMember"),
		html("AMZN", "Amazon.com, Inc.", "AMAZON.COM, INC.", "1018724", []string{"AMZN"},
			"amzn:AmazonWebServicesSegmentMember", "amzn:AmazonWebServicesMember", "amzn:NorthAmericaSegmentMember",
			"amzn:InternationalSegmentMember", "amzn:OnlineStoresMember", "amzn:PhysicalStoresMember",
			"amzn:ThirdPartySellerServicesMember", "amzn:SubscriptionServicesMember", "amzn:MGMHoldingsIncMember",
			"amzn:AndrewJassyMember", "amzn:October2016RevolvingCreditFacilityMember", "srt:LatinAmericaMember", "us-gaap:ServiceMember"),
		html("NFLX", "Netflix, Inc.", "Netflix, Inc.", "1065280", []string{"NFLX"},
			"nflx:StreamingMember", "nflx:UnitedStatesAndCanadaMember", "nflx:GregPetersMember", "nflx:GregPetersPlanAdoptionMember",
			"nflx:GregPetersPlanTerminationMember", "nflx:LicensedContentMember", "nflx:ProducedContentMember",
			"nflx:MultiemployerHealthBenefitsMember", "nflx:MultiemployerPensionBenefitsMember", "srt:LatinAmericaMember"),
		text("MSFT", "Microsoft Corporation"),
		text("INTC", "Intel Corporation"),
		text("ORCL", "Oracle Corporation"),
		text("WMT", "Walmart Inc."),
		text("COST", "Costco Wholesale Corporation"),
		text("EBAY", "eBay Inc."),
		text("AAPL", "Apple Inc."),
	})
}

// routeCase is a question and the issuers RouteQuestion must find in it.
type routeCase struct {
	q          string
	want       []string // covered tickers, in order
	notCovered []string // NotCovered, in order
}

func checkRouteCases(t *testing.T, cat *Catalog, tests []routeCase) {
	t.Helper()
	for _, tt := range tests {
		rt := RouteQuestion(tt.q, cat, nil)
		if !slices.Equal(rt.Issuers, tt.want) || !slices.Equal(rt.NotCovered, tt.notCovered) {
			t.Errorf("RouteQuestion(%q): issuers %q, not covered %q; want %q, %q", tt.q, rt.Issuers, rt.NotCovered, tt.want, tt.notCovered)
		}
	}
}

const (
	tesla    = "TSLA (Tesla, Inc.)"
	citi     = "C (CITIGROUP INC)"
	jpm      = "JPM (JPMORGAN CHASE & CO)"
	bac      = "BAC (BANK OF AMERICA CORP /DE/)"
	target   = "TGT (TARGET CORP)"
	visa     = "V (VISA INC.)"
	attInc   = "T (AT&T INC.)"
	amd      = "AMD (ADVANCED MICRO DEVICES INC)"
	gartner  = "IT (GARTNER INC)"
	snowInc  = "SNOW (Snowflake Inc.)"
	berksh   = "BRK-B (BERKSHIRE HATHAWAY INC)"
	cocaCola = "KO (COCA COLA CO)"
)

func TestIssuerTickers(t *testing.T) {
	checkRouteCases(t, entityCatalog(), []routeCase{
		{"What is NFLX's operating margin?", []string{"NFLX"}, nil},
		{"what is nflx's operating margin", []string{"NFLX"}, nil},
		{"What did Nflx say about advertising?", []string{"NFLX"}, nil},
		{"Compare $nflx and $MSFT revenue", []string{"NFLX", "MSFT"}, nil},
		{"msft and nflx, compared", []string{"MSFT", "NFLX"}, nil},
		{"What is the segment mix at GOOG?", []string{"GOOGL"}, nil},
		{"googl capex in 2024", []string{"GOOGL"}, nil},
		{"How did TSLA's margins change?", nil, []string{tesla}},
		{"what about tsla and aapl", []string{"AAPL"}, []string{tesla}},
		{"$BRK.B operating earnings", nil, []string{berksh}},
		{"What about $XYZQ?", nil, []string{"XYZQ"}},
		// Ordinary words in lower case are words, not tickers (COST, ALL, NOW, ARE).
		{"What is the cost of revenue and are all segments profitable now?", nil, nil},
		{"Does the tech company describe its apps?", nil, nil},
	})
}

func TestIssuerWordLikeTickers(t *testing.T) {
	checkRouteCases(t, entityCatalog(), []routeCase{
		// One-letter tickers need evidence beyond the bare letter.
		{"Compare C, JPM and BAC loan growth.", nil, []string{citi, jpm, bac}},
		{"Compare C and JPM credit card losses", nil, []string{citi, jpm}},
		{"What is $V's payments volume?", nil, []string{visa}},
		{"What did the company with ticker T say about churn?", nil, []string{attInc}},
		{"Net interest income at Citigroup (NYSE: C)", nil, []string{citi}},
		{"What does T say about wireless churn?", nil, nil},
		{"A question about capital allocation at Apple", []string{"AAPL"}, nil},
		{"Alphabet's Class A and Class C share repurchases", []string{"GOOGL"}, nil},
		{"Is there a Plan B at Apple if tariffs rise?", []string{"AAPL"}, nil},
		// Tickers that are words: a possessive, a list, "$" or a ticker word.
		{"How does COST's renewal rate compare with WMT's?", []string{"COST", "WMT"}, nil},
		{"WMT and COST: membership income", []string{"WMT", "COST"}, nil},
		{"PLTR and SNOW revenue growth", nil, []string{"PLTR (Palantir Technologies Inc.)", snowInc}},
		{"Is the COST of sales rising at Apple?", []string{"AAPL"}, nil},
		{"Is it ON the agenda for Apple?", []string{"AAPL"}, nil},
		// Acronyms that are tickers are read as acronyms.
		{"What did the CEO say about GAAP EPS and R&D at the SEC in the US?", nil, nil},
		// Initials joined by "&" are one word, none of them a ticker.
		{"COST FY22 SG&A as a % of sales?", []string{"COST"}, nil},
		// An acronym joined by "&" gives a question no case: its issuer
		// may be written in lower case.
		{"what did intel spend on capex in 2020? additions to PP&E please", []string{"INTC"}, nil},
		{"Apple's S&M and G&A in fiscal 2024", []string{"AAPL"}, nil},
		{"Compare AT&T and AAPL revenue", []string{"AAPL"}, []string{attInc}},
		{"How did AI demand for GPUs affect the FY23 results?", nil, nil},
		{"Does it say a thing about IT spending and ESG?", nil, nil},
		{"What is $IT's revenue?", nil, []string{gartner}},
		// A figure the catalogues name in one word, in capitals, is that
		// figure ("ETR" is Entergy's ticker too).
		{"ORCL FY23 ETR dropped to 6.8% - main drivers?", []string{"ORCL"}, nil},
		// Initials of a name the question writes out ("RL" is Ralph
		// Lauren's ticker too).
		{"Will Reality Labs losses narrow at Meta? How big was the RL loss?", []string{"META"}, nil},
		// A word in capitals no list knows: reported with evidence only.
		{"What about XYZQ's revenue?", nil, []string{"XYZQ"}},
		{"Compare AAPL and XYZQ", []string{"AAPL"}, []string{"XYZQ"}},
		{"How much HBM demand did NVIDIA see?", []string{"NVDA"}, nil},
		// A month before a day or a year is a date.
		{"Apple revenue for the year ended Dec 26, 2020", []string{"AAPL"}, nil},
		{"Apple's cash at MAR 31 2024", []string{"AAPL"}, nil},
	})
}

func TestIssuerNames(t *testing.T) {
	checkRouteCases(t, entityCatalog(), []routeCase{
		{"What was Tesla's revenue?", nil, []string{tesla}},
		{"What did Tesla Inc say about energy storage?", nil, []string{tesla}},
		{"What did Tesla, Inc. say about energy storage?", nil, []string{tesla}},
		{"tesla's gross margin trend", nil, []string{tesla}},
		{"Summarize NVIDIA Corp's export control risks.", []string{"NVDA"}, nil},
		{"How did Advanced Micro Devices describe data center revenue?", nil, []string{amd}},
		{"What was JPMorgan Chase's net interest income?", nil, []string{jpm}},
		{"What did J.P. Morgan say about credit?", nil, []string{jpm}},
		{"What does Coca-Cola say about pricing?", nil, []string{cocaCola}},
		{"Johnson & Johnson's talc reserves", nil, []string{"JNJ (JOHNSON & JOHNSON)"}},
		{"Johnson and Johnson's talc reserves", nil, []string{"JNJ (JOHNSON & JOHNSON)"}},
		{"How is Berkshire Hathaway's insurance float reported?", nil, []string{berksh}},
		{"What did McDonald's say about menu prices?", nil, []string{"MCD (MCDONALDS CORP)"}},
		{"Taiwan Semiconductor's capacity plans", nil, []string{"TSM (TAIWAN SEMICONDUCTOR MANUFACTURING CO LTD)"}},
		{"How did Micron describe memory pricing?", nil, []string{"MU (MICRON TECHNOLOGY INC)"}},
		{"Did Walmart Inc. mention e-commerce?", []string{"WMT"}, nil},
		{"How did Amazon.com, Inc. describe fulfillment costs?", []string{"AMZN"}, nil},
		{"What is Costco Wholesale's membership fee revenue?", []string{"COST"}, nil},
		{"How did Meta Platforms describe Reality Labs?", []string{"META"}, nil},
		{"What did Meta say about capex? And Costco?", []string{"META", "COST"}, nil},
		{"what does apple say about margins", []string{"AAPL"}, nil},
		{"Apple margins in fiscal 2024", []string{"AAPL"}, nil},
		{"What is eBay's take rate?", []string{"EBAY"}, nil},
		// A name that is an ordinary word needs a capital, and at a
		// sentence's start a possessive or a list.
		{"Target margins fell in 2023; what explains lower margins?", nil, nil},
		{"What were Target's margins in 2023?", nil, []string{target}},
		{"Compare Target and Walmart inventory", []string{"WMT"}, []string{target}},
		{"Walmart vs Target: inventory levels", []string{"WMT"}, []string{target}},
		{"What does Visa say about cross-border volume?", nil, []string{visa}},
		{"What is the visa policy risk for employees?", nil, nil},
		{"Which companies block third-party cookies?", nil, nil},
		{"How do companies match revenue and expenses?", nil, nil},
		{"What products make up Microsoft's Intelligent Cloud segment?", []string{"MSFT"}, nil},
		{"How much salary did Apple pay Tim Cook?", []string{"AAPL"}, nil},
		{"Compare the figures to my notes on Apple", []string{"AAPL"}, nil},
	})
}

func TestIssuerBrands(t *testing.T) {
	checkRouteCases(t, entityCatalog(), []routeCase{
		{"How fast did AWS grow in 2024?", []string{"AMZN"}, nil},
		{"Compare Amazon Web Services and Google Cloud operating income.", []string{"AMZN", "GOOGL"}, nil},
		{"What did the filing say about Google Cloud profitability?", []string{"GOOGL"}, nil},
		{"Is Google's search business facing regulatory risk?", []string{"GOOGL"}, nil},
		{"How much advertising revenue did YouTube generate?", []string{"GOOGL"}, nil},
		{"What does the 10-K disclose about Waymo?", []string{"GOOGL"}, nil},
		{"What share of revenue comes from iPhone?", []string{"AAPL"}, nil},
		{"How did iPad and Mac sales change?", []string{"AAPL"}, nil},
		{"What did Sundar Pichai say about AI?", []string{"GOOGL"}, nil},
		// Members of ordinary words name kinds of business, not an issuer;
		// members that name other companies, people's first names and
		// geographic segments name none either.
		{"How did AMD's Data Center revenue change?", nil, []string{amd}},
		{"Gaming and Automotive trends in Europe and Greater China", nil, nil},
		{"What did Greg say about Online Stores in North America?", nil, nil},
		{"Is Arm Limited a competitor?", nil, nil},
	})
}

func TestIssuerMixedAndCapitals(t *testing.T) {
	checkRouteCases(t, entityCatalog(), []routeCase{
		{"Compare Tesla and Apple gross margins.", []string{"AAPL"}, []string{tesla}},
		{"How do IBM, AMD and Salesforce compare with Microsoft on R&D?", []string{"MSFT"},
			[]string{"IBM (INTERNATIONAL BUSINESS MACHINES CORP)", amd, "CRM (Salesforce, Inc.)"}},
		{"Coca-Cola vs Pfizer vs JPMorgan", nil, []string{cocaCola, "PFE (PFIZER INC)", jpm}},
		{"Compare Apple's and Samsung's gross margins in fiscal 2024.", []string{"AAPL"}, []string{"Samsung"}},
		{"Intel vs AMD vs NVIDIA: data center share", []string{"INTC", "NVDA"}, []string{amd}},
		{"Compare the cloud growth of Microsoft, Alphabet, Amazon and Oracle", []string{"MSFT", "GOOGL", "AMZN", "ORCL"}, nil},
		{"Tesla and TSLA and $tsla", nil, []string{tesla}},
		{"Berkshire Hathaway, BRK.A and $BRK.B", nil, []string{berksh}},
		// A question in capitals reads capital words as words.
		{"WHAT WERE APPLE'S GROSS MARGINS IN THE LATEST YEAR?", []string{"AAPL"}, nil},
		{"COMPARE NVDA AND AMD DATA CENTER REVENUE", []string{"NVDA"}, []string{amd}},
		{"WHAT DID THE CEO SAY ABOUT AI AT META?", []string{"META"}, nil},
		{"IS IT TRUE THAT ALL SEGMENTS GREW?", nil, nil},
		{"WHAT ARE TARGET'S MARGINS?", nil, nil},
		{"COMPARE TARGET AND WALMART", []string{"WMT"}, []string{target}},
	})
}

func TestIssuerExplicitTickers(t *testing.T) {
	cat := entityCatalog()
	rt := RouteQuestion("And Apple?", cat, []string{"goog", "tsla", "$brk.b", "ZZZZQ"})
	if want := []string{"GOOGL", "AAPL"}; !slices.Equal(rt.Issuers, want) {
		t.Errorf("Issuers = %v, want %v", rt.Issuers, want)
	}
	if want := []string{tesla, berksh, "ZZZZQ"}; !slices.Equal(rt.NotCovered, want) {
		t.Errorf("NotCovered = %v, want %v", rt.NotCovered, want)
	}
}

func TestIssuerShortNames(t *testing.T) {
	cat := entityCatalog()
	for ticker, want := range map[string]string{"AAPL": "Apple", "NVDA": "NVIDIA", "META": "Meta", "AMZN": "Amazon",
		"COST": "Costco", "GOOGL": "Alphabet", "EBAY": "eBay", "WMT": "Walmart", "TSLA": "TSLA"} {
		if got := cat.ShortName(ticker); got != want {
			t.Errorf("ShortName(%s) = %q, want %q", ticker, got, want)
		}
	}
	names := cat.issuerNames("AMZN")
	for _, want := range []string{"Amazon", "Amazon Web Services", "AWS"} {
		if !slices.Contains(names, want) {
			t.Errorf("issuerNames(AMZN) = %q, want %q in it", names, want)
		}
	}
	if slices.Contains(cat.issuerNames("AMZN"), "MGM Holdings Inc") || slices.Contains(cat.issuerNames("NVDA"), "Data Center") {
		t.Error("issuerNames holds another company or a kind of business")
	}
}

func TestLegalName(t *testing.T) {
	for in, want := range map[string]string{
		"Apple Inc.":                      "Apple",
		"COSTCO WHOLESALE CORP /NEW":      "COSTCO WHOLESALE",
		"Meta Platforms, Inc.":            "Meta Platforms",
		"AMAZON COM INC":                  "AMAZON",
		"Amazon.com, Inc.":                "Amazon",
		"ELI LILLY & Co":                  "ELI LILLY",
		"JOHNSON & JOHNSON":               "JOHNSON & JOHNSON",
		"Alibaba Group Holding Ltd":       "Alibaba",
		"ASML HOLDING NV":                 "ASML",
		"UNIVERSAL DISPLAY CORP \\PA\\":   "UNIVERSAL DISPLAY",
		"Sony Financial Group Inc./ADR":   "Sony Financial",
		"COCA COLA FEMSA SAB DE CV":       "COCA COLA FEMSA",
		"GRUPO TELEVISA, S.A.B.":          "GRUPO TELEVISA",
		"Premium Catering (Holdings) Ltd": "Premium Catering",
		"The Walt Disney Company":         "Walt Disney",
		"Unilever N.V.":                   "Unilever",
		"Company":                         "Company",
		"":                                "",
	} {
		if got := legalName(in).form; got != want {
			t.Errorf("legalName(%q) = %q, want %q", in, got, want)
		}
	}
	if l := legalName("Match Group, Inc."); l.form != "Match" || l.plain {
		t.Errorf("legalName(Match Group, Inc.) = %+v; want Match, not plain", l)
	}
	if l := legalName("TARGET CORP"); !l.plain {
		t.Errorf("legalName(TARGET CORP) is not plain")
	}
}

func TestCamelWords(t *testing.T) {
	for in, want := range map[string]string{
		"AmazonWebServices":           "Amazon Web Services",
		"IPhone":                      "iPhone",
		"YouTubeAdvertisingRevenue":   "You Tube Advertising Revenue",
		"AOCINetInvestmentHedge":      "AOCI Net Investment Hedge",
		"USCanada":                    "US Canada",
		"WearablesHomeandAccessories": "Wearables Homeand Accessories",
		"Waymo":                       "Waymo",
	} {
		if got := strings.Join(camelWords(in), " "); got != want {
			t.Errorf("camelWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenize(t *testing.T) {
	q := "Compare Tesla's and J.P. Morgan's margins vs. Coca-Cola, AT&T; 10-K. Then $brk.b"
	var keys []string
	for _, tk := range tokenize(q) {
		k := tk.key
		if tk.poss {
			k += "'s"
		}
		if tk.sentStart {
			k = "^" + k
		}
		if tk.joinAfter {
			k += "+"
		}
		if tk.breakAfter {
			k += "|"
		}
		if tk.dollar {
			k = "$" + k
		}
		keys = append(keys, k)
	}
	want := []string{"^compare", "tesla's", "and", "jp", "morgan's", "margins", "vs|", "coca+", "cola|", "at+", "&+", "t|", "10+", "k|", "^then", "$brk+", "b"}
	if !slices.Equal(keys, want) {
		t.Errorf("tokenize = %q\nwant       %q", keys, want)
	}
}

// BenchmarkSECIndex measures indexing the SEC's list, done once per
// process (loadSECIndex).
func BenchmarkSECIndex(b *testing.B) {
	x := loadSECIndex()
	for b.Loop() {
		newSECIndex(x.list, x.words)
	}
}

// BenchmarkFindIssuers measures resolving the issuers of one question.
func BenchmarkFindIssuers(b *testing.B) {
	cat := entityCatalog()
	q := "Compare gross margins at Apple, NVDA, Google Cloud and Tesla's $brk.b, C, JPM and BAC in fiscal 2024"
	for b.Loop() {
		findIssuers(q, cat, nil)
	}
}

func TestIssuersOfZeroCatalog(t *testing.T) {
	rt := RouteQuestion("Compare Tesla and AAPL", &Catalog{}, []string{"nvda"})
	if len(rt.Issuers) != 0 || !slices.Equal(rt.NotCovered, []string{"NVDA (NVIDIA CORP)", tesla, "AAPL (Apple Inc.)"}) {
		t.Errorf("issuers %v, not covered %v", rt.Issuers, rt.NotCovered)
	}
}

// No name starts inside a word joined by punctuation: "D over" of "R&D
// over revenue" is not Dover.
func TestNoNameInsideAJoinedWord(t *testing.T) {
	cat := smallCatalog()
	rt := RouteQuestion("Apple's R&D over revenue in fiscal 2024?", cat, nil)
	if len(rt.NotCovered) > 0 || !slices.Equal(rt.Issuers, []string{"AAPL"}) {
		t.Errorf("issuers %v, not covered %v; want Apple alone", rt.Issuers, rt.NotCovered)
	}
}

// A question that writes an issuer's name in lower case and capitals only
// the words everyone capitalises (the pronoun "I", a month) writes names
// without capitals: "apple" is Apple.
func TestCaselessBesideMonthAndI(t *testing.T) {
	cat := sampleCatalog(t)
	q := "how much cash does apple actually have on hand at the end of FY24 (Sept 28, 2024)? I keep seeing different numbers."
	if rt := RouteQuestion(q, cat, nil); !slices.Equal(rt.Issuers, []string{"AAPL"}) {
		t.Errorf("issuers %v, want AAPL", rt.Issuers)
	}
}

// A short form in capitals whose letters are the initials of words the
// question writes out before or after it ("commercial paper ... CP
// programs", "CP usage: ... commercial paper outstanding") is
// that phrase, not another company's ticker; initials spelt by an
// issuer's name and other words ("Apple makes devices ... AMD") are not.
func TestInitialsOfWordsWritten(t *testing.T) {
	cat := sampleCatalog(t)
	rt := RouteQuestion("Commercial paper outstanding at Apple and Oracle in 2023, plus the size of Oracle's CP program?", cat, nil)
	if len(rt.NotCovered) > 0 {
		t.Errorf("not covered %v: CP is commercial paper", rt.NotCovered)
	}
	// Written before the words it stands for.
	rt = RouteQuestion("CP usage: Apple at FYE Sep-2022 vs Oracle at FYE May-2023 — commercial paper outstanding and the effective rate on it", cat, nil)
	if len(rt.NotCovered) > 0 || !slices.Equal(rt.Issuers, []string{"AAPL", "ORCL"}) {
		t.Errorf("issuers %v, not covered %v: CP is commercial paper", rt.Issuers, rt.NotCovered)
	}
	rt = RouteQuestion("Apple makes devices; how do its 2024 margins compare with AMD?", cat, nil)
	if !slices.ContainsFunc(rt.NotCovered, func(s string) bool { return strings.HasPrefix(s, "AMD (") }) {
		t.Errorf("not covered %v: want AMD outside the corpus", rt.NotCovered)
	}
}

// A word that heads a rate or ratio no catalogue name is ("turnover
// rate") names that ratio, not the topic the word alone triggers
// (revenue's "turnover"); "tax rate" is the tax topic's.
func TestRatioNamedByTopicWord(t *testing.T) {
	cat := sampleCatalog(t)
	rt := RouteQuestion("How many employees did NVIDIA have at the end of fiscal 2023, and what was its overall turnover rate that year?", cat, nil)
	if slices.Contains(rt.Aspects, "revenue") {
		t.Errorf("aspects %v: a turnover rate is no revenue", rt.Aspects)
	}
	rt = RouteQuestion("What was NVIDIA's turnover in fiscal 2023?", cat, nil)
	if !slices.Contains(rt.Aspects, "revenue") {
		t.Errorf("aspects %v: turnover alone is revenue", rt.Aspects)
	}
}

// A question stating an amount and asking whether it is right asks the
// figure, whatever it calls it.
func TestCheckedAmountAsksFigure(t *testing.T) {
	cat := sampleCatalog(t)
	for q, want := range map[string]bool{
		"An article put eBay's 2022 gross merchandise volume at roughly $87 billion. Does the 10-K back that up?": true,
		"eBay's GMV was $74 billion in 2022, is that right?":                                                      true,
		"eBay's GMV was $74 billion in 2022. What drove the decline?":                                             false,
		"Is eBay's marketplace healthy?":                                                                          false,
	} {
		if got := RouteQuestion(q, cat, nil).AsksFigure; got != want {
			t.Errorf("%q: AsksFigure %v, want %v", q, got, want)
		}
	}
}

// Money said to be lost asks the loss: the issuer's net loss where no part
// is named. Money said to be made, with no figure named, asks revenue: of
// the part that made it, or of the thing it was made from (ReadShorthand);
// so does a business said to grow or shrink.
func TestMoneyLostOrMadeAsksTheFigure(t *testing.T) {
	cat := sampleCatalog(t)
	for q, want := range map[string]string{
		"Did Amazon lose money in 2022?":                                             "net_income",
		"Did Amazon really lose more than $2 billion in 2022?":                       "net_income",
		"Did Amazon lose customers in 2022?":                                         "",
		"Amazon keeps bleeding money. Does it?":                                      "net_income",
		"How much did Amazon lose in 2022?":                                          "net_income",
		"NVIDIA's Data Center business did about $15 billion in fiscal 2023, right?": "revenue",
		"How much did Netflix bring in during 2024?":                                 "revenue",
		"What did NVIDIA's Gaming segment bring in for fiscal 2023?":                 "revenue",
		"What did Apple make in 2024?":                                               "",
		"Did NVIDIA's automotive business actually grow in fiscal 2023?":             "revenue",
		"Has Intel's memory unit shrunk since 2019?":                                 "revenue",
		"Did Intel's business model change in 2020?":                                 "",
		"How does Nvidia's gaming business stack up against its rivals' in 2023?":    "revenue",
		"How much did Apple make from services in 2024?":                             "revenue",
		"Did Netflix make a profit in 2024?":                                         "",
	} {
		rt := RouteQuestion(q, cat, nil)
		got := ""
		if len(rt.Figures) > 0 {
			got = rt.Figures[0].Metric
		}
		if got != want {
			t.Errorf("%q: figures %v, want %q", q, rt.Figures, want)
		}
	}
}

// A cause named by the effect a noun says it had ("the impact of X on Y")
// or as the subject of a verb taking an amount from a figure ("how many $
// of Y did X take out") is read as a causal claim to test, in the
// question's own words.
func TestCauseNamedByItsEffect(t *testing.T) {
	cat := sampleCatalog(t)
	for _, q := range []string{
		"NVDA FY23: how many $ of Data Center revenue growth did the Arm termination cost take out?",
		"What was the impact of the Arm termination cost on NVIDIA's Data Center revenue in fiscal 2023?",
	} {
		rt := RouteQuestion(q, cat, nil)
		if rt.Causal == nil || !slices.Contains(rt.Causal.CauseWords, "termination") {
			t.Errorf("%q: causal %+v, want the Arm termination cost as the cause", q, rt.Causal)
		}
	}
}
