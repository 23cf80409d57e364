package provider

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// badInput is an invalid configuration that must be refused before any API
// call, with an error that names the attribute (or the import ID) at fault.
type badInput struct {
	// name is the subtest name.
	name string
	// attr is the attribute the error must name; it must appear in want.
	attr string
	// want are parts of the error, in order (see errorPattern).
	want []string

	// One of the following describes the configuration.

	// provider overrides arguments of the provider block (HCL expressions;
	// "" removes the argument). The body is a data source read.
	provider map[string]string
	// body follows a valid provider block, in a plan.
	body string
	// importID is imported into resource importTo, declared by body.
	importID, importTo string
	// list is the type of a list block (a query) whose config block holds
	// query.
	list, query string
	// tf114 marks a body with action blocks, which need Terraform 1.14.
	tf114 bool
}

// badInputs covers every kind of object: the provider block, resources,
// data sources, import IDs and identities, and list resources.
var badInputs = []badInput{
	// Provider block.
	{name: "provider/base_url without scheme", attr: "base_url",
		provider: map[string]string{"base_url": `"api.example.com"`},
		want:     []string{`Invalid base_url`, `must start with https://`}},
	{name: "provider/base_url other scheme", attr: "base_url",
		provider: map[string]string{"base_url": `"ftp://api.example.com"`},
		want:     []string{`Invalid base_url`, `must start with https://`}},
	{name: "provider/base_url without host", attr: "base_url",
		provider: map[string]string{"base_url": `"https://"`},
		want:     []string{`Invalid base_url`, `has no host`}},
	{name: "provider/base_url empty", attr: "base_url",
		provider: map[string]string{"base_url": `""`},
		want:     []string{`Invalid base_url`, `must not be empty`}},
	{name: "provider/base_url path v2", attr: "base_url",
		provider: map[string]string{"base_url": `"https://api.example.com/v2"`},
		want:     []string{`Invalid base_url`, `the path "/v2"`, `"/v3"`}},
	{name: "provider/base_url path below v3", attr: "base_url",
		provider: map[string]string{"base_url": `"https://api.example.com/v3/workspaces"`},
		want:     []string{`Invalid base_url`, `the path "/v3/workspaces"`}},
	{name: "provider/base_url query", attr: "base_url",
		provider: map[string]string{"base_url": `"https://api.example.com/v3?debug=1"`},
		want:     []string{`Invalid base_url`, `must not have a query`}},
	{name: "provider/base_url fragment", attr: "base_url",
		provider: map[string]string{"base_url": `"https://api.example.com/#v3"`},
		want:     []string{`Invalid base_url`, `fragment`}},
	{name: "provider/base_url credentials", attr: "base_url",
		//nolint:gosec // G101: a made-up credential, which the validation under test refuses.
		provider: map[string]string{"base_url": `"https://user:secret@api.example.com"`},
		want:     []string{`Invalid base_url`, `must not carry credentials; set api_key instead`}},
	{name: "provider/base_url plain http remote", attr: "base_url",
		provider: map[string]string{"base_url": `"http://api.example.com"`},
		want:     []string{`Invalid base_url`, `plain http`, `insecure_http = true`}},
	{name: "provider/base_url plain http insecure_http false", attr: "base_url",
		provider: map[string]string{"base_url": `"http://10.0.0.8:8080"`, "insecure_http": "false"},
		want:     []string{`Invalid base_url`, `not a loopback address`}},
	{name: "provider/storage_url plain http remote", attr: "storage_url",
		provider: map[string]string{"storage_url": `"http://storage.example.com/v3"`},
		want:     []string{`Invalid storage_url`, `plain http`}},
	{name: "provider/storage_url path", attr: "storage_url",
		provider: map[string]string{"storage_url": `"https://storage.example.com/data"`},
		want:     []string{`Invalid storage_url`, `the path "/data"`}},
	{name: "provider/api_key empty", attr: "api_key",
		provider: map[string]string{"api_key": `""`},
		want:     []string{`Attribute api_key string length must be at least 1`}},
	{name: "provider/api_key blank", attr: "api_key",
		provider: map[string]string{"api_key": `"   "`},
		want:     []string{`Blank value`, `api_key must contain at least one character`}},
	{name: "provider/workspace_id empty", attr: "workspace_id",
		provider: map[string]string{"workspace_id": `""`},
		want:     []string{`Attribute workspace_id string length must be at least 1`}},
	{name: "provider/workspace_id blank", attr: "workspace_id",
		provider: map[string]string{"workspace_id": `"\t"`},
		want:     []string{`Blank value`, `workspace_id must contain`}},
	{name: "provider/request_timeout not a duration", attr: "request_timeout",
		provider: map[string]string{"request_timeout": `"soon"`},
		want:     []string{`Invalid request_timeout`, `"soon" is not a duration`}},
	{name: "provider/request_timeout zero", attr: "request_timeout",
		provider: map[string]string{"request_timeout": `"0s"`},
		want:     []string{`Invalid request_timeout`, `must be greater than zero`}},
	{name: "provider/request_timeout negative", attr: "request_timeout",
		provider: map[string]string{"request_timeout": `"-5s"`},
		want:     []string{`Invalid request_timeout`, `must be greater than zero`}},
	{name: "provider/max_retries above 20", attr: "max_retries",
		provider: map[string]string{"max_retries": `21`},
		want:     []string{`max_retries value must be between 0 and 20, got: 21`}},
	{name: "provider/max_retries negative", attr: "max_retries",
		provider: map[string]string{"max_retries": `-1`},
		want:     []string{`max_retries value must be between 0 and 20, got: -1`}},

	// Resources.
	{name: "zdm_workspace/name empty", attr: "name",
		body: `resource "zdm_workspace" "w" { name = "" }`,
		want: []string{`Attribute name string length must be at least 1`}},
	{name: "zdm_workspace/name blank", attr: "name",
		body: `resource "zdm_workspace" "w" { name = " \n " }`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_fleet/name blank", attr: "name",
		body: `resource "zdm_fleet" "f" { name = "  " }`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_fleet/workspace_id empty", attr: "workspace_id",
		body: `resource "zdm_fleet" "f" {
  name         = "f"
  workspace_id = ""
}`,
		want: []string{`Attribute workspace_id string length must be at least 1`}},
	{name: "zdm_device/name empty", attr: "name",
		body: `resource "zdm_device" "d" { name = "" }`,
		want: []string{`Attribute name string length must be at least 1`}},
	{name: "zdm_device/name blank", attr: "name",
		body: `resource "zdm_device" "d" { name = "\t" }`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_device/fleet_id empty", attr: "fleet_id",
		body: `resource "zdm_device" "d" {
  name     = "d"
  fleet_id = ""
}`,
		want: []string{`Attribute fleet_id string length must be at least 1`}},
	{name: "zdm_device/workspace_id blank", attr: "workspace_id",
		body: `resource "zdm_device" "d" {
  name         = "d"
  workspace_id = " "
}`,
		want: []string{`Blank value`, `workspace_id must contain`}},

	// Import IDs and identities.
	{name: "import/zdm_device three parts", attr: "import ID",
		body: `resource "zdm_device" "d" { name = "d" }`, importTo: "zdm_device.d", importID: "wks/dev/extra",
		want: []string{`Invalid import ID`, `has 3 parts`, `<workspace_id>/<device_id>`}},
	{name: "import/zdm_device empty workspace", attr: "import ID",
		body: `resource "zdm_device" "d" { name = "d" }`, importTo: "zdm_device.d", importID: "/dev-1",
		want: []string{`Invalid import ID`, `has an empty part`}},
	{name: "import/zdm_fleet empty id", attr: "import ID",
		body: `resource "zdm_fleet" "f" { name = "f" }`, importTo: "zdm_fleet.f", importID: "wks-1/ ",
		want: []string{`Invalid import ID`, `has an empty part`, `<workspace_id>/<fleet_id>`}},
	{name: "import/zdm_workspace with slash", attr: "import ID",
		body: `resource "zdm_workspace" "w" { name = "w" }`, importTo: "zdm_workspace.w", importID: "acc/wks-1",
		want: []string{`Invalid import ID`, `Expected the workspace ID`}},
	{name: "import/zdm_workspace blank", attr: "import ID",
		body: `resource "zdm_workspace" "w" { name = "w" }`, importTo: "zdm_workspace.w", importID: "  ",
		want: []string{`Invalid import ID`, `Expected the workspace ID`}},
	{name: "import block/zdm_workspace empty identity", attr: "id",
		body: `
import {
  to       = zdm_workspace.w
  identity = { id = "" }
}
resource "zdm_workspace" "w" { name = "w" }`,
		want: []string{`Invalid import identity`, `needs a non-empty id`}},
	{name: "import block/zdm_device malformed id", attr: "import ID",
		body: `
import {
  to = zdm_device.d
  id = "a/b/c"
}
resource "zdm_device" "d" { name = "d" }`,
		want: []string{`Invalid import ID`, `has 3 parts`}},

	// Data sources.
	{name: "zdm_workspace data/neither id nor name", attr: "id",
		body: `data "zdm_workspace" "w" {}`,
		want: []string{`Missing Attribute Configuration`, `Exactly one of these attributes must be configured: [id,name]`}},
	{name: "zdm_workspace data/id and name", attr: "id",
		body: `data "zdm_workspace" "w" {
  id   = "wks-1"
  name = "w"
}`,
		want: []string{`Invalid Attribute Combination`, `[id,name]`}},
	{name: "zdm_workspace data/id empty", attr: "id",
		body: `data "zdm_workspace" "w" { id = "" }`,
		want: []string{`Attribute id string length must be at least 1`}},
	{name: "zdm_fleet data/name blank", attr: "name",
		body: `data "zdm_fleet" "f" { name = " " }`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_fleet data/neither id nor name", attr: "id",
		body: `data "zdm_fleet" "f" {}`,
		want: []string{`Missing Attribute Configuration`, `Exactly one of these attributes must be configured: [id,name]`}},
	{name: "zdm_fleet data/workspace_id empty", attr: "workspace_id",
		body: `data "zdm_fleet" "f" {
  id           = "flt-1"
  workspace_id = ""
}`,
		want: []string{`Attribute workspace_id string length must be at least 1`}},
	{name: "zdm_device data/id and name", attr: "id",
		body: `data "zdm_device" "d" {
  id   = "dev-1"
  name = "d"
}`,
		want: []string{`Invalid Attribute Combination`, `[id,name]`}},
	{name: "zdm_device data/id empty", attr: "id",
		body: `data "zdm_device" "d" { id = "" }`,
		want: []string{`Attribute id string length must be at least 1`}},
	{name: "zdm_devices/fleet_id empty", attr: "fleet_id",
		body: `data "zdm_devices" "all" { fleet_id = "" }`,
		want: []string{`Attribute fleet_id string length must be at least 1`}},
	{name: "zdm_devices/name blank", attr: "name",
		body: `data "zdm_devices" "all" { name = "  " }`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_device_jobs/device_id empty", attr: "device_id",
		body: `data "zdm_device_jobs" "j" { device_id = "" }`,
		want: []string{`Attribute device_id string length must be at least 1`}},
	{name: "zdm_device_jobs/unknown status", attr: "status",
		body: `data "zdm_device_jobs" "j" {
  device_id = "dev-1"
  status    = "running"
}`,
		want: []string{`Attribute status value must be one of`, `"pending"`, `"running"`}},
	{name: "zdm_device_job data/name blank", attr: "name",
		body: `data "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = " "
}`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_device_job data/device_id blank", attr: "device_id",
		body: `data "zdm_device_job" "j" {
  device_id = "\t"
  name      = "reboot"
}`,
		want: []string{`Blank value`, `device_id must contain`}},
	{name: "zdm_fota_status/device_id empty", attr: "device_id",
		body: `data "zdm_fota_status" "f" { device_id = "" }`,
		want: []string{`Attribute device_id string length must be at least 1`}},
	{name: "zdm_timeseries/start not RFC 3339", attr: "start",
		body: `data "zdm_timeseries" "t" { start = "yesterday" }`,
		want: []string{`Invalid start`, `"yesterday"`, `RFC 3339`}},
	{name: "zdm_timeseries/start without offset", attr: "start",
		body: `data "zdm_timeseries" "t" { start = "2025-01-01T00:00:00" }`,
		want: []string{`Invalid start`, `RFC 3339`}},
	{name: "zdm_timeseries/end month 13", attr: "end",
		body: `data "zdm_timeseries" "t" { end = "2025-13-01T00:00:00Z" }`,
		want: []string{`Invalid end`, `RFC 3339`}},
	{name: "zdm_timeseries/start after end", attr: "end",
		body: `data "zdm_timeseries" "t" {
  start = "2025-02-01T00:00:00Z"
  end   = "2025-01-01T00:00:00Z"
}`,
		want: []string{`Invalid time range`, `end (2025-01-01T00:00:00Z) must be after start`}},
	{name: "zdm_timeseries/start equals end", attr: "end",
		body: `data "zdm_timeseries" "t" {
  start = "2025-01-01T01:00:00+01:00"
  end   = "2025-01-01T00:00:00Z"
}`,
		want: []string{`Invalid time range`, `end`, `must be after start`}},
	{name: "zdm_timeseries/size above maximum", attr: "size",
		body: `data "zdm_timeseries" "t" { size = 175001 }`,
		want: []string{`Attribute size value must be between 0 and 175000, got: 175001`}},
	{name: "zdm_timeseries/size negative", attr: "size",
		body: `data "zdm_timeseries" "t" { size = -1 }`,
		want: []string{`Attribute size value must be between 0 and 175000, got: -1`}},
	{name: "zdm_timeseries/from negative", attr: "from",
		body: `data "zdm_timeseries" "t" { from = -1 }`,
		want: []string{`Attribute from value must be at least 0, got: -1`}},
	{name: "zdm_timeseries/unknown sort", attr: "sort",
		body: `data "zdm_timeseries" "t" { sort = "newest" }`,
		want: []string{`Attribute sort value must be one of`, `"newest"`}},
	{name: "zdm_timeseries/from and max_points", attr: "max_points",
		body: `data "zdm_timeseries" "t" {
  from       = 1
  max_points = 10
}`,
		want: []string{`Invalid Attribute Combination`, `cannot be configured together: [from,max_points]`}},
	{name: "zdm_timeseries/max_points zero", attr: "max_points",
		body: `data "zdm_timeseries" "t" { max_points = 0 }`,
		want: []string{`Attribute max_points value must be between 1 and`}},
	{name: "zdm_timeseries/size zero with max_points", attr: "size",
		body: `data "zdm_timeseries" "t" {
  max_points = 10
  size       = 0
}`,
		want: []string{`Invalid size`, `With max_points, size`, `must be at least 1`}},
	{name: "zdm_timeseries/empty devices", attr: "devices",
		body: `data "zdm_timeseries" "t" { devices = [] }`,
		want: []string{`Attribute devices set must contain at least 1 elements`}},
	{name: "zdm_timeseries/blank tag", attr: "tags",
		body: `data "zdm_timeseries" "t" { tags = ["temp", " "] }`,
		want: []string{`Blank value`, `tags`, `must contain`}},
	{name: "zdm_timeseries/workspace_id empty", attr: "workspace_id",
		body: `data "zdm_timeseries" "t" { workspace_id = "" }`,
		want: []string{`Attribute workspace_id string length must be at least 1`}},

	// Job and FOTA resources.
	{name: "zdm_device_job/value not JSON", attr: "value",
		body: `resource "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = "reboot"
  value     = "{delay: 5}"
}`,
		want: []string{`Invalid JSON in value`, `The value of value`}},
	{name: "zdm_device_job/value array", attr: "value",
		body: `resource "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = "reboot"
  value     = jsonencode([1, 2])
}`,
		want: []string{`Invalid JSON in value`, `The value of value`}},
	{name: "zdm_device_job/name blank", attr: "name",
		body: `resource "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = " "
}`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "zdm_device_job/device_id empty", attr: "device_id",
		body: `resource "zdm_device_job" "j" {
  device_id = ""
  name      = "reboot"
}`,
		want: []string{`Attribute device_id string length must be at least 1`}},
	{name: "zdm_fleet_job/empty fleet_ids", attr: "fleet_ids",
		body: `resource "zdm_fleet_job" "j" {
  name      = "reboot"
  fleet_ids = []
}`,
		want: []string{`Attribute fleet_ids set must contain at least 1 elements`}},
	{name: "zdm_fleet_job/value string", attr: "value",
		body: `resource "zdm_fleet_job" "j" {
  name  = "reboot"
  value = jsonencode("now")
}`,
		want: []string{`Invalid JSON in value`, `The value of value`}},
	{name: "zdm_fleet_job/name empty", attr: "name",
		body: `resource "zdm_fleet_job" "j" { name = "" }`,
		want: []string{`Attribute name string length must be at least 1`}},
	{name: "zdm_fota/device_id and workspace_id", attr: "workspace_id",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  workspace_id     = "wks-1"
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Invalid Attribute Combination`, `[device_id,workspace_id]`}},
	{name: "zdm_fota/neither device_id nor workspace_id", attr: "device_id",
		body: `resource "zdm_fota" "u" {
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Missing Attribute Configuration`, `[device_id,workspace_id]`}},
	{name: "zdm_fota/device_id with fleet_ids", attr: "fleet_ids",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  fleet_ids        = ["flt-1"]
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Invalid Attribute Combination`, `fleet_ids`}},
	{name: "zdm_fota/firmware_version blank", attr: "firmware_version",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  firmware_id      = "fw"
  firmware_version = "  "
}`,
		want: []string{`Blank value`, `firmware_version must contain`}},
	{name: "zdm_fota/blank fleet ID", attr: "fleet_ids",
		body: `resource "zdm_fota" "u" {
  workspace_id     = "wks-1"
  fleet_ids        = ["flt-1", ""]
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`fleet_ids`, `string length must be at least 1`}},
	{name: "import/zdm_device_job no job name", attr: "import ID",
		body: `resource "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = "reboot"
}`, importTo: "zdm_device_job.j", importID: "dev-1",
		want: []string{`Invalid import ID`, `import ID "dev-1" is not "<device_id>/<job_name>"`}},
	{name: "import/zdm_device_job empty device", attr: "import ID",
		body: `resource "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = "reboot"
}`, importTo: "zdm_device_job.j", importID: " /reboot",
		want: []string{`Invalid import ID`, `is not "<device_id>/<job_name>"`}},
	{name: "import/zdm_fleet_job empty name", attr: "import ID",
		body: `resource "zdm_fleet_job" "j" { name = "reboot" }`, importTo: "zdm_fleet_job.j", importID: "wks-1/",
		want: []string{`Invalid import ID`, `import ID "wks-1/" is not "<workspace_id>/<job_name>"`}},
	{name: "import/zdm_fota blank", attr: "import ID",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  firmware_id      = "fw"
  firmware_version = "1.0"
}`, importTo: "zdm_fota.u", importID: " ",
		want: []string{`Invalid import ID`, `The import ID is empty: it must be a device ID`}},

	// Actions (Terraform 1.14 and later).
	{name: "action zdm_schedule_job/value not JSON", attr: "value", tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    device_id = "dev-1"
    name      = "reboot"
    value     = "{"
  }
}`,
		want: []string{`Invalid JSON in value`, `The value of value`}},
	{name: "action zdm_schedule_job/no target", attr: "device_id", tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    name = "reboot"
  }
}`,
		want: []string{`Missing Attribute Configuration`, `[device_id,workspace_id]`}},
	{name: "action zdm_schedule_job/device_id with fleet_ids", attr: "fleet_ids", tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    device_id = "dev-1"
    fleet_ids = ["flt-1"]
    name      = "reboot"
  }
}`,
		want: []string{`Invalid Attribute Combination`, `fleet_ids`}},
	{name: "action zdm_schedule_job/timeout not a duration", attr: "timeout", tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    device_id = "dev-1"
    name      = "reboot"
    wait      = true
    timeout   = "a while"
  }
}`,
		want: []string{`Invalid timeout`, `"a while" is not a duration`}},
	{name: "action zdm_schedule_job/poll_interval above timeout", attr: "poll_interval", tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    device_id     = "dev-1"
    name          = "reboot"
    wait          = true
    timeout       = "10s"
    poll_interval = "1m"
  }
}`,
		want: []string{`Invalid poll_interval`, `poll_interval (1m0s) must not be longer than timeout (10s)`}},
	{name: "action zdm_schedule_job/name blank", attr: "name", tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    device_id = "dev-1"
    name      = "	"
  }
}`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "action zdm_schedule_fota/firmware_id empty", attr: "firmware_id", tf114: true,
		body: `action "zdm_schedule_fota" "a" {
  config {
    device_id        = "dev-1"
    firmware_id      = ""
    firmware_version = "1.0"
  }
}`,
		want: []string{`Attribute firmware_id string length must be at least 1`}},
	{name: "action zdm_schedule_fota/device_id and workspace_id", attr: "workspace_id", tf114: true,
		body: `action "zdm_schedule_fota" "a" {
  config {
    device_id        = "dev-1"
    workspace_id     = "wks-1"
    firmware_id      = "fw"
    firmware_version = "1.0"
  }
}`,
		want: []string{`Invalid Attribute Combination`, `[device_id,workspace_id]`}},
	{name: "action zdm_schedule_fota/empty fleet_ids", attr: "fleet_ids", tf114: true,
		body: `action "zdm_schedule_fota" "a" {
  config {
    workspace_id     = "wks-1"
    fleet_ids        = []
    firmware_id      = "fw"
    firmware_version = "1.0"
  }
}`,
		want: []string{`Attribute fleet_ids set must contain at least 1 elements`}},

	// List resources (terraform query, Terraform 1.14 and later).
	{name: "list zdm_device/name_regex unbalanced", attr: "name_regex",
		list: "zdm_device", query: `name_regex = "sensor-("`,
		want: []string{`Invalid name_regex`, `must be a valid regular expression`}},
	{name: "list zdm_device/name and name_prefix", attr: "name_prefix",
		list: "zdm_device", query: "name = \"a\"\n    name_prefix = \"b\"",
		want: []string{`Invalid Attribute Combination`, `name_prefix`}},
	{name: "list zdm_device/fleet_id empty", attr: "fleet_id",
		list: "zdm_device", query: `fleet_id = ""`,
		want: []string{`Attribute fleet_id string length must be at least 1`}},
	{name: "list zdm_fleet/name blank", attr: "name",
		list: "zdm_fleet", query: `name = "  "`,
		want: []string{`Blank value`, `name must contain`}},
	{name: "list zdm_fleet/workspace_id empty", attr: "workspace_id",
		list: "zdm_fleet", query: `workspace_id = ""`,
		want: []string{`Attribute workspace_id string length must be at least 1`}},
	{name: "list zdm_workspace/name empty", attr: "name",
		list: "zdm_workspace", query: `name = ""`,
		want: []string{`Attribute name string length must be at least 1`}},
}

// TestBadInputTable checks that the rows of the table are well formed: each
// names its attribute in the expected error, and the table is large enough.
func TestBadInputTable(t *testing.T) {
	t.Parallel()
	if len(badInputs) < 50 {
		t.Errorf("%d rows; want at least 50", len(badInputs))
	}
	seen := map[string]bool{}
	for _, row := range badInputs {
		if seen[row.name] {
			t.Errorf("duplicate row %q", row.name)
		}
		seen[row.name] = true
		if row.attr == "" || !slices.ContainsFunc(row.want, func(w string) bool { return strings.Contains(w, row.attr) }) {
			t.Errorf("row %q: the expected error does not name the attribute %q: %q", row.name, row.attr, row.want)
		}
		kinds := 0
		for _, set := range []bool{row.provider != nil, row.importTo != "", row.list != "", row.body != "" && row.importTo == ""} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			t.Errorf("row %q: describe the configuration with exactly one of provider, body, importTo or list", row.name)
		}
	}
}

// TestAccBadInput runs every row of the table with the real CLI against a
// server of its own: the configuration must be refused at validate or plan
// time, with the expected error, and without any API request.
func TestAccBadInput(t *testing.T) {
	for _, row := range badInputs {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			e := acctest.New(t, New("test"))
			tc := resource.TestCase{ProtoV6ProviderFactories: e.Factories, Steps: row.steps(e)}
			if row.list != "" || row.tf114 {
				tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}
			}
			resource.UnitTest(t, tc)
			if n := e.Server.TotalRequests(); n != 0 {
				t.Errorf("the invalid configuration made %d API requests, want 0: %v", n, e.Server.Counters())
			}
		})
	}
}

// steps returns the test steps of a row.
func (row badInput) steps(e *acctest.Env) []resource.TestStep {
	want := errorPattern(row.want...)
	switch {
	case row.provider != nil:
		args := map[string]string{
			"base_url":     fmt.Sprintf("%q", e.Server.BaseURL()),
			"api_key":      fmt.Sprintf("%q", e.Bootstrap.APIKey),
			"workspace_id": fmt.Sprintf("%q", e.Bootstrap.WorkspaceID),
		}
		maps.Copy(args, row.provider)
		var b strings.Builder
		b.WriteString("provider \"zdm\" {\n")
		for _, k := range slices.Sorted(maps.Keys(args)) {
			if args[k] != "" {
				fmt.Fprintf(&b, "  %s = %s\n", k, args[k])
			}
		}
		b.WriteString("}\ndata \"zdm_workspaces\" \"all\" {}\n")
		return []resource.TestStep{{Config: b.String(), PlanOnly: true, ExpectError: want}}
	case row.importTo != "":
		return []resource.TestStep{{
			Config:        e.Config(row.body),
			ResourceName:  row.importTo,
			ImportState:   true,
			ImportStateId: row.importID,
			ExpectError:   want,
		}}
	case row.list != "":
		return []resource.TestStep{
			{Config: e.Config("")},
			{
				Query: true,
				Config: fmt.Sprintf(`
