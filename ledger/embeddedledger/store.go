package embeddedledger

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ledgerline/research/ledger"
)

// DefaultTenant is the tenant of a store whose Config names none.
const DefaultTenant = "default"

// Config configures a Store. A nil *Config means the defaults.
type Config struct {
	// Tenant scopes every read and write; "" means DefaultTenant.
	Tenant string

	// Now is the clock for creation, finish and event times; nil means
	// time.Now. Times are kept to the microsecond, as in Postgres.
	Now func() time.Time
}

func (c *Config) validate() error {
	if c.Tenant != "" && !ledger.ValidName(c.Tenant) {
		return fmt.Errorf("embeddedledger: Config.Tenant %q is not 1-128 letters, digits, '.', '_' or '-'", c.Tenant)
	}
	return nil
}

// Store is the embedded ledger.Store for one tenant. It is safe for
// concurrent use, also by several processes sharing a directory (on Unix).
type Store struct {
	dir    string // <data dir>/ledger/<tenant>
	tenant string
	now    func() time.Time

	mu sync.Mutex
	// Guarded by mu:
	runs map[string]*runCache
}

// runCache is what this process has read of one run file.
type runCache struct {
	mu sync.Mutex // serialises this process's calls on the run
	// Guarded by mu:
	offset int64  // bytes of the file replayed into st
	st     *state // nil until read
}

var _ ledger.Store = (*Store)(nil)

// Open returns the store of cfg.Tenant in dataDir (its runs are under
// dataDir/ledger/<tenant>), creating nothing until a run is opened.
func Open(dataDir string, cfg *Config) (*Store, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if dataDir == "" {
		return nil, errors.New("embeddedledger: no data directory")
	}
	s := &Store{tenant: cfg.Tenant, now: cfg.Now, runs: map[string]*runCache{}}
	if s.tenant == "" {
		s.tenant = DefaultTenant
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.dir = filepath.Join(dataDir, "ledger", s.tenant)
	return s, nil
}

// Tenant returns the tenant the store reads and writes.
func (s *Store) Tenant() string { return s.tenant }

// Close releases nothing: files are open only during a call.
func (s *Store) Close() error { return nil }

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

func (s *Store) cache(runID string) *runCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.runs[runID]
	if c == nil {
		c = &runCache{}
		s.runs[runID] = c
	}
	return c
}

// access says how a call uses a run file.
type access int

const (
	read   access = iota // shared lock; the run must exist
	write                // exclusive lock; the run must exist
	create               // exclusive lock; the file is created when missing
)

