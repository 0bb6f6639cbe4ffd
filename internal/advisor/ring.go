package advisor

import (
	"math/rand/v2"
	"slices"
)

const (
	ringTokensPerNode = 16 // Cassandra 4.0+'s num_tokens default
	ringReplication   = 3
)

// simulateRing places the partitions on rings of 3, 6 and 12 nodes with
// random tokens (a fixed seed, so the same data gives the same answer) and
// replication factor 3 (SimpleStrategy placement: the next distinct nodes
// clockwise), and reports the busiest node against the mean, by bytes and
// by partition count.
func simulateRing(ps []Partition) []Imbalance {
	if len(ps) == 0 {
		return nil
	}
	var out []Imbalance
	for _, nodes := range []int{3, 6, 12} {
		type vnode struct {
			token int64
			node  int
		}
		rng := rand.New(rand.NewPCG(uint64(nodes), 16))
		ring := make([]vnode, 0, nodes*ringTokensPerNode)
		for n := range nodes {
			for range ringTokensPerNode {
				ring = append(ring, vnode{int64(rng.Uint64()), n})
			}
		}
		slices.SortFunc(ring, func(a, b vnode) int {
			switch {
			case a.token < b.token:
				return -1
			case a.token > b.token:
				return 1
			}
			return 0
		})
		bytes := make([]float64, nodes)
		parts := make([]float64, nodes)
		for i := range ps {
			// the first vnode at or after the token owns it
			at, _ := slices.BinarySearchFunc(ring, ps[i].Token, func(v vnode, t int64) int {
				switch {
				case v.token < t:
					return -1
				case v.token > t:
					return 1
				}
				return 0
			})
			seen := make([]bool, nodes)
			for k, got := 0, 0; k < len(ring) && got < min(ringReplication, nodes); k++ {
				n := ring[(at+k)%len(ring)].node
				if seen[n] {
					continue
				}
				seen[n], got = true, got+1
				bytes[n] += float64(max(ps[i].Bytes, 1))
				parts[n]++
			}
		}
		out = append(out, Imbalance{Nodes: nodes, Bytes: maxOverMean(bytes), Partitions: maxOverMean(parts)})
	}
	return out
}

func maxOverMean(vs []float64) float64 {
	var sum, top float64
	for _, v := range vs {
		sum += v
		top = max(top, v)
	}
	if sum == 0 {
		return 0
	}
	return top / (sum / float64(len(vs)))
}
