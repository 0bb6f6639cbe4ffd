package clusterstore_test

import (
	"io"
	"net"
	"sync"
	"testing"
)

// netCut is a TCP proxy between a gateway and its Cassandra node that can
// cut the network between them. While cut no byte passes either way:
// connections stay open, new ones are accepted and held, and what either
// side sends meanwhile is delivered once the cut heals, as TCP delivers
// the segments it retransmits after a short partition. A request a
// gateway sent during the cut thus reaches Cassandra only after the heal,
// when another gateway may have moved the rows it was routed to.
type netCut struct {
	ln     net.Listener
	target string
	mu     struct {
		sync.Mutex
		healed chan struct{} // closed while the network passes bytes
		conns  []net.Conn
		closed bool
	}
	wg sync.WaitGroup
}

func newNetCut(t *testing.T, target string) *netCut {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &netCut{ln: ln, target: target}
	p.mu.healed = make(chan struct{})
	close(p.mu.healed)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// addr is the address the gateway dials instead of the node's.
func (p *netCut) addr() string { return p.ln.Addr().String() }

// cut stops every byte until heal.
func (p *netCut) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.mu.healed:
		p.mu.healed = make(chan struct{})
	default: // already cut
	}
}

// heal lets the bytes held and the new ones pass again.
func (p *netCut) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.mu.healed:
	default:
		close(p.mu.healed)
	}
}

// gate waits while the network is cut.
func (p *netCut) gate() {
	p.mu.Lock()
	healed := p.mu.healed
	p.mu.Unlock()
	<-healed
}

func (p *netCut) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.closed {
		c.Close()
		return false
	}
	p.mu.conns = append(p.mu.conns, c)
	return true
}

func (p *netCut) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(client) {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.gate() // a connection opened during the cut reaches the node after it
			server, err := net.Dial("tcp4", p.target)
			if err != nil {
				client.Close()
				return
			}
			if !p.track(server) {
				client.Close()
				return
			}
			p.wg.Add(2)
			go p.pump(server, client)
			go p.pump(client, server)
		}()
	}
}

// pump copies src to dst, holding what it read while the network is cut.
func (p *netCut) pump(dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			p.gate()
			if tc, ok := dst.(*net.TCPConn); ok && err == io.EOF {
				_ = tc.CloseWrite()
			} else {
				dst.Close()
			}
			return
		}
	}
}

func (p *netCut) close() {
	p.heal()
	p.ln.Close()
	p.mu.Lock()
	p.mu.closed = true
	for _, c := range p.mu.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
