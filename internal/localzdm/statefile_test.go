package localzdm

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// crash stops a server as kill -9 would leave its files: what the journal
// writer has written stays, nothing else is written, and the lock goes.
func crash(t *testing.T, s *Server) {
	t.Helper()
	if err := s.st.CrashForTest(); err != nil {
		t.Fatal(err)
	}
	s.closeOnce.Do(func() { close(s.closing); s.hooks.Stop() })
}

// stateJSON renders the whole state, without the time it was taken.
func stateJSON(t *testing.T, s *Server) string {
	t.Helper()
	st := s.st.CopyState()
	st.SavedAt, st.JournalGen = "", 0
	b, err := json.Marshal(&st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustNew(t *testing.T, file string) *Server {
	t.Helper()
	s, err := New(Options{StateFile: file})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// changeEverything makes every kind of change through the Go API.
func changeEverything(t *testing.T, s *Server) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.EnsureBootstrap(Bootstrap{})
	must(err)
	must(s.SetStorage(b.WorkspaceID, true))
	must(s.SetWebhook(b.WorkspaceID, "http://127.0.0.1:1/hook"))
	ids, err := s.CreateDevices(b.WorkspaceID, "", []string{"a", "b", "c"})
	must(err)
	other, err := s.CreateWorkspace(b.AccountID, "other")
	must(err)
	_, err = s.CreateDevices(other.WorkspaceID, "", []string{"x"})
	must(err)
	_, err = s.CreateKey(b.WorkspaceID)
	must(err)
	revoked, err := s.CreateKey(b.WorkspaceID)
	must(err)
	must(s.RevokeKey(revoked))
	s.st.Mu.Lock()
	w := s.st.Workspaces[b.WorkspaceID]
	f := s.st.NewFleetLocked(w, "extra", "")
	spare := s.st.NewFleetLocked(w, "spare", "")
	d := s.st.Devices[ids[0]]
	now := store.Timestamp(time.Now())
	setJobLocked(d, "reboot", json.RawMessage(`{"delay":1}`), now)
	setJobLocked(d, "purge-me", json.RawMessage(`{}`), now)
	d.FOTA = &fota{ScheduledAt: now, Status: FOTAStatusPending, FirmwareID: "fw", FirmwareVersion: "1"}
	s.st.Changed(f, spare, d)
	s.st.Mu.Unlock()
	must(s.SetJobStatus(ids[0], "reboot", JobStatusDone))
	must(s.PurgeJob(ids[0], "purge-me"))
	must(s.SetFOTAStatus(ids[0], "failed"))
	must(s.SetDeviceIdentities(ids[1], "phys", json.RawMessage(`[{"kind":"x"}]`)))
	must(s.MoveDevice(ids[1], f.ID))
	must(s.RenameFleet(f.ID, "renamed"))
	must(s.DeleteDevice(ids[2]))
	must(s.DeleteFleet(spare.ID))
	_, err = s.Publish(b.WorkspaceID, []DataPoint{
		{DeviceID: ids[0], Tag: "t", TimestampDevice: "2024-01-01T00:00:00Z", Payload: json.RawMessage(`{"v":1}`)},
		{DeviceID: ids[1], Tag: "t", TimestampDevice: "2024-01-01T00:00:01Z"},
	})
	must(err)
	must(s.DeleteWorkspace(other.WorkspaceID))
	s.st.Mu.Lock()
	s.st.Changed() // the whole model, as a change site that names nothing records it
	s.st.Mu.Unlock()
}

// TestJournalReplay crashes a server after every kind of change and checks
// that the next one, replaying the journal, has exactly the same state;
// then that a torn last record is ignored and cut off.
func TestJournalReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	s := mustNew(t, file)
	changeEverything(t, s)
	want := stateJSON(t, s)
	crash(t, s)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a snapshot was written before the crash (%v): the test would not exercise the journal", err)
	}

	s2 := mustNew(t, file)
	if got := stateJSON(t, s2); got != want {
		t.Fatalf("replayed state:\n got %s\nwant %s", got, want)
	}
	ids, err := s2.CreateDevices(s2.st.Boot.WorkspaceID, "", []string{"after"})
	if err != nil {
		t.Fatal(err)
	}
	want = stateJSON(t, s2)
	crash(t, s2)

	// A record cut short at the end, as a crash during a write leaves it.
	jf := store.JournalPathForTest(file, 0)
	full, err := os.ReadFile(filepath.Clean(jf))
	if err != nil {
		t.Fatal(err)
	}
	torn := store.AppendFrameForTest(nil, []byte(`{"op":"device","device":{"id":"dev-torn"}}`))
	if err := os.WriteFile(filepath.Clean(jf), append(full, torn[:len(torn)-3]...), 0o600); err != nil { //nolint:gosec // G703: a file of the test's own temporary directory.
		t.Fatal(err)
	}
	s3 := mustNew(t, file)
	if got := stateJSON(t, s3); got != want || s3.st.Devices[ids[0]] == nil {
		t.Fatalf("state after a torn record:\n got %s\nwant %s", got, want)
	}
	if fi, err := os.Stat(jf); err != nil || fi.Size() != int64(len(full)) {
		t.Fatalf("the torn record was not cut off: %v, %v bytes (want %d)", err, fi.Size(), len(full))
	}
	if err := s3.Close(); err != nil {
		t.Fatal(err)
	}
	// A clean stop folds the journal into the snapshot.
	if _, err := os.Stat(jf); !os.IsNotExist(err) {
		t.Fatalf("journal left after Close: %v", err)
	}
	s4 := mustNew(t, file)
	defer s4.Close()
	if got := stateJSON(t, s4); got != want {
		t.Fatalf("state after Close:\n got %s\nwant %s", got, want)
	}
}

