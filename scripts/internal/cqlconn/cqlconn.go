package cqlconn

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gocql/gocql"
)

// Flags are the security settings of one connection.
type Flags struct {
	Username     string
	PasswordFile string
	CA           string
	Cert, Key    string
}

// Register adds -username, -password-file, -tls-ca, -tls-cert and -tls-key
// to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Username, "username", "", "PasswordAuthenticator user (password from -password-file)")
	fs.StringVar(&f.PasswordFile, "password-file", "", "file whose first line is the password")
	fs.StringVar(&f.CA, "tls-ca", "", "PEM CA to verify the node with; turns TLS on")
	fs.StringVar(&f.Cert, "tls-cert", "", "PEM client certificate (with -tls-key)")
	fs.StringVar(&f.Key, "tls-key", "", "PEM client key (with -tls-cert)")
}

// Apply sets the authenticator and TLS of cluster from f. Each node is
// verified against the CA and by the address it is dialled at (gocql's
// default server name), which the node certificate of scripts/certs carries
// as a SAN.
func (f *Flags) Apply(cluster *gocql.ClusterConfig) error {
	if f.Username != "" {
		pw, err := ReadPassword(f.PasswordFile)
		if err != nil {
			return err
		}
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: f.Username, Password: pw}
	}
	if f.CA == "" {
		if f.Cert != "" || f.Key != "" {
			return fmt.Errorf("-tls-cert and -tls-key need -tls-ca")
		}
		return nil
	}
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		return fmt.Errorf("-tls-ca: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return fmt.Errorf("-tls-ca %s: no PEM certificate in it", f.CA)
	}
	cfg := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if (f.Cert == "") != (f.Key == "") {
		return fmt.Errorf("-tls-cert and -tls-key go together")
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return fmt.Errorf("client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	// EnableHostVerification: gocql then checks the certificate against
	// ServerName (the node's address), not only the chain.
	cluster.SslOpts = &gocql.SslOptions{Config: cfg, EnableHostVerification: true}
	return nil
}

// ReadPassword returns the first line of file.
func ReadPassword(file string) (string, error) {
	if file == "" {
		return "", fmt.Errorf("-username needs -password-file")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimRight(line, "\r")
	if line == "" {
		return "", fmt.Errorf("password file %s: first line is empty", file)
	}
	return line, nil
}
