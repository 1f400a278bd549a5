package embedded

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// ErrClosed is returned by the methods of a closed Store.
var ErrClosed = errors.New("embedded: store is closed")

// ErrCorrupt is wrapped by the error Open returns for a damaged document
// file; the error names the file.
var ErrCorrupt = errors.New("corrupt document file")

// Config configures a Store. A nil or zero Config means the defaults.
type Config struct {
	// Dimensions is the length every embedding must have; Open fails when
	// the directory holds embeddings of another length. 0 means the length
	// of the first embedding stored.
	Dimensions int

	// Parallelism is the number of goroutines Open uses to read and index
	// documents and a vector search uses to scan. 0 means
	// runtime.GOMAXPROCS(0).
	Parallelism int
}

func (c *Config) validate() error {
	if c.Dimensions < 0 {
		return fmt.Errorf("embedded: Config.Dimensions %d is negative", c.Dimensions)
	}
	if c.Parallelism < 0 {
		return fmt.Errorf("embedded: Config.Parallelism %d is negative", c.Parallelism)
	}
	return nil
}

// Store is the embedded implementation of corpus.Store: everything in
// memory, persisted as one file per document in a data directory. It is
// safe for concurrent use.
type Store struct {
	docsDir     string
	parallelism int

	addMu    sync.Mutex          // serialises AddDocument (and Close against it)
	analyzer textsearch.Analyzer // guarded by addMu

	mu sync.RWMutex
	// Guarded by mu:
	closed    bool
	dim       int // embedding length; 0 until the first embedding
	docs      []*document
	byID      map[string]*document
	chunks    []chunk     // every document's chunks, by document in the order added
	vecs      [][]float32 // vecs[i] is chunks[i]'s embedding at unit length; nil without one
	chunkByID map[string]int
	text      textsearch.Index // text i is chunks[i].text
	facts     int
}

// document is a stored document with its facts; its chunks are
// Store.chunks[lo:hi].
type document struct {
	corpus.Document // with Text
	added           int64
	lo, hi          int
	facts           []corpus.Fact
}

type chunk struct {
	id               string
	doc              int // index into Store.docs
	section          string
	page, start, end int
	text             string
}

// formatFile names the file that marks a data directory and its format.
const (
	formatFile = "FORMAT"
	formatLine = "ledgerline research embedded store, format 1\n"
	docsSubdir = "docs"
	// staleTemp is the age after which a temporary file is taken for the
	// leftover of a crashed write and removed.
	staleTemp = time.Hour
)

// Open opens the store in dir, creating the directory when it is missing,
// and loads every document in it (see the package documentation for the
// layout and for how processes share a directory). A damaged document file
// makes Open fail with an error that names it and wraps ErrCorrupt.
func Open(dir string, cfg *Config) (*Store, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, errors.New("embedded: no data directory")
	}
	s := &Store{
		docsDir:     filepath.Join(dir, docsSubdir),
		parallelism: cfg.Parallelism,
		dim:         cfg.Dimensions,
		byID:        make(map[string]*document),
		chunkByID:   make(map[string]int),
	}
	if s.parallelism == 0 {
		s.parallelism = runtime.GOMAXPROCS(0)
	}
	if err := os.MkdirAll(s.docsDir, 0o755); err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	if err := checkFormat(filepath.Join(dir, formatFile)); err != nil {
		return nil, err
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkFormat creates the format file, or checks the one there.
func checkFormat(path string) error {
	err := writeFileNoReplace(path, []byte(formatLine))
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("embedded: %w", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("embedded: %w", err)
	}
	if string(got) != formatLine {
		return fmt.Errorf("embedded: %s: not a store of this format (%q)", path, strings.TrimSpace(string(got)))
	}
	return nil
}

// load reads every document file, in the order the documents were added,
// analysing them on s.parallelism goroutines and indexing them in order.
func (s *Store) load() error {
	entries, err := os.ReadDir(s.docsDir)
	if err != nil {
		return fmt.Errorf("embedded: %w", err)
	}
	type file struct {
		path  string
		added int64
	}
	var files []file
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(s.docsDir, name)
		if strings.HasPrefix(name, tempPrefix) {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
				os.Remove(path) // the leftover of a crashed write
			}
			continue
		}
		if e.IsDir() || !strings.HasSuffix(name, fileExt) {
			continue
		}
		added, err := readAdded(path)
		if err != nil {
			return fmt.Errorf("embedded: %s: %w", path, err)
		}
		files = append(files, file{path, added})
	}
	slices.SortFunc(files, func(a, b file) int {
		return cmp.Or(cmp.Compare(a.added, b.added), strings.Compare(a.path, b.path))
	})

	// Workers read and analyse files ahead of the indexing loop below, at
	// most 2*parallelism files ahead, so memory stays bounded.
	type loaded struct {
		e   *entry
		err error
	}
	slots := make([]chan loaded, len(files))
	for i := range slots {
		slots[i] = make(chan loaded, 1)
	}
	window := make(chan struct{}, 2*s.parallelism)
	work := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(work)
		for i := range files {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case work <- i:
			case <-stop:
				return
			}
		}
	})
	for range min(s.parallelism, len(files)) {
		wg.Go(func() {
			var a textsearch.Analyzer
			for i := range work {
				e, err := loadEntry(files[i].path, &a)
				slots[i] <- loaded{e, err}
			}
		})
	}
	defer wg.Wait()
	defer close(stop)

	for i, f := range files {
		l := <-slots[i]
		<-window
		err := l.err
		if err == nil {
			_, err = s.insert(l.e)
		}
		if err != nil {
			return fmt.Errorf("embedded: %s: %w", f.path, err)
		}
	}
	return nil
}

