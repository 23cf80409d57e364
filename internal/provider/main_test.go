package provider

import (
	"fmt"
	"os"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestMain reports the acceptance tests that skipped themselves because the
// CLI lacks what they test (see acctest.SkipReport): with CI=true, a run
// against a CLI that is too old fails.
func TestMain(m *testing.M) {
	code := m.Run()
	if line, fail := acctest.SkipReport(os.Getenv("CI") == "true"); line != "" {
		fmt.Println(line)
		if fail && code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
