package store

import (
	"encoding/json"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validState is a consistent state file that the cases of
// TestLoadRejectsInconsistentState break one way each.
const validState = `{"version":2,"saved_at":"2024-01-01T00:00:00Z",
"accounts":[{"id":"acc","name":"a","created_at":"2024-01-01T00:00:00Z","workspaces":["wks"]}],
"workspaces":[{"id":"wks","name":"w","description":"","account_id":"acc","created_at":"2024-01-01T00:00:00Z","default_fleet_id":"flt","storage_enabled":true,"fleets":["flt"],"devices":["dev"]}],
"fleets":[{"id":"flt","name":"default","description":"","account_id":"acc","workspace_id":"wks","created_at":"2024-01-01T00:00:00Z"}],
"devices":[{"id":"dev","name":"d","account_id":"acc","fleet_id":"flt","workspace_id":"wks","created_at":"2024-01-01T00:00:00Z","phys_id":"","jobs":{"j":{"name":"j","status":"pending","scheduled_at":"2024-01-01T00:00:00Z","value":{}}}}],
"keys":[{"key":"k","workspace_id":"wks"}],
"bootstrap":{"account_id":"acc","workspace_id":"wks","workspace_name":"w","api_key":"k"},
"data":{"wks":[{"timestamp_device":"2024-01-01T00:00:00Z","timestamp_in":"2024-01-01T00:00:00Z","fleet_id":"flt","device_id":"dev","tag":"t","payload":null}]}}`

// TestLoadRejectsInconsistentState starts on damaged state files: each is
// refused with one line naming the problem; the intact one (the positive
// control) loads.
func TestLoadRejectsInconsistentState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ name, old, new, want string }{
		{"valid", "", "", ""},
		{"null job", `"jobs":{"j":{"name":"j","status":"pending","scheduled_at":"2024-01-01T00:00:00Z","value":{}}}`, `"jobs":{"j":null}`, `job "j" is null`},
		{"unknown job status", `"status":"pending"`, `"status":"running"`, `job "j" has unknown status "running"`},
		{"bootstrap to a missing workspace", `"workspace_id":"wks","workspace_name"`, `"workspace_id":"gone","workspace_name"`, `bootstrap record names unknown workspace "gone"`},
		{"bootstrap key not bound", `"api_key":"k"}`, `"api_key":"other"}`, `bootstrap record's API key is not bound`},
		{"device missing from the index", `"fleets":["flt"],"devices":["dev"]`, `"fleets":["flt"],"devices":[]`, `device "dev" is missing from the devices of workspace "wks"`},
		{"fleet missing from the index", `"fleets":["flt"],"devices":["dev"]`, `"fleets":[],"devices":["dev"]`, `fleet "flt" is missing from the fleets of workspace "wks"`},
		{"index of an unknown device", `"devices":["dev"]`, `"devices":["dev","ghost"]`, `lists unknown device "ghost"`},
		{"null account", `"accounts":[{`, `"accounts":[null,{`, `accounts[0] is null`},
		{"null workspace", `"workspaces":[{`, `"workspaces":[null,{`, `workspaces[0] is null`},
		{"null fleet", `"fleets":[{`, `"fleets":[null,{`, `fleets[0] is null`},
		{"null device", `"devices":[{`, `"devices":[null,{`, `devices[0] is null`},
		{"workspace not listed", `"workspaces":["wks"]`, `"workspaces":[]`, `workspace "wks" is missing from the workspaces of account "acc"`},
		{"device in a foreign fleet", `"fleet_id":"flt","workspace_id":"wks","created_at"`, `"fleet_id":"nope","workspace_id":"wks","created_at"`, `fleet "nope" is not a fleet of its workspace`},
		{"job under another name", `"j":{"name":"j"`, `"j":{"name":"k"`, `job "j" is named "k"`},
		{"data of an unknown workspace", `"data":{"wks":`, `"data":{"gone":`, `data points of unknown workspace "gone"`},
		{"blank name", `"name":"d"`, `"name":" "`, `name " " is blank`},
		{"unknown field", `"saved_at"`, `"savedat"`, `unknown field "savedat"`},
		{"trailing data", `"payload":null}]}}`, `"payload":null}]}}{}`, `data after the JSON object`},
		{"duplicate ID across kinds", `"devices":[{"id":"dev"`, `"devices":[{"id":"flt"`, `ID "flt" is used twice`},
		{"journal generation at the limit", `"saved_at":"2024-01-01T00:00:00Z",`, `"saved_at":"2024-01-01T00:00:00Z","journal_generation":4611686018427387904,`, ""},
		{"journal generation beyond the limit", `"saved_at":"2024-01-01T00:00:00Z",`, `"saved_at":"2024-01-01T00:00:00Z","journal_generation":18446744073709551615,`, `journal generation 18446744073709551615 is beyond the largest`},
	}
	for _, c := range cases {
		content := validState
		if c.old != "" {
			if !strings.Contains(content, c.old) {
				t.Fatalf("%s: %q not in the valid state", c.name, c.old)
			}
			content = strings.Replace(content, c.old, c.new, 1)
		}
		file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s := New(discardLogger().Printf)
		err := s.OpenState(file, false)
		if c.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if err := s.CloseState(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err == nil {
			_ = s.CloseState()
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, file) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q; want one line naming the file and containing %q", c.name, msg, c.want)
		}
	}
}

