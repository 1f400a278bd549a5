// Command roundtrips counts the round trips and transactions a program
// makes to Postgres. It listens on a loopback port, forwards every
// connection to the real server, reads the protocol in both directions, and
// runs the command after "--" with "{addr}" in its arguments replaced by the
// port's address. When the command exits it prints, per operation of the
// ledger, the budget and the corpus, how many transactions (explicit BEGIN
// ... COMMIT blocks, implicit ones of a pipeline, and single statements)
// and how many round trips they took.
//
// A round trip is a flight of client messages sent after the server last
// said it was ready (ReadyForQuery): the client then waits for the server,
// whatever the number of statements in the flight. Prepares (a Parse that
// pgx's statement cache sends the first time a connection sees a
// statement) are counted apart and with their transaction.
//
//	go run ./ledger/pgledger/internal/roundtrips -- \
//	    bin/research ask --db 'postgres://postgres@{addr}/rt_bench?sslmode=disable' --quiet --format json "..."
//
// Only plain-text connections are read (sslmode=disable or prefer: the
// proxy declines TLS).
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	upstream := flag.String("upstream", "127.0.0.1:5432", "the Postgres server to forward to")
	trace := flag.String("trace", "", "write every transaction, its round trips and statements to this file")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: roundtrips [-upstream host:port] [-trace file] -- command args ({addr} is the proxy's address)")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	p := &proxy{upstream: *upstream}
	go p.serve(ln)

	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "{addr}", ln.Addr().String())
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	runErr := cmd.Run()
	_ = ln.Close()
	p.wg.Wait() // the command's connections closed with it

	p.report(os.Stderr)
	if *trace != "" {
		if err := p.writeTrace(*trace); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		os.Exit(exitErr.ExitCode())
	}
	if runErr != nil {
		fmt.Fprintln(os.Stderr, runErr)
		os.Exit(1)
	}
}

type proxy struct {
	upstream string
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns []*conn // guarded by mu
}

func (p *proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.upstream)
		if err != nil {
			fmt.Fprintln(os.Stderr, "roundtrips:", err)
			_ = c.Close()
			continue
		}
		cn := &conn{stmts: map[string]string{}, answered: true}
		p.mu.Lock()
		cn.id = len(p.conns) + 1
		p.conns = append(p.conns, cn)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			cn.fromClient(c, s)
			_ = s.Close()
		}()
		go func() {
			defer p.wg.Done()
			cn.fromServer(s, c)
			_ = c.Close()
		}()
	}
}

// flight is one round trip: the client's messages until the server's
// next ReadyForQuery.
type flight struct {
	prepares []string // SQL parsed into a named statement
	execs    []string // SQL executed (simple queries, and binds of parsed statements)
	copyData bool
	errors   int           // ErrorResponses the server sent back
	start    time.Time     // the flight's first message
	wait     time.Duration // from the first message to the server's ReadyForQuery
}

func (f *flight) onlyTerminate() bool {
	return len(f.prepares) == 0 && len(f.execs) == 0 && !f.copyData
}

// conn is one proxied connection.
type conn struct {
	id int

	mu       sync.Mutex
	stmts    map[string]string // statement name -> SQL; guarded by mu
	flights  []*flight         // guarded by mu
	answered bool              // the server sent ReadyForQuery since the current flight began; guarded by mu
	startup  bool              // the startup exchange is done; guarded by mu
}

func (c *conn) current() *flight {
	if c.answered || len(c.flights) == 0 {
		c.flights = append(c.flights, &flight{start: time.Now()})
		c.answered = false
	}
	return c.flights[len(c.flights)-1]
}

func cstring(b []byte) (string, []byte) {
	i := slices.Index(b, 0)
	if i < 0 {
		return string(b), nil
	}
	return string(b[:i]), b[i+1:]
}

