package fleetdevices_test

import (
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/provider"
)

// TestMain serves the provider to this package's acceptance tests (see
// acctest.ServeProvider) and reports the tests a CLI made skip.
func TestMain(m *testing.M) {
	acctest.ServeProvider(provider.NewServer("test"))
	acctest.Main(m)
}
