//go:build !zdm_mutant_planwrite

package client

import "context"

// mutantWriteOnRead does nothing: see mutant_planwrite.go for the build
// that writes on its first read.
func (c *Client) mutantWriteOnRead(context.Context) {}
