package cassandra

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ownsListener reports whether process pid holds the IPv4 socket listening
// on ip:port, by finding the socket's inode in /proc/net/tcp and among the
// process's descriptors. The JVM runs with -Djava.net.preferIPv4Stack=true,
// so its listeners are IPv4 sockets.
func ownsListener(pid int, ip net.IP, port int) (bool, error) {
	inode, err := listeningInode(ip, port)
	if err != nil || inode == "" {
		return false, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, err
	}
	want := "socket:[" + inode + "]"
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name())); err == nil && link == want {
			return true, nil
		}
	}
	return false, nil
}

// listeningInode returns the inode of the socket in state LISTEN on
// ip:port, or "" if there is none. /proc/net/tcp prints an address as the
// 32-bit IPv4 address in host byte order and the port, both in hex.
func listeningInode(ip net.IP, port int) (string, error) {
	ip4 := ip.To4()
	if ip4 == nil {
		return "", fmt.Errorf("%v is not an IPv4 address", ip)
	}
	local := fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(ip4), port)
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		const stateListen = "0A"
		if len(fields) > 9 && fields[1] == local && fields[3] == stateListen {
			if _, err := strconv.Atoi(fields[9]); err == nil {
				return fields[9], nil
			}
		}
	}
	return "", sc.Err()
}
