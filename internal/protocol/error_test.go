package protocol

import (
	"bytes"
	"errors"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
)

var errorSamples = []Message{
	&ErrorMessage{Err: cqlerr.Serverf("boom")},
	&ErrorMessage{Err: cqlerr.Protocolf("Unknown opcode 4")},
	&ErrorMessage{Err: cqlerr.New(cqlerr.BadCredentials, "Provided username X and/or password are incorrect")},
	&ErrorMessage{Err: &cqlerr.Error{Code: cqlerr.Unavailable, Message: "Cannot achieve consistency level QUORUM",
		Consistency: uint16(Quorum), Required: 2, Alive: 1}},
	&ErrorMessage{Err: cqlerr.New(cqlerr.Overloaded, "overloaded")},
	&ErrorMessage{Err: cqlerr.New(cqlerr.IsBootstrapping, "bootstrapping")},
	&ErrorMessage{Err: cqlerr.New(cqlerr.TruncateError, "truncate failed")},
	&ErrorMessage{Err: &cqlerr.Error{Code: cqlerr.WriteTimeout, Message: "timeout",
		Consistency: uint16(One), Received: 0, BlockFor: 1, WriteType: "SIMPLE"}},
	&ErrorMessage{Err: &cqlerr.Error{Code: cqlerr.ReadTimeout, Message: "timeout",
		Consistency: uint16(LocalQuorum), Received: 1, BlockFor: 2, DataPresent: true}},
	&ErrorMessage{Err: &cqlerr.Error{Code: cqlerr.ReadFailure, Message: "failure",
		Consistency: uint16(All), Received: 1, BlockFor: 3, NumFailures: 2}},
	&ErrorMessage{Err: &cqlerr.Error{Code: cqlerr.FunctionFailure, Message: "fn failed",
		Keyspace: "ks", Function: "f", ArgTypes: []string{"int", "frozen<list<text>>"}}},
	&ErrorMessage{Err: &cqlerr.Error{Code: cqlerr.WriteFailure, Message: "failure",
		Consistency: uint16(Two), Received: 1, BlockFor: 2, NumFailures: 1, WriteType: "BATCH_LOG"}},
	&ErrorMessage{Err: cqlerr.Syntaxf("line 1:0 no viable alternative at input 'SELEC'")},
	&ErrorMessage{Err: cqlerr.New(cqlerr.Unauthorized, "no")},
	&ErrorMessage{Err: cqlerr.Invalidf("unconfigured table peers_v2")},
	&ErrorMessage{Err: cqlerr.Configf("bad config")},
	&ErrorMessage{Err: cqlerr.NewAlreadyExists("ks", "", "Keyspace ks already exists")},
	&ErrorMessage{Err: cqlerr.NewAlreadyExists("ks", "t", "Cannot add already existing table \"t\" to keyspace \"ks\"")},
	&ErrorMessage{Err: cqlerr.NewUnprepared([]byte{0xDE, 0xAD})},
}

func TestErrorMessage(t *testing.T) {
	for _, m := range errorSamples {
		t.Run(describe(m), func(t *testing.T) { checkRoundTrip(t, m) })
	}
	golden := []struct {
		name string
		err  *cqlerr.Error
		want string
	}{
		{"invalid", cqlerr.Invalidf("bad"), `00002200 0003 626164`},
		{"already exists keyspace", cqlerr.NewAlreadyExists("ks", "", "x"),
			`00002400 0001 78  0002 6b73  0000`},
		{"unprepared", &cqlerr.Error{Code: cqlerr.Unprepared, Message: "", UnpreparedID: []byte{1, 2}},
			`00002500 0000 0002 0102`},
		{"unavailable", &cqlerr.Error{Code: cqlerr.Unavailable, Consistency: 4, Required: 2, Alive: 1},
			`00001000 0000 0004 00000002 00000001`},
		{"read timeout", &cqlerr.Error{Code: cqlerr.ReadTimeout, Consistency: 1, Received: 0, BlockFor: 1, DataPresent: true},
			`00001200 0000 0001 00000000 00000001 01`},
		{"write timeout", &cqlerr.Error{Code: cqlerr.WriteTimeout, Consistency: 1, BlockFor: 1, WriteType: "CAS"},
			`00001100 0000 0001 00000000 00000001 0003 434153`},
		{"read failure", &cqlerr.Error{Code: cqlerr.ReadFailure, Consistency: 1, Received: 1, BlockFor: 1, NumFailures: 1},
			`00001300 0000 0001 00000001 00000001 00000001 00`},
		{"write failure", &cqlerr.Error{Code: cqlerr.WriteFailure, Consistency: 1, NumFailures: 1, WriteType: "SIMPLE"},
			`00001500 0000 0001 00000000 00000000 00000001 0006 53494d504c45`},
		{"function failure", &cqlerr.Error{Code: cqlerr.FunctionFailure, Keyspace: "k", Function: "f", ArgTypes: []string{"int"}},
			`00001400 0000 0001 6b 0001 66 0001 0003 696e74`},
	}
	for _, tc := range golden {
		t.Run("golden "+tc.name, func(t *testing.T) {
			if got := (&ErrorMessage{Err: tc.err}).Encode(nil); !bytes.Equal(got, unhex(t, tc.want)) {
				t.Fatalf("got %x want %s", got, tc.want)
			}
		})
	}
	t.Run("plain error becomes Server error", func(t *testing.T) {
		m := NewErrorMessage(errors.New("disk on fire"))
		if m.Err.Code != cqlerr.ServerError || m.Err.Message != "disk on fire" {
			t.Fatalf("got %v", m.Err)
		}
	})
	t.Run("nil error", func(t *testing.T) {
		if got := (&ErrorMessage{}).Encode(nil); !bytes.Equal(got, unhex(t, `00000000 0000`)) {
			t.Fatalf("got %x", got)
		}
	})
}
