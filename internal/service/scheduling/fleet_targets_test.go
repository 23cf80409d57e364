package scheduling

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestWarnTargetsOnlyUnknownFleet: a fleet_ids edit that names a fleet
// replaced in the same plan (its ID unknown until apply) plans without an
// error, and a known added fleet is still warned of (the positive control).
func TestWarnTargetsOnlyUnknownFleet(t *testing.T) {
	ctx := context.Background()
	set := func(vs ...attr.Value) types.Set { return types.SetValueMust(types.StringType, vs) }
	prior := set(types.StringValue("flt-a"))
	all := types.BoolNull()

	var diags diag.Diagnostics
	WarnTargetsOnly(ctx, "job", prior, set(types.StringValue("flt-a"), types.StringUnknown()), all, &diags)
	if diags.HasError() {
		t.Fatalf("a fleet ID unknown until apply failed the plan: %v", diags)
	}

	diags = nil
	WarnTargetsOnly(ctx, "job", prior, set(types.StringValue("flt-a"), types.StringValue("flt-b")), all, &diags)
	if diags.HasError() || diags.WarningsCount() != 1 {
		t.Fatalf("an added fleet: want one warning, got %v", diags)
	}
}
