package clusterstore

import (
	"errors"
	"net"
	"os"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/cqlerr"
)

// clusterError turns the cluster's Unavailable, timeout and failure errors
// into the same errors for the client, with the cluster's message and
// counts (the consistency is the gateway's), so drivers retry or report
// them as they would for Cassandra itself; other errors pass unchanged.
func clusterError(err error) error {
	if err == nil {
		return nil
	}
	var (
		unavailable  *gocql.RequestErrUnavailable
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
		writeFailure *gocql.RequestErrWriteFailure
		readFailure  *gocql.RequestErrReadFailure
	)
	switch {
	case errors.As(err, &unavailable):
		e := &cqlerr.Error{Code: cqlerr.Unavailable, Message: unavailable.Message()}
		e.Consistency, e.Required, e.Alive = uint16(unavailable.Consistency), int32(unavailable.Required), int32(unavailable.Alive)
		return e
	case errors.As(err, &writeTimeout):
		e := &cqlerr.Error{Code: cqlerr.WriteTimeout, Message: writeTimeout.Message()}
		e.Consistency, e.Received, e.BlockFor = uint16(writeTimeout.Consistency), int32(writeTimeout.Received), int32(writeTimeout.BlockFor)
		e.WriteType = writeTimeout.WriteType
		return e
	case errors.As(err, &readTimeout):
		e := &cqlerr.Error{Code: cqlerr.ReadTimeout, Message: readTimeout.Message()}
		e.Consistency, e.Received, e.BlockFor = uint16(readTimeout.Consistency), int32(readTimeout.Received), int32(readTimeout.BlockFor)
		e.DataPresent = readTimeout.DataPresent != 0
		return e
	case errors.As(err, &writeFailure):
		e := &cqlerr.Error{Code: cqlerr.WriteFailure, Message: writeFailure.Message()}
		e.Consistency, e.Received, e.BlockFor = uint16(writeFailure.Consistency), int32(writeFailure.Received), int32(writeFailure.BlockFor)
		e.NumFailures, e.WriteType = int32(writeFailure.NumFailures), writeFailure.WriteType
		return e
	case errors.As(err, &readFailure):
		e := &cqlerr.Error{Code: cqlerr.ReadFailure, Message: readFailure.Message()}
		e.Consistency, e.Received, e.BlockFor = uint16(readFailure.Consistency), int32(readFailure.Received), int32(readFailure.BlockFor)
		e.NumFailures, e.DataPresent = int32(readFailure.NumFailures), readFailure.DataPresent
		return e
	}
	// The cluster refuses a client's consistency level as Cassandra does
	// (ConsistencyLevel.validateForRead/validateForWrite: SERIAL for a
	// plain write, ANY for a read): the same InvalidRequest.
	var request gocql.RequestError
	if errors.As(err, &request) && request.Code() == gocql.ErrCodeInvalid {
		return &cqlerr.Error{Code: cqlerr.Invalid, Message: request.Message()}
	}
	return err
}

// Transient reports whether err is the cluster being slow or short of
// replicas for a moment (a timeout, Unavailable, Overloaded, a node
// bootstrapping, a connection closed or none open) rather than a refusal
// that would repeat: a caller may try again. A failure to connect at all
// (Open's "connect" error: no node answers, a TLS or authentication
// refusal) is not transient.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, gocql.ErrNoConnections) ||
		errors.Is(err, gocql.ErrConnectionClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if e := cqlerr.As(clusterError(err)); e != nil {
		switch e.Code {
		case cqlerr.Unavailable, cqlerr.Overloaded, cqlerr.IsBootstrapping, cqlerr.WriteTimeout, cqlerr.ReadTimeout:
			return true
		}
	}
	return false
}