// loadEntry reads one document file.
func loadEntry(path string, a *textsearch.Analyzer) (*entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	added, doc, chunks, facts, err := decodeDocFile(data)
	if err != nil {
		return nil, err
	}
	if filepath.Base(path) != doc.ID+fileExt {
		return nil, fmt.Errorf("%w: holds document %q", ErrCorrupt, doc.ID)
	}
	e, err := newEntry(doc, chunks, facts, a)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	e.doc.added = added
	return e, nil
}

// entry is a document ready to insert: validated, its embeddings
// normalised and its chunks analysed.
type entry struct {
	doc    *document
	chunks []chunk
	vecs   [][]float32
	text   textsearch.Batch // the chunks' texts, analysed
	dim    int              // 0 when no chunk has an embedding
}

// newEntry validates a document and prepares it for insertion.
func newEntry(doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact, a *textsearch.Analyzer) (*entry, error) {
	if !validID(doc.ID) {
		return nil, fmt.Errorf("document id %q: want 1 to 128 letters, digits, '-' or '_'", doc.ID)
	}
	e := &entry{
		doc:    &document{Document: *doc},
		chunks: make([]chunk, len(chunks)),
		vecs:   make([][]float32, len(chunks)),
	}
	e.doc.PeriodEnd, e.doc.Filed = date(doc.PeriodEnd), date(doc.Filed)
	e.doc.Entity.Symbols = slices.Clone(doc.Entity.Symbols)
	e.doc.Entity.Members = slices.Clone(doc.Entity.Members)
	seen := make(map[string]bool, len(chunks))
	nvec := 0
	for _, c := range chunks {
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("chunk %d of document %s has no id", c.Ordinal, doc.ID)
		case seen[c.ID]:
			return nil, fmt.Errorf("chunk id %s appears twice", c.ID)
		case c.DocumentID != "" && c.DocumentID != doc.ID:
			return nil, fmt.Errorf("chunk %s belongs to document %s, not %s", c.ID, c.DocumentID, doc.ID)
		case c.Start < 0 || c.End < c.Start:
			return nil, fmt.Errorf("chunk %s has span [%d,%d)", c.ID, c.Start, c.End)
		}
		seen[c.ID] = true
		if c.Embedding == nil {
			continue
		}
		if e.dim == 0 {
			e.dim = len(c.Embedding)
		}
		if len(c.Embedding) != e.dim || e.dim == 0 {
			return nil, fmt.Errorf("chunk %s embedding has %d dimensions, others %d", c.ID, len(c.Embedding), e.dim)
		}
		nvec++
	}
	block := make([]float32, nvec*e.dim)
	for i, c := range chunks {
		e.chunks[i] = chunk{id: c.ID, section: c.Section, page: c.Page, start: c.Start, end: c.End, text: c.Text}
		if c.Embedding != nil {
			v := block[:e.dim:e.dim]
			block = block[e.dim:]
			if err := normalize(v, c.Embedding); err != nil {
				return nil, fmt.Errorf("chunk %s embedding: %w", c.ID, err)
			}
			e.vecs[i] = v
		}
		e.text.Add(a, c.Text)
	}
	e.doc.facts = make([]corpus.Fact, len(facts))
	for i, f := range facts {
		if f.DocumentID != "" && f.DocumentID != doc.ID {
			return nil, fmt.Errorf("fact %d (%s) belongs to document %s, not %s", i, f.Concept, f.DocumentID, doc.ID)
		}
		f.DocumentID = doc.ID
		f.PeriodStart, f.PeriodEnd = date(f.PeriodStart), date(f.PeriodEnd)
		f.Dimensions = maps.Clone(f.Dimensions)
		if f.Kind == "" {
			f.Kind = corpus.FactXBRL
		}
		e.doc.facts[i] = f
	}
	return e, nil
}

