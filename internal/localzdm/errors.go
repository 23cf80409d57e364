package localzdm

import (
	"net/http"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
)

// Error codes carried in the "code" member of error answers.
const (
	CodeInvalidJSON      = apierr.CodeInvalidJSON
	CodeInvalidArgument  = apierr.CodeInvalidArgument
	CodeBodyTooLarge     = apierr.CodeBodyTooLarge
	CodeUnauthenticated  = apierr.CodeUnauthenticated
	CodeForbidden        = apierr.CodeForbidden
	CodeStorageDisabled  = apierr.CodeStorageDisabled
	CodeNotFound         = apierr.CodeNotFound
	CodeMethodNotAllowed = apierr.CodeMethodNotAllowed
	CodeConflict         = apierr.CodeConflict
	CodeRateLimited      = apierr.CodeRateLimited
	CodeUnavailable      = apierr.CodeUnavailable
	CodeInternal         = apierr.CodeInternal
)

// Error is a failure answered by the server: an HTTP status, a stable code
// and a message naming what is wrong. The Go admin methods return it too, so
// callers can use errors.As to read the status.
type Error = apierr.Error

func newError(status int, code, format string, args ...any) *Error {
	return apierr.New(status, code, format, args...)
}

func invalidArgument(format string, args ...any) *Error {
	return apierr.InvalidArgument(format, args...)
}

func notFound(format string, args ...any) *Error {
	return apierr.NotFound(format, args...)
}

func conflict(format string, args ...any) *Error {
	return apierr.Conflict(format, args...)
}

// writeError answers err as JSON. Errors that are not *Error become 500.
func writeError(w http.ResponseWriter, err error) { apierr.Write(w, err) }
