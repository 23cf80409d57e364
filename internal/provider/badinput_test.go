// Several families: one table of invalid configurations of every resource, data source, list resource and action, and of the provider block, all refused before any API call.

package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// badInput is an invalid configuration that must be refused before any API
// call, with an error that names the attribute (or the import ID) at fault.
type badInput struct {
	// name is the subtest name.
	name string
	// attr is the attribute the error must name; it must appear in want.
	attr string
	// at is the top-level attribute the provider's diagnostic points at,
	// when it is not attr (a conflict between two attributes is reported at
	// the one declaring the rule), or noAttribute for a diagnostic of the
	// whole block (such as "exactly one of").
	at string
	// want are parts of the error, in order (see acctest.ErrorPattern).
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
	// tf114 marks a body with action blocks, which need Terraform 1.14;
	// tf112 one with an import block by identity, which needs 1.12.
	tf114, tf112 bool
}

// noAttribute is badInput.at of a diagnostic that points at no attribute.
const noAttribute = "-"

// Placeholders of the table's addresses, replaced by a listener of the row's
// own that counts every connection (see badInputEnv.expand): a row never
// names a host outside the test.
const (
	// hostRemote is a non-loopback address of this machine.
	hostRemote = "REMOTE"
	// hostLocalhost is "localhost:PORT", a host name of the loopback.
	hostLocalhost = "LOCALHOST"
)