// FuzzLoadState feeds the state-file loader arbitrary files: it never
// panics, and a file it accepts gives a state that can be saved, and that
// saved state loads back to the same state.
func FuzzLoadState(f *testing.F) {
	f.Add([]byte(validState))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":2,"accounts":[],"workspaces":[],"fleets":[],"devices":[],"keys":[],"data":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(discardLogger().Printf)
		st, err := decodeStateFile(data)
		if err == nil {
			err = s.Restore(st)
		}
		if err == nil {
			err = s.checkModel()
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		saved := s.CopyState()
		enc, err := json.Marshal(&saved)
		if err != nil {
			t.Fatalf("accepted state cannot be saved: %v", err)
		}
		s2 := New(discardLogger().Printf)
		st2, err := decodeStateFile(enc)
		if err == nil {
			err = s2.Restore(st2)
		}
		if err == nil {
			err = s2.checkModel()
		}
		if err != nil {
			t.Fatalf("saved state refused: %v\n%s", err, enc)
		}
		again := s2.CopyState()
		again.SavedAt = saved.SavedAt
		enc2, err := json.Marshal(&again)
		if err != nil || string(enc2) != string(enc) {
			t.Fatalf("state changed through save and load:\n%s\n%s", enc, enc2)
		}
	})
}

// FuzzJournalReplay replays arbitrary journal bytes onto the valid state:
// never a panic; a damaged record ends the replay or fails it with one line.
func FuzzJournalReplay(f *testing.F) {
	rec := func(payloads ...string) []byte {
		b := []byte(journalMagic)
		for _, p := range payloads {
			b = appendFrame(b, []byte(p))
		}
		return b
	}
	f.Add(rec(`{"op":"device","device":{"id":"dev2","name":"n","account_id":"acc","fleet_id":"flt","workspace_id":"wks"}}`))
	f.Add(rec(`{"op":"delete_device","id":"dev"}`, `{"op":"points","workspace_id":"wks","points":[]}`))
	f.Add(rec(`{"op":"delete_workspace","id":"wks"}`, `{"op":"reset"}`))
	f.Add(rec(`{"op":"key","key":{"key":"k2","workspace_id":"wks"}}`)[:20])
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(discardLogger().Printf)
		st, err := decodeStateFile([]byte(validState))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Restore(st); err != nil {
			t.Fatal(err)
		}
		_, err = readFrames(data, s.applyRecord)
		if err == nil {
			err = s.checkModel()
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		saved := s.CopyState()
		if _, err := json.Marshal(&saved); err != nil {
			t.Fatalf("accepted state cannot be saved: %v", err)
		}
	})
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
