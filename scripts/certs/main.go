package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", "", "directory to write the files to (created if missing)")
	ips := flag.String("ips", "127.0.0.1", "comma-separated node addresses for the node certificate's SANs")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "certs: -dir is required (e.g. -dir /tmp/lockstep-secure/tls)")
		os.Exit(2)
	}
	var addrs []net.IP
	for _, s := range strings.Split(*ips, ",") {
		ip := net.ParseIP(strings.TrimSpace(s))
		if ip == nil {
			fmt.Fprintf(os.Stderr, "certs: -ips: %q is not an IP address\n", s)
			os.Exit(2)
		}
		addrs = append(addrs, ip)
	}
	if err := write(*dir, addrs); err != nil {
		fmt.Fprintf(os.Stderr, "certs: %v\n", err)
		os.Exit(1)
	}
}

type keyPair struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
}

func write(dir string, ips []net.IP) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := issue(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "lockstep test CA", Organization: []string{"lockstep"}},
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}, nil)
	if err != nil {
		return err
	}
	other, err := issue(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "unrelated test CA", Organization: []string{"elsewhere"}},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}, nil)
	if err != nil {
		return err
	}
	node, err := issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "lockstep test node", Organization: []string{"lockstep"}},
		IPAddresses: ips,
		DNSNames:    []string{"localhost"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}, ca)
	if err != nil {
		return err
	}
	client, err := issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "lockstep-client", Organization: []string{"lockstep"}},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, ca)
	if err != nil {
		return err
	}
	nodeKey, err := keyPEM(node.key)
	if err != nil {
		return err
	}
	clientKey, err := keyPEM(client.key)
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data [][]byte
		mode os.FileMode
	}{
		{"ca.pem", [][]byte{certPEM(ca)}, 0o644},
		{"other-ca.pem", [][]byte{certPEM(other)}, 0o644},
		{"node.pem", [][]byte{certPEM(node)}, 0o644},
		{"node-keystore.pem", [][]byte{nodeKey, certPEM(node), certPEM(ca)}, 0o600},
		{"client.pem", [][]byte{certPEM(client)}, 0o644},
		{"client-key.pem", [][]byte{clientKey}, 0o600},
	}
	for _, f := range files {
		var all []byte
		for _, d := range f.data {
			all = append(all, d...)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), all, f.mode); err != nil {
			return err
		}
	}
	return nil
}

// issue creates a key and a certificate from tmpl signed by parent (self-signed
// when parent is nil).
func issue(tmpl *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(30 * 24 * time.Hour)
	signer, signerCert := key, tmpl
	if parent != nil {
		signer, signerCert = parent.key, parent.cert
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, &key.PublicKey, signer)
	if err != nil {
		return nil, fmt.Errorf("certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	if parent != nil {
		pool := x509.NewCertPool()
		pool.AddCert(parent.cert)
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
			return nil, errors.Join(fmt.Errorf("certificate %q does not verify against its CA", tmpl.Subject.CommonName), err)
		}
	}
	return &keyPair{cert: cert, der: der, key: key}, nil
}

func certPEM(k *keyPair) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.der})
}

func keyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
