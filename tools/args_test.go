package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ledgerline/research/budget"
)

var testScope = Scope{Tenant: "acme", Tickers: []string{"AAPL", "NVDA"}, FiscalYears: []int{2023, 2024}}

func TestCheckArgs(t *testing.T) {
	long := strings.Repeat("margin ", 80)
	tests := []struct {
		name    string
		tool    string
		args    string
		field   string // "" for valid arguments
		scope   bool   // an ErrOutOfScope violation
		message string // part of the error message
	}{
		{name: "search", tool: SearchFilings, args: `{"query":"gross margin","tickers":["aapl"],"form":"10-k","fiscal_years":[2024],"section":"7","k":20}`},
		{name: "search defaults", tool: SearchFilings, args: `{"query":"gross margin"}`},
		{name: "search ticker outside scope", tool: SearchFilings, args: `{"query":"margin","tickers":["TSLA"]}`,
			field: "tickers", scope: true, message: `tools: search_filings: tickers: "TSLA" is outside the run's scope (AAPL, NVDA)`},
		{name: "search year outside scope", tool: SearchFilings, args: `{"query":"margin","fiscal_years":[2019]}`,
			field: "fiscal_years", scope: true, message: "fiscal year 2019 is outside the run's scope (2023, 2024)"},
		{name: "search tenant field", tool: SearchFilings, args: `{"query":"margin","tenant":"other"}`,
			field: "tenant", message: "unknown argument"},
		{name: "search field case", tool: SearchFilings, args: `{"Query":"margin"}`, field: "Query", message: "unknown argument"},
		{name: "search k too large", tool: SearchFilings, args: `{"query":"margin","k":21}`, field: "k", message: "more than 20"},
		{name: "search k negative", tool: SearchFilings, args: `{"query":"margin","k":-1}`, field: "k"},
		{name: "search k not integer", tool: SearchFilings, args: `{"query":"margin","k":2.5}`, field: "k", message: "want an integer"},
		{name: "search no query", tool: SearchFilings, args: `{"query":"  "}`, field: "query", message: "required"},
		{name: "search no arguments", tool: SearchFilings, args: ``, field: "query"},
		{name: "search long query", tool: SearchFilings, args: fmt.Sprintf(`{"query":%q}`, long), field: "query", message: "at most 500"},
		{name: "search form", tool: SearchFilings, args: `{"query":"margin","form":"8-K"}`, field: "form"},
		{name: "search section", tool: SearchFilings, args: `{"query":"margin","section":"appendix"}`, field: "section"},
		{name: "search bad ticker", tool: SearchFilings, args: `{"query":"margin","tickers":["not a ticker"]}`, field: "tickers", message: "not a ticker"},
		{name: "search tickers type", tool: SearchFilings, args: `{"query":"margin","tickers":"AAPL"}`, field: "tickers", message: "want an array of strings"},
		{name: "not JSON", tool: SearchFilings, args: `{"query":`, message: "not valid JSON"},
		{name: "not an object", tool: SearchFilings, args: `["margin"]`, message: "want a JSON object"},
		{name: "trailing data", tool: SearchFilings, args: `{"query":"a"} {"query":"b"}`, message: "not valid JSON"},

		{name: "read", tool: ReadChunks, args: `{"ids":["abc-00001","abc-00002","abc-00001"]}`},
		{name: "read none", tool: ReadChunks, args: `{"ids":[]}`, field: "ids", message: "required"},
		{name: "read too many", tool: ReadChunks, args: `{"ids":["1","2","3","4","5","6","7","8","9","10","11"]}`, field: "ids", message: "at most 10"},
		{name: "read empty id", tool: ReadChunks, args: `{"ids":["abc-00001",""]}`, field: "ids[1]"},
		{name: "read tenant", tool: ReadChunks, args: `{"ids":["abc-00001"],"tenant":"x"}`, field: "tenant"},

		{name: "surrounding", tool: ReadSurrounding, args: `{"id":"abc-00003","before":3,"after":0}`},
		{name: "surrounding before", tool: ReadSurrounding, args: `{"id":"abc-00003","before":4}`, field: "before", message: "0 to 3"},
		{name: "surrounding after", tool: ReadSurrounding, args: `{"id":"abc-00003","after":-1}`, field: "after"},
		{name: "surrounding no id", tool: ReadSurrounding, args: `{"before":1}`, field: "id"},

		{name: "lookup label", tool: LookupFact, args: `{"ticker":"AAPL","label":"Total Net Sales","period":"FY2024"}`},
		{name: "lookup concept", tool: LookupFact, args: `{"ticker":"nvda","concept":"Revenues","period":"fy2023"}`},
		{name: "lookup quarter", tool: LookupFact, args: `{"ticker":"AAPL","label":"revenue","period":"FY2024","quarter":true}`},
		{name: "lookup quarter and year to date", tool: LookupFact, args: `{"ticker":"AAPL","label":"revenue","period":"FY2024","quarter":true,"year_to_date":true}`,
			field: "quarter", message: "give one of quarter and year_to_date"},
		{name: "lookup latest", tool: LookupFact, args: `{"ticker":"NVDA","concept":"us-gaap:GrossProfit"}`},
		{name: "lookup both", tool: LookupFact, args: `{"ticker":"AAPL","concept":"GrossProfit","label":"gross profit"}`, field: "label", message: "not both"},
		{name: "lookup neither", tool: LookupFact, args: `{"ticker":"AAPL"}`, field: "concept", message: "required"},
		{name: "lookup unknown label", tool: LookupFact, args: `{"ticker":"AAPL","label":"ebitda"}`, field: "label",
			message: "known: revenue, cost_of_revenue, gross_profit"},
		{name: "lookup bad concept", tool: LookupFact, args: `{"ticker":"AAPL","concept":"gross profit!"}`, field: "concept"},
		{name: "lookup ticker outside scope", tool: LookupFact, args: `{"ticker":"MSFT","label":"revenue"}`, field: "ticker", scope: true},
		{name: "lookup period outside scope", tool: LookupFact, args: `{"ticker":"AAPL","label":"revenue","period":"FY2021"}`, field: "period", scope: true},
		{name: "lookup period form", tool: LookupFact, args: `{"ticker":"AAPL","label":"revenue","period":"2024"}`, field: "period", message: "FY2024"},
		{name: "lookup no ticker", tool: LookupFact, args: `{"label":"revenue"}`, field: "ticker", message: "required"},

		{name: "calculate", tool: Calculate, args: `{"expression":"gross_profit / revenue","facts":{
			"gross_profit":{"ticker":"AAPL","concept":"GrossProfit","period":"FY2024"},
			"revenue":{"ticker":"AAPL","concept":"us-gaap:Revenues","period":"2023-10-01/2024-09-28"}}}`},
		{name: "calculate literal only", tool: Calculate, args: `{"expression":"1 + 2"}`},
		{name: "calculate unbound", tool: Calculate, args: `{"expression":"a / b","facts":{"a":{"ticker":"AAPL","concept":"GrossProfit"}}}`,
			field: "facts", message: `"b" is used in the expression but not bound`},
		{name: "calculate unused", tool: Calculate, args: `{"expression":"a * 2","facts":{"a":{"ticker":"AAPL","concept":"GrossProfit"},"b":{"ticker":"AAPL","concept":"Revenues"}}}`,
			field: "facts.b", message: "not used"},
		{name: "calculate malformed", tool: Calculate, args: `{"expression":"a /","facts":{"a":{"ticker":"AAPL","concept":"GrossProfit"}}}`, field: "expression"},
		{name: "calculate too long", tool: Calculate, args: fmt.Sprintf(`{"expression":%q}`, strings.Repeat("1+", 100)+"1"), field: "expression", message: "at most 200"},
		{name: "calculate too many names", tool: Calculate, args: calcWithNames(21), field: "expression", message: "21 names"},
		{name: "calculate twenty names", tool: Calculate, args: calcWithNames(20)},
		{name: "calculate ref tenant", tool: Calculate, args: `{"expression":"a","facts":{"a":{"ticker":"AAPL","concept":"GrossProfit","tenant":"x"}}}`,
			field: "facts.a.tenant", message: "unknown argument"},
		{name: "calculate ref outside scope", tool: Calculate, args: `{"expression":"a","facts":{"a":{"ticker":"TSLA","concept":"GrossProfit"}}}`,
			field: "facts.a.ticker", scope: true},
		{name: "calculate ref year outside scope", tool: Calculate, args: `{"expression":"a","facts":{"a":{"ticker":"AAPL","concept":"GrossProfit","period":"FY2020"}}}`,
			field: "facts.a.period", scope: true},
		{name: "calculate ref bad period", tool: Calculate, args: `{"expression":"a","facts":{"a":{"ticker":"AAPL","concept":"GrossProfit","period":"last year"}}}`,
			field: "facts.a.period"},
		{name: "calculate ref no concept", tool: Calculate, args: `{"expression":"a","facts":{"a":{"ticker":"AAPL"}}}`, field: "facts.a.concept"},
		{name: "calculate ref type", tool: Calculate, args: `{"expression":"a","facts":{"a":"AAPL GrossProfit"}}`, field: "facts.a", message: "want a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckArgs(tt.tool, json.RawMessage(tt.args), testScope)
			wantErr := tt.field != "" || tt.message != ""
			if !wantErr {
				if err != nil {
					t.Fatalf("CheckArgs: %v", err)
				}
				return
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T) is not an *ArgError", err, err)
			}
			if ae.Tool != tt.tool {
				t.Errorf("Tool = %q, want %q", ae.Tool, tt.tool)
			}
			if tt.field != "" && ae.Field != tt.field {
				t.Errorf("Field = %q, want %q (%v)", ae.Field, tt.field, err)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q does not say %q", err, tt.message)
			}
			if errors.Is(err, ErrOutOfScope) != tt.scope {
				t.Errorf("errors.Is(err, ErrOutOfScope) = %v, want %v (%v)", !tt.scope, tt.scope, err)
			}
		})
	}
}