// badInputs covers every kind of object: the provider block, resources,
// data sources, import IDs and identities, and list resources.
var badInputs = []badInput{
	// Provider block.
	{name: "provider/base_url without scheme", attr: "base_url",
		provider: map[string]string{"base_url": `"LOCALHOST"`},
		want:     []string{`Invalid base_url`, `must start with https://`}},
	{name: "provider/base_url other scheme", attr: "base_url",
		provider: map[string]string{"base_url": `"ftp://REMOTE"`},
		want:     []string{`Invalid base_url`, `must start with https://`}},
	{name: "provider/base_url without host", attr: "base_url",
		provider: map[string]string{"base_url": `"https://"`},
		want:     []string{`Invalid base_url`, `has no host`}},
	{name: "provider/base_url empty", attr: "base_url",
		provider: map[string]string{"base_url": `""`},
		want:     []string{`Invalid base_url`, `must not be empty`}},
	{name: "provider/base_url path v2", attr: "base_url",
		provider: map[string]string{"base_url": `"https://REMOTE/v2"`},
		want:     []string{`Invalid base_url`, `the path "/v2"`, `"/v3"`}},
	{name: "provider/base_url path below v3", attr: "base_url",
		provider: map[string]string{"base_url": `"https://REMOTE/v3/workspaces"`},
		want:     []string{`Invalid base_url`, `the path "/v3/workspaces"`}},
	{name: "provider/base_url query", attr: "base_url",
		provider: map[string]string{"base_url": `"https://REMOTE/v3?debug=1"`},
		want:     []string{`Invalid base_url`, `must not have a query`}},
	{name: "provider/base_url fragment", attr: "base_url",
		provider: map[string]string{"base_url": `"https://REMOTE/#v3"`},
		want:     []string{`Invalid base_url`, `fragment`}},
	{name: "provider/base_url credentials", attr: "base_url",
		//nolint:gosec // G101: a made-up credential, which the validation under test refuses.
		provider: map[string]string{"base_url": `"https://user:secret@REMOTE"`},
		want:     []string{`Invalid base_url`, `must not carry credentials; set api_key instead`}},
	{name: "provider/base_url plain http remote", attr: "base_url",
		provider: map[string]string{"base_url": `"http://REMOTE"`},
		want:     []string{`Invalid base_url`, `plain http`, `insecure_http = true`}},
	{name: "provider/base_url plain http insecure_http false", attr: "base_url",
		provider: map[string]string{"base_url": `"http://REMOTE"`, "insecure_http": "false"},
		want:     []string{`Invalid base_url`, `not a loopback address`}},
	{name: "provider/storage_url plain http remote", attr: "storage_url",
		provider: map[string]string{"storage_url": `"http://REMOTE/v3"`},
		want:     []string{`Invalid storage_url`, `plain http`}},
	{name: "provider/storage_url path", attr: "storage_url",
		provider: map[string]string{"storage_url": `"https://REMOTE/data"`},
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
	{name: "provider/max_requests_per_second zero", attr: "max_requests_per_second",
		provider: map[string]string{"max_requests_per_second": `0`},
		want:     []string{`Invalid max_requests_per_second`, `0 must be a number greater than 0`, `divided by the jobs`}},
	{name: "provider/max_requests_per_second negative", attr: "max_requests_per_second",
		provider: map[string]string{"max_requests_per_second": `-2.5`},
		want:     []string{`Invalid max_requests_per_second`, `-2.5 must be a number greater than 0`}},

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

	{name: "zdm_fleet_devices/workspace_id blank", attr: "workspace_id",
		body: `resource "zdm_fleet_devices" "d" {
  workspace_id = "  "
  devices      = { a = "a" }
}`,
		want: []string{`Blank value`, `workspace_id must contain`}},
	{name: "zdm_fleet_devices/fleet_id empty", attr: "fleet_id",
		body: `resource "zdm_fleet_devices" "d" {
  fleet_id = ""
  devices  = { a = "a" }
}`,
		want: []string{`Blank value`, `fleet_id must contain`}},
	{name: "zdm_fleet_devices/parallelism zero", attr: "parallelism",
		body: `resource "zdm_fleet_devices" "d" {
  parallelism = 0
  devices     = { a = "a" }
}`,
		want: []string{`Invalid parallelism`, `parallelism must be between 1 and 64, got 0`}},
	{name: "zdm_fleet_devices/parallelism above 64", attr: "parallelism",
		body: `resource "zdm_fleet_devices" "d" {
  parallelism = 65
  devices     = { a = "a" }
}`,
		want: []string{`Invalid parallelism`, `between 1 and 64, got 65`}},
	{name: "zdm_fleet_devices/devices blank key", attr: "devices",
		body: `resource "zdm_fleet_devices" "d" { devices = { " " = "a" } }`,
		want: []string{`Invalid devices key`, `must not be empty or blank`}},
	{name: "zdm_fleet_devices/devices blank name", attr: "devices",
		body: `resource "zdm_fleet_devices" "d" { devices = { a = "a", b = " " } }`,
		want: []string{`Invalid device name`, `The name devices["b"] must contain`}},
	{name: "zdm_fleet_devices/devices null name", attr: "devices",
		body: `resource "zdm_fleet_devices" "d" { devices = { a = null } }`,
		want: []string{`Missing device name`, `devices["a"] is null`}},
	{name: "import/zdm_fleet_devices four parts", attr: "import ID",
		body: `resource "zdm_fleet_devices" "d" { devices = {} }`, importTo: "zdm_fleet_devices.d", importID: "wks/flt/by-id/x",
		want: []string{`Invalid import ID`, `expected "<workspace_id>/<fleet_id>"`}},

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
	{name: "import block/zdm_workspace empty identity", attr: "id", at: noAttribute, tf112: true,
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
	{name: "zdm_workspace data/neither id nor name", attr: "id", at: noAttribute,
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
	{name: "zdm_fleet data/neither id nor name", attr: "id", at: noAttribute,
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
		want: []string{`Invalid Attribute Combination`, `[id,name,phys_id]`}},
	{name: "zdm_device data/name and phys_id", attr: "name",
		body: `data "zdm_device" "d" {
  name    = "d"
  phys_id = "p-1"
}`,
		want: []string{`Invalid Attribute Combination`, `[id,name,phys_id]`}},
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
	{name: "zdm_timeseries/from and max_points", attr: "max_points", at: "from",
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
  workspace_id = "wks-1"
  name         = "reboot"
  fleet_ids    = []
}`,
		want: []string{`Attribute fleet_ids set must contain at least 1 elements`}},
	{name: "zdm_fleet_job/value string", attr: "value",
		body: `resource "zdm_fleet_job" "j" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  value        = jsonencode("now")
}`,
		want: []string{`Invalid JSON in value`, `The value of value`}},
	{name: "zdm_fleet_job/name empty", attr: "name",
		body: `resource "zdm_fleet_job" "j" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = ""
}`,
		want: []string{`Attribute name string length must be at least 1`}},
	{name: "zdm_fleet_job/neither fleet_ids nor all_fleets", attr: "fleet_ids",
		body: `resource "zdm_fleet_job" "j" {
  workspace_id = "wks-1"
  name         = "reboot"
}`,
		want: []string{`Missing fleet_ids`, `all_fleets = true`}},
	{name: "zdm_fleet_job/all_fleets false", attr: "fleet_ids",
		body: `resource "zdm_fleet_job" "j" {
  workspace_id = "wks-1"
  name         = "reboot"
  all_fleets   = false
}`,
		want: []string{`Missing fleet_ids`, `never targets every fleet`}},
	{name: "zdm_fleet_job/fleet_ids and all_fleets", attr: "all_fleets",
		body: `resource "zdm_fleet_job" "j" {
  workspace_id = "wks-1"
  name         = "reboot"
  fleet_ids    = ["flt-1"]
  all_fleets   = true
}`,
		want: []string{`Conflicting all_fleets and fleet_ids`}},
	{name: "zdm_fota/workspace_id without fleets", attr: "fleet_ids",
		body: `resource "zdm_fota" "u" {
  workspace_id     = "wks-1"
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Missing fleet_ids`, `all_fleets = true`}},
	{name: "zdm_fota/device_id with all_fleets", attr: "all_fleets", at: "device_id",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Invalid Attribute Combination`, `all_fleets`}},
	{name: "zdm_fota/device_id and workspace_id", attr: "workspace_id", at: "device_id",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  workspace_id     = "wks-1"
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Invalid Attribute Combination`, `[device_id,workspace_id]`}},
	{name: "zdm_fota/neither device_id nor workspace_id", attr: "device_id", at: noAttribute,
		body: `resource "zdm_fota" "u" {
  firmware_id      = "fw"
  firmware_version = "1.0"
}`,
		want: []string{`Missing Attribute Configuration`, `[device_id,workspace_id]`}},
	{name: "zdm_fota/device_id with fleet_ids", attr: "fleet_ids", at: "device_id",
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
		body: `resource "zdm_fleet_job" "j" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
}`, importTo: "zdm_fleet_job.j", importID: "wks-1/",
		want: []string{`Invalid import ID`, `import ID "wks-1/" is not "<workspace_id>/<job_name>"`}},
	{name: "import/zdm_fota blank", attr: "import ID",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  firmware_id      = "fw"
  firmware_version = "1.0"
}`, importTo: "zdm_fota.u", importID: " ",
		want: []string{`Invalid import ID`, `The import ID is empty: it must be the device ID of the update of one device, or <workspace_id>/<firmware_id>/<firmware_version> for an update of fleets`}},

	{name: "zdm_job_rollout/neither fleet_ids nor all_fleets", attr: "fleet_ids",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  name         = "reboot"
  waves        = ["100%"]
}`,
		want: []string{`Missing fleet_ids`, `never targets every fleet`}},
	{name: "zdm_job_rollout/last wave not 100%", attr: "waves",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["10%", "50%"]
}`,
		want: []string{`Invalid waves`, `The value of waves`, `it must be "100%"`}},
	{name: "zdm_job_rollout/poll_interval longer than wave_timeout", attr: "poll_interval",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id  = "wks-1"
  all_fleets    = true
  name          = "reboot"
  waves         = ["100%"]
  wave_timeout  = "1m"
  poll_interval = "2m"
}`,
		want: []string{`Invalid poll_interval`, `poll_interval (2m0s) must not be longer than wave_timeout (1m0s)`}},
	{name: "zdm_job_rollout/value a list", attr: "value",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  value        = [1, 2]
  waves        = ["100%"]
}`,
		want: []string{`Invalid value`, `The value of value must be an object`}},
	{name: "zdm_job_rollout/health_check payload_field without payload_equals", attr: "health_check",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  health_check = {
    tag           = "boot_ok"
    within        = "5m"
    payload_field = "ok"
  }
}`,
		want: []string{`Incomplete health_check condition`, `health_check.payload_field and health_check.payload_equals go together`}},
	{name: "zdm_fota_rollout/health_check payload_equals not JSON", attr: "health_check",
		body: `resource "zdm_fota_rollout" "r" {
  workspace_id     = "wks-1"
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "2.0"
  waves            = ["100%"]
  health_check = {
    tag            = "boot_ok"
    within         = "5m"
    payload_field  = "status.ok"
    payload_equals = "yes"
  }
}`,
		want: []string{`Invalid health_check.payload_equals`, `must be JSON text`}},
	{name: "zdm_fota_rollout/health_check payload_field empty key", attr: "health_check",
		body: `resource "zdm_fota_rollout" "r" {
  workspace_id     = "wks-1"
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "2.0"
  waves            = ["100%"]
  health_check = {
    tag            = "boot_ok"
    within         = "5m"
    payload_field  = "status..ok"
    payload_equals = "true"
  }
}`,
		want: []string{`Invalid health_check.payload_field`, `has an empty key`}},
	{name: "zdm_job_rollout/poll_interval below the minimum", attr: "poll_interval",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id  = "wks-1"
  all_fleets    = true
  name          = "reboot"
  waves         = ["100%"]
  poll_interval = "1ms"
}`,
		want: []string{`Invalid poll_interval`, `"1ms" is shorter than the minimum, "100ms"`, `request quota`}},
	{name: "zdm_fota_rollout/wave_timeout too long", attr: "wave_timeout",
		body: `resource "zdm_fota_rollout" "r" {
  workspace_id     = "wks-1"
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "2.0"
  waves            = ["100%"]
  wave_timeout     = "87600000h"
}`,
		want: []string{`Invalid wave_timeout`, `"87600000h" is too long`, `the longest duration is "2562047h"`}},
	{name: "zdm_device_job/poll_interval below the minimum", attr: "poll_interval",
		body: `resource "zdm_device_job" "j" {
  device_id     = "dev-1"
  name          = "reboot"
  wait          = true
  poll_interval = "50ms"
}`,
		want: []string{`Invalid poll_interval`, `"50ms" is shorter than the minimum, "100ms"`}},
	{name: "zdm_fleet_job/poll_interval longer than the default timeout", attr: "poll_interval",
		body: `resource "zdm_fleet_job" "j" {
  workspace_id  = "wks-1"
  fleet_ids     = ["flt-1"]
  name          = "reboot"
  wait          = true
  poll_interval = "20m"
}`,
		want: []string{`Invalid poll_interval`, `poll_interval (20m0s) must not be longer than the wait's timeout of timeouts.create (10m0s)`}},
	{name: "zdm_fota/poll_interval longer than timeouts.update", attr: "poll_interval",
		body: `resource "zdm_fota" "u" {
  device_id        = "dev-1"
  firmware_id      = "fw-1"
  firmware_version = "2.0"
  wait             = true
  poll_interval    = "5m"
  timeouts {
    update = "1m"
  }
}`,
		want: []string{`Invalid poll_interval`, `poll_interval (5m0s) must not be longer than the wait's timeout of timeouts.update (1m0s)`}},
	{name: "zdm_device_job/timeouts too long", attr: "timeouts",
		body: `resource "zdm_device_job" "j" {
  device_id = "dev-1"
  name      = "reboot"
  wait      = true
  timeouts {
    create = "87600000h"
  }
}`,
		want: []string{`Invalid timeouts.create`, `"87600000h" is too long`, `the longest duration is "2562047h"`}},
	{name: "zdm_job_rollout/health_check within not a duration", attr: "health_check",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  health_check = {
    tag    = "boot_ok"
    within = "soon"
  }
}`,
		want: []string{`Invalid health_check.within`}},
	{name: "zdm_job_rollout/maintenance_window unknown time zone", attr: "maintenance_window",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  maintenance_window {
    days      = ["sat"]
    start     = "22:00"
    end       = "04:00"
    time_zone = "Mars/Olympus_Mons"
  }
}`,
		want: []string{`Invalid maintenance_window.time_zone`, `must be an IANA time zone such as "Europe/Berlin"`, `"Mars/Olympus_Mons" is not one`}},
	{name: "zdm_job_rollout/maintenance_window day name", attr: "maintenance_window",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  maintenance_window {
    days      = ["saturday"]
    start     = "22:00"
    end       = "04:00"
    time_zone = "UTC"
  }
}`,
		want: []string{`maintenance_window[0].days`, `value must be one of`}},
	{name: "zdm_job_rollout/maintenance_window start not a time", attr: "maintenance_window",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  maintenance_window {
    days      = ["sat"]
    start     = "24:00"
    end       = "04:00"
    time_zone = "UTC"
  }
}`,
		want: []string{`maintenance_window[0].start`, `must be a time of day such as "22:00"`}},
	{name: "zdm_job_rollout/maintenance_window empty", attr: "maintenance_window",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  maintenance_window {
    days      = ["sat"]
    start     = "04:00"
    end       = "04:00"
    time_zone = "UTC"
  }
}`,
		want: []string{`Invalid maintenance_window`, `maintenance_window 1 opens and closes at 04:00`}},
	{name: "zdm_job_rollout/max_devices_per_minute zero", attr: "max_devices_per_minute",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  max_devices_per_minute = 0
}`,
		want: []string{`max_devices_per_minute`, `value must be between 1 and 6000`}},
	{name: "zdm_job_rollout/min_devices_reported zero", attr: "min_devices_reported",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
  min_devices_reported = 0
}`,
		want: []string{`min_devices_reported`, `value must be at least 1`}},
	{name: "import/zdm_job_rollout without name", attr: "import ID",
		body: `resource "zdm_job_rollout" "r" {
  workspace_id = "wks-1"
  all_fleets   = true
  name         = "reboot"
  waves        = ["100%"]
}`, importTo: "zdm_job_rollout.r", importID: "wks-1",
		want: []string{`Invalid import ID`, `The import ID of a zdm_job_rollout is <workspace_id>/<job_name>`}},
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
	{name: "action zdm_schedule_job/no target", attr: "device_id", at: noAttribute, tf114: true,
		body: `action "zdm_schedule_job" "a" {
  config {
    name = "reboot"
  }
}`,
		want: []string{`Missing Attribute Configuration`, `[device_id,workspace_id]`}},
	{name: "action zdm_schedule_job/device_id with fleet_ids", attr: "fleet_ids", at: "device_id", tf114: true,
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
	{name: "action zdm_schedule_fota/device_id and workspace_id", attr: "workspace_id", at: "device_id", tf114: true,
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
	{name: "action zdm_job_rollout/neither fleet_ids nor all_fleets", attr: "fleet_ids", tf114: true,
		body: `action "zdm_job_rollout" "a" {
  config {
    workspace_id = "wks-1"
    name         = "reboot"
    waves        = ["100%"]
  }
}`,
		want: []string{`Missing fleet_ids`, `never targets every fleet`}},
	{name: "action zdm_job_rollout/waves not growing", attr: "waves", tf114: true,
		body: `action "zdm_job_rollout" "a" {
  config {
    workspace_id = "wks-1"
    all_fleets   = true
    name         = "reboot"
    waves        = ["50%", "10%", "100%"]
  }
}`,
		want: []string{`Invalid waves`, `The value of waves`}},
	{name: "action zdm_job_rollout/poll_interval longer than wave_timeout", attr: "poll_interval", tf114: true,
		body: `action "zdm_job_rollout" "a" {
  config {
    workspace_id  = "wks-1"
    all_fleets    = true
    name          = "reboot"
    waves         = ["100%"]
    wave_timeout  = "1m"
    poll_interval = "2m"
  }
}`,
		want: []string{`Invalid poll_interval`, `poll_interval (2m0s) must not be longer than wave_timeout (1m0s)`}},
	{name: "action zdm_job_rollout/value a list", attr: "value", tf114: true,
		body: `action "zdm_job_rollout" "a" {
  config {
    workspace_id = "wks-1"
    all_fleets   = true
    name         = "reboot"
    value        = [1, 2]
    waves        = ["100%"]
  }
}`,
		want: []string{`Invalid value`, `The value of value must be an object`}},

	// List resources (terraform query, Terraform 1.14 and later).
	{name: "list zdm_device/name_regex unbalanced", attr: "name_regex",
		list: "zdm_device", query: `name_regex = "sensor-("`,
		want: []string{`Invalid name_regex`, `must be a valid regular expression`}},
	{name: "list zdm_device/name and name_prefix", attr: "name_prefix", at: "name",
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
// names its attribute, as a whole word, in the expected error, and the
// table is large enough.
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
		if row.attr == "" || !slices.ContainsFunc(row.want, func(w string) bool { return namesWord(w, row.attr) }) {
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
		for _, v := range row.provider {
			if strings.Contains(v, "example") || strings.Contains(v, "10.0.") {
				t.Errorf("row %q: %s names a host the test does not own; use %s or %s", row.name, v, hostRemote, hostLocalhost)
			}
		}
	}
}

// namesWord reports whether text contains word, not as part of a longer
// identifier: "id" is named by "[id,name]" but not by "Invalid".
func namesWord(text, word string) bool {
	isIdent := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !isIdent(before)) && (end == len(text) || !isIdent(after)) {
			return true
		}
		i = start + 1
	}
}

func TestNamesWord(t *testing.T) {
	for _, tt := range []struct {
		text, word string
		want       bool
	}{
		{"Invalid import identity", "id", false},
		{"needs a non-empty id", "id", true},
		{"[id,name]", "id", true},
		{"device_id must contain", "id", false},
		{"device_id must contain", "device_id", true},
		{"fleet_ids", "fleet_id", false},
		{"Invalid end", "end", true},
		{"the end.", "end", true},
		{"extended", "end", false},
	} {
		if got := namesWord(tt.text, tt.word); got != tt.want {
			t.Errorf("namesWord(%q, %q) = %v, want %v", tt.text, tt.word, got, tt.want)
		}
	}
}

// TestAccBadInput runs every row of the table with the real CLI against a
// server of its own: the configuration must be refused at validate or plan
// time, by an error diagnostic of the provider that points at the row's
// attribute and says what the row expects, and without any connection to
// any address the row names.
func TestAccBadInput(t *testing.T) {
	for _, row := range badInputs {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			b := newBadInputEnv(t)
			tc := resource.TestCase{ProtoV6ProviderFactories: b.factories, Steps: row.steps(b)}
			switch {
			case row.list != "" || row.tf114:
				tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}
			case row.tf112:
				tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}
			}
			resource.UnitTest(t, tc)
			if t.Skipped() {
				return
			}
			b.checkDiagnostic(t, row)
			if n, by := b.connections(); n != 0 {
				t.Errorf("the invalid configuration made %d connections or API requests, want 0: %v", n, by)
			}
		})
	}
}

// TestAccBadInputControls are the positive controls of TestAccBadInput:
// valid configurations run the same way, and each listener a row can name
// counts the connections made to it.
func TestAccBadInputControls(t *testing.T) {
	t.Run("valid data source read", func(t *testing.T) {
		t.Parallel()
		b := newBadInputEnv(t)
		if err := b.Server.SetStorage(b.Bootstrap.WorkspaceID, true); err != nil {
			t.Fatal(err)
		}
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: b.factories, Steps: []resource.TestStep{{
			Config: b.config(`data "zdm_workspaces" "all" {}
