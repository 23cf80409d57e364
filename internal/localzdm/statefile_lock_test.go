//go:build unix

package localzdm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateFileLockedThroughHardLink: a second server on the state file of a
// running one, named through a hard link (another name, another directory:
// the lock file beside it is another file), refuses to start with a message
// saying so; once the first server stops, the hard link starts.
func TestStateFileLockedThroughHardLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	first := mustNew(t, file)
	if _, err := first.EnsureBootstrap(Bootstrap{}); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil { // writes the state file
		t.Fatal(err)
	}
	s := mustNew(t, file)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "sub", "hard.json")
	if err := os.Link(file, link); err != nil {
		t.Fatal(err)
	}
	if other, err := New(Options{StateFile: link}); err == nil {
		_ = other.Close()
		t.Fatalf("a second server on the hard link %s started", link)
	} else if !strings.Contains(err.Error(), "in use by another server under another name") {
		t.Fatalf("%s: %v, want the hard link's error", link, err)
	}
	other, err := New(Options{StateFile: filepath.Join(dir, "other.json")})
	if err != nil {
		t.Fatalf("control, another file: %v", err)
	}
	_ = other.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The snapshot Close wrote replaced the file under state.json: the link
	// now names the old file, which nobody holds.
	after, err := New(Options{StateFile: link})
	if err != nil {
		t.Fatalf("after the first server stopped: %v", err)
	}
	_ = after.Close()
}
