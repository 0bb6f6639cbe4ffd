package protocol

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestDecode runs the datadriven files under testdata/decode. Commands:
//
//	decode-request [max=<bytes>]
//	<hex of one or more frames, "#" starts a comment>
//	----
//	<per frame: its header, then the decoded message or the error>
//
//	decode-response
//	<hex of one or more response frames>
//	----
//	<per frame: its header, the envelope if any, then the message>
//
// Errors print as "error (<code>): <message>"; ReadFrame's own errors print
// with their Go type.
func TestDecode(t *testing.T) {
	datadriven.Walk(t, "testdata/decode", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			maxBody := DefaultMaxBody
			d.MaybeScanArgs(t, "max", &maxBody)
			r := bufio.NewReader(bytes.NewReader(unhex(t, d.Input)))
			var out bytes.Buffer
			for {
				f, err := ReadFrame(r, maxBody)
				if err != nil {
					out.WriteString(readErrText(err))
					return out.String()
				}
				fmt.Fprintf(&out, "%s stream=%d flags=0x%02x length=%d\n", f.Header.Opcode, f.Header.Stream, f.Header.Flags, f.Header.Length)
				switch d.Cmd {
				case "decode-request":
					m, err := DecodeRequest(f)
					out.WriteString(messageText(m, err))
				case "decode-response":
					m, env, err := DecodeResponse(f)
					if describe(env) != "ResponseEnvelope{}" {
						fmt.Fprintf(&out, "  %s\n", describe(env))
					}
					out.WriteString(messageText(m, err))
				default:
					d.Fatalf(t, "unknown command %s", d.Cmd)
				}
			}
		})
	})
}

func messageText(m Message, err error) string {
	if err != nil {
		return "  " + errText(err) + "\n"
	}
	return "  " + describe(m) + "\n"
}

func readErrText(err error) string {
	switch e := err.(type) {
	case *UnsupportedVersionError:
		return fmt.Sprintf("unsupported version %d: reply %x\n", e.Version, e.AppendReply(nil))
	case *FrameSizeError:
		return fmt.Sprintf("frame size on stream %d: %s\n", e.Stream, errText(e.Err()))
	}
	if err == ErrTruncatedFrame {
		return "truncated frame\n"
	}
	return fmt.Sprintf("end: %v\n", err)
}
