package localzdm

import (
	"net/http"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
)

// call is one request routed to a handler.
type call struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	params map[string]string
	// keyWorkspace is the workspace the API key is bound to (API routes only).
	keyWorkspace string
}

// handlerFunc serves a routed request. It returns the value to answer with
// status 200 (encoded as JSON, or streamed when it is a streamer), or an error.
type handlerFunc func(c *call) (any, error)

type route = httpio.Route[handlerFunc]

type router = httpio.Router[handlerFunc]
