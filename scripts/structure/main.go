// Command structure measures the shape of the project's Go packages from
// their own definitions and uses, and checks it against limits:
//
//	go run ./scripts/structure [-max-lines N] [-max-levels N] [-max-loop N] [DIR|DIR/...]...
//
// For each package (the non-test .go files of one directory) it prints the
// lines of code, the number of files, the levels of files and the largest
// loop of files. File A uses file B when A names a package-level
// definition of B (a function, type, variable or constant), or a method or
// field declared in B; uses are resolved by name, as the compiler would
// without shadowing. Files that use each other in a loop count as one
// node; a file that uses no other is on level 1, a file is one level above
// the highest file it uses.
//
// -max-levels is a limit: a package over it is reported and the command
// exits 1. -max-lines and -max-loop mark a smell, not a limit: a package
// over one of them must say why in its package documentation, in a
// paragraph that starts with "Size:" (lines) or "Loop:" (a loop of files);
// without it the package is reported and the command exits 1. A size is a
// reason to look at a package, never a reason to cut a concept in two.
// `make lint` runs it on every package with the figures of DESIGN.md
// ("Where things live").
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	maxLines := flag.Int("max-lines", 0, "most lines of non-test code in a package (0: no limit)")
	maxLevels := flag.Int("max-levels", 0, "most levels of files in a package (0: no limit)")
	maxLoop := flag.Int("max-loop", 0, "most files in one loop (0: no limit)")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		args = []string{"./internal/..."}
	}
	dirs, err := packageDirs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "structure:", err)
		os.Exit(2)
	}
	imp, err := exports(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "structure:", err)
		os.Exit(2)
	}
	var failures []string
	fmt.Printf("%-36s %5s %6s %6s %5s\n", "package", "files", "lines", "levels", "loop")
	for _, dir := range dirs {
		p, err := measure(dir, imp)
		if err != nil {
			fmt.Fprintln(os.Stderr, "structure:", err)
			os.Exit(2)
		}
		fmt.Printf("%-36s %5d %6d %6d %5d\n", dir, p.files, p.lines, p.levels, len(p.loop))
		if len(p.loop) > 1 {
			fmt.Printf("    loop: %s\n", strings.Join(p.loop, " "))
		}
		if *maxLevels > 0 && p.levels > *maxLevels {
			failures = append(failures, fmt.Sprintf("structure: %s: levels %d exceeds %d", dir, p.levels, *maxLevels))
		}
		smell := func(what, mark string, got, limit int) {
			if limit <= 0 || got <= limit {
				return
			}
			if why := explained(p.doc, mark); why != "" {
				fmt.Printf("    %s %d over %d, explained: %s\n", what, got, limit, why)
				return
			}
			failures = append(failures, fmt.Sprintf("structure: %s: %s %d over %d, and its package documentation "+
				"has no paragraph starting with %q that says why", dir, what, got, limit, mark))
		}
		smell("lines", "Size:", p.lines, *maxLines)
		smell("loop", "Loop:", len(p.loop), *maxLoop)
	}
	for _, f := range failures {
		fmt.Fprintln(os.Stderr, f)
	}
	if len(failures) > 0 {
		os.Exit(1)
	}
}

