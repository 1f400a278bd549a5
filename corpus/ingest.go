package corpus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// IngestOpts configures an ingest. The zero value is valid.
type IngestOpts struct {
	Chunk       ChunkOpts
	Concurrency int       // files read and embedded at once; 0 means 4
	Progress    io.Writer // progress lines; nil means none
}

// IngestOutcome says what happened to one source.
type IngestOutcome string

// Outcomes of ingesting one source.
const (
	Added     IngestOutcome = "added"     // stored now
	Unchanged IngestOutcome = "unchanged" // the same canonical text was already stored
	Duplicate IngestOutcome = "duplicate" // the same filing is stored from another source
	Failed    IngestOutcome = "failed"    // see Err; nothing of it was stored
)

// IngestResult is the outcome for one source.
type IngestResult struct {
	Entry      ManifestEntry
	Outcome    IngestOutcome
	DocumentID string
	KeptID     string // for Duplicate: the stored document of the same filing
	KeptSource string // for Duplicate: where the stored document came from
	Bytes      int64  // source size
	Chunks     int
	Facts      int
	Pages      int
	Err        error
}

// IngestReport sums up an ingest.
type IngestReport struct {
	Results    []IngestResult
	Documents  int // added
	Chunks     int // added
	Facts      int // added
	Unchanged  int
	Duplicates int
	Failed     int
	Bytes      int64 // source bytes read
	Elapsed    time.Duration
}

// Err joins the errors of the failed sources, or returns nil.
func (r *IngestReport) Err() error {
	var errs []error
	for _, res := range r.Results {
		if res.Err != nil {
			errs = append(errs, res.Err)
		}
	}
	return errors.Join(errs...)
}

// Ingester reads, chunks, embeds and stores filings.
type Ingester struct {
	store    Store
	embedder Embedder
}

// NewIngester returns an ingester writing to store and embedding with embedder.
func NewIngester(store Store, embedder Embedder) (*Ingester, error) {
	if store == nil || embedder == nil {
		return nil, errors.New("corpus: ingester needs a store and an embedder")
	}
	if embedder.Dimensions() != EmbeddingDim {
		return nil, fmt.Errorf("corpus: embedder %s makes %d-dimensional vectors; the stores hold %d", embedder.Name(), embedder.Dimensions(), EmbeddingDim)
	}
	return &Ingester{store: store, embedder: embedder}, nil
}

// prepared is a source read, chunked and embedded, ready to store.
type prepared struct {
	doc    *Document
	chunks []Chunk
	facts  []Fact
	bytes  int64
	err    error
}

// Ingest ingests entries: sources are read, chunked and embedded
// concurrently, then stored one by one in entry order, each document in one
// transaction. A failing source is reported in its result and does not stop
// the others. The error is non-nil only when the ingest as a whole could
// not go on (the store failed, or ctx ended).
func (in *Ingester) Ingest(ctx context.Context, entries []ManifestEntry, opts *IngestOpts) (*IngestReport, error) {
	if opts == nil {
		opts = &IngestOpts{}
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 4
	}
	start := time.Now()
	if err := in.checkEmbedder(ctx); err != nil {
		return nil, err
	}
	ready := make([]chan prepared, len(entries))
	for i := range ready {
		ready[i] = make(chan prepared, 1)
	}
	// Sources are prepared concurrently but stored in order; a slot is
	// held from the start of preparing until the source is stored, so at
	// most conc prepared documents wait in memory.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, conc)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i, e := range entries {
			select {
			case slots <- struct{}{}:
			case <-pctx.Done():
				ready[i] <- prepared{err: pctx.Err()}
				continue
			}
			wg.Go(func() { ready[i] <- in.prepare(pctx, e, &opts.Chunk) })
		}
	})

	report := &IngestReport{}
	progress := newProgress(opts.Progress, len(entries))
	var storeErr error
	for i, e := range entries {
		p := <-ready[i]
		if storeErr = ctx.Err(); storeErr != nil {
			break
		}
		res := in.store1(ctx, e, p)
		<-slots
		if res.Err != nil && res.Outcome != Failed { // the store itself failed
			storeErr = res.Err
			break
		}
		report.add(res)
		progress.done(res, report)
	}
	cancel() // sources not stored yet are abandoned
	wg.Wait()
	if report.Documents > 0 && storeErr == nil {
		// A store with a query planner plans from statistics; after a bulk
		// load they are stale until refreshed (on Postgres, HNSW search
		// ran 20 times slower before ANALYZE).
		if r, ok := in.store.(interface{ RefreshStats(context.Context) error }); ok {
			if err := r.RefreshStats(ctx); err != nil {
				storeErr = fmt.Errorf("refreshing the store's statistics: %w", err)
			}
		}
	}
	report.Elapsed = time.Since(start)
	return report, storeErr
}