data "zdm_timeseries" "t" { size = 1 }`),
		}}})
		_, by := b.connections()
		if by["base_url"] == 0 || by["storage_url"] == 0 || by["server requests"] == 0 {
			t.Errorf("a read counted %v: want connections to base_url and storage_url, and requests", by)
		}
		if errs := b.rec.errors(); len(errs) != 0 {
			t.Errorf("a valid read recorded error diagnostics: %v", errs)
		}
	})
	t.Run("valid provider block at a remote address", func(t *testing.T) {
		t.Parallel()
		b := newBadInputEnv(t)
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: b.factories, Steps: []resource.TestStep{{
			Config: b.providerBlock(map[string]string{"base_url": b.expand(`"https://REMOTE"`), "max_retries": "0"}) +
				`data "zdm_workspaces" "all" {}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`Error: `),
		}}})
		if _, by := b.connections(); by["REMOTE"] == 0 {
			t.Errorf("the remote listener counted no connection: %v", by)
		}
	})
	t.Run("valid provider block at localhost", func(t *testing.T) {
		t.Parallel()
		b := newBadInputEnv(t)
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: b.factories, Steps: []resource.TestStep{{
			Config: b.providerBlock(map[string]string{"base_url": b.expand(`"http://LOCALHOST"`), "max_retries": "0"}) +
				`data "zdm_workspaces" "all" {}`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`Error: `),
		}}})
		if _, by := b.connections(); by["LOCALHOST"] == 0 {
			t.Errorf("the localhost listener counted no connection: %v", by)
		}
	})
}

