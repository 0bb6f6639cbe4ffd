package clusterstore

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/cqlerr"
)

func TestClusterErrorKeepsTheKind(t *testing.T) {
	for _, tc := range []struct {
		in   error
		want cqlerr.Error
	}{
		{&gocql.RequestErrUnavailable{Consistency: gocql.Quorum, Required: 2, Alive: 1},
			cqlerr.Error{Code: cqlerr.Unavailable, Consistency: uint16(gocql.Quorum), Required: 2, Alive: 1}},
		{&gocql.RequestErrWriteTimeout{Consistency: gocql.LocalQuorum, Received: 1, BlockFor: 2, WriteType: "BATCH"},
			cqlerr.Error{Code: cqlerr.WriteTimeout, Consistency: uint16(gocql.LocalQuorum), Received: 1, BlockFor: 2, WriteType: "BATCH"}},
		{&gocql.RequestErrReadTimeout{Consistency: gocql.One, BlockFor: 1, DataPresent: 1},
			cqlerr.Error{Code: cqlerr.ReadTimeout, Consistency: uint16(gocql.One), BlockFor: 1, DataPresent: true}},
	} {
		got := cqlerr.As(fmt.Errorf("clusterstore: write: %w", clusterError(tc.in)))
		if fmt.Sprint(*got) != fmt.Sprint(tc.want) {
			t.Errorf("%T: got %+v, want %+v", tc.in, *got, tc.want)
		}
	}
	other := errors.New("no connections")
	if clusterError(other) != other {
		t.Error("an error of another kind was changed")
	}
}

// TestTransient: timeouts and a short cluster are worth another try; a
// refusal or a failure to connect is not.
func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{gocql.ErrTimeoutNoResponse, true},
		{fmt.Errorf("clusterstore: create tables: %w", gocql.ErrNoConnections), true},
		{&gocql.RequestErrWriteTimeout{Consistency: gocql.Quorum, BlockFor: 2}, true},
		{clusterError(&gocql.RequestErrReadTimeout{Consistency: gocql.One, BlockFor: 1}), true},
		{&gocql.RequestErrUnavailable{Consistency: gocql.Quorum, Required: 2, Alive: 1}, true},
		{cqlerr.NewOverloaded("busy"), true},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), true},
		{nil, false},
		{errors.New("clusterstore: connect: gocql: unable to create session: x509: certificate signed by unknown authority"), false},
		{&cqlerr.Error{Code: cqlerr.Invalid, Message: "Keyspace names must be shorter than 48 characters"}, false},
		{&cqlerr.Error{Code: cqlerr.BadCredentials, Message: "Provided username and/or password are incorrect"}, false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
