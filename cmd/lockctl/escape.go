package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// What lockctl prints from the store or a lockd (owner ids, lock ids,
// session names, principals, process names, hosts, error messages) is
// written by others. Printed raw, a newline forges a row in a table, ESC
// sequences clear or rewrite the operator's screen, and a bidi override
// reorders what is read. So every such datum goes through field (a value
// in a column or a list) or text (a message) on its way to a terminal, and
// writeJSON escapes what encoding/json leaves raw.

// field renders one datum for text output: as it is when it is valid UTF-8,
// every rune is printable (unicode.IsPrint) and it has no space and no
// double quote; otherwise quoted as strconv.Quote does, so a quoted field
// always means "escaped" and never spans columns or rows. "-" is quoted
// too: the tables print a bare "-" for "none".
func field(s string) string {
	if s == "-" || needsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

func needsQuote(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r == ' ' || r == '"' || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}

// text escapes, in place, every rune of a message that is not printable
// (unicode.IsPrint: control characters, ESC, DEL, bidi overrides, line
// separators) as strconv.Quote writes it (\n, \x1b, \u202e) and every byte
// that is not UTF-8 as \xNN; printable runes, spaces included, stay.
func text(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// escapeJSON rewrites, in encoding/json's output, every rune that is not
// printable as a \uXXXX escape (a surrogate pair above U+FFFF). JSON
// already escapes control characters below U+0020 and U+2028/U+2029 but
// writes DEL, the C1 controls (U+009B is CSI to some terminals) and bidi
// overrides raw. Outside strings its output is printable ASCII, so every
// rune rewritten is inside a string, and the document decodes to the same
// values.
func escapeJSON(doc []byte) []byte {
	if !bytes.ContainsFunc(doc, func(r rune) bool { return !unicode.IsPrint(r) && r != '\n' && r != ' ' }) {
		return doc
	}
	var b bytes.Buffer
	for _, r := range string(doc) {
		switch {
		case r == '\n' || r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.Bytes()
}