// steps returns the test steps of a row. The step only has to fail: what
// it fails with is checked on the provider's diagnostics (checkDiagnostic).
func (row badInput) steps(b *badInputEnv) []resource.TestStep {
	failed := regexp.MustCompile(`Error: `)
	switch {
	case row.provider != nil:
		overrides := map[string]string{}
		for k, v := range row.provider {
			overrides[k] = b.expand(v)
		}
		cfg := b.providerBlock(overrides) + "data \"zdm_workspaces\" \"all\" {}\n"
		return []resource.TestStep{{Config: cfg, PlanOnly: true, ExpectError: failed}}
	case row.importTo != "":
		return []resource.TestStep{{
			Config:        b.config(row.body),
			ResourceName:  row.importTo,
			ImportState:   true,
			ImportStateId: row.importID,
			ExpectError:   failed,
		}}
	case row.list != "":
		return []resource.TestStep{
			{Config: b.config("")},
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
				ExpectError: failed,
			},
		}
	default:
		return []resource.TestStep{{Config: b.config(row.body), PlanOnly: true, ExpectError: failed}}
	}
}

// badInputEnv is the server of a row, behind listeners of the row's own
// that count every connection: the fronts of the management and storage
// services, and two listeners that only count (and close) connections, for
// the other hosts a row names: a non-loopback address of this machine
// (REMOTE), and localhost (LOCALHOST). It records the diagnostics of the
// provider.
type badInputEnv struct {
	*acctest.Env
	fronts    map[string]*countingListener // by name: base_url, storage_url, REMOTE, LOCALHOST
	rec       *diagRecorder
	factories map[string]func() (tfprotov6.ProviderServer, error)
}