// checkEmbedder refuses to mix embedders in one store: vectors of
// different embedders cannot be compared.
func (in *Ingester) checkEmbedder(ctx context.Context) error {
	st, err := in.store.Stats(ctx)
	if err != nil {
		return err
	}
	for _, e := range st.Embedders {
		if e != in.embedder.Name() {
			return fmt.Errorf("%w: store has %q, ingest uses %q; ingest into a fresh store or use the same embedder",
				ErrEmbedderMismatch, e, in.embedder.Name())
		}
	}
	return nil
}

func (r *IngestReport) add(res IngestResult) {
	r.Results = append(r.Results, res)
	r.Bytes += res.Bytes
	switch res.Outcome {
	case Added:
		r.Documents++
		r.Chunks += res.Chunks
		r.Facts += res.Facts
	case Unchanged:
		r.Unchanged++
	case Duplicate:
		r.Duplicates++
	case Failed:
		r.Failed++
	}
}

// store1 stores one prepared source. A returned result whose Err is set
// and whose Outcome is not Failed means the store failed.
func (in *Ingester) store1(ctx context.Context, e ManifestEntry, p prepared) IngestResult {
	res := IngestResult{Entry: e, Bytes: p.bytes}
	if p.err != nil {
		res.Outcome, res.Err = Failed, fmt.Errorf("%s: %w", e.Where(), p.err)
		return res
	}
	res.DocumentID, res.Chunks, res.Facts, res.Pages = p.doc.ID, len(p.chunks), len(p.facts), p.doc.Pages
	if stored, err := in.store.Document(ctx, p.doc.ID); err == nil {
		// The same canonical text: unchanged when it came from this
		// source, a duplicate when another source (the same filing as
		// text and as PDF, say) brought it.
		res.Outcome = Unchanged
		if stored.Source != p.doc.Source {
			res.Outcome, res.KeptID, res.KeptSource = Duplicate, stored.ID, stored.Source
		}
		return res
	} else if !errors.Is(err, ErrNotFound) {
		res.Err = err
		return res
	}
	kept, err := in.store.FindFiling(ctx, e.Ticker, e.Form, e.PeriodEnd)
	switch {
	case err == nil:
		res.Outcome, res.KeptID, res.KeptSource = Duplicate, kept.ID, kept.Source
		return res
	case !errors.Is(err, ErrNotFound):
		res.Err = err
		return res
	}
	added, err := in.store.AddDocument(ctx, p.doc, p.chunks, p.facts)
	if err != nil {
		res.Err = err
		return res
	}
	res.Outcome = Added
	if !added { // stored meanwhile by another process
		res.Outcome = Unchanged
	}
	return res
}

