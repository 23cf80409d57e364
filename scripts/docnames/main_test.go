package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: in a small repository, a document's stale paths, file names
// and Go names are reported, and the ones that exist (or are not Go names)
// are not.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/conn/conn.go", "package conn\n\ntype ProviderData struct{ Client int }\n\nfunc Decode() {}\n\nfunc (ProviderData) Sleep() {}\n")
	write("internal/other/other.go", "package other\n")
	write("DESIGN.md", strings.Join([]string{
		"Kept: `internal/conn/conn.go`, `internal/{conn,other}`, `internal/conn/...`, `conn.go`,",
		"`conn.Decode`, `Decode()`, `conn.ProviderData.Sleep`, `ProviderData`, `fleet_id`, `wait = true`,",
		"`internal/<family>/x.go`, `tftypes.Transform`, `time.Duration`.",
		"Stale: `internal/conn/gone.go`, `internal/{conn,gone}`, `gone.go`, `conn.Undefined`, `providerData`,",
		"`WaitStatuses`.",
		"```",
		"`internal/in/a/fence.go` is code, not a name",
		"```",
	}, "\n"))
	names, pkgs, files, err := declared(root)
	if err != nil {
		t.Fatal(err)
	}
	names["Duration"] = true // as dependencyNames adds the standard library's
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	n, err := check(root, filepath.Join(root, "DESIGN.md"), names, pkgs, files, out)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out.Name())
	got := string(b)
	for _, stale := range []string{"`internal/conn/gone.go`", "`internal/{conn,gone}`", "`gone.go`", "`conn.Undefined`",
		"`providerData`", "`WaitStatuses`"} {
		if !strings.Contains(got, stale) {
			t.Errorf("not reported: %s\n%s", stale, got)
		}
	}
	if n != 6 {
		t.Errorf("%d stale names, want 6:\n%s", n, got)
	}
	if strings.Contains(got, "DESIGN.md:1:") || strings.Contains(got, "DESIGN.md:2:") || strings.Contains(got, "fence") {
		t.Errorf("names that exist, or are no Go names, were reported:\n%s", got)
	}
}
