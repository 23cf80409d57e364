package protoval

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ProtoDiagnostics converts the framework's diagnostics of a direct
// resource to the protocol's, with their attribute paths.
func ProtoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	if len(diags) == 0 {
		return nil
	}
	out := make([]*tfprotov6.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: d.Summary(), Detail: d.Detail()}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = ProtoPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// ProtoPath converts an attribute path of attribute names and string map
// keys, the only steps the direct resources use.
func ProtoPath(p path.Path) *tftypes.AttributePath {
	out := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			out = out.WithAttributeName(string(s))
		case path.PathStepElementKeyString:
			out = out.WithElementKeyString(string(s))
		case path.PathStepElementKeyInt:
			out = out.WithElementKeyInt(int(s))
		}
	}
	return out
}

// ErrorDiagnostics is the one error of a call that cannot go on.
func ErrorDiagnostics(summary, detail string) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: detail}}
}