// validID reports whether a document id is safe as a file name.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// normalize writes v scaled to unit length into dst. A zero vector stays
// zero (its similarity to anything is 0).
func normalize(dst, v []float32) error {
	var sum float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("not a finite vector")
		}
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		clear(dst)
		return nil
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		dst[i] = float32(float64(x) * inv)
	}
	return nil
}

// check reports why e cannot be inserted, if it cannot. Callers hold mu.
func (s *Store) check(e *entry) error {
	if s.closed {
		return ErrClosed
	}
	if e.dim != 0 && s.dim != 0 && e.dim != s.dim {
		return fmt.Errorf("embedded: document %s has %d-dimensional embeddings, the store %d", e.doc.ID, e.dim, s.dim)
	}
	for _, c := range e.chunks {
		if _, ok := s.chunkByID[c.id]; ok {
			return fmt.Errorf("embedded: chunk id %s of document %s is already stored", c.id, e.doc.ID)
		}
	}
	return nil
}

// insert adds a prepared document to memory; false when it is there
// already. Callers hold mu for writing.
func (s *Store) insert(e *entry) (bool, error) {
	if s.closed {
		return false, ErrClosed
	}
	if _, ok := s.byID[e.doc.ID]; ok {
		return false, nil
	}
	if err := s.check(e); err != nil {
		return false, err
	}
	if e.dim != 0 {
		s.dim = e.dim
	}
	d := e.doc
	d.lo = len(s.chunks)
	for i, c := range e.chunks {
		c.doc = len(s.docs)
		s.chunkByID[c.id] = len(s.chunks)
		s.chunks = append(s.chunks, c)
		s.vecs = append(s.vecs, e.vecs[i])
	}
	s.text.AddBatch(&e.text)
	d.hi = len(s.chunks)
	s.docs = append(s.docs, d)
	s.byID[d.ID] = d
	s.facts += len(d.facts)
	return true, nil
}

// AddDocument implements corpus.Store. The document is on disk, synced,
// before AddDocument returns true.
func (s *Store) AddDocument(ctx context.Context, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if doc == nil {
		return false, errors.New("embedded: AddDocument: nil document")
	}
	s.addMu.Lock()
	defer s.addMu.Unlock()

	s.mu.RLock()
	closed, exists := s.closed, s.byID[doc.ID] != nil
	s.mu.RUnlock()
	if closed {
		return false, ErrClosed
	}
	if exists {
		return false, nil
	}
	e, err := newEntry(doc, chunks, facts, &s.analyzer)
	if err != nil {
		return false, fmt.Errorf("embedded: AddDocument: %w", err)
	}
	s.mu.RLock()
	err = s.check(e)
	s.mu.RUnlock()
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}

	now := time.Now()
	data, err := encodeDocFile(now, doc, chunks, facts, e.dim)
	if err != nil {
		return false, fmt.Errorf("embedded: %w", err)
	}
	path := filepath.Join(s.docsDir, doc.ID+fileExt)
	if err := writeFileNoReplace(path, data); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("embedded: store document %s: %w", doc.ID, err)
		}
		// Another process stored the document since Open: take its copy.
		other, err := loadEntry(path, &s.analyzer)
		if err != nil {
			return false, fmt.Errorf("embedded: %s: %w", path, err)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		_, err = s.insert(other)
		return false, err
	}
	e.doc.added = now.UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.insert(e)
}

// Document implements corpus.Store.
func (s *Store) Document(ctx context.Context, id string) (*corpus.Document, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	d, ok := s.byID[id]
	if !ok {
		return nil, corpus.ErrNotFound
	}
	doc := d.Document
	return &doc, nil
}

