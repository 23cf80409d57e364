package values

import (
	"fmt"
	"strings"
)

// IDs made of several parts (a composite import ID, the id of an object
// named by a workspace and its own key).

// JoinID joins the parts of an ID with "/", escaping "%" and "/" inside a
// part (as %25 and %2F), so that SplitID reads the parts back whatever they
// hold: a firmware version such as "3.0/rc1" stays one part.
func JoinID(parts ...string) string {
	esc := make([]string, len(parts))
	for i, p := range parts {
		esc[i] = strings.ReplaceAll(strings.ReplaceAll(p, "%", "%25"), "/", "%2F")
	}
	return strings.Join(esc, "/")
}

// SplitID splits an ID made by JoinID into its n parts. An ID of another
// number of parts, with an empty part or with a "%" that is not %25 or %2F
// is an error that says why; the caller names the format.
func SplitID(id string, n int) ([]string, error) {
	parts := strings.Split(id, "/")
	if len(parts) != n {
		return nil, fmt.Errorf("has %d parts separated by \"/\", not %d (write a \"/\" inside a part as %%2F, and a %%%% as %%25)", len(parts), n)
	}
	for i, p := range parts {
		var b strings.Builder
		for j := 0; j < len(p); j++ {
			if p[j] != '%' {
				b.WriteByte(p[j])
				continue
			}
			switch code := strings.ToUpper(p[j+1 : min(j+3, len(p))]); code {
			case "25":
				b.WriteByte('%')
			case "2F":
				b.WriteByte('/')
			default:
				return nil, fmt.Errorf("part %d has %q, which is not %%25 (a %%%%) or %%2F (a /)", i+1, p[j:min(j+3, len(p))])
			}
			j += 2
		}
		if b.Len() == 0 {
			return nil, fmt.Errorf("part %d is empty", i+1)
		}
		parts[i] = b.String()
	}
	return parts, nil
}
