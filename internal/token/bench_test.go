package token

import (
	"fmt"
	"testing"
)

func BenchmarkOf(b *testing.B) {
	for _, size := range []int{16, 64} {
		key := make([]byte, size)
		for i := range key {
			key[i] = byte(i * 7)
		}
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var sink Token
			for b.Loop() {
				sink ^= Of(key)
			}
			_ = sink
		})
	}
}

func BenchmarkAppendOrdered(b *testing.B) {
	buf := make([]byte, 0, OrderedLen)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendOrdered(buf[:0], -4069959284402364209)
	}
}