// do runs fn on the run's current state under the file lock; the record fn
// returns (nil for none) is appended as one line and then applied.
func (s *Store) do(ctx context.Context, runID string, how access, fn func(st *state) (*record, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !ledger.ValidName(runID) {
		return fmt.Errorf("embeddedledger: run %q: %w", runID, ledger.ErrNotFound)
	}
	path := filepath.Join(s.dir, runID+".jsonl")
	flags := os.O_RDONLY
	switch how {
	case write:
		flags = os.O_RDWR | os.O_APPEND
	case create:
		flags = os.O_RDWR | os.O_APPEND | os.O_CREATE
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return fmt.Errorf("embeddedledger: %w", err)
		}
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("embeddedledger: run %s: %w", runID, ledger.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("embeddedledger: %w", err)
	}
	defer f.Close()
	if err := lockFile(f, how != read); err != nil {
		return fmt.Errorf("embeddedledger: lock %s: %w", path, err)
	}
	defer unlockFile(f)

	c := s.cache(runID)
	c.mu.Lock()
	defer c.mu.Unlock()
	torn, err := c.catchUp(f, path)
	if err != nil {
		return err
	}
	if c.st.run == nil && how != create {
		return fmt.Errorf("embeddedledger: run %s: %w", runID, ledger.ErrNotFound)
	}
	if c.st.run != nil && c.st.run.Tenant != s.tenant {
		return fmt.Errorf("embeddedledger: run %s: %w", runID, ledger.ErrNotFound)
	}
	rec, err := fn(c.st)
	if err != nil || rec == nil {
		return err
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("embeddedledger: %w", err)
	}
	line = append(line, '\n')
	if torn {
		// A writer crashed mid-line: its record never counted; cut it off.
		if err := f.Truncate(c.offset); err != nil {
			return fmt.Errorf("embeddedledger: %w", err)
		}
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("embeddedledger: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("embeddedledger: sync %s: %w", path, err)
	}
	if c.offset == 0 {
		if err := syncDir(s.dir); err != nil { // the file's name, new or not, is durable too
			return fmt.Errorf("embeddedledger: %w", err)
		}
	}
	if err := c.st.apply(rec); err != nil {
		// The state fn saw cannot take the record it built: a bug.
		c.st, c.offset = nil, 0
		return fmt.Errorf("embeddedledger: %s: %w", path, err)
	}
	c.offset += int64(len(line))
	return nil
}

// catchUp replays what was appended to the file since the cache last read
// it. torn reports bytes after the last complete line.
func (c *runCache) catchUp(f *os.File, path string) (torn bool, err error) {
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("embeddedledger: %w", err)
	}
	if c.st == nil || info.Size() < c.offset {
		c.st, c.offset = newState(), 0
	}
	if info.Size() == c.offset {
		return false, nil
	}
	buf := make([]byte, info.Size()-c.offset)
	if _, err := f.ReadAt(buf, c.offset); err != nil && err != io.EOF {
		return false, fmt.Errorf("embeddedledger: read %s: %w", path, err)
	}
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return len(buf) > 0, nil
		}
		var rec record
		if err := json.Unmarshal(buf[:i], &rec); err != nil {
			c.st, c.offset = nil, 0
			return false, fmt.Errorf("embeddedledger: %s: record after byte %d: %v: %w", path, c.offset, err, ledger.ErrCorrupt)
		}
		if err := c.st.apply(&rec); err != nil {
			c.st, c.offset = nil, 0
			return false, fmt.Errorf("embeddedledger: %s: record after byte %d: %v: %w", path, c.offset, err, ledger.ErrCorrupt)
		}
		c.offset += int64(i) + 1
		buf = buf[i+1:]
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// OpenRun creates the run or reopens the one with its id.
func (s *Store) OpenRun(ctx context.Context, r ledger.Run) (ledger.Run, bool, error) {
	if err := r.Validate(); err != nil {
		return ledger.Run{}, false, err
	}
	var out ledger.Run
	var resumed bool
	err := s.do(ctx, r.ID, create, func(st *state) (*record, error) {
		now := s.clock()
		rec := &record{}
		kind := ledger.EventRunResumed
		if resumed = st.run != nil; !resumed {
			kind = ledger.EventRunCreated
			run := ledger.Run{ID: r.ID, Tenant: s.tenant, Question: r.Question, Mode: r.Mode,
				Status: ledger.StatusRunning, CorpusSnapshot: r.CorpusSnapshot, Created: now}
			rec.Run = &run
			out = run
		} else {
			out = *st.run
		}
		st.nextEvent(rec, ledger.Event{At: now, Kind: kind, Subject: r.ID})
		return rec, nil
	})
	if err != nil {
		return ledger.Run{}, false, err
	}
	return out, resumed, nil
}

// Run returns the run without its records.
func (s *Store) Run(ctx context.Context, runID string) (ledger.Run, error) {
	var out ledger.Run
	err := s.do(ctx, runID, read, func(st *state) (*record, error) {
		out = *st.run
		return nil, nil
	})
	return out, err
}

// Runs returns the tenant's latest runs, newest first: every run file in
// the tenant's directory, whichever process recorded it. A file that holds
// no run yet, or one too damaged to read, is left out.
func (s *Store) Runs(ctx context.Context, limit int) ([]ledger.Run, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []ledger.Run{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("embeddedledger: %w", err)
	}
	runs := []ledger.Run{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || !ledger.ValidName(id) {
			continue
		}
		r, err := s.Run(ctx, id)
		switch {
		case errors.Is(err, ledger.ErrNotFound), errors.Is(err, ledger.ErrCorrupt):
			continue
		case err != nil:
			return nil, err
		}
		runs = append(runs, r)
	}
	slices.SortFunc(runs, func(a, b ledger.Run) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if limit > 0 && len(runs) > limit {
		runs = runs[:limit]
	}
	return runs, nil
}

// FinishRun sets a terminal status and the finish time.
func (s *Store) FinishRun(ctx context.Context, runID string, status ledger.RunStatus) error {
	if !status.Terminal() {
		return &ledger.ValidationError{Field: "status", Problem: fmt.Sprintf("%q is not a terminal run status", status)}
	}
	return s.do(ctx, runID, write, func(st *state) (*record, error) {
		now := s.clock()
		rec := &record{Finish: &finish{Status: status, At: now}}
		st.nextEvent(rec, ledger.Event{At: now, Kind: ledger.EventRunFinished, Subject: runID, Message: string(status)})
		return rec, nil
	})
}

// AddRequirements records the requirements whose ids are new.
func (s *Store) AddRequirements(ctx context.Context, runID string, reqs []ledger.Requirement) (int, error) {
	reqs = slices.Clone(reqs)
	if err := ledger.ValidateRequirements(reqs); err != nil {
		return 0, err
	}
	var added int
	err := s.do(ctx, runID, write, func(st *state) (*record, error) {
		rec := &record{}
		for _, q := range reqs {
			if _, ok := st.reqIdx[q.ID]; !ok {
				rec.Requirements = append(rec.Requirements, q)
			}
		}
		if added = len(rec.Requirements); added == 0 {
			return nil, nil
		}
		st.nextEvent(rec, ledger.Event{At: s.clock(), Kind: ledger.EventPlan, Message: fmt.Sprintf("%d requirements added", added)})
		return rec, nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// UpdateRequirement sets a requirement's status and links evidence to it.
func (s *Store) UpdateRequirement(ctx context.Context, runID, reqID string, status ledger.RequirementStatus, evidenceIDs []string) error {
	if !status.Valid() {
		return &ledger.ValidationError{Field: "status", Problem: fmt.Sprintf("%q is not pending, supported, missing or conflicting", status)}
	}
	return s.do(ctx, runID, write, func(st *state) (*record, error) {
		if _, ok := st.reqIdx[reqID]; !ok {
			return nil, fmt.Errorf("embeddedledger: requirement %s of run %s: %w", reqID, runID, ledger.ErrNotFound)
		}
		for _, id := range evidenceIDs {
			if _, ok := st.evIdx[id]; !ok {
				return nil, fmt.Errorf("embeddedledger: evidence %s of run %s: %w", id, runID, ledger.ErrNotFound)
			}
		}
		rec := &record{Update: &update{Requirement: reqID, Status: status, Evidence: slices.Clone(evidenceIDs)}}
		msg := "status " + string(status)
		if len(evidenceIDs) > 0 {
			msg += fmt.Sprintf(", %d evidence linked", len(evidenceIDs))
		}
		st.nextEvent(rec, ledger.Event{At: s.clock(), Kind: ledger.EventRequirement, Subject: reqID, Message: msg})
		return rec, nil
	})
}

// RecordToolResult records one tool call and what it returned as one line.
func (s *Store) RecordToolResult(ctx context.Context, runID string, in *ledger.ToolResult) (*ledger.RecordResult, error) {
	if in == nil {
		return nil, &ledger.ValidationError{Field: "result", Problem: "nil"}
	}
	res := &ledger.ToolResult{Call: in.Call, Evidence: slices.Clone(in.Evidence), Facts: slices.Clone(in.Facts)}
	if in.Search != nil {
		sr := *in.Search
		res.Search = &sr
	}
	if err := res.Validate(); err != nil {
		return nil, err
	}
	var out *ledger.RecordResult
	err := s.do(ctx, runID, write, func(st *state) (*record, error) {
		c := res.Call
		if st.callIdx[c.ID] {
			out = ledger.ReplayResult(res)
			return nil, nil
		}
		if c.RequirementID != "" {
			if _, ok := st.reqIdx[c.RequirementID]; !ok {
				return nil, fmt.Errorf("embeddedledger: tool call %s: requirement %s of run %s: %w", c.ID, c.RequirementID, runID, ledger.ErrNotFound)
			}
		}
		outcomes, fresh := ledger.Classify(res.Evidence, func(doc string) []ledger.Evidence { return st.byDoc[doc] })
		out = &ledger.RecordResult{Evidence: outcomes, NewEvidence: ledger.Count(outcomes, ledger.OutcomeNew)}
		call := c
		call.Arguments = slices.Clone(c.Arguments)
		rec := &record{Call: &call, Evidence: fresh}
		if c.RequirementID != "" && len(outcomes) > 0 {
			ids := make([]string, len(outcomes))
			for i, o := range outcomes {
				ids[i] = o.ID
			}
			rec.Link = &update{Requirement: c.RequirementID, Evidence: ids}
		}
		known := map[string]bool{}
		for _, e := range fresh {
			known[e.ID] = true
		}
		seen := map[string]bool{}
		for _, f := range res.Facts {
			if _, ok := st.evIdx[f.EvidenceID]; !ok && !known[f.EvidenceID] {
				return nil, fmt.Errorf("embeddedledger: fact %s: evidence %s of run %s: %w", f.ID, f.EvidenceID, runID, ledger.ErrNotFound)
			}
			if st.factIdx[f.ID] || seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			rec.Facts = append(rec.Facts, f)
		}
		out.NewFacts = len(rec.Facts)
		if res.Search != nil {
			sr := *res.Search
			sr.NewEvidence = out.NewEvidence
			rec.Search = &sr
		}
		st.nextEvent(rec, ledger.Event{At: s.clock(), Kind: ledger.EventToolCall, Subject: c.ID, Duration: c.Duration(),
			Message: ledger.ToolCallMessage(res, out)})
		return rec, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AddContradiction records a contradiction once.
func (s *Store) AddContradiction(ctx context.Context, runID string, c ledger.Contradiction) (ledger.Contradiction, bool, error) {
	c.EvidenceIDs = slices.Clone(c.EvidenceIDs)
	if err := c.Validate(); err != nil {
		return c, false, err
	}
	var added bool
	err := s.do(ctx, runID, write, func(st *state) (*record, error) {
		if _, ok := st.reqIdx[c.RequirementID]; !ok {
			return nil, fmt.Errorf("embeddedledger: requirement %s of run %s: %w", c.RequirementID, runID, ledger.ErrNotFound)
		}
		for _, id := range c.EvidenceIDs {
			if _, ok := st.evIdx[id]; !ok {
				return nil, fmt.Errorf("embeddedledger: contradiction %s: evidence %s of run %s: %w", c.ID, id, runID, ledger.ErrNotFound)
			}
		}
		if st.conIdx[c.ID] {
			return nil, nil
		}
		added = true
		cc := c
		rec := &record{Contradiction: &cc}
		st.nextEvent(rec, ledger.Event{At: s.clock(), Kind: ledger.EventContradiction, Subject: c.RequirementID, Message: c.ID + ": " + c.Difference})
		return rec, nil
	})
	if err != nil {
		return c, false, err
	}
	return c, added, nil
}

// AppendEvent appends a caller's event.
func (s *Store) AppendEvent(ctx context.Context, runID string, e ledger.Event) (ledger.Event, error) {
	if err := e.Validate(); err != nil {
		return e, err
	}
	e.Data = slices.Clone(e.Data)
	err := s.do(ctx, runID, write, func(st *state) (*record, error) {
		e.At = s.clock()
		rec := &record{}
		e = st.nextEvent(rec, e)
		return rec, nil
	})
	return e, err
}

// Events returns the run's event log in order.
func (s *Store) Events(ctx context.Context, runID string) ([]ledger.Event, error) {
	var evs []ledger.Event
	err := s.do(ctx, runID, read, func(st *state) (*record, error) {
		evs = slices.Clone(st.events)
		return nil, nil
	})
	return evs, err
}

// Load returns everything recorded for the run.
func (s *Store) Load(ctx context.Context, runID string) (*ledger.RunLedger, error) {
	var l *ledger.RunLedger
	err := s.do(ctx, runID, read, func(st *state) (*record, error) {
		l = st.ledger()
		return nil, nil
	})
	return l, err
}
