package server

import (
	"net/http"

	"github.com/ledgerline/research/corpus"
)

// search runs a hybrid search over the tenant's filings and answers the
// JSON of `research search --format json`.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	var req searchRequest
	if fe := decodeJSON(w, r, s.cfg.MaxBodyBytes, &req, searchFields); fe != nil {
		s.writeFieldError(w, r, fe)
		return
	}
	sr, fe := validateSearch(&req)
	if fe != nil {
		s.writeFieldError(w, r, fe)
		return
	}
	store, err := s.corpusOf(p.tenant.ID)
	if err != nil {
		s.internalError(w, r, "open the corpus", err)
		return
	}
	results, err := store.Search(r.Context(), sr)
	if err != nil {
		s.internalError(w, r, "search", err)
		return
	}
	if results == nil {
		results = []corpus.SearchResult{}
	}
	writeJSON(w, http.StatusOK, struct {
		Results []corpus.SearchResult `json:"results"`
	}{results})
}
