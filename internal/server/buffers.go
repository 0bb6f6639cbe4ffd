package server

import "sync"

// frameBuf is a pooled buffer holding one encoded response frame.
type frameBuf struct{ b []byte }

// maxPooledFrame keeps a large result's buffer from being held forever.
const maxPooledFrame = 64 << 10

var framePool = sync.Pool{New: func() any { return &frameBuf{b: make([]byte, 0, 512)} }}

func getFrameBuf() *frameBuf { return framePool.Get().(*frameBuf) }

func putFrameBuf(fb *frameBuf) {
	if cap(fb.b) > maxPooledFrame {
		return
	}
	fb.b = fb.b[:0]
	framePool.Put(fb)
}
