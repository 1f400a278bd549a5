package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// Server-Sent Events of GET /v1/runs/{id}/events:
//
//	event: progress  one entry of the run's event log (ledger.Event JSON), id: its seq
//	event: result    the run's result, the JSON of GET /v1/runs/{id} once it is done; the stream then ends
//
// A stream also ends when the server shuts down or the stream reaches its
// longest duration; the client reconnects with Last-Event-ID and the
// stream resumes after that event.
const (
	sseProgress = "progress"
	sseResult   = "result"
)

// finishGrace is how long a stream waits, once the run has its verdict,
// for the answer and the last progress entry that follow it.
const finishGrace = 3 * time.Second

func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	led, run, ok := s.requestedRun(w, r)
	if !ok {
		return
	}
	id := run.ID
	ri := info(r.Context())
	ri.runID, ri.stream = id, true
	var after int64
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			s.writeFieldError(w, r, badField("Last-Event-ID", "want the id (a sequence number) of the last event received"))
			return
		}
		after = n
	}

	release, ok := s.streams.acquire(principalOf(r.Context()).keyHash, s.cfg.MaxStreamsPerKey)
	if !ok {
		s.writeLimit(w, r, &LimitError{Limit: "streams", RetryAfter: 5 * time.Second,
			Message: fmt.Sprintf("stream limit: this key may hold %d event streams open at once; close one, or poll GET /v1/runs/{id}", s.cfg.MaxStreamsPerKey)})
		return
	}
	defer release()

	rc := http.NewResponseController(w)
	// The server's read and write timeouts do not fit a stream, which has
	// its own; a read deadline left in place would end it when it passes.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: %d\n\n", max(s.cfg.PollInterval.Milliseconds()*4, 1000))
	if err := rc.Flush(); err != nil {
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.StreamTimeout)
	defer cancel()
	st := &stream{s: s, w: w, rc: rc, led: led, tenant: principalOf(r.Context()).tenant.ID, id: id, after: after}
	if err := st.run(ctx); err != nil && ctx.Err() == nil {
		// The headers are sent: the cause goes to the log, and the client
		// sees the stream end and reconnects.
		s.log.Error("event stream failed", "request_id", ri.id, "tenant", principalOf(r.Context()).tenant.ID, "run_id", id, "error", err.Error())
	}
}

// stream follows one run's event log.
type stream struct {
	s      *Server
	w      io.Writer
	rc     *http.ResponseController
	led    runReader
	tenant string
	id     string
	after  int64 // seq of the last event sent

	answer      *ledger.Event
	finishedAt  time.Time // when the verdict was first seen
	sawFinished bool      // the "finished" progress entry was sent
}

// run sends the run's events as they are recorded. It reads the ledger
// when the server's one poller (runWatch) says the run changed, not on a
// timer of its own, so an open stream costs no query while its run is
// quiet.
func (st *stream) run(ctx context.Context) error {
	changed, stop := st.s.watch.watch(st.tenant, st.id)
	defer stop()
	beat := time.NewTicker(st.s.cfg.Heartbeat)
	defer beat.Stop()
	var grace <-chan time.Time // once the verdict is seen: when to stop waiting for the answer
	for {
		done, err := st.step(ctx)
		if err != nil || done {
			return err
		}
		if grace == nil && !st.finishedAt.IsZero() {
			grace = time.After(time.Until(st.finishedAt.Add(finishGrace)))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-st.s.closing:
			return nil
		case <-beat.C:
			if _, err := io.WriteString(st.w, ": keep-alive\n\n"); err != nil {
				return nil
			}
			if err := st.rc.Flush(); err != nil {
				return nil
			}
		case <-changed:
		case <-grace:
			grace = make(chan time.Time) // waited: step says what is left to send
		}
	}
}

// step sends the events recorded since the last step and reports whether
// the stream is done: the run has its verdict and the result was sent.
func (st *stream) step(ctx context.Context) (bool, error) {
	// The run's status first, then its events: a verdict seen here has
	// its events (all but the answer and the last entry, which follow it)
	// in the read below.
	run, err := st.led.Run(ctx, st.id)
	if err != nil {
		return false, err
	}
	events, err := st.led.Events(ctx, st.id)
	if err != nil {
		return false, err
	}
	sent := false
	for i := range events {
		ev := &events[i]
		if ev.Seq <= st.after {
			continue
		}
		st.after = ev.Seq
		if ev.Kind == executor.EventAnswer {
			st.answer = ev
			continue
		}
		if ev.Kind == "finished" {
			st.sawFinished = true
		}
		if err := st.send(sseProgress, strconv.FormatInt(ev.Seq, 10), ev); err != nil {
			return true, nil // the client went away
		}
		sent = true
	}
	if sent {
		if err := st.rc.Flush(); err != nil {
			return true, nil
		}
	}
	if !run.Status.Terminal() {
		return false, nil
	}
	if st.finishedAt.IsZero() {
		st.finishedAt = time.Now()
	}
	waited := time.Since(st.finishedAt) >= finishGrace
	switch {
	case st.answer != nil && (st.sawFinished || waited):
		var res executor.Result
		if err := json.Unmarshal(st.answer.Data, &res); err != nil {
			return true, fmt.Errorf("read the recorded answer: %w", err)
		}
		return true, st.sendFinal(&res)
	case run.Status == ledger.StatusFailed || waited:
		f := run.Finished
		msg := "the run stopped on an error before it could answer; its ledger records where"
		if run.Status != ledger.StatusFailed {
			msg = "the run has its verdict but no recorded answer; its ledger holds what it gathered"
		}
		return true, st.sendFinal(&runView{
			RunID: run.ID, Status: string(run.Status), Mode: run.Mode, Question: run.Question, Created: run.Created, Finished: &f,
			Message: msg, Links: linksOf(run.ID),
		})
	}
	return false, nil
}

func (st *stream) sendFinal(v any) error {
	if err := st.send(sseResult, "", v); err != nil {
		return nil
	}
	_ = st.rc.Flush()
	return nil
}

// send writes one event; data is JSON on one line, as SSE requires.
func (st *stream) send(event, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if id != "" {
		if _, err := fmt.Fprintf(st.w, "id: %s\n", id); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", event, data)
	return err
}
