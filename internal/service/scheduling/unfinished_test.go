package scheduling

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// memPrivate is a private state in memory.
type memPrivate map[string][]byte

func (m memPrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return m[key], nil
}

func (m memPrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(m, key)
	} else {
		m[key] = value
	}
	return nil
}

// TestUnfinishedRegistry: an unfinished scheduling is adopted only by the
// same targets, value (compared as JSON) and triggers, and only once; a
// changed value or triggers does not match.
func TestUnfinishedRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	trig := func(v string) string {
		s, ok := TriggersJSON(types.MapValueMust(types.StringType, map[string]attr.Value{"run": types.StringValue(v)}))
		if !ok {
			t.Fatal("triggers not known")
		}
		return s
	}
	u := UnfinishedScheduling{Key: SchedulingKey("zdm_device_job", "dev-1", "reboot"), Value: `{"a":1,"b":2}`,
		Triggers: trig("1"), ScheduledAt: "2026-01-01T00:00:00Z", Devices: []string{"dev-1"}}

	// Create marks the private state; Read remembers the marked object.
	private := memPrivate{}
	var diags diag.Diagnostics
	MarkWait(ctx, private, u, false, &diags)
	d := &connection.ProviderData{}
	NoteRead(ctx, d, private)

	same := u
	same.Value = `{ "b": 2, "a": 1 }`
	otherValue, otherTriggers, otherDevice := u, u, u
	otherValue.Value = `{"a":1,"b":3}`
	otherTriggers.Triggers = trig("2")
	otherDevice.Key = SchedulingKey("zdm_device_job", "dev-2", "reboot")
	for name, want := range map[string]UnfinishedScheduling{"value": otherValue, "triggers": otherTriggers, "device": otherDevice} {
		if _, ok := TakeAdoption(d, want, true); ok {
			t.Errorf("a different %s adopts the unfinished scheduling", name)
		}
	}
	if _, ok := TakeAdoption(d, same, false); ok {
		t.Error("a scheduling not known yet adopts")
	}
	got, ok := TakeAdoption(d, same, true)
	if !ok || got.ScheduledAt != u.ScheduledAt {
		t.Fatalf("the same scheduling is not adopted: %v, %v", got, ok)
	}
	if _, ok := TakeAdoption(d, same, true); ok {
		t.Error("the scheduling is adopted twice")
	}

	// A wait that succeeds clears the mark: Read remembers nothing.
	MarkWait(ctx, private, u, true, &diags)
	d = &connection.ProviderData{}
	NoteRead(ctx, d, private)
	if _, ok := TakeAdoption(d, same, true); ok || diags.HasError() {
		t.Errorf("a finished scheduling is adopted (%v)", diags)
	}

	// Delete remembers from the state only when it shows the wait
	// unfinished, or from its planned private state.
	NoteDelete(ctx, d, memPrivate{}, u, false)
	if _, ok := TakeAdoption(d, same, true); ok {
		t.Error("Delete of a finished scheduling remembers it")
	}
	NoteDelete(ctx, d, memPrivate{}, u, true)
	if _, ok := TakeAdoption(d, same, true); !ok {
		t.Error("Delete of an unfinished scheduling does not remember it")
	}
	planned := memPrivate{}
	if _, ok := PlanAdoption(ctx, &connection.ProviderData{}, u, planned, "job", "job", &diags); ok {
		t.Error("planAdoption adopts from an empty registry")
	}
	setMark(ctx, planned, adoptKey, &u, &diags)
	NoteDelete(ctx, d, planned, UnfinishedScheduling{}, false)
	if _, ok := TakeAdoption(d, same, true); !ok {
		t.Error("Delete does not remember the scheduling its planned private state adopts")
	}
}

func TestTriggersJSON(t *testing.T) {
	t.Parallel()
	if s, ok := TriggersJSON(types.MapNull(types.StringType)); !ok || s != "null" {
		t.Errorf("null triggers: %q, %v", s, ok)
	}
	if _, ok := TriggersJSON(types.MapUnknown(types.StringType)); ok {
		t.Error("unknown triggers are known")
	}
	m := types.MapValueMust(types.StringType, map[string]attr.Value{"b": types.StringValue("2"), "a": types.StringValue("1")})
	if s, ok := TriggersJSON(m); !ok || s != `{"a":"1","b":"2"}` {
		t.Errorf("triggers: %q, %v", s, ok)
	}
}
