// Several families: the text of every diagnostic the provider's code writes ends its sentences.

package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// detailArg is the index of the detail argument of each way of adding a
// diagnostic.
var detailArg = map[string]int{
	"AddError": 1, "AddWarning": 1, "AddAttributeError": 2, "AddAttributeWarning": 2,
	"NewErrorDiagnostic": 1, "NewWarningDiagnostic": 1, "NewAttributeErrorDiagnostic": 2, "NewAttributeWarningDiagnostic": 2,
}

// sentenceEnders are the calls whose text ends a sentence whatever it
// holds (connection.Sentence, and DescribeError, which ends with it).
var sentenceEnders = map[string]bool{"Sentence": true, "DescribeError": true}

// TestDiagnosticSentences reads the detail of every diagnostic of the
// provider's code (internal/, tests aside) and fails where a sentence runs
// into the next: a text of unknown end (an error's text, a quoted name, a
// value) followed by a literal that starts a new sentence (" Plan again.")
// without connection.Sentence around it, and a detail whose last literal
// does not end with punctuation. TestDiagnosticSentencesControl shows that
// it reports both.
func TestDiagnosticSentences(t *testing.T) {
	root := filepath.Join("..")
	var problems []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "localzdm" || d.Name() == "acctest" || d.Name() == "modelcheck") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		problems = append(problems, runOnSentences(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestDiagnosticSentencesControl: the check reports a run-on sentence and
// an unended detail, and passes their fixed forms.
func TestDiagnosticSentencesControl(t *testing.T) {
	src := `package x
func f(diags D, err error, ws string) {
	diags.AddError("Cannot list", "Listing failed: "+err.Error()+" Plan again.")
	diags.AddAttributeError(p, "Cannot list", "Listing the fleets of "+Quote(ws)+" failed")
	diags.AddError("Cannot list", "Listing failed: "+connection.Sentence(err.Error())+" Plan again.")
	diags.AddError("Cannot list", "Listing failed: "+connection.DescribeError(err, ws)+" Plan again.")
	diags.AddWarning("Listed", fmt.Sprintf("Listed %d fleets.", 3))
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := runOnSentences(fset, f)
	if len(got) != 2 || !strings.Contains(got[0], "x.go:3") || !strings.Contains(got[1], "x.go:4") {
		t.Fatalf("reported %q, want the run-on sentence of line 3 and the unended detail of line 4", got)
	}
}

// runOnSentences returns the problems of the diagnostics' details in f.
func runOnSentences(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		i, ok := detailArg[sel.Sel.Name]
		if !ok || len(call.Args) <= i {
			return true
		}
		parts := concatParts(call.Args[i])
		at := fset.Position(call.Pos()).String()
		for j := 1; j < len(parts); j++ {
			lit, ok := literal(parts[j])
			if !ok || !startsSentence(lit) {
				continue
			}
			if prev, ok := literal(parts[j-1]); (ok && endsSentence(prev)) || (ok && !strings.HasSuffix(prev, "%s")) ||
				isSentenceEnder(parts[j-1]) {
				continue
			}
			out = append(out, at+": a text of unknown end runs into the sentence "+strconv.Quote(abbreviate(lit))+
				": end it with connection.Sentence")
		}
		last := parts[len(parts)-1]
		if text, ok := literal(last); ok && !endsSentence(text) && !endsWithVerb(text) {
			out = append(out, at+": the detail ends without punctuation: "+strconv.Quote(abbreviate(text)))
		}
		return true
	})
	return out
}

// concatParts flattens a + chain (and the format of a fmt.Sprintf) into
// its operands.
func concatParts(e ast.Expr) []ast.Expr {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return append(concatParts(e.X), concatParts(e.Y)...)
		}
	case *ast.ParenExpr:
		return concatParts(e.X)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(e.Args) > 0 {
			if _, ok := literal(e.Args[0]); ok {
				return []ast.Expr{e.Args[0]}
			}
		}
	}
	return []ast.Expr{e}
}

// literal returns the value of a string literal.
func literal(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// isSentenceEnder reports whether e is a call of connection.Sentence or
// DescribeError.
func isSentenceEnder(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		return sentenceEnders[fn.Sel.Name]
	case *ast.Ident:
		return sentenceEnders[fn.Name]
	}
	return false
}

// startsSentence reports whether s starts a sentence after a space: " Plan".
func startsSentence(s string) bool {
	return len(s) > 2 && s[0] == ' ' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'a' && s[2] <= 'z'
}

// endsSentence reports whether s ends with a sentence's punctuation (a
// quote or a parenthesis after it, a colon before a list, a newline).
func endsSentence(s string) bool {
	s = strings.TrimRight(s, " ")
	s = strings.TrimRight(s, `")'`+"`")
	return s == "" || strings.ContainsRune(".?!:\n", rune(s[len(s)-1]))
}

// endsWithVerb reports whether a format ends with a verb (%s, %v, %d),
// whose text the check cannot see.
func endsWithVerb(s string) bool {
	return len(s) >= 2 && s[len(s)-2] == '%'
}

func abbreviate(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
