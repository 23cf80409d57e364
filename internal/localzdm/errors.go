package localzdm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// Error codes carried in the "code" member of error answers.
const (
	CodeInvalidJSON      = "invalid_json"
	CodeInvalidArgument  = "invalid_argument"
	CodeBodyTooLarge     = "body_too_large"
	CodeUnauthenticated  = "unauthenticated"
	CodeForbidden        = "forbidden"
	CodeStorageDisabled  = "storage_disabled"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeConflict         = "conflict"
	CodeRateLimited      = "rate_limited"
	CodeUnavailable      = "unavailable"
	CodeInternal         = "internal"
)

// Error is a failure answered by the server: an HTTP status, a stable code
// and a message naming what is wrong. The Go admin methods return it too, so
// callers can use errors.As to read the status.
type Error struct {
	Status  int
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func newError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func invalidArgument(format string, args ...any) *Error {
	return newError(http.StatusBadRequest, CodeInvalidArgument, format, args...)
}

func notFound(format string, args ...any) *Error {
	return newError(http.StatusNotFound, CodeNotFound, format, args...)
}

func conflict(format string, args ...any) *Error {
	return newError(http.StatusConflict, CodeConflict, format, args...)
}

// errorBody is the JSON shape of every error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError answers err as JSON. Errors that are not *Error become 500.
func writeError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = newError(http.StatusInternalServerError, CodeInternal, "internal error: %v", err)
	}
	var b errorBody
	b.Error.Code = e.Code
	b.Error.Message = e.Message
	data, mErr := json.Marshal(b)
	if mErr != nil {
		data = []byte(`{"error":{"code":"internal","message":"cannot encode error"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(data, '\n'))
}