func (c *conn) fromClient(client, server net.Conn) {
	hdr := make([]byte, 5)
	// Startup: untyped messages (length, code) until the protocol version.
	for {
		if _, err := io.ReadFull(client, hdr[:4]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(hdr[:4]))
		body := make([]byte, n-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		code := binary.BigEndian.Uint32(body[:4])
		if code == 80877103 || code == 80877104 { // SSLRequest, GSSENCRequest: decline
			if _, err := client.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		c.mu.Lock()
		c.current().execs = append(c.current().execs, "-- connect")
		c.mu.Unlock()
		if _, err := server.Write(append(append([]byte(nil), hdr[:4]...), body...)); err != nil {
			return
		}
		if code != 80877102 { // not a CancelRequest
			break
		}
		return
	}
	for {
		if _, err := io.ReadFull(client, hdr); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(hdr[1:]))
		body := make([]byte, n-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		c.mu.Lock()
		f := c.current()
		switch hdr[0] {
		case 'Q':
			sql, _ := cstring(body)
			f.execs = append(f.execs, sql)
		case 'P':
			name, rest := cstring(body)
			sql, _ := cstring(rest)
			c.stmts[name] = sql
			if name != "" {
				f.prepares = append(f.prepares, sql)
			}
		case 'B':
			_, rest := cstring(body) // portal
			name, _ := cstring(rest)
			f.execs = append(f.execs, c.stmts[name])
		case 'd', 'c':
			f.copyData = true
		}
		c.mu.Unlock()
		if _, err := server.Write(append(append([]byte(nil), hdr...), body...)); err != nil {
			return
		}
	}
}

func (c *conn) fromServer(server, client net.Conn) {
	hdr := make([]byte, 5)
	for {
		if _, err := io.ReadFull(server, hdr); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(hdr[1:]))
		body := make([]byte, n-4)
		if _, err := io.ReadFull(server, body); err != nil {
			return
		}
		c.mu.Lock()
		switch hdr[0] {
		case 'Z':
			c.answered = true // before the client can read it and send again
			if len(c.flights) > 0 {
				f := c.flights[len(c.flights)-1]
				f.wait = time.Since(f.start)
			}
		case 'E':
			if len(c.flights) > 0 {
				c.flights[len(c.flights)-1].errors++
			}
		}
		c.mu.Unlock()
		if _, err := client.Write(append(append([]byte(nil), hdr...), body...)); err != nil {
			return
		}
	}
}

// group is one transaction: an explicit block, or a flight outside one.
type group struct {
	conn     int
	flights  []*flight
	label    string
	prepares int
}

func isBegin(sql string) bool {
	s := strings.ToLower(strings.TrimSpace(sql))
	return s == "begin" || strings.HasPrefix(s, "begin ") || strings.HasPrefix(s, "start transaction")
}

func isEnd(sql string) bool {
	s := strings.ToLower(strings.TrimSpace(sql))
	return s == "commit" || s == "rollback" || strings.HasPrefix(s, "rollback ") || s == "end"
}

// groups splits every connection's flights into transactions.
func (p *proxy) groups() []*group {
	var out []*group
	for _, c := range p.conns {
		var open *group
		var pending []*flight // prepares outside a transaction: counted with the statement that follows
		for _, f := range c.flights {
			if f.onlyTerminate() {
				continue
			}
			if open == nil && len(f.execs) == 0 {
				pending = append(pending, f)
				continue
			}
			g := open
			if g == nil {
				g = &group{conn: c.id, flights: pending, prepares: len(pending)}
				pending = nil
				out = append(out, g)
			}
			g.flights = append(g.flights, f)
			if len(f.execs) == 0 {
				g.prepares++
			}
			inTx := open != nil
			for _, sql := range f.execs {
				switch {
				case isBegin(sql):
					inTx = true
				case isEnd(sql):
					inTx = false
				}
			}
			if inTx {
				open = g
			} else {
				open = nil
			}
		}
	}
	for _, g := range out {
		g.label = label(g)
	}
	return out
}

// rules name a transaction by the first pattern its statements contain.
var rules = []struct{ pattern, label string }{
	{"-- connect", "connect (startup)"},
	{"insert into tool_calls", "ledger: RecordToolResult"},
	{"insert into reservations", "budget: Reserve"},
	{"insert into settlements", "budget: Settle / Release"},
	{"released_model_calls", "budget: Usage"},
	{"group by state", "budget: Usage"},
	{"insert into budgets", "budget: SetLimits"},
	{"update requirements", "ledger: UpdateRequirement"},
	{"insert into requirements", "ledger: AddRequirements"},
	{"insert into runs", "ledger: OpenRun"},
	{"update runs set status", "ledger: FinishRun"},
	{"insert into contradictions", "ledger: AddContradiction"},
	{"insert into run_events", "ledger: AppendEvent"},
	{"from run_events", "ledger: reads"},
	{"from runs", "ledger: reads"},
	{"from evidence", "ledger: reads"},
	{"from chunks", "corpus: chunks"},
	{"from facts", "corpus: facts"},
	{"from documents", "corpus: documents"},
}

func label(g *group) string {
	var b strings.Builder
	for _, f := range g.flights {
		for _, s := range f.execs {
			b.WriteString(strings.ToLower(strings.Join(strings.Fields(s), " ")))
			b.WriteByte('\n')
		}
	}
	all := b.String()
	for _, r := range rules {
		if strings.Contains(all, r.pattern) {
			return r.label
		}
	}
	for _, f := range g.flights {
		for _, s := range f.execs {
			if !isBegin(s) && !isEnd(s) {
				s = strings.Join(strings.Fields(s), " ")
				if len(s) > 50 {
					s = s[:50]
				}
				return "other: " + s
			}
		}
	}
	return "prepare only"
}

func (p *proxy) report(w io.Writer) {
	gs := p.groups()
	type tally struct {
		tx, rts, prepares, stmts, errors int
		wait                             time.Duration
	}
	by := map[string]*tally{}
	var total tally
	for _, g := range gs {
		t := by[g.label]
		if t == nil {
			t = &tally{}
			by[g.label] = t
		}
		t.tx++
		t.rts += len(g.flights)
		t.prepares += g.prepares
		for _, f := range g.flights {
			t.wait += f.wait
			t.errors += f.errors
			for _, s := range f.execs {
				if !isBegin(s) && !isEnd(s) {
					t.stmts++
				}
			}
		}
	}
	labels := make([]string, 0, len(by))
	for l, t := range by {
		labels = append(labels, l)
		total.tx += t.tx
		total.rts += t.rts
		total.prepares += t.prepares
		total.stmts += t.stmts
		total.errors += t.errors
		total.wait += t.wait
	}
	slices.Sort(labels)
	fmt.Fprintf(w, "%d connections\n", len(p.conns))
	fmt.Fprintf(w, "%-34s %6s %6s %6s %9s %6s %6s %9s\n", "operation", "tx", "rts", "rts/tx", "prepares", "stmts", "errors", "wait ms")
	line := func(l string, t *tally) {
		fmt.Fprintf(w, "%-34s %6d %6d %6.2f %9d %6d %6d %9.1f\n", l, t.tx, t.rts, float64(t.rts)/float64(t.tx),
			t.prepares, t.stmts, t.errors, float64(t.wait.Microseconds())/1000)
	}
	for _, l := range labels {
		line(l, by[l])
	}
	line("total", &total)
	fmt.Fprintln(w, "(wait: summed over connections, from a round trip's first message to the server's ReadyForQuery)")
}

func (p *proxy) writeTrace(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for _, g := range p.groups() {
		fmt.Fprintf(f, "conn %d  %s  (%d round trips)\n", g.conn, g.label, len(g.flights))
		for i, fl := range g.flights {
			fmt.Fprintf(f, "  rt %d at %s waited %.2f ms\n", i+1, fl.start.Format("15:04:05.000000"), float64(fl.wait.Microseconds())/1000)
			for _, s := range fl.prepares {
				fmt.Fprintf(f, "  rt %d prepare %s\n", i+1, oneLine(s))
			}
			for _, s := range fl.execs {
				fmt.Fprintf(f, "  rt %d exec    %s\n", i+1, oneLine(s))
			}
			if fl.copyData {
				fmt.Fprintf(f, "  rt %d copy data\n", i+1)
			}
		}
	}
	return f.Close()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 140 {
		s = s[:140] + "…"
	}
	return s
}
