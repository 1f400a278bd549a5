package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
)

// runSearch runs a hybrid search over the run's scope: the tickers asked
// (all the scope's by default), and the scope's fiscal years when the call
// names none. Results are interleaved per ticker so one issuer cannot
// crowd out the others.
//
// The searcher does not report the sizes of the pools it fused, so the
// candidates seen are the bound Reservation reserved: per ticker, the
// full-text pool k and the vector pool max(4k, 40).
func runSearch(ctx context.Context, env *Env, a *SearchArgs) (*result, error) {
	f := corpus.Filter{
		Tickers:     slices.Clone(a.Tickers),
		Form:        a.Form,
		FiscalYears: slices.Clone(a.FiscalYears),
		Section:     a.Section,
	}
	if len(f.FiscalYears) == 0 && len(env.Scope.FiscalYears) > 0 {
		f.FiscalYears = slices.Compact(slices.Sorted(slices.Values(env.Scope.FiscalYears)))
	}
	filters := searchFilters(f)
	hits, err := env.Searcher.Search(ctx, corpus.SearchRequest{
		Query:  a.Query,
		Filter: f,
		K:      a.K,
		Mode:   corpus.ModeHybrid,
	})
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", SearchFilings, err)
	}
	res := &result{candidates: searchCandidates(a)}
	var kept []corpus.SearchResult
	for _, h := range hits {
		// The filter keeps the scope; this guards the guarantee.
		if !env.Scope.hasTicker(h.Ticker) || !env.Scope.hasYear(h.FiscalYear) || h.End <= h.Start {
			continue
		}
		kept = append(kept, h)
	}
	whole, err := wholeSentences(ctx, env, kept)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", SearchFilings, err)
	}
	for _, h := range whole {
		res.addEvidence(passageEvidence(h), h.ChunkID)
	}
	res.search = &ledger.Search{Query: a.Query, Filters: filters, CandidatesSeen: res.candidates}
	header := fmt.Sprintf("%s: %s for %q (%s).", SearchFilings, plural(len(res.evidence), "passage"), a.Query, describeFilters(filters))
	res.render = func(r *result) string {
		return renderPassages(r, header, "No passage matched: try other words, fewer filters or another section.")
	}
	return res, nil
}

// searchFilters are a search's filters as the ledger's search history
// keeps them.
func searchFilters(f corpus.Filter) map[string]string {
	m := map[string]string{}
	if len(f.Tickers) > 0 {
		m["tickers"] = strings.Join(f.Tickers, ",")
	}
	if f.Form != "" {
		m["form"] = f.Form
	}
	if len(f.FiscalYears) > 0 {
		ys := make([]string, len(f.FiscalYears))
		for i, y := range f.FiscalYears {
			ys[i] = strconv.Itoa(y)
		}
		m["fiscal_years"] = strings.Join(ys, ",")
	}
	if f.Section != "" {
		m["section"] = f.Section
	}
	return m
}

func describeFilters(m map[string]string) string {
	var parts []string
	for _, k := range []string{"tickers", "form", "fiscal_years", "section"} {
		if v := m[k]; v != "" {
			parts = append(parts, strings.ReplaceAll(k, "_", " ")+" "+strings.ReplaceAll(v, ",", ", "))
		}
	}
	if len(parts) == 0 {
		return "no filters"
	}
	return strings.Join(parts, "; ")
}

// passageEvidence is the evidence of a retrieved chunk: its whole span.
func passageEvidence(h corpus.SearchResult) ledger.Evidence {
	return ledger.Evidence{
		Kind:       ledger.KindPassage,
		DocumentID: h.DocumentID,
		Start:      h.Start,
		End:        h.End,
		Excerpt:    h.Text,
		Ticker:     h.Ticker,
		Form:       h.Form,
		Period:     PeriodLabel(h.FiscalYear),
		Page:       h.Page,
		Section:    h.Section,
	}
}

// renderPassages is the response of the passage tools: a header, the
// untrusted-data note, and one wrapped excerpt per passage while they fit.
func renderPassages(r *result, header, none string) string {
	resp := &response{noun: "passages", hint: "lower k or narrow the filters to see them"}
	resp.line("%s", header)
	if len(r.evidence) == 0 {
		resp.line("%s", none)
		return resp.String()
	}
	resp.note()
	for i := range r.evidence {
		resp.item(EvidenceBlock(r.evidence[i], MaxExcerpt, &EvidenceOpts{Chunk: r.chunks[r.evidence[i].ID]}) + "\n")
	}
	return resp.String()
}

// maxWiden is how far a passage is widened on each side to whole
// sentences.
const maxWiden = 600

// wholeSentences widens each hit to the whole sentences it cuts: a chunk
// opens where the one before it ends less an overlap, mid-sentence, and
// may close mid-sentence where no sentence ended near its size. The
// chunks before and after a hit (one read for all hits) give the text on
// either side; the widened span is a span of the filing, its text
// verbatim. A side whose neighbour does not reach the hit (a section
// boundary) is left as it is.
func wholeSentences(ctx context.Context, env *Env, hits []corpus.SearchResult) ([]corpus.SearchResult, error) {
	var ids []string
	for _, h := range hits {
		if before, after, ok := corpus.NeighbourIDs(h.ChunkID); ok {
			if before != "" {
				ids = append(ids, before)
			}
			ids = append(ids, after)
		}
	}
	if len(ids) == 0 {
		return hits, nil
	}
	found, err := env.Store.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]corpus.SearchResult, len(found))
	for _, c := range found {
		byID[c.ChunkID] = c
	}
	out := make([]corpus.SearchResult, len(hits))
	for i, h := range hits {
		out[i] = h
		before, after, _ := corpus.NeighbourIDs(h.ChunkID)
		lo, hi := h.Start, h.End
		text := h.Text
		if b, ok := byID[before]; ok && b.DocumentID == h.DocumentID && b.Start < h.Start && b.End >= h.Start {
			text = b.Text[:h.Start-b.Start] + text
			lo = b.Start
		}
		if a, ok := byID[after]; ok && a.DocumentID == h.DocumentID && a.Start <= h.End && a.End > h.End {
			text += a.Text[h.End-a.Start:]
			hi = a.End
		}
		if lo == h.Start && hi == h.End {
			continue
		}
		s, e := corpus.WholeSentences(text, h.Start-lo, h.End-lo, maxWiden)
		out[i].Start, out[i].End, out[i].Text = lo+s, lo+e, text[s:e]
	}
	return out, nil
}
