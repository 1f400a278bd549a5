package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// keyStreams counts the event streams each API key holds open in this
// process.
type keyStreams struct {
	mu   sync.Mutex
	open map[string]int // guarded by mu: by key hash
}

// acquire takes one of the key's limit streams, or reports false.
func (k *keyStreams) acquire(keyHash []byte, limit int) (release func(), ok bool) {
	id := string(keyHash)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open[id] >= limit {
		return nil, false
	}
	k.open[id]++
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.open[id]--; k.open[id] <= 0 {
			delete(k.open, id)
		}
	}, true
}

// addrLimiter counts events per client address in fixed windows, and says
// when an address has had its limit of them.
type addrLimiter struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu sync.Mutex
	// Guarded by mu.
	start  time.Time      // of the current window
	counts map[string]int // by address, in the current window
}

func newAddrLimiter(limit int, window time.Duration, now func() time.Time) *addrLimiter {
	return &addrLimiter{limit: limit, window: window, now: now, counts: map[string]int{}}
}

// full reports whether addr has had its limit in the current window, and
// how long until the next one.
func (l *addrLimiter) full(addr string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll()
	return l.counts[addr] >= l.limit, l.window - l.now().Sub(l.start)
}

// add counts one event of addr.
func (l *addrLimiter) add(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll()
	l.counts[addr]++
}

// roll starts a new window, forgetting every count, once the current one
// is over; the caller holds mu.
func (l *addrLimiter) roll() {
	if now := l.now(); now.Sub(l.start) >= l.window {
		l.start = now
		clear(l.counts)
	}
}

// clientAddr is the request's remote IP, without its port.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// maxKnownKeys bounds the keys knownKeys remembers; past it, it starts
// afresh.
const maxKnownKeys = 10_000

// keySet remembers the hashes of keys that authenticated in this process,
// so that a client whose address shares a bad-key limit with others (a
// NAT) is not refused for a key known to be valid. Every request is still
// authenticated against the database, so a revoked key stops working at
// once.
type keySet struct {
	mu   sync.Mutex
	keys map[[32]byte]struct{} // guarded by mu
}

func (k *keySet) has(key string) bool {
	h := HashKey(key)
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.keys[h]
	return ok
}

func (k *keySet) add(key string) {
	h := HashKey(key)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil || len(k.keys) >= maxKnownKeys {
		k.keys = map[[32]byte]struct{}{}
	}
	k.keys[h] = struct{}{}
}

func (k *keySet) forget(key string) {
	h := HashKey(key)
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.keys, h)
}

// slidingWindow counts events over a sliding window and refuses those
// past its limit.
type slidingWindow struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu sync.Mutex
	at []time.Time // guarded by mu: the events in the window, oldest first
}

// add counts one event if the window has room for it; otherwise it
// reports how long until it has.
func (w *slidingWindow) add() (wait time.Duration, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	drop := 0
	for drop < len(w.at) && now.Sub(w.at[drop]) >= w.window {
		drop++
	}
	w.at = w.at[drop:]
	if len(w.at) >= w.limit {
		return w.at[0].Add(w.window).Sub(now), false
	}
	w.at = append(w.at, now)
	return 0, true
}
