package scheduling

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
)

// Job values as the service echoes them (or does not): a value the service
// never returns is recorded, not sent again.

// ValueNotEchoed tells whether a state's job value is unknown to the
// provider because the service did not return it (null; "null" in states
// written before it was kept null).
func ValueNotEchoed(v types.String) bool {
	return v.IsNull() || (!v.IsUnknown() && v.ValueString() == "null")
}

// EchoedJobValue is the state's value of a job read back with answer: null
// while the service has never returned it, else refreshedJSON.
func EchoedJobValue(state types.String, answer []byte) types.String {
	if values.CompactJSON(answer) == "null" && (state.IsUnknown() || ValueNotEchoed(state)) {
		return types.StringNull()
	}
	return values.RefreshedJSON(state, answer)
}

// ValueRecordedOnly is the warning of a change that records the configured
// value of a job whose value the service did not return, without sending.
func ValueRecordedOnly(name, dev string) (string, string) {
	return "Job value recorded, not sent",
		"The service did not return the value of job " + connection.Quote(name) + " of device " + dev + ", so the configured " +
			"value is recorded in the state and nothing is sent: sending it would run the job again. Change " +
			"triggers to send it again."
}