// prepare reads, parses, chunks and embeds one source.
func (in *Ingester) prepare(ctx context.Context, e ManifestEntry, chunkOpts *ChunkOpts) (p prepared) {
	defer func() {
		if r := recover(); r != nil {
			p = prepared{err: fmt.Errorf("internal error while reading %s: %v", e.Path, r)}
		}
	}()
	if err := ctx.Err(); err != nil {
		return prepared{err: err}
	}
	info, err := os.Stat(e.Path)
	if err != nil {
		return prepared{err: fmt.Errorf("cannot read %s: %w", e.Path, errors.Unwrap(err))}
	}
	if info.IsDir() {
		return prepared{err: fmt.Errorf("%s is a directory, not a filing", e.Path)}
	}
	format, err := DetectFormat(e.Path)
	if err != nil {
		return prepared{err: err}
	}
	source := e.Source
	if source == "" {
		if source, err = filepath.Abs(e.Path); err != nil {
			source = e.Path
		}
	}
	doc := &Document{
		Ticker: e.Ticker, Company: e.Company, Form: e.Form, FiscalYear: e.FiscalYear,
		PeriodEnd: e.PeriodEnd, Filed: e.Filed, Source: source, Format: format,
		Embedder: in.embedder.Name(),
	}
	var facts []Fact
	switch format {
	case FormatHTML:
		f, err := os.Open(e.Path)
		if err != nil {
			return prepared{err: err}
		}
		parsed, err := ParseHTML(f)
		f.Close()
		if err != nil {
			return prepared{err: err}
		}
		doc.Text, facts, doc.Entity = parsed.Text, parsed.Facts, parsed.Entity
		doc.Pages = pageCount(doc.Text)
	case FormatText:
		f, err := os.Open(e.Path)
		if err != nil {
			return prepared{err: err}
		}
		doc.Text, doc.Pages, err = ParseText(f)
		f.Close()
		if err != nil {
			return prepared{err: err}
		}
	case FormatPDF:
		if doc.Text, doc.Pages, err = ParsePDF(ctx, e.Path); err != nil {
			return prepared{err: err}
		}
	}
	if format == FormatHTML {
		// Tables the filing left untagged (KPIs in MD&A) add their cells.
		facts = append(facts, untaggedTableFacts(tableFacts(doc, facts), facts)...)
	} else {
		// Text and PDF filings carry no tags: their financial tables are
		// read into table facts instead.
		facts = TableFacts(doc)
	}
	if err := checkStorable(doc, facts); err != nil {
		return prepared{err: fmt.Errorf("%s: %w", e.Path, err)}
	}
	doc.ID = DocumentID(doc.Text)
	for i := range facts {
		facts[i].DocumentID = doc.ID
	}
	chunks := SplitChunks(doc.ID, doc.Text, chunkOpts)
	if len(chunks) == 0 {
		return prepared{err: fmt.Errorf("%s has no text to index", e.Path)}
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	vecs, err := in.embedder.Embed(ctx, texts)
	if err != nil {
		return prepared{err: fmt.Errorf("embedding %s: %w", e.Path, err)}
	}
	if len(vecs) != len(chunks) {
		return prepared{err: fmt.Errorf("embedding %s: the embedder returned %d vectors for %d chunks", e.Path, len(vecs), len(chunks))}
	}
	for i := range chunks {
		chunks[i].Embedding = vecs[i]
	}
	return prepared{doc: doc, chunks: chunks, facts: facts, bytes: info.Size()}
}

// untaggedTableFacts returns the table facts whose printed cell no tagged
// fact's span overlaps: a tagged fact always wins, and no figure is stored
// twice.
func untaggedTableFacts(table, tagged []Fact) []Fact {
	if len(table) == 0 {
		return nil
	}
	// The tagged spans, sorted and merged into disjoint intervals.
	var spans [][2]int
	for _, f := range tagged {
		if f.Start >= 0 && f.End > f.Start {
			spans = append(spans, [2]int{f.Start, f.End})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && s[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], s[1])
			continue
		}
		merged = append(merged, s)
	}
	var out []Fact
	for _, f := range table {
		// The first interval ending after the cell starts overlaps it
		// when it starts before the cell ends.
		i, _ := slices.BinarySearchFunc(merged, f.Start, func(s [2]int, start int) int { return cmp.Compare(s[1], start+1) })
		if i < len(merged) && merged[i][0] < f.End {
			continue
		}
		out = append(out, f)
	}
	return out
}

