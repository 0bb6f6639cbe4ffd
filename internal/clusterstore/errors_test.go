package clusterstore

import (
	"errors"
	"fmt"
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
