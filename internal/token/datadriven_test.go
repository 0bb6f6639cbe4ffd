package token

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestDataDriven runs the files under testdata; see each file's header for
// its commands.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "murmur3":
				h := murmur3H1(hashInput(t, td))
				return fmt.Sprintf("%d 0x%016x\n", h, uint64(h))
			case "token":
				return Of(hashInput(t, td)).String() + "\n"
			case "key":
				return runKey(t, td)
			case "split":
				return runSplit(t, td)
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
				return ""
			}
		})
	})
}

// hashInput reads the input block as text, or as hex with the hex argument,
// repeated repeat=N times.
func hashInput(t *testing.T, td *datadriven.TestData) []byte {
	in := []byte(td.Input)
	if td.HasArg("hex") {
		in = mustHex(t, td.Input)
	}
	repeat := 1
	td.MaybeScanArgs(t, "repeat", &repeat)
	return bytes.Repeat(in, repeat)
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func runKey(t *testing.T, td *datadriven.TestData) string {
	var components [][]byte
	for _, line := range strings.Split(td.Input, "\n") {
		if line == "" {
			continue
		}
		kind, value, _ := strings.Cut(line, " ")
		components = append(components, componentValue(t, kind, value))
	}
	key := SerializeKey(components)
	if len(components) >= 2 {
		back, err := SplitKey(key, len(components))
		if err != nil {
			t.Fatalf("SplitKey(%x, %d): %v", key, len(components), err)
		}
		for i := range components {
			if !bytes.Equal(back[i], components[i]) {
				t.Fatalf("component %d: split %x, want %x", i, back[i], components[i])
			}
		}
	}
	return fmt.Sprintf("key: %x\ntoken: %s\n", key, Of(key))
}

func componentValue(t *testing.T, kind, value string) []byte {
	t.Helper()
	switch kind {
	case "int", "bigint":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			t.Fatalf("bad %s %q: %v", kind, value, err)
		}
		if kind == "int" {
			return binary.BigEndian.AppendUint32(nil, uint32(n))
		}
		return binary.BigEndian.AppendUint64(nil, uint64(n))
	case "text":
		return []byte(value)
	case "hex":
		return mustHex(t, value)
	}
	t.Fatalf("unknown component type %q", kind)
	return nil
}

func runSplit(t *testing.T, td *datadriven.TestData) string {
	var n int
	td.ScanArgs(t, "n", &n)
	parts, err := SplitKey(mustHex(t, td.Input), n)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var out strings.Builder
	for _, p := range parts {
		if len(p) == 0 {
			out.WriteString("(empty)\n")
			continue
		}
		fmt.Fprintf(&out, "%x\n", p)
	}
	return out.String()
}
