package main

import (
	"bytes"
	"errors"
	"net/http"
	"runtime/pprof"
	"sync"
)

// cpuProfiler holds the one CPU profile a node records at a time, between
// the start and the stop an operator (or partita-bench, around each step)
// asks for on the admin port.
type cpuProfiler struct {
	mu struct {
		sync.Mutex
		running bool
		buf     bytes.Buffer
	}
}

var errProfiling = errors.New("a CPU profile is already running")

func (p *cpuProfiler) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.running {
		return errProfiling
	}
	p.mu.buf.Reset()
	if err := pprof.StartCPUProfile(&p.mu.buf); err != nil {
		return err
	}
	p.mu.running = true
	return nil
}

// stop ends the profile and returns it (pprof's protobuf format).
func (p *cpuProfiler) stop() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.mu.running {
		return nil, errors.New("no CPU profile is running")
	}
	pprof.StopCPUProfile()
	p.mu.running = false
	return bytes.Clone(p.mu.buf.Bytes()), nil
}

// profileRoutes serves, behind the admin guard:
//
//	POST /admin/cpuprofile?op=start   start profiling this process's CPU
//	POST /admin/cpuprofile?op=stop    stop, and answer the profile (go tool pprof reads it)
func (n *node) profileRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /admin/cpuprofile", n.adminGuard(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("op") {
		case "start":
			if err := n.profiler.start(); err != nil {
				http.Error(w, err.Error(), http.StatusConflict)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("started\n"))
		case "stop":
			b, err := n.profiler.stop()
			if err != nil {
				http.Error(w, err.Error(), http.StatusConflict)
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(b)
		default:
			http.Error(w, "op must be start or stop", http.StatusBadRequest)
		}
	}))
}
