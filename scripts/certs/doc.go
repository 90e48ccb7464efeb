// Command certs writes the throwaway PKI of a secure test node
// (scripts/cassandra up --secure): a CA, a node certificate for the given
// loopback addresses, a client certificate, and an unrelated second CA that
// tests use to check that a wrong CA is refused. Nothing it writes is ever
// committed; every run makes new keys.
//
//	go run ./scripts/certs -dir STATE/tls -ips 127.0.0.21,127.0.0.22
//
// Files, all PEM (keys are unencrypted PKCS#8, mode 0600):
//
//	ca.pem           the CA certificate: clients verify the node with it,
//	                 the node verifies client certificates with it
//	node-keystore.pem node key and certificate chain, the keystore of
//	                 Cassandra's PEMBasedSslContextFactory
//	node.pem         the node certificate alone (SANs: the -ips, localhost)
//	client.pem       client certificate (CN lockstep-client)
//	client-key.pem   its key
//	other-ca.pem     a CA that signed nothing here (the "wrong CA")
//
// Keys are ECDSA P-256; certificates are valid from an hour ago for 30 days.
package main
