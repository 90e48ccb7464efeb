package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockstep-go/lockstep/lockd"
)

// httpLimits are the HTTP server's timeouts and header limit.
type httpLimits struct {
	readHeaderTimeout time.Duration
	readTimeout       time.Duration
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	maxHeaderBytes    int
}

// Defaults of the HTTP server's limits.
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 30 * time.Second
	defaultWriteTimeout      = 30 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
	defaultMaxHeaderBytes    = 64 << 10
)

// registerLimits adds the flags of the lock service's limits and of the
// HTTP server's.
func registerLimits(fs *pflag.FlagSet, o *options) {
	l := &o.limits
	fs.Int64Var(&l.MaxBodyBytes, "max-body-bytes", lockd.DefaultMaxBodyBytes, "largest request body (and message) read, in bytes; a body is read only once the caller's credentials passed")
	fs.IntVar(&l.MaxSessionName, "max-session-name", lockd.DefaultMaxSessionName, "longest session name OpenSession accepts, in bytes")
	fs.IntVar(&l.MaxComment, "max-comment", lockd.DefaultMaxComment, fmt.Sprintf("longest Lock comment accepted, in bytes (at most %d: it is stored in every wait record)", lockd.CommentCeiling))
	fs.IntVar(&l.MaxIDsPerRequest, "max-ids-per-request", lockd.DefaultMaxIDsPerRequest, "most ids (items) one Lock or TryLock may name")
	fs.IntVar(&l.MaxSessionsPerPrincipal, "max-sessions-per-principal", lockd.DefaultMaxSessionsPerPrincipal, "most live sessions of one principal (in open mode, of all callers)")
	fs.IntVar(&l.MaxWaitsPerSession, "max-waits-per-session", lockd.DefaultMaxWaitsPerSession, "most Lock calls of one session waiting at once (TryLock does not count)")
	h := &o.http
	fs.DurationVar(&h.readHeaderTimeout, "read-header-timeout", defaultReadHeaderTimeout, "longest time to read a request's headers")
	fs.DurationVar(&h.readTimeout, "read-timeout", defaultReadTimeout, "longest time to read a request's body, counted from its headers; a blocking Lock's wait after it is not cut (--max-wait bounds it)")
	fs.DurationVar(&h.writeTimeout, "write-timeout", defaultWriteTimeout, "longest time one write of a response (a Lock's answer, one event of WatchSession) may take; the waits between writes are not cut")
	fs.DurationVar(&h.idleTimeout, "idle-timeout", defaultIdleTimeout, "how long a connection with no request in flight stays open")
	fs.IntVar(&h.maxHeaderBytes, "max-header-bytes", defaultMaxHeaderBytes, "largest request header block read, in bytes")
}

// validate refuses a limit that is not positive.
func (h *httpLimits) validate() error {
	for _, f := range []struct {
		flag string
		d    time.Duration
	}{{"read-header-timeout", h.readHeaderTimeout}, {"read-timeout", h.readTimeout}, {"write-timeout", h.writeTimeout}, {"idle-timeout", h.idleTimeout}} {
		if f.d <= 0 {
			return fmt.Errorf("--%s %v: want a positive duration", f.flag, f.d)
		}
	}
	if h.maxHeaderBytes <= 0 {
		return fmt.Errorf("--max-header-bytes %d: want a positive number of bytes", h.maxHeaderBytes)
	}
	return nil
}
