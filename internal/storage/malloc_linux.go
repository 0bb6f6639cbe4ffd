//go:build linux && cgo

package storage

/*
#include <malloc.h>

static void limitArenas(int n) {
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, n);
#endif
}
*/
import "C"

// mallocArenas bounds glibc's malloc arenas. Pebble allocates its block
// cache and memtables with C malloc, from whichever thread the Go runtime
// runs the caller on; glibc then spreads the blocks over up to eight arenas
// per core, each keeping the memory freed into it. On the bench's first
// five workloads (a server of its own, 2 cores) the resident set peaked at
// 247 MiB with the default arenas and 181 MiB with one, for 64 MiB of
// block cache, 32 to 64 MiB of memtables and 40 MiB of Go memory.
const mallocArenas = 1

func init() { C.limitArenas(mallocArenas) }
