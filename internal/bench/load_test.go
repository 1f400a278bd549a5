package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestReadResult(t *testing.T) {
	tests := []struct {
		name, stream, last   string
		wantStatus, wantLast string
	}{
		{"result after progress",
			"id: 1\nevent: progress\ndata: {\"kind\":\"plan\"}\n\nid: 2\nevent: result\ndata: {\"status\":\"supported\",\n" + "data: \"answer\":\"x\"}\n\n",
			"", "supported", "2"},
		{"ends before the result", "id: 7\nevent: progress\ndata: {}\n\n", "3", "", "7"},
		{"nothing read keeps the last id", "", "5", "", "5"},
		{"a result not yet ended by a blank line", "id: 9\nevent: result\ndata: {\"status\":\"partial\"}\n", "", "", "9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, last, err := readResult(strings.NewReader(tt.stream), tt.last)
			if err != nil || status != tt.wantStatus || last != tt.wantLast {
				t.Errorf("readResult = %q, %q, %v; want %q, %q", status, last, err, tt.wantStatus, tt.wantLast)
			}
		})
	}
	if _, _, err := readResult(strings.NewReader("event: result\ndata: {not json\n\n"), ""); err == nil {
		t.Errorf("a result that is not JSON was read")
	}
}

func TestLoadReportWriteText(t *testing.T) {
	rep := &LoadReport{Clients: 3, Workers: 2, Submitted: 6, Accepted: 6, Completed: 5, Errors: 1,
		ErrorKinds: map[string]int{"follow: timeout": 1}, WallMS: 2500, RunsPerSec: 2,
		Submit:   Summarize([]time.Duration{2 * time.Millisecond, 4 * time.Millisecond}),
		Run:      Summarize([]time.Duration{1250 * time.Microsecond}),
		Statuses: map[string]int{"supported": 3, "partial": 2}, Settled: "0"}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Load test: rules mode, 3 clients, 2 worker slots, loopback",
		"submitted 6, accepted 6, verdicts 5, errors 1, lost 0, duplicate run ids 0",
		"errors by kind: follow: timeout: 1",
		"wall 2.5 s (first submission to last verdict), 2.00 runs/s",
		"| submit (POST /v1/runs) | 2 | 2.0 | 4.0 | 4.0 | 4.0 |",
		"| run (submit to verdict) | 1 | 1.2 | 1.2 | 1.2 | 1.2 |",
		"verdicts: partial 2, supported 3",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRunLoadRefusesBadOpts(t *testing.T) {
	for _, opts := range []*LoadOpts{{Clients: -1}, {Runs: -1}, {Workers: -2}, {Duration: -time.Second}, {Drain: -time.Second}} {
		if _, err := RunLoad(context.Background(), nil, nil, opts, nil); err == nil || !strings.Contains(err.Error(), "LoadOpts.") {
			t.Errorf("RunLoad(%+v) = %v, want an error naming the field", opts, err)
		}
	}
	o, err := loadDefaults(nil)
	if err != nil || o.Clients != 8 || o.Runs != 200 || o.Workers != 4 || o.Duration != 2*time.Minute || o.Drain != 2*time.Minute || o.Embedder == nil {
		t.Errorf("defaults = %+v, %v", o, err)
	}
}

// A client that finds its key at the server's limit of open event streams
// (429) waits and opens the stream again, counting the wait, rather than
// giving the run up.
func TestFollowWaitsForAStream(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			http.Error(w, "stream limit", http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\nevent: result\ndata: {\"status\":\"supported\"}\n\n")
	}))
	defer srv.Close()
	lt := &loadTest{base: srv.URL, key: "k", client: srv.Client(), errs: map[string]int{}, statuses: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	status, err := lt.follow(ctx, "run-1")
	if err != nil || status != "supported" {
		t.Fatalf("follow = %q, %v; want supported", status, err)
	}
	if lt.streamWaits != 2 {
		t.Errorf("stream waits = %d, want 2", lt.streamWaits)
	}
}
