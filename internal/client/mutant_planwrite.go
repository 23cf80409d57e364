//go:build zdm_mutant_planwrite

package client

import (
	"context"
	"sync"
)

// mutantWrites is the deliberately writing build of the check that a plan
// never writes (internal/provider, TestAccExamplesSecondPlanEmpty): built
// with -tags zdm_mutant_planwrite, the first read of the process also
// creates a workspace, a write the check must catch. Never in a release
// build.
var mutantWrites sync.Once

func (c *Client) mutantWriteOnRead(ctx context.Context) {
	mutantWrites.Do(func() { _, _ = c.CreateWorkspace(ctx, "mutant-plan-write", "") })
}
