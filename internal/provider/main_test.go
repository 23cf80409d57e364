package provider

import (
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestMain serves this provider to the acceptance tests (see
// acctest.ServeProvider) and reports the tests a CLI made skip.
func TestMain(m *testing.M) {
	acctest.ServeProvider(NewServer("test"))
	acctest.Main(m)
}
