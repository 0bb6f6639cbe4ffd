package split

// sampleKeys bounds the clustering keys a measurement keeps to choose split
// points: at most 2*sampleKeys, whatever the partition's size.
const sampleKeys = 4096

// keySample keeps the clustering keys at ranks 0, stride, 2*stride, ... of
// a partition read in order, and its last key. Whenever it holds
// 2*sampleKeys keys it drops every other one and doubles the stride, so a
// partition of any size costs a few hundred KiB to plan, and one of up to
// 2*sampleKeys rows keeps every key (exact split points).
type keySample struct {
	stride int64
	seen   int64
	keys   [][]byte
	last   []byte
}

func (s *keySample) add(key []byte) {
	if s.stride == 0 {
		s.stride = 1
	}
	if s.seen%s.stride == 0 {
		// A full sample is halved here, where seen is a multiple of the
		// doubled stride too, so this key is kept either way.
		if len(s.keys) == 2*sampleKeys {
			for i := 0; i < sampleKeys; i++ {
				s.keys[i] = s.keys[2*i]
			}
			clear(s.keys[sampleKeys:])
			s.keys = s.keys[:sampleKeys]
			s.stride *= 2
		}
		s.keys = append(s.keys, append([]byte(nil), key...))
	}
	s.last = append(s.last[:0], key...)
	s.seen++
}

// rows is the number of keys added.
func (s *keySample) rows() int64 { return s.seen }

// at returns the kept key at or just before rank (0 <= rank < rows); the
// last rank gives the last key exactly.
func (s *keySample) at(rank int64) []byte {
	if rank >= s.seen-1 {
		return s.last
	}
	return s.keys[min(rank/s.stride, int64(len(s.keys)-1))]
}
