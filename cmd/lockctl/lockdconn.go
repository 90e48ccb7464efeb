package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// lockdTarget is how lockctl reaches lockd servers rather than the cluster
// (sessions, view): their URLs, a bearer token and the CA of their
// certificates, from flags or the environment.
type lockdTarget struct {
	urls      []string
	tokenFile string
	ca        string
}

// register adds --lockd, --lockd-token-file and --lockd-ca to fs.
func (c *lockdTarget) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&c.urls, "lockd", nil, "comma-separated lockd URLs, http://host:port or https://host:port ($LOCKSTEP_LOCKD_URL)")
	fs.StringVar(&c.tokenFile, "lockd-token-file", "", "file whose first line is the bearer token (else $LOCKSTEP_LOCKD_TOKEN)")
	fs.StringVar(&c.ca, "lockd-ca", "", "PEM CA that signed the lockds' certificates (default: the system roots) ($LOCKSTEP_LOCKD_CA)")
}

// fromEnv fills the flags not given (and the global --output) from the
// environment.
func (c *lockdTarget) fromEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	if v := strings.TrimSpace(getenv("LOCKSTEP_OUTPUT")); v != "" && !fs.Changed("output") {
		if err := fs.Lookup("output").Value.Set(v); err != nil {
			return fmt.Errorf("LOCKSTEP_OUTPUT=%q (for --output): %w", v, err)
		}
	}
	if !fs.Changed("lockd") {
		c.urls = splitList(getenv("LOCKSTEP_LOCKD_URL"))
	}
	if !fs.Changed("lockd-ca") {
		c.ca = strings.TrimSpace(getenv("LOCKSTEP_LOCKD_CA"))
	}
	return nil
}

// prepare checks the URLs and builds the HTTP client and the token.
func (c *lockdTarget) prepare(getenv func(string) string) (*http.Client, string, error) {
	if len(c.urls) == 0 {
		return nil, "", errors.New("no lockd named: give --lockd http://host:port (or LOCKSTEP_LOCKD_URL); lockctl fleet lists the lockd processes of the fleet")
	}
	for _, u := range c.urls {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, "", fmt.Errorf("--lockd %q: want http://host:port or https://host:port", u)
		}
	}
	token := strings.TrimSpace(getenv("LOCKSTEP_LOCKD_TOKEN"))
	if c.tokenFile != "" {
		raw, err := os.ReadFile(c.tokenFile)
		if err != nil {
			return nil, "", fmt.Errorf("--lockd-token-file: %w", err)
		}
		line, _, _ := strings.Cut(string(raw), "\n")
		if token = strings.TrimSpace(line); token == "" {
			return nil, "", fmt.Errorf("--lockd-token-file %s: its first line is empty (want the bearer token on it)", c.tokenFile)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.ca != "" {
		pem, err := os.ReadFile(c.ca)
		if err != nil {
			return nil, "", fmt.Errorf("--lockd-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, "", fmt.Errorf("--lockd-ca %s: no PEM certificate in it (want the CA that signed the lockds' certificates)", c.ca)
		}
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}, token, nil
}

// unreachable is the error for a lockd that could not be reached.
func unreachable(base string, err error) error {
	return &exitError{code: exitUnreachable, err: fmt.Errorf("cannot reach lockd at %s: %w; check --lockd (and --lockd-ca for https)", base, err)}
}
