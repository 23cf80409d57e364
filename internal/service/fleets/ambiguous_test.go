package fleets_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Ambiguous creates of workspaces and fleets through the real CLI (those of
// devices are in internal/service/devices): a create reset before it reaches
// the service, and an answer dropped after the service acted. The provider
// adopts only what can only be its own (see DESIGN.md, "Ambiguous creates are
// resolved by lookup"), never says that nothing was created, and never
// creates anything twice.

// TestAccAmbiguousOldTwin: a workspace "staging" created through the API
// before the apply; the apply's create of a workspace "staging" is reset
// before it reaches the service. The old workspace is not adopted.
func TestAccAmbiguousOldTwin(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	if _, err := fe.Server.CreateWorkspace(fe.Bootstrap.AccountID, "staging"); err != nil {
		t.Fatal(err)
	}
	// The service's Date header has a one-second precision: let the
	// service's clock move on past the old workspace's creation.
	time.Sleep(2 * time.Second)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{{
			PreConfig: func() { fe.Override.Store(acctest.FaultNth(1, "/workspaces", acctest.Reset)) },
			// A second workspace of the name is asked for: without it the
			// plan refuses the create before anything is sent.
			Config: fe.Config("", `
resource "zdm_workspace" "staging" {
  name                  = "staging"
  allow_duplicate_names = true
}
`),
			ExpectError: acctest.ErrorPattern(`Cannot create workspace "staging"`, `may have been created`,
				`data "zdm_workspaces"`, `terraform import`),
		}},
	})
	fe.Override.Store(nil)
	all, err := fe.Client(t).ListWorkspaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range all {
		if w.Name == "staging" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d workspaces named staging, want 1 (the old one)", n)
	}
}

// TestAccAmbiguousDroppedAnswer: the service acts on a fleet create and the
// answer is lost: the fleet is adopted with a warning, and the service
// holds it once.
func TestAccAmbiguousDroppedAnswer(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	if _, err := fe.Server.AddRequestFault(localzdm.RequestFault{Method: http.MethodPost,
		Path: "/v3/workspaces/{workspace_id}/fleets", Action: localzdm.FaultDropAnswer, Count: 1}); err != nil {
		t.Fatal(err)
	}
	cfg := fe.Config("", `
resource "zdm_fleet" "f" {
  name = "dropped"
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{Config: cfg, PlanOnly: true},
		},
	})
	fleets, err := fe.Client(t).ListFleets(context.Background(), fe.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fleets {
		if f.Name == "dropped" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d fleets named dropped, want 1", n)
	}
}
