package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The tests below run zdm-local as real processes: the test binary runs
// main() instead of the tests when runAsMain is set in its environment.
const runAsMain = "ZDM_LOCAL_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// proc is a zdm-local process.
type proc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
	err    error // the exit status, once done is closed
	env    map[string]string
}

// spawn starts zdm-local as a process with args; with an env file it waits
// for the env file and reads it.
func spawn(t *testing.T, waitEnv bool, args ...string) *proc {
	t.Helper()
	envFile := filepath.Join(t.TempDir(), "zdm.env")
	cmd := exec.Command(os.Args[0], append([]string{"-env-file", envFile}, args...)...) //nolint:gosec // the test binary itself
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	p := &proc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout = &syncBuffer{}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	if !waitEnv {
		return p
	}
	for {
		if _, err := os.Stat(envFile); err == nil {
			p.env = readEnv(t, envFile)
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("zdm-local ended early: %v\n%s", p.err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// wait waits for the process to end (at most a minute) and returns its exit code.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatalf("zdm-local did not end\n%s", p.stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	default:
		t.Fatal(p.err)
		return -1
	}
}

// TestStateFileLockedByProcess runs two processes on one state file: the
// second exits 1 naming the file and the first one's process ID; once the
// first stops (SIGTERM, exit 0), a new one starts and sees its data.
func TestStateFileLockedByProcess(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	first := spawn(t, true, "-state-file", state)
	code := post(t, first.env["ZDM_BASE_URL"]+"/v3/workspaces/"+first.env["ZDM_WORKSPACE_ID"]+"/devices", first.env["ZDM_API_KEY"], `{"name":"kept"}`)
	if code != http.StatusOK {
		t.Fatalf("create device: %d", code)
	}

	second := spawn(t, false, "-state-file", state)
	if code := second.wait(t); code != 1 {
		t.Fatalf("second process exit code = %d, want 1\n%s", code, second.stderr.String())
	}
	msg := second.stderr.String()
	want := fmt.Sprintf("state file %s is in use by process %d", state, first.cmd.Process.Pid)
	if !strings.Contains(msg, want) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Fatalf("second process said %q; want one line containing %q", msg, want)
	}

	// The first one is untouched, stops cleanly, and a new one takes over.
	if code, body := get(t, first.env["ZDM_BASE_URL"]+"/v3/workspaces/"+first.env["ZDM_WORKSPACE_ID"]+"/devices", first.env["ZDM_API_KEY"]); code != http.StatusOK || !strings.Contains(body, `"kept"`) {
		t.Fatalf("first process after the refused start: %d %s", code, body)
	}
	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := first.wait(t); code != 0 {
		t.Fatalf("SIGTERM: exit code %d\n%s", code, first.stderr.String())
	}
	third := spawn(t, true, "-state-file", state)
	if code, body := get(t, third.env["ZDM_BASE_URL"]+"/v3/workspaces/"+third.env["ZDM_WORKSPACE_ID"]+"/devices", third.env["ZDM_API_KEY"]); code != http.StatusOK || !strings.Contains(body, `"kept"`) {
		t.Fatalf("after the first stopped: %d %s", code, body)
	}
}

// TestBadStateFileExits checks that a damaged state file stops the command
// with exit code 1 and one line naming the problem.
func TestBadStateFileExits(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	content := `{"version":2,"accounts":[{"id":"a","name":"a","workspaces":[]}],"workspaces":[],"fleets":[],"devices":[],"keys":[],` +
		`"bootstrap":{"account_id":"a","workspace_id":"wks-gone","workspace_name":"x","api_key":"k"},"data":{}}`
	if err := os.WriteFile(state, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	p := spawn(t, false, "-state-file", state)
	if code := p.wait(t); code != 1 {
		t.Fatalf("exit code %d\n%s", code, p.stderr.String())
	}
	msg := strings.TrimSpace(p.stderr.String())
	if strings.Contains(msg, "\n") || !strings.Contains(msg, state) || !strings.Contains(msg, `bootstrap record names unknown workspace "wks-gone"`) {
		t.Fatalf("stderr = %q", msg)
	}
}

func post(t *testing.T, url, key, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-KEY", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return 0
	}
	return res.StatusCode
}

// crashPoints is the number of stored data points of the crash test:
// ZDM_CRASH_POINTS, default 20,000 (200,000, a 40 MB state file, takes
// about 30 s without -race: run it with ZDM_CRASH_POINTS=200000).
func crashPoints(t *testing.T) int {
	if v := os.Getenv("ZDM_CRASH_POINTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("ZDM_CRASH_POINTS=%q", v)
		}
		return n
	}
	return 20000
}

