// Package apierr is the error answer shared by the localzdm packages: an
// HTTP status, a stable code and a message, written as JSON.
package apierr

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

// New returns an Error with a formatted message.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidArgument is a 400 invalid_argument Error.
func InvalidArgument(format string, args ...any) *Error {
	return New(http.StatusBadRequest, CodeInvalidArgument, format, args...)
}

// NotFound is a 404 not_found Error.
func NotFound(format string, args ...any) *Error {
	return New(http.StatusNotFound, CodeNotFound, format, args...)
}

// Conflict is a 409 conflict Error.
func Conflict(format string, args ...any) *Error {
	return New(http.StatusConflict, CodeConflict, format, args...)
}

// errorBody is the JSON shape of every error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Write answers err as JSON. Errors that are not *Error become 500.
func Write(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = New(http.StatusInternalServerError, CodeInternal, "internal error: %v", err)
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
