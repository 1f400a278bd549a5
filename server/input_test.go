package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTwoAuthorizationHeaders: a request with two Authorization headers is
// refused, whichever of them holds a valid key.
func TestTwoAuthorizationHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	for _, keys := range [][]string{{h.acmeKey, h.otherKey}, {h.acmeKey, "rk_nothing"}, {"Bearer junk", h.acmeKey}} {
		req, _ := http.NewRequest("POST", h.http.URL+"/v1/search", strings.NewReader(`{"query": "margin"}`))
		req.Header.Set("Content-Type", "application/json")
		for _, k := range keys {
			if !strings.HasPrefix(k, "Bearer ") {
				k = "Bearer " + k
			}
			req.Header.Add("Authorization", k)
		}
		resp, err := h.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("two Authorization headers = %d, want 400 or 401\n%s", resp.StatusCode, body)
		}
		assertNoInternals(t, body)
	}
}

// TestIdempotentReplayEchoesTheAdmittedRun: replaying an idempotency key
// with another body answers the run the key admitted, as it was admitted,
// and nothing of the new body.
func TestIdempotentReplayEchoesTheAdmittedRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules", "idempotency_key": "k-1"})
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": "Something else entirely about BOLT", "mode": "baseline", "idempotency_key": "k-1"})
	if r.code != http.StatusAccepted || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay = %d %v\n%s", r.code, r.header, r.body)
	}
	m := r.json(t)
	if m["run_id"] != id || m["mode"] != "rules" {
		t.Errorf("replay answered %v, want run %s in mode rules", m, id)
	}
	if strings.Contains(string(r.body), "baseline") || strings.Contains(string(r.body), "BOLT") {
		t.Errorf("replay echoes the new body: %s", r.body)
	}
}

// TestSlowBodyNamesNoSocket: a body that does not arrive within the read
// timeout is a 400 that says so, and names no address of either end.
func TestSlowBodyNamesNoSocket(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	srv, err := New(h.pool, &Config{ReadTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/runs HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"question\": \"gross", h.acmeKey)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "did not arrive in time") {
		t.Errorf("slow body = %d\n%s", resp.StatusCode, body)
	}
	local, remote := ln.Addr().String(), conn.LocalAddr().String()
	for _, leak := range []string{local, remote, "127.0.0.1", "i/o timeout", "tcp"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("the answer names %q: %s", leak, body)
		}
	}
}
