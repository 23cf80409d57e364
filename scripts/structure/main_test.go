package main

import (
	"os"
	"path/filepath"
	"testing"
)

// writeModule writes a module of one package, p, with the given files.
func writeModule(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o600))
	must(os.MkdirAll(filepath.Join(dir, "p"), 0o750))
	for name, src := range files {
		must(os.WriteFile(filepath.Join(dir, "p", name), []byte("package p\n\n"+src), 0o600))
	}
	t.Chdir(dir)
}

func measureP(t *testing.T) shape {
	t.Helper()
	imp, err := exports([]string{"./p"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := measure("p", imp)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMeasureChain(t *testing.T) {
	// a uses b, b uses c (through a method), c uses nothing: three levels.
	writeModule(t, map[string]string{
		"a.go":      "func A() int { return B() }\n",
		"b.go":      "func B() int { var c C; return c.N() }\n",
		"c.go":      "type C struct{}\n\nfunc (C) N() int { return 1 }\n",
		"c_test.go": "func useA() int { return A() }\n",
	})
	s := measureP(t)
	if s.files != 3 || s.levels != 3 || len(s.loop) != 1 {
		t.Errorf("chain: files %d levels %d loop %v, want 3, 3, one file", s.files, s.levels, s.loop)
	}
}

func TestMeasureLoop(t *testing.T) {
	// a, b and c use each other in a loop; d uses a: two levels, a loop of
	// three. A local variable named like a definition is not a use.
	writeModule(t, map[string]string{
		"a.go": "const K = 1\n\nfunc A() int { return B() }\n",
		"b.go": "func B() int { return C() }\n",
		"c.go": "func C() int { return K }\n",
		"d.go": "func D() int { C := 2; return A() + C }\n",
	})
	s := measureP(t)
	if s.levels != 2 || len(s.loop) != 3 || s.loop[0] != "a.go" || s.loop[2] != "c.go" {
		t.Errorf("loop: levels %d loop %v, want 2, [a.go b.go c.go]", s.levels, s.loop)
	}
}

func TestExplained(t *testing.T) {
	doc := "Package p does things.\n\nSize: it is large because\nof reasons.\n\nMore.\n"
	if got := explained(doc, "Size:"); got != "Size: it is large because" {
		t.Errorf("explained(Size:) = %q", got)
	}
	if got := explained(doc, "Loop:"); got != "" {
		t.Errorf("explained(Loop:) = %q, want none", got)
	}
	// The mark must start a paragraph, not appear inside one.
	if got := explained("Package p. Size: small.\n", "Size:"); got != "" {
		t.Errorf("a mark inside a paragraph counted: %q", got)
	}
}
