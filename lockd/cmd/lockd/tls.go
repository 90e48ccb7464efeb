package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// serverTLS returns the listener's TLS configuration, nil for plain
// (cleartext h2c) serving, and the configuration each handshake uses,
// which reload replaces: it reads --server-cert, --server-key and
// --client-ca again, so that renewed certificates take effect without a
// restart and without closing a connection.
func serverTLS(o *options) (*tls.Config, *atomic.Pointer[tls.Config], error) {
	cfg, err := loadTLS(o)
	if cfg == nil || err != nil {
		return nil, nil, err
	}
	cur := new(atomic.Pointer[tls.Config])
	cur.Store(cfg)
	listener := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: cfg.NextProtos,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return cur.Load(), nil }}
	return listener, cur, nil
}

// loadTLS builds the TLS configuration from --server-cert, --server-key,
// --client-ca and --require-client-cert, reading the files; nil without
// TLS.
func loadTLS(o *options) (*tls.Config, error) {
	if o.serverCert == "" && o.serverKey == "" {
		if o.clientCA != "" || o.requireClientCert {
			return nil, errors.New("--client-ca and --require-client-cert need TLS: give --server-cert and --server-key too")
		}
		return nil, nil
	}
	if o.serverCert == "" || o.serverKey == "" {
		return nil, errors.New("--server-cert and --server-key go together: give both or neither")
	}
	pair, err := tls.LoadX509KeyPair(o.serverCert, o.serverKey)
	if err != nil {
		return nil, fmt.Errorf("--server-cert %s / --server-key %s: %w", o.serverCert, o.serverKey, err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}, NextProtos: []string{"h2", "http/1.1"}}
	if o.clientCA != "" {
		pem, err := os.ReadFile(o.clientCA)
		if err != nil {
			return nil, fmt.Errorf("--client-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--client-ca %s: no PEM certificate in it (want the CA that signs the clients' certificates)", o.clientCA)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
		if o.requireClientCert {
			cfg.ClientAuth = tls.RequireAndVerifyClientCert
		}
	} else if o.requireClientCert {
		return nil, errors.New("--require-client-cert needs --client-ca: the CA that signs the clients' certificates")
	}
	return cfg, nil
}
