package main

import (
	"net"
	"testing"
)

func TestAdvertisedIP(t *testing.T) {
	if got := advertisedIP(net.ParseIP("10.0.0.5")); !got.Equal(net.ParseIP("10.0.0.5")) {
		t.Fatalf("specific listen IP advertised as %v", got)
	}
	if got := advertisedIP(net.IPv4zero); got.IsUnspecified() {
		t.Fatalf("0.0.0.0 advertised as %v", got)
	}

	cidr := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	tests := []struct {
		name   string
		addrs  []net.Addr
		wantV4 bool
		want   string
	}{
		{"loopback only", []net.Addr{cidr("127.0.0.1/8"), cidr("::1/128")}, true, "127.0.0.1"},
		{"first non-loopback IPv4", []net.Addr{cidr("127.0.0.1/8"), cidr("fe80::1/64"), cidr("192.168.1.7/24"), cidr("10.0.0.1/8")}, true, "192.168.1.7"},
		{"IPv6 for a :: listener", []net.Addr{cidr("::1/128"), cidr("2001:db8::5/64")}, false, "2001:db8::5"},
		{"no IPv6 for 0.0.0.0", []net.Addr{cidr("2001:db8::5/64")}, true, "127.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstNonLoopback(tc.addrs, tc.wantV4); got.String() != tc.want {
				t.Fatalf("got %v, want %s", got, tc.want)
			}
		})
	}
}