list %q "bad" {
  provider = zdm
  config {
    %s
  }
}
`, row.list, row.query),
				ExpectError: want,
			},
		}
	default:
		return []resource.TestStep{{Config: e.Config(row.body), PlanOnly: true, ExpectError: want}}
	}
}

// TestAccInsecureHTTP is the other side of the plain-http rows: with
// insecure_http (or ZDM_INSECURE_HTTP), a plain http address of a host that
// is not a loopback address is accepted. Planning a create needs no API call,
// so nothing is sent to that host.
func TestAccInsecureHTTP(t *testing.T) {
	e := acctest.New(t, New("test"))
	body := `
resource "zdm_fleet" "f" {
  name = "f"
}
`
	block := func(extra string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = "http://zdm.example.invalid:8080/v3"
  storage_url  = "http://storage.zdm.example.invalid"
  api_key      = %q
  workspace_id = %q
%s
}
`, e.Bootstrap.APIKey, e.Bootstrap.WorkspaceID, extra) + body
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: block("  insecure_http = true"), PlanOnly: true, ExpectNonEmptyPlan: true},
			{
				PreConfig:          func() { t.Setenv(envInsecureHTTP, "true") },
				Config:             block(""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
	if n := e.Server.TotalRequests(); n != 0 {
		t.Errorf("%d API requests, want 0", n)
	}
}