// DetectFormat tells a source's format from its extension, checked against
// its first bytes.
func DetectFormat(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, err := readHead(f, 512)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	isPDF := strings.HasPrefix(string(head), "%PDF-")
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".htm", ".html", ".xhtml":
		if isPDF {
			return "", fmt.Errorf("%s is named %s but holds a PDF", path, ext)
		}
		return FormatHTML, nil
	case ".txt", ".text":
		if isPDF {
			return "", fmt.Errorf("%s is named %s but holds a PDF", path, ext)
		}
		return FormatText, nil
	case ".pdf":
		if !isPDF {
			return "", fmt.Errorf("%s is named .pdf but is not a PDF (no %%PDF- header): the file may be corrupt", path)
		}
		return FormatPDF, nil
	default:
		return "", fmt.Errorf("%s: unknown format %q (want .html, .htm, .txt or .pdf)", path, ext)
	}
}

// readHead reads up to n bytes from the start of r; a shorter file is not
// an error.
func readHead(r io.Reader, n int) ([]byte, error) {
	head := make([]byte, n)
	got, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return head[:got], nil
}

// progress prints one line per source and a rate.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	n     int
	start time.Time
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, start: time.Now()}
}

func (p *progress) done(res IngestResult, r *IngestReport) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	secs := time.Since(p.start).Seconds()
	what := string(res.Outcome)
	switch res.Outcome {
	case Added:
		what = fmt.Sprintf("added %d chunks, %d facts, %d pages", res.Chunks, res.Facts, res.Pages)
	case Duplicate:
		what = fmt.Sprintf("duplicate of %s (kept %s)", shortID(res.KeptID), res.KeptSource)
	case Unchanged:
		what = "unchanged (already stored)"
	case Failed:
		what = "FAILED: " + res.Err.Error()
	}
	fmt.Fprintf(p.w, "%s [%d/%d] %s %s %s: %s (%.1f MB/s, %.0f chunks/s)\n",
		time.Now().Format("15:04:05"), p.n, p.total, res.Entry.Ticker, res.Entry.Form,
		filepath.Base(res.Entry.Path), what, float64(r.Bytes)/1e6/secs, float64(r.Chunks)/secs)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// checkStorable refuses a document whose text or facts hold what no store
// keeps as text: a NUL byte (which Postgres refuses in any text column)
// or bytes that are not UTF-8. The file fails with this error; the others
// of the ingest go on.
func checkStorable(doc *Document, facts []Fact) error {
	check := func(what, s string) error {
		if i := strings.IndexByte(s, 0); i >= 0 {
			return fmt.Errorf("its %s holds a NUL byte (at byte %d), which a filing's text never does: the file is damaged or not a filing", what, i)
		}
		if !utf8.ValidString(s) {
			return fmt.Errorf("its %s holds bytes that are not UTF-8: the file is damaged or in another encoding", what)
		}
		return nil
	}
	if err := check("text", doc.Text); err != nil {
		return err
	}
	for _, f := range []struct{ what, s string }{{"registrant name", doc.Entity.Registrant}, {"CIK", doc.Entity.CIK}} {
		if err := check(f.what, f.s); err != nil {
			return err
		}
	}
	for _, f := range facts {
		for _, s := range []string{f.Concept, f.Label, f.Unit, f.Decimals, f.ContextID} {
			if err := check("tagged facts", s); err != nil {
				return err
			}
		}
		for k, v := range f.Dimensions {
			if err := check("tagged facts", k+v); err != nil {
				return err
			}
		}
	}
	return nil
}
