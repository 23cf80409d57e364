package objects

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

func TestSameNames(t *testing.T) {
	t.Parallel()
	all := []client.Fleet{{ID: "f-3", Name: "east"}, {ID: "f-1", Name: "west"}, {ID: "f-2", Name: "east"}, {ID: "f-4", Name: "east"}}
	got := SameNames(all, map[string]bool{"east": true}, map[string]bool{"f-4": true},
		func(f client.Fleet) string { return f.Name }, func(f client.Fleet) string { return f.ID })
	want := []NameClash{{Name: "east", ID: "f-2"}, {Name: "east", ID: "f-3"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("SameNames = %v, want %v (sorted, the held one left out)", got, want)
	}
}

func TestDuplicateNamesRefuse(t *testing.T) {
	t.Parallel()
	c := DuplicateNames{Kind: "fleet", Attr: path.Root("name"), Where: `Workspace "wks-1"`, Ws: "wks-1",
		Import: "as a zdm_fleet resource.", Replaced: "description"}
	ctx := context.Background()

	var diags diag.Diagnostics
	c.Refuse(ctx, nil, nil, &diags)
	if diags.HasError() {
		t.Errorf("no clash: %v", diags)
	}

	// The key cannot see the workspace: the create says so, not the check.
	diags = nil
	c.Refuse(ctx, nil, &client.APIError{StatusCode: 403, Method: "GET", Path: "/v3/workspaces/wks-1/fleets"}, &diags)
	if diags.HasError() {
		t.Errorf("403: %v", diags)
	}

	for _, err := range []error{&client.APIError{StatusCode: 429}, &client.APIError{StatusCode: 500}, errors.New("connection reset")} {
		diags = nil
		c.Refuse(ctx, nil, err, &diags)
		if !diags.HasError() || diags[0].Summary() != "Cannot check for fleets with the same names" ||
			!strings.Contains(diags[0].Detail(), `Listing the fleets of workspace "wks-1" failed`) {
			t.Errorf("%v: %v, want the error of a failed check", err, diags)
		}
	}

	diags = nil
	c.Refuse(ctx, []NameClash{{Name: "east", ID: "f-1"}}, nil, &diags)
	if !diags.HasError() || diags[0].Summary() != "A fleet with this name already exists" {
		t.Fatalf("clash: %v", diags)
	}
	for _, want := range []string{`Workspace "wks-1" already has a fleet`, `"east" (f-1)`, "Nothing was sent",
		"terraform untaint", "-replace", "moved block", "change of description", "import it as a zdm_fleet resource.",
		"allow_duplicate_names = true"} {
		if !strings.Contains(diags[0].Detail(), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, diags[0].Detail())
		}
	}
}
