package devices

import (
	"reflect"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

func TestFindTwins(t *testing.T) {
	t.Parallel()
	in := func(fleet string) *client.Place { return &client.Place{FleetID: fleet} }
	all := []client.Device{
		{ID: "d1", Name: "x", Place: in("f1")},
		{ID: "d2", Name: "x", Place: in("f1")},
		{ID: "d3", Name: "x", Place: in("f2")}, // another fleet
		{ID: "d4", Name: "y", Place: in("f1")},
		{ID: "d5", Name: "y", Place: in("f1")}, // held elsewhere in the configuration
		{ID: "d6", Name: "z", Place: in("f1")},
	}
	got := FindTwins(all, "f1", map[string]string{"x": "d1", "y": "d4", "z": "d6"}, func(id string) bool { return id == "d5" })
	if want := []Twin{{Name: "x", Ours: "d1", Other: "d2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("twins: %v, want %v", got, want)
	}
}
