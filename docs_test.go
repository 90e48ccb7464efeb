package lockstep_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// quoteMarker, on the line before a fenced block of a Markdown file, says
// the block is quoted from a committed file of the repository: a command's
// output under docs/benchmarks/ (whose own tests keep it equal to what the
// command prints now) or a tested source file, such as an Example.
var quoteMarker = regexp.MustCompile(`^<!-- quote: (\S+) -->$`)

// docFiles are the Markdown files whose quotes are checked.
func docFiles(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	files := []string{"README.md", "BENCHMARKS.md", "ROBUSTNESS.md"}
	more, err := fs.Glob(fsys, "docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// checkQuotes returns a problem for every quoted block of the files that
// is not, line for line, a contiguous run of the file it names (lines
// compared without their leading and trailing blanks, so Go code may be
// quoted without its indentation), and for every marker without a block.
func checkQuotes(fsys fs.FS, files []string) []string {
	var problems []string
	for _, name := range files {
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		lines := strings.Split(string(text), "\n")
		for i := 0; i < len(lines); i++ {
			m := quoteMarker.FindStringSubmatch(strings.TrimSpace(lines[i]))
			if m == nil {
				continue
			}
			at := fmt.Sprintf("%s:%d", name, i+1)
			block, end, ok := fencedBlockAfter(lines, i+1)
			if !ok {
				problems = append(problems, at+": a quote marker without a fenced block after it")
				continue
			}
			i = end
			src, err := fs.ReadFile(fsys, path.Clean(m[1]))
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: the quoted file: %v", at, err))
				continue
			}
			if d := quoteDifference(block, strings.Split(string(src), "\n")); d != "" {
				problems = append(problems, fmt.Sprintf("%s: the block quoted from %s %s", at, m[1], d))
			}
		}
	}
	return problems
}

// fencedBlockAfter returns the lines of the fenced block that starts at
// lines[i] (blank lines before it allowed), and the index of its closing
// fence.
func fencedBlockAfter(lines []string, i int) ([]string, int, bool) {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || !strings.HasPrefix(lines[i], "```") {
		return nil, 0, false
	}
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], "```") {
			return lines[i+1 : j], j, true
		}
	}
	return nil, 0, false
}

// quoteDifference is "" when block is a contiguous run of src; otherwise
// it says where the closest run (the one agreeing longest from its first
// line) departs from the block.
func quoteDifference(block, src []string) string {
	trim := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = strings.TrimSpace(x)
		}
		return out
	}
	b, s := trim(block), trim(src)
	if len(b) == 0 {
		return "is empty"
	}
	best, bestAt := -1, -1
	for start := range s {
		n := 0
		for n < len(b) && start+n < len(s) && s[start+n] == b[n] {
			n++
		}
		if n == len(b) {
			return ""
		}
		if n > best {
			best, bestAt = n, start
		}
	}
	if best <= 0 {
		return fmt.Sprintf("is not in it: its first line %q is nowhere there", b[0])
	}
	have := "(the file ends)"
	if bestAt+best < len(s) {
		have = fmt.Sprintf("%q", s[bestAt+best])
	}
	return fmt.Sprintf("differs from it: the block's line %d is %q where the file's line %d is %s",
		best+1, b[best], bestAt+best+1, have)
}

// Every block the docs quote from a committed output or a source file is
// that file's text now. Together with the tests that keep each committed
// output equal to what its command prints (cmd/lockbench's
// TestCommittedOutputs_AreWhatLockbenchPrintsNow, migration's
// TestHeldLockCost_CommittedCountsHold), a deterministic figure the docs
// quote cannot drift from the code.
func TestDocs_QuotedBlocksAreTheFilesTheyQuote(t *testing.T) {
	fsys := os.DirFS(".")
	files := docFiles(t, fsys)
	quotes := 0
	for _, f := range files {
		text, err := fs.ReadFile(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		quotes += strings.Count(string(text), "<!-- quote: ")
	}
	if quotes == 0 {
		t.Fatal("no quoted block in the docs: the check would pass on anything")
	}
	for _, p := range checkQuotes(fsys, files) {
		t.Error(p)
	}
	t.Logf("%d quoted blocks in %d files", quotes, len(files))
}

// The checker itself: a changed figure, a missing file and a marker
// without a block are each reported; an exact quote and an indented Go
// quote are not.
func TestCheckQuotes_ReportsAChangedFigure(t *testing.T) {
	out := "$ go test -bench HeldLockCost\nlegacy  1,764 B  6 requests\ncombined  3,307 B  8 requests\nPASS\n"
	fsys := fstest.MapFS{
		"docs/benchmarks/out.txt": {Data: []byte(out)},
		"example_test.go":         {Data: []byte("func Example() {\n\tfmt.Println(1)\n\t// Output:\n\t// 1\n}\n")},
		"exact.md":                {Data: []byte("x\n<!-- quote: docs/benchmarks/out.txt -->\n```\nlegacy  1,764 B  6 requests\ncombined  3,307 B  8 requests\n```\n")},
		"gocode.md":               {Data: []byte("<!-- quote: example_test.go -->\n```go\nfmt.Println(1)\n// Output:\n```\n")},
		"changed.md":              {Data: []byte("a\nb\n<!-- quote: docs/benchmarks/out.txt -->\n\n```text\nlegacy  1,747 B  6 requests\n```\n")},
		"changed2.md":             {Data: []byte("<!-- quote: docs/benchmarks/out.txt -->\n```\nlegacy  1,764 B  6 requests\ncombined  3,226 B  8 requests\n```\n")},
		"missing.md":              {Data: []byte("<!-- quote: docs/benchmarks/gone.txt -->\n```\nx\n```\n")},
		"noblock.md":              {Data: []byte("<!-- quote: docs/benchmarks/out.txt -->\nprose\n")},
	}
	if p := checkQuotes(fsys, []string{"exact.md", "gocode.md"}); len(p) != 0 {
		t.Errorf("exact quotes reported: %q", p)
	}
	for _, c := range []struct{ file, want string }{
		{"changed.md", `changed.md:3: the block quoted from docs/benchmarks/out.txt is not in it: its first line "legacy  1,747 B  6 requests" is nowhere there`},
		{"changed2.md", `changed2.md:1: the block quoted from docs/benchmarks/out.txt differs from it: the block's line 2 is "combined  3,226 B  8 requests" where the file's line 3 is "combined  3,307 B  8 requests"`},
		{"missing.md", "missing.md:1: the quoted file: open docs/benchmarks/gone.txt: file does not exist"},
		{"noblock.md", "noblock.md:1: a quote marker without a fenced block after it"},
	} {
		p := checkQuotes(fsys, []string{c.file})
		if len(p) != 1 || p[0] != c.want {
			t.Errorf("%s: got %q, want [%q]", c.file, p, c.want)
		}
	}
}
