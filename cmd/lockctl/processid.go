package main

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// maxHostPart bounds the host name's share of a process id, so that the id
// stays well inside the 255 bytes a Locker accepts.
const maxHostPart = 200

// processID names this lockctl process in the census and in its owner ids:
// "lockctl-", the host name with every byte outside [A-Za-z0-9._:-] made
// '-' and cut to maxHostPart bytes, '-', and 64 random bits in hex, so two
// lockctl runs on one host never share an id. A Locker refuses a process id
// that is not 1 to 255 bytes of [A-Za-z0-9._:-]; this one always is.
func processID(host string) string {
	var b strings.Builder
	b.WriteString("lockctl-")
	for i := 0; i < len(host) && i < maxHostPart; i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			c = '-'
		}
		b.WriteByte(c)
	}
	var r [8]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails on supported platforms
	b.WriteByte('-')
	b.WriteString(hex.EncodeToString(r[:]))
	return b.String()
}
