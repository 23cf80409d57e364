// Command docnames fails when a maintainer's document names code that does
// not exist:
//
//	go run ./scripts/docnames [-root DIR] FILE.md...
//
// It reads the code spans (`...`) of each file and checks two kinds:
//
//   - A path of the repository (a span with a slash that starts with one of
//     its top-level directories, such as internal/service/objects/adopt.go):
//     it must exist. Braces list alternatives (internal/framework/{validators,values}),
//     a trailing "/..." or "/" names a directory, and spans with a
//     placeholder (<family>, *, X) are not checked.
//   - A file name (faults.go, Dockerfile): some file of the repository has
//     that name.
//   - A Go identifier in CamelCase or a qualified one (Decode,
//     connection.Decode, objects.DuplicateNames.Refuse, client.Sleep()):
//     each of its capitalised parts (and a last part in any case) must be
//     declared as a function, method, type, field, constant or variable in
//     the repository's Go code, or be an exported name of the standard
//     library or of a module the repository requires directly (the
//     framework's GetProviderSchema, rate.Limiter's AllowN); a qualifier
//     that is not a package of the repository (tftypes.Transform) is not
//     checked.
//
// Terraform attribute names (snake_case), HCL and shell words are left
// alone: they are not Go identifiers in CamelCase. It prints each stale name
// with its file and line, and exits 1 when there is one.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

var (
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\(\))?$`)
	braces     = regexp.MustCompile(`\{([^{}]*)\}`)
	fileName   = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(go|md|yml|yaml|sh|hcl|tf|json|tmpl|txt|mod|sum)$`)
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	names, pkgs, files, err := declared(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docnames:", err)
		os.Exit(2)
	}
	if err := dependencyNames(*root, names); err != nil {
		fmt.Fprintln(os.Stderr, "docnames:", err)
		os.Exit(2)
	}
	stale := 0
	for _, file := range flag.Args() {
		n, err := check(*root, file, names, pkgs, files, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "docnames:", err)
			os.Exit(2)
		}
		stale += n
	}
	if stale > 0 {
		fmt.Printf("docnames: %d names in %s that the code does not have: fix the text or the name\n",
			stale, strings.Join(flag.Args(), ", "))
		os.Exit(1)
	}
	fmt.Printf("docnames: every path and Go name of %s exists\n", strings.Join(flag.Args(), ", "))
}

// declared returns every name the Go files under root declare (package
// level, methods, fields, and the names of struct fields and interface
// methods), the names of the repository's packages, and the base names of
// its files.
func declared(root string) (names, pkgs, files map[string]bool, err error) {
	names, pkgs, files = map[string]bool{}, map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && ((strings.HasPrefix(n, ".") && n != ".github" && n != ".ci") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		files[d.Name()] = true
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkgs[f.Name.Name] = true
		pkgs[filepath.Base(filepath.Dir(p))] = true
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				names[n.Name.Name] = true
			case *ast.TypeSpec:
				names[n.Name.Name] = true
			case *ast.ValueSpec:
				for _, id := range n.Names {
					names[id.Name] = true
				}
			case *ast.Field:
				for _, id := range n.Names {
					names[id.Name] = true
				}
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					for _, e := range n.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							names[id.Name] = true
						}
					}
				}
			}
			return true
		})
		return nil
	})
	return names, pkgs, files, err
}