func newBadInputEnv(t *testing.T) *badInputEnv {
	t.Helper()
	e := acctest.New(t, NewServer("test"))
	b := &badInputEnv{Env: e, rec: &diagRecorder{}, fronts: map[string]*countingListener{}}
	b.fronts["base_url"] = listenCounting(t, "127.0.0.1:0", strings.TrimPrefix(e.Server.BaseURL(), "http://"))
	b.fronts["storage_url"] = listenCounting(t, "127.0.0.1:0", strings.TrimPrefix(e.Server.StorageURL(), "http://"))
	b.fronts[hostLocalhost] = listenCounting(t, "127.0.0.1:0", "")
	b.fronts[hostRemote] = listenCounting(t, net.JoinHostPort(nonLoopbackIP(t), "0"), "")
	inner := e.Factories["zdm"]
	b.factories = map[string]func() (tfprotov6.ProviderServer, error){
		"zdm": func() (tfprotov6.ProviderServer, error) {
			s, err := inner()
			if err != nil {
				return nil, err
			}
			return &recordingServer{ProviderServer: s, rec: b.rec}, nil
		},
	}
	return b
}

// expand replaces the host placeholders of an HCL value.
func (b *badInputEnv) expand(v string) string {
	_, port, _ := net.SplitHostPort(b.fronts[hostLocalhost].addr)
	v = strings.ReplaceAll(v, hostLocalhost, net.JoinHostPort("localhost", port))
	return strings.ReplaceAll(v, hostRemote, b.fronts[hostRemote].addr)
}

