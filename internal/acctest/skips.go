package acctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
)

// Acceptance tests skip themselves when the CLI lacks what they test:
// identities need Terraform 1.12, list resources (terraform query) and
// actions Terraform 1.14, and OpenTofu has neither list resources nor
// actions. The harness counts these skips so that a run against a CLI that
// is merely too old does not pass in silence.

// skipLog collects the names of the skipped tests of the run.
type skipLog struct {
	mu    sync.Mutex
	names []string
}

var skips skipLog

func (l *skipLog) add(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names = append(l.names, name)
}

func (l *skipLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.names)
}

// CLI is the product and version of a Terraform CLI.
type CLI struct {
	// Path is the binary.
	Path string
	// OpenTofu is true for OpenTofu, false for Terraform.
	OpenTofu bool
	// Version is the version it reports, such as "1.15.0".
	Version string
	// Major and Minor are the first two parts of Version.
	Major, Minor int
}

func (c CLI) String() string {
	product := "Terraform"
	if c.OpenTofu {
		product = "OpenTofu"
	}
	return fmt.Sprintf("%s %s (%s)", product, c.Version, c.Path)
}

// atLeast reports whether the version is major.minor or later.
func (c CLI) atLeast(major, minor int) bool {
	return c.Major > major || (c.Major == major && c.Minor >= minor)
}

// TooOld reports whether the CLI lacks features it should have: a Terraform
// before 1.14 (list resources, actions), an OpenTofu before 1.12
// (identities). OpenTofu lacks list resources and actions by design, at any
// version.
func (c CLI) TooOld() bool {
	if c.OpenTofu {
		return !c.atLeast(1, 12)
	}
	return !c.atLeast(1, 14)
}

// DescribeCLI runs the CLI at path to read its product and version.
func DescribeCLI(path string) (CLI, error) {
	c := CLI{Path: path}
	// A warning (such as a TF_CLI_CONFIG_FILE naming a missing file) may come
	// before the JSON document: read from its first brace.
	out, err := exec.Command(path, "version", "-json").Output() //nolint:gosec // G204: the CLI the run was given.
	if err != nil {
		return c, fmt.Errorf("%s version -json: %w", path, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return c, fmt.Errorf("%s version -json printed no JSON: %q", path, out)
	}
	if err := json.NewDecoder(bytes.NewReader(out[i:])).Decode(&v); err != nil {
		return c, fmt.Errorf("%s version -json: %w", path, err)
	}
	if _, err := fmt.Sscanf(v.Version, "%d.%d", &c.Major, &c.Minor); err != nil {
		return c, fmt.Errorf("%s reports the version %q: %w", path, v.Version, err)
	}
	c.Version = v.Version
	text, err := exec.Command(path, "version").Output() //nolint:gosec // G204: as above.
	if err != nil {
		return c, fmt.Errorf("%s version: %w", path, err)
	}
	c.OpenTofu = strings.Contains(string(text), "OpenTofu v")
	return c, nil
}

// SkipReport describes the tests of the run that skipped themselves, in one
// line ("" when none did), and reports whether the run must fail: it must
// when ci is true and the CLI is too old (see CLI.TooOld), as a CI run
// against such a CLI would pass without testing what it lacks. Skips on
// OpenTofu 1.12 or later are expected (it has no list resources or actions)
// and never fail the run.
func SkipReport(ci bool) (line string, fail bool) {
	names := skips.all()
	if len(names) == 0 {
		return "", false
	}
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	cli, err := DescribeCLI(path)
	if err != nil {
		return fmt.Sprintf("acctest: %d tests skipped (%s); the CLI could not be identified: %v",
			len(names), strings.Join(names, ", "), err), ci
	}
	switch {
	case cli.TooOld() && ci:
		return fmt.Sprintf("acctest: FAIL: %d tests skipped because %s is too old (CI=true requires Terraform 1.14 or later, "+
			"or OpenTofu 1.12 or later): %s", len(names), cli, strings.Join(names, ", ")), true
	case cli.TooOld():
		return fmt.Sprintf("acctest: %d tests skipped because %s is too old: use Terraform 1.14 or later "+
			"(scripts/install-terraform.sh prints one): %s", len(names), cli, strings.Join(names, ", ")), false
	case cli.OpenTofu:
		return fmt.Sprintf("acctest: %d tests skipped on %s, which has no list resources or actions: %s",
			len(names), cli, strings.Join(names, ", ")), false
	default:
		return fmt.Sprintf("acctest: %d tests skipped with %s: %s", len(names), cli, strings.Join(names, ", ")), false
	}
}
