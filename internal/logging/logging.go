// Package logging holds the logging setup shared by the provider's binary
// and the benchmark's null provider.
package logging

import (
	"slices"
	"strings"
)

// quietLogNames are the variables that set the level of the provider's
// loggers: the SDK (plugin-go), its protocol and framework subsystems, and
// the provider's own (named after the provider's type name).
var quietLogNames = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_ZDM"}

// QuietEnv is environ with the provider's logging off, as QuietUnreadLogs
// sets it when no TF_LOG variable is set (for a provider started in debug
// mode, which does not set it itself).
func QuietEnv(environ []string) []string {
	out := slices.Clone(environ)
	for _, name := range quietLogNames {
		out = append(out, name+"=off")
	}
	return out
}

// QuietUnreadLogs turns the provider's logging off when no TF_LOG variable is
// set in environ. Terraform shows a provider's log lines only when a TF_LOG
// variable asks for them, and otherwise reads and discards them; but the SDK
// writes every request at trace level unless told otherwise, and encoding
// those lines costs about a third of the provider's CPU in a large plan (and
// Terraform's CPU to read them). With any TF_LOG variable set, even only
// TF_LOG_PATH, logging is left as the SDK configures it.
func QuietUnreadLogs(environ []string, setenv func(key, value string) error) error {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_LOG") && value != "" {
			return nil
		}
	}
	for _, name := range quietLogNames {
		if err := setenv(name, "off"); err != nil {
			return err
		}
	}
	return nil
}