// providerBlock is a valid provider block for the fronts, with arguments
// overridden (HCL expressions; "" removes the argument).
func (b *badInputEnv) providerBlock(overrides map[string]string) string {
	args := map[string]string{
		"base_url":     fmt.Sprintf("%q", "http://"+b.fronts["base_url"].addr),
		"storage_url":  fmt.Sprintf("%q", "http://"+b.fronts["storage_url"].addr),
		"api_key":      fmt.Sprintf("%q", b.Bootstrap.APIKey),
		"workspace_id": fmt.Sprintf("%q", b.Bootstrap.WorkspaceID),
	}
	maps.Copy(args, overrides)
	var sb strings.Builder
	sb.WriteString("provider \"zdm\" {\n")
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if args[k] != "" {
			fmt.Fprintf(&sb, "  %s = %s\n", k, args[k])
		}
	}
	sb.WriteString("}\n")
	return sb.String()
}

// config is a valid provider block followed by body.
func (b *badInputEnv) config(body string) string { return b.providerBlock(nil) + body }

// connections returns the connections counted by every listener and the
// requests the server counted, in total and by name.
func (b *badInputEnv) connections() (int64, map[string]int64) {
	by := map[string]int64{"server requests": b.Server.TotalRequests()}
	total := by["server requests"]
	for name, l := range b.fronts {
		by[name] = l.n.Load()
		total += by[name]
	}
	return total, by
}

