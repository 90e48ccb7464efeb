package main

import (
	"crypto/tls"
	"log/slog"
	"sync/atomic"

	"github.com/lockstep-go/lockstep/lockd"
)

// reloader reads lockd's credentials again on SIGHUP: the principals file
// (tokens, certificate names, grants) and the TLS files (--server-cert,
// --server-key, --client-ca). It reads every file first and puts the new
// credentials in use only if all of them read well; otherwise it keeps
// those in use and logs why. Sessions are untouched: a session stays its
// principal's (by name), its locks held; calls from then on are
// authenticated and granted by the new files, and TLS handshakes use the
// new certificates while open connections keep theirs.
type reloader struct {
	o   *options
	srv *lockd.Server
	tls *atomic.Pointer[tls.Config] // nil without TLS
	log *slog.Logger
}

// reload reloads the credentials, or keeps them, and logs which.
func (r *reloader) reload() {
	if r.o.principals == "" && r.tls == nil {
		r.log.Warn("lockd: SIGHUP: nothing to reload (no --principals, no TLS)")
		return
	}
	var ps *lockd.Principals
	var cfg *tls.Config
	var err error
	if r.o.principals != "" {
		ps, err = lockd.LoadPrincipals(r.o.principals)
	}
	if err == nil && r.tls != nil {
		cfg, err = loadTLS(r.o)
	}
	if err != nil {
		r.log.Warn("lockd: reload failed; the credentials in use are kept", "error", err.Error())
		return
	}
	if ps != nil {
		if err := r.srv.SetPrincipals(ps); err != nil {
			r.log.Warn("lockd: reload failed; the credentials in use are kept", "error", err.Error())
			return
		}
	}
	if cfg != nil {
		r.tls.Store(cfg)
	}
	r.log.Info("lockd: credentials reloaded", "principals", r.o.principals, "tls", r.tls != nil)
}
