package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// walkEnvelope reads one JSON object from dec and calls fn with the decoder
// positioned at the value of the member named member; fn must consume that
// value. Other members are skipped, unknown ones included. A missing member
// is an error.
func walkEnvelope(dec *json.Decoder, member string, fn func(*json.Decoder) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("the answer is not a JSON object but %s", describeToken(tok))
	}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if key, ok := tok.(string); ok && key == member && !found {
			found = true
			if err := fn(dec); err != nil {
				return err
			}
			continue
		}
		if err := skipValue(dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	if !found {
		return fmt.Errorf("the answer has no %q member", member)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return errors.New("unexpected data after the JSON object")
		}
		return err
	}
	return nil
}

func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", v.String())
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// decodeEnvelope decodes the member named member of the JSON object in data
// into out (a pointer). Unknown members and fields are ignored.
func decodeEnvelope(data []byte, member string, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	err := walkEnvelope(dec, member, func(dec *json.Decoder) error {
		return dec.Decode(out)
	})
	return notJSON(err, data)
}

// notJSON wraps a decoding error that says the answer is not JSON (a
// syntax error, or an end before the value's) with the start of the
// answer; other errors (and nil) are returned as they are.
func notJSON(err error, start []byte) error {
	var syntaxErr *json.SyntaxError
	var scanErr *scanSyntaxError
	if errors.As(err, &syntaxErr) || errors.As(err, &scanErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the answer is not valid JSON (%w): %q", err, truncate(cleanText(string(start)), 120))
	}
	return err
}

// decodeListFrom decodes the array member named member of the JSON object
// read from r, one element at a time, each as a W made into the T of the
// list by conv as it is decoded. Decoding the array as one value would first
// copy all of it into the decoder's buffer: for the device list of a
// workspace of a million devices, a second copy of hundreds of megabytes.
// size is the length of the answer, when known: the slice is then sized
// once from the first element's share of it (otherwise it grows as it
// fills). A null member is an empty list.
func decodeListFrom[W, T any](r io.Reader, size int64, member string, conv func(*W) T) ([]T, error) {
	dec := json.NewDecoder(r)
	var out []T
	err := walkEnvelope(dec, member, func(dec *json.Decoder) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok == nil {
			return nil
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return fmt.Errorf("the %q member is %s, not an array", member, describeToken(tok))
		}
		for dec.More() {
			start := dec.InputOffset()
			var v W
			if err := dec.Decode(&v); err != nil {
				return err
			}
			if out == nil && size > 0 {
				out = make([]T, 0, size/max(dec.InputOffset()-start, 1)+1)
			}
			out = append(out, conv(&v))
		}
		_, err = dec.Token() // the closing bracket
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// streamResult token-streams the "result" array of a storage answer and calls
// fn (when not nil) with each data point in order. It returns the number of
// points handed to fn without error. Memory stays bounded by the largest
// point: the body is never held whole. An error of fn is wrapped in a
// callbackError.
func streamResult(r io.Reader, fn func(DataPoint) error) (int, error) {
	dec := json.NewDecoder(r)
	n := 0
	err := walkEnvelope(dec, "result", func(dec *json.Decoder) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok == nil {
			return nil // "result": null holds no points
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return fmt.Errorf(`the "result" member is %s, not an array`, describeToken(tok))
		}
		for dec.More() {
			// A fresh value each time: Payload must not share memory with
			// the previous point, which fn may have kept.
			var p DataPoint
			if err := dec.Decode(&p); err != nil {
				return fmt.Errorf("data point %d: %w", n, err)
			}
			if fn != nil {
				if err := fn(p); err != nil {
					return &callbackError{err: err}
				}
			}
			n++
		}
		_, err = dec.Token() // the closing bracket
		return err
	})
	return n, err
}