// checkDiagnostic checks the error diagnostics the provider returned for a
// row: there is at least one; each points at the row's attribute (an
// import ID error, at none, from ImportResourceState); and one says, in its
// summary and detail, the parts of row.want in order.
func (b *badInputEnv) checkDiagnostic(t *testing.T, row badInput) {
	t.Helper()
	errs := b.rec.errors()
	if len(errs) == 0 {
		t.Fatalf("the provider returned no error diagnostic: the refusal came from elsewhere")
	}
	want := acctest.ErrorPattern(row.want...)
	matched := false
	at := row.at
	if at == "" {
		at = row.attr
	}
	for _, d := range errs {
		switch {
		case row.attr == "import ID":
			if d.rpc != "ImportResourceState" || d.diag.Attribute != nil {
				t.Errorf("%s returned %q at %v; want an import ID error of ImportResourceState, at no attribute", d.rpc, d.diag.Summary, d.diag.Attribute)
			}
		case at == noAttribute:
			if d.diag.Attribute != nil {
				t.Errorf("%s returned %q at %v, want it at no attribute", d.rpc, d.diag.Summary, d.diag.Attribute)
			}
		default:
			if got := rootAttribute(d.diag.Attribute); got != at {
				t.Errorf("%s returned %q at the attribute %q (%v), want %q", d.rpc, d.diag.Summary, got, d.diag.Attribute, at)
			}
		}
		if want.MatchString(d.diag.Summary + "\n" + d.diag.Detail) {
			matched = true
		}
	}
	if !matched {
		t.Errorf("no error diagnostic matches %q: %v", row.want, errs)
	}
}

// rootAttribute is the name of the top-level attribute of p ("" for none).
func rootAttribute(p *tftypes.AttributePath) string {
	if p == nil || len(p.Steps()) == 0 {
		return ""
	}
	if name, ok := p.Steps()[0].(tftypes.AttributeName); ok {
		return string(name)
	}
	return ""
}

// nonLoopbackIP returns an address of this machine that is not a loopback
// address (the provider refuses plain http to it), so that a connection
// made to it reaches a listener of the test.
func nonLoopbackIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	t.Fatalf("this machine has no address other than loopback ones: %v", addrs)
	return ""
}

// countingListener counts the connections it accepts. With a target, it
// forwards each connection there; without, it closes it.
type countingListener struct {
	addr string
	n    atomic.Int64
}

func listenCounting(t *testing.T, addr, target string) *countingListener {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	l := &countingListener{addr: ln.Addr().String()}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			l.n.Add(1)
			if target == "" {
				_ = conn.Close()
				continue
			}
			go forward(conn, target)
		}
	}()
	return l
}

// forward copies between conn and a new connection to target, both ways.
func forward(conn net.Conn, target string) {
	defer conn.Close()
	var d net.Dialer
	up, err := d.DialContext(context.Background(), "tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, conn); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, up); done <- struct{}{} }()
	<-done
}

// diagRecorder collects the diagnostics the provider returns.
type diagRecorder struct {
	mu    sync.Mutex
	diags []recordedDiag
}

type recordedDiag struct {
	rpc  string
	diag tfprotov6.Diagnostic
}

func (r recordedDiag) String() string {
	return fmt.Sprintf("%s: %q (%q) at %v", r.rpc, r.diag.Summary, r.diag.Detail, r.diag.Attribute)
}

func (r *diagRecorder) add(rpc string, diags []*tfprotov6.Diagnostic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range diags {
		if d != nil {
			r.diags = append(r.diags, recordedDiag{rpc: rpc, diag: *d})
		}
	}
}

// errors returns the error diagnostics recorded so far.
func (r *diagRecorder) errors() []recordedDiag {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recordedDiag
	for _, d := range r.diags {
		if d.diag.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d)
		}
	}
	return out
}