// dependencyNames adds to names the exported names declared by the standard
// library and by the modules root requires directly (their non-test files).
func dependencyNames(root string, names map[string]bool) error {
	cmd := exec.Command("go", "list", "-m", "-f", "{{if not .Indirect}}{{.Dir}}{{end}}", "all")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list -m all: %w", err)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	dirs := []string{filepath.Join(strings.TrimSpace(string(goroot)), "src")}
	for _, d := range strings.Fields(string(out)) {
		if abs, _ := filepath.Abs(root); d != "" && d != abs {
			dirs = append(dirs, d)
		}
	}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil //nolint:nilerr // an unreadable corner of a dependency names nothing
			}
			if d.IsDir() {
				if n := d.Name(); p != dir && (n == "testdata" || n == "internal" || n == "cmd" || strings.HasPrefix(n, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return nil //nolint:nilerr // a file for another toolchain names nothing we need
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					names[n.Name.Name] = n.Name.IsExported() || names[n.Name.Name]
				case *ast.TypeSpec:
					names[n.Name.Name] = n.Name.IsExported() || names[n.Name.Name]
				case *ast.ValueSpec:
					for _, id := range n.Names {
						names[id.Name] = id.IsExported() || names[id.Name]
					}
				case *ast.Field:
					for _, id := range n.Names {
						names[id.Name] = id.IsExported() || names[id.Name]
					}
				case *ast.BlockStmt:
					return false // the local names of a dependency's function bodies are never meant
				}
				return true
			})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// check prints the stale names of file and returns how many there are.
func check(root, file string, names, pkgs, files map[string]bool, out *os.File) (int, error) {
	f, err := os.Open(file) //nolint:gosec // G304: a document named on the command line.
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	tops, err := topLevel(root)
	if err != nil {
		return 0, err
	}
	stale, line := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	fence := false
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
			span := strings.TrimSpace(m[1])
			if why := staleName(root, span, tops, names, pkgs, files); why != "" {
				fmt.Fprintf(out, "%s:%d: `%s`: %s\n", file, line, span, why)
				stale++
			}
		}
	}
	return stale, sc.Err()
}

// topLevel returns the names of the entries at the root, the starts of the
// paths a document names.
func topLevel(root string) (map[string]bool, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out, nil
}

// staleName says why span names nothing that exists, or "".
func staleName(root, span string, tops, names, pkgs, files map[string]bool) string {
	if first, _, ok := strings.Cut(span, "/"); ok && tops[first] && !strings.ContainsAny(span, " <>*") {
		for _, p := range expand(span) {
			p = strings.TrimSuffix(strings.TrimSuffix(p, "/..."), "/")
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				return "no such file or directory: " + p
			}
		}
		return ""
	}
	if fileName.MatchString(span) || files[span] {
		if !files[span] {
			return "no file of the repository is named " + span
		}
		return ""
	}
	if !identifier.MatchString(span) {
		return ""
	}
	span = strings.TrimSuffix(span, "()")
	parts := strings.Split(span, ".")
	if len(parts) == 1 && !camel(parts[0]) {
		return ""
	}
	if len(parts) > 1 && !camel(parts[0]) && !pkgs[parts[0]] {
		return "" // a qualifier that is no package of the repository (tftypes.Transform), or a field path
	}
	for i, p := range parts {
		if i == 0 && len(parts) > 1 && pkgs[p] {
			continue
		}
		if (camel(p) || i == len(parts)-1) && !names[p] {
			return "no Go declaration named " + p
		}
	}
	return ""
}

// camel reports whether s looks like a Go name in CamelCase: it starts with
// an upper-case letter, or has one after a lower-case letter, and has no
// underscore or dash (Terraform attributes are snake_case).
func camel(s string) bool {
	if s == "" || strings.ContainsAny(s, "_-") {
		return false
	}
	r := []rune(s)
	if unicode.IsUpper(r[0]) {
		return len(r) > 1 && strings.IndexFunc(s, unicode.IsLower) >= 0
	}
	for i := 1; i < len(r); i++ {
		if unicode.IsUpper(r[i]) && unicode.IsLower(r[i-1]) {
			return true
		}
	}
	return false
}

// expand returns span with each {a,b} replaced by each alternative.
func expand(span string) []string {
	m := braces.FindStringSubmatchIndex(span)
	if m == nil {
		return []string{span}
	}
	var out []string
	for _, alt := range strings.Split(span[m[2]:m[3]], ",") {
		out = append(out, expand(span[:m[0]]+strings.TrimSpace(alt)+span[m[1]:])...)
	}
	return out
}
