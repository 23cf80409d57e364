package kit

import (
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// emptyJSONObject is the value of a job scheduled without arguments.
const emptyJSONObject = "{}"

// JobValue returns the JSON object of a planned value to send to the service.
func JobValue(v types.String) (json.RawMessage, error) {
	if v.IsNull() || v.IsUnknown() {
		return json.RawMessage(emptyJSONObject), nil
	}
	return jsonvalue.CompactObject(v.ValueString())
}