// packageDirs expands the arguments (a directory, or DIR/... for every
// directory below it) into the directories that hold non-test Go files.
func packageDirs(args []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(dir string) {
		dir = filepath.Clean(dir)
		if !seen[dir] && len(goFiles(dir)) > 0 {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	for _, a := range args {
		root, recursive := strings.CutSuffix(a, "/...")
		if !recursive {
			add(a)
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
				return filepath.SkipDir
			}
			if d.IsDir() {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// goFiles lists the non-test Go files of dir that this platform builds.
func goFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		// Only the files this platform builds (build tags, _windows.go).
		if ok, err := build.Default.MatchFile(dir, n); err == nil && ok {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// shape is what measure finds in one package.
type shape struct {
	files, lines, levels int
	loop                 []string // the largest loop's files (one file: no loop)
	doc                  string   // the package documentation
}

// explained returns the first line of the paragraph of doc that starts
// with mark, or "" when there is none.
func explained(doc, mark string) string {
	for _, para := range strings.Split(doc, "\n\n") {
		if para = strings.TrimSpace(para); strings.HasPrefix(para, mark) {
			first, _, _ := strings.Cut(para, "\n")
			return first
		}
	}
	return ""
}

// measure reads the package in dir and measures it.
func measure(dir string, imp types.Importer) (shape, error) {
	fset := token.NewFileSet()
	paths := goFiles(dir)
	files := make([]*ast.File, len(paths))
	var s shape
	for i, p := range paths {
		src, err := os.ReadFile(p) //nolint:gosec // G304: a Go file of the directories named on the command line.
		if err != nil {
			return s, err
		}
		s.lines += strings.Count(string(src), "\n")
		if files[i], err = parser.ParseFile(fset, p, src, parser.SkipObjectResolution|parser.ParseComments); err != nil {
			return s, err
		}
		if files[i].Doc != nil {
			s.doc += files[i].Doc.Text() + "\n"
		}
	}
	s.files = len(files)
	edges, err := uses(fset, importPath(dir), files, imp)
	if err != nil {
		return s, err
	}
	sccs := components(len(files), edges)
	s.levels = levels(sccs, edges)
	for _, c := range sccs {
		if len(c) > len(s.loop) {
			s.loop = s.loop[:0]
			for _, f := range c {
				s.loop = append(s.loop, filepath.Base(paths[f]))
			}
		}
	}
	sort.Strings(s.loop)
	return s, nil
}

// uses returns, for each file, the other files whose definitions it names:
// the package is type-checked (dependencies from their export data, see
// exports), and every identifier that denotes a package-level object, a
// method or a field defined in another file of the package is a use of
// that file.
func uses(fset *token.FileSet, path string, files []*ast.File, imp types.Importer) ([]map[int]bool, error) {
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	pkg, err := conf.Check(path, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-check %s: %w", path, err)
	}
	fileOf := map[string]int{}
	for i, f := range files {
		fileOf[fset.Position(f.Pos()).Filename] = i
	}
	out := make([]map[int]bool, len(files))
	for i := range out {
		out[i] = map[int]bool{}
	}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		// Package-level objects, methods and fields; not locals.
		if obj.Parent() != pkg.Scope() {
			v, isVar := obj.(*types.Var)
			fn, isFunc := obj.(*types.Func)
			if (!isVar || !v.IsField()) && (!isFunc || fn.Signature().Recv() == nil) {
				continue
			}
		}
		from, ok1 := fileOf[fset.Position(id.Pos()).Filename]
		to, ok2 := fileOf[fset.Position(obj.Pos()).Filename]
		if ok1 && ok2 && from != to {
			out[from][to] = true
		}
	}
	return out, nil
}

// exports returns an importer that reads the export data of every package
// the packages below the arguments depend on (go list -export).
func exports(args []string) (types.Importer, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, args...)...) //nolint:gosec // G204: go list of the packages named on the command line.
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	files := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			files[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f) //nolint:gosec // G304: the export data file that go list named.
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", lookup), nil
}

// components returns the strongly connected components of the graph
// (Tarjan's algorithm).
func components(n int, edges []map[int]bool) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var out [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for w := range edges[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			out = append(out, c)
		}
	}
	for v := range n {
		if index[v] < 0 {
			visit(v)
		}
	}
	return out
}

// levels is the length, in nodes, of the longest path of the graph with
// each component as one node (0 for an empty package).
func levels(sccs [][]int, edges []map[int]bool) int {
	comp := map[int]int{}
	for c, files := range sccs {
		for _, f := range files {
			comp[f] = c
		}
	}
	memo := make([]int, len(sccs))
	var level func(c int) int
	level = func(c int) int {
		if memo[c] > 0 {
			return memo[c]
		}
		best := 0
		for _, f := range sccs[c] {
			for w := range edges[f] {
				if d := comp[w]; d != c {
					best = max(best, level(d))
				}
			}
		}
		memo[c] = best + 1
		return memo[c]
	}
	most := 0
	for c := range sccs {
		most = max(most, level(c))
	}
	return most
}

// importPath is the import path of the package in dir, relative to the
// module of the working directory.
func importPath(dir string) string {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		return dir
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(m) + "/" + filepath.ToSlash(dir)
		}
	}
	return dir
}
