package devices

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

func TestDeviceFilter(t *testing.T) {
	t.Parallel()
	devices := []client.Device{
		{ID: "dev-1", Name: "east-1", Place: &client.Place{FleetID: "flt-e"}},
		{ID: "dev-2", Name: "east-2", Place: &client.Place{FleetID: "flt-e"}},
		{ID: "dev-3", Name: "west-1", Place: &client.Place{FleetID: "flt-w"}},
		{ID: "dev-4", Name: "East-3", Place: &client.Place{FleetID: "flt-w"}, PhysID: "p-4"},
	}
	cases := []struct {
		name string
		cfg  deviceFilterModel
		want string
	}{
		{"no filter", deviceFilterModel{}, "dev-1 dev-2 dev-3 dev-4"},
		{"fleet", deviceFilterModel{FleetID: types.StringValue("flt-w")}, "dev-3 dev-4"},
		{"exact name", deviceFilterModel{Name: types.StringValue("east-2")}, "dev-2"},
		{"prefix is case-sensitive", deviceFilterModel{NamePrefix: types.StringValue("east-")}, "dev-1 dev-2"},
		{"regex is unanchored", deviceFilterModel{NameRegex: types.StringValue("(?i)east")}, "dev-1 dev-2 dev-4"},
		{"regex anchored", deviceFilterModel{NameRegex: types.StringValue("^[a-z]+-1$")}, "dev-1 dev-3"},
		{"fleet and prefix", deviceFilterModel{FleetID: types.StringValue("flt-w"), NamePrefix: types.StringValue("west")}, "dev-3"},
		{"phys_id", deviceFilterModel{PhysID: types.StringValue("p-4")}, "dev-4"},
		{"phys_id and fleet", deviceFilterModel{PhysID: types.StringValue("p-4"), FleetID: types.StringValue("flt-e")}, ""},
		{"nothing", deviceFilterModel{Name: types.StringValue("none")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			match, err := c.cfg.matcher()
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for i := range devices {
				if match(&devices[i]) {
					if got != "" {
						got += " "
					}
					got += devices[i].ID
				}
			}
			if got != c.want {
				t.Errorf("matched %q, want %q", got, c.want)
			}
		})
	}
	if _, err := (deviceFilterModel{NameRegex: types.StringValue("(")}).matcher(); err == nil {
		t.Error("matcher accepted an invalid regular expression")
	}
}