// TestJournalCompaction lowers the compaction threshold, so that changes
// trigger snapshots while the server runs, then crashes it: the last
// snapshot plus the journal after it give the state.
func TestJournalCompaction(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "state.json")
	s := mustNew(t, file)
	b, err := s.Bootstrap("c")
	if err != nil {
		t.Fatal(err)
	}
	s.st.SetJournalLimitForTest(1)
	for i := range 50 {
		if _, err := s.CreateDevices(b.WorkspaceID, "", []string{"d" + strings.Repeat("x", i)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for a compaction to have happened (the limit of 1 byte makes the
	// next write after each snapshot trigger one).
	deadline := time.Now().Add(30 * time.Second)
	for {
		gen := s.st.JournalGenForTest()
		if gen > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no compaction")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := s.CreateDevices(b.WorkspaceID, "", []string{"last"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	want := stateJSON(t, s)
	crash(t, s)
	data, err := os.ReadFile(filepath.Clean(file))
	if err != nil {
		t.Fatalf("no snapshot written by compaction: %v", err)
	}
	st, err := store.DecodeStateFileForTest(data)
	if err != nil || st.JournalGen == 0 {
		t.Fatalf("snapshot: %v, generation %d", err, st.JournalGen)
	}
	s2 := mustNew(t, file)
	defer s2.Close()
	if got := stateJSON(t, s2); got != want {
		t.Fatalf("state after compaction and crash:\n got %s\nwant %s", got, want)
	}
	gens, err := store.JournalGenerationsForTest(file)
	if err != nil || len(gens) != 1 {
		t.Fatalf("journal files after start-up: %v, %v (older generations must be removed)", gens, err)
	}
}

// TestJournalFailureAnswers500 breaks the journal file under a running
// server: a change is then answered 500 saying it was not saved (before the
// break, the same request answers 200: the positive control), Close reports
// the failure, and its final snapshot still saves the change.
func TestJournalFailureAnswers500(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "state.json")
	s := mustNew(t, file)
	if err := s.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	b, err := s.Bootstrap("x")
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, s.BaseURL()+"/v3/workspaces/"+b.WorkspaceID+"/devices", strings.NewReader(`{"name":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-KEY", b.APIKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := create("before"); code != http.StatusOK {
		t.Fatalf("before the break: %d %s", code, body)
	}
	s.st.BreakJournalForTest() // every later write fails
	code, body := create("unsaved")
	if code != http.StatusInternalServerError || !strings.Contains(body, "could not be saved") {
		t.Fatalf("after the break: %d %s", code, body)
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "journal") {
		t.Fatalf("Close = %v, want the journal failure", err)
	}
	data, err := os.ReadFile(filepath.Clean(file))
	if err != nil || !strings.Contains(string(data), `"unsaved"`) {
		t.Fatalf("final snapshot lacks the change: %v", err)
	}
}

// TestBootstrapRemovedSurvivesRestart removes the bootstrap's workspace, or
// revokes its key, through the admin API: the state stays consistent (the
// bootstrap record goes with them), so the server restarts, from the
// journal after a crash and from the snapshot after Close, and
// EnsureBootstrap makes a new bootstrap that works.
func TestBootstrapRemovedSurvivesRestart(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"delete workspace", "revoke key"} {
		for _, stop := range []string{"crash", "close"} {
			file := filepath.Join(t.TempDir(), "state.json")
			s := mustNew(t, file)
			b, err := s.EnsureBootstrap(Bootstrap{})
			if err != nil {
				t.Fatal(err)
			}
			if how == "delete workspace" {
				err = s.DeleteWorkspace(b.WorkspaceID)
			} else {
				err = s.RevokeKey(b.APIKey)
			}
			if err != nil {
				t.Fatal(err)
			}
			if stop == "crash" {
				crash(t, s)
			} else if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s2, err := New(Options{StateFile: file})
			if err != nil {
				t.Fatalf("%s, %s: restart refused: %v", how, stop, err)
			}
			nb, err := s2.EnsureBootstrap(Bootstrap{})
			if err != nil || nb.APIKey == b.APIKey || s2.st.Keys[nb.APIKey] != nb.WorkspaceID {
				t.Fatalf("%s, %s: new bootstrap %+v, %v (old %+v)", how, stop, nb, err, b)
			}
			if err := s2.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStateFileLockedThroughSymlink: a second server on the state file of a
// running one, named through a symbolic link (or a path with ".."), refuses
// to start; the control, another file, starts.
func TestStateFileLockedThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	s := mustNew(t, file)
	defer func() { _ = s.Close() }()
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{link, filepath.Join(dir, "sub", "..", "state.json")} {
		if other, err := New(Options{StateFile: name}); err == nil {
			_ = other.Close()
			t.Errorf("a second server on %s started", name)
		} else if !strings.Contains(err.Error(), "is in use by process") {
			t.Errorf("%s: %v, want the lock's error", name, err)
		}
	}
	other, err := New(Options{StateFile: filepath.Join(dir, "other.json")})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	_ = other.Close()
}
