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

	// Every failure of the list refuses the create: a refusal (a key that
	// may create but not list, a proxy), a service that does not answer,
	// an answer that is not the list. A refusal says how to get the list.
	for _, tc := range []struct {
		err  error
		next string
	}{
		{&client.APIError{StatusCode: 403, Method: "GET", Path: "/v3/workspaces/wks-1/fleets"}, "Give the API key the permission to list"},
		{&client.APIError{StatusCode: 400, Method: "GET", Path: "/v3/workspaces/wks-1/fleets"}, "fix the proxy"},
		{&client.APIError{StatusCode: 429}, "Plan again once the service answers."},
		{&client.APIError{StatusCode: 500}, "Plan again once the service answers."},
		{errors.New("connection reset"), "Plan again once the service answers."},
		{errors.New(`GET /v3/workspaces/wks-1/fleets: the answer is not a JSON object but "<"`), "Plan again"},
	} {
		diags = nil
		c.Refuse(ctx, nil, tc.err, &diags)
		if !diags.HasError() || diags[0].Summary() != "Cannot check for fleets with the same names" {
			t.Errorf("%v: %v, want the error of a failed check", tc.err, diags)
			continue
		}
		for _, want := range []string{`Listing the fleets of workspace "wks-1" failed`, tc.err.Error(), "Nothing was sent.",
			tc.next, "allow_duplicate_names = true"} {
			if !strings.Contains(diags[0].Detail(), want) {
				t.Errorf("%v: the refusal does not say %q:\n%s", tc.err, want, diags[0].Detail())
			}
		}
	}

	diags = nil
	c.Refuse(ctx, []NameClash{{Name: "east", ID: "f-1"}}, nil, &diags)
	if !diags.HasError() || diags[0].Summary() != "A fleet with this name already exists" {
		t.Fatalf("clash: %v", diags)
	}
	for _, want := range []string{`Workspace "wks-1" already has a fleet`, `"east" (f-1)`, "Nothing was sent",
		"terraform untaint", "-replace", "moved block", "change of description", "killed or timed out",
		"import it as a zdm_fleet resource.",
		"allow_duplicate_names = true"} {
		if !strings.Contains(diags[0].Detail(), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, diags[0].Detail())
		}
	}
}
