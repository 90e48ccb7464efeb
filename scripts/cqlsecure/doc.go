// Command cqlsecure retires the default superuser of a fresh node started
// with PasswordAuthenticator (scripts/cassandra up --secure): logged in as
// cassandra/cassandra it creates a superuser with a strong random password,
// which it writes to -new-password-file (mode 0600); logged in as that
// superuser it drops the role cassandra; then it checks that cassandra can no
// longer log in. This is the procedure Cassandra's documentation gives for
// any cluster that turns authentication on.
//
//	cqlsecure -host 127.0.0.21 -username cassandra -password-file F \
//	    -tls-ca ca.pem -tls-cert client.pem -tls-key client-key.pem \
//	    -superuser lockstep_root -new-password-file root.password
//
// Exit status 0 when done, 1 on any failure (the reason on stderr).
package main