// calcWithNames is a calculate call summing n names.
func calcWithNames(n int) string {
	names := make([]string, n)
	facts := map[string]FactRef{}
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
		facts[names[i]] = FactRef{Ticker: "AAPL", Concept: "Revenues"}
	}
	b, _ := json.Marshal(CalculateArgs{Expression: strings.Join(names, "+"), Facts: facts})
	return string(b)
}

func TestCheckArgsUnknownTool(t *testing.T) {
	err := CheckArgs("delete_filings", json.RawMessage(`{}`), testScope)
	if !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("error %v does not wrap ErrUnknownTool", err)
	}
	var ae *ArgError
	if errors.As(err, &ae) {
		t.Error("an unknown tool is not an argument error")
	}
}

func TestCheckArgsEmptyScope(t *testing.T) {
	err := CheckArgs(SearchFilings, json.RawMessage(`{"query":"margin"}`), Scope{})
	if !errors.Is(err, ErrOutOfScope) {
		t.Fatalf("a search in a scope with no issuer: %v; want ErrOutOfScope", err)
	}
}

func TestReservation(t *testing.T) {
	tests := []struct {
		tool       string
		args       string
		kind       budget.ToolKind
		candidates int64
	}{
		{SearchFilings, `{"query":"margin"}`, budget.ToolSearch, 2 * (6 + 40)}, // both tickers of the scope
		{SearchFilings, `{"query":"margin","tickers":["AAPL"],"k":20}`, budget.ToolSearch, 20 + 80},
		{SearchFilings, `{"query":"margin","tickers":["AAPL","aapl"],"k":5}`, budget.ToolSearch, 5 + 40},
		{ReadChunks, `{"ids":["a-00001","b-00002","a-00001"]}`, budget.ToolRead, 2},
		{ReadSurrounding, `{"id":"a-00004","before":2,"after":3}`, budget.ToolRead, 6},
		{LookupFact, `{"ticker":"AAPL","label":"revenue"}`, budget.ToolFact, MaxFactsSeen},
		{Calculate, `{"expression":"2 * 3"}`, budget.ToolCalculate, 0},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			kind, n, err := Reservation(tt.tool, json.RawMessage(tt.args), testScope)
			if err != nil {
				t.Fatal(err)
			}
			if kind != tt.kind || n != tt.candidates {
				t.Errorf("Reservation = %s, %d; want %s, %d", kind, n, tt.kind, tt.candidates)
			}
			if _, err := budget.ToolReservation(kind, n); err != nil {
				t.Errorf("the budget refuses the reservation: %v", err)
			}
		})
	}
	if _, _, err := Reservation(SearchFilings, json.RawMessage(`{"query":"x","k":99}`), testScope); err == nil {
		t.Error("Reservation accepted k = 99")
	}
}

