package cassandra

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
)

// freePorts returns n distinct TCP ports that are free on every one of
// addrs at the time of the call. They are drawn below the kernel's
// ephemeral range, which bind(":0") and outgoing connections draw from:
// the node binds its ports seconds (under load, a minute) after they are
// chosen, and every Partita test server listening on ":0" in that window
// could otherwise be handed one of them. The listeners are held until all
// n are chosen, so the ports differ. Launch still checks that the node
// answering on its native port is its own process (ownsListener).
func freePorts(n int, addrs ...string) ([]int, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	addrs = slices.Compact(slices.Sorted(slices.Values(addrs)))
	low, high := portRange()
	var ports []int
	for attempts := 0; len(ports) < n; attempts++ {
		if attempts > 200 {
			return nil, fmt.Errorf("no free port in %d-%d on all of %v after 200 attempts", low, high, addrs)
		}
		port := low + rand.IntN(high-low)
		var ls []net.Listener
		for _, a := range addrs {
			l, err := net.Listen("tcp4", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				break
			}
			ls = append(ls, l)
		}
		held = append(held, ls...)
		if len(ls) == len(addrs) {
			ports = append(ports, port)
		}
	}
	return ports, nil
}

// portRange is [10000, start of the ephemeral range), or 20000-30000 where
// the range cannot be read or leaves too little room below it.
func portRange() (low, high int) {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if fields := strings.Fields(string(data)); len(fields) == 2 {
			if first, err := strconv.Atoi(fields[0]); err == nil && first > 11000 {
				return 10000, first
			}
		}
	}
	return 20000, 30000
}