// writeBigState writes a state file holding n data points.
func writeBigState(t *testing.T, path string, n int) {
	t.Helper()
	s, err := localzdm.New(localzdm.Options{StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.EnsureBootstrap(localzdm.Bootstrap{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetStorage(b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	ids, err := s.CreateDevices(b.WorkspaceID, "", []string{"sensor"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for done := 0; done < n; {
		batch := make([]localzdm.DataPoint, 0, min(10000, n-done))
		for i := range cap(batch) {
			batch = append(batch, localzdm.DataPoint{
				DeviceID: ids[0], Tag: "temperature",
				TimestampDevice: start.Add(time.Duration(done+i) * time.Second).Format(time.RFC3339),
				Payload:         json.RawMessage(`{"celsius":21.5,"humidity":40,"battery":3.7,"note":"steady"}`),
			})
		}
		if _, err := s.Publish(b.WorkspaceID, batch); err != nil {
			t.Fatal(err)
		}
		done += len(batch)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKillDuringCreates runs zdm-local on a state file holding
// crashPoints() data points, creates devices from 8 clients at once,
// SIGKILLs the process after 1,000 answered creates (more are in flight),
// restarts it on the same file and checks that every answered device is
// there, with and without -sync. It also checks that every data point
// survived.
func TestKillDuringCreates(t *testing.T) {
	n := crashPoints(t)
	base := filepath.Join(t.TempDir(), "base.json")
	writeBigState(t, base, n)
	data, err := os.ReadFile(filepath.Clean(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"sync", "nosync"} {
		t.Run(mode, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(filepath.Clean(state), data, 0o600); err != nil { //nolint:gosec // G703: a file of the test's own temporary directory.
				t.Fatal(err)
			}
			args := []string{"-state-file", state}
			if mode == "sync" {
				args = append(args, "-sync")
			}
			p := spawn(t, true, args...)
			devicesURL := p.env["ZDM_BASE_URL"] + "/v3/workspaces/" + p.env["ZDM_WORKSPACE_ID"] + "/devices"

			var mu sync.Mutex
			acked := map[string]time.Time{} // device name -> when its 200 arrived
			var wg sync.WaitGroup
			reached := make(chan struct{})
			var once sync.Once
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						name := fmt.Sprintf("w%d-%d", w, i)
						code := post(t, devicesURL, p.env["ZDM_API_KEY"], `{"name":"`+name+`"}`)
						if code != http.StatusOK {
							return // the process is gone
						}
						mu.Lock()
						acked[name] = time.Now()
						if len(acked) >= 1000 {
							once.Do(func() { close(reached) })
						}
						mu.Unlock()
					}
				}()
			}
			select {
			case <-reached:
			case <-p.done:
				t.Fatalf("zdm-local ended: %v\n%s", p.err, p.stderr.String())
			}
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			<-p.done
			wg.Wait()

			again := spawn(t, true, args...)
			code, body := get(t, again.env["ZDM_BASE_URL"]+"/v3/workspaces/"+again.env["ZDM_WORKSPACE_ID"]+"/devices", again.env["ZDM_API_KEY"])
			if code != http.StatusOK {
				t.Fatalf("list devices after restart: %d %s", code, body)
			}
			var list struct {
				Devices []struct {
					Name string `json:"name"`
				} `json:"devices"`
			}
			if err := json.Unmarshal([]byte(body), &list); err != nil {
				t.Fatal(err)
			}
			present := map[string]bool{}
			for _, d := range list.Devices {
				present[d.Name] = true
			}
			lost, oldest := 0, time.Duration(0)
			for name, at := range acked {
				if !present[name] {
					lost++
					oldest = max(oldest, killed.Sub(at))
				}
			}
			unanswered := len(present) - 1 - (len(acked) - lost) // created, but killed before the answer
			t.Logf("%s, %d stored data points: %d creates answered 200 before SIGKILL, %d of them lost (oldest answered %v before the kill); %d created but not answered",
				mode, n, len(acked), lost, oldest, unanswered)
			if lost != 0 {
				t.Errorf("%d answered creates lost", lost)
			}
			// The data points survived too (at most MaxPageSize per page).
			total := 0
			for page := 0; ; page++ {
				code, body := get(t, fmt.Sprintf("%s/v3/timeseries/%s/data?size=%d&from=%d", again.env["ZDM_STORAGE_URL"], again.env["ZDM_WORKSPACE_ID"], localzdm.MaxPageSize, page), again.env["ZDM_API_KEY"])
				if code != http.StatusOK {
					t.Fatalf("data: %d %.200s", code, body)
				}
				k := strings.Count(body, `"timestamp_device"`)
				total += k
				if k < localzdm.MaxPageSize {
					break
				}
			}
			if total != n {
				t.Errorf("data points after restart = %d, want %d", total, n)
			}
		})
	}
}
