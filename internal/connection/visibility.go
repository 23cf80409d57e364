package connection

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// What this base_url and API key can see.
//
// A 404 removes a fleet or device from the state only when this base_url and
// key demonstrably see its workspace: otherwise a wrong host or port, swapped
// base_url and storage_url, or a proxy's catch-all page would make every
// object look deleted, and the next apply would create everything again
// (objects the API cannot delete). The proof is any answer 200 on a path of
// the workspace during the operation (a read of another fleet or device, a
// list of them), or else one GET of the workspace itself, made once per
// workspace per operation. A 401 or 403 never removes anything.

// visibility remembers, per workspace, whether this configuration's base_url
// and key were shown to see it during the operation (a providerData lives
// for one operation).
type visibility struct {
	get func(ctx context.Context, ws string) error

	mu  sync.Mutex
	wss map[string]*workspaceProof
}

// workspaceProof is the proof of one workspace, in flight until done is
// closed; err is nil when the workspace is visible.
type workspaceProof struct {
	done chan struct{}
	err  error
}

// NewVisibility returns a visibility that proves a workspace with one GET
// through c.
func NewVisibility(c *client.Client) *visibility {
	return &visibility{
		get: func(ctx context.Context, ws string) error {
			_, err := c.GetWorkspace(ctx, ws)
			return err
		},
		wss: map[string]*workspaceProof{},
	}
}

// saw records that an answer 200 on a path of workspace ws proved it
// visible.
func (v *visibility) saw(ws string) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if p := v.wss[ws]; p != nil {
		select {
		case <-p.done:
			if p.err == nil {
				return
			}
		default:
			return // a GET is in flight; it will tell
		}
	}
	p := &workspaceProof{done: make(chan struct{})}
	close(p.done)
	v.wss[ws] = p
}

// workspace returns nil when ws is visible to this base_url and key: known
// from an earlier answer of the operation, or else proven with one GET of
// the workspace. An answer of the service (200 or an error status) is kept
// for the rest of the operation; a failure without an answer (timeout,
// connection error) is not.
func (v *visibility) workspace(ctx context.Context, ws string) error {
	if v == nil {
		return errors.New("the provider is not configured")
	}
	v.mu.Lock()
	p := v.wss[ws]
	if p == nil {
		p = &workspaceProof{done: make(chan struct{})}
		v.wss[ws] = p
		v.mu.Unlock()
		p.err = v.get(ctx, ws)
		var apiErr *client.APIError
		if p.err != nil && !errors.As(p.err, &apiErr) {
			v.mu.Lock()
			delete(v.wss, ws)
			v.mu.Unlock()
		}
		close(p.done)
		return p.err
	}
	v.mu.Unlock()
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unprovenNotFound is the message of a 404 for an object whose workspace
// this base_url and key cannot be shown to see.
func unprovenNotFound(baseURL, kind, ws, id string, notFound, proof error) string {
	var b strings.Builder
	b.WriteString("The service at " + baseURL + " answered " + notFound.Error() + " for " + kind + " " + Quote(id) +
		" of workspace " + Quote(ws) + ", and it could not be shown to see that workspace: " + proof.Error() + ". ")
	b.WriteString("The " + kind + " is kept in the state, because a 404 counts as \"deleted\" only when its workspace " +
		"is visible to this base_url and API key. ")
	switch {
	case client.IsStatus(proof, http.StatusUnauthorized), client.IsStatus(proof, http.StatusForbidden):
		b.WriteString(explainRefusal(proof, ws))
	default:
		b.WriteString("Check base_url (host, port, http or https, not storage_url, no proxy answering for the " +
			"service), the API key, and the workspace_id of the " + kind + ".")
	}
	return b.String()
}

// explainRefusal explains a 403 answer for workspace ws: what the rule is
// and what to change. It returns "" for other errors; the message of a 401
// already says what to check (client.UnauthorizedHint).
func explainRefusal(err error, ws string) string {
	switch {
	case client.IsStatus(err, http.StatusForbidden) && ws != "":
		return "An API key is bound to one workspace, and the key of this provider configuration is not valid " +
			"for workspace " + Quote(ws) + ". Use a provider configuration (a provider alias) whose api_key belongs to " +
			"that workspace. If the resource was moved to another provider configuration, or the key or workspace_id " +
			"changed, see the guide \"Workspaces, API keys and provider aliases\" to move it without replacing it."
	case client.IsStatus(err, http.StatusForbidden):
		return "The service refused the request for this API key: check api_key and workspace_id."
	}
	return ""
}

// PlanStopper returns the summary of an error of a read made by a plan
// before a create that must fail the plan at once, whatever the read was
// for: the key was not accepted (401), or the workspace does not exist.
// "" for any other error. The detail is DescribeError's.
func PlanStopper(err error, ws string) string {
	switch {
	case client.IsStatus(err, http.StatusUnauthorized):
		return "API key not accepted"
	case WorkspaceNotFound(err, ws):
		return "Workspace not found"
	}
	return ""
}

// DescribeError is the text of an error of a request about workspace ws,
// with the explanation of a 401 or 403, or of a workspace that does not
// exist, ended as a sentence (Sentence), so that a message may go on after
// it.
func DescribeError(err error, ws string) string {
	if hint := explainRefusal(err, ws); hint != "" {
		return Sentence(err.Error()) + " " + hint
	}
	if WorkspaceNotFound(err, ws) {
		return Sentence(err.Error()) + " " + workspaceNotFoundHint(ws)
	}
	return Sentence(err.Error())
}

// WorkspaceNotFound reports whether err is the 404 of workspace ws itself
// or of one of its collections (its devices, fleets, ...), which exist for
// every workspace: the workspace is unknown to this base_url and key. A 404
// of one object in the workspace is not.
func WorkspaceNotFound(err error, ws string) bool {
	var apiErr *client.APIError
	if ws == "" || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || apiErr.NoRoute() {
		return false
	}
	_, rest, ok := strings.Cut(apiErr.Path, "/workspaces/"+url.PathEscape(ws))
	if !ok {
		return false
	}
	rest, _, _ = strings.Cut(rest, "?")
	return rest == "" || rest == "/" || (strings.HasPrefix(rest, "/") && !strings.Contains(rest[1:], "/"))
}

// workspaceNotFoundHint says what to check when workspace ws does not exist.
func workspaceNotFoundHint(ws string) string {
	return "The service has no workspace " + Quote(ws) + " (for this base_url and API key): check the workspace_id " +
		"of the resource, or else workspace_id in the provider block (or the " + EnvWorkspaceID + " environment " +
		"variable when workspace_id is not set); the data source zdm_workspaces lists the workspaces the key sees."
}
