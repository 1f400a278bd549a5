package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledgerline/research/corpus"
)

// runReadChunks returns whole chunks by id, in the order asked. Every
// chunk must be of a document in the run's scope; unknown ids are refused
// by name.
func runReadChunks(ctx context.Context, env *Env, a *ReadChunksArgs) (*result, error) {
	const tool = ReadChunks
	hits, err := env.Store.Chunks(ctx, a.IDs)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", tool, err)
	}
	byID := make(map[string]corpus.SearchResult, len(hits))
	for _, h := range hits {
		byID[h.ChunkID] = h
	}
	var unknown []string
	for _, id := range a.IDs {
		if _, ok := byID[id]; !ok {
			unknown = append(unknown, strconv.Quote(id))
		}
	}
	if len(unknown) > 0 {
		return nil, argErr(tool, "ids", "unknown chunk ids %s; use ids from search_filings results", strings.Join(unknown, ", "))
	}
	res := &result{candidates: len(a.IDs)}
	var asked []corpus.SearchResult
	for _, id := range a.IDs {
		h := byID[id]
		if err := checkChunkScope(tool, "ids", h, env.Scope); err != nil {
			return nil, err
		}
		if h.End > h.Start {
			asked = append(asked, h)
		}
	}
	// The same whole sentences a search records for the chunk, so that
	// reading a chunk found before records no span anew.
	whole, err := wholeSentences(ctx, env, asked)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", tool, err)
	}
	for _, h := range whole {
		res.addEvidence(passageEvidence(h), h.ChunkID)
	}
	header := fmt.Sprintf("%s: %s.", tool, plural(len(res.evidence), "chunk"))
	res.render = func(r *result) string { return renderPassages(r, header, "The chunks hold no text.") }
	return res, nil
}

// runReadSurrounding returns a chunk and up to Before chunks before and
// After chunks after it in the same document, in document order.
func runReadSurrounding(ctx context.Context, env *Env, a *ReadSurroundingArgs) (*result, error) {
	const tool = ReadSurrounding
	hits, err := env.Store.Chunks(ctx, []string{a.ID})
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", tool, err)
	}
	if len(hits) == 0 {
		return nil, argErr(tool, "id", "unknown chunk id %q; use an id from search_filings results", a.ID)
	}
	center := hits[0]
	if err := checkChunkScope(tool, "id", center, env.Scope); err != nil {
		return nil, err
	}
	ordinal, ok := chunkOrdinal(a.ID, center.DocumentID)
	if !ok {
		return nil, argErr(tool, "id", "%q is not a chunk id of the form <document>-<ordinal>", a.ID)
	}
	var ids []string
	for o := max(0, ordinal-a.Before); o <= ordinal+a.After; o++ {
		ids = append(ids, corpus.ChunkID(center.DocumentID, o))
	}
	around, err := env.Store.Chunks(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("tools: %s: %w", tool, err)
	}
	res := &result{candidates: 1 + a.Before + a.After}
	for _, h := range around {
		// Neighbours share the document, so its scope; checked all the same.
		if h.DocumentID != center.DocumentID || checkChunkScope(tool, "id", h, env.Scope) != nil || h.End <= h.Start {
			continue
		}
		res.addEvidence(passageEvidence(h), h.ChunkID)
	}
	header := fmt.Sprintf("%s: chunk %s with %d before and %d after asked, in %s %s %s; %s in document order.",
		tool, a.ID, a.Before, a.After, center.Ticker, center.Form, PeriodLabel(center.FiscalYear), plural(len(res.evidence), "chunk"))
	res.render = func(r *result) string { return renderPassages(r, header, "The chunks hold no text.") }
	return res, nil
}

// checkChunkScope refuses a chunk of a document outside the run's scope.
func checkChunkScope(tool, field string, h corpus.SearchResult, scope Scope) error {
	if !scope.hasTicker(h.Ticker) {
		return scopeErr(tool, field, "chunk %q is from a filing of %s, outside the run's scope (%s)",
			h.ChunkID, h.Ticker, strings.Join(scope.tickers(), ", "))
	}
	if !scope.hasYear(h.FiscalYear) {
		return scopeErr(tool, field, "chunk %q is from a filing for fiscal year %d, outside the run's scope (%s)",
			h.ChunkID, h.FiscalYear, scope.yearList())
	}
	return nil
}

// chunkOrdinal parses the ordinal of a chunk id and checks the id is the
// one corpus.ChunkID gives that ordinal of the document.
func chunkOrdinal(id, documentID string) (int, bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return 0, false
	}
	o, err := strconv.Atoi(id[i+1:])
	if err != nil || o < 0 || corpus.ChunkID(documentID, o) != id {
		return 0, false
	}
	return o, true
}
