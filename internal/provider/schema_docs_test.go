package provider

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// examplesDir is the examples/ tree at the repository root, which
// tfplugindocs turns into the documentation's example sections.
var examplesDir = filepath.Join("..", "..", "examples")

// TestSchemaDescriptions checks, through the same protocol Terraform uses to
// read the provider's schemas, that the provider, every resource, data source,
// list resource and action, every attribute and block at any depth, and every
// resource identity attribute carries a description. Documentation is
// generated from these descriptions, so a missing one is a missing doc line.
func TestSchemaDescriptions(t *testing.T) {
	ctx := t.Context()
	server := acctest.MustServer(t)

	resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatalf("GetProviderSchema: %v", err)
	}
	failOnDiagnostics(t, "GetProviderSchema", resp.Diagnostics)

	var missing []string
	checkSchema(&missing, "provider", resp.Provider)
	for name, s := range resp.ResourceSchemas {
		checkSchema(&missing, "resource "+name, s)
	}
	for name, s := range resp.DataSourceSchemas {
		checkSchema(&missing, "data source "+name, s)
	}
	for name, s := range resp.ListResourceSchemas {
		checkSchema(&missing, "list resource "+name, s)
	}
	for name, s := range resp.ActionSchemas {
		if s == nil {
			missing = append(missing, "action "+name+": no schema")
			continue
		}
		checkSchema(&missing, "action "+name, s.Schema)
	}
	for name, s := range resp.EphemeralResourceSchemas {
		checkSchema(&missing, "ephemeral resource "+name, s)
	}

	ids, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatalf("GetResourceIdentitySchemas: %v", err)
	}
	failOnDiagnostics(t, "GetResourceIdentitySchemas", ids.Diagnostics)
	for name, s := range ids.IdentitySchemas {
		for _, a := range s.IdentityAttributes {
			if strings.TrimSpace(a.Description) == "" {
				missing = append(missing, "identity of resource "+name+": attribute "+a.Name)
			}
		}
	}

	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no description: %s", m)
	}
}

// TestExamples checks that examples/ holds, for every resource, a
// resource.tf and an import.sh (and an import-by-identity.tf when the resource
// has an identity); for every data source a data-source.tf; for every list
// resource a .tfquery.hcl file; and for every action an action.tf. It also
// reports example directories that name nothing the provider has.
func TestExamples(t *testing.T) {
	ctx := t.Context()
	server := acctest.MustServer(t)

	resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatalf("GetProviderSchema: %v", err)
	}
	failOnDiagnostics(t, "GetProviderSchema", resp.Diagnostics)
	ids, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatalf("GetResourceIdentitySchemas: %v", err)
	}
	failOnDiagnostics(t, "GetResourceIdentitySchemas", ids.Diagnostics)

	requireFile(t, filepath.Join(examplesDir, "provider", "provider.tf"))

	for _, name := range slices.Sorted(maps.Keys(resp.ResourceSchemas)) {
		dir := filepath.Join(examplesDir, "resources", name)
		requireFile(t, filepath.Join(dir, "resource.tf"))
		requireFile(t, filepath.Join(dir, "import.sh"))
		if _, ok := ids.IdentitySchemas[name]; ok {
			requireFile(t, filepath.Join(dir, "import-by-identity.tf"))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(resp.DataSourceSchemas)) {
		requireFile(t, filepath.Join(examplesDir, "data-sources", name, "data-source.tf"))
	}
	for _, name := range slices.Sorted(maps.Keys(resp.ListResourceSchemas)) {
		dir := filepath.Join(examplesDir, "list-resources", name)
		matches, _ := filepath.Glob(filepath.Join(dir, "*.tfquery.hcl"))
		if len(matches) == 0 {
			t.Errorf("missing example: %s/*.tfquery.hcl", dir)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(resp.ActionSchemas)) {
		requireFile(t, filepath.Join(examplesDir, "actions", name, "action.tf"))
	}

	// Example directories without a matching schema are stale.
	known := map[string]map[string]bool{
		"resources":      keySet(resp.ResourceSchemas),
		"data-sources":   keySet(resp.DataSourceSchemas),
		"list-resources": keySet(resp.ListResourceSchemas),
		"actions":        keySet(resp.ActionSchemas),
	}
	for kind, names := range known {
		entries, err := os.ReadDir(filepath.Join(examplesDir, kind))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && !names[e.Name()] {
				t.Errorf("stale example: %s names no %s of the provider", filepath.Join(examplesDir, kind, e.Name()), kind)
			}
		}
	}
}

func checkSchema(missing *[]string, where string, s *tfprotov6.Schema) {
	if s == nil || s.Block == nil {
		*missing = append(*missing, where+": no schema")
		return
	}
	if strings.TrimSpace(s.Block.Description) == "" {
		*missing = append(*missing, where)
	}
	checkBlock(missing, where, s.Block)
}

func checkBlock(missing *[]string, where string, b *tfprotov6.SchemaBlock) {
	for _, a := range b.Attributes {
		checkAttribute(missing, where, a)
	}
	for _, nb := range b.BlockTypes {
		path := where + ": block " + nb.TypeName
		if nb.Block == nil {
			continue
		}
		if strings.TrimSpace(nb.Block.Description) == "" {
			*missing = append(*missing, path)
		}
		checkBlock(missing, path, nb.Block)
	}
}

func checkAttribute(missing *[]string, where string, a *tfprotov6.SchemaAttribute) {
	path := where + ": attribute " + a.Name
	if strings.TrimSpace(a.Description) == "" {
		*missing = append(*missing, path)
	}
	if a.NestedType != nil {
		for _, na := range a.NestedType.Attributes {
			checkAttribute(missing, path, na)
		}
	}
}

func requireFile(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	switch {
	case err != nil:
		t.Errorf("missing example: %s", path)
	case info.Size() == 0:
		t.Errorf("empty example: %s", path)
	}
}

func failOnDiagnostics(t *testing.T, call string, diags []*tfprotov6.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("%s: %s: %s", call, d.Summary, d.Detail)
		}
	}
}

func keySet[V any](m map[string]V) map[string]bool {
	set := make(map[string]bool, len(m))
	for k := range m {
		set[k] = true
	}
	return set
}
