package deadlock

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// A comment that is not valid UTF-8 survives the record byte for byte; a
// valid one is written in "c" alone.
func TestRecord_KeepsTheCommentByteForByte(t *testing.T) {
	for _, c := range []string{"ok\xff\xfe", "\xc3", "invoice 42", "日本", ""} {
		in := Record{Process: "p", Waits: lockstep.Request{ID: "a"}, Comment: c, Start: 7}
		v, err := in.encode()
		require.NoError(t, err)
		var out Record
		require.True(t, out.decode(v), "%s", v)
		assert.Equal(t, c, out.Comment, "%s", v)
		assert.Nil(t, out.RawComment)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(v, &raw))
		_, hasRaw := raw["cb"]
		assert.Equal(t, c == "ok\xff\xfe" || c == "\xc3", hasRaw, "cb only for a comment that is not UTF-8: %s", v)
	}
}

// A record with "c" only decodes with that comment, and a reader that
// knows only "c" decodes a record carrying "cb" too.
func TestRecord_ReadsAcrossTheCommentEncodings(t *testing.T) {
	var r Record
	require.True(t, r.decode([]byte(`{"p":"p","w":{"ID":"a","Access":1},"c":"why","s":1}`)))
	assert.Equal(t, "why", r.Comment)

	in := Record{Process: "p", Waits: lockstep.Request{ID: "a"}, Comment: "ok\xff\xfe", Start: 1}
	v, err := in.encode()
	require.NoError(t, err)
	var plain struct {
		Process string           `json:"p"`
		Waits   lockstep.Request `json:"w"`
		Comment string           `json:"c"`
	}
	require.NoError(t, json.Unmarshal(v, &plain))
	assert.Equal(t, "ok\uFFFD\uFFFD", plain.Comment)
	assert.Equal(t, "a", plain.Waits.ID)
}
