package protocol

import (
	"bytes"
	"slices"
	"testing"
)

// allSamples lists the sample messages of every test file: every request
// and response type, with every optional part exercised somewhere.
func allSamples() []Message {
	var schemaResults []Message
	for _, c := range schemaChangeSamples {
		schemaResults = append(schemaResults, &SchemaChangeResult{Change: c})
	}
	return slices.Concat(
		startupSamples, optionsSamples, querySamples, prepareSamples, executeSamples, batchSamples,
		registerSamples, authResponseSamples,
		errorSamples, readySamples, authenticateSamples, supportedSamples, resultSamples, rowsSamples,
		preparedSamples, eventSamples, authChallengeSamples, authSuccessSamples, schemaResults,
	)
}

// decodeBody decodes a body as the message type of m, through the same
// dispatch a frame takes.
func decodeBody(m Message, body []byte) (Message, error) {
	if _, ok := m.(Request); ok {
		return DecodeRequest(Frame{Header: Header{Version: Version4, Opcode: m.Opcode()}, Body: body})
	}
	resp, _, err := DecodeResponse(Frame{Header: Header{Version: Version4, Response: true, Opcode: m.Opcode()}, Body: body})
	return resp, err
}

// TestTruncations checks that every strict prefix of every valid body is
// rejected with a Protocol error, and never panics.
func TestTruncations(t *testing.T) {
	for _, m := range allSamples() {
		body := m.Encode(nil)
		t.Run(m.Opcode().String()+" "+describe(m), func(t *testing.T) {
			if _, err := decodeBody(m, body); err != nil {
				t.Fatalf("full body: %v", err)
			}
			for n := range len(body) {
				// A copy without spare capacity, so reading past it would fault.
				prefix := bytes.Clone(body[:n])
				if _, err := decodeBody(m, prefix); err == nil {
					t.Fatalf("prefix of %d/%d bytes decoded without error: %x", n, len(body), prefix)
				} else {
					wantProtocolError(t, err, "")
				}
			}
		})
	}
}

// TestRoundTripAll runs every sample through the wire once more, now with
// a warning and a tracing id on responses.
func TestRoundTripAll(t *testing.T) {
	tracing := bytes.Repeat([]byte{0x11}, 16)
	for _, m := range allSamples() {
		t.Run(m.Opcode().String()+" "+describe(m), func(t *testing.T) {
			checkRoundTrip(t, m)
			resp, ok := m.(Response)
			if !ok {
				return
			}
			f := readOne(t, EncodeResponse(nil, 1, resp, []string{"w"}, tracing))
			got, env, err := DecodeResponse(f)
			if err != nil || describe(got) != describe(m) || !bytes.Equal(env.TracingID, tracing) || len(env.Warnings) != 1 {
				t.Fatalf("with envelope: got %s %s %v", describe(got), describe(env), err)
			}
		})
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		want  string
	}{
		{"unknown opcode", `04 00 0001 11 00000000`, "Unknown opcode 17"},
		{"opcode 4", `04 00 0001 04 00000000`, "Unknown opcode 4"},
		{"response opcode", `04 00 0001 08 00000004 00000001`,
			"Wrong protocol direction (expected RESPONSE, got REQUEST) for opcode 8 (RESULT)"},
		{"response direction", `84 00 0001 05 00000000`,
			"Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode 5 (OPTIONS)"},
		{"compressed without negotiation", `04 01 0001 07 00000000`, "no compression was negotiated"},
		{"short custom payload", `04 04 0001 05 00000001 00`, "custom payload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeRequest(readOne(t, unhex(t, tc.frame)))
			wantProtocolError(t, err, tc.want)
		})
	}
}

func TestRequestEnvelope(t *testing.T) {
	t.Run("custom payload is skipped", func(t *testing.T) {
		q := &Prepare{Query: "SELECT 1"}
		body := appendBytesMap(nil, map[string][]byte{"k": {1}, "n": nil})
		body = q.Encode(body)
		f := Frame{Header: Header{Version: 4, Flags: FlagCustomPayload, Opcode: OpPrepare}, Body: body}
		got, err := DecodeRequest(f)
		if err != nil || got.(*Prepare).Query != "SELECT 1" {
			t.Fatalf("got %v %v", got, err)
		}
	})
	t.Run("tracing flag is tolerated", func(t *testing.T) {
		f := readOne(t, AppendRequest(nil, 1, &Options{}))
		f.Header.Flags |= FlagTracing | FlagWarning
		if _, err := DecodeRequest(f); err != nil {
			t.Fatal(err)
		}
	})
}

func TestResponseEnvelope(t *testing.T) {
	tracing := bytes.Repeat([]byte{0xAA}, 16)
	env := ResponseEnvelope{TracingID: tracing, Warnings: []string{"Aggregation query used without partition key"},
		CustomPayload: map[string][]byte{"p": {9}}}
	frame := AppendResponse([]byte("prefix"), 5, &VoidResult{}, env)
	if string(frame[:6]) != "prefix" {
		t.Fatal("dst was not appended to")
	}
	f := readOne(t, frame[6:])
	if f.Header.Flags != FlagTracing|FlagWarning|FlagCustomPayload || f.Header.Stream != 5 || int(f.Header.Length) != len(f.Body) {
		t.Fatalf("header %+v", f.Header)
	}
	// §2.2: tracing id first, then warnings, then custom payload.
	want := slices.Concat(tracing, appendStringList(nil, env.Warnings), appendBytesMap(nil, env.CustomPayload), []byte{0, 0, 0, 1})
	if !bytes.Equal(f.Body, want) {
		t.Fatalf("body %x\nwant %x", f.Body, want)
	}
	got, gotEnv, err := DecodeResponse(f)
	if err != nil || describe(gotEnv) != describe(env) || describe(got) != describe(&VoidResult{}) {
		t.Fatalf("got %s %s %v", describe(got), describe(gotEnv), err)
	}
	t.Run("bad tracing id length is not written", func(t *testing.T) {
		f := readOne(t, EncodeResponse(nil, 1, &Ready{}, nil, []byte{1, 2}))
		if f.Header.Flags != 0 || len(f.Body) != 0 {
			t.Fatalf("got %+v %x", f.Header, f.Body)
		}
	})
	t.Run("request opcode in a response", func(t *testing.T) {
		_, _, err := DecodeResponse(Frame{Header: Header{Version: 4, Response: true, Opcode: OpQuery}})
		wantProtocolError(t, err, "Wrong protocol direction")
	})
}