func FuzzCheckArgs(f *testing.F) {
	seeds := []struct{ tool, args string }{
		{SearchFilings, `{"query":"gross margin","tickers":["AAPL"],"k":20,"section":"7"}`},
		{SearchFilings, `{"query":"x","fiscal_years":[2024,2019],"tenant":"t"}`},
		{ReadChunks, `{"ids":["abc-00001"]}`},
		{ReadSurrounding, `{"id":"abc-00001","before":3,"after":3}`},
		{LookupFact, `{"ticker":"AAPL","label":"revenue","period":"FY2024"}`},
		{Calculate, `{"expression":"(a - b) / b","facts":{"a":{"ticker":"AAPL","concept":"Revenues","period":"FY2024"},"b":{"ticker":"AAPL","concept":"Revenues","period":"FY2023"}}}`},
		{"other", `{}`},
		{SearchFilings, `null`},
		{Calculate, `{"facts":null}`},
	}
	for _, s := range seeds {
		f.Add(s.tool, []byte(s.args))
	}
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		err := CheckArgs(tool, args, testScope)
		kind, n, rerr := Reservation(tool, args, testScope)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("CheckArgs: %v but Reservation: %v", err, rerr)
		}
		if err != nil {
			var ae *ArgError
			if !errors.As(err, &ae) && !errors.Is(err, ErrUnknownTool) {
				t.Fatalf("error %v (%T) is neither an *ArgError nor ErrUnknownTool", err, err)
			}
			if ae != nil && (ae.Tool != tool || ae.Problem == "") {
				t.Fatalf("ArgError %+v does not name the tool %q and a problem", ae, tool)
			}
			return
		}
		if _, err := budget.ToolReservation(kind, n); err != nil {
			t.Fatalf("valid arguments, refused reservation %s %d: %v", kind, n, err)
		}
		if n > int64(len(testScope.Tickers)*(MaxK+4*MaxK)) {
			t.Fatalf("reservation of %d candidates exceeds every bound", n)
		}
		// Valid arguments stay in scope.
		parsed, _ := checkArgs(tool, args, testScope)
		switch a := parsed.(type) {
		case *SearchArgs:
			for _, tk := range a.Tickers {
				if !testScope.hasTicker(tk) {
					t.Fatalf("ticker %q outside the scope accepted", tk)
				}
			}
			for _, y := range a.FiscalYears {
				if !testScope.hasYear(y) {
					t.Fatalf("fiscal year %d outside the scope accepted", y)
				}
			}
			if a.K < 1 || a.K > MaxK {
				t.Fatalf("k = %d accepted", a.K)
			}
		case *lookupCall:
			if !testScope.hasTicker(a.Ticker) || (a.Year != 0 && !testScope.hasYear(a.Year)) {
				t.Fatalf("lookup outside the scope accepted: %+v", a)
			}
		case *calculateCall:
			for _, r := range a.Refs {
				if !testScope.hasTicker(r.Ticker) {
					t.Fatalf("fact ref outside the scope accepted: %+v", r)
				}
			}
		}
	})
}
