package edgar

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// CompanyFact is one value an issuer reported in XBRL, as the SEC's company
// facts API lists it (/api/xbrl/companyfacts/CIK##########.json): the same
// value is listed once for every filing that reported it.
type CompanyFact struct {
	Concept      string          // qualified: "us-gaap:Revenues", "dei:EntityCommonStockSharesOutstanding"
	Label        string          // the taxonomy's label of the concept
	Unit         string          // "USD", "shares", "USD/shares", ...
	Value        decimal.Decimal // as reported, exactly
	Start        time.Time       // zero for an instant
	End          time.Time       // end of the duration, or the instant
	Accession    string          // the filing that reported it
	Form         string          // that filing's form
	Filed        time.Time       // that filing's date
	FiscalYear   int             // the fiscal year of that filing (fy); 0 when absent
	FiscalPeriod string          // FY, Q1, Q2, Q3 (fp)
	Frame        string          // the SEC's calendar frame ("CY2023", "CY2023Q4I") when it assigned one
}

// Instant reports whether the fact is measured at an instant.
func (f CompanyFact) Instant() bool { return f.Start.IsZero() }

// CompanyFacts is an issuer's reported XBRL facts across its filings.
type CompanyFacts struct {
	CIK        int
	EntityName string
	Facts      []CompanyFact // by concept, unit, then as the SEC lists them (by period)
}

type companyFactsJSON struct {
	CIK        flexInt `json:"cik"`
	EntityName string  `json:"entityName"`
	Facts      map[string]map[string]struct {
		Label string `json:"label"`
		Units map[string][]struct {
			Start string      `json:"start"`
			End   string      `json:"end"`
			Val   json.Number `json:"val"`
			Accn  string      `json:"accn"`
			FY    flexInt     `json:"fy"`
			FP    string      `json:"fp"`
			Form  string      `json:"form"`
			Filed string      `json:"filed"`
			Frame string      `json:"frame"`
		} `json:"units"`
	} `json:"facts"`
}

// ParseCompanyFacts reads an issuer's company facts JSON. A value without
// an end date, an accession or a number is skipped: it can be neither
// placed nor cited.
func ParseCompanyFacts(raw []byte) (*CompanyFacts, error) {
	var cj companyFactsJSON
	if err := json.Unmarshal(raw, &cj); err != nil {
		return nil, fmt.Errorf("edgar: company facts: %w", err)
	}
	if cj.CIK <= 0 {
		return nil, fmt.Errorf("edgar: company facts: no cik")
	}
	out := &CompanyFacts{CIK: int(cj.CIK), EntityName: strings.TrimSpace(cj.EntityName)}
	for _, ns := range sortedKeys(cj.Facts) {
		for _, name := range sortedKeys(cj.Facts[ns]) {
			c := cj.Facts[ns][name]
			for _, unit := range sortedKeys(c.Units) {
				for _, v := range c.Units[unit] {
					val, err := decimal.NewFromString(v.Val.String())
					end, err2 := time.Parse(time.DateOnly, v.End)
					if err != nil || err2 != nil || v.Accn == "" {
						continue
					}
					f := CompanyFact{
						Concept: ns + ":" + name, Label: c.Label, Unit: unit, Value: val, End: end,
						Accession: v.Accn, Form: v.Form, FiscalYear: int(v.FY), FiscalPeriod: v.FP, Frame: v.Frame,
					}
					if v.Start != "" {
						if s, err := time.Parse(time.DateOnly, v.Start); err == nil {
							f.Start = s
						}
					}
					if d, err := time.Parse(time.DateOnly, v.Filed); err == nil {
						f.Filed = d
					}
					out.Facts = append(out.Facts, f)
				}
			}
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
