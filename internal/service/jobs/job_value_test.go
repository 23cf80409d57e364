package jobs

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/service/jobs/jobvalue"
)

// TestAccDeviceJobValueForms: a job value written as an HCL object is sent
// as its JSON object; rewriting it as jsonencode of the same object (or
// reordering its keys) plans no change and sends nothing; a different
// object schedules the job again, once. Bad values fail at plan time,
// naming the attribute, with no request sent.
func TestAccDeviceJobValueForms(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	config := func(value string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_device_job" "test" {
  device_id = %q
  name      = "configure"
  value     = %s
}
`, dev, value))
	}
	posts := func(want int64) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if n := e.Server.Counters()[acctest.JobPOST]; n != want {
				return fmt.Errorf("%d job POSTs, want %d", n, want)
			}
			return nil
		}
	}
	object := `{ reason = "maintenance", level = 2, tags = ["a", "b"], nested = { on = true } }`
	want := `{"level":2,"nested":{"on":true},"reason":"maintenance","tags":["a","b"]}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config(object),
				Check: resource.ComposeTestCheckFunc(
					jobOnServer(t, e, dev, "configure", "pending", want), posts(1)),
			},
			{
				// The same object as JSON text, keys in another order.
				Config: config(`jsonencode({ tags = ["a", "b"], reason = "maintenance", nested = { on = true }, level = 2 })`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: posts(1),
			},
			{
				Config: config(`{ reason = "upgrade" }`),
				Check: resource.ComposeTestCheckFunc(
					jobOnServer(t, e, dev, "configure", "pending", `{"reason":"upgrade"}`), posts(2)),
			},
			{
				Config:      config(`["not", "an", "object"]`),
				ExpectError: regexp.MustCompile(`(?s)Invalid value.*must be an object.*got a list`),
			},
			{
				Config:      config(`"{not json"`),
				ExpectError: regexp.MustCompile(`Invalid JSON in value`),
			},
			{
				Config:      config(`42`),
				ExpectError: regexp.MustCompile(`(?s)Invalid value.*got a number`),
			},
			{
				// Back to the last value applied: nothing to do, nothing sent.
				Config: config(`{ reason = "upgrade" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: posts(2),
			},
		},
	})
	if n := e.Server.Counters()[acctest.JobPOST]; n != 2 {
		t.Fatalf("%d job POSTs after the bad values, want 2", n)
	}
}

func TestJobValueText(t *testing.T) {
	t.Parallel()
	obj := types.ObjectValueMust(
		map[string]attr.Type{"b": types.NumberType, "a": types.StringType, "l": types.TupleType{ElemTypes: []attr.Type{types.BoolType}}},
		map[string]attr.Value{"b": types.NumberValue(big.NewFloat(1.5)), "a": types.StringValue("x"),
			"l": types.TupleValueMust([]attr.Type{types.BoolType}, []attr.Value{types.BoolValue(true)})})
	for name, c := range map[string]struct {
		in   types.Dynamic
		want types.String
	}{
		"object": {types.DynamicValue(obj), types.StringValue(`{"a":"x","b":1.5,"l":[true]}`)},
		"text":   {types.DynamicValue(types.StringValue(` {"z": 1} `)), types.StringValue(` {"z": 1} `)},
		"null":   {types.DynamicNull(), types.StringNull()},
		"unknown": {types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"a": types.StringType},
			map[string]attr.Value{"a": types.StringUnknown()})), types.StringUnknown()},
	} {
		if got := jobvalue.Text(c.in); !got.Equal(c.want) {
			t.Errorf("%s: JobValueText = %s, want %s", name, got, c.want)
		}
	}
	// The state keeps the form written while the text is the same.
	prior := types.DynamicValue(obj)
	if got := jobvalue.Dynamic(prior, jobvalue.Text(prior)); !got.Equal(prior) {
		t.Errorf("JobValueDynamic kept %s, want the object", got)
	}
	if got := jobvalue.Dynamic(prior, types.StringValue(`{"a":"y"}`)); !got.Equal(types.DynamicValue(types.StringValue(`{"a":"y"}`))) {
		t.Errorf("JobValueDynamic = %s, want the new text", got)
	}
}

// TestDeviceJobUpgradeState: a state of version 0, whose value was JSON
// text, keeps every attribute, and its value becomes a dynamic string.
func TestDeviceJobUpgradeState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &deviceJobResource{}
	up := r.UpgradeState(ctx)[0]
	var sr fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
	prior := tfsdk.State{Schema: *up.PriorSchema, Raw: tftypes.NewValue(up.PriorSchema.Type().TerraformType(ctx), nil)}
	for k, v := range map[string]string{"id": "dev-1/reboot", "device_id": "dev-1", "name": "reboot", "value": `{"a":1}`, "status": "done"} {
		if d := prior.SetAttribute(ctx, pathOf(k), types.StringValue(v)); d.HasError() {
			t.Fatal(d)
		}
	}
	resp := fwresource.UpgradeStateResponse{State: tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}}
	up.StateUpgrader(ctx, fwresource.UpgradeStateRequest{State: &prior}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	var got deviceJobModel
	if d := resp.State.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	if !got.Value.Equal(types.DynamicValue(types.StringValue(`{"a":1}`))) || got.ID.ValueString() != "dev-1/reboot" || got.Status.ValueString() != "done" {
		t.Errorf("upgraded state = %+v", got)
	}
}

func pathOf(name string) path.Path { return path.Root(name) }
