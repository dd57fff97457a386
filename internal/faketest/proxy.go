// Package faketest holds test doubles for fault and hostile-input tests: a TCP proxy whose
// faults the test controls (Proxy) and a scripted fake ClickHouse server (Server).
//
// Everything listens on 127.0.0.1 only, and every goroutine started here ends when the
// Proxy or Server is closed, so tests can compare runtime.NumGoroutine before and after.
package faketest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Direction is the direction of traffic through a Proxy.
type Direction int

const (
	// Up is client to server.
	Up Direction = iota
	// Down is server to client.
	Down
)

// Mode is what a Proxy does with new connections.
type Mode int32

const (
	// Forward dials the upstream and forwards both ways (subject to armed cuts and stalls).
	Forward Mode = iota
	// Blackhole accepts and never answers nor forwards: a server that hangs (also in a TLS
	// handshake).
	Blackhole
	// Reset accepts and closes at once: a port whose server is gone.
	Reset
)

// Proxy forwards TCP connections from a 127.0.0.1 listener to an upstream address.
type Proxy struct {
	upstream string

	mu      sync.Mutex
	ln      net.Listener
	addr    string
	conns   map[*pair]struct{}
	closed  bool
	unstall chan struct{} // closed when a stall ends

	mode    atomic.Int32
	stalled atomic.Bool
	budget  [2]atomic.Int64 // bytes left before a one-shot cut, per direction; <0 means none
	bytes   [2]atomic.Int64 // bytes forwarded, per direction
	accepts atomic.Int64

	wg sync.WaitGroup
}

type pair struct {
	mu             sync.Mutex
	client, server net.Conn
	closed         bool
	// cut is set before a cut's last bytes are written: from then on neither direction
	// forwards anything, so an answer to those bytes cannot slip through before the close.
	cut atomic.Bool
}

func (p *pair) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.client.Close()
	if p.server != nil {
		p.server.Close()
	}
}

// setServer records the upstream side; false (and s closed) when the pair was closed meanwhile.
func (p *pair) setServer(s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		s.Close()
		return false
	}
	p.server = s
	return true
}

// NewProxy listens on 127.0.0.1 (a free port) and forwards to upstream ("host:port").
func NewProxy(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{upstream: upstream, ln: ln, addr: ln.Addr().String(), conns: map[*pair]struct{}{},
		unstall: make(chan struct{})}
	p.budget[Up].Store(-1)
	p.budget[Down].Store(-1)
	p.wg.Add(1)
	go p.accept(ln)
	return p, nil
}

// Addr returns the proxy's "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.addr }

// Accepts returns the number of connections accepted so far.
func (p *Proxy) Accepts() int64 { return p.accepts.Load() }

// Bytes returns the number of bytes forwarded in direction d so far. A chunk is counted before
// it is written on, so by the time an answer to it arrives its bytes are in the count.
func (p *Proxy) Bytes(d Direction) int64 { return p.bytes[d].Load() }

// OpenConns returns the number of connections whose forwarding has not ended yet.
func (p *Proxy) OpenConns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// WaitConns waits up to d for OpenConns to drop to n or below, and reports whether it did.
func (p *Proxy) WaitConns(n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for p.OpenConns() > n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// SetMode sets what happens to new connections.
func (p *Proxy) SetMode(m Mode) { p.mode.Store(int32(m)) }

// CutAfter arms a one-shot cut: after n more bytes have been forwarded in direction d (over
// all connections), the connection carrying them is closed on both sides; the first n bytes are
// delivered, and nothing in the other direction after them (an answer to them is never
// forwarded). n = 0 cuts at the next byte.
func (p *Proxy) CutAfter(d Direction, n int64) { p.budget[d].Store(n) }

// Stall stops (true) or resumes (false) forwarding in both directions; connections stay open.
func (p *Proxy) Stall(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.stalled.Load() {
		return
	}
	p.stalled.Store(on)
	if !on {
		close(p.unstall)
		p.unstall = make(chan struct{})
	}
}

// DropAll closes every open connection (as a server restart does); new ones are still accepted.
func (p *Proxy) DropAll() {
	p.mu.Lock()
	conns := make([]*pair, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Down stops listening and drops every connection: dials are refused until Up.
func (p *Proxy) Down() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.DropAll()
}

// Up listens again on the same address after Down.
func (p *Proxy) Up() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return net.ErrClosed
	}
	if p.ln != nil {
		return nil
	}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger briefly
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	p.ln = ln
	p.wg.Add(1)
	go p.accept(ln)
	return nil
}

// Close stops the proxy, drops every connection and waits for its goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	ln := p.ln
	p.ln = nil
	if p.stalled.Load() {
		p.stalled.Store(false)
		close(p.unstall)
		p.unstall = make(chan struct{})
	}
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.DropAll()
	p.wg.Wait()
	return nil
}

func (p *Proxy) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.accepts.Add(1)
		pr := &pair{client: c}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		p.conns[pr] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go p.serve(pr)
	}
}

func (p *Proxy) forget(pr *pair) {
	pr.close()
	p.mu.Lock()
	delete(p.conns, pr)
	p.mu.Unlock()
}

func (p *Proxy) serve(pr *pair) {
	defer p.wg.Done()
	defer p.forget(pr)
	switch Mode(p.mode.Load()) {
	case Reset:
		return
	case Blackhole:
		_, _ = io.Copy(io.Discard, pr.client) // until the client or Close closes it
		return
	}
	s, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
	if err != nil {
		return
	}
	if !pr.setServer(s) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.pump(pr, Down, s, pr.client)
	}()
	p.pump(pr, Up, pr.client, s)
	<-done
}

// pump copies src to dst, applying stalls and cuts, and closes the pair when either side ends.
func (p *Proxy) pump(pr *pair, d Direction, src, dst net.Conn) {
	defer pr.close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.waitStall() {
				return
			}
			chunk := buf[:n]
			cut := false
			for {
				b := p.budget[d].Load()
				if b < 0 {
					break
				}
				if int64(len(chunk)) < b {
					if p.budget[d].CompareAndSwap(b, b-int64(len(chunk))) {
						break
					}
					continue
				}
				if p.budget[d].CompareAndSwap(b, -1) {
					chunk = chunk[:b]
					cut = true
					break
				}
			}
			if cut {
				pr.cut.Store(true)
			} else if pr.cut.Load() {
				return
			}
			if len(chunk) > 0 {
				// Counted before the write: the answer to these bytes can reach the client (and
				// a test reading Bytes) before this goroutine runs again after Write.
				p.bytes[d].Add(int64(len(chunk)))
				if _, werr := dst.Write(chunk); werr != nil {
					return
				}
			}
			if cut {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// waitStall blocks while the proxy is stalled; false means the proxy closed meanwhile.
func (p *Proxy) waitStall() bool {
	for {
		p.mu.Lock()
		stalled, ch, closed := p.stalled.Load(), p.unstall, p.closed
		p.mu.Unlock()
		if closed {
			return false
		}
		if !stalled {
			return true
		}
		<-ch
	}
}