// FindFiling implements corpus.Store. Period ends compare as dates; when
// several documents match, the first added is returned.
func (s *Store) FindFiling(ctx context.Context, ticker, form string, periodEnd time.Time) (*corpus.Document, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, d := range s.docs {
		if d.Ticker == ticker && d.Form == form && sameDay(d.PeriodEnd, periodEnd) {
			doc := d.Document
			doc.Text = ""
			return &doc, nil
		}
	}
	return nil, corpus.ErrNotFound
}

// sameDay reports whether two times fall on the same calendar date, each
// in its own location, as dates compare in Postgres.
func sameDay(a, b time.Time) bool {
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// date returns the calendar date of t (in t's location) as UTC midnight,
// the zero time staying zero: the store keeps dates as the Postgres store's
// date columns do.
func date(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Documents implements corpus.Store; documents with the same ticker, period
// end and form are ordered by id.
func (s *Store) Documents(ctx context.Context) ([]corpus.Document, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]corpus.Document, len(s.docs))
	for i, d := range s.docs {
		out[i] = d.Document
		out[i].Text = ""
	}
	slices.SortFunc(out, func(a, b corpus.Document) int {
		return cmp.Or(strings.Compare(a.Ticker, b.Ticker), a.PeriodEnd.Compare(b.PeriodEnd),
			strings.Compare(a.Form, b.Form), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Chunks implements corpus.Store. An id asked twice is returned twice.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]corpus.SearchResult, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := make([]corpus.SearchResult, 0, len(ids))
	for _, id := range ids {
		if i, ok := s.chunkByID[id]; ok {
			out = append(out, s.result(i, 0))
		}
	}
	return out, nil
}

// result returns chunk i as a search result. Callers hold mu.
func (s *Store) result(i int, score float64) corpus.SearchResult {
	c := &s.chunks[i]
	d := s.docs[c.doc]
	return corpus.SearchResult{
		ChunkID: c.id, DocumentID: d.ID, Ticker: d.Ticker, Company: d.Company, Form: d.Form,
		FiscalYear: d.FiscalYear, PeriodEnd: d.PeriodEnd, Section: c.section, Page: c.page,
		Start: c.start, End: c.end, Score: score, Text: c.text,
	}
}

// matchingDocs reports, for each stored document, whether f's document
// fields admit it. Callers hold mu.
func (s *Store) matchingDocs(f *corpus.Filter) []bool {
	ok := make([]bool, len(s.docs))
	for i, d := range s.docs {
		ok[i] = (len(f.Tickers) == 0 || slices.Contains(f.Tickers, d.Ticker)) &&
			(f.Form == "" || d.Form == f.Form) &&
			(len(f.FiscalYears) == 0 || slices.Contains(f.FiscalYears, d.FiscalYear))
	}
	return ok
}

// FullTextSearch implements corpus.Store with package textsearch. The
// query is read as Postgres' websearch_to_tsquery('english', query) reads
// it, and the OR reading of the fallback keeps negations and phrases, as in
// the Postgres store; a query that requires no word ("-tariff") finds
// nothing. Matches are ranked by BM25 rather than ts_rank, so scores
// differ from the Postgres store's while the chunks matched are the same.
func (s *Store) FullTextSearch(ctx context.Context, query string, f corpus.Filter, k int) ([]corpus.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := textsearch.Parse(query)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	if q.Empty() || k <= 0 {
		return nil, nil
	}
	docOK := s.matchingDocs(&f)
	hits := s.text.Search(q, k, func(i int) bool {
		c := &s.chunks[i]
		return docOK[c.doc] && (f.Section == "" || c.section == f.Section)
	})
	out := make([]corpus.SearchResult, len(hits))
	for i, h := range hits {
		out[i] = s.result(h.Doc, h.Score)
	}
	return out, nil
}

// FactLabels implements corpus.FactLabeler.
func (s *Store) FactLabels(ctx context.Context, documentID string) ([]corpus.FactLabel, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []corpus.FactLabel
	if documentID == "" {
		seen := map[string]bool{}
		for _, d := range s.docs {
			for _, f := range d.facts {
				if l := corpus.PartLabel(f.Label, f.Dimensions[corpus.TablePartAxis]); l != "" && !seen[l] {
					seen[l] = true
					out = append(out, corpus.FactLabel{Start: -1, Label: l})
				}
			}
		}
		return out, nil
	}
	d, ok := s.byID[documentID]
	if !ok {
		return nil, nil
	}
	type labelled struct {
		corpus.FactLabel
		part bool
	}
	var ls []labelled
	for _, f := range d.facts {
		if l := corpus.PartLabel(f.Label, f.Dimensions[corpus.TablePartAxis]); l != "" && f.Start >= 0 {
			ls = append(ls, labelled{corpus.FactLabel{Start: f.Start, Label: l}, f.Dimensions[corpus.TablePartAxis] != ""})
		}
	}
	slices.SortStableFunc(ls, func(a, b labelled) int { return a.Start - b.Start })
	parts := make([]bool, len(ls))
	for i, l := range ls {
		out, parts[i] = append(out, l.FactLabel), l.part
	}
	return corpus.PrintedLabels(out, parts), nil
}

// ConceptLabels implements corpus.ConceptLabeler.
func (s *Store) ConceptLabels(ctx context.Context) ([]corpus.ConceptLabel, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []corpus.ConceptLabel
	seen := map[corpus.ConceptLabel]bool{}
	for _, d := range s.docs {
		for _, f := range d.facts {
			l := corpus.ConceptLabel{Ticker: d.Ticker, Concept: f.Concept, Label: f.Label}
			if l.Concept != "" && l.Label != "" && len(f.Dimensions) == 0 && f.Kind != corpus.FactTable && !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// Facts implements corpus.Store: documents in id order, each one's facts in
// the order they were added.
func (s *Store) Facts(ctx context.Context, f corpus.FactFilter) ([]corpus.Fact, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var docs []*document
	if f.DocumentID != "" {
		if d, ok := s.byID[f.DocumentID]; ok {
			docs = append(docs, d)
		}
	} else {
		docs = slices.Clone(s.docs)
		slices.SortFunc(docs, func(a, b *document) int { return strings.Compare(a.ID, b.ID) })
	}
	var out []corpus.Fact
	for _, d := range docs {
		if f.Ticker != "" && d.Ticker != f.Ticker {
			continue
		}
		for _, fact := range d.facts {
			if f.Limit > 0 && len(out) == f.Limit {
				return out, nil
			}
			if (f.Concept == "" || fact.Concept == f.Concept) &&
				(f.Kind == "" || fact.Kind == f.Kind) && (f.Label == "" || fact.Label == f.Label) &&
				(f.Member == "" || hasMember(fact.Dimensions, f.Member)) &&
				(f.PeriodEnd.IsZero() || sameDay(fact.PeriodEnd, f.PeriodEnd)) {
				fact.Dimensions = maps.Clone(fact.Dimensions)
				out = append(out, fact)
			}
		}
	}
	return out, nil
}

func hasMember(dims map[string]string, member string) bool {
	for _, m := range dims {
		if m == member {
			return true
		}
	}
	return false
}

// Stats implements corpus.Store. Embedders leaves out the empty name of
// documents stored without an embedder.
func (s *Store) Stats(ctx context.Context) (corpus.StoreStats, error) {
	unlock, err := s.rlock(ctx)
	if err != nil {
		return corpus.StoreStats{}, err
	}
	defer unlock()
	st := corpus.StoreStats{Documents: len(s.docs), Chunks: len(s.chunks), Facts: s.facts}
	for _, d := range s.docs {
		if d.Embedder != "" && !slices.Contains(st.Embedders, d.Embedder) {
			st.Embedders = append(st.Embedders, d.Embedder)
		}
	}
	slices.Sort(st.Embedders)
	return st, nil
}

// Close implements corpus.Store. It waits for an AddDocument in progress.
// Everything is on disk already, so Close only releases memory; closing
// twice is harmless.
func (s *Store) Close() error {
	s.addMu.Lock()
	defer s.addMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.docs, s.byID, s.chunks, s.vecs, s.chunkByID = nil, nil, nil, nil, nil
	s.text = textsearch.Index{}
	return nil
}

var _ corpus.Store = (*Store)(nil)

// rlock read-locks an open store for a read that ctx still allows; the
// caller defers the returned unlock.
func (s *Store) rlock(ctx context.Context) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, ErrClosed
	}
	return s.mu.RUnlock, nil
}
