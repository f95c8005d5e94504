package e2e

import (
	"errors"
	"net"
	"sync"
)

// faultProxy is a TCP proxy on 127.0.0.1 in front of one address (an
// apiserver's), which can cut the traffic through it:
//
//   - reset: every connection through it is closed with a TCP reset, and
//     new ones are reset as soon as they are accepted;
//   - blackhole: connections stay open but no byte moves either way (bytes
//     already read are held), and new connections are accepted but get
//     nothing; healing lets the held bytes through, so the streams resume.
//
// Every goroutine it starts (the accept loop, two copiers per connection)
// ends when Close returns.
type faultProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	mode  string        // "pass", "blackhole" or "reset"
	gate  chan struct{} // closed while bytes may move
	conns map[net.Conn]struct{}
	done  chan struct{}

	wg sync.WaitGroup
}

// newFaultProxy listens on a free loopback port and forwards to target, a
// 127.0.0.1 address.
func newFaultProxy(target string) (*faultProxy, error) {
	if host, _, err := net.SplitHostPort(target); err != nil || host != "127.0.0.1" {
		return nil, errors.New("faultProxy: the target must be on 127.0.0.1, got " + target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &faultProxy{ln: ln, target: target, mode: "pass", gate: make(chan struct{}), conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	close(p.gate)
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is the proxy's address.
func (p *faultProxy) Addr() string { return p.ln.Addr().String() }

// set switches the proxy to mode "pass", "blackhole" or "reset".
func (p *faultProxy) set(mode string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch mode {
	case "pass":
		select {
		case <-p.gate:
		default:
			close(p.gate)
		}
	case "blackhole", "reset":
		select {
		case <-p.gate:
			p.gate = make(chan struct{})
		default:
		}
	}
	p.mode = mode
	if mode == "reset" {
		for c := range p.conns {
			resetConn(c)
		}
	}
}

// resetConn closes c with a TCP reset.
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// Close stops the proxy, closes every connection and waits for its
// goroutines.
func (p *faultProxy) Close() {
	_ = p.ln.Close()
	p.mu.Lock()
	close(p.done)
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *faultProxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		mode := p.mode
		p.mu.Unlock()
		if mode == "reset" {
			resetConn(in)
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			resetConn(in)
			continue
		}
		if !p.track(in, out) {
			return
		}
		p.wg.Go(func() { p.copy(out, in) })
		p.wg.Go(func() { p.copy(in, out) })
	}
}

// track registers a connection pair; false once the proxy is closed.
func (p *faultProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	default:
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *faultProxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
}

// wait blocks while the proxy holds traffic; false once it is closed.
func (p *faultProxy) wait() bool {
	p.mu.Lock()
	gate := p.gate
	p.mu.Unlock()
	select {
	case <-gate:
		return true
	case <-p.done:
		return false
	}
}

// copy moves bytes from src to dst while the gate is open; it ends when
// either side fails or the proxy is closed, and then closes both.
func (p *faultProxy) copy(dst, src net.Conn) {
	defer func() {
		p.mu.Lock()
		reset := p.mode == "reset"
		p.mu.Unlock()
		for _, c := range []net.Conn{dst, src} {
			if reset {
				resetConn(c)
			} else {
				_ = c.Close()
			}
			p.untrack(c)
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		if !p.wait() {
			return
		}
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a failure: the stream is over either way
		}
	}
}