// recordingServer is the provider server, recording the diagnostics of
// every call that validates, configures, plans, reads or imports.
type recordingServer struct {
	tfprotov6.ProviderServer
	rec *diagRecorder
}

// record passes a response through, recording its diagnostics.
func record[R any](rec *diagRecorder, rpc string, resp *R, err error, diags func(*R) []*tfprotov6.Diagnostic) (*R, error) {
	if resp != nil {
		rec.add(rpc, diags(resp))
	}
	return resp, err
}

func (s *recordingServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	return record(s.rec, "ValidateProviderConfig", resp, err, func(r *tfprotov6.ValidateProviderConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.ProviderServer.ConfigureProvider(ctx, req)
	return record(s.rec, "ConfigureProvider", resp, err, func(r *tfprotov6.ConfigureProviderResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	return record(s.rec, "ValidateResourceConfig", resp, err, func(r *tfprotov6.ValidateResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	return record(s.rec, "ValidateDataResourceConfig", resp, err, func(r *tfprotov6.ValidateDataResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	return record(s.rec, "ReadDataSource", resp, err, func(r *tfprotov6.ReadDataSourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	return record(s.rec, "PlanResourceChange", resp, err, func(r *tfprotov6.PlanResourceChangeResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	return record(s.rec, "ReadResource", resp, err, func(r *tfprotov6.ReadResourceResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	resp, err := s.ProviderServer.ImportResourceState(ctx, req)
	return record(s.rec, "ImportResourceState", resp, err, func(r *tfprotov6.ImportResourceStateResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	ls, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, errors.New("the provider has no list resources")
	}
	resp, err := ls.ValidateListResourceConfig(ctx, req)
	return record(s.rec, "ValidateListResourceConfig", resp, err, func(r *tfprotov6.ValidateListResourceConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	ls, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, errors.New("the provider has no list resources")
	}
	stream, err := ls.ListResource(ctx, req)
	if stream == nil || stream.Results == nil {
		return stream, err
	}
	results := stream.Results
	return &tfprotov6.ListResourceServerStream{Results: func(yield func(tfprotov6.ListResourceResult) bool) {
		for r := range results {
			s.rec.add("ListResource", r.Diagnostics)
			if !yield(r) {
				return
			}
		}
	}}, err
}

func (s *recordingServer) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	as, ok := s.ProviderServer.(tfprotov6.ActionServer)
	if !ok {
		return nil, errors.New("the provider has no actions")
	}
	resp, err := as.ValidateActionConfig(ctx, req)
	return record(s.rec, "ValidateActionConfig", resp, err, func(r *tfprotov6.ValidateActionConfigResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	as, ok := s.ProviderServer.(tfprotov6.ActionServer)
	if !ok {
		return nil, errors.New("the provider has no actions")
	}
	resp, err := as.PlanAction(ctx, req)
	return record(s.rec, "PlanAction", resp, err, func(r *tfprotov6.PlanActionResponse) []*tfprotov6.Diagnostic { return r.Diagnostics })
}

func (s *recordingServer) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	as, ok := s.ProviderServer.(tfprotov6.ActionServer)
	if !ok {
		return nil, errors.New("the provider has no actions")
	}
	return as.InvokeAction(ctx, req)
}

// TestAccInsecureHTTP is the other side of the plain-http rows: with
// insecure_http (or ZDM_INSECURE_HTTP), a plain http address of a host that
// is not a loopback address is accepted. The fleet opts out of the check for
// names already taken (allow_duplicate_names), so planning its create needs
// no API call and nothing is sent to that host (a listener of the test's
// own, which counts connections).
func TestAccInsecureHTTP(t *testing.T) {
	b := newBadInputEnv(t)
	body := `
resource "zdm_fleet" "f" {
  name                  = "f"
  allow_duplicate_names = true
}
`
	block := func(extra map[string]string) string {
		args := map[string]string{
			"base_url":    b.expand(`"http://REMOTE/v3"`),
			"storage_url": b.expand(`"http://REMOTE"`),
		}
		maps.Copy(args, extra)
		return b.providerBlock(args) + body
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: b.factories,
		Steps: []resource.TestStep{
			{Config: block(map[string]string{"insecure_http": "true"}), PlanOnly: true, ExpectNonEmptyPlan: true},
			{
				PreConfig:          func() { t.Setenv(connection.EnvInsecureHTTP, "true") },
				Config:             block(nil),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
	if errs := b.rec.errors(); len(errs) != 0 {
		t.Errorf("error diagnostics: %v", errs)
	}
	if n, by := b.connections(); n != 0 {
		t.Errorf("%d connections or API requests, want 0: %v", n, by)
	}
}

// The provider server serves list resources and actions through these
// interfaces: the recorder must too.
var (
	_ tfprotov6.ListResourceServer = (*recordingServer)(nil)
	_ tfprotov6.ActionServer       = (*recordingServer)(nil)
)
