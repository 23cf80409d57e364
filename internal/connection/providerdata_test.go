package connection

import (
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
)

// TestConfigureDataWrongType: provider data of another type than
// ProviderData is an error that names the kind of object; nil (the
// provider not configured yet) is not.
func TestConfigureDataWrongType(t *testing.T) {
	t.Parallel()
	var resp fwprovider.ConfigureResponse
	if d := ConfigureData("Data Source", 42, &resp.Diagnostics); d != nil || !resp.Diagnostics.HasError() {
		t.Fatalf("configureData(42) = %v, %v", d, resp.Diagnostics)
	}
	if got := resp.Diagnostics[0].Summary(); got != "Unexpected Data Source Configure Type" {
		t.Errorf("summary = %q", got)
	}
	if d := ConfigureData("Resource", nil, &resp.Diagnostics); d != nil {
		t.Errorf("configureData(nil) = %v", d)
	}
}
