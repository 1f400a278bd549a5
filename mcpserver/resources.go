package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/tools"
)

// Resource URIs.
const (
	CorpusURI       = "research://corpus"
	LedgerURIPrefix = "research://runs/"
	ledgerURISuffix = "/ledger"
)

// LedgerURI is the URI of run runID's ledger resource.
func LedgerURI(runID string) string { return LedgerURIPrefix + runID + ledgerURISuffix }

// Corpus is the corpus resource: what can be asked about.
type Corpus struct {
	Issuers []Issuer `json:"issuers"`
}

// Issuer is one issuer of the corpus with its filings.
type Issuer struct {
	Ticker  string   `json:"ticker"`
	Company string   `json:"company"`
	Filings []Filing `json:"filings"`
}

// Filing is one ingested filing.
type Filing struct {
	DocumentID string `json:"document_id"`
	Form       string `json:"form"`
	FiscalYear int    `json:"fiscal_year"`
	Period     string `json:"period"`     // "FY2024"
	PeriodEnd  string `json:"period_end"` // "2024-12-31"
	Filed      string `json:"filed,omitempty"`
	Pages      int    `json:"pages,omitempty"`
}

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{
		URI: CorpusURI, Name: "corpus", Title: "Corpus",
		Description: "The issuers, filings (form, fiscal year, period end) and periods ingested for this tenant.",
		MIMEType:    "application/json",
	}, s.readCorpus)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: LedgerURIPrefix + "{run_id}" + ledgerURISuffix, Name: "run-ledger", Title: "Run ledger",
		Description: "A run's evidence ledger as JSON, as ledger_show returns it.",
		MIMEType:    "application/json",
	}, s.readLedger)
}

// CorpusList lists the tenant's corpus by issuer, each issuer's filings by
// period end.
func (s *Server) CorpusList(ctx context.Context) (*Corpus, error) {
	docs, err := s.documents(ctx)
	if err != nil {
		return nil, err
	}
	byTicker := map[string]*Issuer{}
	c := &Corpus{Issuers: []Issuer{}}
	var order []string
	for _, d := range docs {
		is, ok := byTicker[d.Ticker]
		if !ok {
			is = &Issuer{Ticker: d.Ticker, Company: d.Company}
			byTicker[d.Ticker] = is
			order = append(order, d.Ticker)
		}
		f := Filing{DocumentID: d.ID, Form: d.Form, FiscalYear: d.FiscalYear,
			Period: tools.PeriodLabel(d.FiscalYear), PeriodEnd: d.PeriodEnd.Format(time.DateOnly), Pages: d.Pages}
		if !d.Filed.IsZero() {
			f.Filed = d.Filed.Format(time.DateOnly)
		}
		is.Filings = append(is.Filings, f)
	}
	sort.Strings(order)
	for _, t := range order {
		is := byTicker[t]
		sort.SliceStable(is.Filings, func(i, j int) bool { return is.Filings[i].PeriodEnd < is.Filings[j].PeriodEnd })
		c.Issuers = append(c.Issuers, *is)
	}
	return c, nil
}

func (s *Server) readCorpus(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c, err := s.CorpusList(ctx)
	if err != nil {
		s.cfg.Logger.Error("mcp corpus resource", "err", err)
		return nil, errors.New("corpus: internal error")
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: CorpusURI, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (s *Server) readLedger(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	runID, ok := strings.CutPrefix(uri, LedgerURIPrefix)
	if ok {
		runID, ok = strings.CutSuffix(runID, ledgerURISuffix)
	}
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text, err := s.ledgerJSON(ctx, runID)
	var ce *clientError
	switch {
	case errors.As(err, &ce):
		return nil, mcp.ResourceNotFoundError(uri)
	case err != nil:
		s.cfg.Logger.Error("mcp ledger resource", "err", err)
		return nil, errors.New("ledger: internal error")
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}
